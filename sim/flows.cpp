/*
 * flows.cpp - a body's activities in SimGrid (charge.c says what they
 * are): a transfer from each memory to the worker's core, all at once,
 * then an execution on the core of what compute did not hide under them.  Transfers share bandwidth by max-min
 * fairness (the CM02 network model, engine.c).  C++ because host-to-host
 * transfers without actors (Comm::sendto_async) have no C binding in
 * SimGrid 3.32.
 */
#include <cstdint>
#include <vector>

#include <simgrid/s4u.hpp>

extern "C" void sim_activities(void *core, double flops, double overlap, int nflows,
                               void *const *from, const double *bytes)
{
    namespace s4u = simgrid::s4u;
    std::vector<s4u::CommPtr> flows;
    flows.reserve(nflows);
    for (int i = 0; i < nflows; i++)
        flows.push_back(s4u::Comm::sendto_async(static_cast<s4u::Host *>(from[i]),
                                                static_cast<s4u::Host *>(core),
                                                static_cast<uint64_t>(bytes[i])));
    double t0 = s4u::Engine::get_clock();
    for (auto &c : flows)
        c->wait();
    /* the compute that hid under the traffic is done already (a flop is a
     * nanosecond at speed 1: charge.c) */
    double hidden = overlap * (s4u::Engine::get_clock() - t0) * s4u::this_actor::get_host()->get_speed();
    if (hidden > flops)
        hidden = flops;
    if (flops - hidden > 0)
        s4u::this_actor::execute(flops - hidden);
}

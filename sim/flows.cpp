/*
 * flows.cpp - a body's activities in SimGrid (charge.c says what they
 * are): an execution on the worker's core and a transfer from each memory
 * to it, started together and waited for together.  Transfers share
 * bandwidth by max-min fairness (the CM02 network model, engine.c).  C++
 * because host-to-host transfers without actors (Comm::sendto_async) have
 * no C binding in SimGrid 3.32.
 */
#include <cstdint>
#include <vector>

#include <simgrid/s4u.hpp>

extern "C" void sim_activities(void *core, double flops, int nflows, void *const *from,
                               const double *bytes)
{
    namespace s4u = simgrid::s4u;
    std::vector<s4u::CommPtr> flows;
    flows.reserve(nflows);
    s4u::ExecPtr exec = flops > 0 ? s4u::this_actor::exec_async(flops) : nullptr;
    for (int i = 0; i < nflows; i++)
        flows.push_back(s4u::Comm::sendto_async(static_cast<s4u::Host *>(from[i]),
                                                static_cast<s4u::Host *>(core),
                                                static_cast<uint64_t>(bytes[i])));
    if (exec)
        exec->wait();
    for (auto &c : flows)
        c->wait();
}

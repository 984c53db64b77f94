/*
 * charge.c - what a body costs in simulation: its memory traffic from each
 * node holding its bytes to its worker's core, every flow sharing the
 * memories and links it crosses with every other, then its modelled
 * compute on that core, less what of it the task model says hides the
 * traffic (flows.cpp; taskmodel.c: overlap).  Tile kernels do not hide
 * their misses (Cholesky's tiles of 256, simulated with the two
 * overlapped, ran 15% short of the real runs on this machine; added,
 * within a few percent), streaming kernels do (Jacobi's sweep, added, ran
 * 16-24% long): benchmarks/README.md, Simulation.
 *
 * The bytes come from the runtime's directory as the task's placement
 * booked them (runtime/sim.c): on one node each, interleaved over the nodes
 * in use, or touched first by this task (on its own node).
 */
#include "sim.h"

void sim_charge(const struct sim_machine *m, const struct lc_sim_task *t, double compute_s,
                double overlap)
{
    int nn = sim_nnodes(), nft = sim_n_ft_nodes(), k = 0;
    void *from[nn];
    double bytes[nn];
    for (int n = 0; n < nn; n++) {
        double b = (double)t->bytes[n];
        if (t->spread && nft > 0 && sim_host_worker_count(n) > 0)   /* interleaved pages */
            b += (double)t->spread / nft;
        if (n == t->node)
            b += (double)t->touched;
        if (b > 0) {
            from[k] = sim_host_memory(n);
            bytes[k++] = b;
        }
    }
    /* a flop is a nanosecond of the measuring machine's compute (machine.c) */
    sim_activities(sim_host_worker(t->worker), (compute_s + m->task_s) * 1e9, overlap, k, from,
                   bytes);
}

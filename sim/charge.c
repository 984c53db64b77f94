/*
 * charge.c - what a body costs in simulation: its modelled compute on its
 * worker's core and, at the same time, its memory traffic from each node
 * holding its bytes to that core, as one SimGrid parallel task (the ptask
 * model: the body ends when both are done, so a kernel is bound by its
 * compute or by the bandwidth it gets, whichever is slower, and every flow
 * shares the memories and links it crosses with every other).
 *
 * The bytes come from the runtime's directory as the task's placement
 * booked them (runtime/sim.c): on one node each, interleaved over the nodes
 * in use, or touched first by this task (on its own node).
 */
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>

#include "sim.h"

void sim_charge(const struct sim_machine *m, const struct lc_sim_task *t, double compute_s)
{
    int nn = sim_nnodes(), nft = sim_n_ft_nodes();
    double flops = (compute_s + m->task_s) * 1e9;   /* the host's speed scales it */
    double traffic[nn];
    int k = 0;
    for (int n = 0; n < nn; n++) {
        traffic[n] = (double)t->bytes[n];
        if (t->spread && nft > 0)   /* nodes with workers are where pages interleave */
            traffic[n] += (double)t->spread / nft * (sim_host_worker_count(n) > 0);
        if (n == t->node)
            traffic[n] += (double)t->touched;
        k += traffic[n] > 0;
    }
    if (k == 0) {
        sg_actor_execute(flops);
        return;
    }
    int nh = k + 1;
    sg_host_t hosts[nh];
    double fl[nh];
    double *bytes = calloc((size_t)nh * (size_t)nh, sizeof *bytes);
    if (!bytes) {   /* no memory for the matrix: compute alone, said at the end */
        sim_uncharged++;
        sg_actor_execute(flops);
        return;
    }
    hosts[0] = sim_host_worker(t->worker);
    fl[0] = flops;
    int j = 1;
    for (int n = 0; n < nn; n++)
        if (traffic[n] > 0) {
            hosts[j] = sim_host_memory(n);
            fl[j] = 0;
            bytes[j * nh + 0] = traffic[n];   /* from memory n to the core */
            j++;
        }
    sg_actor_parallel_execute(nh, hosts, fl, bytes);
    free(bytes);
}

/*
 * sim.h - what the simulator plug-in's files share (liblocus-sim.so:
 * engine.c runs SimGrid and serves the runtime's seams, machine.c is the
 * machine model and its platform, taskmodel.c the tasks' durations,
 * charge.c what a body costs).  The runtime's side is runtime/sim.h.
 */
#ifndef LC_SIMPLUG_H
#define LC_SIMPLUG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../runtime/sim.h"

/* A machine model: what time and bandwidth each kind of access costs.
 * Bandwidths in bytes per second, latencies and costs in seconds. */
struct sim_machine {
    char name[64];             /* the model's name (a preset's, or the file's) */
    char source[128];          /* where its figures come from, one line */
    double bw[3];              /* point to point, local / near / far (Table 2's form) */
    double lat[3];             /* load latency, local / near / far */
    double mem_bw;             /* one node's memory: all its readers together */
    double core_bw;            /* what one core can draw */
    double module_bw;          /* a module's link to the others (the bullion S's BCS), which
                                  every far access into or out of the module crosses; 0: none */
    double speed;              /* compute speed against the machine the task models
                                  were measured on (1: the same) */
    double spawn_s;            /* a spawn's cost to its spawner */
    double task_s;             /* the runtime's cost per task run (pop, completion) */
    double wake_s;             /* a sleeping thread's wake-up, until it runs */
    double poll_s;             /* one pause of an idle poll */
    /* a stalled node: its workers do not run (descheduled, as by another
     * program on their cores) from stall_at_s for stall_s; 0: none */
    double stall_node, stall_at_s, stall_s;
};

/* machine.c: the model for the topology (cfg->topo_name's preset, or the
 * generic one), then cfg->machine's file over it.  0, or -1 with err. */
int sim_machine_load(struct sim_machine *m, const struct lc_sim_config *cfg, char *err,
                     size_t errlen);
/* Writes the SimGrid platform for m and cfg to f: a host per worker
 * ("w<i>") and per node's memory ("m<n>"), a link per memory, per core and
 * per pair of nodes, a route from every memory to every core. */
void sim_machine_platform(FILE *f, const struct sim_machine *m, const struct lc_sim_config *cfg);
/* One line describing m, for the summary. */
void sim_machine_print(FILE *f, const struct sim_machine *m);

/* taskmodel.c: the task models of cfg->model (none: every body runs and is
 * charged its processor time).  0, or -1 with err. */
int sim_models_load(const char *path, char *err, size_t errlen);
/* The runtime's name of a function (lc_sim_config.symbol_name), set at start. */
extern const char *(*sim_symbol_name)(const void *fn, int full, char *buf, size_t len);
/* Task (a descriptor being spawned) is named label, else by name_fn's
 * symbol (fn's when NULL), else "object+0xoffset". */
struct model;
void sim_models_task(const void *task, locus_task_fn fn, const char *label, locus_task_fn name_fn);
/* At task's body: its model (NULL: none) and its name; forgets the task. */
const struct model *sim_models_take(const void *task, locus_task_fn fn, const char **name);
/* The modelled compute time of a body of m with bytes dependency bytes, in
 * seconds; negative for no model. */
double sim_models_time(const struct model *m, uint64_t bytes);
/* How much of m's compute hides its memory traffic, 0 to 1 (NULL: 0). */
double sim_models_overlap(const struct model *m);
/* How many bodies were charged by a model and how many run. */
extern uint64_t sim_modelled, sim_run;

/* charge.c: t's body on its worker's host under m (engine.c's hosts),
 * compute_s of compute besides its memory traffic, overlap of it hiding
 * that traffic (0 to 1). */
void sim_charge(const struct sim_machine *m, const struct lc_sim_task *t, double compute_s,
                double overlap);

/* flows.cpp: transfers bytes[i] from each from[i] to core (a host), all
 * at once, then computes flops on core less overlap times the lesser of
 * the two (in flops: one per nanosecond); returns when done. */
void sim_activities(void *core, double flops, double overlap, int nflows, void *const *from,
                    const double *bytes);

/* engine.c: the hosts */
void *sim_host_worker(int worker);
void *sim_host_memory(int node);
int sim_nnodes(void);
int sim_n_ft_nodes(void);
int sim_host_worker_count(int node);   /* workers on node */

#endif /* LC_SIMPLUG_H */

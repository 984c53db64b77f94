/*
 * machine.h - the real machine as Linux describes it under sysfs: its NUMA
 * nodes, the CPUs of each, the node distances and each CPU's SMT siblings
 * (machine.c).  topology.c builds the real topology from it; hwloc serves
 * only virtual topologies (synthetic descriptions, XML files).
 */
#ifndef LC_MACHINE_H
#define LC_MACHINE_H

struct lc_machine_node {
    int os_index;   /* the kernel's node number */
    int ncpus;
    int *cpus;      /* its CPUs, ascending (all of them, whatever the affinity mask) */
};

struct lc_machine {
    int nnodes;                    /* 0: the kernel shows no NUMA nodes */
    struct lc_machine_node *nodes; /* in the kernel's order */
    int *dist;                     /* nnodes * nnodes, row-major, or NULL when the
                                      kernel gives none that covers every node */
};

/* Reads the machine under sys (the sysfs mount, "/sys"; tests give a
 * recorded tree).  0, or -ENOMEM / -EINVAL (a file that does not parse);
 * a kernel without NUMA nodes is not an error (nnodes 0).  On failure *m
 * is left empty. */
int lc_machine_read(const char *sys, struct lc_machine *m);
/* Frees and zeroes *m; harmless on an empty one. */
void lc_machine_free(struct lc_machine *m);
/* The rank of each of the n CPUs cpus[] among its core's hardware
 * threads, into rank[] (0 for the first, and where sysfs does not say):
 * no file read at all where the kernel says SMT is off
 * (devices/system/cpu/smt/active), else one per core (its threads' ranks
 * come from one sibling list).  0, or -ENOMEM. */
int lc_machine_smt_ranks(const char *sys, const int *cpus, int n, int *rank);

#endif /* LC_MACHINE_H */

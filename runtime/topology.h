/*
 * topology.h - the machine as Locus schedules over it: NUMA nodes, the CPUs
 * of each node, the node distance matrix, and where each worker runs.
 * hwloc is the one source (distances from hwloc, else libnuma's
 * numa_distance()).  A virtual topology (LOCUS_TOPOLOGY: a preset name, an
 * hwloc synthetic description or an hwloc XML file) makes all NUMA logic run
 * on a one-node machine: its workers are then mapped onto the real CPUs and
 * data placement is bookkeeping only.
 *
 * Topology specs (the spec argument of lc_topology_load, LOCUS_TOPOLOGY):
 *   (empty)            the real machine: hwloc NUMA nodes, each with its PUs
 *                      that are in the process's affinity mask.  A PU under
 *                      several NUMA nodes (e.g. DRAM + HBM) belongs to the
 *                      first; nodes left without a usable PU (memory-only
 *                      nodes, nodes outside the mask) are not scheduled over.
 *   bullion-s16, 4s... a preset (case-insensitive); lc_topology_print_presets
 *                      lists them.
 *   synthetic:DESC[;dist=D]
 *                      DESC is an hwloc synthetic description, the one lstopo
 *                      -i takes, e.g. "pack:2 numa:1 core:4 pu:1".  D is a
 *                      comma-separated list of decimal distances, one of:
 *                        N*N values  the full row-major matrix (N = nodes),
 *                                    diagonal 10, others 10..1000;
 *                        L,R         10 local, R between any two nodes;
 *                        L,N,F       10 local, N between nodes that share a
 *                                    package or group, F for the others
 *                                    (10 <= N <= F <= 1000).
 *                      Without ;dist= the distances are 10 local, 20 remote.
 *   PATH               an hwloc XML file (lstopo foo.xml); its NUMA latency
 *                      matrix if it has one (rescaled to local = 10), else
 *                      10 local, 20 remote.  A value that is no preset is
 *                      taken as a path when it contains '/', ends in ".xml"
 *                      or names an existing file.
 * Virtual topologies number their nodes and CPUs 0..N-1; their workers bind
 * round-robin to the real CPUs of the affinity mask.
 */
#ifndef LC_TOPOLOGY_H
#define LC_TOPOLOGY_H

#include <stddef.h>
#include <stdio.h>

enum lc_dist_class { LC_DIST_LOCAL = 0, LC_DIST_NEAR = 1, LC_DIST_FAR = 2 };

/* Most NUMA nodes a topology may have (keeps the matrix at most 4 MiB). */
#define LC_TOPO_MAX_NODES 1024

struct lc_topo_node {
    int os_index;       /* the kernel's node number (real) or the virtual one */
    int ncpus;          /* PUs of this node */
    int *cpus;          /* their OS indices (virtual topologies: virtual PU numbers);
                           one PU per core first, then the second PUs of the
                           cores, ..., so early workers get distinct cores */
};

struct lc_topology {
    int nnodes;
    struct lc_topo_node *nodes;   /* logical node i = nodes[i] */
    int *dist;                    /* nnodes * nnodes, row-major, local = 10 */
    int is_virtual;               /* 1 when built from LOCUS_TOPOLOGY */
    char name[64];                /* "machine" or the preset / "synthetic" / "xml" */
    char desc[256];               /* one line describing the source */
    int ncpus;                    /* sum of nodes[i].ncpus */
    int *near;                    /* nnodes: smallest remote distance of each row
                                     (10 for a one-node topology) */
    int nreal_cpus;               /* real OS CPUs of the affinity mask ... */
    int *real_cpus;               /* ... ordered like lc_topo_node.cpus */
};

/*
 * Loads the real machine (spec NULL or "") or a virtual topology.
 * Returns 0, or -EINVAL / -ENOENT / -ENOMEM with a message in err naming the
 * spec and what is accepted (preset names, "synthetic:..." forms, a path).
 * On failure *t is left empty (lc_topology_free on it is harmless).
 */
int lc_topology_load(struct lc_topology *t, const char *spec, char *err, size_t errlen);
/* Frees everything and zeroes *t; safe on a zeroed or failed topology. */
void lc_topology_free(struct lc_topology *t);

/* Distance class of node b seen from node a: local (a == b), near (the
 * smallest remote distance of row a), far (anything larger, or a node
 * number out of range). */
enum lc_dist_class lc_topology_class(const struct lc_topology *t, int a, int b);

/* Logical node of kernel (or virtual) node number os_node, or -1 when Locus
 * does not schedule over that node. */
int lc_topology_node_of_os(const struct lc_topology *t, int os_node);

/*
 * Places nworkers workers: spread evenly over the nodes (worker w on node
 * w * nnodes / nworkers, so 16 workers on 16 nodes is one per node), each on
 * a distinct CPU of its node where there are enough.  Fills worker_node[w]
 * (logical node) and worker_cpu[w] (a real OS CPU number allowed by the
 * process's affinity mask to bind to, or -1 when binding is impossible, e.g.
 * more workers than CPUs gives a CPU shared round-robin).  Returns 0 or
 * -EINVAL.
 * Details: with nworkers < nnodes the workers take nodes spread over the
 * machine (2 on 16 nodes: 0 and 8); otherwise every node gets
 * floor(nworkers / nnodes) or one more.  The k-th worker of a node takes the
 * node's CPU k mod ncpus (real topologies); virtual topologies bind worker w
 * to real_cpus[w mod nreal_cpus].  worker_cpu may be NULL.
 */
int lc_topology_place_workers(const struct lc_topology *t, int nworkers,
                              int *worker_node, int *worker_cpu);

/* Binds the calling thread to OS CPU cpu, one of t->real_cpus (a real
 * CPU even for a virtual topology).  0 or negative errno (-EINVAL for a
 * CPU not in real_cpus). */
int lc_topology_bind_self(const struct lc_topology *t, int cpu);

/* Number of CPUs in the calling process's affinity mask (>= 1). */
int lc_affinity_cpus(void);

/* Writes the list of presets with a one-line description each to f (FILE *). */
void lc_topology_print_presets(void *f);

/*
 * Writes the topology to f: source, nodes with their CPUs, the distance
 * matrix and, per node, its steal neighbours (the nodes at the row's nearest
 * remote distance).  With worker_node (nworkers entries, as filled by
 * lc_topology_place_workers) it also shows the workers of each node;
 * worker_node may be NULL.
 */
void lc_topology_print(const struct lc_topology *t, int nworkers,
                       const int *worker_node, FILE *f);

#endif /* LC_TOPOLOGY_H */

/*
 * naft.c - the NUMA-aware scheduler of the NAFT regime (Caheny et al.,
 * "Reducing cache coherence traffic with a NUMA-aware runtime approach",
 * IEEE TPDS 29(5), 2018, section 4).  On a machine of several nodes a ready
 * task is one of three kinds, each queued where its promise can be kept:
 *  - first-touch (it writes data nobody has touched, and no node holds
 *    more of its other bytes than that): dealt round-robin over the nodes
 *    that have workers and queued on its node's bound FIFO, which only that
 *    node's workers take (unless the node is held: below), so the data is
 *    spread as dealt whatever LOCUS_STEAL says;
 *  - data-bound (it has known bytes): on the node holding most of them
 *    (ties: the spawner's node if among the best, else the lowest); queued
 *    on the affine deque of a worker of that node (or the node's inbox when
 *    sent from another node).  Another node takes such a task only while
 *    this node cannot keep up: more than LC_NAFT_MARGIN of them queued per
 *    worker here, or every worker of this node asleep; and only a node
 *    LOCUS_STEAL allows (near: the nearest nodes that have workers; all:
 *    every node, nearest first; none: never).  When a task waited for
 *    predecessors, its node is chosen again when it becomes ready if
 *    bookings moved meanwhile (locality.c, lc_locality_ready);
 *  - hinted (locus_spawn_attr with a node): as a data-bound task of that
 *    node (its nearest node with workers), or bound there if first-touch;
 *  - affinity-free (no dependencies, no known bytes): on the spawner's
 *    ordinary deque, shared by all nodes: an idle worker of any node takes
 *    it, nearest first.
 * An idle worker looks at its own node first (its deques, the bound FIFO,
 * the inbox, its node's other workers) and at other nodes only after
 * LOCUS_STEAL_SPIN idle polls.
 * The wait bound: a node whose workers finish none of its tasks for
 * max(LOCUS_WAIT_US, LC_NAFT_WAIT_BODIES times the longest mean body of
 * its workers, LC_NAFT_WAIT_WAKES times their wake-ups' latency) while
 * data-bound tasks wait there gives them up to the idle workers of the
 * nodes LOCUS_STEAL lets take its data-bound tasks, nearest first (by
 * default its nearest nodes with workers: a far node reads them at a
 * fraction of the bandwidth, and the simulated bullion S16 ran Jacobi
 * slower with far thieves than waiting; not with LOCUS_STEAL=none, nor
 * when Locus runs more workers than CPUs: its polls yield the CPUs to the
 * workers with work then).  Its workers are then not running:
 * descheduled (their CPU is shared with another program, an MPI progress
 * thread, or other vCPUs of a virtual machine), blocked in a system call,
 * or in bodies far longer than their usual ones; waiting for them would
 * make one busy core hold up the whole program, where a DFT run would not
 * wait.  A node that keeps finishing tasks is never robbed this way,
 * however long its queue (that is the margin's business, above).
 * First-touch tasks wait longer, LC_NAFT_HOLD_NS: taking one elsewhere
 * moves its data there for the rest of the run, so only a node held that
 * long gives them up (its workers may each be in a task waiting for one
 * of these: a spawner spinning on a flag its task sets is legal OpenMP,
 * and libgomp and libomp run that task elsewhere).  Idle workers look at
 * stalled nodes while they poll, every quarter of LOCUS_WAIT_US at most
 * (stall_look_due), and before they sleep; those that sleep while other
 * nodes hold tasks they may not take yet look again after the bound
 * (idle_nap), and a push to a node with no sleeper wakes one when none of
 * them does.  locus(7) documents the bound.
 * On a single node everything is the ordinary deque: this is the oblivious
 * scheduler with an empty queue or two more to look at, which keeps its
 * cost within reach of DFT.
 * A task with a priority is queued on its node's priority queue (prio.h;
 * the spawner's node for one without a node), which that node's workers
 * look at before anything else; other nodes take from it what they may
 * take from the node's other queues: tasks without a node whenever they
 * look at its shared tasks, its data-bound tasks (never first-touch ones)
 * when it is overloaded or asleep.  Every queue here, the first-touch
 * dealing's counter included, is this policy's own (policy.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deque.h"
#include "policy.h"
#include "prio.h"
#include "steal.h"
#include "rng.h"
#include "runtime.h"

extern const struct lc_sched_ops lc_sched_naft;   /* below: its name for messages */

/* A node takes another node's data-bound tasks only while that node has
 * more than this many queued per worker: the last of them would wait more
 * than this many task lengths for a worker of its own node.  Below it the
 * tasks wait and run next to their data (the spawner's node, busy
 * spawning, must not lose its share to nodes that finished theirs); above
 * it the node is overloaded and idle nodes help.  locus(7) documents it. */
#define LC_NAFT_MARGIN 16

/* The wait bound (top): a node whose workers finished none of its tasks
 * for the longest of LOCUS_WAIT_US, LC_NAFT_WAIT_BODIES of their mean
 * bodies and LC_NAFT_WAIT_WAKES of the time its sleepers take to come
 * back after a wake-up (LC_NAFT_WAIT_FIRST_WAKE_NS while the first one is
 * on its way) while data-bound tasks waited there does not run: idle
 * workers elsewhere take them.  The floor's default, a millisecond, is
 * many wake-ups of a sleeping worker on a machine whose workers own their
 * cores, and about a scheduler's time slice; the body multiple keeps a
 * node busy with long bodies from being robbed between two of them; the
 * wake-up multiple keeps a machine whose wake-ups are slow (a virtual
 * machine's vCPUs waiting for its host's cores: milliseconds in the QEMU
 * guests of tests/numa-vm) from moving every task whose worker was asleep.
 * First-touch tasks wait LC_NAFT_HOLD_NS: long against any task a
 * locality-minded program spawns, short against a program that waits for
 * one of them. */
#define LC_NAFT_WAIT_BODIES 4
#define LC_NAFT_WAIT_WAKES 8
#define LC_NAFT_WAIT_FIRST_WAKE_NS 10000000ull   /* 10 ms */
#define LC_NAFT_HOLD_NS 1000000000ull    /* 1 s */
#define LC_NAFT_STALL_EVERY 8            /* polls between two clock reads before LOCUS_STEAL_SPIN */

/* inbox: data-bound tasks sent to the node from other nodes, and those an
 * affine deque of the node could not take (no memory); bound: the node's
 * first-touch tasks.  Both linked through qnext (steal.h). */
struct naft_node {
    struct lc_fifo inbox, bound;
    int *workers, nworkers;     /* ids of this node's workers */
    int *victims, nvictims;     /* nodes whose data-bound tasks this node may take, nearest first */
    int *sharers, nsharers;     /* every other node with workers, nearest first */
    int *thieves, nthieves;     /* nodes that may take this node's data-bound tasks */
    /* the stall mark (the wait bound, naft_pop): its workers' tasks run,
     * and since when, as idle workers last saw it holding tasks (since 0:
     * not seen so); written by idle workers only */
    _Atomic uint64_t stall_run, stall_since;
};

/* A worker's own deques (w->sched_local), in one record so that its
 * owner reaches them without following a pointer. */
struct naft_local {
    struct lc_deque dq;         /* tasks without a node: any node's workers take them */
    struct lc_deque adq;        /* its node's data-bound tasks (several nodes) */
    int has_adq;
    int napping;                /* counted in naft.nappers (idle_nap) */
    uint64_t next_look_ns;      /* the next look at stalled nodes (stall_look_due) */
};

struct naft {
    struct naft_node *nodes;
    int nnodes, nworkers;
    /* idle polls before looking at other nodes: LOCUS_STEAL_SPIN, but never
     * more than a worker makes before it sleeps (LOCUS_SPIN), or a worker
     * woken for another node's task would sleep again without looking */
    unsigned steal_spin;
    /* the wait bound applies (top): not with LOCUS_STEAL=none, nor with
     * more workers than CPUs, where Locus itself shares the CPUs and its
     * polls yield them to the workers with work (spin.h) */
    int bounded;
    uint64_t wait_ns;           /* LOCUS_WAIT_US: the bound's floor */
    uint64_t look_ns;           /* between two looks at stalled nodes (stall_look_due) */
    struct naft_local *local;   /* per worker: its deques */
    struct lc_fifo spill;       /* tasks without a node a deque could not take, and
                                   those an event released (LC_TF_FIFO), in order */
    struct lc_prio_set prio;
    /* first-touch tasks dealt so far: written by every first-touch
     * placement, so on a line of its own */
    _Alignas(LC_CACHELINE) _Atomic unsigned ft_next;
    /* workers asleep for at most the wait bound because other nodes hold
     * tasks (idle_nap): while there are any, a push to a node without
     * sleepers wakes nobody (wake_other) */
    _Alignas(LC_CACHELINE) _Atomic int nappers;
};

static void naft_fini(struct lc_runtime *rt)
{
    struct naft *s = rt->sched_data;
    if (!s)
        return;
    if (s->local)
        for (int i = 0; i < s->nworkers; i++) {
            lc_deque_destroy(&s->local[i].dq);
            lc_deque_destroy(&s->local[i].adq);
        }
    lc_prio_fini(&s->prio);
    lc_fifo_destroy(&s->spill);
    free(s->local);
    if (s->nodes)
        for (int n = 0; n < s->nnodes; n++) {
            lc_fifo_destroy(&s->nodes[n].inbox);
            lc_fifo_destroy(&s->nodes[n].bound);
            free(s->nodes[n].workers);
            free(s->nodes[n].victims);
            free(s->nodes[n].sharers);
            free(s->nodes[n].thieves);
        }
    free(s->nodes);
    free(s);
    rt->sched_data = NULL;
    for (int i = 0; i < rt->nworkers; i++)
        rt->workers[i].sched_local = NULL;
}

static const struct lc_topology *sort_topo;
static int sort_from;
static int by_distance(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b, nn = sort_topo->nnodes;
    int dx = sort_topo->dist[sort_from * nn + x], dy = sort_topo->dist[sort_from * nn + y];
    return dx != dy ? (dx < dy ? -1 : 1) : (x < y ? -1 : x > y);
}

/* The distance from node n to the nearest other node that has workers. */
static int nearest_with_workers(const struct lc_runtime *rt, const struct naft *s, int n)
{
    int nn = rt->topo.nnodes, best = -1;
    for (int v = 0; v < nn; v++)
        if (v != n && s->nodes[v].nworkers
            && (best < 0 || rt->topo.dist[n * nn + v] < best))
            best = rt->topo.dist[n * nn + v];
    return best;
}

static void sort_by_distance(const struct lc_runtime *rt, int from, int *v, int n)
{
    sort_topo = &rt->topo;
    sort_from = from;
    qsort(v, (size_t)n, sizeof *v, by_distance);
}

static int naft_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    int nn = rt->topo.nnodes;
    struct naft *s = aligned_alloc(LC_CACHELINE, sizeof *s);
    if (!s)
        goto nomem;
    memset(s, 0, sizeof *s);
    s->nnodes = nn;
    s->nworkers = rt->nworkers;
    s->steal_spin = rt->opt.steal_spin;
    s->wait_ns = rt->opt.wait_us * 1000ull;
    s->bounded = s->wait_ns && rt->opt.steal != LC_STEAL_NONE && !rt->oversubscribed;
    s->look_ns = (s->bounded ? s->wait_ns : LC_NAFT_HOLD_NS) / 4;
    if (s->steal_spin >= rt->opt.spin)
        s->steal_spin = rt->opt.spin > 0 ? rt->opt.spin - 1 : 0;
    atomic_init(&s->ft_next, 0);
    atomic_init(&s->nappers, 0);
    lc_fifo_init(&s->spill);
    rt->sched_data = s;   /* naft_fini frees whatever is set below */
    if (!(s->nodes = calloc((size_t)nn, sizeof *s->nodes)))
        goto nomem_all;
    for (int n = 0; n < nn; n++) {
        lc_fifo_init(&s->nodes[n].inbox);
        lc_fifo_init(&s->nodes[n].bound);
    }
    if (lc_prio_init(&s->prio, nn) < 0)
        goto nomem_all;
    s->local = aligned_alloc(LC_CACHELINE, (size_t)rt->nworkers * sizeof *s->local);
    if (!s->local)
        goto nomem_all;
    /* deque buffers NULL first: naft_fini may destroy every one of them */
    memset(s->local, 0, (size_t)rt->nworkers * sizeof *s->local);
    for (int i = 0; i < rt->nworkers; i++) {
        struct naft_local *l = &s->local[i];
        if (lc_deque_init(&l->dq, 10) < 0 || (nn > 1 && lc_deque_init(&l->adq, 8) < 0))
            goto nomem_all;
        l->has_adq = nn > 1;
        rt->workers[i].sched_local = l;
    }
    for (int n = 0; n < nn; n++) {
        struct naft_node *nd = &s->nodes[n];
        nd->workers = calloc((size_t)rt->nworkers, sizeof *nd->workers);
        nd->victims = calloc((size_t)nn, sizeof *nd->victims);
        nd->sharers = calloc((size_t)nn, sizeof *nd->sharers);
        nd->thieves = calloc((size_t)nn, sizeof *nd->thieves);
        if (!nd->workers || !nd->victims || !nd->sharers || !nd->thieves)
            goto nomem_all;
        for (int i = 0; i < rt->nworkers; i++)
            if (rt->workers[i].node == n)
                nd->workers[nd->nworkers++] = i;
    }
    for (int n = 0; n < nn; n++) {
        struct naft_node *nd = &s->nodes[n];
        /* "nearest" among the nodes that have workers: with fewer workers
         * than nodes, the nearest node may have none to give */
        int nearest = nearest_with_workers(rt, s, n);
        for (int v = 0; v < nn; v++) {
            if (v == n || !s->nodes[v].nworkers)
                continue;
            nd->sharers[nd->nsharers++] = v;
            if (rt->opt.steal == LC_STEAL_NONE)
                continue;
            if (rt->opt.steal == LC_STEAL_NEAR && rt->topo.dist[n * nn + v] != nearest)
                continue;
            nd->victims[nd->nvictims++] = v;
        }
        sort_by_distance(rt, n, nd->victims, nd->nvictims);
        sort_by_distance(rt, n, nd->sharers, nd->nsharers);
    }
    for (int n = 0; n < nn; n++)          /* thieves, in each node's order of distance */
        for (int v = 0; v < nn; v++)
            for (int i = 0; i < s->nodes[v].nvictims; i++)
                if (s->nodes[v].victims[i] == n)
                    s->nodes[n].thieves[s->nodes[n].nthieves++] = v;
    for (int n = 0; n < nn; n++)
        sort_by_distance(rt, n, s->nodes[n].thieves, s->nodes[n].nthieves);
    return 0;

nomem_all:
    naft_fini(rt);
nomem:
    snprintf(err, errlen, "scheduler %s: out of memory for the node queues", lc_sched_naft.name);
    return -ENOMEM;
}

static void naft_place(struct lc_worker *w, struct lc_task *t, const struct lc_placement *pl)
{
    struct lc_runtime *rt = w->rt;
    int nn = rt->topo.nnodes;

    if (pl->hint >= 0) {
        /* the program knows better than the data: its node (or the nearest
         * with workers) wins, and a first-touch task is bound there */
        t->node = rt->node_home[pl->hint];
        if (pl->first_touch)
            t->flags |= LC_TF_BOUND;
        return;
    }
    /* bytes per node with workers; interleaved bytes weigh the same on every
     * node in use, so they cannot change the choice and are left out */
    uint64_t score[nn];
    for (int n = 0; n < nn; n++)
        score[n] = 0;
    for (int n = 0; n < nn; n++)
        if (pl->bytes[n])
            score[rt->node_home[n]] += pl->bytes[n];
    /* Ties (a task reading a tile on each of three nodes) go to one of the
     * tied nodes at random.  Always the lowest, or the spawner's, put a
     * program whose initial thread spawns every task on the first nodes:
     * the simulated bullion S16 showed Cholesky's tiles dealt evenly but its
     * GEMMs falling 18 to 1 on node 0 against node 15, and NAFT 2.4x slower
     * than DFT at one worker per node (benchmarks/README.md, Simulation). */
    int best = -1, ties = 0;
    for (int n = 0; n < nn; n++) {
        if (!score[n] || (best >= 0 && score[n] < score[best]))
            continue;
        if (best < 0 || score[n] > score[best]) {
            best = n;
            ties = 1;
        } else if (lc_rng_next(&w->rng) % (uint64_t)++ties == 0) {
            best = n;   /* reservoir sampling: each tied node equally likely */
        }
    }
    /* A first-touch task is dealt, unless one node already holds more of
     * its bytes than it writes anew: then it is data-bound like any other
     * and its new regions are booked there (a task that reads a block and
     * first writes a few flags beside it runs next to the block). */
    if (pl->first_touch && (best < 0 || score[best] <= pl->fresh)) {
        struct naft *s = rt->sched_data;
        unsigned k = atomic_fetch_add_explicit(&s->ft_next, 1, memory_order_relaxed);
        t->node = rt->ft_nodes[k % (unsigned)rt->n_ft_nodes];
        t->flags |= LC_TF_BOUND;
        return;
    }
    if (best < 0) {
        t->node = -1;           /* nothing known: shared by every node */
        return;
    }
    t->node = best;
}

static int64_t bound_queued(const struct naft *s, int n);

/*
 * The core found none of node's workers asleep after a task was queued for
 * it: wake a sleeping worker of a node allowed to take from it, but only
 * when it is overloaded (below the margin the thief could take nothing).
 * The sum over the node's deques only once a thief sleeps.
 */
static int naft_wake_other(struct lc_worker *w, int node)
{
    struct lc_runtime *rt = w->rt;
    struct naft *s = rt->sched_data;
    const struct naft_node *nd = &s->nodes[node];
    for (int i = 0; i < nd->nthieves; i++)
        if (lc_sleepers(rt, nd->thieves[i]) > 0) {
            if (bound_queued(s, node) > (int64_t)LC_NAFT_MARGIN * nd->nworkers)
                return nd->thieves[i];
            break;
        }
    /* node's workers are all busy, and may be stalled (the wait bound at
     * the top): somebody idle must look at it again later.  A napper will
     * (the pusher's half of the handshake in naft_idle_nap: these reads
     * follow the core's lc_push_fence); without one, wake the nearest
     * sleeper not being woken already */
    if (atomic_load_explicit(&s->nappers, memory_order_seq_cst) > 0)
        return -1;
    for (int i = 0; i < nd->nsharers; i++) {
        int v = nd->sharers[i];
        if (lc_sleepers(rt, v) > 0 && !lc_node_waking(rt, v))
            return v;
    }
    return -1;
}

static int naft_push(struct lc_worker *w, struct lc_task *t)
{
    struct naft *s = w->rt->sched_data;
    struct naft_local *own = w->sched_local;
    int node = t->node;

    if (__builtin_expect(t->prio != 0, 0)) {
        lc_prio_push(&s->prio, node >= 0 ? node : w->node, t);
        return node < 0 ? LC_WAKE_ANY : node;
    }
    if (node < 0) {                 /* affinity-free: any node's idle worker may take it */
        if (__builtin_expect(t->flags & LC_TF_FIFO, 0))
            lc_fifo_push(&s->spill, t);   /* in its events' order (ready.h) */
        else
            lc_deque_push_or_spill(&own->dq, &s->spill, t);
        return LC_WAKE_ANY;
    }
    if (t->flags & LC_TF_BOUND) {
        lc_fifo_push(&s->nodes[node].bound, t);
        return node;                /* only its own node may run it */
    }
    if (node == w->node && own->has_adq && !(t->flags & LC_TF_FIFO))
        lc_deque_push_or_spill(&own->adq, &s->nodes[node].inbox, t);
    else
        lc_fifo_push(&s->nodes[node].inbox, t);
    return node;
}

static int naft_push_light(struct lc_worker *w, const struct lc_qitem *it)
{
    struct naft_local *own = w->sched_local;
    return lc_deque_push_owner(&own->dq, it) < 0 ? -ENOMEM : 0;
}

/* Data-bound tasks queued on node n: its inbox and its workers' affine
 * deques (a racy sum: a hint for deciding whether to take from n). */
static int64_t bound_queued(const struct naft *s, int n)
{
    const struct naft_node *nd = &s->nodes[n];
    int64_t q = lc_fifo_size(&nd->inbox);
    if (s->nnodes > 1)
        for (int i = 0; i < nd->nworkers; i++)
            q += lc_deque_size(&s->local[nd->workers[i]].adq);
    return q;
}

/* Whether node n holds tasks queued for it: first-touch, data-bound or
 * with a priority (a racy hint). */
static int node_holds(const struct naft *s, int n)
{
    return lc_fifo_size(&s->nodes[n].bound) > 0 || bound_queued(s, n) > 0
           || (lc_prio_used(&s->prio) && lc_prio_top(&s->prio, n) > 0);
}

/* The wait bound of node nd (top), in ns. */
static uint64_t wait_bound(const struct lc_runtime *rt, const struct naft *s,
                           const struct naft_node *nd)
{
    uint64_t body = 0;
    for (int i = 0; i < nd->nworkers; i++) {
        uint64_t b = lc_body_ns(rt, nd->workers[i]);
        body = b > body ? b : body;
    }
    body *= LC_NAFT_WAIT_BODIES;
    body = body > s->wait_ns ? body : s->wait_ns;
    int n = (int)(nd - s->nodes);
    uint64_t wake = lc_wake_latency_ns(rt, n) * LC_NAFT_WAIT_WAKES;
    if (!wake && lc_node_waking(rt, n))
        wake = LC_NAFT_WAIT_FIRST_WAKE_NS;   /* no wake-up of it timed yet, one on its way */
    body = body > wake ? body : wake;
    return body < LC_NAFT_HOLD_NS ? body : LC_NAFT_HOLD_NS;
}

/* For node nd seen holding tasks now: for how long its workers have
 * finished none, as far as idle workers' looks can tell (the first look
 * that finds their count moved starts the while again, and answers 0). */
static uint64_t node_stalled_ns(const struct lc_runtime *rt, struct naft_node *nd)
{
    uint64_t run = 0;
    for (int i = 0; i < nd->nworkers; i++)
        run += lc_tasks_run(rt, nd->workers[i]);
    uint64_t now = lc_now_ns();
    uint64_t since = atomic_load_explicit(&nd->stall_since, memory_order_relaxed);
    if (!since || run != atomic_load_explicit(&nd->stall_run, memory_order_relaxed)) {
        atomic_store_explicit(&nd->stall_run, run, memory_order_relaxed);
        atomic_store_explicit(&nd->stall_since, now ? now : 1, memory_order_relaxed);
        return 0;
    }
    /* another look may have set since after this one read the clock */
    return now > since ? now - since : 0;
}

/* A task of w's own node: the bound FIFO, the inbox, then the other
 * workers' affine and ordinary deques. */
static struct lc_qitem take_own_node(struct lc_worker *w, struct naft *s, int *wake)
{
    struct naft_node *nd = &s->nodes[w->node];
    struct lc_task *t = lc_fifo_pop(&nd->bound);
    if (t || (t = lc_fifo_pop(&nd->inbox)))
        return lc_qitem_of(t);
    struct lc_qitem it = { NULL, NULL, NULL, 0 };
    if (s->nnodes > 1)
        it = lc_steal_items(w, &s->local->adq, sizeof *s->local, nd->workers, nd->nworkers,
                            w->node, wake);
    if (!it.p)
        it = lc_steal_items(w, &s->local->dq, sizeof *s->local, nd->workers, nd->nworkers,
                            w->node, wake);
    return it;
}

/* A data-bound task of another node n: its inbox (sent there, taken here:
 * a steal), then its workers' affine deques. */
static struct lc_qitem take_bound_from(struct lc_worker *w, struct naft *s, int n, int *wake)
{
    struct lc_task *t = lc_fifo_pop(&s->nodes[n].inbox);
    if (t) {
        lc_note_steal(w, n);
        return lc_qitem_of(t);
    }
    return lc_steal_items(w, &s->local->adq, sizeof *s->local, s->nodes[n].workers,
                          s->nodes[n].nworkers, n, wake);
}

/* Whether a task of priority may be taken from node v's priority queue by
 * mode, and there is one. */
static struct lc_qitem take_prio(struct lc_worker *w, struct naft *s, int v,
                                 enum lc_prio_mode mode)
{
    return lc_qitem_of(lc_prio_take(w, &s->prio, v, mode));
}

/* A task of node n, stalled past its wait bound: its first-touch tasks
 * when held past LC_NAFT_HOLD_NS (held), those with a priority, then its
 * data-bound ones. */
static struct lc_qitem take_stalled(struct lc_worker *w, struct naft *s, int n, int held,
                                    int *wake)
{
    struct lc_task *t = held ? lc_fifo_pop(&s->nodes[n].bound) : NULL;
    if (t) {
        lc_note_steal(w, n);
        return lc_qitem_of(t);
    }
    struct lc_qitem it;
    if (lc_prio_used(&s->prio)
        && (it = take_prio(w, s, n, held ? LC_PRIO_ANY : LC_PRIO_UNBOUND)).p)
        return it;
    return take_bound_from(w, s, n, wake);
}

/* Whether node nd may take node v's data-bound tasks (LOCUS_STEAL). */
static int steals_from(const struct naft_node *nd, int v)
{
    for (int i = 0; i < nd->nvictims; i++)
        if (nd->victims[i] == v)
            return 1;
    return 0;
}

/* A task of another node stalled past its wait bound (top), nearest
 * first. */
static struct lc_qitem take_from_stalled(struct lc_worker *w, struct naft *s,
                                         const struct naft_node *nd, int *wake)
{
    struct lc_qitem it = { NULL, NULL, NULL, 0 };
    for (int i = 0; i < nd->nsharers; i++) {
        int v = nd->sharers[i];
        struct naft_node *vd = &s->nodes[v];
        if (!node_holds(s, v)) {
            if (atomic_load_explicit(&vd->stall_since, memory_order_relaxed))
                atomic_store_explicit(&vd->stall_since, 0, memory_order_relaxed);
            continue;
        }
        uint64_t stalled = node_stalled_ns(w->rt, vd);
        int held = stalled >= LC_NAFT_HOLD_NS;
        if ((held || (s->bounded && steals_from(nd, v) && stalled >= wait_bound(w->rt, s, vd)))
            && (it = take_stalled(w, s, v, held, wake)).p) {
            lc_locality_given_up(it.p);   /* counted where it runs (tasks_given_up) */
            return it;
        }
    }
    return it;
}

/* Whether w's next look at the stalled nodes is due: every look reads
 * every other node's queue sizes and its workers' counts, lines their
 * owners write, so an idle worker looks only every look_ns (a quarter of
 * the wait bound's floor), not at every poll. */
static int stall_look_due(const struct naft *s, struct naft_local *own)
{
    uint64_t now = lc_now_ns();
    if (now < own->next_look_ns)
        return 0;
    own->next_look_ns = now + s->look_ns;
    return 1;
}

static struct lc_qitem naft_pop(struct lc_worker *w, int *wake)
{
    struct lc_runtime *rt = w->rt;
    struct naft *s = rt->sched_data;
    struct naft_local *own = w->sched_local;
    struct lc_qitem it;
    if (__builtin_expect(own->napping, 0)) {   /* back from a nap (naft_idle_nap) */
        own->napping = 0;
        atomic_fetch_sub_explicit(&s->nappers, 1, memory_order_seq_cst);
    }
    int prio = lc_prio_used(&s->prio);
    if (__builtin_expect(prio, 0) && (it = take_prio(w, s, w->node, LC_PRIO_ANY)).p)
        return it;
    if (own->has_adq && (it = lc_deque_pop_owner(&own->adq)).p)
        return it;
    if ((it = lc_deque_pop_owner(&own->dq)).p || (it = take_own_node(w, s, wake)).p)
        return it;
    if (__builtin_expect(lc_fifo_size(&s->spill) > 0, 0))
        if ((it = lc_qitem_of(lc_fifo_pop(&s->spill))).p)
            return it;
    /* w's node has an idle worker: not stalled (the wait bound), whatever
     * a look saw before */
    struct naft_node *nd = &s->nodes[w->node];
    if (__builtin_expect(atomic_load_explicit(&nd->stall_since, memory_order_relaxed) != 0, 0))
        atomic_store_explicit(&nd->stall_since, 0, memory_order_relaxed);
    if (w->idle_polls < s->steal_spin && !w->last_look) {
        /* a time bound, not one of polls: a poll can take microseconds (a
         * CPU shared with others, an emulated one), so the stalled nodes
         * are looked at before LOCUS_STEAL_SPIN too */
        if (w->idle_polls % LC_NAFT_STALL_EVERY == LC_NAFT_STALL_EVERY - 1
            && stall_look_due(s, own))
            it = take_from_stalled(w, s, nd, wake);
        return it;
    }
    /* other nodes: their shared tasks, nearest first, then the data-bound
     * tasks of a victim that is overloaded */
    for (int i = 0; i < nd->nsharers; i++) {
        int v = nd->sharers[i];
        if (__builtin_expect(prio, 0) && (it = take_prio(w, s, v, LC_PRIO_FREE)).p)
            return it;
        if ((it = lc_steal_items(w, &s->local->dq, sizeof *s->local, s->nodes[v].workers,
                                 s->nodes[v].nworkers, v, wake)).p)
            return it;
    }
    for (int i = 0; i < nd->nvictims; i++) {
        int v = nd->victims[i];
        if (bound_queued(s, v) > (int64_t)LC_NAFT_MARGIN * s->nodes[v].nworkers
            && ((prio && (it = take_prio(w, s, v, LC_PRIO_UNBOUND)).p)
                || (it = take_bound_from(w, s, v, wake)).p))
            return it;
    }
    /* a node whose workers all sleep, none being woken, has no capacity at
     * all: its tasks would wait for a push to wake one (a fork-join
     * program pays that once per round), so the nodes LOCUS_STEAL allows
     * may take them, nearest first.  A node a push is waking keeps its
     * tasks: its worker is on the way (on a machine whose CPUs are shared
     * that can take long, and taking its tasks then costs their locality
     * every time) */
    for (int i = 0; i < nd->nvictims; i++) {
        int v = nd->victims[i];
        if (lc_node_asleep(rt, v, s->nodes[v].nworkers)
            && ((prio && (it = take_prio(w, s, v, LC_PRIO_UNBOUND)).p)
                || (it = take_bound_from(w, s, v, wake)).p))
            return it;
    }
    /* the tasks of a node stalled past its wait bound (top) */
    if (w->last_look || stall_look_due(s, own))
        it = take_from_stalled(w, s, nd, wake);
    return it;
}

/* How long before nd's workers may take tasks held by other nodes, in ns:
 * the shortest wait bound of the nodes holding tasks that they may take
 * from (LOCUS_STEAL), the hold of the others and of all when the bound is
 * off; 0 when no other node holds tasks. */
static uint64_t others_hold(const struct lc_runtime *rt, const struct naft *s,
                            const struct naft_node *nd)
{
    uint64_t nap = 0;
    for (int i = 0; i < nd->nsharers; i++)
        if (node_holds(s, nd->sharers[i])) {
            int v = nd->sharers[i];
            uint64_t b = s->bounded && steals_from(nd, v) ? wait_bound(rt, s, &s->nodes[v])
                                                          : LC_NAFT_HOLD_NS;
            nap = !nap || b < nap ? b : nap;
        }
    return nap;
}

/*
 * w goes to sleep: while other nodes hold tasks it may not take yet, it
 * sleeps their wait bound at most, to look again (top), and is
 * counted in nappers until its next pop.  With wake_other, a handshake
 * like the core's (runtime/wait.c): the napper counts itself, then looks;
 * a pusher queues, then (after the core's fence) reads nappers and wakes
 * a sleeper when it reads none.  Either the napper sees the task or the
 * pusher sees the napper; and one that found nothing uncounts itself
 * before a second look, so that a pusher that read the count before may
 * not leave it asleep past a task.
 */
static uint64_t naft_idle_nap(struct lc_worker *w)
{
    struct naft *s = w->rt->sched_data;
    struct naft_local *own = w->sched_local;
    const struct naft_node *nd = &s->nodes[w->node];
    if (!nd->nsharers)
        return 0;
    for (;;) {
        if (!own->napping) {
            own->napping = 1;
            atomic_fetch_add_explicit(&s->nappers, 1, memory_order_seq_cst);
        }
        lc_sleep_fence(w->rt);   /* pairs with the pusher's lc_push_fence */
        uint64_t nap = others_hold(w->rt, s, nd);
        if (nap)
            return nap;
        own->napping = 0;
        atomic_fetch_sub_explicit(&s->nappers, 1, memory_order_seq_cst);
        lc_sleep_fence(w->rt);
        if (!others_hold(w->rt, s, nd))
            return 0;
    }
}

static int naft_run_here(struct lc_worker *w, int node)
{
    return node < 0 || node == w->node;
}

/* The owner's counts: everything w queued itself, data-bound or not. */
static int naft_backlog(struct lc_worker *w)
{
    struct naft_local *own = w->sched_local;
    int64_t n = lc_deque_size_owner(&own->dq, LC_BACKLOG);
    if (own->has_adq && n <= LC_BACKLOG)
        n += lc_deque_size_owner(&own->adq, LC_BACKLOG - n);
    return n > LC_BACKLOG;
}

static int naft_stock_low(struct lc_worker *w)
{
    struct naft_local *own = w->sched_local;
    if (w->rt->nworkers < 2)
        return 0;   /* nobody to keep them for */
    if (!lc_deque_below_owner(&own->dq, LC_STOCK))
        return 0;
    return !own->has_adq || lc_deque_size_owner(&own->dq, LC_STOCK)
                            + lc_deque_size_owner(&own->adq, LC_STOCK) < LC_STOCK;
}

static int naft_bare(struct lc_worker *w)
{
    struct naft_local *own = w->sched_local;
    return w->rt->nworkers > 1 && lc_deque_bare_owner(&own->dq, LC_STOCK)
           && (!own->has_adq || lc_deque_bare_owner(&own->adq, LC_STOCK));
}

static void naft_waited(struct lc_worker *w)
{
    struct naft_local *own = w->sched_local;
    lc_deque_refresh_owner(&own->dq);
    if (own->has_adq)
        lc_deque_refresh_owner(&own->adq);
}

static unsigned naft_top_prio(struct lc_worker *w)
{
    struct naft *s = w->rt->sched_data;
    return lc_prio_top(&s->prio, w->node);
}

const struct lc_sched_ops lc_sched_naft = {
    .name = "naft",
    .description = "NUMA-aware: first-touch tasks dealt over the nodes and run there, "
                   "others on the node of most of their data (taken elsewhere only from an "
                   "overloaded node), tasks without data shared by all",
    .caps = LC_SCHED_NUMA_AWARE | LC_SCHED_FIRST_TOUCH,
    .init = naft_init,
    .fini = naft_fini,
    .place = naft_place,
    .push = naft_push,
    .push_light = naft_push_light,   /* no dependencies, no node: shared by all */
    .pop = naft_pop,
    .wake_other = naft_wake_other,
    .idle_nap = naft_idle_nap,
    .run_here = naft_run_here,
    .backlog = naft_backlog,
    .stock_low = naft_stock_low,
    .bare = naft_bare,
    .top_prio = naft_top_prio,
    .waited = naft_waited,
};

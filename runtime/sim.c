/*
 * sim.c - the runtime's side of LOCUS_SIM (sim.h): loading the simulator
 * plug-in (liblocus-sim.so, next to this library, built where SimGrid is
 * installed), handing it the topology, and the body of a task under
 * simulation.  Everything else the simulator does happens at the seams
 * sim.h lists.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "sim.h"
#include "symbols.h"
#include "team.h"

const struct lc_sim_ops *lc_sim;
uint64_t lc_sim_last_ns;

int lc_sim_frozen(void)
{
    /* LOCUS_SIM is read once: racing first reads agree (relaxed atomics,
     * so that a sanitizer sees no race in the benign one) */
    static _Atomic int set = -1;
    int v = atomic_load_explicit(&set, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("LOCUS_SIM");
        v = e && *e;
        atomic_store_explicit(&set, v, memory_order_relaxed);
    }
    return v;
}

/* SimGrid's engine runs once per process: a second simulated locus_init
 * (or one after the first ended) cannot be served. */
static int sim_used;

/* The directory of the object this function is in (liblocus.so,
 * liblocus-gomp.so, or the program when linked statically). */
static int own_dir(char *buf, size_t len)
{
    Dl_info info;
    if (!dladdr((void *)own_dir, &info) || !info.dli_fname)
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash)
        return -1;
    int n = snprintf(buf, len, "%.*s", (int)(slash - info.dli_fname), info.dli_fname);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static void *load_plugin(char *why, size_t whylen)
{
    char dir[PATH_MAX], path[PATH_MAX + 32];
    void *h = NULL;
    const char *e1 = NULL;
    /* next to the object this code is in (liblocus.so in the build tree or
     * an install's libdir), then, for a program linked with liblocus.a,
     * in its directory's parent (build/tests -> build) and the lib of that
     * (bin -> lib), then where the dynamic linker looks */
    static const char *const where[] = { "%s/liblocus-sim.so", "%s/../liblocus-sim.so",
                                          "%s/../lib/liblocus-sim.so" };
    if (own_dir(dir, sizeof dir) == 0)
        for (size_t i = 0; i < sizeof where / sizeof where[0] && !h; i++) {
            snprintf(path, sizeof path, where[i], dir);
            if (access(path, R_OK) != 0)
                continue;
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (!h)
                e1 = dlerror();
        }
    if (!h && !e1)
        h = dlopen("liblocus-sim.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e2 = e1 ? NULL : dlerror();
        snprintf(why, whylen, "%s", e1 ? e1 : e2 ? e2 : "not found");
    }
    return h;
}

/* A program that exits with the runtime running (an OpenMP program's
 * pool, which liblocus-gomp finalizes from a destructor, too late: SimGrid
 * is gone by then) ends the simulation here, from the thread that started
 * the runtime outside any task. */
static void sim_at_exit(void)
{
    struct lc_runtime *rt = lc_rt;
    struct lc_worker *w = lc_self;
    if (lc_sim && rt && w == &rt->workers[0] && w->cur == rt->root)
        locus_finalize();
}

int lc_sim_start(struct lc_runtime *rt, char *err, size_t errlen)
{
    if (sim_used) {
        snprintf(err, errlen, "LOCUS_SIM: one simulated run per process (SimGrid's engine "
                 "cannot start twice); this program calls locus_init again");
        return -EALREADY;
    }
    char why[512];
    void *h = load_plugin(why, sizeof why);
    if (!h) {
        snprintf(err, errlen, "LOCUS_SIM: cannot load the simulator (liblocus-sim.so, built "
                 "where SimGrid is installed: Debian's libsimgrid-dev): %s", why);
        return -ENOTSUP;
    }
    lc_sim_start_fn start = (lc_sim_start_fn)dlsym(h, LC_SIM_START);
    if (!start) {
        snprintf(err, errlen, "LOCUS_SIM: liblocus-sim.so has no %s", LC_SIM_START);
        dlclose(h);
        return -ENOTSUP;
    }
    int nn = rt->topo.nnodes, nw = rt->nworkers;
    int *dist = malloc((size_t)nn * (size_t)nn * sizeof *dist);
    int *wn = malloc((size_t)nw * sizeof *wn);
    if (!dist || !wn) {
        free(dist);
        free(wn);
        snprintf(err, errlen, "LOCUS_SIM: out of memory");
        return -ENOMEM;
    }
    for (int a = 0; a < nn; a++)
        for (int b = 0; b < nn; b++)
            dist[a * nn + b] = (int)lc_topology_class(&rt->topo, a, b);
    for (int i = 0; i < nw; i++)
        wn[i] = rt->workers[i].node;
    int nft = 0;
    for (int n = 0; n < nn; n++)
        for (int i = 0; i < nw; i++)
            if (wn[i] == n) {
                nft++;
                break;
            }
    struct lc_sim_config cfg = {
        .abi = LC_SIM_ABI,
        .topology = rt->opt.sim,
        .topo_name = rt->topo.name,
        .nnodes = nn,
        .dist = dist,
        .nworkers = nw,
        .worker_node = wn,
        .n_ft_nodes = nft,
        .machine = rt->opt.sim_machine,
        .model = rt->opt.sim_model,
        .schedule = rt->opt.sim_schedule,
        .seed = rt->opt.sim_seed,
        .verbose = rt->opt.verbose,
        .symbol_name = lc_symbol_name,
    };
    const struct lc_sim_ops *ops = start(&cfg, err, errlen);
    free(dist);
    free(wn);
    if (!ops) {
        dlclose(h);
        return -EINVAL;
    }
    sim_used = 1;   /* the plug-in stays loaded: its actors run our code */
    lc_sim = ops;
    /* after SimGrid's own exit handlers were registered (when it loaded), so
     * this one runs before they take the engine down */
    atexit(sim_at_exit);
    return 0;
}

struct body_ctx {
    struct lc_worker *w;
    struct lc_task *t;
};

static void run_body(void *p)
{
    struct body_ctx *c = p;
    lc_run_task(c->w, c->t);
}

void lc_sim_call_body(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    int nn = rt->topo.nnodes;
    uint64_t bytes[nn];
    struct lc_sim_task st = {
        .task = t, .fn = t->fn, .arg = t->arg, .worker = w->id, .node = w->node, .bytes = bytes,
    };
    memset(bytes, 0, sizeof bytes);
    if (t->loc) {
        /* where its bytes are, read before the account consumes them */
        lc_locality_bytes(t, bytes, nn, &st.spread, &st.touched);
        for (int n = 0; n < nn; n++)
            st.dep_bytes += bytes[n];
        st.dep_bytes += st.spread + st.touched;
        lc_locality_run(w, t);
    }
    struct lc_task *saved = w->cur;
    struct body_ctx c = { w, t };
    w->cur = t;
    lc_sim->body(&st, run_body, &c);
    if (t->loc)
        lc_locality_ran(w, t);
    w->cur = saved;
}

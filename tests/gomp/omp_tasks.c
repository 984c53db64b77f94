/*
 * omp_tasks.c - OpenMP tasks with every kind of dependence, nesting,
 * taskwait, taskgroup, taskloop and the task clauses, checked against a sequential
 * computation.  Prints one line per check; exits non-zero on a mismatch.
 * Built with gcc -fopenmp against libgomp; test_gomp runs the same binary
 * on libgomp and on Locus (LD_PRELOAD=liblocus-gomp.so) and compares.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(const char *what, long got, long want)
{
    printf("%-28s %ld\n", what, got);
    if (got != want) {
        fprintf(stderr, "omp_tasks: %s: got %ld, expected %ld\n", what, got, want);
        failures++;
    }
}

/* A chain of inout tasks on one cell per column: the final values depend
 * on the order, which the dependences fix. */
static void chains(void)
{
    enum { COLS = 16, STEPS = 200 };
    long a[COLS], ref[COLS];
    for (int c = 0; c < COLS; c++)
        a[c] = ref[c] = c;
    for (int s = 0; s < STEPS; s++)
        for (int c = 0; c < COLS; c++)
            ref[c] = (ref[c] * 31 + s) % 1000003;
    #pragma omp parallel
    #pragma omp single
    for (int s = 0; s < STEPS; s++)
        for (int c = 0; c < COLS; c++) {
            #pragma omp task depend(inout: a[c]) firstprivate(s, c) shared(a)
            a[c] = (a[c] * 31 + s) % 1000003;
        }
    long sum = 0, want = 0;
    for (int c = 0; c < COLS; c++) {
        sum += a[c];
        want += ref[c];
    }
    check("inout chains", sum, want);
}

/* Readers between writers: out, in x N, inout, in; readers see the value
 * of the last writer before them. */
static void readers(void)
{
    long x = 0, seen[64], bad = 0;
    #pragma omp parallel
    #pragma omp single
    {
        for (int round = 1; round <= 20; round++) {
            #pragma omp task depend(out: x) firstprivate(round) shared(x)
            x = round * 100;
            for (int r = 0; r < 3; r++) {
                #pragma omp task depend(in: x) firstprivate(round, r) shared(x, seen)
                seen[(round - 1) * 3 + r] = x;
            }
            #pragma omp task depend(inout: x) shared(x)
            x += 1;
        }
    }
    for (int round = 1; round <= 20; round++)
        for (int r = 0; r < 3; r++)
            bad += seen[(round - 1) * 3 + r] != round * 100;
    check("readers see their writer", bad, 0);
    check("last writer", x, 2001);
}

/* mutexinoutset: unordered among themselves, after the writer, before the
 * reader; a depend object with inout behaves like depend(inout). */
static void mutex_and_depobj(void)
{
    long c = 0, d = 0, got = -1;
    omp_depend_t obj;
    #pragma omp depobj(obj) depend(inout: d)
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task depend(out: c) shared(c)
        c = 10;
        for (int i = 1; i <= 8; i++) {
            #pragma omp task depend(mutexinoutset: c) firstprivate(i) shared(c)
            {
                #pragma omp atomic
                c += i;
            }
        }
        #pragma omp task depend(in: c) shared(c, got)
        got = c;
        #pragma omp task depend(depobj: obj) shared(d)
        d = 5;
        #pragma omp task depend(inout: d) shared(d)
        d *= 3;
    }
    #pragma omp depobj(obj) destroy
    check("mutexinoutset sum", got, 46);
    check("depobj inout", d, 15);
}

/* Recursive fib with taskwait (nesting). */
static long fib(int n)
{
    if (n < 2)
        return n;
    long x, y;
    #pragma omp task shared(x) final(n < 12) mergeable
    x = fib(n - 1);
    #pragma omp task shared(y) untied
    y = fib(n - 2);
    #pragma omp taskwait
    return x + y;
}

static void nesting(void)
{
    long r = 0;
    int finals = 0;
    #pragma omp parallel shared(r)
    #pragma omp single
    {
        r = fib(22);
        #pragma omp task final(1) shared(finals)
        {
            finals += omp_in_final();
            #pragma omp task shared(finals)
            finals += omp_in_final() * 10;   /* included: runs now, in final */
        }
        #pragma omp taskwait
    }
    check("fib(22)", r, 17711);
    check("final tasks", finals, 11);
}

/* taskgroup waits for descendants too; tasks outside it may still run. */
static void groups(void)
{
    long inner = 0, after = 0;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp taskgroup
        {
            for (int i = 0; i < 10; i++) {
                #pragma omp task shared(inner)
                {
                    #pragma omp task shared(inner)
                    {
                        #pragma omp atomic
                        inner += 2;
                    }
                    #pragma omp atomic
                    inner += 1;
                }
            }
        }
        after = inner;   /* every task of the group, children included */
    }
    check("taskgroup descendants", after, 30);
}

/* if(0): undeferred, after its dependences, before the code after it. */
static void undeferred(void)
{
    long v = 0, seen = -1;
    int zero = 0;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task depend(out: v) shared(v)
        v = 42;
        #pragma omp task depend(in: v) if(zero) shared(v, seen)
        seen = v;
        check("undeferred sees writer", seen, 42);
        #pragma omp task depend(inout: v) shared(v)
        v++;
        #pragma omp taskwait depend(in: v)
        check("taskwait depend", v, 43);
    }
}

/* Large and over-aligned firstprivate blocks are copied at creation. */
struct big { double a[32]; };
struct aligned { _Alignas(128) long v; };

static void arguments(void)
{
    struct big b;
    struct aligned al = { 7 };
    long sum = 0, misaligned = 0;
    for (int i = 0; i < 32; i++)
        b.a[i] = i;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task firstprivate(b) shared(sum)
        {
            for (int i = 0; i < 32; i++) {
                #pragma omp atomic
                sum += (long)b.a[i];
            }
        }
        #pragma omp task firstprivate(al) shared(sum, misaligned)
        {
            misaligned = ((unsigned long)&al % 128) != 0;
            #pragma omp atomic
            sum += al.v;
        }
        for (int i = 0; i < 32; i++)
            b.a[i] = -1;          /* the tasks hold copies */
        al.v = -100;
    }
    check("firstprivate copies", sum, 496 + 7);
    check("aligned copy", misaligned, 0);
}

/*
 * Blocks gcc copies with a copy function of its own (GOMP_task's cpyfn):
 * a struct parameter made firstprivate in a task with dependences, as
 * benchmarks/granularity spawns them (80 bytes: the runtime's inline
 * copy), and a variable-length array (320 bytes: a block of its own).
 * Each task must see the values at its creation, whatever the creator
 * writes afterwards.
 */
struct rec { long id, t, x, w[7]; };

static void spawn_rec(struct rec r, long *cells, long *out)
{
    (void)cells;   /* used by the depend clause only, which gcc does not count */
    #pragma omp task firstprivate(r, out) depend(inout: cells[r.id % 4])
    out[r.id] = r.id + r.t * 10 + r.x * 100 + r.w[6];
    r.t = -1;   /* the task holds its own copy */
}

static void copy_functions(void)
{
    enum { N = 64, V = 40 };
    long cells[4] = { 0 }, out[N], vsum[N], want = 0, wantv = 0, got = 0, gotv = 0;
    int n = V;
    #pragma omp parallel
    #pragma omp single
    {
        long v[n];
        for (int i = 0; i < N; i++) {
            struct rec r = { i, i + 1, 2, { 0, 0, 0, 0, 0, 0, 3 } };
            spawn_rec(r, cells, out);
            for (int k = 0; k < n; k++)
                v[k] = i + k;
            #pragma omp task firstprivate(v) shared(vsum)
            {
                long s = 0;
                for (int k = 0; k < n; k++)
                    s += v[k];
                vsum[i] = s;
            }
            for (int k = 0; k < n; k++)
                v[k] = -1000;   /* after the spawn: not the task's */
        }
        #pragma omp taskwait
    }
    for (long i = 0; i < N; i++) {
        want += i + (i + 1) * 10 + 200 + 3;
        wantv += V * i + V * (V - 1) / 2;
        got += out[i];
        gotv += vsum[i];
    }
    check("copy-function firstprivate", got, want);
    check("copy-function VLA", gotv, wantv);
}

/* taskloop: every iteration exactly once, whatever the split */
static void taskloops(void)
{
    enum { N = 1000 };
    static int hits[N];
    long bad = 0;
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp taskloop grainsize(7)
        for (int i = 0; i < N; i++)
            hits[i]++;
        #pragma omp taskloop num_tasks(13) nogroup
        for (long i = N - 1; i >= 0; i -= 2)
            hits[i]++;
        #pragma omp taskloop num_tasks(13) nogroup
        for (long i = N - 2; i >= 0; i -= 2)
            hits[i]++;
        #pragma omp taskwait
        #pragma omp taskloop
        for (unsigned long long i = 0; i < N; i++)
            hits[i]++;
        int zero = 0;
        #pragma omp taskloop if(zero) grainsize(100)
        for (int i = 0; i < N; i++)
            hits[i]++;
    }
    for (int i = 0; i < N; i++)
        bad += hits[i] != 4;
    check("taskloop", bad, 0);
}

int main(void)
{
    chains();
    readers();
    mutex_and_depobj();
    nesting();
    groups();
    undeferred();
    arguments();
    copy_functions();
    taskloops();
    return failures ? 1 : 0;
}

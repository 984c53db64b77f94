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
    taskloops();
    return failures ? 1 : 0;
}

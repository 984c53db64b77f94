/*
 * omp_target.c - target, teams and allocators run on the host (test_gomp
 * compares every line with libgomp's): a target nowait task ordered by its
 * depend clause among sibling tasks, a nowait target update carrying an
 * order from one task to another, firstprivate copies and ICVs that stay
 * inside a target region, a host league sharing a distribute loop, the
 * device memory routines on the host device and their answers for a
 * device that does not exist, allocator pools, fallbacks and alignment,
 * the affinity format, a parallel region inside a target region run on a
 * thread of a nested team (a new initial thread: a team of its own), and
 * a teams thread_limit holding for nested regions inside the league (at
 * most that many threads at once).  Each line is a result, not a timing.
 */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void target_tasks(void)
{
    int x = 0, seen = -1, a = 0, b = 0, a_seen = -1;
#pragma omp parallel num_threads(4)
#pragma omp single
    {
#pragma omp task depend(out: x) shared(x)
        {
            usleep(20000);   /* gives the target a chance to run too early */
            x = 1;
        }
#pragma omp target nowait depend(inout: x) map(tofrom: x)
        x = x * 10 + 2;
#pragma omp task depend(in: x) shared(x, seen)
        seen = x;

        /* a -> (update: in a, out b) -> reader of b: ordered through it */
#pragma omp task depend(out: a) shared(a)
        {
            usleep(20000);
            a = 7;
        }
#pragma omp target update to(a) nowait depend(in: a) depend(out: b)
#pragma omp task depend(in: b) shared(a, a_seen, b)
        a_seen = a + b;
    }
    printf("target nowait after its dependence: x %d, seen %d; through an update: %d\n", x,
           seen, a_seen);
}

static void target_environment(void)
{
    int f = 5, inside = 0, dyn_inside = -1, level = -1, in_par = -1, initial = -1;
    omp_set_dynamic(0);
#pragma omp parallel num_threads(2)
#pragma omp master
#pragma omp target firstprivate(f) map(from: inside, dyn_inside, level, in_par, initial)
    {
        f += 10;
        inside = f;
        omp_set_dynamic(1);
        dyn_inside = omp_get_dynamic();
        level = omp_get_level();
        in_par = omp_in_parallel();
        initial = omp_is_initial_device();
    }
    printf("target: firstprivate %d inside, %d after; dynamic %d inside, %d after; "
           "level %d, in parallel %d, initial device %d\n",
           inside, f, dyn_inside, omp_get_dynamic(), level, in_par, initial);
}

static void teams_league(void)
{
    int count[8] = { 0 }, nteams = 0, limit = 0, sum = 0;
#pragma omp teams num_teams(4) thread_limit(2) reduction(+: sum)
    {
        if (omp_get_team_num() == 0) {
            nteams = omp_get_num_teams();
#pragma omp parallel num_threads(1)
            limit = omp_get_thread_limit();
        }
#pragma omp distribute
        for (int i = 0; i < 100; i++) {
            count[omp_get_team_num()]++;
            sum += i;
        }
    }
    int in_parallel = 0;
#pragma omp target teams num_teams(3) map(from: in_parallel)
#pragma omp parallel num_threads(8)
    if (omp_get_team_num() == 2 && omp_get_thread_num() == 0)
        in_parallel = omp_get_num_teams() * 100 + (omp_get_num_threads() <= 8);
    printf("teams: %d teams, thread limit %d, shares %d %d %d %d, sum %d; "
           "in a parallel region %d\n",
           nteams, limit, count[0], count[1], count[2], count[3], sum, in_parallel);
}

static void device_memory(void)
{
    int host = omp_get_initial_device();
    int src[3][4], dst[3][4];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            src[i][j] = i * 10 + j;
            dst[i][j] = -1;
        }
    size_t volume[2] = { 2, 2 }, dst_off[2] = { 1, 1 }, src_off[2] = { 0, 2 };
    size_t dims[2] = { 3, 4 };
    int rect = omp_target_memcpy_rect(dst, src, sizeof(int), 2, volume, dst_off, src_off,
                                      dims, dims, host, host);
    int *p = omp_target_alloc(4 * sizeof(int), host);
    int copy = omp_target_memcpy(p, src[2], 4 * sizeof(int), 0, 0, host, host);
    printf("device memory: %d devices, initial %d; rect %d: %d %d %d %d; copy %d: %d %d; "
           "present %d; other device: alloc %s, copy %s, present %d\n",
           omp_get_num_devices(), host, rect, dst[1][1], dst[1][2], dst[2][1], dst[2][2],
           copy, p[0], p[3], omp_target_is_present(src, host),
           omp_target_alloc(16, host + 1) ? "memory" : "NULL",
           omp_target_memcpy(dst, src, 4, 0, 0, host + 1, host) == EINVAL ? "EINVAL" : "ok",
           omp_target_is_present(src, host + 1));
    omp_target_free(p, host);
}

static void allocators(void)
{
    omp_alloctrait_t pool[] = { { omp_atk_pool_size, 1024 },
                                { omp_atk_fallback, omp_atv_null_fb } };
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, pool);
    int got = 0;
    void *blocks[16];
    for (int i = 0; i < 16; i++)
        if ((blocks[i] = omp_alloc(200, a)))
            got++;
    int fits = got > 0 && got < 16;
    for (int i = 0; i < 16; i++)
        omp_free(blocks[i], a);
    void *again = omp_alloc(200, a);   /* the pool is whole again */
    omp_free(again, a);

    omp_alloctrait_t chain[] = { { omp_atk_pool_size, 64 },
                                 { omp_atk_fallback, omp_atv_allocator_fb },
                                 { omp_atk_fb_data, omp_default_mem_alloc },
                                 { omp_atk_alignment, 256 } };
    omp_allocator_handle_t c = omp_init_allocator(omp_default_mem_space, 4, chain);
    char *big = omp_alloc(4096, c);   /* past the pool: from the fallback */
    omp_alloctrait_t al256[] = { { omp_atk_alignment, 256 } };
    omp_allocator_handle_t wide = omp_init_allocator(omp_default_mem_space, 1, al256);
    char *small = omp_aligned_alloc(16, 8, wide);
    int *z = omp_calloc(100, sizeof(int), omp_default_mem_alloc);
    int zeros = 0;
    for (int i = 0; i < 100; i++)
        zeros += z[i] == 0;
    z[99] = 42;
    z = omp_realloc(z, 1000 * sizeof(int), omp_null_allocator, omp_null_allocator);
    omp_alloctrait_t bad[] = { { omp_atk_alignment, 3 } };
    printf("allocators: pool holds some but not all %d, whole again %d; fallback %d; "
           "aligned %d; calloc zeros %d, realloc keeps %d; bad trait %s, pinned %s\n",
           fits, again != NULL, big != NULL, small && ((uintptr_t)small & 255) == 0, zeros,
           z[99], omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator
                      ? "refused" : "accepted",
           omp_init_allocator(omp_default_mem_space, 1,
                              (omp_alloctrait_t[]){ { omp_atk_pinned, omp_atv_true } })
                   == omp_null_allocator ? "refused" : "accepted");
    omp_free(z, omp_null_allocator);
    omp_free(big, c);
    omp_free(small, wide);
    omp_destroy_allocator(wide);
    omp_destroy_allocator(c);
    omp_destroy_allocator(a);

    /* the allocate clause, with a default allocator the team inherits */
    omp_alloctrait_t al[] = { { omp_atk_alignment, 128 } };
    omp_allocator_handle_t h = omp_init_allocator(omp_default_mem_space, 1, al);
    omp_set_default_allocator(h);
    int misaligned = 0, v = 3;
#pragma omp parallel num_threads(3) firstprivate(v) allocate(v) reduction(+: misaligned)
    misaligned += ((uintptr_t)&v & 127) != 0 || v != 3;
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_destroy_allocator(h);
    printf("allocate clause: misaligned copies %d\n", misaligned);
}

static void affinity_format(void)
{
    char buf[64];
    omp_set_affinity_format("T%0.3{team_num}/%T L%L n%.3n");
    size_t len = omp_capture_affinity(buf, sizeof buf, NULL);
    size_t fmt = omp_get_affinity_format(NULL, 0);
    printf("affinity format: '%s' (%zu), format length %zu\n", buf, len, fmt);
}

static void target_on_nested_thread(void)
{
    int size = 0, in_par = -1, level = -1;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 1) {
#pragma omp target if (0) map(tofrom: size, in_par, level)
            {
#pragma omp parallel num_threads(3)
#pragma omp single
                {
                    size = omp_get_num_threads();
                    in_par = omp_in_parallel();
                    level = omp_get_level();
                }
            }
        }
    }
    printf("target on a nested thread: team of %d, in parallel %d, level %d\n", size, in_par,
           level);
}

static void teams_thread_limit_nested(void)
{
    int cnt = 0, most = 0, sizes_ok = 1;
    omp_set_max_active_levels(3);
#pragma omp teams num_teams(1) thread_limit(4)
    {
#pragma omp parallel num_threads(2) shared(cnt, most, sizes_ok)
#pragma omp parallel num_threads(3) shared(cnt, most, sizes_ok)
        {
            int v;
#pragma omp atomic capture
            v = ++cnt;
#pragma omp critical
            if (v > most)
                most = v;
            if (omp_get_num_threads() > 3)
                sizes_ok = 0;
            usleep(5000);   /* the members overlap */
#pragma omp atomic
            --cnt;
        }
    }
    printf("teams thread_limit 4, nested 2 x 3: at most 4 at once %d, sizes ok %d\n",
           most <= 4, sizes_ok);
}

int main(void)
{
    target_tasks();
    target_environment();
    teams_league();
    device_memory();
    allocators();
    affinity_format();
    target_on_nested_thread();
    teams_thread_limit_nested();
    return 0;
}

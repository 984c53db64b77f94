/*
 * teams.c - the teams construct on the host, as libgomp runs it without
 * offloading: GOMP_teams_reg (a teams construct outside target),
 * GOMP_teams4 and GOMP_teams (a teams construct in a target region's host
 * fallback), omp_get_num_teams/omp_get_team_num, the nteams-var and
 * teams-thread-limit-var ICVs (OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT,
 * omp_set_num_teams, omp_set_teams_thread_limit) and the thread-limit-var
 * ICV that teams and target set (omp_get_thread_limit).
 *
 * The teams of a league run one after the other on the encountering thread
 * (libgomp's teams.c does the same): each team's initial thread is that
 * thread, with the team number set, so the distribute construct, which gcc
 * lowers inline on omp_get_num_teams() and omp_get_team_num(), shares its
 * iterations out among them.  Parallel regions inside a team are ordinary
 * regions, limited to thread-limit-var threads.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "env.h"
#include "gomp.h"

static int nteams_var;             /* OMP_NUM_TEAMS, omp_set_num_teams; 0 unset */
static int teams_thread_limit_var; /* OMP_TEAMS_THREAD_LIMIT, omp_set_teams_thread_limit */
static int thread_limit_env;       /* OMP_THREAD_LIMIT; 0 unset */

static void read_int(const char *name, int *out, int lo)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return;
    char *end;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == s || *end || v < lo || v > INT_MAX) {
        gomp_say("ignoring %s='%s': expected an integer of at least %d\n",
                name, s, lo);
        return;
    }
    *out = (int)v;
}

__attribute__((constructor)) static void read_teams_env(void)
{
    read_int("OMP_NUM_TEAMS", &nteams_var, 1);
    read_int("OMP_TEAMS_THREAD_LIMIT", &teams_thread_limit_var, 1);
    read_int("OMP_THREAD_LIMIT", &thread_limit_env, 1);
}

int gomp_global_thread_limit(void)
{
    if (thread_limit_env > 0 && thread_limit_env < LC_MAX_WORKERS)
        return thread_limit_env;
    return LC_MAX_WORKERS;
}

int gomp_thread_limit(void)
{
    if (gomp_thr.teams.thread_limit > 0)
        return gomp_thr.teams.thread_limit;
    return gomp_global_thread_limit();
}

/* A thread_limit clause's value as the ICV keeps it. */
static int clamp_limit(unsigned v)
{
    return v > INT_MAX ? INT_MAX : (int)v;
}

GOMP_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                                unsigned thread_limit, unsigned flags)
{
    (void)flags;
    struct gomp_teams_thr saved = gomp_thr.teams;
    _Atomic int cg = 0;   /* the teams run one after the other: one count serves */
    gomp_thr.teams.cg_extra = &cg;
    if (thread_limit == 0)
        thread_limit = (unsigned)teams_thread_limit_var;
    if (thread_limit)
        gomp_thr.teams.thread_limit = clamp_limit(thread_limit);
    if (num_teams == 0)
        num_teams = nteams_var > 0 ? (unsigned)nteams_var : 3;   /* libgomp's default */
    gomp_thr.teams.num_teams = num_teams;
    for (unsigned t = 0; t < num_teams; t++) {
        gomp_thr.teams.team_num = t;
        fn(data);
    }
    gomp_thr.teams = saved;
}

/* The teams construct inside a target region run on the host: gcc calls
 * this with first set, runs a team's body while it returns true, and calls
 * it again (first clear) for the next team. */
GOMP_EXPORT bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high,
                             unsigned thread_limit, bool first)
{
    (void)num_teams_high;
    if (first) {
        if (thread_limit)
            gomp_thr.teams.thread_limit = clamp_limit(thread_limit);
        gomp_thr.teams.num_teams = num_teams_low ? num_teams_low : 1;
        gomp_thr.teams.team_num = 0;
        return true;
    }
    if (gomp_thr.teams.team_num + 1 >= gomp_thr.teams.num_teams)
        return false;
    gomp_thr.teams.team_num++;
    return true;
}

/* gcc 4.x-era form, inside a target region: only the thread limit matters
 * on the host, where such a league has one team. */
GOMP_EXPORT void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    (void)num_teams;
    if (thread_limit)
        gomp_thr.teams.thread_limit = clamp_limit(thread_limit);
}

GOMP_EXPORT int omp_get_num_teams(void)
{
    return gomp_thr.teams.num_teams ? (int)gomp_thr.teams.num_teams : 1;
}

GOMP_EXPORT int omp_get_team_num(void)
{
    return (int)gomp_thr.teams.team_num;
}

GOMP_EXPORT void omp_set_num_teams(int n)
{
    if (n >= 0)
        nteams_var = n;
}

GOMP_EXPORT int omp_get_max_teams(void)
{
    return nteams_var;
}

GOMP_EXPORT void omp_set_teams_thread_limit(int n)
{
    if (n >= 0)
        teams_thread_limit_var = n;
}

GOMP_EXPORT int omp_get_teams_thread_limit(void)
{
    return teams_thread_limit_var;
}

/* for omp_display_env */
void gomp_teams_icvs(int *nteams, int *teams_thread_limit)
{
    *nteams = nteams_var;
    *teams_thread_limit = teams_thread_limit_var;
}

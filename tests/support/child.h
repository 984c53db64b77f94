/*
 * child.h - running an OpenMP program built elsewhere (gcc's against
 * libgomp, clang's against libomp) in a child process, on its own runtime
 * or on a Locus layer preloaded, with a given environment, and collecting
 * its status, stdout and stderr; a hang becomes a SIGKILL after a limit
 * instead of a hung suite.  For test_gomp and test_kmp.
 */
#ifndef LC_TEST_CHILD_H
#define LC_TEST_CHILD_H

struct child_result {
    int status;          /* as from waitpid */
    char out[16384], err[16384];
};

/* The sanitizer runtime this test binary runs with ("" none), which must
 * be preloaded ahead of everything in the child; *tsan set for TSan. */
const char *child_san_runtime(int *tsan);

/* Runs path with LD_PRELOAD=preload (NULL or "": nothing, the sanitizer
 * runtime aside), OMP_NUM_THREADS=4 and no LOCUS_* or LD_LIBRARY_PATH,
 * then the NULL-terminated "NAME=VALUE" list (a value "" unsets).  Kills
 * the child after limit_s seconds. */
void child_run(struct child_result *r, const char *path, const char *preload,
               const char *const *env, int limit_s);

/* on: the sanitizer setting a program that forks after starting threads
 * needs (ASan: no leak check, the child keeps the parent's runtime
 * unreachable on purpose); off: the caller's setting back.  Returns NULL,
 * or (on, under TSan, which cannot run such a program) why the caller is
 * to skip it, having changed nothing. */
const char *child_fork_sanitizer_options(int on);

/* The lines of s that start with prefix, sorted, each ending in '\n', in
 * out (size bytes; at most 256 lines of s's first 8 KiB). */
void child_sorted_lines(const char *s, const char *prefix, char *out, size_t size);

/* An OpenMP layer's exports ("NODE SYMBOL" lines): removes ALPI's
 * (LOCUS_ALPI_1 alpi_*), which the layers add to the runtime's, and
 * returns how many there were. */
int child_strip_alpi(char *exports);

/* The start of the first line where a and b differ (a's length, which is
 * b's, when they are equal). */
size_t child_first_difference(const char *a, const char *b);

/* Exited with status 0. */
int child_ok(const struct child_result *r);

#endif

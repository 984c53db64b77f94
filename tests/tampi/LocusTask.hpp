/*
 * tests/tampi/LocusTask.hpp - what the TAMPI test ports (the .cpp files beside it)
 * need of include/locus.h under g++.
 *
 * locus.h's locus_task() builds its dependency list as a C compound-literal
 * array, which g++ accepts (GNU extension) but then refuses to use as a
 * pointer: "error: taking address of temporary array".  Here locus_task()
 * is redefined for C++ with the same arguments and meaning (fn, arg,
 * arg_size, then LOCUS_IN/LOCUS_OUT/LOCUS_INOUT(ptr, bytes) dependencies),
 * the list held in a std::initializer_list, which lives until the end of
 * the call.  A failed spawn prints locus_error_message() and aborts (the
 * OmpSs-2 pragmas it stands for cannot fail), so the ports need not check.
 * LOCUS_CHECK(call) does the same for locus_init() and locus_finalize().
 */
#ifndef LOCUS_TASK_HPP
#define LOCUS_TASK_HPP

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include <locus.h>

#define LOCUS_CHECK(call)                                                              \
    do {                                                                               \
        const int __locus_err = (call);                                                \
        if (__locus_err != 0) {                                                        \
            fprintf(stderr, "Error: '%s' [%s:%i]: %s: %s\n", #call, __FILE__, __LINE__, \
                    locus_strerror(__locus_err), locus_error_message());               \
            std::abort();                                                              \
        }                                                                              \
    } while (0)

static inline int locus_task_cxx(const char *file, int line, locus_task_fn fn,
                                 const void *arg, size_t arg_size,
                                 std::initializer_list<locus_dep_t> deps)
{
    const int err = locus_spawn(fn, arg, arg_size, deps.begin(), deps.size());
    if (err != 0) {
        fprintf(stderr, "Error: locus_task [%s:%i]: %s: %s\n", file, line,
                locus_strerror(err), locus_error_message());
        std::abort();
    }
    return err;
}

#undef locus_task
#define locus_task(fn, arg, arg_size, ...) \
    locus_task_cxx(__FILE__, __LINE__, (fn), (arg), (arg_size), { __VA_ARGS__ })

#endif // LOCUS_TASK_HPP

/*
 * cancel.c - the cancellation entry points, as no-ops.
 *
 * gcc emits GOMP_cancel, GOMP_cancellation_point and the *_cancel forms of
 * the closing barriers for every program with a cancel construct, whether
 * or not cancellation is on at run time.  With the cancel-var ICV false
 * (OMP_CANCELLATION unset or false, the default) libgomp makes them
 * no-ops that answer "not cancelled" and keeps the barriers (libgomp's
 * cancel.c, GOMP_cancel/GOMP_cancellation_point: "if (!gomp_cancel_var)
 * return false;"); so does this layer, and such programs run unchanged.
 * Cancelling for real is not implemented: with OMP_CANCELLATION=true a
 * cancel construct stops the program with the layer's usual message
 * rather than run on as if nothing had been cancelled.
 */
#include <stdbool.h>

#include "gomp.h"

static bool cancellation_on(void)
{
    gomp_read_env();
    return gomp_icv.cancellation != 0;
}

GOMP_EXPORT bool GOMP_cancellation_point(int which)
{
    (void)which;
    if (cancellation_on())
        gomp_unsupported("GOMP_cancellation_point",
                         "cancellation (OMP_CANCELLATION=true) is not implemented");
    return false;
}

GOMP_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
    (void)which;
    (void)do_cancel;
    if (cancellation_on())
        gomp_unsupported("GOMP_cancel",
                         "cancellation (OMP_CANCELLATION=true) is not implemented");
    return false;
}

/* The closing barriers of regions and worksharing constructs that hold a
 * cancel construct: the barrier, and "not cancelled". */
GOMP_EXPORT bool GOMP_barrier_cancel(void)
{
    if (cancellation_on())
        gomp_unsupported("GOMP_barrier_cancel",
                         "cancellation (OMP_CANCELLATION=true) is not implemented");
    GOMP_barrier();
    return false;
}

GOMP_EXPORT bool GOMP_loop_end_cancel(void)
{
    if (cancellation_on())
        gomp_unsupported("GOMP_loop_end_cancel",
                         "cancellation (OMP_CANCELLATION=true) is not implemented");
    GOMP_loop_end();
    return false;
}

GOMP_EXPORT bool GOMP_sections_end_cancel(void)
{
    if (cancellation_on())
        gomp_unsupported("GOMP_sections_end_cancel",
                         "cancellation (OMP_CANCELLATION=true) is not implemented");
    GOMP_sections_end();
    return false;
}

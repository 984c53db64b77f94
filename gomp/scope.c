/*
 * scope.c - the scope construct with task reductions (GOMP_scope_start,
 * OpenMP 5.1).  gcc calls the runtime for a scope only when it has
 * reduction(task, ...); the construct is then treated as libgomp treats
 * it: as a worksharing construct with no iterations, entered only to
 * choose the member that sets up the task reductions (new private chunks)
 * and to let the others join them, and left at once (nowait), since gcc
 * emits the scope's barrier and GOMP_workshare_task_reduction_unregister
 * itself after the body.
 */
#include <stdint.h>

#include "gomp.h"

GOMP_EXPORT void GOMP_scope_start(uintptr_t *reductions)
{
    if (!reductions)
        return;   /* nothing to set up (gcc does not call it so) */
    /* a loop of no iterations: the slot is the team's next construct for
     * every member, so all of them meet the same registration */
    gomp_ws_enter(GS_STATIC, 0, 0, 0, 1, 0, 0, 0, NULL, reductions);
    GOMP_loop_end_nowait();
}

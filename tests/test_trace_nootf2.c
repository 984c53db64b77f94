/*
 * test_trace_nootf2.c - test_trace.c as in a build where configure found no
 * OTF2: the OTF2 writer is compiled here with LC_TRACE_NO_OTF2 (its stub,
 * which the linker then takes instead of liblocus.a's), so LOCUS_TRACE must
 * fail locus_init with -ENOTSUP and a message saying how to get OTF2, and
 * LOCUS_DAG must work as before.
 */
#define LC_TRACE_NO_OTF2 1
#define LOCUS_HAVE_OTF2_BUILD 0
#include "../trace/otf2.c"
#include "test_trace.c"

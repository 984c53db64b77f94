/*
 * pipeline.c - a blocked three-stage pipeline expressed only with
 * dependencies (no taskwait until the end).
 *
 * An array is split into blocks.  For every block the program spawns
 *   produce   (OUT block b)                 fills the block,
 *   transform (INOUT block b)               rewrites it in place,
 *   reduce    (INOUT sum, IN block b)       adds the block into one sum.
 * The block dependencies order the three stages of one block; different
 * blocks touch different bytes, so block b+1 can be produced and transformed
 * while block b is still being reduced: the stages of different blocks
 * overlap.  The reduce tasks all write the sum and so run one at a time, in
 * spawn (block) order, which makes the result exactly the sequential one.
 *
 * Each task checks that its block's previous stage has finished (stage[b])
 * before it records its own; the program verifies the stage order and the sum
 * against a sequential computation and exits 0 if both are right.  It also
 * reports how many blocks were started before the previous block's reduce
 * started, which shows the overlap (informational only: on a busy or
 * single-core machine there may be none).
 *
 * Usage: pipeline [blocks [block_elems]]   (defaults 64 and 4096)
 */
#include <locus.h>

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { ST_NONE, ST_PRODUCED, ST_TRANSFORMED, ST_REDUCED };

static uint64_t *data;          /* blocks * block_elems elements */
static size_t block_elems;
static uint64_t sum;            /* the reduction target */
static int *stage;              /* last stage finished, per block */
static int *first_ticket;       /* start ticket of produce, per block */
static int *reduce_ticket;      /* start ticket of reduce, per block */
static atomic_int next_ticket;
static atomic_int order_errors;

static uint64_t produce_value(size_t i) { return (uint64_t)i * 2654435761u; }
static uint64_t transform_value(uint64_t v) { return (v ^ (v >> 13)) * 3 + 1; }

/* Moves block b from stage 'from' to stage 'to', counting an order error if
 * the previous stage had not finished: the dependencies must prevent that. */
static void advance(size_t b, int from, int to)
{
    if (stage[b] != from)
        atomic_fetch_add_explicit(&order_errors, 1, memory_order_relaxed);
    stage[b] = to;
}

static int take_ticket(void)
{
    return atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
}

/* arg: a copy of the block index. */
static void produce(void *arg)
{
    size_t b = *(const size_t *)arg;
    first_ticket[b] = take_ticket();
    uint64_t *blk = data + b * block_elems;
    for (size_t i = 0; i < block_elems; i++)
        blk[i] = produce_value(b * block_elems + i);
    advance(b, ST_NONE, ST_PRODUCED);
}

static void transform(void *arg)
{
    size_t b = *(const size_t *)arg;
    uint64_t *blk = data + b * block_elems;
    for (size_t i = 0; i < block_elems; i++)
        blk[i] = transform_value(blk[i]);
    advance(b, ST_PRODUCED, ST_TRANSFORMED);
}

static void reduce(void *arg)
{
    size_t b = *(const size_t *)arg;
    reduce_ticket[b] = take_ticket();
    const uint64_t *blk = data + b * block_elems;
    uint64_t s = 0;
    for (size_t i = 0; i < block_elems; i++)
        s += blk[i];
    sum += s;
    advance(b, ST_TRANSFORMED, ST_REDUCED);
}

static size_t parse_size(const char *s, const char *what, size_t hi)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < 1 || v > hi) {
        fprintf(stderr, "pipeline: %s '%s': expected an integer in 1..%zu\n", what, s, hi);
        exit(2);
    }
    return (size_t)v;
}

static int spawn_block(size_t b)
{
    uint64_t *blk = data + b * block_elems;
    size_t bytes = block_elems * sizeof *blk;
    int err = locus_task(produce, &b, sizeof b, LOCUS_OUT(blk, bytes));
    if (err == 0)
        err = locus_task(transform, &b, sizeof b, LOCUS_INOUT(blk, bytes));
    if (err == 0)
        err = locus_task(reduce, &b, sizeof b, LOCUS_INOUT(&sum, sizeof sum),
                         LOCUS_IN(blk, bytes));
    return err;
}

int main(int argc, char **argv)
{
    if (argc > 3) {
        fprintf(stderr, "usage: %s [blocks [block_elems]]\n", argv[0]);
        return 2;
    }
    size_t blocks = argc > 1 ? parse_size(argv[1], "blocks", 1u << 20) : 64;
    block_elems = argc > 2 ? parse_size(argv[2], "block_elems", 1u << 24) : 4096;
    if (blocks * block_elems > ((size_t)1 << 28)) {
        fprintf(stderr, "pipeline: blocks * block_elems must be at most 2^28\n");
        return 2;
    }

    data = malloc(blocks * block_elems * sizeof *data);
    stage = calloc(blocks, sizeof *stage);
    first_ticket = calloc(blocks, sizeof *first_ticket);
    reduce_ticket = calloc(blocks, sizeof *reduce_ticket);
    if (!data || !stage || !first_ticket || !reduce_ticket) {
        fprintf(stderr, "pipeline: out of memory\n");
        return 1;
    }

    int err = locus_init();
    if (err < 0) {
        fprintf(stderr, "pipeline: locus_init: %s (%s)\n", locus_strerror(err),
                locus_error_message());
        return 1;
    }
    for (size_t b = 0; b < blocks && err == 0; b++)
        err = spawn_block(b);
    if (err < 0)
        fprintf(stderr, "pipeline: spawn: %s (%s)\n", locus_strerror(err),
                locus_error_message());
    int werr = locus_taskwait();
    int ferr = locus_finalize();
    if (err < 0 || werr < 0 || ferr < 0) {
        if (werr < 0 || ferr < 0)
            fprintf(stderr, "pipeline: taskwait/finalize: %s\n",
                    locus_strerror(werr < 0 ? werr : ferr));
        return 1;
    }

    uint64_t expect = 0;
    for (size_t i = 0; i < blocks * block_elems; i++)
        expect += transform_value(produce_value(i));

    int bad_stage = 0;
    size_t overlapped = 0;
    for (size_t b = 0; b < blocks; b++) {
        bad_stage += stage[b] != ST_REDUCED;
        if (b > 0 && first_ticket[b] < reduce_ticket[b - 1])
            overlapped++;
    }
    int errors = atomic_load(&order_errors);
    if (sum != expect || errors != 0 || bad_stage != 0) {
        fprintf(stderr,
                "pipeline: FAILED: sum %" PRIu64 " (expected %" PRIu64 "), %d stage-order "
                "errors, %d blocks not fully reduced\n",
                sum, expect, errors, bad_stage);
        return 1;
    }
    printf("pipeline: %zu blocks x %zu elements, sum %" PRIu64 " verified; "
           "%zu of %zu blocks started before the previous block's reduce\n",
           blocks, block_elems, sum, overlapped, blocks > 0 ? blocks - 1 : 0);
    free(data);
    free(stage);
    free(first_ticket);
    free(reduce_ticket);
    return 0;
}

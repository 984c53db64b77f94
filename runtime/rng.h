/*
 * rng.h - xorshift64 (G. Marsaglia, "Xorshift RNGs", J. Stat. Softw.
 * 2003): the runtime's only randomness (steal victims, treap priorities)
 * only needs to look random, and cheaply.  The state must not be 0.
 */
#ifndef LC_RNG_H
#define LC_RNG_H

#include <stdint.h>

static inline uint64_t lc_rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

#endif /* LC_RNG_H */

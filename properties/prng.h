/*
 * A seeded PRNG that gives the same numbers on every platform: xoshiro256**
 * seeded through splitmix64 (both public domain, by Blackman and Vigna),
 * written from their published definitions.  Each case gets its own stream
 * from (seed, cell, index), so a case does not depend on the cases before
 * it, on --jobs or on --shard.
 */
#ifndef BROADCHECK_PRNG_H
#define BROADCHECK_PRNG_H

#include <stdint.h>

typedef struct bc_prng {
    uint64_t s[4];
} bc_prng;

void bc_prng_init(bc_prng *r, uint64_t seed, uint64_t stream, uint64_t index);

/* The next 64 bits (xoshiro256**).  Inline: the medium tier draws one per
 * input element, millions a case, and a call each was a tenth of a run. */
static inline uint64_t bc_prng_next(bc_prng *r)
{
    uint64_t *s = r->s;
    const uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, n) without modulo bias; n >= 1. */
uint64_t bc_prng_below(bc_prng *r, uint64_t n);
/* Uniform in [lo, hi]. */
int64_t bc_prng_range(bc_prng *r, int64_t lo, int64_t hi);
/* 1 with probability percent / 100. */
int bc_prng_percent(bc_prng *r, int percent);

#endif

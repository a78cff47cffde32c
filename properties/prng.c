#include "prng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void bc_prng_init(bc_prng *r, uint64_t seed, uint64_t stream, uint64_t index)
{
    /* Mix the three through splitmix64 one after the other, so that nearby
     * seeds, streams and indexes give unrelated states. */
    uint64_t x = seed;
    uint64_t h = splitmix64(&x);
    x = h ^ stream;
    h = splitmix64(&x);
    x = h ^ index;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

uint64_t bc_prng_below(bc_prng *r, uint64_t n)
{
    /* Reject the top partial block so every residue is equally likely. */
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t x = bc_prng_next(r);
        if (x >= threshold)
            return x % n;
    }
}

int64_t bc_prng_range(bc_prng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span == UINT64_MAX)
        return (int64_t)bc_prng_next(r);
    return (int64_t)((uint64_t)lo + bc_prng_below(r, span + 1));
}

int bc_prng_percent(bc_prng *r, int percent)
{
    return (int)bc_prng_below(r, 100) < percent;
}

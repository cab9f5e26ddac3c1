/*
 * splitmix64.h: the one SplitMix64 of apportion (Vigna's splitmix64), shared by every seeded
 * draw: the generated random walk (random_walk.h), the simulated devices' failure draws,
 * the test data of tests/common/reference.c and the benchmarks' sampled positions.
 *
 * What: apo__splitmix64_mix is the generator's finaliser, a bijection of 64-bit words whose
 * every output bit depends on every input bit, so that the hash of a counter is a usable
 * random draw. apo__splitmix64(seed, index) is output number `index` (0-based) of the
 * generator seeded with `seed`, mix(seed + (index + 1) * gamma): any draw is computed from
 * (seed, index) alone, which lets any part of a generated array be made on its own.
 *
 * Determinism: unsigned 64-bit arithmetic only, fully specified by C11, so every machine and
 * compiler gives the same words. Header-only: each call site inlines the few instructions,
 * and the CLI, the benchmarks and the tests can use it without linking anything.
 */
#ifndef APO_SPLITMIX64_H
#define APO_SPLITMIX64_H

#include <stdint.h>

/* The Weyl increment of the generator's state: 2^64 divided by the golden ratio, odd. */
#define APO__SPLITMIX64_GAMMA UINT64_C(0x9e3779b97f4a7c15)

static inline uint64_t apo__splitmix64_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t apo__splitmix64(uint64_t seed, uint64_t index) {
    return apo__splitmix64_mix(seed + (index + 1) * APO__SPLITMIX64_GAMMA);
}

#endif /* APO_SPLITMIX64_H */

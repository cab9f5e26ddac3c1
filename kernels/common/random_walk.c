/*
 * random_walk.c: the seeded random walk of random_walk.h.
 */
#include "random_walk.h"

#include "splitmix64.h"

/* A uniform step in (-1, 1): k = the top 53 bits of the draw, step = (2k + 1 - 2^53) / 2^53.
 * 2k + 1 - 2^53 is an odd integer below 2^53 in magnitude and the scale a power of two, so
 * the step is exact and never 0. */
static double walk_step(uint64_t seed, uint64_t index) {
    const uint64_t k = apo__splitmix64(seed, index) >> 11;
    const int64_t odd = (int64_t)(2 * k + 1) - ((int64_t)1 << 53);
    return (double)odd * 0x1p-53;
}

void apo__random_walk(double *dst, size_t rows, size_t cols, uint64_t seed) {
    for (size_t r = 0; r < rows; r++) {
        double x = 100.0;
        for (size_t c = 0; c < cols; c++) {
            const size_t g = r * cols + c;
            x += walk_step(seed, (uint64_t)g);
            dst[g] = x;
        }
    }
}

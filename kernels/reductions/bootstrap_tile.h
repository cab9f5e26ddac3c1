/*
 * bootstrap_tile.h: the arithmetic of the bootstrap kernel, shared by the CPU kernel
 * (bootstrap.c) and the CUDA kernel (bootstrap.cu): the replicate means and the moments of
 * one tile of them.
 *
 * What: with m = n - 1 returns r_k = x[k+1] / x[k] - 1 (k in [0, m)), replicate b of row
 * `row` draws m returns with replacement and stores their mean, means[b] = (sum of the
 * drawn returns in draw order) / m. Draw j of replicate b uses one half of the
 * Philox4x32-10 block with key {lo32(seed), hi32(seed)} and counter
 * {lo32(j/2), hi32(j/2), lo32(b), lo32(row)}: even j takes u = out[0] | out[1] << 32, odd j
 * takes u = out[2] | out[3] << 32, and the index is k = mulhi64(u, m) (philox_tile.h).
 * apo__bootstrap_tile_moments gives the two-pass moments of a run of means, nothing skipped.
 *
 * Tile shape: the CPU calls apo__bootstrap_tile once per tile of 8 replicates; the GPU once
 * per replicate, with [b, b + 1), which is the same computation because replicates share
 * nothing. Each call reads the whole row. apo__bootstrap_tile_moments runs once per tile.
 *
 * Determinism: every draw is keyed by (seed, row, replicate, draw index), never by a thread
 * or a device, with exact integer arithmetic; each replicate sums in draw order and divides
 * once, and the moments use a fixed order of IEEE +, -, *, / and comparisons (apo_hd.h, no
 * FMA contraction on either compiler). So the means and partials have the same bits in
 * every split and on the CPU and the GPU, except that a NaN produced by arithmetic (a
 * non-finite return drawn) may carry a different sign or payload on the GPU: NaN bits are
 * not specified by IEEE 754 and x86 and NVIDIA GPUs differ there.
 */
#ifndef APO_BOOTSTRAP_TILE_H
#define APO_BOOTSTRAP_TILE_H

#include "apo_hd.h"
#include "moments_tile.h"
#include "philox_tile.h"

/* Draws j and j + 1 (j even, j < m) of replicate b of row `row`: one Philox block, two
 * indices, two returns; *r1 is set only when j + 1 < m. The warp-wide CUDA kernel computes
 * many pairs at once with this, and one lane sums them in draw order. */
static inline APO_HD void apo__bootstrap_pair(const double *x, uint64_t m, const uint32_t key[2],
                                              uint32_t b, uint32_t row, uint64_t j, double *r0,
                                              double *r1) {
    const uint32_t ctr[4] = {(uint32_t)(j >> 1), (uint32_t)(j >> 33), b, row};
    uint32_t out[4];
    apo__philox4x32_10(ctr, key, out);
    const uint64_t u0 = (uint64_t)out[0] | ((uint64_t)out[1] << 32);
    const uint64_t k0 = apo__mulhi64(u0, m);
    *r0 = x[k0 + 1] / x[k0] - 1.0;
    if (j + 1 < m) {
        const uint64_t u1 = (uint64_t)out[2] | ((uint64_t)out[3] << 32);
        const uint64_t k1 = apo__mulhi64(u1, m);
        *r1 = x[k1 + 1] / x[k1] - 1.0;
    }
}

/* The replicate mean from the sum of its m draws in draw order. A NaN made by arithmetic has
 * a sign and payload that differ between x86 and a GPU; storing the one NaN constant keeps
 * the CPU and CUDA bits equal. */
static inline APO_HD double apo__bootstrap_mean(double sum, uint64_t m) {
    const double mean = sum / (double)m;
    return isnan(mean) ? (double)NAN : mean;
}

/* Replicate means of replicates [b_begin, b_end) of row `row` into means[b] (n >= 2 and
 * b_begin < b_end; the caller checks): the semantics of apo__cpu_bootstrap_tile() in reductions.h.
 */
static inline APO_HD void apo__bootstrap_tile(const double *x, size_t n, uint64_t seed,
                                              uint64_t row, size_t b_begin, size_t b_end,
                                              double *means) {
    const uint64_t m = (uint64_t)(n - 1);
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    for (size_t b = b_begin; b < b_end; ++b) {
        double sum = 0.0;
        for (uint64_t j = 0; j < m; j += 2) {
            double r0, r1 = 0.0;
            apo__bootstrap_pair(x, m, key, (uint32_t)b, (uint32_t)row, j, &r0, &r1);
            sum += r0;
            if (j + 1 < m) {
                sum += r1;
            }
        }
        means[b] = apo__bootstrap_mean(sum, m);
    }
}

/* Two-pass moments of means[b_begin .. b_end), nothing skipped (b_begin < b_end; the caller
 * checks): the semantics of apo__cpu_bootstrap_tile_moments() in reductions.h. */
static inline APO_HD void apo__bootstrap_tile_moments(const double *means, size_t b_begin,
                                                      size_t b_end, apo__moments *out) {
    double sum = 0.0;
    double mn = INFINITY, mx = -INFINITY;
    for (size_t b = b_begin; b < b_end; ++b) {
        const double v = means[b];
        sum += v;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    const double count = (double)(b_end - b_begin);
    const double mean = sum / count;
    double m2 = 0.0;
    for (size_t b = b_begin; b < b_end; ++b) {
        const double d = means[b] - mean;
        m2 += d * d;
    }
    out->count = count;
    out->mean = mean;
    out->m2 = m2;
    out->min = mn;
    out->max = mx;
}

#endif /* APO_BOOTSTRAP_TILE_H */

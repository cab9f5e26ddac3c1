/*
 * bootstrap.c: bootstrap replicate means of the simple returns of a series.
 *
 * What: with m = n - 1 returns r_k = x[k+1] / x[k] - 1 (k in [0, m)), replicate b of row
 * `row` draws m returns with replacement and stores their mean, means[b] = (sum of the
 * drawn returns in draw order) / m. apo__cpu_bootstrap_tile_moments and the runtime's pairwise
 * merge reduce the means; apo__bootstrap_finalize gives their mean and the standard error
 * (the sample standard deviation of the replicate means). A non-finite return propagates
 * into every replicate mean that draws it, and from there into the statistics.
 *
 * Generator layout: draw j of replicate b uses one half of the Philox4x32-10 block with
 * key {lo32(seed), hi32(seed)} and counter {lo32(j/2), hi32(j/2), lo32(b), lo32(row)};
 * even j takes u = out[0] | out[1] << 32, odd j takes u = out[2] | out[3] << 32, and the
 * index is k = mulhi64(u, m), the top of u * m, which is uniform on [0, m) up to a bias
 * below m / 2^64. One block serves two draws.
 *
 * Tile shape: apo__bootstrap_tile_len() = 8 replicates per tile; each tile reads the row.
 *
 * Code: the bodies are the APO_HD inline apo__bootstrap_tile and apo__bootstrap_tile_moments
 * of bootstrap_tile.h, which the CUDA kernels (bootstrap.cu) call too; this file adds the
 * tile length, the host-side precondition checks and the finalize.
 *
 * Determinism: every draw is keyed by (seed, row, replicate, draw index), never by a
 * thread or a device, and each replicate sums in draw order, so the means are independent
 * of the split, and of CPU or GPU (no FMA contraction on either; see bootstrap_tile.h for
 * the one exception, the bits of NaN means).
 */
#include "reductions.h"

#include "bootstrap_tile.h"

#include <assert.h>
#include <math.h>

size_t apo__bootstrap_tile_len(void) { return 8; }

void apo__cpu_bootstrap_tile(const double *x, size_t n, uint64_t seed, uint64_t row, size_t b_begin,
                             size_t b_end, double *means) {
    assert(x != NULL && means != NULL);
    assert(n >= 2 && b_begin < b_end);
    apo__bootstrap_tile(x, n, seed, row, b_begin, b_end, means);
}

void apo__cpu_bootstrap_tile_moments(const double *means, size_t b_begin, size_t b_end,
                                     apo__moments *out) {
    assert(means != NULL && out != NULL);
    assert(b_begin < b_end);
    apo__bootstrap_tile_moments(means, b_begin, b_end, out);
}

void apo__bootstrap_finalize(const apo__moments *m, double *mean, double *std_error) {
    assert(m != NULL && mean != NULL && std_error != NULL);
    /* Partials that hold a NaN carry it with whatever sign and payload the device's
     * arithmetic gave; every NaN result is stored as the one NaN constant, so the bits do
     * not depend on which device computed the partials. */
    const double mu = m->count == 0.0 ? NAN : m->mean;
    const double se = m->count < 2.0 ? NAN : sqrt(m->m2 / (m->count - 1.0));
    *mean = isnan(mu) ? NAN : mu;
    *std_error = isnan(se) ? NAN : se;
}

/*
 * bootstrap.c: bootstrap replicate means of the simple returns of a series.
 *
 * What: with m = n - 1 returns r_k = x[k+1] / x[k] - 1 (k in [0, m)), replicate b of row
 * `row` draws m returns with replacement and stores their mean, means[b] = (sum of the
 * drawn returns in draw order) / m. apo_bootstrap_tile_moments and the runtime's pairwise
 * merge reduce the means; apo_bootstrap_finalize gives their mean and the standard error
 * (the sample standard deviation of the replicate means). A non-finite return propagates
 * into every replicate mean that draws it, and from there into the statistics.
 *
 * Generator layout: draw j of replicate b uses one half of the Philox4x32-10 block with
 * key {lo32(seed), hi32(seed)} and counter {lo32(j/2), hi32(j/2), lo32(b), lo32(row)};
 * even j takes u = out[0] | out[1] << 32, odd j takes u = out[2] | out[3] << 32, and the
 * index is k = mulhi64(u, m), the top of u * m, which is uniform on [0, m) up to a bias
 * below m / 2^64. One block serves two draws.
 *
 * Tile shape: apo_bootstrap_tile_len() = 8 replicates per tile; each tile reads the row.
 *
 * Determinism: every draw is keyed by (seed, row, replicate, draw index), never by a
 * thread or a device, and each replicate sums in draw order, so the means are independent
 * of the split.
 */
#include "kernels.h"

#include <assert.h>
#include <math.h>

size_t apo_bootstrap_tile_len(void) { return 8; }

void apo_bootstrap_tile(const double *x, size_t n, uint64_t seed, uint64_t row, size_t b_begin,
                        size_t b_end, double *means) {
    assert(x != NULL && means != NULL);
    assert(n >= 2 && b_begin < b_end);

    const uint64_t m = (uint64_t)(n - 1);
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    for (size_t b = b_begin; b < b_end; ++b) {
        double sum = 0.0;
        uint32_t ctr[4] = {0, 0, (uint32_t)b, (uint32_t)row};
        uint32_t out[4];
        for (uint64_t j = 0; j < m; j += 2) {
            ctr[0] = (uint32_t)(j >> 1);
            ctr[1] = (uint32_t)(j >> 33);
            apo__philox4x32_10(ctr, key, out);
            const uint64_t u0 = (uint64_t)out[0] | ((uint64_t)out[1] << 32);
            const uint64_t k0 = apo__mulhi64(u0, m);
            sum += x[k0 + 1] / x[k0] - 1.0;
            if (j + 1 < m) {
                const uint64_t u1 = (uint64_t)out[2] | ((uint64_t)out[3] << 32);
                const uint64_t k1 = apo__mulhi64(u1, m);
                sum += x[k1 + 1] / x[k1] - 1.0;
            }
        }
        means[b] = sum / (double)m;
    }
}

void apo_bootstrap_tile_moments(const double *means, size_t b_begin, size_t b_end,
                                apo_moments *out) {
    assert(means != NULL && out != NULL);
    assert(b_begin < b_end);

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

void apo_bootstrap_finalize(const apo_moments *m, double *mean, double *std_error) {
    assert(m != NULL && mean != NULL && std_error != NULL);
    *mean = m->count == 0.0 ? NAN : m->mean;
    *std_error = m->count < 2.0 ? NAN : sqrt(m->m2 / (m->count - 1.0));
}

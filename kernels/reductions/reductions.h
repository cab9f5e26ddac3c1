/*
 * reductions.h: the CPU entry points of the reductions (moments.c, returns_stats.c, philox.c,
 * bootstrap.c, and the group function apo__cpu_returns_stats_tiles of
 * dispatch/lanes_dispatch.c). The conventions of every kernel's entry points are in
 * dispatch/kernels.h, which gathers the families' headers.
 */
#ifndef APO_REDUCTIONS_H
#define APO_REDUCTIONS_H

#include <stddef.h>
#include <stdint.h>

/* apo__moments, and the inline apo__moments_*, apo__philox4x32_10 and apo__mulhi64. */
#include "cpu_isa.h"
#include "moments_tile.h"
#include "philox_tile.h"
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Moments partials ----------------------------------------------------------------- */

/* apo__moments (count, mean, m2, min, max; five doubles, no padding) is in moments_tile.h. */

/* Sets *m to the empty set: count 0, mean 0, m2 0, min +inf, max -inf. */
void apo__cpu_moments_empty(apo__moments *m);

/*
 * Merges two partials with Chan et al.'s pairwise formula in a fixed operation order, so
 * merge(a, b) is a pure function of the bits of a and b. out may alias a or b. An empty
 * side returns a copy of the other. min and max ignore NaN.
 */
void apo__cpu_moments_merge(const apo__moments *a, const apo__moments *b, apo__moments *out);

/* ---- Return statistics ---------------------------------------------------------------- */

/* Tile length for returns_stats: 8192 samples. The halo is 1 sample. */
size_t apo__returns_stats_tile_len(void);

/*
 * Moments of the finite simple returns r_t = x[t] / x[t-1] - 1 for t in
 * [max(begin, 1), end), computed two-pass in index order. Non-finite returns (from NaN or
 * infinite prices, or a zero price) are skipped. A tile without finite returns gives the
 * empty set.
 */
void apo__cpu_returns_stats_tile(const double *x, size_t n, size_t begin, size_t end,
                                 apo__moments *out);

/*
 * `count` returns_stats tiles at once on path `isa`: partials[i] gets the bits that
 * apo__cpu_returns_stats_tile gives tiles[i] (see apo__tile_span). `scratch` (NULL, or
 * scratch_len doubles, any alignment) lets each sample be divided once instead of twice;
 * apo__returns_stats_scratch_len(isa) doubles are enough for tiles of the standard length.
 */
void apo__cpu_returns_stats_tiles(const double *x, size_t rows, size_t cols,
                                  const apo__tile_span *tiles, size_t count, apo__moments *partials,
                                  double *scratch, size_t scratch_len, apo__cpu_isa isa);

/* Doubles of scratch with which apo__cpu_returns_stats_tiles divides each sample once. */
size_t apo__returns_stats_scratch_len(apo__cpu_isa isa);

/*
 * Final statistics from merged partials: count; mean (NaN when count is 0); sample
 * variance m2 / (count - 1) (NaN when count < 2); min and max (NaN when count is 0).
 */
void apo__returns_stats_finalize(const apo__moments *m, double *count, double *mean,
                                 double *variance, double *min, double *max);

/* ---- Bootstrap ------------------------------------------------------------------------ */

/* Philox4x32-10 (Salmon et al., SC'11): one 128-bit block from a counter and a key. */
void apo__cpu_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* High 64 bits of the 128-bit product a * b, computed portably with 32-bit limbs. */
uint64_t apo__cpu_mulhi64(uint64_t a, uint64_t b);

/* Their inline bodies, apo__philox4x32_10 and apo__mulhi64, are in philox_tile.h. */

/* Tile length for bootstrap: 8 replicates. */
size_t apo__bootstrap_tile_len(void);

/*
 * Bootstrap replicate means for replicates [b_begin, b_end) of row `row`: replicate b draws
 * m = n - 1 returns with replacement from r_k = x[k+1] / x[k] - 1 (k < m), keyed by
 * (seed, row, b, draw index) through Philox4x32-10, and stores their mean in means[b].
 * Non-finite returns propagate into the means that draw them. Requires n >= 2.
 */
void apo__cpu_bootstrap_tile(const double *x, size_t n, uint64_t seed, uint64_t row, size_t b_begin,
                             size_t b_end, double *means);

/* Two-pass moments of means[b_begin .. b_end), nothing skipped (NaN propagates). */
void apo__cpu_bootstrap_tile_moments(const double *means, size_t b_begin, size_t b_end,
                                     apo__moments *out);

/*
 * Bootstrap estimate: mean of the replicate means (NaN when count is 0) and the standard
 * error, the sample standard deviation of the replicate means (NaN when count < 2).
 */
void apo__bootstrap_finalize(const apo__moments *m, double *mean, double *std_error);

#ifdef __cplusplus
}
#endif

#endif /* APO_REDUCTIONS_H */

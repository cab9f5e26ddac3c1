/*
 * kernels.h: the pure-C CPU reference kernels of apportion.
 *
 * Every kernel here is a serial tile function: the runtime cuts the tiled axis of a series
 * into tiles whose length depends only on the kernel parameters (the *_tile_len functions)
 * and calls the tile function once per tile, with absolute indices into the whole row. A
 * tile function reads the input only, restarts every accumulator at the start of its tile
 * and writes only the outputs of its own tile, so its result depends on the tile grid and
 * never on which device or thread ran which tile, or in which order. These functions use
 * no threads, allocate nothing and depend on nothing but libc and libm.
 *
 * The arithmetic of each tile lives in an APO_HD static inline body in kernels/<name>_tile.h
 * (apo_hd.h), which the CUDA kernels of kernels/<name>.cu (kernels_cuda.h) call too; the
 * functions declared here wrap those bodies with their precondition checks, so the CPU and
 * the GPU run one source. The inline bodies are internal (apo__ names): use the apo_ names
 * outside kernels/.
 *
 * Conventions: `x` points at index 0 of a row of `n` samples; outputs are indexed by
 * absolute position, so a tile [begin, end) writes out[begin] .. out[end - 1] only.
 * Callers guarantee begin < end <= n (bootstrap: b_begin < b_end and n >= 2); the
 * functions check these preconditions with assert. Semantics, NaN/inf policy and accuracy
 * are described in docs/kernels.md.
 */
#ifndef APO_KERNELS_H
#define APO_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* apo__cpu_isa: the vector paths of the *_tiles functions below. */
#include "cpu_isa.h"
/* apo__moments, and the inline apo__moments_*, apo__philox4x32_10 and apo__mulhi64. */
#include "moments_tile.h"
#include "philox_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A tile of a group call: positions [begin, end) of row `row`. The group functions
 * (apo__cpu_*_tiles) take the arrays of all rows, row r starting at index r * cols, and
 * compute several tiles at once, one per lane of a vector (cpu_isa.h): each tile gets the
 * bits of the single-tile function, whatever the path and whatever other tiles share the
 * call. Tiles must not overlap. An `isa` the CPU lacks is replaced by the best it has.
 */
typedef struct apo__tile_span {
    size_t row, begin, end;
} apo__tile_span;

/*
 * The lane kernels of bollinger and macd store their outputs with streaming
 * (non-temporal) stores when the call's output arrays, rows x cols x 3 doubles, reach these
 * many bytes (docs/kernels.md, "Streaming stores"): streaming saves reading every output
 * line before it is written, but leaves the outputs out of the caches for whoever reads
 * them next. macd, whose arithmetic is light, gains from 16 MiB on; bollinger, bound by
 * its arithmetic on one thread, only where its outputs could not stay in the caches
 * anyway. The bits are the same either way. Tests lower them to cover both ways; nothing
 * else writes them.
 */
#define APO_BOLLINGER_STREAM_MIN_BYTES ((size_t)64 << 20)
#define APO_MACD_STREAM_MIN_BYTES ((size_t)16 << 20)
extern size_t apo__bollinger_stream_min_bytes, apo__macd_stream_min_bytes;

/* ---- Bollinger bands ------------------------------------------------------------------ */

/* Tile length for bollinger: max(4096, 16 * period). The halo is period - 1 samples. */
size_t apo__bollinger_tile_len(size_t period);

/*
 * Bollinger bands over [begin, end): middle = mean of the `period` samples ending at t,
 * sd = population standard deviation of the same window, upper = middle + nbdev_up * sd,
 * lower = middle - nbdev_dn * sd. Positions t < period - 1 are NaN. A window holding a NaN
 * gives NaN bands; a window holding infinities of one sign gives middle = that infinity and
 * NaN bands. A constant window gives sd exactly 0 and middle exactly the constant.
 * Requires period >= 1 (the public range is 2..100000, docs/kernels.md).
 */
void apo__cpu_bollinger_tile(const double *x, size_t n, size_t begin, size_t end, size_t period,
                             double nbdev_up, double nbdev_dn, double *upper, double *middle,
                             double *lower);

/* `count` bollinger tiles at once on path `isa`: the bits of apo__cpu_bollinger_tile for each
 * (see apo__tile_span). */
void apo__cpu_bollinger_tiles(const double *x, size_t rows, size_t cols,
                              const apo__tile_span *tiles, size_t count, size_t period,
                              double nbdev_up, double nbdev_dn, double *upper, double *middle,
                              double *lower, apo__cpu_isa isa);

/* ---- MACD ----------------------------------------------------------------------------- */

/*
 * Warm-up H of a macd tile: the number of samples before `begin` that a tile re-reads so
 * that the influence of its restarted seeds has decayed below 2^-64 by `begin`.
 * H = (slow-1) + (signal-1) + D(slow) + D(signal), D(p) = ceil(64 ln 2 / -ln(1 - 2/(p+1))),
 * after swapping fast and slow when fast > slow. This is also the tile's halo.
 */
size_t apo__macd_warmup(size_t fast, size_t slow, size_t signal);

/* Tile length for macd: max(16384, 16 * apo__macd_warmup(fast, slow, signal)). */
size_t apo__macd_tile_len(size_t fast, size_t slow, size_t signal);

/*
 * MACD over [begin, end) with TA-Lib's seeding (see docs/kernels.md): macd = EMA(fast) -
 * EMA(slow), signal_line = EMA(signal) of macd, hist = macd - signal_line. Positions before
 * (slow-1)+(signal-1) are NaN. A non-finite sample is a gap: its outputs are NaN and the
 * EMA states skip it. fast > slow is swapped. Requires fast, slow, signal >= 1.
 */
void apo__cpu_macd_tile(const double *x, size_t n, size_t begin, size_t end, size_t fast,
                        size_t slow, size_t signal, double *macd, double *signal_line,
                        double *hist);

/* `count` macd tiles at once on path `isa`: the bits of apo__cpu_macd_tile for each (see
 * apo__tile_span). The EMA chains of the tiles advance side by side, which hides their
 * latency. */
void apo__cpu_macd_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *tiles,
                         size_t count, size_t fast, size_t slow, size_t signal, double *macd,
                         double *signal_line, double *hist, apo__cpu_isa isa);

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

#endif /* APO_KERNELS_H */

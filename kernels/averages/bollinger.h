/*
 * bollinger.h: the CPU entry points of Bollinger bands (bollinger.c, and the group function
 * apo__cpu_bollinger_tiles of dispatch/lanes_dispatch.c). The conventions of every kernel's
 * entry points are in dispatch/kernels.h, which gathers the families' headers.
 */
#ifndef APO_BOLLINGER_H
#define APO_BOLLINGER_H

#include <stddef.h>

#include "cpu_isa.h"
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The lane kernels of bollinger (and of macd, oscillators/macd.h) store their outputs with
 * streaming (non-temporal) stores when the call's output arrays, rows x cols x 3 doubles, reach
 * these many bytes, on the AVX-512 path only (common/lanes.h, APO_LANES_STREAM;
 * docs/kernels-vector-paths.md, "Streaming stores"): streaming saves reading
 * every output line before it is written, but leaves the outputs out of the caches for whoever
 * reads them next. macd, whose arithmetic is light, gains from 16 MiB on; bollinger, bound by its
 * arithmetic on one thread, only where its outputs could not stay in the caches anyway. The bits
 * are the same either way. Tests lower them to cover both ways; nothing else writes them.
 */
#define APO_BOLLINGER_STREAM_MIN_BYTES ((size_t)64 << 20)
extern size_t apo__bollinger_stream_min_bytes;

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

/*
 * A tile fed piece by piece (streams, runtime/streaming): `state` is
 * apo__cpu_bollinger_resume_size() bytes, aligned for a double, that the caller keeps
 * between calls. With `fresh` the state starts tile [begin, ...) and the call emits
 * positions begin .. stop - 1; without, it goes on from the last call's `stop` (begin is
 * then unused) and emits positions from there to stop - 1. The windows are those of
 * apo__cpu_bollinger_tile over [begin, stop) for any stop, computed by the same operations
 * in the same order (the staged CUDA kernel runs a tile in segments the same way), so a
 * tile fed in pieces has the bits of the tile run whole. x indexes positions as the tile's
 * does (from begin - period + 1 on), and may be another pointer at each call.
 */
size_t apo__cpu_bollinger_resume_size(void);
void apo__cpu_bollinger_resume(const double *x, size_t begin, size_t stop, size_t period,
                               double nbdev_up, double nbdev_dn, void *state, int fresh,
                               double *upper, double *middle, double *lower);

/* The most series apo__cpu_bollinger_resume_lanes takes at once. */
#define APO_BOLLINGER_RESUME_LANES 8

/* apo__cpu_bollinger_resume(x[l], 0, stops[l], period, nbdev_up, nbdev_dn, states[l], 0,
 * upper[l], middle[l], lower[l]) for each of n <= APO_BOLLINGER_RESUME_LANES series of one
 * stream, each going on within its tile, with the same bits: the pieces of one bar whose run
 * slides on take their steps side by side in the vectors of path `isa`
 * (bollinger_stream_lanes.h), which the CPU has. */
void apo__cpu_bollinger_resume_lanes(const double *const *x, double *const *upper,
                                     double *const *middle, double *const *lower,
                                     void *const *states, const size_t *stops, size_t n,
                                     size_t period, double nbdev_up, double nbdev_dn,
                                     apo__cpu_isa isa);

/* `count` bollinger tiles at once on path `isa`: the bits of apo__cpu_bollinger_tile for each
 * (see apo__tile_span). */
void apo__cpu_bollinger_tiles(const double *x, size_t rows, size_t cols,
                              const apo__tile_span *tiles, size_t count, size_t period,
                              double nbdev_up, double nbdev_dn, double *upper, double *middle,
                              double *lower, apo__cpu_isa isa);

#ifdef __cplusplus
}
#endif

#endif /* APO_BOLLINGER_H */

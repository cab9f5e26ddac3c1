/*
 * macd.h: the CPU entry points of MACD (macd.c, and the group function apo__cpu_macd_tiles
 * of dispatch/lanes_dispatch.c). The conventions of every kernel's entry points are in
 * dispatch/kernels.h, which gathers the families' headers.
 */
#ifndef APO_MACD_H
#define APO_MACD_H

#include <stddef.h>

#include "cpu_isa.h"
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The streaming-store threshold of the macd lane kernel: see averages/bollinger.h, where
 * bollinger's twin explains both. */
#define APO_MACD_STREAM_MIN_BYTES ((size_t)16 << 20)
extern size_t apo__macd_stream_min_bytes;

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

/*
 * A tile fed piece by piece (streams, runtime/streaming), as apo__cpu_bollinger_resume:
 * `state` is apo__cpu_macd_resume_size() bytes, aligned for a double, kept by the caller;
 * with `fresh` it starts tile [begin, ...) (its warm-up included, or taken ahead while
 * the last tile's bars arrived when `state` is that tile's; all zeros: none) and emits
 * begin .. stop - 1, without it goes on from the last call's stop. The steady loop is one EMA step
 * per position whatever the tile's end, so the pieces have the bits of the whole tile. Returns 1
 * when the state can go on at `stop`, 0 when the tile had not reached its steady state by then (its
 * first slow + signal positions with finite samples): the next piece must then start it again with
 * `fresh`. A piece within a tile reads only the state's first apo__cpu_macd_resume_hot_size()
 * bytes (its tile's start and the next tile's warm-up read the rest), so a caller that
 * aligns the state to 64 bytes has a one-bar update touch one cache line of it.
 */
size_t apo__cpu_macd_resume_size(void);
size_t apo__cpu_macd_resume_hot_size(void);
int apo__cpu_macd_resume(const double *x, size_t begin, size_t stop, size_t fast, size_t slow,
                         size_t signal, void *state, int fresh, double *macd, double *signal_line,
                         double *hist);

/* A piece's EMA states at its two edges (macd_tile.h), which the lane kernels record for a
 * lone tile's split. */
typedef struct apo__macd_edges apo__macd_edges;

/* One tile of one row (x, the outputs: the row's arrays) with the bits of apo__cpu_macd_tile,
 * its EMA chain cut into up to `lanes of isa` pieces that run side by side, each from its
 * own warm-up like a tile of its own, then checked: a piece whose states at its start are
 * not bit for bit those the piece before it ends with is computed again, serially, from
 * those. Returns the number of pieces computed again (tests/kernels/dispatch/test_macd_split.c).
 * Does not cut a tile too short for the cuts to pay (apo__macd_split_pieces). */
size_t apo__cpu_macd_split_tile(const double *x, size_t begin, size_t end, size_t fast, size_t slow,
                                size_t signal, double *macd, double *signal_line, double *hist,
                                apo__cpu_isa isa);

/* Pieces a tile of `len` outputs is cut into on a path of `lanes` lanes with warm-up h: 1
 * (no cut) unless each piece's steps, its warm-up included, are at most half the tile's and
 * each piece gets 64 outputs or more. */
size_t apo__macd_split_pieces(size_t len, size_t h, size_t lanes);

/* `count` macd tiles at once on path `isa`: the bits of apo__cpu_macd_tile for each (see
 * apo__tile_span). The EMA chains of the tiles advance side by side, which hides their
 * latency. */
void apo__cpu_macd_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *tiles,
                         size_t count, size_t fast, size_t slow, size_t signal, double *macd,
                         double *signal_line, double *hist, apo__cpu_isa isa);

/* apo__cpu_macd_tiles for TA-Lib's MACDFIX (macdfix_tile.h: the fixed rates 0.15 and 0.075,
 * seeded as MACD(12, 26) seeds them), its tiles' warm-up h the catalog's halo: the bits of
 * macdfix's tile body for each tile. */
void apo__cpu_macdfix_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *tiles,
                            size_t count, size_t signal, size_t h, double *macd,
                            double *signal_line, double *hist, apo__cpu_isa isa);

#ifdef __cplusplus
}
#endif

#endif /* APO_MACD_H */

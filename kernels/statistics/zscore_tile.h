/*
 * zscore_tile.h: ZSCORE(timeperiod), beyond TA-Lib: (x[t] - mean) / sd, the mean and the
 * population standard deviation of the p samples ending at t (docs/kernels.md).
 *
 * Tile: halo p - 1. VAR's sliding evaluation (var_tile.h, apo__var_run) at every period: the
 * window's sums S1 and S2 are double-doubles, summed exactly at the tile's first clean window
 * and after each gap, then slid with their rounding errors gathered beside them
 * (window_sum.h); the deviation x[t] - S1 / p and the variance (S2 - S1^2 / p) / p are formed
 * in double-double, so neither cancels visibly in double. A constant window (tracked
 * exactly) gives 0: the sample is its mean. Gaps as SMA (window.h). Positions t < p - 1 are
 * NaN.
 */
#ifndef APO_KERNELS_ZSCORE_TILE_H
#define APO_KERNELS_ZSCORE_TILE_H

#include "run_entries.h"
#include "var_tile.h"

static inline APO_HD void apo__zscore_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__var_body(io->in[0], (size_t)io->p[0], 1.0, begin, end, NULL, NULL, io->out[0]);
}

/* zscore's stream (catalog_table.h, RUN): apo__zscore_stream_start and apo__zscore_stream_run. */
APO_CAT_STREAM_ENTRIES(zscore, apo__moments_start(io->in[0], (size_t)io->p[0], begin, r),
                       apo__var_run(io->in[0], (size_t)io->p[0], 1.0, end, NULL, NULL, io->out[0],
                                    r))

#endif /* APO_KERNELS_ZSCORE_TILE_H */

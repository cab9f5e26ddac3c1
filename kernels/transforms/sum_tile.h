/*
 * sum_tile.h: SUM(timeperiod), TA-Lib's sum of the p samples ending at t.
 *
 * Tile: halo p - 1; sma's window sum, the mean's own before its product (sma_tile.h): up to
 * APO_PLAIN_MAX slid in plain double between anchors where it is evaluated afresh
 * (window_plain.h: within (A + p / 8 + 4) eps of p times the window's largest sample, A the
 * anchors' spacing), each output the sum times 1.0, so the sum itself; longer windows slide
 * sma's double-double (apo__window_dd_run), rounded once. TA-Lib's running sum in double
 * carries its roundings from the series' first window on; these restart at every anchor. A
 * window holding a non-finite sample gives NaN and the next clean window is summed afresh
 * (window.h). Positions t < p - 1 are NaN. (Until 2026-11-28 every period took the
 * double-double slide, within an ulp of the exact sum, at 0.74 to 0.82 of TA-Lib's speed on
 * the Zen 4 VM where sma's plain slide ran at 2.3 to 2.5 times it.)
 */
#ifndef APO_KERNELS_SUM_TILE_H
#define APO_KERNELS_SUM_TILE_H

#include "run_entries.h"
#include "sma_tile.h"

/* The loop from r->t to end: sma's, each output its sum. */
static inline APO_HD void apo__sum_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const size_t p = (size_t)io->p[0];
    if (p <= APO_PLAIN_MAX) {
        apo__plain_run_scaled(io->in[0], p, 0, 1.0, end, io->out[0], r);
        return;
    }
    apo__window_dd_run(io, end, 1.0, r);
}

/* sum's tile and stream (catalog_table.h, RUN): apo__sum_tile, apo__sum_stream_start and
 * apo__sum_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(sum, apo__sma_start(io, begin, r), apo__sum_run(io, end, r))

#endif /* APO_KERNELS_SUM_TILE_H */

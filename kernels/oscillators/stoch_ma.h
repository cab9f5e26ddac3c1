/*
 * stoch_ma.h: the tile bodies of STOCH and STOCHF (catalog_table.h) for every matype TA-Lib's
 * take, 0 .. 8. At matype 0, TA-Lib's default SMA, the stochastics' own windows (stoch_tile.h:
 * each mean a double-double sum of its values, nothing carried from bar to bar). At another kind
 * kdj's body (kdj_tile.h), which is TA-Lib's STOCH with its averages' kinds free: TA-Lib 0.8.1's
 * KDJ gives STOCH's slowk and slowd as its k and d at the same parameters, and STOCHF's fastk
 * and fastd as its k and d at (fastk_period, 1, SMA, fastd_period, fastd_matype), its k at
 * period 1 being fastk itself (bitwise, every matype 0 .. 8, 3,000 bars: docs/kernels/momentum.md,
 * "stoch and stochf at every matype"). So those outputs have kdj's accuracy, and its lookback
 * (TA-Lib's for each kind) and halo (catalog_dispatch.c, the rules STOCH and STOCHF); MAMA (7)
 * is refused, as for every kernel but ma and bbands (runtime/catalog/catalog_kernels.c).
 *
 * kdj's body re-runs each tile of the grid from its own warm-up, so a call over several tiles
 * (the rows' JOIN, which matype 0's windows allow) is cut at the grid here, each tile run alone.
 * A stream (the rows' RUN) carries the SMA's last values at matype 0 (stoch_stream.h); at another
 * kind kdj's run (kdj_stream.h): the two averages carried where both are recurrences (EMA,
 * Wilder's, none), so an update costs its new bars; at ma_series.h's kinds kdj's body over the
 * new positions from the tile's own warm-up, the bars a stream keeps (the tile's start less the
 * halo), so the operations are the batch tile's: the cost of a NONE kernel's update, the tile's
 * bars again.
 */
#ifndef APO_KERNELS_STOCH_MA_H
#define APO_KERNELS_STOCH_MA_H

#include "catalog.h"
#include "kdj_stream.h"
#include "kdj_tile.h"
#include "run_entries.h"
#include "stoch_stream.h"
#include "stoch_tile.h"

/* kdj's body over [begin, end) with kdj's parameters in io->p and no j, each tile of the grid
 * io->tile alone (a GPU thread's call is one tile: io->tile 0). */
static inline APO_HD void apo__stoch_kdj_tiles(const apo__cat_io *io, size_t begin, size_t end) {
    for (size_t t0 = begin; t0 < end;) {
        const size_t t1 = io->tile != 0 ? apo__cat_grid_end(io, t0, end) : end;
        apo__kdj_tile(io, t0, t1);
        t0 = t1;
    }
}

/* Whether the averages are all TA-Lib's default, the SMA (matype 0), which the stochastics' own
 * windows compute; stoch's slowk and slowd (p[2], p[4]), stochf's fastd (p[2]). The tiles, the
 * streams and the halos (catalog_dispatch.c) ask these. */
static inline APO_HD int apo__stoch_is_sma(const double *p) { return p[2] == 0.0 && p[4] == 0.0; }
static inline APO_HD int apo__stochf_is_sma(const double *p) { return p[2] == 0.0; }

/* stochf's parameters (fastk_period, fastd_period, fastd_matype) as kdj's: k the SMA of one
 * fastk, fastk itself, so kdj's d is fastd. */
static inline APO_HD void apo__stochf_as_kdj(const double *p, double kdj[APO_CAT_MAX_PAR]) {
    kdj[0] = p[0];
    kdj[1] = 1.0;
    kdj[2] = 0.0;
    kdj[3] = p[1];
    kdj[4] = p[2];
}

/* The call's io with kdj's parameters for stoch's (stochf's where `stochf`) at a matype other
 * than 0, and no j. */
static inline APO_HD apo__cat_io apo__stoch_kdj_io(const apo__cat_io *io, int stochf) {
    apo__cat_io kdj = *io;
    if (stochf)
        apo__stochf_as_kdj(io->p, kdj.p);
    kdj.out[2] = NULL;
    return kdj;
}

static inline APO_HD void apo__stoch_tile(const apo__cat_io *io, size_t begin, size_t end) {
    if (apo__stoch_is_sma(io->p)) {
        apo__stoch_sma_tile(io, begin, end);
        return;
    }
    const apo__cat_io kdj = apo__stoch_kdj_io(io, 0); /* stoch's parameters are kdj's */
    apo__stoch_kdj_tiles(&kdj, begin, end);
}

static inline APO_HD void apo__stochf_tile(const apo__cat_io *io, size_t begin, size_t end) {
    if (apo__stochf_is_sma(io->p)) {
        apo__stochf_sma_tile(io, begin, end);
        return;
    }
    const apo__cat_io kdj = apo__stoch_kdj_io(io, 1);
    apo__stoch_kdj_tiles(&kdj, begin, end);
}

/* A stream's start and run of the tile at `begin` at a matype other than 0: kdj's
 * (kdj_stream.h), carried where both averages are recurrences. */
static inline APO_HD void apo__stoch_kdj_begin(const apo__cat_io *io, size_t begin, apo__cat_run *r,
                                               int stochf) {
    const apo__cat_io kdj = apo__stoch_kdj_io(io, stochf);
    apo__kdj_stream_begin(&kdj, begin, r);
}
static inline APO_HD void apo__stoch_kdj_run(const apo__cat_io *io, size_t begin, size_t end,
                                             apo__cat_run *r, int stochf) {
    const apo__cat_io kdj = apo__stoch_kdj_io(io, stochf);
    apo__kdj_stream_go(&kdj, begin, end, r);
}

/* The stream's entries (the tiles are apo__stoch_tile and apo__stochf_tile above): at matype 0
 * a start at the tile's first bar carries nothing (stoch_stream.h). */
APO_CAT_STREAM_ENTRIES(stoch,
                       apo__stoch_is_sma(io->p) ? apo__cat_run_from(r, begin)
                                                : apo__stoch_kdj_begin(io, begin, r, 0),
                       apo__stoch_is_sma(io->p) ? apo__stoch_run(io, end, r)
                                                : apo__stoch_kdj_run(io, begin, end, r, 0))
APO_CAT_STREAM_ENTRIES(stochf,
                       apo__stochf_is_sma(io->p) ? apo__cat_run_from(r, begin)
                                                 : apo__stoch_kdj_begin(io, begin, r, 1),
                       apo__stochf_is_sma(io->p) ? apo__stochf_run(io, end, r)
                                                 : apo__stoch_kdj_run(io, begin, end, r, 1))

#endif /* APO_KERNELS_STOCH_MA_H */

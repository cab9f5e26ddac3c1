/*
 * dm_tile.h: PLUS_DM(timeperiod) and MINUS_DM(timeperiod), TA-Lib's smoothed directional
 * movements. Inputs high, low.
 *
 * Definition (TA-Lib's): +DM and -DM of bar t >= 1 as dmi_tile.h's (the larger of the two
 * moves, where it is above 0); the sum is seeded with the plain sum of the first p - 1 of
 * them (t = 1 .. p-1) and output there, at t = p - 1, then S = S - S / p + DM from t = p on,
 * in that order: the +DM and -DM sums of PLUS_DI and MINUS_DI, output one bar earlier. At
 * p = 1 the step S - S + DM is DM itself (TA-Lib's raw DM), output from t = 1: the lookback is
 * p - 1, and 1 at p = 1.
 *
 * Gaps: a non-finite high or low at t or t - 1 makes bar t a gap: NaN, and the sum skips it
 * (the seed is the first finite values), as plus_di's.
 *
 * Tile: a recurrence. A tile re-runs the definition from w0 = max(0, begin - h), h = the
 * lookback + D(1/p), so the restarted seed weighs below 2^-64 by `begin`; the first tile has
 * TA-Lib's operation order and so its bits.
 */
#ifndef APO_KERNELS_DM_TILE_H
#define APO_KERNELS_DM_TILE_H

#include "dmi_tile.h"
#include "run_entries.h"

/* The loop from r->t to end after apo__cat_run_start_changes, writing from `begin` on (n[0]
 * the bars seen, v[0] the sum); which: APO_DMI_PLUS or APO_DMI_MINUS. */
static APO_CAT_SPECIALISED APO_HD void apo__dm_run(const apo__cat_io *io, size_t begin, size_t end,
                                                   int which, apo__cat_run *r) {
    const double *high = io->in[0], *low = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p;
    size_t seen = r->n[0];
    double sum = r->v[0];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        const double up = high[t] - high[t - 1], down = low[t - 1] - low[t];
        if (isfinite(up) && isfinite(down)) {
            const double dm = which == APO_DMI_PLUS
                                  ? apo__keep_if(up, (up > 0.0) & (up > down))
                                  : apo__keep_if(down, (down > 0.0) & (down > up));
            seen++;
            sum = seen < p ? sum + dm : sum - sum / pd + dm;
            if (seen + 1 >= p)
                y = sum;
        }
        if (t >= begin)
            out[t] = apo__canonical_nan(y);
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = sum;
}

/* plus_dm's tile and stream (catalog_table.h, RUN): apo__plus_dm_tile, apo__plus_dm_stream_start
 * and apo__plus_dm_stream_run. */
APO_CAT_RUN_ENTRIES(plus_dm, apo__cat_run_start_changes(io, begin, r),
                    apo__dm_run(io, begin, end, APO_DMI_PLUS, r))

/* minus_dm's tile and stream (catalog_table.h, RUN): apo__minus_dm_tile, apo__minus_dm_stream_start
 * and apo__minus_dm_stream_run. */
APO_CAT_RUN_ENTRIES(minus_dm, apo__cat_run_start_changes(io, begin, r),
                    apo__dm_run(io, begin, end, APO_DMI_MINUS, r))

#endif /* APO_KERNELS_DM_TILE_H */

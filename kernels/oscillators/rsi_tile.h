/*
 * rsi_tile.h: RSI(timeperiod) and CMO(timeperiod), TA-Lib's relative strength index and
 * Chande momentum oscillator, both from Wilder's averages of the gains and losses.
 *
 * Definition: the change at t >= 1 is d = x[t] - x[t-1]; a loss is -d when d < 0, else d is
 * a gain. The averages are seeded with the plain sums of the first p gains and losses
 * divided by p (TA-Lib sums them in index order, and so does this), the first output at
 * index p; then g = (g * (p-1) + gain) / p in TA-Lib's order (multiply, add, divide), the
 * same for the loss. RSI = 100 * (g / (g + l)), CMO = 100 * ((g - l) / (g + l)); 0 where
 * g + l is exactly 0 (TA-Lib tests |g + l| < 1e-8 instead: docs/kernels.md says why not).
 *
 * Gaps: a change needs x[t] and x[t-1] finite; otherwise the output at t is NaN and the
 * averages skip it; the seed takes the first p finite changes.
 *
 * Tile: a recurrence of rate 1/p: the tile reruns it from w0 = max(0, begin - h), its first
 * change at w0 + 1, h = p + D(1/p) (catalog_dispatch.c).
 */
#ifndef APO_KERNELS_RSI_TILE_H
#define APO_KERNELS_RSI_TILE_H

#include "catalog.h"
#include "run_entries.h"

/* The tile's start: NaN at `begin` when the warm-up starts there (no change yet), the loop
 * from the first change after w0 (apo__cat_run: n[0] the changes seen, v[0] the average
 * gain, v[1] the loss). */
static inline APO_HD void apo__wilder_osc_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__cat_run_start_changes(io, begin, r);
}

/* One change into the averages, written once for a double and for a vector of tiles' lanes
 * (rsi_lanes.h), so both perform the same operations: the seeds' sums until p changes are
 * in (then divided by p, and `ready` set), then Wilder's step; `ready` is 0 while seeding. */
#define APO__WILDER_OSC_STEP(seen, p, g, l, gain, loss, pd, keep, ready)                           \
    do {                                                                                           \
        if ((seen) < (p)) {                                                                        \
            (g) = (g) + (gain);                                                                    \
            (l) = (l) + (loss);                                                                    \
            (seen)++;                                                                              \
            (ready) = (seen) == (p);                                                               \
            if (ready) {                                                                           \
                (l) = (l) / (pd);                                                                  \
                (g) = (g) / (pd);                                                                  \
            }                                                                                      \
        } else {                                                                                   \
            (g) = ((g) * (keep) + (gain)) / (pd);                                                  \
            (l) = ((l) * (keep) + (loss)) / (pd);                                                  \
        }                                                                                          \
    } while (0)

/* The loop from r->t to end, writing the positions from `begin` on through `out` (apo_hd.h's
 * accessor: the call's first output, or a GPU scored kernel's window with a stride). cmo 0: RSI;
 * 1: CMO. */
static APO_CAT_SPECIALISED APO_HD void apo__wilder_osc_run_to(const apo__cat_io *io, size_t begin,
                                                              size_t end, int cmo, apo__cat_run *r,
                                                              apo__out out) {
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p, keep = (double)(p - 1);
    size_t seen = r->n[0];
    double g = r->v[0], l = r->v[1];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (isfinite(x[t]) && isfinite(x[t - 1])) {
            const double d = x[t] - x[t - 1];
            /* Both averages take a term, the other side's +0.0, rather than a branch on the
             * sign of a random walk's move (mispredicted every other bar): the same bits, as
             * g and l are never -0.0 (they start at +0.0 and add values >= 0 or -0.0), and
             * l + (-d) is l - d in IEEE arithmetic. */
            const uint64_t falls = 0 - (uint64_t)(d < 0.0);
            const double gain = apo__double_of(apo__bits_of(d) & ~falls);
            const double loss = apo__double_of(apo__bits_of(-d) & falls);
            int ready = 1;
            APO__WILDER_OSC_STEP(seen, p, g, l, gain, loss, pd, keep, ready);
            if (ready) {
                const double s = g + l;
                y = s == 0.0 ? 0.0 : cmo ? 100.0 * ((g - l) / s) : 100.0 * (g / s);
            }
        }
        if (t >= begin)
            APO_OUT(out, t) = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = g;
    r->v[1] = l;
}

/* apo__wilder_osc_run_to into the call's first output. */
static APO_CAT_SPECIALISED APO_HD void apo__wilder_osc_run(const apo__cat_io *io, size_t begin,
                                                           size_t end, int cmo, apo__cat_run *r) {
    apo__wilder_osc_run_to(io, begin, end, cmo, r, apo__out_at(io->out[0]));
}

/* The tile [begin, end) of RSI (cmo 0) or CMO (1), its output through `out`: the tile of
 * APO_CAT_RUN_ENTRIES below, for a GPU's scored kernel, whose windows are interleaved across its
 * threads (scored.cu). */
static inline APO_HD void apo__wilder_osc_tile_to(const apo__cat_io *io, size_t begin, size_t end,
                                                  int cmo, apo__out out) {
    apo__cat_run run;
    apo__cat_run_start_changes_to(io, begin, &run, out);
    apo__wilder_osc_run_to(io, begin, end, cmo, &run, out);
}

/* rsi's tile and stream (catalog_table.h, RUN): apo__rsi_tile, apo__rsi_stream_start and
 * apo__rsi_stream_run. */
APO_CAT_RUN_ENTRIES(rsi, apo__wilder_osc_start(io, begin, r),
                    apo__wilder_osc_run(io, begin, end, 0, r))

#endif /* APO_KERNELS_RSI_TILE_H */

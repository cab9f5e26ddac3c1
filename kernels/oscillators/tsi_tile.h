/*
 * tsi_tile.h: TSI(firstperiod, secondperiod), TA-Lib 0.8's true strength index (Blau): the
 * one-bar change m = x[t] - x[t-1] and its magnitude abs(m), each smoothed by an EMA of period
 * r (firstperiod) and that by an EMA of period s (secondperiod), TSI = `100 * n / d`, n and d
 * the doubly smoothed change and magnitude, and 0 where d is 0 (no movement reached it). Each
 * EMA is TA-Lib's: seeded with the mean of its first inputs (r changes; s values of the first
 * stage, from its seed on), then `e = (v - e)*k + e`, k = 2/(period + 1). Input close; lookback
 * 1 + (r - 1) + (s - 1).
 *
 * Tile: a recurrence (as trix's chain), re-run from w0 = max(0, begin - h), h the lookback plus
 * each stage's decay steps and one more for the chain (catalog_dispatch.c, TSI): the outputs
 * are a pure function of the tile grid, and the first tile has the definition's operations.
 * The run's first position gives no change (at w0 = 0 there is no close before; past it, the
 * close before is outside the halo).
 *
 * Gaps: the EMA family's rule: a change whose x[t] or x[t-1] is not finite gives NaN and moves
 * no stage, so each gap before the seeds moves the first value one bar later.
 *
 * Stream (RUN): apo__cat_run holds n[0], n[1] the values each stage's seed has seen, n[2]
 * whether the run's first position is past, and v[0..3] the stages' numerator and denominator:
 * each seed's sum until its seed, its average after.
 */
#ifndef APO_KERNELS_TSI_TILE_H
#define APO_KERNELS_TSI_TILE_H

#include "catalog.h"
#include "run_entries.h"

/* One EMA step of a stage that has seen `seen` of its `p` seed values: the seed's sum until
 * the p-th, its mean at it, the step after. */
static inline APO_HD double apo__tsi_stage(double e, double v, size_t seen, size_t p, double k) {
    if (seen < p)
        return seen + 1 == p ? (e + v) / (double)p : e + v;
    return (v - e) * k + e;
}

/* The chain from r->t to end, writing from `begin` on. */
static inline APO_HD void apo__tsi_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p1 = (size_t)io->p[0], p2 = (size_t)io->p[1];
    const double k1 = 2.0 / ((double)p1 + 1.0), k2 = 2.0 / ((double)p2 + 1.0);
    size_t seen1 = r->n[0], seen2 = r->n[1];
    int past_first = r->n[2] != 0;
    double n1 = r->v[0], d1 = r->v[1], n2 = r->v[2], d2 = r->v[3];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (past_first && apo__finite(x[t]) && apo__finite(x[t - 1])) {
            const double m = x[t] - x[t - 1];
            n1 = apo__tsi_stage(n1, m, seen1, p1, k1);
            d1 = apo__tsi_stage(d1, fabs(m), seen1, p1, k1);
            seen1 += seen1 < p1;
            if (seen1 == p1) {
                n2 = apo__tsi_stage(n2, n1, seen2, p2, k2);
                d2 = apo__tsi_stage(d2, d1, seen2, p2, k2);
                seen2 += seen2 < p2;
                if (seen2 == p2)
                    y = d2 > 0.0 ? 100.0 * n2 / d2 : 0.0;
            }
        }
        past_first = 1;
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen1;
    r->n[1] = seen2;
    r->n[2] = (size_t)past_first;
    r->v[0] = n1;
    r->v[1] = d1;
    r->v[2] = n2;
    r->v[3] = d2;
}

/* tsi's tile and stream (catalog_table.h, RUN): apo__tsi_tile, apo__tsi_stream_start and
 * apo__tsi_stream_run, from the tile's warm-up origin. */
APO_CAT_RUN_ENTRIES(tsi, apo__cat_run_from(r, begin > io->h ? begin - io->h : 0),
                    apo__tsi_run(io, begin, end, r))

#endif /* APO_KERNELS_TSI_TILE_H */

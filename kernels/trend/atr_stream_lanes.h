/*
 * atr_stream_lanes.h: a stream's one-bar pieces of ATR or NATR for several series side by side
 * (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c; built on each vector
 * path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece past the seed is one true range and one fused Wilder step (NATR: then a
 * division by the close): a few operations, which the piece's call through the catalog's
 * dispatch a series costs several times over. Here the pieces of APO_ATR_LANES series are
 * one call, each step taken in the lanes of the path's vectors (the unused lanes computing
 * zeros), each lane performing apo__atr_run's operations at that bar in the same order
 * (-ffp-contract=off covers vector code too; the step's fma is a written one), so the same
 * bits; a lane whose true range is not finite keeps its average and gives NaN, as the loop
 * does.
 */
#ifndef APO_KERNELS_ATR_STREAM_LANES_H
#define APO_KERNELS_ATR_STREAM_LANES_H

#include "atr_tile.h"

#define APO_ATR_LANES 8

/*
 * apo__atr_run(&io[l], begins[l], ends[l], normalize, runs[l]) for each of n series of one
 * stream (n <= APO_ATR_LANES; the same parameters): a series whose piece is its one bar at or
 * past `begins[l]`, its average seeded, takes the loop's step there in a lane; any other
 * series runs alone. normalize 0: ATR; 1: NATR.
 */
static APO_CAT_SPECIALISED void apo__atr_run_lanes(const apo__cat_io *io, const size_t *begins,
                                                   const size_t *ends, apo__cat_run *const *runs,
                                                   size_t n, int normalize) {
    const size_t p = (size_t)io[0].p[0];
    const double pd = (double)p, keep = APO__WILDER_KEEP(pd), rest = 1.0 - keep;
    apo__cat_run *lane_run[APO_ATR_LANES];
    double *lane_out[APO_ATR_LANES];
    double tr[APO_ATR_LANES], close[APO_ATR_LANES], a[APO_ATR_LANES];
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        apo__cat_run *r = runs[k];
        const size_t t = r->t;
        if (apo__cat_one_bar_piece(r, begins[k], ends[k], 1) && r->n[0] >= p) {
            lane_run[m] = r;
            lane_out[m] = io[k].out[0] + t;
            tr[m] = apo__true_range(io[k].in[0], io[k].in[1], io[k].in[2], t);
            close[m] = io[k].in[2][t];
            a[m] = r->v[1];
            m++;
        } else {
            apo__atr_run(&io[k], begins[k], ends[k], normalize, r);
        }
    }
    if (m == 0)
        return;
    for (size_t j = m; j < APO_ATR_LANES; j++)
        tr[j] = close[j] = a[j] = 0.0;
    double y[APO_ATR_LANES];
    /* Selects on the bits (apo_hd.h): a select of a quotient would keep a branch a lane. */
    for (size_t j = 0; j < APO_ATR_LANES; j++) {
        const int ok = apo__finite(tr[j]);
        const double next = APO__WILDER_NEXT(fma, a[j], tr[j], keep, rest);
        a[j] = apo__pick_double(ok, next, a[j]);
        double v = apo__pick_double(ok, next, (double)NAN);
        if (normalize) {
            const double q = v / close[j] * 100.0;
            const double natr =
                apo__pick_double(close[j] != 0.0, apo__pick_double(q == q, q, (double)NAN), 0.0);
            v = apo__pick_double(apo__finite(v), natr, v);
        }
        y[j] = v;
    }
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        *lane_out[j] = y[j];
        r->v[1] = a[j];
        r->t++;
    }
}

#endif /* APO_KERNELS_ATR_STREAM_LANES_H */

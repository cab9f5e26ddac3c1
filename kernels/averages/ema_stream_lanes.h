/*
 * ema_stream_lanes.h: a stream's one-bar pieces of EMA for several series side by side
 * (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c; built on each vector
 * path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece past the seed is one step, (v - e) k + e: three operations, which the
 * piece's call through the catalog's dispatch a series costs several times over. Here the
 * pieces of APO_EMA_STREAM_LANES series are one call, each lane's step the loop's own
 * (apo__ema_take, the unused lanes computing zeros), so the same bits; a lane whose sample is
 * not finite keeps its average and gives NaN, as the loop does.
 */
#ifndef APO_KERNELS_EMA_STREAM_LANES_H
#define APO_KERNELS_EMA_STREAM_LANES_H

#include "ema_tile.h"

#define APO_EMA_STREAM_LANES 8

/*
 * apo__ema_stream_run(&io[l], begins[l], ends[l], runs[l]) for each of n series of one stream
 * (n <= APO_EMA_STREAM_LANES; the same parameters): a series whose piece is its one bar at or
 * past `begins[l]`, its seed full, takes the loop's step there in a lane; any other series
 * runs alone.
 */
static APO_CAT_SPECIALISED void apo__ema_run_lanes(const apo__cat_io *io, const size_t *begins,
                                                   const size_t *ends, apo__cat_run *const *runs,
                                                   size_t n) {
    const size_t p = (size_t)io[0].p[0];
    const double k = 2.0 / ((double)p + 1.0);
    apo__cat_run *lane_run[APO_EMA_STREAM_LANES];
    double *lane_out[APO_EMA_STREAM_LANES];
    double v[APO_EMA_STREAM_LANES], e[APO_EMA_STREAM_LANES];
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        apo__cat_run *r = runs[j];
        const size_t t = r->t;
        if (apo__cat_one_bar_piece(r, begins[j], ends[j], 0) && r->n[0] >= p) {
            lane_run[m] = r;
            lane_out[m] = io[j].out[0] + t;
            v[m] = io[j].in[0][t];
            e[m] = r->v[1];
            m++;
        } else {
            apo__ema_stream_run(&io[j], begins[j], ends[j], r);
        }
    }
    if (m == 0)
        return;
    for (size_t j = m; j < APO_EMA_STREAM_LANES; j++)
        v[j] = e[j] = 0.0;
    double y[APO_EMA_STREAM_LANES];
    /* The loop's own step (apo__ema_take), its seed full: a sample that is not finite keeps
     * the average and gives NaN. */
    for (size_t j = 0; j < APO_EMA_STREAM_LANES; j++) {
        size_t seen = p;
        double sum = 0.0;
        y[j] = apo__ema_take(v[j], p, k, &seen, &sum, &e[j]);
    }
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        *lane_out[j] = y[j];
        r->v[1] = e[j];
        r->t++;
    }
}

#endif /* APO_KERNELS_EMA_STREAM_LANES_H */

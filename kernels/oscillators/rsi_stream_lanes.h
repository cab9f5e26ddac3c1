/*
 * rsi_stream_lanes.h: a stream's one-bar pieces of RSI or CMO for several series side by side
 * (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c; built on each vector
 * path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece past the seed is one Wilder step of each average, a division at the end of
 * each, then the ratio's division: some 60 cycles of dependent operations that one series after
 * another leave the core waiting on. Here each step is taken for APO_WILDER_OSC_LANES series at
 * once, in the lanes of the path's vectors (the unused lanes computing zeros), each lane
 * performing apo__wilder_osc_run_to's operations at that bar in the same order (-ffp-contract=off
 * covers vector code too), so the same bits; a lane whose bar or the bar before is not finite
 * keeps its averages and gives NaN, as the loop does.
 */
#ifndef APO_KERNELS_RSI_STREAM_LANES_H
#define APO_KERNELS_RSI_STREAM_LANES_H

#include "rsi_tile.h"

#define APO_WILDER_OSC_LANES 8

/*
 * apo__wilder_osc_run(&io[l], begins[l], ends[l], cmo, runs[l]) for each of n series of one
 * stream (n <= APO_WILDER_OSC_LANES; the same parameters): a series whose piece is its one bar
 * at or past `begins[l]`, its averages seeded, takes the loop's step there in a lane; any
 * other series runs alone. cmo 0: RSI; 1: CMO.
 */
static APO_CAT_SPECIALISED void apo__wilder_osc_run_lanes(const apo__cat_io *io,
                                                          const size_t *begins, const size_t *ends,
                                                          apo__cat_run *const *runs, size_t n,
                                                          int cmo) {
    const size_t p = (size_t)io[0].p[0];
    const double pd = (double)p, keep = (double)(p - 1);
    apo__cat_run *lane_run[APO_WILDER_OSC_LANES];
    double *lane_out[APO_WILDER_OSC_LANES];
    double now[APO_WILDER_OSC_LANES], before[APO_WILDER_OSC_LANES];
    double g[APO_WILDER_OSC_LANES], l[APO_WILDER_OSC_LANES];
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        apo__cat_run *r = runs[k];
        const size_t t = r->t;
        if (apo__cat_one_bar_piece(r, begins[k], ends[k], 1) && r->n[0] >= p) {
            lane_run[m] = r;
            lane_out[m] = io[k].out[0] + t;
            now[m] = io[k].in[0][t];
            before[m] = io[k].in[0][t - 1];
            g[m] = r->v[0];
            l[m] = r->v[1];
            m++;
        } else {
            apo__wilder_osc_run(&io[k], begins[k], ends[k], cmo, r);
        }
    }
    if (m == 0)
        return;
    for (size_t j = m; j < APO_WILDER_OSC_LANES; j++)
        now[j] = before[j] = g[j] = l[j] = 0.0;
    double y[APO_WILDER_OSC_LANES];
    /* Selects on the bits (apo_hd.h): a select of a quotient would keep a branch a lane. */
    for (size_t j = 0; j < APO_WILDER_OSC_LANES; j++) {
        const int ok = apo__finite(now[j]) & apo__finite(before[j]);
        const double d = now[j] - before[j];
        const int falls = d < 0.0;
        const double gain = apo__pick_double(falls, 0.0, d),
                     loss = apo__pick_double(falls, -d, 0.0);
        /* The loop's own step, its seed past (seeded is p, so the step is Wilder's). */
        double g1 = g[j], l1 = l[j];
        size_t seeded = p;
        int ready = 1;
        APO__WILDER_OSC_STEP(seeded, p, g1, l1, gain, loss, pd, keep, ready);
        (void)ready;
        const double s = g1 + l1;
        const double ratio = cmo ? 100.0 * ((g1 - l1) / s) : 100.0 * (g1 / s);
        y[j] = apo__pick_double(ok, apo__pick_double(s == 0.0, 0.0, ratio), (double)NAN);
        g[j] = apo__pick_double(ok, g1, g[j]);
        l[j] = apo__pick_double(ok, l1, l[j]);
    }
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        *lane_out[j] = y[j];
        r->v[0] = g[j];
        r->v[1] = l[j];
        r->t++;
    }
}

#endif /* APO_KERNELS_RSI_STREAM_LANES_H */

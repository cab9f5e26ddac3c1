/*
 * bollinger_stream_lanes.h: a stream's one-bar pieces of bollinger for several series side by
 * side (apo__cpu_bollinger_resume_lanes, dispatch/lanes_dispatch.c; built on each vector path by
 * lanes_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece of a series whose sliding run goes on is one step of apo__bollinger_slide_on:
 * the window's sum, mean, variance and error bound, then a square root for the bands, some 40
 * cycles of dependent operations that one series after another leave the core waiting on
 * (the root most of them). Here the steps of up to APO_BOLLINGER_RESUME_LANES series are taken
 * together, each lane performing apo__bollinger_slide_step's operations and the bands'
 * (apo__bollinger_bands) in the same order (-ffp-contract=off covers vector code too), so the
 * same bits. A lane whose run stops at that bar (its sample out of the run's range, a
 * constant window next, the bound broken) leaves its cursor as it was and its series is then
 * fed alone by apo__bollinger_advance, as the loop would have fed it.
 *
 * Included by lanes_entry.h after lanes.h; builds APO_LANES_NAME(apo__bollinger_stream_lanes), one
 * of the path's entry points (lanes_paths.h).
 */
#ifndef APO_BOLLINGER_RESUME_LANES_H
#define APO_BOLLINGER_RESUME_LANES_H

#include "bollinger.h"
#include "bollinger_tile.h"

/*
 * apo__bollinger_advance(x[l], stops[l], p, nbdev_up, nbdev_dn, cursors[l], upper[l],
 * middle[l], lower[l]) for each of n series of one stream (n <= APO_BOLLINGER_RESUME_LANES;
 * x and the outputs index positions from each series' first bar): a series whose piece is the
 * one bar after a window its run emitted takes that step in a lane; any other runs alone.
 */
void APO_LANES_NAME(apo__bollinger_stream_lanes)(const double *const *x, double *const *upper,
                                                 double *const *middle, double *const *lower,
                                                 apo__bollinger_cursor *const *cursors,
                                                 const size_t *stops, size_t n, size_t p,
                                                 double nbdev_up, double nbdev_dn) {
    enum { L = APO_BOLLINGER_RESUME_LANES };
    const double inv_p = 1.0 / (double)p;
    size_t lane_of[L], m = 0;
    double xn[L], xo[L], shift[L], s[L], c[L], ybar[L], var[L], acc[L];
    int in_range[L], varies[L], changed[L];
    for (size_t k = 0; k < n; k++) {
        const apo__bollinger_cursor *cur = cursors[k];
        const size_t t = cur->t;
        /* The step of slide_on whose last window is t - 1 (p >= 2: a run of windows of one
         * sample is never constant-free). */
        if (p >= 2 && cur->mode == APO_BOLLINGER_RUN && stops[k] == t + 1) {
            const apo__bollinger_run *run = &cur->run;
            xn[m] = x[k][t];
            xo[m] = x[k][t - p];
            in_range[m] = xn[m] >= run->lo && xn[m] <= run->hi;
            changed[m] = xn[m] != x[k][t - 1];
            varies[m] = changed[m] || cur->w.last_change + p > t + 1;
            shift[m] = run->shift;
            s[m] = run->s;
            c[m] = run->c;
            ybar[m] = run->ybar;
            var[m] = run->var;
            acc[m] = run->acc;
            lane_of[m++] = k;
        } else {
            apo__bollinger_advance(x[k], stops[k], p, nbdev_up, nbdev_dn, cursors[k], upper[k],
                                   middle[k], lower[k]);
        }
    }
    if (m == 0)
        return;
    for (size_t j = m; j < L; j++) {
        xn[j] = xo[j] = shift[j] = s[j] = c[j] = ybar[j] = var[j] = acc[j] = 0.0;
        in_range[j] = varies[j] = changed[j] = 0;
    }
    apo__bollinger_next nx[L];
    int goes_on[L];
    double up[L], mid[L], low[L];
    for (size_t j = 0; j < L; j++) {
        const int accurate = apo__bollinger_slide_step(shift[j], s[j], c[j], ybar[j], var[j],
                                                       acc[j], xn[j], xo[j], inv_p, &nx[j]);
        goes_on[j] = in_range[j] & varies[j] & accurate;
        apo__bollinger_bands(shift[j] + nx[j].ybar, nx[j].var, nbdev_up, nbdev_dn, &up[j], &mid[j],
                             &low[j]);
    }
    for (size_t j = 0; j < m; j++) {
        const size_t k = lane_of[j];
        apo__bollinger_cursor *cur = cursors[k];
        if (!goes_on[j]) {
            apo__bollinger_advance(x[k], stops[k], p, nbdev_up, nbdev_dn, cur, upper[k], middle[k],
                                   lower[k]);
            continue;
        }
        const size_t t = cur->t;
        if (changed[j])
            cur->w.last_change = t;
        cur->run.s = nx[j].st;
        cur->run.c = c[j] + nx[j].err;
        cur->run.ybar = nx[j].ybar;
        cur->run.var = nx[j].var;
        cur->run.acc = nx[j].acc;
        upper[k][t] = up[j];
        middle[k][t] = mid[j];
        lower[k][t] = low[j];
        cur->t = t + 1;
    }
}

#endif /* APO_BOLLINGER_RESUME_LANES_H */

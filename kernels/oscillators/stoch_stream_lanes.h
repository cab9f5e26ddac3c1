/*
 * stoch_stream_lanes.h: a stream's one-bar pieces of stoch for several series side by side
 * (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c; built on each vector
 * path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece of stoch at matype 0 (apo__stoch_run, stoch_stream.h) is one chain of
 * dependent operations: fastk (its two quotients), then the mean of the fast values (a
 * double-double sum and its quotient), then the mean of the slow ones; some 250 cycles of
 * latency, which one series after another leave the core waiting on. Here each step is taken
 * for APO_STOCH_LANES series at once, the series in the lanes of the path's vectors (the
 * unused lanes computing zeros), each lane performing apo__stoch_run's operations at that bar
 * in the same order (-ffp-contract=off covers vector code too), so the same bits.
 */
#ifndef APO_KERNELS_STOCH_STREAM_LANES_H
#define APO_KERNELS_STOCH_STREAM_LANES_H

#include "stoch_ma.h"

/* The series taken side by side, and the longest fastk window they take (its highs and lows
 * sit in a stack scratch of that many bars a lane). */
#define APO_STOCH_LANES 8
#define APO_STOCH_LANES_FK 32

/* The means of n values in each lane, v[d][j] lane j's d-th: apo__stoch_mean_of's operations
 * in every lane. */
static inline void apo__stoch_means_lanes(const double (*v)[APO_STOCH_LANES], size_t n,
                                          double *mean) {
    double hi[APO_STOCH_LANES], lo[APO_STOCH_LANES];
    int finite[APO_STOCH_LANES];
    for (size_t j = 0; j < APO_STOCH_LANES; j++) {
        hi[j] = lo[j] = 0.0;
        finite[j] = 1;
    }
    /* Not unrolled: gcc unrolled the lanes' loop first and then left every lane scalar. */
    for (size_t d = 0; d < n; d++)
#pragma GCC unroll 1
        for (size_t j = 0; j < APO_STOCH_LANES; j++) {
            const apo__dd s = apo__dd_add_d(apo__dd_make(hi[j], lo[j]), v[d][j]);
            hi[j] = s.hi;
            lo[j] = s.lo;
            finite[j] &= apo__finite(v[d][j]);
        }
    /* Selects on the bits (apo_hd.h): a select of a quotient would keep a branch a lane. */
    for (size_t j = 0; j < APO_STOCH_LANES; j++) {
        const double q = apo__dd_div_d(apo__dd_make(hi[j], lo[j]), (double)n).hi;
        mean[j] = apo__pick_double(finite[j], q, (double)NAN);
    }
}

/* Lane j's fastk at its bar t[j] (apo__fastk_at's value: its window's highs and lows taken in
 * the same order, NaN unless the close and every high and low are finite), for the m lanes
 * given; the others compute zeros. */
static inline void apo__stoch_fastk_lanes(const apo__cat_io *const *io, const size_t *t, size_t m,
                                          size_t fk, double *fastk) {
    double high[APO_STOCH_LANES_FK][APO_STOCH_LANES], low[APO_STOCH_LANES_FK][APO_STOCH_LANES];
    double close[APO_STOCH_LANES];
    for (size_t j = 0; j < APO_STOCH_LANES; j++) {
        const size_t first = j < m ? t[j] + 1 - fk : 0;
        for (size_t q = 0; q < fk; q++) {
            high[q][j] = j < m ? io[j]->in[0][first + q] : 0.0;
            low[q][j] = j < m ? io[j]->in[1][first + q] : 0.0;
        }
        close[j] = j < m ? io[j]->in[2][t[j]] : 0.0;
    }
    double hh[APO_STOCH_LANES], ll[APO_STOCH_LANES];
    int ok[APO_STOCH_LANES];
    for (size_t j = 0; j < APO_STOCH_LANES; j++) {
        hh[j] = high[0][j];
        ll[j] = low[0][j];
        ok[j] = apo__finite(close[j]) & apo__finite(high[0][j]) & apo__finite(low[0][j]);
    }
    for (size_t q = 1; q < fk; q++)
#pragma GCC unroll 1 /* as in apo__stoch_means_lanes */
        for (size_t j = 0; j < APO_STOCH_LANES; j++) {
            hh[j] = high[q][j] > hh[j] ? high[q][j] : hh[j];
            ll[j] = low[q][j] < ll[j] ? low[q][j] : ll[j];
            ok[j] &= apo__finite(high[q][j]) & apo__finite(low[q][j]);
        }
    /* apo__fastk_of's quotients, its select on the bits (the quotient of a zero range is
     * computed and dropped). */
    for (size_t j = 0; j < APO_STOCH_LANES; j++) {
        const double diff = (hh[j] - ll[j]) / 100.0;
        const double k = apo__pick_double(diff != 0.0, (close[j] - ll[j]) / diff, 0.0);
        fastk[j] = apo__pick_double(ok[j], k, (double)NAN);
    }
}

/*
 * apo__stoch_stream_run(&io[l], begins[l], ends[l], runs[l]) for each of n series of one
 * stream (n <= APO_STOCH_LANES; the same parameters): a series whose piece is one bar past the
 * lookback, its values carried (matype 0, within APO_STOCH_CARRY, fastk's window within
 * APO_STOCH_LANES_FK), takes apo__stoch_run's steps at that bar in a lane; any other series
 * runs alone.
 */
static inline void apo__stoch_run_lanes(const apo__cat_io *io, const size_t *begins,
                                        const size_t *ends, apo__cat_run *const *runs, size_t n) {
    const double *p = io[0].p;
    const size_t fk = (size_t)p[0], sk = (size_t)p[1], sd = (size_t)p[3];
    const size_t lookback = (fk - 1) + (sk - 1) + (sd - 1);
    const int laned =
        apo__stoch_is_sma(p) && (sk - 1) + (sd - 1) <= APO_STOCH_CARRY && fk <= APO_STOCH_LANES_FK;
    const apo__cat_io *lane_io[APO_STOCH_LANES];
    apo__cat_run *lane_run[APO_STOCH_LANES];
    size_t t[APO_STOCH_LANES], m = 0;
    for (size_t l = 0; l < n; l++) {
        const size_t at = runs[l]->t;
        if (laned && runs[l]->n[0] != 0 && ends[l] == at + 1 && at >= lookback) {
            lane_io[m] = &io[l];
            lane_run[m] = runs[l];
            t[m++] = at;
        } else {
            apo__stoch_stream_run(&io[l], begins[l], ends[l], runs[l]);
        }
    }
    if (m == 0)
        return;
    /* fast[q][j]: lane j's fastk at t[j] - sk + 1 + q, slow alike for slowk over sd. */
    double fast[APO_STOCH_CARRY + 1][APO_STOCH_LANES], slow[APO_STOCH_CARRY + 1][APO_STOCH_LANES];
    for (size_t j = 0; j < APO_STOCH_LANES; j++) {
        for (size_t q = 0; q + 1 < sk; q++)
            fast[q][j] = j < m ? lane_run[j]->v[q] : 0.0;
        for (size_t q = 0; q + 1 < sd; q++)
            slow[q][j] = j < m ? lane_run[j]->v[sk - 1 + q] : 0.0;
    }
    apo__stoch_fastk_lanes(lane_io, t, m, fk, fast[sk - 1]);
    double slowd[APO_STOCH_LANES];
    apo__stoch_means_lanes((const double(*)[APO_STOCH_LANES])fast, sk, slow[sd - 1]);
    apo__stoch_means_lanes((const double(*)[APO_STOCH_LANES])slow, sd, slowd);
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        lane_io[j]->out[0][t[j]] = slow[sd - 1][j];
        lane_io[j]->out[1][t[j]] = slowd[j];
        /* The carried values move on a bar, as apo__stoch_shift moves them. */
        for (size_t q = 0; q + 1 < sk; q++)
            r->v[q] = fast[q + 1][j];
        for (size_t q = 0; q + 1 < sd; q++)
            r->v[sk - 1 + q] = slow[q + 1][j];
        r->t = t[j] + 1;
        r->n[0] = 1;
    }
}

#endif /* APO_KERNELS_STOCH_STREAM_LANES_H */

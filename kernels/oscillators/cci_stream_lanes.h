/*
 * cci_stream_lanes.h: a stream's one-bar pieces of CCI for several series side by side
 * (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c; built on each vector
 * path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece of cci whose window was clean (apo__cci_run's step that slides the sum)
 * computes the window's p typical prices again, a division each, and sums their deviations
 * from the mean on a serial chain of TwoSums: some 400 cycles a series at p = 14 on the Zen 4
 * VM, of which one series after another leave most waiting on the chain. Here each step is
 * taken for APO_CCI_LANES series at once, in the lanes of the path's vectors (the unused
 * lanes computing zeros), each lane performing apo__cci_run's operations at its bar in the
 * same order (-ffp-contract=off covers vector code too), the folds of the double-double sums
 * at each lane's own positions by selects, so the same bits.
 */
#ifndef APO_KERNELS_CCI_STREAM_LANES_H
#define APO_KERNELS_CCI_STREAM_LANES_H

#include "cci_tile.h"

/* The series taken side by side, and the longest window they take (its typical prices sit
 * in a stack scratch of that many bars, and the one before, a lane). */
#define APO_CCI_LANES 8
#define APO_CCI_LANES_P 64

/* apo__dd_fold's step at position i, lane by lane: the TwoSum of hi and lo where i is a
 * multiple of APO_DD_FOLD, computed in every lane and kept by a select on the bits. */
static inline void apo__cci_fold_lane(double *hi, double *lo, size_t i) {
    const apo__dd f = apo__two_sum(*hi, *lo);
    const int folds = i % APO_DD_FOLD == 0;
    *hi = apo__pick_double(folds, f.hi, *hi);
    *lo = apo__pick_double(folds, f.lo, *lo);
}

/*
 * apo__cci_stream_run(&io[l], begins[l], ends[l], runs[l]) for each of n series of one stream
 * (n <= APO_CCI_LANES; the same parameters): a series whose piece is its one bar, its window
 * before that bar clean and slid into its sum, the new bar's inputs finite and the period
 * within APO_CCI_LANES_P, takes apo__cci_run's step there in a lane; any other series runs
 * alone.
 */
static APO_CAT_SPECIALISED void apo__cci_run_lanes(const apo__cat_io *io, const size_t *begins,
                                                   const size_t *ends, apo__cat_run *const *runs,
                                                   size_t n) {
    const size_t p = (size_t)io[0].p[0];
    const double pd = (double)p;
    apo__cat_run *lane_run[APO_CCI_LANES];
    double *lane_out[APO_CCI_LANES];
    size_t t[APO_CCI_LANES], m = 0;
    /* tp[q][j]: lane j's typical price at bar t[j] - p + q. */
    double tp[APO_CCI_LANES_P + 1][APO_CCI_LANES];
    for (size_t k = 0; k < n; k++) {
        apo__cat_run *r = runs[k];
        const size_t at = r->t;
        const int laned = p <= APO_CCI_LANES_P && ends[k] == at + 1 && r->n[1] != 0 &&
                          apo__all_finite_at(io[k].in, 3, at) && apo__window_clean(at, p, r->n[0]);
        if (!laned) {
            apo__cci_stream_run(&io[k], begins[k], ends[k], r);
            continue;
        }
        for (size_t q = 0; q <= p; q++)
            tp[q][m] = apo__typical(&io[k], at - p + q);
        lane_run[m] = r;
        lane_out[m] = io[k].out[0] + at;
        t[m++] = at;
    }
    if (m == 0)
        return;
    double s_hi[APO_CCI_LANES], s_lo[APO_CCI_LANES], mean[APO_CCI_LANES];
    double dev_hi[APO_CCI_LANES], dev_lo[APO_CCI_LANES], y[APO_CCI_LANES];
    for (size_t j = 0; j < APO_CCI_LANES; j++) {
        if (j >= m) {
            t[j] = p;
            for (size_t q = 0; q <= p; q++)
                tp[q][j] = 0.0;
        }
        s_hi[j] = j < m ? lane_run[j]->v[0] : 0.0;
        s_lo[j] = j < m ? lane_run[j]->v[1] : 0.0;
    }
    /* The sum slid by the bar in and the one out (apo__dd_slide), its mean (apo__dd_div_d of
     * the settled sum). */
    for (size_t j = 0; j < APO_CCI_LANES; j++) {
        const apo__dd d = apo__two_sum(tp[p][j], -tp[0][j]);
        const apo__dd a = apo__two_sum(s_hi[j], d.hi);
        s_hi[j] = a.hi;
        s_lo[j] = s_lo[j] + (a.lo + d.lo);
        apo__cci_fold_lane(&s_hi[j], &s_lo[j], t[j]);
        mean[j] = apo__dd_div_d(apo__dd_settle(apo__dd_make(s_hi[j], s_lo[j])), pd).hi;
        dev_hi[j] = dev_lo[j] = 0.0;
    }
    /* The deviations gathered in bar order (apo__dd_gather), a step of every lane at a time. */
    for (size_t q = 1; q <= p; q++)
#pragma GCC unroll 1 /* as in apo__stoch_means_lanes: unrolled, gcc left the lanes scalar */
        for (size_t j = 0; j < APO_CCI_LANES; j++) {
            const apo__dd a = apo__two_sum(dev_hi[j], fabs(tp[q][j] - mean[j]));
            dev_hi[j] = a.hi;
            dev_lo[j] = dev_lo[j] + a.lo;
            apo__cci_fold_lane(&dev_hi[j], &dev_lo[j], t[j] - p + q);
        }
    /* The quotient, its selects on the bits (apo_hd.h): a select of a quotient would keep a
     * branch a lane. */
    for (size_t j = 0; j < APO_CCI_LANES; j++) {
        const double md = apo__dd_div_d(apo__dd_settle(apo__dd_make(dev_hi[j], dev_lo[j])), pd).hi;
        const double d = tp[p][j] - mean[j];
        const double cci = d / (0.015 * md);
        y[j] = apo__pick_double(d != 0.0 && md != 0.0, apo__pick_double(cci == cci, cci, NAN), 0.0);
    }
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        *lane_out[j] = y[j];
        r->v[0] = s_hi[j];
        r->v[1] = s_lo[j];
        r->t = t[j] + 1;
        r->n[1] = 1;
    }
}

#endif /* APO_KERNELS_CCI_STREAM_LANES_H */

/*
 * mfi_stream_lanes.h: a stream's one-bar pieces of MFI for several series side by side
 * (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c; built on each vector
 * path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece of mfi at a period up to APO_MFI_DIRECT_MAX sums its own window's flows
 * (apo__mfi_direct_block of one output): p + 1 typical prices, a division each, p flows, their
 * sums over 2 and 4 bars and the window's two sums, a few vectors' work padded with scalar
 * tails that one series after another leave the core waiting on. Here each step is taken for
 * APO_MFI_LANES series at once, in the lanes of the path's vectors (the unused lanes
 * computing zeros), each lane performing the block's operations for its one output in the
 * same order (-ffp-contract=off covers vector code too), so the same bits.
 */
#ifndef APO_KERNELS_MFI_STREAM_LANES_H
#define APO_KERNELS_MFI_STREAM_LANES_H

#include "mfi_tile.h"

/* The series taken side by side. Their window's typical prices and flows sit in a stack
 * scratch of APO_MFI_DIRECT_MAX + 1 bars a lane. */
#define APO_MFI_LANES 8

/* Lane j's sum of its window's p flows f[0 .. p) (f[q][j]): apo__mfi_window_sum's additions
 * for the output k = 0, in every lane. */
static inline void apo__mfi_window_sum_of_lanes(const double (*f)[APO_MFI_LANES], size_t p,
                                                double *sum) {
    const size_t m = p / 4, a = 4 * m;
    for (size_t j = 0; j < APO_MFI_LANES; j++) {
        double tail = 0.0;
        switch (p % 4) {
        case 1:
            tail = f[a][j];
            break;
        case 2:
            tail = f[a][j] + f[a + 1][j];
            break;
        case 3:
            tail = (f[a][j] + f[a + 1][j]) + f[a + 2][j];
            break;
        default:
            break;
        }
        sum[j] = tail;
    }
    if (m == 0)
        return;
    double s[APO_MFI_LANES];
    for (size_t j = 0; j < APO_MFI_LANES; j++)
        s[j] = (f[0][j] + f[1][j]) + (f[2][j] + f[3][j]);
    for (size_t i = 1; i < m; i++)
#pragma GCC unroll 1 /* as in apo__stoch_means_lanes: unrolled, gcc left the lanes scalar */
        for (size_t j = 0; j < APO_MFI_LANES; j++)
            s[j] = s[j] + ((f[4 * i][j] + f[4 * i + 1][j]) + (f[4 * i + 2][j] + f[4 * i + 3][j]));
    for (size_t j = 0; j < APO_MFI_LANES; j++)
        sum[j] = p % 4 != 0 ? s[j] + sum[j] : s[j];
}

/*
 * apo__mfi_stream_run(&io[l], begins[l], ends[l], runs[l]) for each of n series of one stream
 * (n <= APO_MFI_LANES; the same parameters): a series whose piece is its one bar, at a period
 * up to APO_MFI_DIRECT_MAX, whose window of p + 1 bars is clean with that bar (its inputs
 * finite), takes apo__mfi_run_direct's step there in a lane; any other series runs alone.
 */
static APO_CAT_SPECIALISED void apo__mfi_run_lanes(const apo__cat_io *io, const size_t *begins,
                                                   const size_t *ends, apo__cat_run *const *runs,
                                                   size_t n) {
    const size_t p = (size_t)io[0].p[0];
    apo__cat_run *lane_run[APO_MFI_LANES];
    double *lane_out[APO_MFI_LANES];
    size_t t[APO_MFI_LANES], m = 0;
    /* tp[q][j]: lane j's typical price at bar t[j] - p + q; vol[q][j] its volume at bar
     * t[j] - p + 1 + q, whose flow compares tp[q + 1] with tp[q]. */
    double tp[APO_MFI_DIRECT_MAX + 1][APO_MFI_LANES], vol[APO_MFI_DIRECT_MAX][APO_MFI_LANES];
    for (size_t k = 0; k < n; k++) {
        apo__cat_run *r = runs[k];
        const size_t at = r->t;
        const int laned = p <= APO_MFI_DIRECT_MAX && ends[k] == at + 1 &&
                          apo__all_finite_at(io[k].in, 4, at) &&
                          apo__window_clean(at, p + 1, r->n[0]);
        if (!laned) {
            apo__mfi_stream_run(&io[k], begins[k], ends[k], r);
            continue;
        }
        for (size_t q = 0; q <= p; q++)
            tp[q][m] = apo__typical(&io[k], at - p + q);
        for (size_t q = 0; q < p; q++)
            vol[q][m] = io[k].in[3][at - p + 1 + q];
        lane_run[m] = r;
        lane_out[m] = io[k].out[0] + at;
        t[m++] = at;
    }
    if (m == 0)
        return;
    for (size_t j = m; j < APO_MFI_LANES; j++) {
        for (size_t q = 0; q <= p; q++)
            tp[q][j] = 0.0;
        for (size_t q = 0; q < p; q++)
            vol[q][j] = 0.0;
    }
    /* Each bar's flow into pos where its typical price rose, into neg where it fell. */
    double fp[APO_MFI_DIRECT_MAX][APO_MFI_LANES], fn[APO_MFI_DIRECT_MAX][APO_MFI_LANES];
    for (size_t q = 0; q < p; q++)
        for (size_t j = 0; j < APO_MFI_LANES; j++) {
            const double cur = tp[q + 1][j], prev = tp[q][j], flow = cur * vol[q][j];
            fp[q][j] = apo__pick_double(cur > prev, flow, 0.0);
            fn[q][j] = apo__pick_double(cur < prev, flow, 0.0);
        }
    double pos[APO_MFI_LANES], neg[APO_MFI_LANES], y[APO_MFI_LANES];
    apo__mfi_window_sum_of_lanes((const double(*)[APO_MFI_LANES])fp, p, pos);
    apo__mfi_window_sum_of_lanes((const double(*)[APO_MFI_LANES])fn, p, neg);
    /* apo__mfi_quotient, its selects on the bits (apo_hd.h). */
    for (size_t j = 0; j < APO_MFI_LANES; j++) {
        const double total = pos[j] + neg[j], v = 100.0 * (pos[j] / total);
        y[j] = apo__pick_double(total != 0.0, apo__pick_double(v == v, v, NAN), 0.0);
    }
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        *lane_out[j] = y[j];
        r->t = t[j] + 1;
        r->n[1] = 1;
    }
}

#endif /* APO_KERNELS_MFI_STREAM_LANES_H */

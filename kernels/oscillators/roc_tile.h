/*
 * roc_tile.h: ROC(timeperiod) = (x[t] / x[t - p] - 1) * 100, TA-Lib's rate of change,
 * with TA-Lib's 0 where x[t - p] is 0. Halo p; positions t < p are NaN. A non-finite sample
 * at either end is a gap: the output is NaN (the NAN constant, apo_hd.h). ROCP, ROCR and
 * ROCR100, the same change as a ratio, are below.
 */
#ifndef APO_KERNELS_ROC_TILE_H
#define APO_KERNELS_ROC_TILE_H

#include "catalog.h"

static inline APO_HD void apo__roc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p);
    /* Branch-free, so that gcc vectorizes it (mom_tile.h says how): a zero divisor (+0 or
     * -0: its bits shifted left are 0) is replaced by 1 / 1 on the bits, whose change
     * (1 / 1 - 1) * 100 is the +0 stored for it; any other sample pair is divided as it is,
     * and the gap select comes last. The value stored is the same. */
    const uint64_t one = apo__bits_of(1.0);
    for (; t < end; t++) {
        const double cur = x[t], prev = x[t - p];
        const uint64_t prev_bits = apo__bits_of(prev);
        const uint64_t zero = (prev_bits << 1) == 0 ? ~(uint64_t)0 : 0;
        const double num = apo__double_of((apo__bits_of(cur) & ~zero) | (one & zero));
        const double den = apo__double_of((prev_bits & ~zero) | (one & zero));
        const double change = (num / den - 1.0) * 100.0;
        const double gap = (cur - cur) + (prev - prev);
        out[t] = isnan(gap) ? (double)NAN : change;
    }
}

/* The ratios of ROCP, ROCR and ROCR100 (TA-Lib's): (x[t] - x[t - p]) / x[t - p], x[t] / x[t - p]
 * and (x[t] / x[t - p]) * 100, each with TA-Lib's 0 where x[t - p] is 0 (exactly 0: its test of
 * "zero" below 1e-8 is not copied, as roc's) and NaN where either end is a gap. */
enum { APO_ROC_P, APO_ROC_R, APO_ROC_R100 };

/* Branch-free, so that gcc vectorizes it, as roc's loop: a zero divisor (+0 or -0) is replaced by
 * 1 and its numerator by +0 on the bits, so the quotient is the +0 stored for it, and the gap
 * select comes last. Any other pair is divided as it is: the same values as selecting the 0
 * after the division, which left a select on a trapping quotient in the loop and gcc kept it
 * scalar ("control flow in loop": 2 times roc's time at 1e4 bars on the Zen 3 VM, 2026-11-30). */
static APO_CAT_SPECIALISED APO_HD void apo__roc_ratio_tile(const apo__cat_io *io, size_t begin,
                                                           size_t end, int form) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p);
    const uint64_t one = apo__bits_of(1.0);
    for (; t < end; t++) {
        const double cur = x[t], prev = x[t - p];
        const uint64_t prev_bits = apo__bits_of(prev);
        const uint64_t zero = (prev_bits << 1) == 0 ? ~(uint64_t)0 : 0;
        const double top = form == APO_ROC_P ? cur - prev : cur;
        const double num = apo__double_of(apo__bits_of(top) & ~zero);
        const double den = apo__double_of((prev_bits & ~zero) | (one & zero));
        const double ratio = form == APO_ROC_R100 ? (num / den) * 100.0 : num / den;
        const double gap = (cur - cur) + (prev - prev);
        out[t] = isnan(gap) ? (double)NAN : ratio;
    }
}

static inline APO_HD void apo__rocp_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__roc_ratio_tile(io, begin, end, APO_ROC_P);
}

static inline APO_HD void apo__rocr_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__roc_ratio_tile(io, begin, end, APO_ROC_R);
}

static inline APO_HD void apo__rocr100_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__roc_ratio_tile(io, begin, end, APO_ROC_R100);
}

#endif /* APO_KERNELS_ROC_TILE_H */

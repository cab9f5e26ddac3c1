/*
 * window_sum.h: exact-restart sums over a window, for the catalog's sliding bodies.
 */
#ifndef APO_KERNELS_WINDOW_SUM_H
#define APO_KERNELS_WINDOW_SUM_H

#include "dd.h"

/* The double-double sum of x[from .. to), in index order. */
static inline APO_HD apo__dd apo__dd_sum(const double *x, size_t from, size_t to) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = from; i < to; i++)
        s = apo__dd_add_d(s, x[i]);
    return s;
}

/* The double-double sum of x[i]^2 over [from, to), in index order. */
static inline APO_HD apo__dd apo__dd_sum_sq(const double *x, size_t from, size_t to) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = from; i < to; i++)
        s = apo__dd_add(s, apo__two_prod(x[i], x[i]));
    return s;
}

/*
 * Sliding a sum kept as a double-double, cheaply: hi is the running sum in plain double
 * and lo gathers the exact rounding errors of the hi steps (TwoSum), without the
 * renormalisation of apo__dd_add_d after every step. The serial chain per step is then one
 * plain add of hi (the difference of the samples in and out, exact by TwoSum, and lo's add
 * run beside it), where two apo__dd_add_d put about fourteen dependent operations on it.
 * At every sample t that is a multiple of APO_DD_FOLD, lo is folded into hi (TwoSum), so
 * that |lo| stays below about APO_DD_FOLD eps M (eps = 2^-53, M bounding the running sums
 * and the samples). Between folds the sum is unnormalised (|lo| may exceed ulp(hi) / 2);
 * it is read through apo__dd_settle.
 *
 * Accuracy: hi + (exact sum of the errors) is the exact sum, so the only error is lo's own
 * rounding: about eps |lo| per step, so about m APO_DD_FOLD eps^2 M over m steps from an
 * exact restart, APO_DD_FOLD times the bound of a double-double renormalised at every step
 * (m eps^2 M). Without the folds |lo| would grow with m and the bound with m^2, which a
 * variance cancelled to 1e-13 of M (a window of 2 close samples) over a 4096-step tile
 * already shows at 1e-12. The folds sit at fixed sample indices and the bodies restart the
 * sums exactly at each tile's first clean window, so the result stays a pure function of
 * the tile grid (docs/kernels.md, "Sliding windows"). The fold is a branch: taken once in
 * 16 samples, its mispredictions made sma about 40% slower; once in 64, they do not show.
 */
#define APO_DD_FOLD 64

/* s at sample t: folded (lo into hi) where t is a multiple of APO_DD_FOLD. */
static inline APO_HD apo__dd apo__dd_fold(apo__dd s, size_t t) {
    return t % APO_DD_FOLD == 0 ? apo__two_sum(s.hi, s.lo) : s;
}

/* s + in - out, the sum slid to sample t by one sample in and one out: in - out = d + e
 * exactly, computed off the chain, so hi takes one add per step. */
static inline APO_HD apo__dd apo__dd_slide(apo__dd s, double in, double out, size_t t) {
    const apo__dd d = apo__two_sum(in, -out);
    const apo__dd a = apo__two_sum(s.hi, d.hi);
    return apo__dd_fold(apo__dd_make(a.hi, s.lo + (a.lo + d.lo)), t);
}

/* s + in - out with double-double terms (exact products: apo__two_prod). */
static inline APO_HD apo__dd apo__dd_slide_dd(apo__dd s, apo__dd in, apo__dd out, size_t t) {
    const apo__dd d = apo__two_sum(in.hi, -out.hi);
    const apo__dd a = apo__two_sum(s.hi, d.hi);
    return apo__dd_fold(apo__dd_make(a.hi, s.lo + ((a.lo + d.lo) + (in.lo - out.lo))), t);
}

/* s + x, the sum gathered to term i, one term in and none out, the same way. */
static inline APO_HD apo__dd apo__dd_gather(apo__dd s, double x, size_t i) {
    const apo__dd a = apo__two_sum(s.hi, x);
    return apo__dd_fold(apo__dd_make(a.hi, s.lo + a.lo), i);
}

/* The normalised double-double of a slid sum: TwoSum, which, unlike Dekker's quick sum,
 * is exact whichever of hi and lo is larger (after a cancellation, lo can be). */
static inline APO_HD apo__dd apo__dd_settle(apo__dd s) { return apo__two_sum(s.hi, s.lo); }

#endif /* APO_KERNELS_WINDOW_SUM_H */

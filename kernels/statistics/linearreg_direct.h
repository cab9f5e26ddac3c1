/*
 * linearreg_direct.h: LINEARREG and LINEARREG_SLOPE of short windows, each output evaluated
 * from its own window as one weighted sum, with no state carried from bar to bar.
 *
 * Why: the window's two sums slid as double-doubles (linearreg_tile.h) keep their digits
 * but put TwoSums on every step (about 12 ns a bar); slid in plain double, the slope's
 * numerator W - ((p-1)/2) S loses them to cancellation, and an error from a far larger
 * sample that has left the window stays in the sums. Written out, both outputs are linear
 * in the window's samples y_j (j = 0 oldest .. p-1 newest) with integer weights:
 *   slope = sum (2j - (p-1)) y_j / (p (p^2 - 1) / 6),
 *   value = sum (6j - 2p + 4) y_j / (p (p + 1))        (the mean plus the slope times (p-1)/2),
 *   and so the intercept and tsf (the line at the window's start and one bar past its end).
 * The weights are exact in double, so each output is p products and p additions in index
 * order and one product by the divisor's reciprocal: within about 3 p eps of the window's
 * largest |y| for the value and of that over p for the slope (the test's scales;
 * docs/kernels.md, "Accuracy"), whatever came before the window.
 *
 * Each output is a function of its window alone, so the bits do not depend on the tiles, a
 * stream's state or the device; a window holding a non-finite sample sums to a non-finite
 * value (an infinity times a weight, or NaN), stored as NaN, which is the gap rule of
 * window.h without tracking the gaps.
 *
 * Speed: consecutive bars sit in the vector lanes (APO_TILE_LANES), and APO_LINREG_GROUPS
 * such groups advance side by side, so that the adds' latency is hidden behind independent
 * chains: about p / 8 cycles a bar on avx2 (docs/PERF.md). Each lane performs the scalar
 * loop's operations in its order, so every path gives the same bits.
 */
#ifndef APO_KERNELS_LINEARREG_DIRECT_H
#define APO_KERNELS_LINEARREG_DIRECT_H

#include "catalog.h"
#include "tile_vec.h"
#include "trig.h"
#include "trig_tv.h"

/* The longest window evaluated directly: its cost grows with p (p / 8 cycles a bar); past this
 * the shifted plain sums slid between anchors (linearreg_plain.h) cost less: at period 24 both
 * ran at 1.1 of Tulip's speed, at 32 they were 1.10 where these were 0.91, at 17 1.16 against
 * 1.56 (docs/PERF.md). */
#define APO_LINEARREG_DIRECT_MAX 24

/* Groups of APO_TILE_LANES consecutive bars summed side by side. */
#define APO_LINREG_GROUPS 8

/* Which output of the window's least-squares line a body gives (the `what` of the bodies): its
 * slope, or its value at bar a of the window (j = 0 oldest): LINEARREG at its end (a = p - 1),
 * LINEARREG_INTERCEPT at its start (a = 0), TSF one bar past its end (a = p). The value at a is
 * the mean plus the slope times (a - (p-1)/2). */
enum {
    APO_LINREG_SLOPE = 0,
    APO_LINREG_VALUE = 1,
    APO_LINREG_INTERCEPT = 2,
    APO_LINREG_TSF = 3,
    APO_LINREG_ANGLE = 4 /* LINEARREG_ANGLE: the slope's angle in degrees (apo__linreg_finish) */
};

/* Degrees in a radian, rounded once (TA-Lib's 180.0 / PI). */
#define APO_LINREG_DEGREES (180.0 / 3.14159265358979323846)

/* LINEARREG_ANGLE, TA-Lib's: atan(slope) times APO_LINREG_DEGREES, atan the portable one of
 * trig.h (libm's may differ between the CPU and the GPU); every other output as it is. A gap's
 * NaN stays NaN. */
static inline APO_HD double apo__linreg_finish(double v, int what) {
    return what == APO_LINREG_ANGLE ? apo__atan(v) * APO_LINREG_DEGREES : v;
}

/* The integer weight of sample j: the slope's 2j - (p-1), the value's 6j - 2p + 4, the
 * intercept's 4p - 2 - 6j, tsf's 6j - 2p + 2. The first weight and the step between weights,
 * both exact. */
static inline APO_HD double apo__linreg_weight0(double pd, int what) {
    switch (what) {
    case APO_LINREG_VALUE:
        return 4.0 - 2.0 * pd;
    case APO_LINREG_INTERCEPT:
        return 4.0 * pd - 2.0;
    case APO_LINREG_TSF:
        return 2.0 - 2.0 * pd;
    default:
        return 1.0 - pd;
    }
}

static inline APO_HD double apo__linreg_weight_step(int what) {
    return what == APO_LINREG_SLOPE || what == APO_LINREG_ANGLE ? 2.0
           : what == APO_LINREG_INTERCEPT                       ? -6.0
                                                                : 6.0;
}

/* The reciprocal of the divisor: 6 / (p (p^2 - 1)) for the slope, 1 / (p (p + 1)) for the value
 * and the intercept, 1 / (p (p - 1)) for tsf. */
static inline APO_HD double apo__linreg_scale(double pd, int what) {
    switch (what) {
    case APO_LINREG_SLOPE:
    case APO_LINREG_ANGLE:
        return 6.0 / (pd * (pd * pd - 1.0));
    case APO_LINREG_TSF:
        return 1.0 / (pd * (pd - 1.0));
    default:
        return 1.0 / (pd * (pd + 1.0));
    }
}

/* The output of the window of p samples ending at t (t >= p - 1). */
static inline APO_HD double apo__linreg_direct_at(const double *x, size_t p, size_t t, int what) {
    const double *const y = x + t + 1 - p;
    const double step = apo__linreg_weight_step(what);
    double weight = apo__linreg_weight0((double)p, what), sum = 0.0;
    for (size_t j = 0; j < p; j++) {
        sum = sum + weight * y[j];
        weight += step;
    }
    const double r = sum * apo__linreg_scale((double)p, what);
    return apo__finite(r) ? apo__linreg_finish(r, what) : (double)NAN;
}

#ifdef APO_TILE_LANES
/* The bars t .. t + APO_LINREG_GROUPS * APO_TILE_LANES - 1 (all t >= p - 1), into out: the
 * scalar loop's operations, lane by lane. */
static inline void apo__linreg_direct_groups(const double *x, size_t p, size_t t, int what,
                                             double *out) {
    const double *const y = x + t + 1 - p;
    const double step = apo__linreg_weight_step(what);
    double weight = apo__linreg_weight0((double)p, what);
    apo_tv sum[APO_LINREG_GROUPS];
    for (int g = 0; g < APO_LINREG_GROUPS; g++)
        sum[g] = apo_tv_splat(0.0);
    for (size_t j = 0; j < p; j++) {
        const apo_tv w = apo_tv_splat(weight);
        /* Unrolled, so that the sums stay in registers rather than an array in memory. */
#pragma GCC unroll 8
        for (int g = 0; g < APO_LINREG_GROUPS; g++)
            sum[g] = sum[g] + w * apo_tv_load(y + j + (size_t)g * APO_TILE_LANES);
        weight += step;
    }
    const apo_tv scale = apo_tv_splat(apo__linreg_scale((double)p, what));
    const apo_tv big = apo_tv_splat(DBL_MAX), nan = apo_tv_splat(NAN);
    for (int g = 0; g < APO_LINREG_GROUPS; g++) {
        const apo_tv r = sum[g] * scale;
        /* Both comparisons are false for NaN, one of them for an infinity: such lanes store
         * NaN. */
        const apo_tm finite = (apo_tm)(r <= big) & (apo_tm)(r >= -big);
        apo_tv_store(out + t + (size_t)g * APO_TILE_LANES, apo_tv_pick(finite, r, nan));
    }
    /* The angles in lanes too (trig_tv.h: apo__atan's bits, every arm in every lane): a scalar
     * apo__atan a bar was most of the kernel's time (linearreg_slope, the same windows, took a
     * twentieth of it: docs/kernels/talib.md). */
    if (what == APO_LINREG_ANGLE)
        for (size_t k = 0; k < (size_t)APO_LINREG_GROUPS * APO_TILE_LANES; k += APO_TILE_LANES)
            apo_tv_store(out + t + k,
                         apo__atan_small_tv(apo_tv_load(out + t + k)) * APO_LINREG_DEGREES);
}
#endif

/* The bars from r->t to end (before p - 1: NaN), each from its window; r keeps only the
 * position (the outputs carry nothing from bar to bar). */
static inline APO_HD void apo__linreg_direct_run(const double *x, size_t p, int what, size_t end,
                                                 double *out, apo__cat_run *r) {
    size_t t = apo__cat_nan_lead(out, r->t, end, p - 1);
#ifdef APO_TILE_LANES
    const size_t span = (size_t)APO_LINREG_GROUPS * APO_TILE_LANES;
    for (; t < end && end - t >= span; t += span)
        apo__linreg_direct_groups(x, p, t, what, out);
#endif
    for (; t < end; t++)
        out[t] = apo__linreg_direct_at(x, p, t, what);
    r->t = end > r->t ? end : r->t;
}

#endif /* APO_KERNELS_LINEARREG_DIRECT_H */

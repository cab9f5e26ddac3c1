/*
 * bollinger.c: Bollinger bands, one tile of one series per call.
 *
 * What: for each t in [begin, end) with t >= period - 1, the window W_t = x[t-period+1 .. t]
 * gives middle = mean(W_t), sd = population standard deviation of W_t, upper = middle +
 * nbdev_up * sd and lower = middle - nbdev_dn * sd; earlier positions are NaN.
 *
 * Tile shape: tiles of apo_bollinger_tile_len(period) = max(4096, 16 * period) outputs; a
 * tile reads its own samples plus a halo of period - 1 samples before `begin`.
 *
 * Algorithm: a run starts with an exact evaluation of its first window (compensated sum,
 * then a second pass for the squared deviations) and then slides. The sliding state is kept
 * for y = x - K, K the rounded mean of the run's first window (exact by Sterbenz's lemma
 * while the samples stay within [K/2, 2K]): the window sum of y as an unevaluated pair
 * s + c updated with TwoSum, so the mean is within about an ulp, and M2 by the sliding
 * Welford update M2 += (y_new - y_old) * ((y_new - ybar_new) + (y_old - ybar_old)), which
 * never forms E[x^2] - mean^2 and so does not cancel. A running bound on the rounding error
 * of M2 ends the run (and the next window is evaluated exactly) before the sliding error
 * can exceed 2^-36 of M2, so the accuracy holds for every window, including windows whose
 * variance is tiny next to their neighbours'. Runs also end at every tile boundary.
 * Constant windows (tracked through the last index where x changes) are emitted exactly:
 * sd = 0 and bands = middle = the constant. Counts of NaN, +inf and -inf inside the window
 * drive the non-finite policy; a window that becomes clean again starts a new run.
 *
 * Determinism: every output is a function of x and of the tile's `begin` only; there is no
 * state shared between tiles and the operation order is fixed (built with
 * -ffp-contract=off), so any assignment of tiles to devices or threads gives the same bits.
 */
#include "kernels.h"

#include <assert.h>
#include <float.h>
#include <math.h>

size_t apo_bollinger_tile_len(size_t period) {
    size_t len = 16 * period;
    return len > 4096 ? len : 4096;
}

/* Counts of non-finite samples inside the window, and the last index k (0 if none yet) with
 * x[k] != x[k-1]: the window ending at t is constant exactly when last_change <= t + 1 - p,
 * which costs one comparison per sample to maintain (NaN compares unequal, so a NaN never
 * looks constant). */
typedef struct window_counts {
    size_t nan, pinf, ninf;
    size_t last_change;
} window_counts;

static int window_is_constant(const window_counts *w, size_t t, size_t p) {
    return w->last_change + p <= t + 1;
}

static void count_sample(window_counts *w, double v, int sign) {
    /* The sign is +1 for a sample entering the window and -1 for one leaving it; size_t
     * arithmetic wraps, and the counts never go below zero, so adding (size_t)-1 is exact. */
    size_t d = (size_t)(ptrdiff_t)sign;
    if (isnan(v)) {
        w->nan += d;
    } else if (v == INFINITY) {
        w->pinf += d;
    } else if (v == -INFINITY) {
        w->ninf += d;
    }
}

/* Moves the counts from the window ending at t - 1 to the window ending at t (t >= p). */
static void slide_counts(window_counts *w, const double *x, size_t t, size_t p) {
    count_sample(w, x[t], 1);
    count_sample(w, x[t - p], -1);
    if (x[t] != x[t - 1]) {
        w->last_change = t;
    }
}

static void emit_nan(size_t t, double *upper, double *middle, double *lower) {
    upper[t] = NAN;
    middle[t] = NAN;
    lower[t] = NAN;
}

/* The running sum is the unevaluated pair s + c; TwoSum keeps it exact up to the final
 * rounding of c, whatever the magnitudes of its terms. */
static inline void two_sum_add(double *s, double *c, double v) {
    double t = *s + v;
    double bv = t - *s;
    double err = (*s - (t - bv)) + (v - bv);
    *s = t;
    *c += err;
}

/*
 * Evaluates the clean, non-constant window ending at *t exactly, then slides forward while
 * that stays accurate, and leaves *t at the last window emitted. The caller re-evaluates
 * the next window from scratch whenever this returns early: a non-finite or out-of-range
 * incoming sample, a constant next window, or an error bound that got too large.
 *
 * Shift: the state is kept for y = x - K, where K is the rounded mean of the window that
 * started the run. While every sample lies in [K/2, 2K] (checked on entry) Sterbenz's
 * lemma makes y exact, so the sums see the data exactly and the mean's rounding error is
 * relative to the small |mean(y)| rather than to |mean(x)|. If a window of the restart
 * does not fit that range, K = 0 (y = x), which is exact and merely restarts more often.
 *
 * Error bound: each update adds at most about 8u |d| (|a| + |b| + 2|ybar|) to the error of
 * M2 (u = 2^-53; d, a, b as in the code). `acc` sums |d| (|a| + |b| + 2|ybar|), and when
 * acc * 8u exceeds 2^-36 M2 the run stops and the next window is re-evaluated, so the
 * sliding part of the relative error of M2 stays below 2^-36 (about 7e-12 on sd).
 */
static void slide_run(const double *x, size_t end, size_t p, double nbdev_up, double nbdev_dn,
                      window_counts *w, size_t *tp, double *upper, double *middle, double *lower) {
    const double pd = (double)p;
    /* The sliding loop multiplies by 1/p instead of dividing: one more rounding (covered by
     * the error bound) for a much cheaper instruction. The exact evaluation divides. */
    const double inv_p = 1.0 / pd;
    size_t t = *tp;
    const double *win = x + (t + 1 - p);

    /* Exact evaluation: compensated sum for the shift, then the window in y. */
    double s = 0.0, c = 0.0;
    for (size_t k = 0; k < p; ++k) {
        two_sum_add(&s, &c, win[k]);
    }
    double shift = (s + c) / pd;
    double lo = shift > 0.0 ? 0.5 * shift : 2.0 * shift;
    double hi = shift > 0.0 ? 2.0 * shift : 0.5 * shift;
    int in_range = shift != 0.0;
    for (size_t k = 0; k < p && in_range; ++k) {
        in_range = win[k] >= lo && win[k] <= hi;
    }
    if (!in_range) {
        shift = 0.0;
        lo = -DBL_MAX;
        hi = DBL_MAX;
    }
    s = 0.0;
    c = 0.0;
    for (size_t k = 0; k < p; ++k) {
        two_sum_add(&s, &c, win[k] - shift);
    }
    double ybar = (s + c) / pd;
    double m2 = 0.0;
    for (size_t k = 0; k < p; ++k) {
        const double dev = (win[k] - shift) - ybar;
        m2 += dev * dev;
    }
    double sd = sqrt(m2 / pd);
    double mean = shift + ybar;
    upper[t] = mean + nbdev_up * sd;
    middle[t] = mean;
    lower[t] = mean - nbdev_dn * sd;

    const double limit = 16384.0; /* 2^-36 / (8 * 2^-53) */
    double acc = 0.0;
    while (t + 1 < end) {
        const double xn = x[t + 1];
        /* Also rejects NaN and, since the range is finite, infinities. */
        if (!(xn >= lo && xn <= hi)) {
            break;
        }
        const double xo = x[t + 1 - p];
        /* The next window is constant when no change entered it; a change entering now
         * makes it non-constant (p >= 2 here, or the window could not be non-constant). */
        const int changed = xn != x[t];
        if (!changed && w->last_change + p <= t + 2) {
            break;
        }

        /* d = yn - yo rounded, with its exact error; then s + c += d. */
        const double yn = xn - shift;
        const double yo = xo - shift;
        const double d = yn - yo;
        const double bd = d - yn;
        const double ed = (yn - (d - bd)) + (-yo - bd);
        const double st = s + d;
        const double bs = st - s;
        const double es = (s - (st - bs)) + (d - bs);

        const double ybar_new = (st + (c + (ed + es))) * inv_p;
        const double a = yn - ybar_new;
        const double b = yo - ybar;
        const double m2_new = m2 + d * (a + b);
        const double acc_new = acc + fabs(d) * ((fabs(a) + fabs(b)) + 2.0 * fabs(ybar_new));
        if (!(acc_new <= limit * m2_new)) {
            break;
        }

        ++t;
        if (changed) {
            w->last_change = t;
        }
        s = st;
        c = c + (ed + es);
        ybar = ybar_new;
        m2 = m2_new;
        acc = acc_new;

        sd = sqrt(m2 * inv_p);
        mean = shift + ybar;
        upper[t] = mean + nbdev_up * sd;
        middle[t] = mean;
        lower[t] = mean - nbdev_dn * sd;
    }
    *tp = t;
}

void apo_bollinger_tile(const double *x, size_t n, size_t begin, size_t end, size_t period,
                        double nbdev_up, double nbdev_dn, double *upper, double *middle,
                        double *lower) {
    assert(x != NULL && upper != NULL && middle != NULL && lower != NULL);
    assert(period >= 1);
    assert(begin < end && end <= n);
    (void)n;

    const size_t p = period;
    const size_t i0 = begin > p - 1 ? begin : p - 1;
    for (size_t t = begin; t < end && t < i0; ++t) {
        emit_nan(t, upper, middle, lower);
    }
    if (i0 >= end) {
        return;
    }

    /* Counts for the first window, evaluated directly. */
    window_counts w = {0, 0, 0, 0};
    for (size_t k = i0 + 1 - p; k <= i0; ++k) {
        count_sample(&w, x[k], 1);
        if (k > i0 + 1 - p && x[k] != x[k - 1]) {
            w.last_change = k;
        }
    }

    size_t t = i0;
    for (;;) {
        if (w.nan + w.pinf + w.ninf > 0) {
            /* A NaN, or infinities of both signs, make the mean undefined; infinities of one
             * sign make it that infinity. The deviation is undefined either way. */
            double mid;
            if (w.nan > 0 || (w.pinf > 0 && w.ninf > 0)) {
                mid = NAN;
            } else {
                mid = w.pinf > 0 ? INFINITY : -INFINITY;
            }
            upper[t] = NAN;
            middle[t] = mid;
            lower[t] = NAN;
        } else if (window_is_constant(&w, t, p)) {
            /* All samples of the window are equal: the exact answer needs no arithmetic. */
            upper[t] = x[t];
            middle[t] = x[t];
            lower[t] = x[t];
        } else {
            slide_run(x, end, p, nbdev_up, nbdev_dn, &w, &t, upper, middle, lower);
        }

        ++t;
        if (t >= end) {
            break;
        }
        slide_counts(&w, x, t, p);
    }
}

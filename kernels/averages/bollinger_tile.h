/*
 * bollinger_tile.h: the arithmetic of one Bollinger tile, shared by the CPU kernel
 * (bollinger.c, apo__cpu_bollinger_tile) and the CUDA kernel (bollinger.cu).
 *
 * What: for each t in [begin, end) with t >= period - 1, the window W_t = x[t-period+1 .. t]
 * gives middle = mean(W_t), sd = population standard deviation of W_t, upper = middle +
 * nbdev_up * sd and lower = middle - nbdev_dn * sd; earlier positions are NaN. The
 * algorithm (exact restart, shifted TwoSum window sum, sliding Welford update of the variance
 * with a running error bound, exact constant windows, non-finite counts) is described in
 * docs/kernels.md ("bollinger").
 *
 * Tile shape: one call computes one tile [begin, end) of one row, reading x from
 * max(0, begin - (period - 1)); x is indexed absolutely from the row's index 0, and the
 * outputs are written at absolute positions begin .. end - 1 only.
 *
 * Determinism: every output is a function of x, the parameters and the tile's `begin`
 * only, computed in a fixed order with IEEE +, -, *, / and sqrt, fabs and comparisons
 * (apo_hd.h): no transcendental, no FMA contraction on either compiler, no state shared
 * between tiles. The constants written for NaN and infinite windows are the NAN and
 * INFINITY macros, the same bits on both sides. The CPU and the GPU therefore give the same
 * bits, and any assignment of tiles to devices or threads does too. A window of finite
 * samples whose sum or M2 overflows (|x| near DBL_MAX / period, or nbdev 0 times an
 * infinite sd) gets a NaN from arithmetic: the bands pass through apo__canonical_nan()
 * (apo_hd.h), so that NaN is stored as the NAN constant on both sides too.
 */
#ifndef APO_BOLLINGER_TILE_H
#define APO_BOLLINGER_TILE_H

#include "apo_hd.h"

/*
 * How a window reaches the outputs. Every store of the tile goes through these three, so a
 * file that wants the windows in another form defines all three before it includes this
 * header and gets the same windows, computed by the same operations: bollinger_pass.c
 * stores each window's mean and standard deviation once for every band width (the shared
 * pass of a scored sweep, docs/scores.md "Scores"), and the split staged kernel of the GPU its
 * mean and variance (kernels/cuda/bollinger_split.h). By default they store the bands:
 *   - BANDS: a window with a mean and a variance: middle +- nbdev * sqrt(variance)
 *     (apo__bollinger_bands); the root is taken by the store, so that a form that stores the
 *     variance leaves it to code off the sliding chain (kernels/cuda/bollinger_split.h);
 *   - FLAT: a constant window, whose bands and middle are the constant itself;
 *   - UNDEF: no deviation (the warm-up, a window with a non-finite sample): the bands are
 *     NaN and the middle is `mid`.
 */
/* The bands of a window with mean `mean` and variance `var`: every form that stores bands takes
 * them from here, so that they have one sequence of operations. NaN canonicalisation
 * (apo_hd.h): nbdev 0 times an sd that overflowed is a NaN. */
static inline APO_HD void apo__bollinger_bands(double mean, double var, double nbdev_up,
                                               double nbdev_dn, double *upper, double *middle,
                                               double *lower) {
    const double sd = sqrt(var);
    *upper = apo__canonical_nan(mean + nbdev_up * sd);
    *middle = apo__canonical_nan(mean);
    *lower = apo__canonical_nan(mean - nbdev_dn * sd);
}

#ifndef APO_BOLLINGER_PUT_BANDS
#define APO_BOLLINGER_PUT_BANDS(upper, middle, lower, t, mean, var, nbdev_up, nbdev_dn)            \
    do {                                                                                           \
        double up_, mid_, low_;                                                                    \
        apo__bollinger_bands((mean), (var), (nbdev_up), (nbdev_dn), &up_, &mid_, &low_);           \
        APO_OUT(upper, t) = up_;                                                                   \
        APO_OUT(middle, t) = mid_;                                                                 \
        APO_OUT(lower, t) = low_;                                                                  \
    } while (0)
#define APO_BOLLINGER_PUT_FLAT(upper, middle, lower, t, v)                                         \
    do {                                                                                           \
        APO_OUT(upper, t) = (v);                                                                   \
        APO_OUT(middle, t) = (v);                                                                  \
        APO_OUT(lower, t) = (v);                                                                   \
    } while (0)
#define APO_BOLLINGER_PUT_UNDEF(upper, middle, lower, t, mid)                                      \
    do {                                                                                           \
        APO_OUT(upper, t) = NAN;                                                                   \
        APO_OUT(middle, t) = (mid);                                                                \
        APO_OUT(lower, t) = NAN;                                                                   \
    } while (0)
#endif

/*
 * Where a sliding step leaves the run for a reason known before its arithmetic (a sample out
 * of range, a constant next window). The CPU leaves there, as soon as the reason is known: its
 * branches are predicted and cost next to nothing. Device code (the CUDA kernels, and the
 * staged kernels' host emulation, which defines APO_STAGED_ACCESS) computes the step whatever
 * the samples and tests the three reasons once, after the arithmetic, which throws away what a
 * step that stops computed (the state is committed after the test): the step's three reads
 * then go out together, where each waited on the branch before it (docs/cuda.md, "The staged
 * kernels' steps"). The outputs are the same: a step that goes on has passed the three
 * tests either way.
 */
#if defined(__CUDA_ARCH__) || defined(APO_STAGED_ACCESS)
#define APO_BOLLINGER_EARLY_EXIT(ok) ((void)0)
#else
#define APO_BOLLINGER_EARLY_EXIT(ok)                                                               \
    if (!(ok))                                                                                     \
    break
#endif

/* Counts of non-finite samples inside the window, and the last index k (0 if none yet) with
 * x[k] != x[k-1]: the window ending at t is constant exactly when last_change <= t + 1 - p,
 * which costs one comparison per sample to maintain (NaN compares unequal, so a NaN never
 * looks constant). */
typedef struct apo__bollinger_counts {
    size_t nan, pinf, ninf;
    size_t last_change;
} apo__bollinger_counts;

static inline APO_HD int apo__bollinger_is_constant(const apo__bollinger_counts *w, size_t t,
                                                    size_t p) {
    return w->last_change + p <= t + 1;
}

static inline APO_HD void apo__bollinger_count(apo__bollinger_counts *w, double v, int sign) {
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
static inline APO_HD void apo__bollinger_slide_counts(apo__bollinger_counts *w, apo__in x, size_t t,
                                                      size_t p) {
    apo__bollinger_count(w, APO_IN(x, t), 1);
    apo__bollinger_count(w, APO_IN(x, t - p), -1);
    if (APO_IN(x, t) != APO_IN(x, t - 1)) {
        w->last_change = t;
    }
}

/* The state of a sliding run after a window: the shift K and the range [lo, hi] in which
 * samples keep x - K and their differences exact, the window sum of y = x - K as the pair
 * s + c, its mean ybar, the population variance var (M2 / p) and the accumulated error
 * bound acc (see apo__bollinger_slide_run). */
typedef struct apo__bollinger_run {
    double shift, lo, hi;
    double s, c, ybar, var, acc;
} apo__bollinger_run;

/* The running sum is the unevaluated pair s + c; TwoSum keeps it exact up to the final
 * rounding of c, whatever the magnitudes of its terms. */
static inline APO_HD void apo__bollinger_two_sum_add(double *s, double *c, double v) {
    double t = *s + v;
    double bv = t - *s;
    double err = (*s - (t - bv)) + (v - bv);
    *s = t;
    *c += err;
}

/* What one sliding step computes (apo__bollinger_slide_step): the new window's sum st, the
 * errors of the step's two additions (ed + es), which join the compensation after the mean
 * takes it, the mean, the variance and the error bound. */
typedef struct apo__bollinger_next {
    double st, err, ybar, var, acc;
} apo__bollinger_next;

/* The error bound's limit on acc / var: 2^-34 / (8 * 2^-53), see apo__bollinger_slide_run. */
#define APO_BOLLINGER_LIMIT 65536.0

/*
 * The arithmetic of one step of a sliding run from the window before (its shift, sum s + c,
 * mean ybar, variance var and bound acc) to the window that xn enters and xo leaves, into *nx;
 * returns whether the bound holds there. The run's loop (apo__bollinger_slide_on) and a
 * stream's steps of several series side by side (bollinger_stream_lanes.h) both take it, so
 * they perform the same operations in the same order.
 */
static inline APO_HD int apo__bollinger_slide_step(double shift, double s, double c, double ybar,
                                                   double var, double acc, double xn, double xo,
                                                   double inv_p, apo__bollinger_next *nx) {
    /* d = xn - xo rounded, with its exact error ed, which is +0 in a shifted run (both
     * samples lie in [lo, hi], within a factor 2 of each other: Sterbenz); then the sum
     * s + c += d, st and es being the new s and its exact error. */
    const double d = xn - xo;
    const double bd = d - xn;
    const double ed = (xn - (d - bd)) + (-xo - bd);
    const double st = s + d;
    const double bs = st - s;
    const double es = (s - (st - bs)) + (d - bs);

    /* The mean takes the compensation c of the windows before this one; this step's
     * errors ed + es join c after (bollinger_lanes.h relies on that order). Keeping them
     * off the path from the samples to the mean and the variance is what makes the step
     * fast; the mean is then one rounding of the sum less exact, which the bound
     * covers. */
    const double ybar_new = (st + c) * inv_p;
    const double yn = xn - shift;
    const double yo = xo - shift;
    const double dp = d * inv_p;
    const double a = yn - ybar_new;
    const double b = yo - ybar;
    nx->st = st;
    nx->err = ed + es;
    nx->ybar = ybar_new;
    nx->var = var + dp * (a + b);
    nx->acc = acc + fabs(dp) * ((fabs(a) + fabs(b)) + 2.0 * fabs(ybar_new));
    return nx->acc <= APO_BOLLINGER_LIMIT * nx->var;
}

/*
 * Slides the run whose state is *run, whose last window is *tp, forward while that stays
 * accurate (the rules of apo__bollinger_slide_run below), up to `end` (exclusive), and leaves
 * *tp at the last window emitted and *run at its state. Stopping at `end` is not a break:
 * called again with the same state and a later end, it goes on exactly as one call with
 * that end would have (the staged CUDA kernel slides a run across its segments this way).
 */
static inline APO_HD void apo__bollinger_slide_on(apo__in x, size_t end, size_t p, double nbdev_up,
                                                  double nbdev_dn, apo__bollinger_counts *w,
                                                  size_t *tp, apo__bollinger_run *run,
                                                  apo__out upper, apo__out middle, apo__out lower) {
    /* The sliding loop multiplies by 1/p instead of dividing: one more rounding (covered by
     * the error bound) for a much cheaper instruction. The exact evaluation divides. */
    const double inv_p = 1.0 / (double)p;
    const double shift = run->shift, lo = run->lo, hi = run->hi;
    double s = run->s, c = run->c, ybar = run->ybar, var = run->var, acc = run->acc;
    size_t t = *tp;

    while (t + 1 < end) {
        /* The run goes on while the entering sample is in range (which also rejects NaN and,
         * since the range is finite, infinities), the next window is not constant (a change
         * entering now makes it non-constant; p >= 2 here, or the window could not be
         * non-constant), and the error bound holds (apo__bollinger_slide_step). */
        const double xn = APO_IN(x, t + 1);
        const int in_range = xn >= lo && xn <= hi;
        APO_BOLLINGER_EARLY_EXIT(in_range);
        const double xo = APO_IN(x, t + 1 - p);
        const int changed = xn != APO_IN(x, t);
        const int varies = changed || w->last_change + p > t + 2;
        APO_BOLLINGER_EARLY_EXIT(varies);

        apo__bollinger_next nx;
        const int accurate =
            apo__bollinger_slide_step(shift, s, c, ybar, var, acc, xn, xo, inv_p, &nx);
        if (!(in_range & varies & accurate)) {
            break;
        }

        ++t;
        if (changed) {
            w->last_change = t;
        }
        s = nx.st;
        c = c + nx.err;
        ybar = nx.ybar;
        var = nx.var;
        acc = nx.acc;

        const double mean = shift + ybar;
        APO_BOLLINGER_PUT_BANDS(upper, middle, lower, t, mean, var, nbdev_up, nbdev_dn);
    }
    *tp = t;

    run->s = s;
    run->c = c;
    run->ybar = ybar;
    run->var = var;
    run->acc = acc;
}

/*
 * Evaluates the clean, non-constant window ending at *tp exactly, then slides forward while
 * that stays accurate (apo__bollinger_slide_on), and leaves *tp at the last window emitted.
 * The caller re-evaluates the next window from scratch whenever this returns early: a
 * non-finite or out-of-range incoming sample, a constant next window, or an error bound
 * that got too large.
 *
 * Shift: the state is kept for y = x - K, where K is the rounded mean of the window that
 * started the run. While every sample lies in [L, 2L], L = 0.7 K rounded (about K / sqrt(2),
 * so the range is K -30% .. +40%; checked on entry; mirrored for K < 0), any two samples
 * are within a factor 2 of each other and of K, so Sterbenz's lemma makes both y = x - K
 * and the difference of the sample entering and the one leaving exact: the sums see the
 * data exactly and the mean's rounding error is relative to the small |mean(y)| rather than
 * to |mean(x)|. If a window of the restart does not fit that range, K = 0 (y = x): exact
 * too, but the difference of two samples may round, which its error term ed then carries
 * into the sum.
 *
 * Error bound: each update adds at most about 8u |dp| (|a| + |b| + 2|ybar|) to the error of
 * the variance (u = 2^-53; dp = d/p, a, b as in apo__bollinger_slide_on): the roundings
 * of the update itself come to a few u |dp| (|a| + |b|), and the errors of the two means it
 * uses, each at most about 4u |ybar| with the compensation one step behind, to 8u |dp| |ybar|,
 * within 8u |dp| 2|ybar|. `acc` sums |dp| (|a| + |b| + 2|ybar|), and when
 * acc * 8u exceeds 2^-34 var the run stops and the next window is re-evaluated, so the
 * sliding part of the relative error of the variance stays below 2^-34 (about 3e-11 on sd,
 * against the 1e-10 of the contract; the bound is a worst case: measured errors reach about
 * 1e-12).
 *
 * *run receives the state after the last window emitted, from which the lane kernels
 * (bollinger_lanes.h) slide on with the same operations.
 */
static inline APO_HD void apo__bollinger_slide_run(apo__in x, size_t end, size_t p, double nbdev_up,
                                                   double nbdev_dn, apo__bollinger_counts *w,
                                                   size_t *tp, apo__bollinger_run *run,
                                                   apo__out upper, apo__out middle,
                                                   apo__out lower) {
    const double pd = (double)p;
    const size_t t = *tp;
    const size_t w0 = t + 1 - p;

    /* Exact evaluation: compensated sum for the shift, then the window in y. */
    double s = 0.0, c = 0.0;
    for (size_t k = 0; k < p; ++k) {
        apo__bollinger_two_sum_add(&s, &c, APO_IN(x, w0 + k));
    }
    double shift = (s + c) / pd;
    /* [L, 2L] (or [2L, L] for K < 0) with L between K/2 and K: finite, since |K| is at
     * most DBL_MAX / 2 when the window's sum did not overflow. */
    const double near = 0.7 * shift;
    double lo = shift > 0.0 ? near : 2.0 * near;
    double hi = shift > 0.0 ? 2.0 * near : near;
    int in_range = shift != 0.0;
    for (size_t k = 0; k < p && in_range; ++k) {
        in_range = APO_IN(x, w0 + k) >= lo && APO_IN(x, w0 + k) <= hi;
    }
    if (!in_range) {
        shift = 0.0;
        lo = -DBL_MAX;
        hi = DBL_MAX;
    }
    s = 0.0;
    c = 0.0;
    for (size_t k = 0; k < p; ++k) {
        apo__bollinger_two_sum_add(&s, &c, APO_IN(x, w0 + k) - shift);
    }
    const double ybar = (s + c) / pd;
    double m2 = 0.0;
    for (size_t k = 0; k < p; ++k) {
        const double dev = (APO_IN(x, w0 + k) - shift) - ybar;
        m2 += dev * dev;
    }
    const double var = m2 / pd;
    const double mean = shift + ybar;
    APO_BOLLINGER_PUT_BANDS(upper, middle, lower, t, mean, var, nbdev_up, nbdev_dn);

    run->shift = shift;
    run->lo = lo;
    run->hi = hi;
    run->s = s;
    run->c = c;
    run->ybar = ybar;
    run->var = var;
    run->acc = 0.0;
    apo__bollinger_slide_on(x, end, p, nbdev_up, nbdev_dn, w, tp, run, upper, middle, lower);
}

/* Sets *w to the counts of the window ending at i0 (i0 >= p - 1), evaluated directly. */
static inline APO_HD void apo__bollinger_first_counts(apo__bollinger_counts *w, apo__in x,
                                                      size_t i0, size_t p) {
    w->nan = 0;
    w->pinf = 0;
    w->ninf = 0;
    w->last_change = 0;
    for (size_t k = i0 + 1 - p; k <= i0; ++k) {
        apo__bollinger_count(w, APO_IN(x, k), 1);
        if (k > i0 + 1 - p && APO_IN(x, k) != APO_IN(x, k - 1)) {
            w->last_change = k;
        }
    }
}

/*
 * Writes the NaN outputs of [begin, end) before the first full window, sets *w to the
 * counts of the window ending at the tile's first output and returns that output's index
 * i0 = max(begin, p - 1); i0 >= end when the tile has no full window.
 */
static inline APO_HD size_t apo__bollinger_tile_begin(apo__in x, size_t begin, size_t end, size_t p,
                                                      apo__bollinger_counts *w, apo__out upper,
                                                      apo__out middle, apo__out lower) {
    const size_t i0 = begin > p - 1 ? begin : p - 1;
    for (size_t t = begin; t < end && t < i0; ++t) {
        APO_BOLLINGER_PUT_UNDEF(upper, middle, lower, t, NAN);
    }
    if (i0 >= end) {
        return i0;
    }
    apo__bollinger_first_counts(w, x, i0, p);
    return i0;
}

/*
 * Emits the window ending at *tp, whose counts are in *w, by the rule that applies to it:
 * a window with a non-finite sample, a constant window, or an exact evaluation that then
 * slides on while it can, up to `end` (exclusive). Leaves *tp at the last window emitted.
 * Returns 1 when that window belongs to a sliding run, whose state is then in *run; 0 when
 * it was a non-finite or a constant window (*run untouched).
 */
static inline APO_HD int apo__bollinger_emit(apo__in x, size_t end, size_t p, double nbdev_up,
                                             double nbdev_dn, apo__bollinger_counts *w, size_t *tp,
                                             apo__bollinger_run *run, apo__out upper,
                                             apo__out middle, apo__out lower) {
    const size_t t = *tp;
    if (w->nan + w->pinf + w->ninf > 0) {
        /* A NaN, or infinities of both signs, make the mean undefined; infinities of one
         * sign make it that infinity. The deviation is undefined either way. */
        double mid;
        if (w->nan > 0 || (w->pinf > 0 && w->ninf > 0)) {
            mid = NAN;
        } else {
            mid = w->pinf > 0 ? INFINITY : -INFINITY;
        }
        APO_BOLLINGER_PUT_UNDEF(upper, middle, lower, t, mid);
        return 0;
    }
    if (apo__bollinger_is_constant(w, t, p)) {
        /* All samples of the window are equal: the exact answer needs no arithmetic. */
        const double v = APO_IN(x, t);
        APO_BOLLINGER_PUT_FLAT(upper, middle, lower, t, v);
        return 0;
    }
    apo__bollinger_slide_run(x, end, p, nbdev_up, nbdev_dn, w, tp, run, upper, middle, lower);
    return 1;
}

/*
 * Where a tile stands between two calls of apo__bollinger_advance: the next window to emit,
 * the counts and, while a sliding run goes on across the calls, its state. One call over
 * the whole tile is apo__bollinger_tile; the staged CUDA kernel (kernels/cuda/stage.h) makes one
 * call per segment of the tile, with the same operations in the same order, so the same
 * bits.
 */
enum { APO_BOLLINGER_FIRST, APO_BOLLINGER_NEXT, APO_BOLLINGER_RUN };
typedef struct apo__bollinger_cursor {
    apo__bollinger_counts w; /* FIRST: unset; NEXT, RUN: the window t - 1 */
    apo__bollinger_run run;  /* RUN: the run that emitted window t - 1 */
    size_t t;                /* the next window to emit */
    size_t i0;               /* the tile's first full window, max(begin, p - 1) */
    int mode;                /* APO_BOLLINGER_FIRST, _NEXT or _RUN */
} apo__bollinger_cursor;

static inline APO_HD void apo__bollinger_cursor_init(apo__bollinger_cursor *cur, size_t begin,
                                                     size_t p) {
    /* The counts are set at the first window and the run at its start; zeroed here so that
     * no compiler sees a path that reads them unset. */
    cur->run.shift = cur->run.lo = cur->run.hi = 0.0;
    cur->run.s = cur->run.c = cur->run.ybar = cur->run.var = cur->run.acc = 0.0;
    cur->w.nan = 0;
    cur->w.pinf = 0;
    cur->w.ninf = 0;
    cur->w.last_change = 0;
    cur->t = begin;
    cur->i0 = begin > p - 1 ? begin : p - 1;
    cur->mode = APO_BOLLINGER_FIRST;
}

/*
 * Emits the windows cur->t .. stop - 1 of a tile (stop at most the tile's end), reading x
 * from cur->t - p: the NaN outputs before the first full window, then each window by
 * apo__bollinger_emit, a run that reaches `stop` being carried on at the next call by
 * apo__bollinger_slide_on.
 */
static inline APO_HD void apo__bollinger_advance(apo__in x, size_t stop, size_t p, double nbdev_up,
                                                 double nbdev_dn, apo__bollinger_cursor *cur,
                                                 apo__out upper, apo__out middle, apo__out lower) {
    size_t t = cur->t;
    for (; t < stop && t < cur->i0; ++t) {
        APO_BOLLINGER_PUT_UNDEF(upper, middle, lower, t, NAN);
    }
    while (t < stop) {
        size_t last = t;
        int sliding = 1;
        if (cur->mode == APO_BOLLINGER_RUN) {
            last = t - 1;
            apo__bollinger_slide_on(x, stop, p, nbdev_up, nbdev_dn, &cur->w, &last, &cur->run,
                                    upper, middle, lower);
        } else {
            if (cur->mode == APO_BOLLINGER_FIRST) {
                apo__bollinger_first_counts(&cur->w, x, t, p);
            } else {
                apo__bollinger_slide_counts(&cur->w, x, t, p);
            }
            sliding = apo__bollinger_emit(x, stop, p, nbdev_up, nbdev_dn, &cur->w, &last, &cur->run,
                                          upper, middle, lower);
        }
        t = last + 1;
        /* A run stops short of `stop` only for a reason of its own (a break); one that
         * reached `stop` goes on at the next call, from its state. */
        cur->mode = sliding && t == stop ? APO_BOLLINGER_RUN : APO_BOLLINGER_NEXT;
    }
    cur->t = t;
}

/*
 * One tile [begin, end) of one row, period >= 1 and begin < end (the caller checks):
 * the semantics of apo__cpu_bollinger_tile() in bollinger.h.
 */
static inline APO_HD void apo__bollinger_tile(apo__in x, size_t begin, size_t end, size_t period,
                                              double nbdev_up, double nbdev_dn, apo__out upper,
                                              apo__out middle, apo__out lower) {
    apo__bollinger_cursor cur;
    apo__bollinger_cursor_init(&cur, begin, period);
    apo__bollinger_advance(x, end, period, nbdev_up, nbdev_dn, &cur, upper, middle, lower);
}

#endif /* APO_BOLLINGER_TILE_H */

/*
 * catalog_reference_common.h: what the catalog's long-double reference files share, so that
 * each does not write it again: a kernel's outputs all NaN (scale 0) before the bars it
 * defines, whether a stretch of bars is clean (test_index.c, checking TA-Lib's rule for
 * a window, asks it too), which bars are, for the references that skip the others, the loop
 * over clean windows, and the entry points that only pick a variant of a shared body.
 */
#ifndef APO_TESTS_CATALOG_REFERENCE_COMMON_H
#define APO_TESTS_CATALOG_REFERENCE_COMMON_H

#include <math.h>
#include <stddef.h>

/* Every output NaN, every scale 0. */
static inline void nan_fill(double *out, double *scale, size_t n) {
    for (size_t t = 0; t < n; t++) {
        out[t] = NAN;
        scale[t] = 0.0;
    }
}

/* Every output of the first n_out NaN, every scale 0: a kernel of several outputs. */
static inline void nan_fill_outputs(double *const *out, double *const *scale, size_t n_out,
                                    size_t n) {
    for (size_t k = 0; k < n_out; k++)
        nan_fill(out[k], scale[k], n);
}

/* 1 when the first k inputs are finite at every bar of [from, to]. */
static inline int clean(const double *const *in, size_t k, size_t from, size_t to) {
    for (size_t i = from; i <= to; i++)
        for (size_t j = 0; j < k; j++)
            if (!isfinite(in[j][i]))
                return 0;
    return 1;
}

/* 1 when the window of p samples of x ending at bar t exists and is finite. */
static inline int window_clean(const double *x, size_t p, size_t t) {
    if (t + 1 < p)
        return 0;
    for (size_t i = t + 1 - p; i <= t; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* The clean bars of a series (every one of its m inputs finite), in order: their indices
 * into at (room for n), and how many there are. */
static inline size_t clean_bar_indices(const double *const *in, size_t m, size_t n, size_t *at) {
    size_t k = 0;
    for (size_t t = 0; t < n; t++) {
        int ok = 1;
        for (size_t i = 0; i < m; i++)
            ok = ok && isfinite(in[i][t]);
        if (ok)
            at[k++] = t;
    }
    return k;
}

/* One bar of a windowed reference: its output and scale at bar t, its window (q of the
 * reference's parameter) already clean; it leaves them NaN and 0 by returning early. */
typedef void (*ref_window_bar)(const double *const *in, size_t t, size_t q, double *out,
                               double *scale);

/* The loop that the windowed references share: out NaN and scale 0 at every bar, then bar at
 * each t whose q + lag bars ending at t (lag 0: a window of q bars; lag 1: the q changes
 * ending at t) exist and are finite in the first k inputs. A pointwise reference is q 1,
 * lag 0. */
static inline void window_reference(const double *const *in, size_t k, size_t n, size_t q,
                                    size_t lag, double *out, double *scale, ref_window_bar bar) {
    const size_t span = q + lag;
    nan_fill(out, scale, n);
    for (size_t t = span - 1; t < n; t++)
        if (clean(in, k, t + 1 - span, t))
            bar(in, t, q, &out[t], &scale[t]);
}

/* One clean bar's step of a running sum over the clean bars: what it makes of *sum and of
 * *bound (its scale), given prev, the previous clean bar's close; first is 1 at the first clean
 * bar, which has none (prev 0). */
typedef void (*ref_running_step)(const double *const *in, size_t t, long double prev, int first,
                                 long double *sum, long double *bound);

/* The loop that the running sums over clean bars share: out NaN and scale 0 at every bar,
 * then at each bar whose first k inputs are finite step, and the sum and its bound as they
 * then stand (both start at 0); input `close` is the prev of the next one. */
static inline void running_reference(const double *const *in, size_t k, size_t close, size_t n,
                                     double *out, double *scale, ref_running_step step) {
    nan_fill(out, scale, n);
    long double sum = 0, bound = 0, prev = 0;
    int seen = 0;
    for (size_t t = 0; t < n; t++) {
        if (!clean(in, k, t, t))
            continue;
        step(in, t, prev, !seen, &sum, &bound);
        seen = 1;
        prev = in[close][t];
        out[t] = (double)sum;
        scale[t] = (double)bound;
    }
}

/* One stage of a chain of EMAs (dema, tema, t3), each seeded with the mean of its first q
 * inputs: it takes v and says whether it has a value yet, in *e. Its step is e + k (v - e), or
 * with tillson 1 T3's k v + (1 - k) e (the two round differently). */
static inline int ema_stage(long double v, size_t q, long double k, int tillson, size_t *seen,
                            long double *sum, long double *e) {
    if (*seen < q) {
        *sum += v;
        if (++*seen < q)
            return 0;
        *e = *sum / q;
    } else {
        *e = tillson ? k * v + (1 - k) * *e : *e + k * (v - *e);
    }
    return 1;
}

/* A catalog reference that is one variant of a body shared by several: the entry point the
 * catalog's tables name, calling body with the variant's selector (an output's index, a
 * flag). Written once here so that a family of variants is one line per member rather than
 * one function each that only forwards its arguments. */
#define APO_REF_VARIANT(name, body, variant)                                                       \
    void name(const double *const *in, size_t n, const double *p, double *out, double *scale) {    \
        body(in, n, p, out, scale, variant);                                                       \
    }

/* The same for a reference of several outputs (out and scale one array per output). */
#define APO_REF_VARIANT_OUTPUTS(name, body, variant)                                               \
    void name(const double *const *in, size_t n, const double *p, double *const *out,              \
              double *const *scale) {                                                              \
        body(in, n, p, out, scale, variant);                                                       \
    }

#endif

/*
 * catalog_reference_transforms.c: see catalog_reference_transforms.h.
 */
#include "catalog_reference_transforms.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

/* 1 when the first k inputs at t are finite. */
static int finite_at(const double *const *in, size_t k, size_t t) {
    for (size_t i = 0; i < k; i++)
        if (!isfinite(in[i][t]))
            return 0;
    return 1;
}

/* The price transforms: the weighted mean of the bar's prices in long double; scale the
 * largest price's magnitude. */
static void weighted_prices(const double *const *in, size_t k, const long double *w,
                            long double divisor, size_t n, double *const *out,
                            double *const *scale) {
    for (size_t t = 0; t < n; t++) {
        if (!finite_at(in, k, t)) {
            out[0][t] = NAN;
            scale[0][t] = 0;
            continue;
        }
        long double s = 0, big = 0;
        for (size_t i = 0; i < k; i++) {
            s += w[i] * (long double)in[i][t];
            big = fabsl(in[i][t]) > big ? fabsl(in[i][t]) : big;
        }
        out[0][t] = (double)(s / divisor);
        scale[0][t] = (double)big;
    }
}

void apo__ref_cat_avgprice(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    (void)p;
    const long double w[] = {1, 1, 1, 1};
    weighted_prices(in, 4, w, 4, n, out, scale);
}

void apo__ref_cat_medprice(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    (void)p;
    const long double w[] = {1, 1};
    weighted_prices(in, 2, w, 2, n, out, scale);
}

void apo__ref_cat_typprice(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    (void)p;
    const long double w[] = {1, 1, 1};
    weighted_prices(in, 3, w, 3, n, out, scale);
}

void apo__ref_cat_wclprice(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    (void)p;
    const long double w[] = {1, 1, 2};
    weighted_prices(in, 3, w, 4, n, out, scale);
}

/* The operators: op 0 add, 1 sub, 2 mult, 3 div, in long double; scale the exact result's
 * magnitude (add and sub: |x| + |y|, where the result may cancel). */
static void operator_of(int op, const double *const *in, size_t n, double *const *out,
                        double *const *scale) {
    for (size_t t = 0; t < n; t++) {
        if (!finite_at(in, 2, t)) {
            out[0][t] = NAN;
            scale[0][t] = 0;
            continue;
        }
        const long double x = in[0][t], y = in[1][t];
        const long double v = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
        out[0][t] = (double)v;
        scale[0][t] = op < 2 ? (double)(fabsl(x) + fabsl(y)) : (double)fabsl(v);
    }
}

void apo__ref_cat_add(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    operator_of(0, in, n, out, scale);
}

void apo__ref_cat_sub(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    operator_of(1, in, n, out, scale);
}

void apo__ref_cat_mult(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    (void)p;
    operator_of(2, in, n, out, scale);
}

void apo__ref_cat_div(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    operator_of(3, in, n, out, scale);
}

/* SUM: the window's sum in long double; scale the sum of its magnitudes. */
void apo__ref_cat_sum(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t w = (size_t)p[0];
    for (size_t t = 0; t < n; t++) {
        if (!window_clean(in[0], w, t)) {
            out[0][t] = NAN;
            scale[0][t] = 0;
            continue;
        }
        long double s = 0, m = 0;
        for (size_t i = t + 1 - w; i <= t; i++) {
            s += in[0][i];
            m += fabsl(in[0][i]);
        }
        out[0][t] = (double)s;
        scale[0][t] = (double)m;
    }
}

/* MINMAX: the window's smallest and largest sample, exactly. */
void apo__ref_cat_minmax(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    const size_t w = (size_t)p[0];
    for (size_t t = 0; t < n; t++) {
        scale[0][t] = scale[1][t] = 0;
        if (!window_clean(in[0], w, t)) {
            out[0][t] = out[1][t] = NAN;
            continue;
        }
        double lo = in[0][t], hi = in[0][t];
        for (size_t i = t + 1 - w; i <= t; i++) {
            lo = in[0][i] < lo ? in[0][i] : lo;
            hi = in[0][i] > hi ? in[0][i] : hi;
        }
        out[0][t] = lo;
        out[1][t] = hi;
    }
}

/* A math transform f in long double; scale the result's magnitude, or 0 where `exact`. A
 * result that is not finite (ln of 0, an overflow) is expected as is; NaN where the sample is
 * a gap or the definition has no value. */
static void transform(long double (*f)(long double), int exact, const double *const *in, size_t n,
                      double *const *out, double *const *scale) {
    for (size_t t = 0; t < n; t++) {
        const double x = in[0][t];
        const long double v = isfinite(x) ? f((long double)x) : NAN;
        out[0][t] = (double)v;
        scale[0][t] = exact ? 0.0 : (double)fabsl(v);
    }
}

#define APO__REF_MATH(name, f, exact)                                                              \
    void apo__ref_cat_##name(const double *const *in, size_t n, const double *p,                   \
                             double *const *out, double *const *scale) {                           \
        (void)p;                                                                                   \
        transform(f, exact, in, n, out, scale);                                                    \
    }
APO__REF_MATH(ceil, ceill, 1)
APO__REF_MATH(floor, floorl, 1)
APO__REF_MATH(sqrt, sqrtl, 0)
APO__REF_MATH(exp, expl, 0)
APO__REF_MATH(ln, logl, 0)
APO__REF_MATH(log10, log10l, 0)
APO__REF_MATH(sinh, sinhl, 0)
APO__REF_MATH(cosh, coshl, 0)
APO__REF_MATH(tanh, tanhl, 0)

/* sin, cos and tan as the catalog states them: NaN beyond 2^20 in magnitude (trig.h's bound),
 * where libm still gives a value. */
static long double bounded_sinl(long double x) { return fabsl(x) <= 0x1p20L ? sinl(x) : NAN; }
static long double bounded_cosl(long double x) { return fabsl(x) <= 0x1p20L ? cosl(x) : NAN; }
static long double bounded_tanl(long double x) { return fabsl(x) <= 0x1p20L ? tanl(x) : NAN; }

APO__REF_MATH(acos, acosl, 0)
APO__REF_MATH(asin, asinl, 0)
APO__REF_MATH(atan, atanl, 0)
APO__REF_MATH(cos, bounded_cosl, 0)
APO__REF_MATH(sin, bounded_sinl, 0)
APO__REF_MATH(tan, bounded_tanl, 0)

/* What TA-Lib's scan of the window [lo, t] finds (sign 1: the maximum, -1: the minimum): the
 * oldest sample where it is NaN (nothing compares beyond a NaN), else the first sample equal
 * to the window's extreme among its samples that are not NaN. */
static size_t scan_result(const double *x, size_t lo, size_t t, int sign) {
    if (isnan(x[lo]))
        return lo;
    long double m = x[lo];
    for (size_t i = lo; i <= t; i++)
        if (!isnan(x[i]) && (sign > 0 ? x[i] > m : x[i] < m))
            m = x[i];
    size_t first = lo;
    while (!((long double)x[first] == m))
        first++;
    return first;
}

/* TA-Lib's rule for the index of the window's extreme at every bar from p - 1
 * (docs/kernels/transforms.md, "Math operators and transforms"): where the index found at t - 1 is
 * still in the window and the sample at t is at least (at most) its sample, t; where it is still in
 * the window otherwise, that index; where it has left (and at the first window), what a scan of the
 * window finds. h[t] for t >= p - 1. */
static void talib_rule(const double *x, size_t n, size_t p, int sign, size_t *h) {
    for (size_t t = p - 1; t < n; t++) {
        const size_t lo = t + 1 - p;
        if (t == p - 1 || h[t - 1] < lo) {
            h[t] = scan_result(x, lo, t, sign);
            continue;
        }
        const double old = x[h[t - 1]], now = x[t];
        h[t] = (sign > 0 ? now >= old : now <= old) ? t : h[t - 1];
    }
}

/* The indices as the catalog gives them: NaN before p - 1 and where the window holds a sample
 * that is not finite; exact (scale 0). */
static void index_outputs(const double *x, size_t n, size_t p, int sign, double *out,
                          double *scale) {
    size_t *h = calloc(n > 0 ? n : 1, sizeof *h);
    if (h == NULL)
        abort();
    if (n >= p)
        talib_rule(x, n, p, sign, h);
    for (size_t t = 0; t < n; t++) {
        out[t] = window_clean(x, p, t) ? (double)h[t] : NAN;
        scale[t] = 0;
    }
    free(h);
}

void apo__ref_cat_maxindex(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    index_outputs(in[0], n, (size_t)p[0], 1, out[0], scale[0]);
}

void apo__ref_cat_minindex(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    index_outputs(in[0], n, (size_t)p[0], -1, out[0], scale[0]);
}

void apo__ref_cat_minmaxindex(const double *const *in, size_t n, const double *p,
                              double *const *out, double *const *scale) {
    index_outputs(in[0], n, (size_t)p[0], -1, out[0], scale[0]);
    index_outputs(in[0], n, (size_t)p[0], 1, out[1], scale[1]);
}

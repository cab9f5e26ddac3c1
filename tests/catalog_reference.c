/* Long-double references of the indicator catalog; see catalog_reference.h. */
#include "catalog_reference.h"

#include <math.h>
#include <stdlib.h>

#include "reference.h"

#define LD_EPS 1.0842021724855044e-19L /* 2^-63 */

static int finite_window(const double *x, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static void nan_all(double *out, double *scale, size_t n) {
    for (size_t t = 0; t < n; t++) {
        out[t] = NAN;
        scale[t] = 0.0;
    }
}

void apo__ref_cat_sma(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!finite_window(x, t + 1 - q, t + 1))
            continue;
        long double s = 0, m = 0;
        for (size_t i = t + 1 - q; i <= t; i++) {
            s += x[i];
            m = fabsl(x[i]) > m ? fabsl(x[i]) : m;
        }
        out[t] = (double)(s / q);
        scale[t] = (double)m;
    }
}

void apo__ref_cat_wma(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!finite_window(x, t + 1 - q, t + 1))
            continue;
        long double s = 0, m = 0;
        for (size_t i = 0; i < q; i++) {
            const double v = x[t + 1 - q + i];
            s += (long double)(i + 1) * v;
            m = fabsl(v) > m ? fabsl(v) : m;
        }
        out[t] = (double)(s / ((long double)q * (q + 1) / 2));
        scale[t] = (double)m;
    }
}

/* Population variance and mean of the window ending at t, two-pass. */
static long double window_var(const double *x, size_t t, size_t q, long double *mean) {
    long double s = 0;
    for (size_t i = t + 1 - q; i <= t; i++)
        s += x[i];
    const long double m = s / q;
    long double m2 = 0;
    for (size_t i = t + 1 - q; i <= t; i++)
        m2 += (x[i] - m) * (x[i] - m);
    *mean = m;
    return m2 / q;
}

void apo__ref_cat_var(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!finite_window(x, t + 1 - q, t + 1))
            continue;
        long double mean;
        const long double v = window_var(x, t, q, &mean);
        out[t] = (double)v;
        /* The data scale where the definition cancels: a rounding of mean^2. */
        scale[t] = (double)(v + LD_EPS * 1024 * mean * mean);
    }
}

void apo__ref_cat_stddev(const double *const *in, size_t n, const double *p, double *out,
                         double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!finite_window(x, t + 1 - q, t + 1))
            continue;
        long double mean;
        const long double v = window_var(x, t, q, &mean);
        out[t] = (double)(sqrtl(v) * p[1]);
        scale[t] = (double)(sqrtl(v + LD_EPS * 1024 * mean * mean) * fabs(p[1]));
    }
}

static void extreme(const double *const *in, size_t n, const double *p, double *out, double *scale,
                    int max) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!finite_window(x, t + 1 - q, t + 1))
            continue;
        double e = x[t + 1 - q];
        for (size_t i = t + 2 - q; i <= t; i++)
            e = max ? (x[i] > e ? x[i] : e) : (x[i] < e ? x[i] : e);
        out[t] = e;
    }
}

void apo__ref_cat_max(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    extreme(in, n, p, out, scale, 1);
}

void apo__ref_cat_min(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    extreme(in, n, p, out, scale, 0);
}

void apo__ref_cat_mom(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q; t < n; t++) {
        if (!finite_window(x, t - q, t - q + 1) || !finite_window(x, t, t + 1))
            continue;
        out[t] = (double)((long double)x[t] - x[t - q]);
        scale[t] = fabs(x[t]) > fabs(x[t - q]) ? fabs(x[t]) : fabs(x[t - q]);
    }
}

void apo__ref_cat_roc(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_all(out, scale, n);
    for (size_t t = q; t < n; t++) {
        if (!isfinite(x[t - q]) || !isfinite(x[t]))
            continue;
        if (x[t - q] == 0) {
            out[t] = 0.0;
            continue;
        }
        const long double r = (long double)x[t] / x[t - q];
        out[t] = (double)((r - 1) * 100);
        scale[t] = (double)(100 * (fabsl(r) + 1));
    }
}

/* The true range at t >= 1 in long double, NaN where a sample is not finite. */
static long double true_range(const double *const *in, size_t t) {
    const double h = in[0][t], l = in[1][t], c = in[2][t - 1];
    if (!isfinite(h) || !isfinite(l) || !isfinite(c))
        return NAN;
    long double r = (long double)h - l;
    const long double a = fabsl((long double)h - c), b = fabsl((long double)l - c);
    r = a > r ? a : r;
    return b > r ? b : r;
}

void apo__ref_cat_trange(const double *const *in, size_t n, const double *p, double *out,
                         double *scale) {
    (void)p;
    nan_all(out, scale, n);
    for (size_t t = 1; t < n; t++) {
        const long double r = true_range(in, t);
        out[t] = (double)r;
        scale[t] = isfinite((double)r) ? (double)r : 0.0;
    }
}

/* The largest finite |x| of the first `count` inputs: the scale of a recurrence's errors. */
static double max_abs(const double *const *in, size_t count, size_t n) {
    double m = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t t = 0; t < n; t++)
            if (isfinite(in[i][t]) && fabs(in[i][t]) > m)
                m = fabs(in[i][t]);
    return m;
}

void apo__ref_cat_ema(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    const long double k = 2.0L / (q + 1);
    const double m = max_abs(in, 1, n);
    size_t seen = 0;
    long double sum = 0, e = 0;
    nan_all(out, scale, n);
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(x[t]))
            continue;
        if (seen < q) {
            sum += x[t];
            if (++seen < q)
                continue;
            e = sum / q;
        } else {
            e = e + k * (x[t] - e);
        }
        out[t] = (double)e;
        scale[t] = m;
    }
}

static void atr(const double *const *in, size_t n, const double *p, double *out, double *scale,
                int normalize) {
    const size_t q = (size_t)p[0];
    const double m = max_abs(in, 3, n);
    size_t seen = 0;
    long double sum = 0, a = 0;
    nan_all(out, scale, n);
    for (size_t t = 1; t < n; t++) {
        const long double tr = true_range(in, t);
        if (!isfinite((double)tr))
            continue;
        if (seen < q) {
            sum += tr;
            if (++seen < q)
                continue;
            a = sum / q;
        } else {
            a = (a * (q - 1) + tr) / q;
        }
        if (!normalize) {
            out[t] = (double)a;
            scale[t] = m;
        } else if (in[2][t] == 0) {
            out[t] = 0.0;
        } else {
            out[t] = (double)(a / in[2][t] * 100);
            scale[t] = (double)(m / fabs(in[2][t]) * 100);
        }
    }
}

void apo__ref_cat_atr(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    atr(in, n, p, out, scale, 0);
}

void apo__ref_cat_natr(const double *const *in, size_t n, const double *p, double *out,
                       double *scale) {
    atr(in, n, p, out, scale, 1);
}

void apo__ref_ohlcv(uint64_t seed, size_t n, double start, double step, double *open, double *high,
                    double *low, double *close, double *volume) {
    double *c = malloc((n > 0 ? n : 1) * sizeof *c);
    if (c == NULL)
        abort();
    apo__test_random_walk(seed, n, start, step, c);
    for (size_t t = 0; t < n; t++) {
        const double up = 2 * step * apo__test_uniform(seed ^ 0x1111, t);
        const double down = 2 * step * apo__test_uniform(seed ^ 0x2222, t);
        if (close != NULL)
            close[t] = c[t];
        if (high != NULL)
            high[t] = c[t] + up;
        if (low != NULL)
            low[t] = c[t] - down;
        if (open != NULL)
            open[t] = (c[t] - down) + (up + down) * apo__test_uniform(seed ^ 0x3333, t);
        if (volume != NULL)
            volume[t] = 1000.0 + 1e6 * apo__test_uniform(seed ^ 0x4444, t);
    }
    free(c);
}

/* Long-double references of the indicator catalog; see catalog_reference.h. */
#include "catalog_reference.h"
#include "catalog_reference_common.h"

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

/* The windowed references below keep only their bar: window_reference
 * (catalog_reference_common.h) runs it at each bar whose window of q (p[0]) bars is clean. */

static void sma_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    const double *x = in[0];
    long double s = 0, m = 0;
    for (size_t i = t + 1 - q; i <= t; i++) {
        s += x[i];
        m = fabsl(x[i]) > m ? fabsl(x[i]) : m;
    }
    *out = (double)(s / q);
    *scale = (double)m;
}

void apo__ref_cat_sma(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    window_reference(in, 1, n, (size_t)p[0], 0, out, scale, sma_bar);
}

static void wma_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double s = 0, m = 0;
    for (size_t i = 0; i < q; i++) {
        const double v = in[0][t + 1 - q + i];
        s += (long double)(i + 1) * v;
        m = fabsl(v) > m ? fabsl(v) : m;
    }
    *out = (double)(s / ((long double)q * (q + 1) / 2));
    *scale = (double)m;
}

void apo__ref_cat_wma(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    window_reference(in, 1, n, (size_t)p[0], 0, out, scale, wma_bar);
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

static void var_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double mean;
    const long double v = window_var(in[0], t, q, &mean);
    *out = (double)v;
    /* The data scale where the definition cancels: a rounding of mean^2. */
    *scale = (double)(v + LD_EPS * 1024 * mean * mean);
}

void apo__ref_cat_var(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    window_reference(in, 1, n, (size_t)p[0], 0, out, scale, var_bar);
}

void apo__ref_cat_stddev(const double *const *in, size_t n, const double *p, double *out,
                         double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!finite_window(x, t + 1 - q, t + 1))
            continue;
        long double mean;
        const long double v = window_var(x, t, q, &mean);
        out[t] = (double)(sqrtl(v) * p[1]);
        scale[t] = (double)(sqrtl(v + LD_EPS * 1024 * mean * mean) * fabs(p[1]));
    }
}

/* The window's largest (max 1) or smallest sample; its scale stays 0 (exact). */
static double extreme_at(const double *x, size_t t, size_t q, int max) {
    double e = x[t + 1 - q];
    for (size_t i = t + 2 - q; i <= t; i++)
        e = max ? (x[i] > e ? x[i] : e) : (x[i] < e ? x[i] : e);
    return e;
}

static void max_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    (void)scale;
    *out = extreme_at(in[0], t, q, 1);
}

static void min_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    (void)scale;
    *out = extreme_at(in[0], t, q, 0);
}

static void extreme(const double *const *in, size_t n, const double *p, double *out, double *scale,
                    int max) {
    window_reference(in, 1, n, (size_t)p[0], 0, out, scale, max ? max_bar : min_bar);
}

APO_REF_VARIANT(apo__ref_cat_max, extreme, 1)
APO_REF_VARIANT(apo__ref_cat_min, extreme, 0)

void apo__ref_cat_mom(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
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
    nan_fill(out, scale, n);
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
    nan_fill(out, scale, n);
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
    nan_fill(out, scale, n);
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(x[t]) || !ema_stage(x[t], q, k, 0, &seen, &sum, &e))
            continue;
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
    nan_fill(out, scale, n);
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

APO_REF_VARIANT(apo__ref_cat_atr, atr, 0)
APO_REF_VARIANT(apo__ref_cat_natr, atr, 1)

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

/* e1 .. e_stages chained, each seeded with the mean of its first q inputs; NaN at gaps. */
static void ema_chain(const double *const *in, size_t n, const double *p, double *out,
                      double *scale, int stages) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    const long double k = 2.0L / (q + 1);
    const double m = max_abs(in, 1, n);
    size_t seen[3] = {0, 0, 0};
    long double sum[3] = {0, 0, 0}, e[3] = {0, 0, 0};
    nan_fill(out, scale, n);
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(x[t]))
            continue;
        long double v = x[t];
        int ready = 1;
        for (int s = 0; s < stages && ready; s++) {
            ready = ema_stage(v, q, k, 0, &seen[s], &sum[s], &e[s]);
            v = e[s];
        }
        if (!ready)
            continue;
        out[t] = (double)(stages == 2 ? 2 * e[0] - e[1] : 3 * e[0] - 3 * e[1] + e[2]);
        scale[t] = 6 * m;
    }
}

APO_REF_VARIANT(apo__ref_cat_dema, ema_chain, 2)
APO_REF_VARIANT(apo__ref_cat_tema, ema_chain, 3)

static void wilder_osc(const double *const *in, size_t n, const double *p, double *out,
                       double *scale, int cmo) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    size_t seen = 0;
    long double g = 0, l = 0;
    nan_fill(out, scale, n);
    for (size_t t = 1; t < n; t++) {
        if (!isfinite(x[t]) || !isfinite(x[t - 1]))
            continue;
        const long double d = (long double)x[t] - x[t - 1];
        const long double gain = d > 0 ? d : 0, loss = d < 0 ? -d : 0;
        if (seen < q) {
            g += gain;
            l += loss;
            if (++seen < q)
                continue;
            g /= q;
            l /= q;
        } else {
            g = (g * (q - 1) + gain) / q;
            l = (l * (q - 1) + loss) / q;
        }
        const long double s = g + l;
        out[t] = s == 0 ? 0.0 : (double)(cmo ? 100 * (g - l) / s : 100 * g / s);
        scale[t] = 100;
    }
}

APO_REF_VARIANT(apo__ref_cat_rsi, wilder_osc, 0)
APO_REF_VARIANT(apo__ref_cat_cmo, wilder_osc, 1)

void apo__ref_cat_willr(const double *const *in, size_t n, const double *p, double *out,
                        double *scale) {
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        /* The stochastics' gap rule (ref_fastk): the window's highs and lows and the close
         * at t, the samples the output reads. */
        if (!finite_window(in[0], t + 1 - q, t + 1) || !finite_window(in[1], t + 1 - q, t + 1) ||
            !isfinite(in[2][t]))
            continue;
        double h = in[0][t + 1 - q], l = in[1][t + 1 - q];
        for (size_t i = t + 2 - q; i <= t; i++) {
            h = in[0][i] > h ? in[0][i] : h;
            l = in[1][i] < l ? in[1][i] : l;
        }
        if (h == l) {
            out[t] = 0.0;
            continue;
        }
        const long double r = -100.0L * ((long double)h - in[2][t]) / ((long double)h - l);
        out[t] = (double)r;
        scale[t] = (double)(100 + fabsl(r));
    }
}

static void cci_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double s = 0;
    for (size_t i = t + 1 - q; i <= t; i++)
        s += ((long double)in[0][i] + in[1][i] + in[2][i]) / 3;
    const long double m = s / q;
    long double dev = 0;
    for (size_t i = t + 1 - q; i <= t; i++)
        dev += fabsl(((long double)in[0][i] + in[1][i] + in[2][i]) / 3 - m);
    const long double md = dev / q;
    const long double tp = ((long double)in[0][t] + in[1][t] + in[2][t]) / 3;
    if (md == 0) {
        *out = 0.0;
        return;
    }
    *out = (double)((tp - m) / (0.015L * md));
    /* The kernel's tp and mean are rounded to double: errors of |tp| ulps in tp - m. */
    *scale = (double)((fabsl(tp) + fabsl(tp - m)) / (0.015L * md));
}

void apo__ref_cat_cci(const double *const *in, size_t n, const double *p, double *out,
                      double *scale) {
    window_reference(in, 3, n, (size_t)p[0], 0, out, scale, cci_bar);
}

/* The least-squares line of the window ending at t: its value at t (value 1) or its slope. */
static void linearreg_at(const double *x, size_t t, size_t q, double *out, double *scale,
                         int value) {
    const long double jbar = (q - 1) / 2.0L;
    long double s = 0, m = 0;
    for (size_t j = 0; j < q; j++) {
        s += x[t + 1 - q + j];
        m = fabsl(x[t + 1 - q + j]) > m ? fabsl(x[t + 1 - q + j]) : m;
    }
    const long double ybar = s / q;
    long double sxy = 0, sxx = 0;
    for (size_t j = 0; j < q; j++) {
        sxy += (j - jbar) * (x[t + 1 - q + j] - ybar);
        sxx += (j - jbar) * (j - jbar);
    }
    const long double slope = sxy / sxx;
    *out = (double)(value ? ybar + slope * ((q - 1) - jbar) : slope);
    *scale = (double)(value ? m : m / q);
}

static void linearreg_value_bar(const double *const *in, size_t t, size_t q, double *out,
                                double *scale) {
    linearreg_at(in[0], t, q, out, scale, 1);
}

static void linearreg_slope_bar(const double *const *in, size_t t, size_t q, double *out,
                                double *scale) {
    linearreg_at(in[0], t, q, out, scale, 0);
}

static void linearreg(const double *const *in, size_t n, const double *p, double *out,
                      double *scale, int value) {
    window_reference(in, 1, n, (size_t)p[0], 0, out, scale,
                     value ? linearreg_value_bar : linearreg_slope_bar);
}

APO_REF_VARIANT(apo__ref_cat_linearreg, linearreg, 1)
APO_REF_VARIANT(apo__ref_cat_linearreg_slope, linearreg, 0)

/* Centred second moments of the window of pairs ending at t, two-pass. */
static void pair_moments(const long double *a, const long double *b, size_t q, long double *vaa,
                         long double *vbb, long double *vab) {
    long double sa = 0, sb = 0;
    for (size_t i = 0; i < q; i++) {
        sa += a[i];
        sb += b[i];
    }
    const long double ma = sa / q, mb = sb / q;
    *vaa = *vbb = *vab = 0;
    for (size_t i = 0; i < q; i++) {
        *vaa += (a[i] - ma) * (a[i] - ma);
        *vbb += (b[i] - mb) * (b[i] - mb);
        *vab += (a[i] - ma) * (b[i] - mb);
    }
}

static int all_equal(const long double *a, size_t q) {
    for (size_t i = 1; i < q; i++)
        if (a[i] != a[0])
            return 0;
    return 1;
}

/* A return as beta's definition has it: rounded to double, 0 after a close of 0. */
static double simple_return(const double *x, size_t k) {
    return x[k - 1] != 0 ? (x[k] - x[k - 1]) / x[k - 1] : 0.0;
}

/* correl (beta 0: the pairs of samples of the q bars ending at t) and beta (beta 1: the pairs of
 * returns over the q + 1 bars ending at t), where both inputs are finite over those bars: one
 * loop, the two moments of the pairs, and each its ratio of them (0 where the pairs it divides
 * by are all equal). */
static void pair_reference(const double *const *in, size_t n, const double *p, double *out,
                           double *scale, int beta) {
    const size_t q = (size_t)p[0], lag = beta ? 1 : 0;
    long double *a = malloc(q * sizeof *a), *b = malloc(q * sizeof *b);
    if (a == NULL || b == NULL)
        abort();
    nan_fill(out, scale, n);
    for (size_t t = q - 1 + lag; t < n; t++) {
        if (!finite_window(in[0], t + 1 - q - lag, t + 1) ||
            !finite_window(in[1], t + 1 - q - lag, t + 1))
            continue;
        for (size_t i = 0; i < q; i++) {
            const size_t k = t + 1 - q + i;
            a[i] = beta ? simple_return(in[0], k) : in[0][k];
            b[i] = beta ? simple_return(in[1], k) : in[1][k];
        }
        if (all_equal(a, q) || (!beta && all_equal(b, q))) {
            out[t] = 0.0;
            continue;
        }
        long double vaa, vbb, vab;
        pair_moments(a, b, q, &vaa, &vbb, &vab);
        out[t] = (double)(beta ? vab / vaa : vab / sqrtl(vaa * vbb));
        scale[t] = beta ? (double)(1 + fabsl(vab / vaa)) : 1.0;
    }
    free(a);
    free(b);
}

APO_REF_VARIANT(apo__ref_cat_correl, pair_reference, 0)
APO_REF_VARIANT(apo__ref_cat_beta, pair_reference, 1)

/* Aroon over the q + 1 bars ending at t; `up` 1: the highest high, 0: the lowest low; the
 * most recent extreme wins a tie. */
static void aroon_at(const double *v, size_t t, size_t q, double *out, double *scale, int up) {
    size_t at = t - q;
    for (size_t i = t - q; i <= t; i++)
        if (up ? v[i] >= v[at] : v[i] <= v[at])
            at = i;
    *out = (double)(100.0L * (q - (t - at)) / q);
    *scale = 100;
}

static void aroonup_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    aroon_at(in[0], t, q, out, scale, 1);
}

static void aroondown_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    aroon_at(in[1], t, q, out, scale, 0);
}

/* The high and the low clean over the q changes ending at t (lag 1: q + 1 bars). */
static void aroon(const double *const *in, size_t n, const double *p, double *out, double *scale,
                  int up) {
    window_reference(in, 2, n, (size_t)p[0], 1, out, scale, up ? aroonup_bar : aroondown_bar);
}

APO_REF_VARIANT(apo__ref_cat_aroondown, aroon, 0)
APO_REF_VARIANT(apo__ref_cat_aroonup, aroon, 1)

/* fastk at i in long double, NaN where a sample is not finite. */
static long double ref_fastk(const double *const *in, size_t i, size_t fk) {
    /* It reads the window's highs and lows and the close at i only. */
    if (!finite_window(in[0], i + 1 - fk, i + 1) || !finite_window(in[1], i + 1 - fk, i + 1) ||
        !isfinite(in[2][i]))
        return NAN;
    double h = in[0][i + 1 - fk], l = in[1][i + 1 - fk];
    for (size_t j = i + 2 - fk; j <= i; j++) {
        h = in[0][j] > h ? in[0][j] : h;
        l = in[1][j] < l ? in[1][j] : l;
    }
    if (h == l)
        return 0;
    return 100.0L * ((long double)in[2][i] - l) / ((long double)h - l);
}

/* The mean of fastk over the n bars ending at i. */
static long double ref_fastk_mean(const double *const *in, size_t i, size_t fk, size_t n) {
    long double s = 0;
    for (size_t j = i + 1 - n; j <= i; j++)
        s += ref_fastk(in, j, fk);
    return s / n;
}

/* which 0: fastk, 1: fastd (STOCHF); 2: slowk, 3: slowd (STOCH). p: fastk_period, then
 * fastd_period (STOCHF) or slowk_period, matype, slowd_period (STOCH). */
static void stoch(const double *const *in, size_t n, const double *p, double *out, double *scale,
                  int which) {
    const size_t fk = (size_t)p[0], second = (size_t)p[1];
    const size_t third = which >= 2 ? (size_t)p[3] : 1;
    const size_t lookback = (fk - 1) + (second - 1) + (third - 1);
    nan_fill(out, scale, n);
    for (size_t t = lookback; t < n; t++) {
        long double v;
        if (which == 0) {
            v = ref_fastk(in, t, fk);
        } else if (which == 1 || which == 2) {
            v = ref_fastk_mean(in, t, fk, second);
        } else {
            v = 0;
            for (size_t j = t + 1 - third; j <= t; j++)
                v += ref_fastk_mean(in, j, fk, second);
            v /= third;
        }
        out[t] = (double)v;
        scale[t] = isnan(out[t]) ? 0.0 : 100.0;
    }
}

APO_REF_VARIANT(apo__ref_cat_stochf_fastk, stoch, 0)
APO_REF_VARIANT(apo__ref_cat_stochf_fastd, stoch, 1)
APO_REF_VARIANT(apo__ref_cat_stoch_slowk, stoch, 2)
APO_REF_VARIANT(apo__ref_cat_stoch_slowd, stoch, 3)

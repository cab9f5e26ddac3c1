/* Long-double references of the momentum functions on moving averages; see
 * catalog_reference_momentum_ma.h. */
#include "catalog_reference_momentum_ma.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

#include "reference.h"

/* A series of long doubles, each value present or not (a gap, or before a seed). */
typedef struct ld_series {
    long double *v;
    int *ok;
} ld_series;

static ld_series ld_alloc(size_t n) {
    ld_series s;
    s.v = calloc(n ? n : 1, sizeof *s.v);
    s.ok = calloc(n ? n : 1, sizeof *s.ok);
    if (s.v == NULL || s.ok == NULL)
        abort();
    return s;
}

static void ld_free(ld_series *s) {
    free(s->v);
    free(s->ok);
}

static ld_series ld_of(const double *x, size_t n) {
    ld_series s = ld_alloc(n);
    for (size_t t = 0; t < n; t++) {
        s.ok[t] = isfinite(x[t]) != 0;
        s.v[t] = s.ok[t] ? x[t] : 0;
    }
    return s;
}

/* The EMA of rate k over the present values of in: seeded with the mean of the first q of
 * them, then e += k (v - e) at each later one; absent before its seed and where in is. */
static ld_series ld_ema(const ld_series *in, size_t n, size_t q, long double k) {
    ld_series e = ld_alloc(n);
    size_t seen = 0;
    long double sum = 0, avg = 0;
    for (size_t t = 0; t < n; t++) {
        if (!in->ok[t])
            continue;
        if (seen < q) {
            sum += in->v[t];
            if (++seen < q)
                continue;
            avg = sum / q;
        } else {
            avg = avg + k * (in->v[t] - avg);
        }
        e.v[t] = avg;
        e.ok[t] = 1;
    }
    return e;
}

static double max_abs_of(const double *x, size_t n) {
    double m = 0;
    for (size_t t = 0; t < n; t++)
        if (isfinite(x[t]) && fabs(x[t]) > m)
            m = fabs(x[t]);
    return m;
}

/* trix = 100 (e3 / e3' - 1), e3' the e3 of the last sample before that has one. The error of
 * each e3 is some ulps of the data's largest magnitude m, so the ratio's is that over |e3'|,
 * times 1 + |e3 / e3'|. */
void apo__ref_cat_trix(const double *const *in, size_t n, const double *p, double *out,
                       double *scale) {
    const size_t q = (size_t)p[0];
    const long double k = 2.0L / (q + 1);
    const double m = max_abs_of(in[0], n);
    ld_series x = ld_of(in[0], n);
    ld_series e1 = ld_ema(&x, n, q, k);
    ld_series e2 = ld_ema(&e1, n, q, k);
    ld_series e3 = ld_ema(&e2, n, q, k);
    nan_fill(out, scale, n);
    int have_prev = 0;
    long double prev = 0;
    for (size_t t = 0; t < n; t++) {
        if (!e3.ok[t])
            continue;
        if (have_prev) {
            const long double ratio = prev != 0 ? e3.v[t] / prev : 0;
            out[t] = prev != 0 ? (double)(100 * (ratio - 1)) : 0.0;
            scale[t] = prev != 0 ? (double)(100 * (1 + fabsl(ratio)) * m / fabsl(prev)) : 0.0;
        }
        have_prev = 1;
        prev = e3.v[t];
    }
    ld_free(&x);
    ld_free(&e1);
    ld_free(&e2);
    ld_free(&e3);
}

/* MACD with the fast and slow rates kf, ks over periods 12 and 26 (macdfix's) and the signal
 * EMA(signal): which = 0 macd, 1 signal, 2 hist, all three only where the signal is. The slow
 * EMA's seed is the mean of the first 26 finite samples, the fast EMA's the mean of the last 12
 * of those; the macd line starts there, at the slow seed (docs/kernels.md, "## macd"). */
static void macd_rates(const double *x, size_t n, size_t signal, long double kf, long double ks,
                       int which, double *out, double *scale) {
    const size_t fast = 12, slow = 26;
    const double m = max_abs_of(x, n);
    nan_fill(out, scale, n);
    ld_series line = ld_alloc(n);
    size_t seen = 0;
    long double ef = 0, es = 0;
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(x[t]))
            continue;
        if (++seen < slow)
            continue;
        if (seen == slow) {
            /* The seeds: the slow mean of every finite sample so far, the fast of the last 12. */
            long double sum_slow = 0, sum_fast = 0;
            size_t counted = 0;
            for (size_t i = t + 1; i-- > 0;) {
                if (!isfinite(x[i]))
                    continue;
                sum_slow += x[i];
                if (counted++ < fast)
                    sum_fast += x[i];
            }
            es = sum_slow / slow;
            ef = sum_fast / fast;
        } else {
            ef = ef + kf * (x[t] - ef);
            es = es + ks * (x[t] - es);
        }
        line.v[t] = ef - es;
        line.ok[t] = 1;
    }
    ld_series sig = ld_ema(&line, n, signal, 2.0L / (signal + 1));
    for (size_t t = 0; t < n; t++) {
        if (!sig.ok[t])
            continue;
        const long double v = which == 0 ? line.v[t] : which == 1 ? sig.v[t] : line.v[t] - sig.v[t];
        out[t] = (double)v;
        scale[t] = m;
    }
    ld_free(&line);
    ld_free(&sig);
}

void apo__ref_cat_macdfix_macd(const double *const *in, size_t n, const double *p, double *out,
                               double *scale) {
    macd_rates(in[0], n, (size_t)p[0], 0.15L, 0.075L, 0, out, scale);
}

void apo__ref_cat_macdfix_signal(const double *const *in, size_t n, const double *p, double *out,
                                 double *scale) {
    macd_rates(in[0], n, (size_t)p[0], 0.15L, 0.075L, 1, out, scale);
}

void apo__ref_cat_macdfix_hist(const double *const *in, size_t n, const double *p, double *out,
                               double *scale) {
    macd_rates(in[0], n, (size_t)p[0], 0.15L, 0.075L, 2, out, scale);
}

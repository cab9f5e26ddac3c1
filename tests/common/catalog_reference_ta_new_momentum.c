/* Long-double references of TA-Lib 0.8's newer momentum kernels; see
 * catalog_reference_ta_new_momentum.h. */
#include "catalog_reference_ta_new_momentum.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

/* The largest magnitude of inputs 0 .. m-1 over [from, to]. */
static long double largest(const double *const *in, size_t m, size_t from, size_t to) {
    long double big = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t t = from; t <= to; t++)
            big = fabsl((long double)in[i][t]) > big ? fabsl((long double)in[i][t]) : big;
    return big;
}

static long double median(const double *const *in, size_t i) {
    return ((long double)in[0][i] + in[1][i]) / 2;
}

/* The mean of the median prices of the q bars ending at t. */
static long double median_mean(const double *const *in, size_t t, size_t q) {
    long double s = 0;
    for (size_t i = t + 1 - q; i <= t; i++)
        s += median(in, i);
    return s / q;
}

static void qstick_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double s = 0, big = 0;
    for (size_t i = t + 1 - q; i <= t; i++) {
        const long double body = (long double)in[1][i] - in[0][i];
        s += body;
        big = fabsl(body) > big ? fabsl(body) : big;
    }
    *out = (double)(s / q);
    /* The bodies are rounded to double, an ulp of the prices each. */
    *scale = (double)(big + 0x1p-53L * largest(in, 2, t + 1 - q, t) * 4);
}

void apo__ref_cat_qstick(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    window_reference(in, 2, n, (size_t)p[0], 0, out[0], scale[0], qstick_bar);
}

static long double ao_at(const double *const *in, size_t t, size_t fast, size_t slow) {
    return median_mean(in, t, fast) - median_mean(in, t, slow);
}

void apo__ref_cat_ao(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    const size_t fast = (size_t)p[0], slow = (size_t)p[1], longer = fast > slow ? fast : slow;
    nan_fill(out[0], scale[0], n);
    for (size_t t = longer - 1; t < n; t++) {
        if (!clean(in, 2, t + 1 - longer, t))
            continue;
        out[0][t] = (double)ao_at(in, t, fast, slow);
        scale[0][t] = (double)largest(in, 2, t + 1 - longer, t);
    }
}

void apo__ref_cat_ac(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    const size_t fast = (size_t)p[0], slow = (size_t)p[1], signal = (size_t)p[2];
    const size_t longer = fast > slow ? fast : slow, lookback = longer - 1 + signal - 1;
    nan_fill(out[0], scale[0], n);
    for (size_t t = lookback; t < n; t++) {
        if (!clean(in, 2, t - lookback, t))
            continue;
        long double s = 0;
        for (size_t u = t + 1 - signal; u <= t; u++)
            s += ao_at(in, u, fast, slow);
        out[0][t] = (double)(ao_at(in, t, fast, slow) - s / signal);
        scale[0][t] = (double)largest(in, 2, t - lookback, t);
    }
}

void apo__ref_cat_dpo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t q = (size_t)p[0], shift = q / 2 + 1, lookback = q - 1 > shift ? q - 1 : shift;
    nan_fill(out[0], scale[0], n);
    for (size_t t = lookback; t < n; t++) {
        if (!clean(in, 1, t + 1 - q, t) || !isfinite(in[0][t - shift]))
            continue;
        long double s = 0;
        for (size_t i = t + 1 - q; i <= t; i++)
            s += in[0][i];
        out[0][t] = (double)((long double)in[0][t - shift] - s / q);
        scale[0][t] = (double)largest(in, 1, t - lookback, t);
    }
}

/* The sums of the rises and of the falls' magnitudes of the q changes ending at t. */
static void moves(const double *x, size_t t, size_t q, long double *up, long double *down) {
    *up = *down = 0;
    for (size_t i = t + 1 - q; i <= t; i++) {
        const long double d = (long double)x[i] - x[i - 1];
        if (d > 0)
            *up += d;
        else
            *down -= d;
    }
}

static void cmou_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double up, down;
    moves(in[0], t, q, &up, &down);
    *out = up + down == 0 ? 0.0 : (double)(100 * (up - down) / (up + down));
    *scale = 100;
}

void apo__ref_cat_cmou(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    window_reference(in, 1, n, (size_t)p[0], 1, out[0], scale[0], cmou_bar);
}

static void er_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double up, down;
    moves(in[0], t, q, &up, &down);
    const long double net = fabsl((long double)in[0][t] - in[0][t - q]);
    *out = up + down == 0 ? 1.0 : (double)(net / (up + down));
    *scale = 1;
}

void apo__ref_cat_er(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    window_reference(in, 1, n, (size_t)p[0], 1, out[0], scale[0], er_bar);
}

static void vhf_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double up, down, hi = in[0][t], lo = in[0][t];
    moves(in[0], t, q, &up, &down);
    for (size_t i = t + 1 - q; i <= t; i++) {
        hi = in[0][i] > hi ? in[0][i] : hi;
        lo = in[0][i] < lo ? in[0][i] : lo;
    }
    *out = up + down == 0 ? 0.0 : (double)((hi - lo) / (up + down));
    *scale = 1;
}

void apo__ref_cat_vhf(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    window_reference(in, 1, n, (size_t)p[0], 1, out[0], scale[0], vhf_bar);
}

/* roc's rate of change of x[j] over r bars, 0 where x[j-r] is 0. */
static long double rate(const double *x, size_t j, size_t r) {
    return x[j - r] == 0 ? 0 : ((long double)x[j] / x[j - r] - 1) * 100;
}

void apo__ref_cat_coppock(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale) {
    const size_t w = (size_t)p[0], r1 = (size_t)p[1], r2 = (size_t)p[2];
    const size_t lookback = (r1 > r2 ? r1 : r2) + w - 1;
    nan_fill(out[0], scale[0], n);
    for (size_t t = lookback; t < n; t++) {
        /* The closes the output reads: x[j], x[j-r1] and x[j-r2] of its w bars j. */
        int ok = 1;
        for (size_t j = t + 1 - w; j <= t; j++)
            ok = ok && isfinite(in[0][j]) && isfinite(in[0][j - r1]) && isfinite(in[0][j - r2]);
        if (!ok)
            continue;
        long double s = 0, mag = 0;
        for (size_t i = 1; i <= w; i++) {
            const size_t j = t + i - w;
            s += i * (rate(in[0], j, r1) + rate(in[0], j, r2));
            /* roc's scale for each rate (the quotient is rounded to double). */
            mag += i * 100 *
                   (fabsl(rate(in[0], j, r1) / 100 + 1) + fabsl(rate(in[0], j, r2) / 100 + 1));
        }
        const long double divider = (long double)w * (w + 1) / 2;
        out[0][t] = (double)(s / divider);
        scale[0][t] = (double)(mag / divider);
    }
}

/* The EMA of the close from the series' start, TA-Lib's seed (the mean of the first q finite
 * closes) and step, a non-finite close skipped (NaN there); the close itself at q = 1. */
static void ema(const double *x, size_t n, size_t q, long double *e, int *has) {
    const long double k = 2.0L / (q + 1);
    long double v = 0, sum = 0;
    size_t seen = 0;
    for (size_t t = 0; t < n; t++) {
        has[t] = 0;
        if (!isfinite(x[t]))
            continue;
        if (seen < q) {
            sum += x[t];
            if (++seen == q)
                v = sum / q;
            else
                continue;
        } else {
            v = q == 1 ? (long double)x[t] : v + k * (x[t] - v);
        }
        e[t] = v;
        has[t] = 1;
    }
}

void apo__ref_cat_eri(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill(out[0], scale[0], n);
    nan_fill(out[1], scale[1], n);
    long double *e = malloc((n + 1) * sizeof *e);
    int *has = malloc((n + 1) * sizeof *has);
    ema(in[2], n, q, e, has);
    long double big = 0;
    for (size_t t = 0; t < n; t++) {
        if (isfinite(in[2][t]))
            big = fabsl((long double)in[2][t]) > big ? fabsl((long double)in[2][t]) : big;
        if (!has[t])
            continue;
        for (size_t k = 0; k < 2; k++) {
            if (!isfinite(in[k][t]))
                continue;
            out[k][t] = (double)((long double)in[k][t] - e[t]);
            /* The EMA's scale (ema's: the series' largest close) and the extreme's. */
            scale[k][t] = (double)(big + fabsl((long double)in[k][t]));
        }
    }
    free(e);
    free(has);
}

/* One stage of tsi's EMA: the seed's sum until its q-th value, its mean there, then the step.
 * Returns 1 where the stage has a value. */
static int stage(long double *e, long double *sum, size_t *seen, size_t q, long double v) {
    if (*seen < q) {
        *sum += v;
        if (++*seen < q)
            return 0;
        *e = *sum / q;
        return 1;
    }
    *e += 2.0L / (q + 1) * (v - *e);
    return 1;
}

void apo__ref_cat_tsi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t q1 = (size_t)p[0], q2 = (size_t)p[1];
    const double *x = in[0];
    nan_fill(out[0], scale[0], n);
    long double n1 = 0, d1 = 0, n2 = 0, d2 = 0, sn1 = 0, sd1 = 0, sn2 = 0, sd2 = 0;
    size_t seen1 = 0, seen1d = 0, seen2 = 0, seen2d = 0;
    for (size_t t = 1; t < n; t++) {
        if (!isfinite(x[t]) || !isfinite(x[t - 1]))
            continue;
        const long double m = (long double)x[t] - x[t - 1];
        const int first = stage(&n1, &sn1, &seen1, q1, m);
        stage(&d1, &sd1, &seen1d, q1, fabsl(m));
        if (!first)
            continue;
        const int second = stage(&n2, &sn2, &seen2, q2, n1);
        stage(&d2, &sd2, &seen2d, q2, d1);
        if (!second)
            continue;
        out[0][t] = d2 > 0 ? (double)(100 * n2 / d2) : 0.0;
        scale[0][t] = 100;
    }
}

void apo__ref_cat_vortex(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    const size_t q = (size_t)p[0];
    const double *h = in[0], *l = in[1], *c = in[2];
    nan_fill(out[0], scale[0], n);
    nan_fill(out[1], scale[1], n);
    for (size_t t = q; t < n; t++) {
        if (!clean(in, 2, t - q, t) || !clean(in + 2, 1, t - q, t - 1))
            continue;
        long double tr = 0, up = 0, down = 0;
        for (size_t i = t + 1 - q; i <= t; i++) {
            long double r = (long double)h[i] - l[i];
            r = fabsl((long double)c[i - 1] - h[i]) > r ? fabsl((long double)c[i - 1] - h[i]) : r;
            r = fabsl((long double)c[i - 1] - l[i]) > r ? fabsl((long double)c[i - 1] - l[i]) : r;
            tr += r;
            up += fabsl((long double)h[i] - l[i - 1]);
            down += fabsl((long double)l[i] - h[i - 1]);
        }
        const long double vi[2] = {up, down};
        for (size_t k = 0; k < 2; k++) {
            out[k][t] = tr > 0 ? (double)(vi[k] / tr) : 0.0;
            scale[k][t] = tr > 0 ? (double)(1 + vi[k] / tr) : 1;
        }
    }
}

static void fosc_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    const double *x = in[0];
    /* The least-squares line of the q closes ending at t - 1 (j = 0 the oldest), at j = q. */
    long double sy = 0, sjy = 0;
    for (size_t j = 0; j < q; j++) {
        sy += x[t - q + j];
        sjy += (long double)j * x[t - q + j];
    }
    const long double mj = (q - 1) / 2.0L, mean = sy / q;
    const long double sjj = (long double)q * ((long double)q * q - 1) / 12;
    const long double slope = (sjy - mj * sy) / sjj;
    const long double f = mean + slope * (q - mj);
    if (x[t] == 0) {
        *out = 0.0;
        *scale = 1;
        return;
    }
    *out = (double)(100 * ((long double)x[t] - f) / x[t]);
    /* tsf's scale (the window's largest |x|) carried through the quotient, and the
     * output's own rounding. */
    *scale = (double)(100 * largest(in, 1, t - q, t - 1) / fabsl((long double)x[t]) + fabsl(*out));
}

void apo__ref_cat_fosc(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    window_reference(in, 1, n, (size_t)p[0], 1, out[0], scale[0], fosc_bar);
}

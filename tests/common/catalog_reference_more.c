/* Long-double references of more catalog kernels; see catalog_reference_more.h. */
#include "catalog_reference_more.h"
#include "catalog_reference_common.h"
#include "catalog_reference_momentum_dm.h"

#include <math.h>
#include <stdlib.h>

void apo__ref_cat_zscore(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill_outputs(out, scale, 1, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!clean(in, 1, t + 1 - q, t))
            continue;
        long double m = 0, v = 0;
        int same = 1;
        for (size_t i = t + 1 - q; i <= t; i++) {
            m += x[i];
            same = same && x[i] == x[t];
        }
        m /= q;
        for (size_t i = t + 1 - q; i <= t; i++)
            v += (x[i] - m) * (x[i] - m);
        v /= q;
        if (same || v == 0) {
            out[0][t] = 0.0;
            continue;
        }
        /* x - sum / q as (q x - sum) / q: q x and a sum of q doubles of one magnitude are
         * exact in long double, so the deviation does not cancel here either. */
        long double sum = 0;
        for (size_t i = t + 1 - q; i <= t; i++)
            sum += x[i];
        const long double z = ((long double)q * x[t] - sum) / q / sqrtl(v);
        out[0][t] = (double)z;
        /* The kernel's deviation is exact to about 2^-100 of the mean. */
        scale[0][t] = (double)(fabsl(z) + fabsl(m) / sqrtl(v) * 0x1p-90L);
    }
}

/* Wilder's directional movement (apo__ref_dmi_pass); which 0: +DI, 1: -DI, 2: ADX. */
static void dmi(const double *const *in, size_t n, const double *p, double *const *out,
                double *const *scale, int which) {
    long double *line = malloc((n > 0 ? n : 1) * sizeof *line);
    if (line == NULL)
        abort();
    apo__ref_dmi_pass(in, n, (size_t)p[0], which == 0 ? line : NULL, which == 1 ? line : NULL, NULL,
                      which == 2 ? line : NULL);
    nan_fill_outputs(out, scale, 1, n);
    for (size_t t = 0; t < n; t++)
        if (!isnan(line[t])) {
            out[0][t] = (double)line[t];
            scale[0][t] = 100.0;
        }
    free(line);
}

APO_REF_VARIANT_OUTPUTS(apo__ref_cat_plus_di, dmi, 0)
APO_REF_VARIANT_OUTPUTS(apo__ref_cat_minus_di, dmi, 1)
APO_REF_VARIANT_OUTPUTS(apo__ref_cat_adx, dmi, 2)

static long double typical(const double *const *in, size_t t) {
    return ((long double)in[0][t] + in[1][t] + in[2][t]) / 3;
}

void apo__ref_cat_mfi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill_outputs(out, scale, 1, n);
    for (size_t t = q; t < n; t++) {
        if (!clean(in, 4, t - q, t))
            continue;
        long double pos = 0, neg = 0, size = 0;
        for (size_t i = t + 1 - q; i <= t; i++) {
            const long double tp = typical(in, i), prev = typical(in, i - 1);
            if (tp > prev)
                pos += tp * in[3][i];
            else if (tp < prev)
                neg += tp * in[3][i];
            size += tp != prev ? fabsl(tp * in[3][i]) : 0;
        }
        out[0][t] = pos + neg == 0 ? 0.0 : (double)(100 * pos / (pos + neg));
        /* 100, times the condition of pos + neg: flows of both signs (prices below 0, as a
         * long walk reaches) cancel in the denominator. */
        scale[0][t] = pos + neg == 0 ? 0.0 : (double)(100 * size / fabsl(pos + neg));
    }
}

void apo__ref_cat_mvwap(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill_outputs(out, scale, 1, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!clean(in, 4, t + 1 - q, t))
            continue;
        long double f = 0, v = 0, m = 0;
        for (size_t i = t + 1 - q; i <= t; i++) {
            const long double tp = typical(in, i);
            f += tp * in[3][i];
            v += in[3][i];
            m = fabsl(tp) > m ? fabsl(tp) : m;
        }
        if (v == 0)
            continue;
        out[0][t] = (double)(f / v);
        scale[0][t] = (double)m;
    }
}

void apo__ref_cat_kama(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    const long double fastest = 2.0L / 3, slowest = 2.0L / 31;
    double m = 0;
    for (size_t t = 0; t < n; t++)
        if (isfinite(x[t]) && fabs(x[t]) > m)
            m = fabs(x[t]);
    nan_fill_outputs(out, scale, 1, n);
    size_t start = 0;
    long double kama = 0;
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(x[t])) {
            start = t + 1;
            continue;
        }
        if (t < start + q)
            continue;
        if (t == start + q)
            kama = x[t - 1];
        long double noise = 0;
        for (size_t i = t + 1 - q; i <= t; i++)
            noise += fabsl((long double)x[i] - x[i - 1]);
        const long double roc = (long double)x[t] - x[t - q];
        const long double er = noise <= roc || noise == 0 ? 1 : fabsl(roc / noise);
        const long double sc =
            (er * (fastest - slowest) + slowest) * (er * (fastest - slowest) + slowest);
        kama = kama + sc * (x[t] - kama);
        out[0][t] = (double)kama;
        scale[0][t] = m;
    }
}

void apo__ref_cat_adosc(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale) {
    const size_t fast = (size_t)p[0], slow = (size_t)p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    const long double fk = 2.0L / (fast + 1), sk = 2.0L / (slow + 1);
    nan_fill_outputs(out, scale, 1, n);
    /* The scale: the largest abs(AD) of the series, which the double running sum that
     * TA-Lib's definition keeps (and the kernel's first tile) rounds. */
    long double ad = 0, fe = 0, se = 0, big = 0;
    size_t seen = 0;
    for (size_t t = 0; t < n; t++) {
        if (!clean(in, 4, t, t))
            continue;
        const long double range = (long double)in[0][t] - in[1][t];
        if (range > 0)
            ad += (((long double)in[2][t] - in[1][t]) - ((long double)in[0][t] - in[2][t])) /
                  range * in[3][t];
        big = fabsl(ad) > big ? fabsl(ad) : big;
        if (seen++ == 0) {
            fe = se = ad;
        } else {
            fe = fe + fk * (ad - fe);
            se = se + sk * (ad - se);
        }
        if (seen > lookback)
            out[0][t] = (double)(fe - se);
    }
    for (size_t t = 0; t < n; t++)
        if (!isnan(out[0][t]))
            scale[0][t] = (double)big;
}

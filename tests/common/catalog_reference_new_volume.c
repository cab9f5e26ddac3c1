/*
 * catalog_reference_new_volume.c: see catalog_reference_new_volume.h.
 */
#include "catalog_reference_new_volume.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

#include "catalog_reference_momentum_ma2.h"

static void marketfi_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    (void)q;
    const long double h = in[0][t], l = in[1][t], v = in[2][t];
    *out = v != 0 ? (double)((h - l) / v) : 0.0;
    *scale = v != 0 ? (double)((fabsl(h) + fabsl(l)) / fabsl(v)) : 1.0;
}

void apo__ref_cat_marketfi(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    (void)p;
    window_reference(in, 3, n, 1, 0, out[0], scale[0], marketfi_bar);
}

/* pvt's step: the close's change over the previous close, times the volume (nothing at the
 * first clean bar or where the previous close is 0). */
static void pvt_step(const double *const *in, size_t t, long double prev, int first,
                     long double *sum, long double *bound) {
    const long double c = in[0][t], v = in[1][t];
    if (first || prev == 0)
        return;
    *sum += (c - prev) / prev * v;
    *bound += (fabsl(c) + fabsl(prev)) / fabsl(prev) * fabsl(v);
}

void apo__ref_cat_pvt(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    running_reference(in, 2, 0, n, out[0], scale[0], pvt_step);
}

static void adr_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double s = 0, m = 0;
    for (size_t i = t + 1 - q; i <= t; i++) {
        const double range = in[0][i] - in[1][i];
        s += range;
        m = fabsl((long double)range) > m ? fabsl((long double)range) : m;
    }
    *out = (double)(s / q);
    *scale = (double)m;
}

void apo__ref_cat_adr(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    window_reference(in, 2, n, (size_t)p[0], 0, out[0], scale[0], adr_bar);
}

static void cmf_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double flow = 0, vol = 0, terms = 0;
    for (size_t i = t + 1 - q; i <= t; i++) {
        const long double h = in[0][i], l = in[1][i], c = in[2][i], v = in[3][i];
        if (h - l > 0) {
            flow += ((c - l) - (h - c)) / (h - l) * v;
            terms += (fabsl(c - l) + fabsl(h - c)) / (h - l) * fabsl(v);
        }
        vol += v;
    }
    const long double cmf = vol > 0 ? flow / vol : 0;
    *out = (double)cmf;
    *scale = (double)((vol > 0 ? terms / vol : 0) + fabsl(cmf));
}

void apo__ref_cat_cmf(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    window_reference(in, 4, n, (size_t)p[0], 0, out[0], scale[0], cmf_bar);
}

static void rvol_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double s = 0;
    for (size_t i = t - q; i < t; i++)
        s += in[0][i];
    if (s == 0)
        return;
    const long double r = in[0][t] / (s / q);
    *out = (double)r;
    *scale = (double)fabsl(r);
}

void apo__ref_cat_rvol(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    window_reference(in, 1, n, (size_t)p[0], 1, out[0], scale[0], rvol_bar);
}

/* Elder's force index: the EMA of rate 2/(p+1) of (close - close before) * volume, seeded with
 * the mean of the first p finite forces; a force whose close, close before or volume is not
 * finite is skipped (NaN at its bar); p = 1 is the force itself. */
void apo__ref_cat_efi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const double *close = in[0], *volume = in[1];
    const size_t q = (size_t)p[0];
    const long double k = 2.0L / (q + 1);
    nan_fill(out[0], scale[0], n);
    long double ema = 0, seed = 0, m = 0;
    size_t seen = 0;
    for (size_t t = 1; t < n; t++) {
        if (!(isfinite(close[t]) && isfinite(close[t - 1]) && isfinite(volume[t])))
            continue;
        const long double force = ((long double)close[t] - close[t - 1]) * volume[t];
        m = fabsl(force) > m ? fabsl(force) : m;
        seen++;
        if (seen < q) {
            seed += force;
            continue;
        }
        if (seen == q)
            ema = q == 1 ? force : (seed + force) / q;
        else
            ema = q == 1 ? force : ema + k * (force - ema);
        out[0][t] = (double)ema;
        scale[0][t] = (double)m;
    }
}

void apo__ref_cat_pvo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    apo__ref_cat_ppo(in, n, p, out, scale);
}

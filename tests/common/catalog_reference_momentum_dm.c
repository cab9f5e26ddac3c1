/* Long-double references of the momentum and directional movement kernels; see
 * catalog_reference_momentum_dm.h. */
#include "catalog_reference_momentum_dm.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

/* Bar t's moves (t >= 1): +DM and -DM, the larger move where it is above 0. */
static void moves(const double *h, const double *l, size_t t, long double *pdm, long double *mdm) {
    const long double up = (long double)h[t] - h[t - 1], down = (long double)l[t - 1] - l[t];
    *pdm = up > 0 && up > down ? up : 0;
    *mdm = down > 0 && down > up ? down : 0;
}

/* The Wilder sum of +DM (plus) or -DM: seeded with the plain sum of the first p - 1 clean
 * bars, output there, then S - S/p + DM; gap bars skipped. */
static void dm(const double *const *in, size_t n, const double *p, double *out, double *scale,
               int plus) {
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    size_t seen = 0;
    long double s = 0, largest = 0;
    for (size_t t = 1; t < n; t++) {
        if (!clean(in, 2, t - 1, t))
            continue;
        long double pdm, mdm;
        moves(in[0], in[1], t, &pdm, &mdm);
        const long double v = plus ? pdm : mdm;
        largest = v > largest ? v : largest;
        s = ++seen < q ? s + v : s - s / q + v;
        if (seen + 1 >= q) {
            out[t] = (double)s;
            /* The sum, and one move: its error is a few roundings of the sums it was. */
            scale[t] = (double)(s + largest);
        }
    }
}

void apo__ref_cat_plus_dm(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale) {
    dm(in, n, p, out[0], scale[0], 1);
}

void apo__ref_cat_minus_dm(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    dm(in, n, p, out[0], scale[0], 0);
}

/* Sets v[t] where the caller asked for that line (v not NULL). */
static void put(long double *v, size_t t, long double value) {
    if (v != NULL)
        v[t] = value;
}

void apo__ref_dmi_pass(const double *const *in, size_t n, size_t q, long double *pdi_out,
                       long double *mdi_out, long double *dx_out, long double *adx_out) {
    const double *h = in[0], *l = in[1], *c = in[2];
    size_t seen = 0, dxn = 0;
    long double sp = 0, sm = 0, st = 0, adx = 0, last_dx = 0;
    for (size_t t = 0; t < n; t++) {
        put(pdi_out, t, NAN);
        put(mdi_out, t, NAN);
        put(dx_out, t, NAN);
        put(adx_out, t, NAN);
        if (t == 0 || !clean(in, 2, t - 1, t) || !isfinite(c[t - 1]))
            continue;
        long double pdm, mdm;
        moves(h, l, t, &pdm, &mdm);
        const long double hc = fabsl((long double)h[t] - c[t - 1]);
        const long double lc = fabsl((long double)l[t] - c[t - 1]);
        long double tr = (long double)h[t] - l[t];
        tr = hc > tr ? hc : tr;
        tr = lc > tr ? lc : tr;
        if (++seen < q) {
            sp += pdm;
            sm += mdm;
            st += tr;
            continue;
        }
        sp = sp - sp / q + pdm;
        sm = sm - sm / q + mdm;
        st = st - st / q + tr;
        const long double pdi = st != 0 ? 100 * sp / st : 0, mdi = st != 0 ? 100 * sm / st : 0;
        put(pdi_out, t, pdi);
        put(mdi_out, t, mdi);
        const int defined = st != 0 && pdi + mdi != 0;
        const long double dx = defined ? 100 * fabsl(mdi - pdi) / (mdi + pdi) : 0;
        if (defined)
            last_dx = dx;
        put(dx_out, t, last_dx);
        if (++dxn <= q) {
            adx += defined ? dx : 0;
            if (dxn < q)
                continue;
            adx /= q;
        } else if (defined) {
            adx = (adx * (q - 1) + dx) / q;
        }
        put(adx_out, t, adx);
    }
}

/* DX (adxr 0) or ADXR (adxr 1). */
static void dx_or_adxr(const double *const *in, size_t n, const double *p, double *out,
                       double *scale, int adxr) {
    const size_t q = (size_t)p[0];
    long double *dx = malloc((n > 0 ? n : 1) * sizeof *dx);
    long double *adx = malloc((n > 0 ? n : 1) * sizeof *adx);
    if (dx == NULL || adx == NULL)
        abort();
    apo__ref_dmi_pass(in, n, q, NULL, NULL, dx, adx);
    nan_fill(out, scale, n);
    for (size_t t = 0; t < n; t++) {
        const long double v = !adxr ? dx[t] : t + 1 >= q ? (adx[t] + adx[t + 1 - q]) / 2 : NAN;
        if (!isnan(v)) {
            out[t] = (double)v;
            scale[t] = 100.0;
        }
    }
    free(dx);
    free(adx);
}

void apo__ref_cat_dx(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    dx_or_adxr(in, n, p, out[0], scale[0], 0);
}

void apo__ref_cat_adxr(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    dx_or_adxr(in, n, p, out[0], scale[0], 1);
}

/* aroonup - aroondown over the p + 1 bars ending at t, the latest extreme winning a tie. */
static void aroonosc_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    size_t hi = t - q, lo = t - q;
    for (size_t i = t - q; i <= t; i++) {
        hi = in[0][i] >= in[0][hi] ? i : hi;
        lo = in[1][i] <= in[1][lo] ? i : lo;
    }
    const long double up = 100.0L * (q - (t - hi)) / q, down = 100.0L * (q - (t - lo)) / q;
    *out = (double)(up - down);
    *scale = 100.0;
}

void apo__ref_cat_aroonosc(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    window_reference(in, 2, n, (size_t)p[0], 1, out[0], scale[0], aroonosc_bar);
}

/* in: open, high, low, close. */
static void bop_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    (void)q;
    const long double range = (long double)in[1][t] - in[2][t];
    const long double bop = range > 0 ? ((long double)in[3][t] - in[0][t]) / range : 0;
    *out = (double)bop;
    *scale = (double)fabsl(bop);
}

void apo__ref_cat_bop(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    window_reference(in, 4, n, 1, 0, out[0], scale[0], bop_bar);
}

/* in: open, close. */
static void imi_bar(const double *const *in, size_t t, size_t q, double *out, double *scale) {
    long double up = 0, down = 0;
    for (size_t i = t + 1 - q; i <= t; i++) {
        const long double move = (long double)in[1][i] - in[0][i];
        if (move > 0)
            up += move;
        else
            down -= move;
    }
    *out = up + down == 0 ? 50.0 : (double)(100 * up / (up + down));
    *scale = 100.0;
}

void apo__ref_cat_imi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    window_reference(in, 2, n, (size_t)p[0], 0, out[0], scale[0], imi_bar);
}

/* in: high, low, close; the shortest window weighs 4, the longest 1. */
void apo__ref_cat_ultosc(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    size_t s[3] = {(size_t)p[0], (size_t)p[1], (size_t)p[2]};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (s[j] < s[i]) {
                const size_t k = s[i];
                s[i] = s[j];
                s[j] = k;
            }
    const double *h = in[0], *l = in[1], *c = in[2];
    nan_fill(out[0], scale[0], n);
    for (size_t t = s[2]; t < n; t++) {
        if (!clean(in, 3, t + 1 - s[2], t) || !isfinite(c[t - s[2]]))
            continue;
        long double osc = 0;
        const long double weight[3] = {4, 2, 1};
        for (int k = 0; k < 3; k++) {
            long double a = 0, b = 0;
            for (size_t i = t + 1 - s[k]; i <= t; i++) {
                const long double low = l[i] < c[i - 1] ? l[i] : c[i - 1];
                const long double hc = fabsl((long double)h[i] - c[i - 1]);
                const long double lc = fabsl((long double)l[i] - c[i - 1]);
                long double range = (long double)h[i] - l[i];
                range = hc > range ? hc : range;
                range = lc > range ? lc : range;
                a += c[i] - low;
                b += range;
            }
            osc += b > 0 ? weight[k] * a / b : 0;
        }
        out[0][t] = (double)(100 * osc / 7);
        scale[0][t] = 100.0;
    }
}

/* ROCP (form 0), ROCR (1), ROCR100 (2): 0 where x[t-p] is 0. */
static void roc_ratio(const double *const *in, size_t n, const double *p, double *out,
                      double *scale, int form) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    for (size_t t = q; t < n; t++) {
        if (!isfinite(x[t]) || !isfinite(x[t - q]))
            continue;
        const long double ratio = x[t - q] != 0 ? (long double)x[t] / x[t - q] : 0;
        const long double v = x[t - q] == 0 ? 0
                              : form == 0   ? ratio - 1
                              : form == 1   ? ratio
                                            : 100 * ratio;
        out[t] = (double)v;
        scale[t] = (double)(form == 2 ? 100 * fabsl(ratio) : fabsl(ratio) + (form == 0));
    }
}

void apo__ref_cat_rocp(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    roc_ratio(in, n, p, out[0], scale[0], 0);
}

void apo__ref_cat_rocr(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    roc_ratio(in, n, p, out[0], scale[0], 1);
}

void apo__ref_cat_rocr100(const double *const *in, size_t n, const double *p, double *const *out,
                          double *const *scale) {
    roc_ratio(in, n, p, out[0], scale[0], 2);
}

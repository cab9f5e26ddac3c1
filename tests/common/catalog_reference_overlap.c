/*
 * catalog_reference_overlap.c: see catalog_reference_overlap.h. The averages of a matype that
 * the catalog had before (sma, ema, wma, dema, tema, kama) take their references from
 * catalog_reference.c and catalog_reference_more.c.
 */
#include "catalog_reference_overlap.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

#include "catalog_reference.h"
#include "catalog_reference_cycles.h"

/* The largest abs(x) of the window [from, to]. */
static double largest(const double *x, size_t from, size_t to) {
    double m = 0;
    for (size_t t = from; t <= to; t++)
        m = fabs(x[t]) > m ? fabs(x[t]) : m;
    return m;
}

void apo__ref_cat_trima(const double *const *in, size_t n, const double *p, double *const *out,
                        double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill_outputs(out, scale, 1, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!clean(in, 1, t + 1 - q, t))
            continue;
        long double num = 0, den = 0;
        for (size_t j = 0; j < q; j++) {
            const long double w = j + 1 < q - j ? j + 1 : q - j;
            num += w * in[0][t + 1 - q + j];
            den += w;
        }
        out[0][t] = (double)(num / den);
        scale[0][t] = largest(in[0], t + 1 - q, t);
    }
}

/* Six EMAs in a chain, each seeded with the mean of its input's first q values, skipping the
 * gaps; the combination of e3 .. e6 with Tillson's coefficients. */
void apo__ref_cat_t3(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    const size_t q = (size_t)p[0];
    const long double a = p[1], k = 2.0L / (q + 1.0L);
    const long double c1 = -a * a * a, c2 = 3 * a * a + 3 * a * a * a;
    const long double c3 = -6 * a * a - 3 * a - 3 * a * a * a;
    const long double c4 = 1 + 3 * a + a * a * a + 3 * a * a;
    nan_fill_outputs(out, scale, 1, n);
    long double e[6] = {0}, sum[6] = {0};
    size_t seen[6] = {0};
    double m = 0;
    for (size_t t = 0; t < n; t++) {
        if (!isfinite(in[0][t]))
            continue;
        m = fabs(in[0][t]) > m ? fabs(in[0][t]) : m;
        if (q == 1) {
            out[0][t] = in[0][t];
            scale[0][t] = m;
            continue;
        }
        long double v = in[0][t];
        int ready = 1;
        for (int s = 0; s < 6 && ready; s++) {
            ready = ema_stage(v, q, k, 1, &seen[s], &sum[s], &e[s]);
            v = e[s];
        }
        if (ready) {
            out[0][t] = (double)(c1 * e[5] + c2 * e[4] + c3 * e[3] + c4 * e[2]);
            scale[0][t] = 14 * m;
        }
    }
}

/* (max of hi + min of lo) / 2 over each window: exact. */
static void midpoint_of(const double *hi, const double *lo, const double *const *in, size_t m,
                        size_t n, size_t q, double *const *out, double *const *scale) {
    nan_fill_outputs(out, scale, 1, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!clean(in, m, t + 1 - q, t))
            continue;
        long double top = hi[t], bottom = lo[t];
        for (size_t i = t + 1 - q; i <= t; i++) {
            top = hi[i] > top ? hi[i] : top;
            bottom = lo[i] < bottom ? lo[i] : bottom;
        }
        out[0][t] = (double)((top + bottom) / 2);
    }
}

void apo__ref_cat_midpoint(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    midpoint_of(in[0], in[0], in, 1, n, (size_t)p[0], out, scale);
}

void apo__ref_cat_midprice(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    midpoint_of(in[0], in[1], in, 2, n, (size_t)p[0], out, scale);
}

/* The matype's average of the close: the references of the kernels of that kind. */
void apo__ref_cat_ma(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    const int matype = (int)p[1];
    const double one[2] = {p[0], 0.7};
    if (p[0] == 1) {
        nan_fill_outputs(out, scale, 1, n);
        for (size_t t = 0; t < n; t++)
            if (isfinite(in[0][t])) {
                out[0][t] = in[0][t];
                scale[0][t] = 0;
            }
        return;
    }
    switch (matype) {
    case 1:
        apo__ref_cat_ema(in, n, one, out[0], scale[0]);
        break;
    case 2:
        apo__ref_cat_wma(in, n, one, out[0], scale[0]);
        break;
    case 3:
        apo__ref_cat_dema(in, n, one, out[0], scale[0]);
        break;
    case 4:
        apo__ref_cat_tema(in, n, one, out[0], scale[0]);
        break;
    case 5:
        apo__ref_cat_trima(in, n, one, out, scale);
        break;
    case 6:
        apo__ref_cat_kama(in, n, one, out, scale);
        break;
    case 7: {
        /* MAMA: mama's first output at TA-Lib's default limits, whatever the period; its scale
         * the largest close so far (mama is a weighted mean of the closes and its seed 0). */
        double *fama = malloc((n + 1) * sizeof *fama);
        double *const both[2] = {out[0], fama};
        apo__ref_cat_mama(in[0], n, 0.5, 0.05, both);
        double largest = 0;
        for (size_t t = 0; t < n; t++) {
            if (isfinite(in[0][t]) && fabs(in[0][t]) > largest)
                largest = fabs(in[0][t]);
            scale[0][t] = largest;
        }
        free(fama);
        break;
    }
    case 8:
        apo__ref_cat_t3(in, n, one, out, scale);
        break;
    default:
        apo__ref_cat_sma(in, n, one, out[0], scale[0]);
        break;
    }
}

/* Each bar's average at its own period, from the whole series' average at that period. */
void apo__ref_cat_mavp(const double *const *in, size_t n, const double *p, double *const *out,
                       double *const *scale) {
    const size_t lo = (size_t)p[0], hi = (size_t)p[1];
    nan_fill_outputs(out, scale, 1, n);
    double *one_out = malloc((n + 1) * sizeof(double));
    double *one_scale = malloc((n + 1) * sizeof(double));
    size_t lead = hi - 1;
    if (p[2] == 3)
        lead = 2 * (hi - 1);
    else if (p[2] == 4)
        lead = 3 * (hi - 1);
    else if (p[2] == 6)
        lead = hi;
    else if (p[2] == 8)
        lead = 6 * (hi - 1);
    for (size_t q = lo; q <= hi; q++) {
        int used = 0;
        for (size_t t = lead; t < n && !used; t++)
            used = isfinite(in[1][t]) && (size_t)(in[1][t] <= lo   ? lo
                                                  : in[1][t] >= hi ? hi
                                                                   : in[1][t]) == q;
        if (!used)
            continue;
        const double pq[2] = {(double)q, p[2]};
        apo__ref_cat_ma(in, n, pq, &one_out, &one_scale);
        for (size_t t = lead; t < n; t++) {
            if (!isfinite(in[1][t]))
                continue;
            const double v = in[1][t];
            if ((size_t)(v <= lo ? lo : v >= hi ? hi : v) != q)
                continue;
            out[0][t] = one_out[t];
            scale[0][t] = one_scale[t];
        }
    }
    free(one_out);
    free(one_scale);
}

void apo__ref_cat_accbands(const double *const *in, size_t n, const double *p, double *const *out,
                           double *const *scale) {
    const size_t q = (size_t)p[0];
    nan_fill_outputs(out, scale, 3, n);
    for (size_t t = q - 1; t < n; t++) {
        const size_t from = t + 1 - q;
        if (clean(in, 2, from, t)) {
            long double su = 0, sl = 0;
            double m = 0;
            for (size_t i = from; i <= t; i++) {
                const long double h = in[0][i], l = in[1][i];
                const long double r = h + l == 0 ? 0 : 4 * (h - l) / (h + l);
                su += h * (1 + r);
                sl += l * (1 - r);
                m = fabs(in[0][i]) > m ? fabs(in[0][i]) : m;
                m = fabs(in[1][i]) > m ? fabs(in[1][i]) : m;
            }
            out[0][t] = (double)(su / q);
            out[2][t] = (double)(sl / q);
            /* The terms are rounded to double as the definition has them: a few ulps of the
             * band's largest term. */
            scale[0][t] = scale[2][t] = 2 * m;
        }
        if (clean(in + 2, 1, from, t)) {
            long double s = 0;
            for (size_t i = from; i <= t; i++)
                s += in[2][i];
            out[1][t] = (double)(s / q);
            scale[1][t] = largest(in[2], from, t);
        }
    }
}

/* bollinger's middle for a window holding a gap (docs/kernels.md, "bollinger"): NaN where it
 * holds a NaN or both infinities, else the infinity it holds. */
static double bollinger_gap_middle(const double *x, size_t from, size_t to) {
    int nan = 0, pinf = 0, ninf = 0;
    for (size_t i = from; i <= to; i++) {
        nan |= isnan(x[i]);
        pinf |= x[i] == INFINITY;
        ninf |= x[i] == -INFINITY;
    }
    return nan || (pinf && ninf) ? NAN : pinf ? INFINITY : -INFINITY;
}

void apo__ref_cat_bbands(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    const size_t q = (size_t)p[0];
    const double ma_p[2] = {p[0], p[3]};
    double *mid_scale = malloc((n + 1) * sizeof(double));
    nan_fill_outputs(out, scale, 3, n);
    double *const mid[1] = {out[1]};
    double *const mscale[1] = {mid_scale};
    apo__ref_cat_ma(in, n, ma_p, mid, mscale);
    for (size_t t = 0; t < n; t++) {
        scale[1][t] = mid_scale[t];
        if (t + 1 < q) {
            /* TA-Lib's lead where the deviation's window is longer than the middle's lookback
             * (MAMA, matype 7): all three NaN. */
            out[0][t] = out[1][t] = out[2][t] = NAN;
            continue;
        }
        if (isnan(out[1][t]) || !clean(in, 1, t + 1 - q, t)) {
            out[0][t] = out[2][t] = NAN;
            if (p[3] == 0 && t + 1 >= q && !clean(in, 1, t + 1 - q, t))
                out[1][t] = bollinger_gap_middle(in[0], t + 1 - q, t);
            continue;
        }
        long double s = 0, ss = 0;
        for (size_t i = t + 1 - q; i <= t; i++)
            s += in[0][i];
        const long double mean = s / q;
        for (size_t i = t + 1 - q; i <= t; i++)
            ss += (in[0][i] - mean) * (in[0][i] - mean);
        const long double sd = sqrtl(ss / q), mid_v = out[1][t];
        out[0][t] = (double)(mid_v + p[1] * sd);
        out[2][t] = (double)(mid_v - p[2] * sd);
        /* The bands' scale: the middle's and the terms that form them. */
        const double sc = mid_scale[t] + fabs(p[1]) * (double)sd + fabs(p[2]) * (double)sd;
        scale[0][t] = scale[2][t] = sc > fabs(out[1][t]) ? sc : fabs(out[1][t]) + (double)sd;
    }
    free(mid_scale);
}

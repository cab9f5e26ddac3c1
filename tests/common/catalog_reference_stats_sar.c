/* Long-double references of the line's statistics, avgdev, the parabolic SAR and the volume
 * indexes; see catalog_reference_stats_sar.h. */
#include "catalog_reference_stats_sar.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

static int window_finite(const double *x, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* The least-squares line of the window y[0 .. q) against j = 0 (oldest) .. q-1: the window's
 * mean, the line's slope, and the window's largest abs(y). */
typedef struct window_line {
    long double mean, slope, largest;
} window_line;

static window_line fit_window(const double *y, size_t q) {
    const long double jbar = (q - 1) / 2.0L;
    long double s = 0, m = 0;
    for (size_t j = 0; j < q; j++) {
        s += y[j];
        m = fabsl(y[j]) > m ? fabsl(y[j]) : m;
    }
    const long double mean = s / q;
    long double sxy = 0, sxx = 0;
    for (size_t j = 0; j < q; j++) {
        sxy += (j - jbar) * (y[j] - mean);
        sxx += (j - jbar) * (j - jbar);
    }
    const window_line w = {mean, sxy / sxx, m};
    return w;
}

/* The least-squares line of each window of q samples against j = 0 (oldest) .. q-1, taken at
 * bar `at` of the window (at = q - 1 + ahead, from the window's end; the intercept passes
 * ahead = 1 - q). */
static void line_at(const double *const *in, size_t n, const double *p, double *out, double *scale,
                    long double ahead) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    const long double jbar = (q - 1) / 2.0L, at = (long double)(q - 1) + ahead;
    for (size_t t = q - 1; t < n; t++) {
        if (!window_finite(x, t + 1 - q, t + 1))
            continue;
        const window_line w = fit_window(x + t + 1 - q, q);
        out[t] = (double)(w.mean + w.slope * (at - jbar));
        scale[t] = (double)w.largest;
    }
}

void apo__ref_cat_linearreg_intercept(const double *const *in, size_t n, const double *p,
                                      double *out, double *scale) {
    line_at(in, n, p, out, scale, 1.0L - (long double)p[0]);
}

APO_REF_VARIANT(apo__ref_cat_tsf, line_at, 1.0L)

/* The slope's angle in degrees. Its error follows the slope's (of the window's largest abs(y)
 * over q) through atan's derivative, 180 / pi / (1 + slope^2), plus the roundings of the angle
 * itself. */
void apo__ref_cat_linearreg_angle(const double *const *in, size_t n, const double *p, double *out,
                                  double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    const long double degrees = 180.0L / 3.14159265358979323846264338L;
    for (size_t t = q - 1; t < n; t++) {
        if (!window_finite(x, t + 1 - q, t + 1))
            continue;
        const window_line w = fit_window(x + t + 1 - q, q);
        const long double slope = w.slope, angle = atanl(slope) * degrees;
        out[t] = (double)angle;
        scale[t] = (double)(degrees * (w.largest / q) / (1 + slope * slope) + fabsl(angle));
    }
}

void apo__ref_cat_avgdev(const double *const *in, size_t n, const double *p, double *out,
                         double *scale) {
    const double *x = in[0];
    const size_t q = (size_t)p[0];
    nan_fill(out, scale, n);
    for (size_t t = q - 1; t < n; t++) {
        if (!window_finite(x, t + 1 - q, t + 1))
            continue;
        const double *y = x + t + 1 - q;
        long double s = 0;
        for (size_t j = 0; j < q; j++)
            s += y[j];
        const long double mean = s / q;
        long double dev = 0, spread = 0;
        for (size_t j = 0; j < q; j++) {
            const long double d = fabsl(y[j] - mean);
            dev += d;
            spread = d > spread ? d : spread;
        }
        out[t] = (double)(dev / q);
        scale[t] = (double)spread;
    }
}

/* The clean bars of a series (every one of its m inputs finite), in order: their indices. */
static size_t clean_bars(const double *const *in, size_t m, size_t n, size_t **at) {
    *at = malloc((n > 0 ? n : 1) * sizeof **at);
    if (*at == NULL)
        abort();
    return clean_bar_indices(in, m, n, *at);
}

/* SAREXT's parameters, TA-Lib's order, after TA-Lib's corrections (an initial or step
 * acceleration above its maximum is the maximum). */
typedef struct sar_params {
    long double start, offset, init[2], step[2], max[2]; /* [0] long, [1] short */
} sar_params;

static long double capped(long double v, long double max) { return v > max ? max : v; }

/* The SAR over the clean bars: Wilder's stop and reverse as TA-Lib defines it (the first clean
 * bar gives no value; the second's direction from the one-bar minus DM unless `start` forces
 * it). sign_short is -1 for sarext's outputs of short positions, 1 for sar's. */
static void sar_run(const double *const *in, size_t n, const sar_params *sp, long double sign_short,
                    double *out, double *scale) {
    const double *high = in[0], *low = in[1];
    nan_fill(out, scale, n);
    size_t *at;
    const size_t m = clean_bars(in, 2, n, &at);
    /* The first clean bar gives no value (the lookback); its high and low join the scale. */
    long double big = 0;
    if (m > 0)
        big = fmaxl(fabsl((long double)high[at[0]]), fabsl((long double)low[at[0]]));
    if (m < 2) {
        free(at);
        return;
    }
    int is_long;
    long double sar, ep, af[2] = {sp->init[0], sp->init[1]};
    const size_t b0 = at[0], b1 = at[1];
    if (sp->start == 0) {
        /* Short where the low fell further than the high rose (a one-bar minus DM above 0). */
        const long double down = (long double)low[b0] - low[b1];
        const long double up = (long double)high[b1] - high[b0];
        is_long = !(down > 0 && up < down);
        sar = is_long ? low[b0] : high[b0];
    } else {
        is_long = sp->start > 0;
        sar = fabsl(sp->start);
    }
    ep = is_long ? high[b1] : low[b1];
    long double prev_high = high[b1], prev_low = low[b1];
    for (size_t j = 1; j < m; j++) {
        const size_t t = at[j];
        const long double h = high[t], l = low[t];
        big = fabsl(h) > big ? fabsl(h) : big;
        big = fabsl(l) > big ? fabsl(l) : big;
        scale[t] = (double)big;
        /* The bar before: the second clean bar is its own (TA-Lib's first step). */
        const long double ph = j == 1 ? h : prev_high, pl = j == 1 ? l : prev_low;
        long double shown;
        if (is_long && l <= sar) {
            is_long = 0;
            sar = fmaxl(fmaxl(ep, ph), h);
            if (sp->offset != 0)
                sar += sar * sp->offset;
            shown = sign_short * sar;
            af[1] = sp->init[1];
            ep = l;
            sar = fmaxl(fmaxl(sar + af[1] * (ep - sar), ph), h);
        } else if (is_long) {
            shown = sar;
            if (h > ep) {
                ep = h;
                af[0] = capped(af[0] + sp->step[0], sp->max[0]);
            }
            sar = fminl(fminl(sar + af[0] * (ep - sar), pl), l);
        } else if (h >= sar) {
            is_long = 1;
            sar = fminl(fminl(ep, pl), l);
            if (sp->offset != 0)
                sar -= sar * sp->offset;
            shown = sar;
            af[0] = sp->init[0];
            ep = h;
            sar = fminl(fminl(sar + af[0] * (ep - sar), pl), l);
        } else {
            shown = sign_short * sar;
            if (l < ep) {
                ep = l;
                af[1] = capped(af[1] + sp->step[1], sp->max[1]);
            }
            sar = fmaxl(fmaxl(sar + af[1] * (ep - sar), ph), h);
        }
        out[t] = (double)shown;
        prev_high = h;
        prev_low = l;
    }
    free(at);
}

void apo__ref_cat_sar(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    const long double max = p[1], step = capped(p[0], max);
    const sar_params sp = {0, 0, {step, step}, {step, step}, {max, max}};
    sar_run(in, n, &sp, 1.0L, out[0], scale[0]);
}

void apo__ref_cat_sarext(const double *const *in, size_t n, const double *p, double *const *out,
                         double *const *scale) {
    const sar_params sp = {p[0],
                           p[1],
                           {capped(p[2], p[4]), capped(p[5], p[7])},
                           {capped(p[3], p[4]), capped(p[6], p[7])},
                           {p[4], p[7]}};
    sar_run(in, n, &sp, -1.0L, out[0], scale[0]);
}

/* A volume index over the clean bars: 1000 at the first; then, at a bar whose volume is below
 * (nvi) or above (pvi) the clean bar's before, the index moves by the close's relative change
 * from that bar (none where that close is 0); else it is unchanged. */
static void volume_index(const double *const *in, size_t n, int negative, double *out,
                         double *scale) {
    const double *close = in[0], *volume = in[1];
    nan_fill(out, scale, n);
    size_t *at;
    const size_t m = clean_bars(in, 2, n, &at);
    long double index = 1000, bound = 1000;
    for (size_t j = 0; j < m; j++) {
        const size_t t = at[j];
        if (j > 0) {
            const size_t b = at[j - 1];
            const int moves = negative ? volume[t] < volume[b] : volume[t] > volume[b];
            if (moves && close[b] != 0) {
                const long double ratio = (long double)close[t] / close[b];
                /* A step i + r i rounds relative to its terms, abs(i) (1 + abs(r)), not to
                 * its result, which cancels where the close comes near 0; the errors before
                 * it are carried by the ratio. */
                bound = bound * fabsl(ratio) + fabsl(index) * (1 + fabsl(ratio - 1));
                index = index * ratio;
            }
        }
        out[t] = (double)index;
        scale[t] = (double)bound;
    }
    free(at);
}

void apo__ref_cat_nvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    volume_index(in, n, 1, out[0], scale[0]);
}

void apo__ref_cat_pvi(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    volume_index(in, n, 0, out[0], scale[0]);
}

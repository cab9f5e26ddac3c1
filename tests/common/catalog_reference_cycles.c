/*
 * catalog_reference_cycles.c: the long-double reference of catalog_reference_cycles.h. Each
 * quantity of the definition is an array over the clean bars, evaluated bar by bar in the
 * order the recurrences need, with libm's long-double atanl, sinl and cosl.
 */
#include "catalog_reference_cycles.h"

#include <math.h>
#include <stdlib.h>

/* The arrays of the definition, one value per clean bar. */
enum { SMOOTH, DET, Q1, I1, JI, JQ, I2, Q2, SP, PHASE, SINE, LEAD, MEAN, TRENDLINE, MODE, N_ARR };

/* v[k], or 0 before the transform's start (the definition's zero state). */
static long double at(const long double *v, long k, long start) { return k < start ? 0.0L : v[k]; }

/* 0.0962 v[k] + 0.5769 v[k-2] - 0.5769 v[k-4] - 0.0962 v[k-6]. */
static long double fir(const long double *v, long k, long start) {
    return 0.0962L * at(v, k, start) + 0.5769L * at(v, k - 2, start) -
           0.5769L * at(v, k - 4, start) - 0.0962L * at(v, k - 6, start);
}

/* The period from Re, Im and the last period: 2 pi / atan(Im/Re) (the last where either is
 * 0), within 0.67 and 1.5 times the last and within [6, 50], then 0.2 of it and 0.8 of the
 * last. */
static long double next_period(long double re, long double im, long double last) {
    const long double pi = acosl(-1.0L);
    long double p = last;
    if (im != 0.0L && re != 0.0L)
        p = 2.0L * pi / atanl(im / re);
    if (p > 1.5L * last)
        p = 1.5L * last;
    if (p < 0.67L * last)
        p = 0.67L * last;
    if (p < 6.0L)
        p = 6.0L;
    else if (p > 50.0L)
        p = 50.0L;
    return 0.2L * p + 0.8L * last;
}

/* The transform and the smoothed period over the m clean prices c, from bar `start`. */
static void run_period(long double *const *a, const long double *c, long m, long start) {
    long double period = 0.0L, sp = 0.0L, re = 0.0L, im = 0.0L;
    for (long k = start; k < m; k++) {
        a[SMOOTH][k] = (4.0L * c[k] + 3.0L * c[k - 1] + 2.0L * c[k - 2] + c[k - 3]) / 10.0L;
        const long double adj = 0.075L * period + 0.54L;
        a[DET][k] = fir(a[SMOOTH], k, start) * adj;
        a[Q1][k] = fir(a[DET], k, start) * adj;
        a[I1][k] = at(a[DET], k - 3, start);
        a[JI][k] = fir(a[I1], k, start) * adj;
        a[JQ][k] = fir(a[Q1], k, start) * adj;
        const long double i2p = at(a[I2], k - 1, start), q2p = at(a[Q2], k - 1, start);
        a[Q2][k] = 0.2L * (a[Q1][k] + a[JI][k]) + 0.8L * q2p;
        a[I2][k] = 0.2L * (a[I1][k] - a[JQ][k]) + 0.8L * i2p;
        re = 0.2L * (a[I2][k] * i2p + a[Q2][k] * q2p) + 0.8L * re;
        im = 0.2L * (a[I2][k] * q2p - a[Q2][k] * i2p) + 0.8L * im;
        period = next_period(re, im, period);
        sp = 0.33L * period + 0.67L * sp;
        a[SP][k] = sp;
    }
}

/* The dominant cycle's phase at bar k from the last one (TA-Lib's reading of Ehlers: the
 * smoothed prices of the last round(sp) bars against a sine and a cosine of that period). */
static long double phase_at(long double *const *a, long k, long start, long double last) {
    const long double pi = acosl(-1.0L), sp = a[SP][k];
    const long cycle = (long)(sp + 0.5L);
    long double real = 0.0L, imag = 0.0L;
    for (long i = 0; i < cycle; i++) {
        const long double arg = 2.0L * pi * (long double)i / (long double)cycle;
        real += sinl(arg) * at(a[SMOOTH], k - i, start);
        imag += cosl(arg) * at(a[SMOOTH], k - i, start);
    }
    long double phase = last;
    if (fabsl(imag) > 0.0L)
        phase = atanl(real / imag) * 180.0L / pi;
    else if (real < 0.0L)
        phase -= 90.0L;
    else if (real > 0.0L)
        phase += 90.0L;
    phase += 90.0L + 360.0L / sp;
    if (imag < 0.0L)
        phase += 180.0L;
    if (phase > 315.0L)
        phase -= 360.0L;
    return phase;
}

/* The phase, the sines, the trend line and the trend mode from bar `start`. */
static void run_cycle(long double *const *a, const long double *c, long m, long start) {
    const long double pi = acosl(-1.0L);
    long double days = 0.0L;
    for (long k = start; k < m; k++) {
        const long double sp = a[SP][k];
        const long double last_phase = at(a[PHASE], k - 1, start);
        a[PHASE][k] = phase_at(a, k, start, last_phase);
        a[SINE][k] = sinl(a[PHASE][k] * pi / 180.0L);
        a[LEAD][k] = sinl((a[PHASE][k] + 45.0L) * pi / 180.0L);
        /* The mean of the last round(sp) prices, and the 4-bar WMA of those means. */
        const long cycle = (long)(sp + 0.5L);
        long double sum = 0.0L;
        for (long i = 0; i < cycle && i <= k; i++)
            sum += c[k - i];
        a[MEAN][k] = cycle > 0 ? sum / (long double)cycle : sum;
        a[TRENDLINE][k] = (4.0L * a[MEAN][k] + 3.0L * at(a[MEAN], k - 1, start) +
                           2.0L * at(a[MEAN], k - 2, start) + at(a[MEAN], k - 3, start)) /
                          10.0L;
        /* The mode: a trend, unless the sine crossed its lead less than half a cycle ago or
         * the phase advances at the cycle's rate; a trend anyway 1.5% off the trend line. */
        const long double s = a[SINE][k], l = a[LEAD][k];
        const long double s0 = at(a[SINE], k - 1, start), l0 = at(a[LEAD], k - 1, start);
        long double mode = 1.0L;
        if ((s > l && s0 <= l0) || (s < l && s0 >= l0)) {
            days = 0.0L;
            mode = 0.0L;
        }
        days += 1.0L;
        if (days < 0.5L * sp)
            mode = 0.0L;
        const long double advance = a[PHASE][k] - last_phase;
        if (sp != 0.0L && advance > 0.67L * 360.0L / sp && advance < 1.5L * 360.0L / sp)
            mode = 0.0L;
        const long double tl = a[TRENDLINE][k];
        if (tl != 0.0L && fabsl((a[SMOOTH][k] - tl) / tl) >= 0.015L)
            mode = 1.0L;
        a[MODE][k] = mode;
    }
}

/* The transform over a series' clean bars: those bars' values c and indices where (m of
 * them), and the period stage's arrays a from `start` on. */
typedef struct ht_run {
    long double *c;
    size_t *where;
    long double *a[N_ARR];
    long m;
} ht_run;

/* Fills the first n_out outputs with NaN, gathers the clean bars and runs the period stage. */
static void ht_begin(ht_run *r, const double *x, size_t n, double *const *out, int n_out,
                     long start) {
    r->c = calloc(n + 1, sizeof *r->c);
    r->where = calloc(n + 1, sizeof *r->where);
    r->m = 0;
    for (size_t t = 0; t < n; t++) {
        for (int o = 0; o < n_out; o++)
            out[o][t] = NAN;
        if (isfinite(x[t])) {
            r->c[r->m] = x[t];
            r->where[r->m++] = t;
        }
    }
    for (int i = 0; i < N_ARR; i++)
        r->a[i] = calloc((size_t)r->m + 1, sizeof(long double));
    run_period(r->a, r->c, r->m, start);
}

static void ht_end(ht_run *r) {
    for (int i = 0; i < N_ARR; i++)
        free(r->a[i]);
    free(r->c);
    free(r->where);
}

void apo__ref_cat_ht(ref_ht_kind kind, const double *x, size_t n, double *const *out) {
    const int full = kind != REF_HT_DCPERIOD && kind != REF_HT_PHASOR;
    const long start = full ? 37 : 12, lookback = full ? 63 : 32;
    const int two = kind == REF_HT_PHASOR || kind == REF_HT_SINE;
    ht_run r;
    ht_begin(&r, x, n, out, two ? 2 : 1, start);
    long double *const *a = r.a;
    if (full)
        run_cycle(r.a, r.c, r.m, start);
    for (long k = lookback; k < r.m; k++) {
        const size_t t = r.where[k];
        switch (kind) {
        case REF_HT_DCPERIOD:
            out[0][t] = (double)a[SP][k];
            break;
        case REF_HT_DCPHASE:
            out[0][t] = (double)a[PHASE][k];
            break;
        case REF_HT_PHASOR:
            out[0][t] = (double)a[I1][k];
            out[1][t] = (double)a[Q1][k];
            break;
        case REF_HT_SINE:
            out[0][t] = (double)a[SINE][k];
            out[1][t] = (double)a[LEAD][k];
            break;
        case REF_HT_TRENDMODE:
            out[0][t] = (double)a[MODE][k];
            break;
        default:
            out[0][t] = (double)a[TRENDLINE][k];
            break;
        }
    }
    ht_end(&r);
}

/* MAMA from the transform's I1 and Q1 over the clean bars: the phase atan(Q1 / I1) in degrees
 * (0 where I1 is 0), its fall since the last bar, at least 1, the rate fast / fall held at
 * slow or above, and the two averages from 0 at the transform's start. */
void apo__ref_cat_mama(const double *x, size_t n, double fast, double slow, double *const *out) {
    const long start = 12, lookback = 32;
    const long double pi = acosl(-1.0L);
    ht_run r;
    ht_begin(&r, x, n, out, 2, start);
    long double *const *a = r.a;
    const long double *c = r.c;
    const size_t *where = r.where;
    long double last_phase = 0.0L, mama = 0.0L, fama = 0.0L;
    for (long k = start; k < r.m; k++) {
        const long double phase =
            a[I1][k] != 0.0L ? atanl(a[Q1][k] / a[I1][k]) * 180.0L / pi : 0.0L;
        const long double fall = fmaxl(last_phase - phase, 1.0L);
        last_phase = phase;
        const long double alpha = fall > 1.0L ? fmaxl((long double)fast / fall, slow) : fast;
        mama = alpha * c[k] + (1.0L - alpha) * mama;
        fama = alpha / 2.0L * mama + (1.0L - alpha / 2.0L) * fama;
        if (k >= lookback) {
            out[0][where[k]] = (double)mama;
            out[1][where[k]] = (double)fama;
        }
    }
    ht_end(&r);
}

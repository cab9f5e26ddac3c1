/*
 * hilbert.h: Ehlers' Hilbert transform of a price series as TA-Lib defines it, the one state
 * and step that the cycle family's kernels (cycles/ht_tile.h) and mama (averages/mama_tile.h,
 * which TA-Lib's matype 7 runs too) read (docs/kernels/cycles.md, "Cycle indicators"). It lives
 * here, in the ground floor, because both rooms use it.
 *
 * What a step does, at clean bar n (the bars with a gap taken out, counted from 0):
 *   - s = (4 x[n] + 3 x[n-1] + 2 x[n-2] + x[n-3]) / 10, the smoothed price, from bar 3 on;
 *   - from the transform's start bar (12 for the kernels of lookback 32, 37 for those of 63:
 *     TA-Lib runs its smoother over 9 or 34 bars first) with every earlier value taken as 0:
 *     with H(v)[n] = (0.0962 v[n] + 0.5769 v[n-2] - 0.5769 v[n-4] - 0.0962 v[n-6]) and
 *     c = 0.075 period + 0.54 (the period of the bar before), the detrender d = H(s) c, the
 *     quadrature Q1 = H(d) c, the in-phase I1 = d[n-3], jI = H(I1) c, jQ = H(Q1) c;
 *   - the homodyne discriminator: I2, Q2 = 0.2 (I1 - jQ), 0.2 (Q1 + jI) plus 0.8 of the last
 *     ones; Re, Im = 0.2 (I2 I2' + Q2 Q2'), 0.2 (I2 Q2' - Q2 I2') plus 0.8 of the last ones;
 *     the period 2 pi / atan(Im / Re) (kept where Im or Re is 0), held within 0.67 and 1.5
 *     times the last period and within [6, 50], then 0.2 of it plus 0.8 of the last; the
 *     smoothed period 0.33 of that plus 0.67 of the last;
 *   - for the kernels of lookback 63 also the dominant cycle's phase (the smoothed prices of
 *     the last round(smoothed period) bars against a sine and a cosine of that period), its
 *     sine and lead sine, the trend line (the mean of the last round(smoothed period) prices,
 *     then a 4-bar WMA of those means) and the trend mode, each as TA-Lib's code has it;
 *     ht_trendline steps the period and the trend line alone (apo__ht_step_trendline).
 *
 * The state holds only doubles, so that a stream carries it as it is (APO_HT_CARRY doubles).
 * Its rings are indexed by the clean bar's number: the prices and smoothed prices of the last
 * 64 bars (the phase and the trend line read up to 50), the detrenders of the last 16 (jI
 * reads d[n-9]) and Q1 of the last 8.
 *
 * Determinism: +, -, *, / and the portable trigonometry of trig.h, in one fixed order, so the
 * CPU and the GPU give the same bits (apo_hd.h).
 */
#ifndef APO_KERNELS_HILBERT_H
#define APO_KERNELS_HILBERT_H

#include "apo_hd.h"
#include "trig.h"

#define APO_HT_PRICES 64 /* the rings of prices and smoothed prices */
#define APO_HT_DETRENDERS 16
#define APO_HT_QUADRATURES 8
/* The most bars the phase and the trend line read (TA-Lib's buffer of 50). */
#define APO_HT_MAX_CYCLE 50
/* TA-Lib's start bars and lookbacks: ht_dcperiod and ht_phasor (and mama) run the transform
 * from bar 12, lookback 32; the kernels with the phase or the trend line from bar 37, lookback
 * 63 (TA-Lib runs its smoother over 9 or 34 bars first). */
#define APO_HT_SHORT_START 12
#define APO_HT_SHORT_LOOKBACK 32
#define APO_HT_LONG_START 37
#define APO_HT_LONG_LOOKBACK 63

typedef struct apo__ht_state {
    double bars; /* clean bars seen */
    double price[APO_HT_PRICES], smooth[APO_HT_PRICES];
    double det[APO_HT_DETRENDERS], q1[APO_HT_QUADRATURES];
    double i1, quad; /* this bar's in-phase and quadrature components (ht_phasor) */
    double i2, q2, re, im, period, smooth_period;
    double phase, sine, lead_sine;
    double itrend[3], trendline, days_in_trend, trend;
} apo__ht_state;

/* Doubles of the state a stream carries per series (apo__<name>_carry of ht_tile.h). */
#define APO_HT_CARRY (sizeof(apo__ht_state) / sizeof(double))

static inline APO_HD void apo__ht_init(apo__ht_state *s) { memset(s, 0, sizeof *s); }

/* The sines and cosines of i 2 pi / n for i < n, which the phase needs for the cycle n of the
 * bar: a pure function of n, kept while n stays, so caching them changes no bit. */
typedef struct apo__ht_wave {
    int n; /* -1 before the first */
    double sin[APO_HT_MAX_CYCLE], cos[APO_HT_MAX_CYCLE];
} apo__ht_wave;

static inline APO_HD void apo__ht_wave_for(apo__ht_wave *w, int n) {
    if (w->n == n)
        return;
    w->n = n;
    for (int i = 0; i < n; i++) {
        /* TA-Lib's argument: i times 2 pi (rounded) over n. */
        const double arg = (double)i * (2.0 * APO_TRIG_PI_HI) / (double)n;
        w->sin[i] = apo__sin(arg);
        w->cos[i] = apo__cos(arg);
    }
}

/* H(v)[n] of the header comment, from a ring of `size` values indexed by bar number. */
static inline APO_HD double apo__ht_fir(const double *ring, size_t size, size_t n) {
    const size_t m = size - 1;
    return 0.0962 * ring[n & m] + 0.5769 * ring[(n - 2) & m] - 0.5769 * ring[(n - 4) & m] -
           0.0962 * ring[(n - 6) & m];
}

/* The period, from the discriminator's Re and Im and the last period (TA-Lib's limits). */
static inline APO_HD double apo__ht_period(double re, double im, double last) {
    double period = last;
    if (im != 0.0 && re != 0.0)
        period = 2.0 * APO_TRIG_PI_HI / apo__atan(im / re);
    /* TA-Lib's four clamps, `if (period > 1.5 * last) period = 1.5 * last` and the rest, as
     * x86's min and max (apo_hd.h): the same selects, NaN included, where gcc's branches on
     * them were mispredicted on the period's chain. */
    period = apo__below_or(1.5 * last, period);
    period = apo__above_or(0.67 * last, period);
    period = apo__below_or(50.0, apo__above_or(6.0, period));
    return 0.2 * period + 0.8 * last;
}

/* The transform's step at clean bar n (s->bars) of price x: the detrender, the in-phase and
 * quadrature components and the period. Returns 0 before the transform's start bar. */
static inline APO_HD int apo__ht_step_period(apo__ht_state *s, double x, size_t start) {
    const size_t n = (size_t)s->bars;
    s->bars += 1.0;
    s->price[n & (APO_HT_PRICES - 1)] = x;
    if (n < start)
        return 0;
    const double *p = s->price;
    const size_t m = APO_HT_PRICES - 1;
    const double sm =
        (4.0 * x + 3.0 * p[(n - 1) & m] + 2.0 * p[(n - 2) & m] + p[(n - 3) & m]) / 10.0;
    s->smooth[n & m] = sm;
    const double c = 0.075 * s->period + 0.54;
    const double d = apo__ht_fir(s->smooth, APO_HT_PRICES, n) * c;
    s->det[n & (APO_HT_DETRENDERS - 1)] = d;
    const double q1 = apo__ht_fir(s->det, APO_HT_DETRENDERS, n) * c;
    s->q1[n & (APO_HT_QUADRATURES - 1)] = q1;
    /* I1 is the detrender 3 bars back, so H(I1) at n is H of the detrenders at n - 3. */
    const double i1 = s->det[(n - 3) & (APO_HT_DETRENDERS - 1)];
    const double ji = apo__ht_fir(s->det, APO_HT_DETRENDERS, n - 3) * c;
    const double jq = apo__ht_fir(s->q1, APO_HT_QUADRATURES, n) * c;
    const double q2 = 0.2 * (q1 + ji) + 0.8 * s->q2;
    const double i2 = 0.2 * (i1 - jq) + 0.8 * s->i2;
    /* A complex product's shape, which GCC fuses on the avx2 path unless told (apo_hd.h). */
    s->re = 0.2 * (apo__unfused(i2 * s->i2) + apo__unfused(q2 * s->q2)) + 0.8 * s->re;
    s->im = 0.2 * (apo__unfused(i2 * s->q2) - apo__unfused(q2 * s->i2)) + 0.8 * s->im;
    s->i2 = i2;
    s->q2 = q2;
    s->i1 = i1;
    s->quad = q1;
    s->period = apo__ht_period(s->re, s->im, s->period);
    s->smooth_period = 0.33 * s->period + 0.67 * s->smooth_period;
    return 1;
}

/* The bars the phase and the trend line read: the smoothed period rounded (at most 50). */
static inline APO_HD int apo__ht_cycle(const apo__ht_state *s) {
    return (int)(s->smooth_period + 0.5);
}

/* The dominant cycle's phase in degrees at bar n, TA-Lib's: the angle of the last `cycle`
 * smoothed prices against a sine and a cosine of that period, a quarter turn and the
 * smoother's lag added, taken into (-45, 315]. Where the cosine sum is exactly 0, TA-Lib
 * turns the last phase a quarter turn towards the sine sum's sign instead (Ehlers' article
 * tests against 0.001; TA-Lib's code against 0, which this follows). */
static inline APO_HD void apo__ht_phase(apo__ht_state *s, size_t n, apo__ht_wave *w) {
    const int cycle = apo__ht_cycle(s);
    apo__ht_wave_for(w, cycle);
    double real = 0.0, imag = 0.0;
    for (int i = 0; i < cycle; i++) {
        const double v = s->smooth[(n - (size_t)i) & (APO_HT_PRICES - 1)];
        real += w->sin[i] * v;
        imag += w->cos[i] * v;
    }
    const double deg = 180.0 / APO_TRIG_PI_HI;
    double phase = s->phase;
    if (fabs(imag) > 0.0)
        phase = apo__atan(real / imag) * deg;
    else if (real < 0.0)
        phase -= 90.0;
    else if (real > 0.0)
        phase += 90.0;
    phase += 90.0;
    phase += 360.0 / s->smooth_period;
    if (imag < 0.0)
        phase += 180.0;
    if (phase > 315.0)
        phase -= 360.0;
    s->phase = phase;
}

/* The trend line at clean bar n: the mean of the last `cycle` prices (not smoothed prices),
 * then their 4-bar WMA. It reads the prices and the smoothed period only, never the phase. */
static inline APO_HD void apo__ht_trend_line(apo__ht_state *s, size_t n) {
    const int cycle = apo__ht_cycle(s);
    double sum = 0.0;
    for (int i = 0; i < cycle && (size_t)i <= n; i++)
        sum += s->price[(n - (size_t)i) & (APO_HT_PRICES - 1)];
    const double mean = cycle > 0 ? sum / (double)cycle : sum;
    s->trendline = (4.0 * mean + 3.0 * s->itrend[0] + 2.0 * s->itrend[1] + s->itrend[2]) / 10.0;
    s->itrend[2] = s->itrend[1];
    s->itrend[1] = s->itrend[0];
    s->itrend[0] = mean;
}

/* ht_trendline's step at clean bar n: the period and the trend line, the same operations in
 * the same order as apo__ht_step_cycle's, without the phase, the sines and the trend mode that
 * the trend line does not read (TA-Lib's HT_TRENDLINE computes them neither). The state's
 * phase, sines and mode stay 0. */
static inline APO_HD int apo__ht_step_trendline(apo__ht_state *s, double x, size_t start) {
    const size_t n = (size_t)s->bars;
    if (!apo__ht_step_period(s, x, start))
        return 0;
    apo__ht_trend_line(s, n);
    return 1;
}

/* The whole step of the kernels of lookback 63 at clean bar n: the period, then the phase,
 * the sine and lead sine, the trend line and the trend mode. */
static inline APO_HD int apo__ht_step_cycle(apo__ht_state *s, double x, size_t start,
                                            apo__ht_wave *w) {
    const size_t n = (size_t)s->bars;
    if (!apo__ht_step_period(s, x, start))
        return 0;
    const double last_phase = s->phase, last_sine = s->sine, last_lead = s->lead_sine;
    apo__ht_phase(s, n, w);
    const double rad = APO_TRIG_PI_HI / 180.0;
    s->sine = apo__sin(s->phase * rad);
    s->lead_sine = apo__sin((s->phase + 45.0) * rad);
    apo__ht_trend_line(s, n);
    /* The trend mode: a trend unless the sine crossed its lead within half a cycle, or the
     * phase advances at the cycle's rate; a trend anyway where the smoothed price is 1.5%
     * off the trend line. */
    double trend = 1.0;
    if ((s->sine > s->lead_sine && last_sine <= last_lead) ||
        (s->sine < s->lead_sine && last_sine >= last_lead)) {
        s->days_in_trend = 0.0;
        trend = 0.0;
    }
    s->days_in_trend += 1.0;
    if (s->days_in_trend < 0.5 * s->smooth_period)
        trend = 0.0;
    const double advance = s->phase - last_phase;
    if (s->smooth_period != 0.0 && advance > 0.67 * 360.0 / s->smooth_period &&
        advance < 1.5 * 360.0 / s->smooth_period)
        trend = 0.0;
    const double sm = s->smooth[n & (APO_HT_PRICES - 1)];
    if (s->trendline != 0.0 && fabs((sm - s->trendline) / s->trendline) >= 0.015)
        trend = 1.0;
    s->trend = trend;
    return 1;
}

#endif /* APO_KERNELS_HILBERT_H */

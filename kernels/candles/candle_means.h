/*
 * candle_means.h: the means of the averaged measures (candle_settings.h) for a block of bars,
 * which a pattern's tile computes before it evaluates the pattern on the block (candle_tile.h).
 *
 * Each bar's mean is the sum of the measures of the `period` candles before it, in index order
 * from 0.0, divided by the period: apo__cdl_mean_fresh's operations, so its bits, and a function
 * of those candles alone, whatever block, tile or stream piece the bar falls in. A block
 * computes the measures of its candles once, then each bar's sum and quotient: loops without
 * branches over independent bars, which the CPU runs in vector lanes (each lane one bar, the
 * scalar operations in the scalar order), where TA-Lib's running sum costs two operations a bar
 * in a chain. A measure is computed once a bar
 * for all the settings that share it (BodyLong, BodyVeryLong and BodyShort the bodies of 10
 * candles; BodyDoji and ShadowVeryShort the ranges of 10; Near, Far and Equal the ranges of 5).
 */
#ifndef APO_KERNELS_CANDLE_MEANS_H
#define APO_KERNELS_CANDLE_MEANS_H

#include "candle_settings.h"

/* The outputs of a block: the tile loop's unit. Its arrays hold the block's bars and the
 * lookback before them, at most APO_CDL_MAX_LOOKBACK (cdlbreakaway's and the other five-candle
 * patterns', 14). */
#define APO_CDL_BLOCK 256
#define APO_CDL_MAX_LOOKBACK 14
#define APO_CDL_BLOCK_SPAN (APO_CDL_BLOCK + APO_CDL_MAX_LOOKBACK)

/* What a tile keeps for its blocks: each averaged measure's means, and the measures one at a
 * time. */
typedef struct apo__candle_block {
    double mean[APO_CDL_AVERAGED][APO_CDL_BLOCK_SPAN];
    double measure[APO_CDL_BLOCK_SPAN];
} apo__candle_block;

/* Measure m of the candles [first, end) into out[j - first]. A select on the colour rather than
 * apo__cdl_range's calls, so that the loop has no branch (the same values). */
static APO_CAT_SPECIALISED APO_HD void apo__cdl_measures(const apo__candle_bars *b,
                                                         apo__candle_measure m, size_t first,
                                                         size_t end, double *out) {
    const double *o = b->open, *h = b->high, *l = b->low, *c = b->close;
    switch (apo__cdl_range_type(m)) {
    case APO_CDL_REAL_BODY:
        for (size_t j = first; j < end; j++)
            out[j - first] = fabs(c[j] - o[j]);
        break;
    case APO_CDL_HIGH_LOW:
        for (size_t j = first; j < end; j++)
            out[j - first] = h[j] - l[j];
        break;
    case APO_CDL_SHADOWS:
        for (size_t j = first; j < end; j++) {
            const int white = c[j] >= o[j];
            const double upper = h[j] - (white ? c[j] : o[j]);
            const double lower = (white ? o[j] : c[j]) - l[j];
            out[j - first] = upper + lower;
        }
        break;
    }
}

/*
 * RN(s / period) for a period of 5 or 10, without the divider (whose throughput bounded the
 * tiles: a vector division costs as much per lane as a scalar one). q = RN(s * RN(1/p)) is within
 * an ulp of s/p, so for p = 10 s - 8q and then (s - 8q) - 2q are exact (Sterbenz: each pair is
 * within a factor 2), and r = s - 10q exactly (p = 5: s - 4q, then - q). q + RN(r * RN(1/p)) is
 * s/p + eta, |eta| below 2^-52 ulp, rounded once. A midpoint of two doubles lies at least ulp/10
 * from s/p (s is a multiple of 8 ulps of the quotient's binade, p times a midpoint an odd multiple
 * of one ulp, p = 5: of half an ulp), far beyond eta, so the result is RN(s/p), the division's
 * bits. The argument holds where nothing underflows or overflows: apo__cdl_quotients_exact
 * checks the block's sums are 0 or within 2^-1000 .. 2^1000 in magnitude (a NaN fails), else the
 * block divides. 3.5e8 random sums of every magnitude in that range gave the division's bits.
 */
static APO_CAT_SPECIALISED APO_HD double apo__cdl_quotient(double s, size_t period) {
    const double c = period == 10 ? 0.1 : 0.2;
    const double q = s * c;
    const double r = period == 10 ? (s - 8.0 * q) - 2.0 * q : (s - 4.0 * q) - q;
    return q + r * c;
}

static APO_CAT_SPECIALISED APO_HD int apo__cdl_quotients_exact(const double *sum, size_t n,
                                                               size_t period) {
    int exact = period == 5 || period == 10;
    for (size_t j = 0; j < n; j++) {
        const double a = fabs(sum[j]);
        exact &= (a >= 0x1p-1000 && a <= 0x1p1000) || a == 0.0;
    }
    return exact;
}

/*
 * The means of measure m for the bars [first + period, end) into mean[j - first], from the
 * candles [first, end) (end - first at most APO_CDL_BLOCK_SPAN). The bars before first +
 * period have no window in the block and are left alone.
 */
static APO_CAT_SPECIALISED APO_HD void apo__cdl_block_means(const apo__candle_bars *b,
                                                            apo__candle_measure m, size_t first,
                                                            size_t end, apo__candle_block *blk) {
    const size_t period = (size_t)apo__cdl_period(m);
    const size_t n = end - first;
    if (n <= period)
        return;
    double *mean = blk->mean[m] + period;
    const double *x = blk->measure;
    apo__cdl_measures(b, m, first, end, blk->measure);
    for (size_t j = 0; j < n - period; j++) {
        double sum = 0.0;
        for (size_t i = 0; i < period; i++)
            sum += x[j + i];
        mean[j] = sum;
    }
    if (apo__cdl_quotients_exact(mean, n - period, period)) {
        for (size_t j = 0; j < n - period; j++)
            mean[j] = apo__cdl_quotient(mean[j], period);
    } else {
        for (size_t j = 0; j < n - period; j++)
            mean[j] = mean[j] / (double)period;
    }
}

/* The bars with the means of the measures in `uses` (APO_CDL_USES bits) for a block whose window
 * starts at candle first; the others left to apo__cdl_avg's fresh sums. One call a measure, its
 * period a constant there, so that the sums' loops unroll and vectorise. A copy, which the
 * pattern's loop reads as constants. */
static APO_CAT_SPECIALISED APO_HD apo__candle_bars apo__cdl_with_means(apo__candle_bars b,
                                                                       unsigned uses, size_t first,
                                                                       size_t end,
                                                                       apo__candle_block *blk) {
    b.first = first;
#define APO__CDL_ATTACH(name, range, period)                                                       \
    if (uses & APO_CDL_USES(name)) {                                                               \
        apo__cdl_block_means(&b, APO_CDL_##name, first, end, blk);                                 \
        b.mean[APO_CDL_##name] = blk->mean[APO_CDL_##name];                                        \
    } else {                                                                                       \
        b.mean[APO_CDL_##name] = NULL;                                                             \
    }
    APO_CANDLE_AVERAGED_MEASURES(APO__CDL_ATTACH)
#undef APO__CDL_ATTACH
    return b;
}

#endif /* APO_KERNELS_CANDLE_MEANS_H */

/*
 * ultosc_tile.h: ULTOSC(timeperiod1, timeperiod2, timeperiod3), TA-Lib's ultimate oscillator.
 * Inputs high, low, close. Here, beside the true range it shares (trange_tile.h), rather than
 * among the oscillators, which come before the trend room.
 *
 * Definition (TA-Lib's): bar i's buying pressure is close[i] - min(low[i], close[i-1]) and
 * its true range trange's. The periods are sorted, s1 <= s2 <= s3 (TA-Lib sorts them too, so
 * the shortest window always weighs 4); a_k and b_k are the sums of the pressures and of the
 * true ranges of the s_k bars ending at t, in index order; then, from 0,
 * `osc += 4 * (a1 / b1)`, `osc += 2 * (a2 / b2)`, `osc += a3 / b3`, each term only where its
 * b_k > 0 (TA-Lib 0.8's exact test: a sum of ranges is 0 only when every range is), and
 * ULTOSC = 100 * (osc / 7), output from t = s3 (the lookback).
 *
 * Each output is evaluated from its own windows (s3 steps a bar, where TA-Lib slides its six
 * sums in double, whose roundings it carries on): a function of the window alone, so tiles
 * join and a stream keeps its position. A non-finite high, low or close among the s3 bars, or
 * in the close before them, gives NaN.
 *
 * On the CPU (APO_TILE_LANES) and for s3 up to APO_ULTOSC_SPAN_MAX, a block of bars first
 * takes each bar's pressure and range once into buffers on the stack, then sums the windows of
 * APO_TILE_LANES consecutive bars side by side, one lane a bar: each lane adds its own window's
 * terms from 0 in index order, the scalar loop's additions, so the bits are the scalar loop's
 * (which a GPU and the bars left over run).
 */
#ifndef APO_KERNELS_ULTOSC_TILE_H
#define APO_KERNELS_ULTOSC_TILE_H

#include "trange_tile.h"

/* The three periods of io, shortest first. */
static inline APO_HD void apo__ultosc_periods(const apo__cat_io *io, size_t s[3]) {
    s[0] = (size_t)io->p[0];
    s[1] = (size_t)io->p[1];
    s[2] = (size_t)io->p[2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (s[j] > s[j + 1]) {
                const size_t swap = s[j];
                s[j] = s[j + 1];
                s[j + 1] = swap;
            }
}

/* The oscillator of bar t from its three windows' sums (a: pressures, b: true ranges). */
static inline APO_HD double apo__ultosc_of(const double a[3], const double b[3]) {
    double osc = 0.0;
    if (b[0] > 0.0)
        osc = osc + 4.0 * (a[0] / b[0]);
    if (b[1] > 0.0)
        osc = osc + 2.0 * (a[1] / b[1]);
    if (b[2] > 0.0)
        osc = osc + a[2] / b[2];
    return 100.0 * (osc / 7.0);
}

#ifdef APO_TILE_LANES
/* The longest s3 of the block path, and the bars of a block (a multiple of the lanes): the
 * two buffers hold APO_ULTOSC_BLOCK + s3 - 1 bars each, 12 KiB at most. */
#define APO_ULTOSC_SPAN_MAX 512
#define APO_ULTOSC_BLOCK 256
/* Vectors of bars whose windows are summed side by side: two sums each. */
#define APO_ULTOSC_CHAINS (APO_TV_CHAINS / 2)

/*
 * The outputs of nv vectors of bars from offset g of a block (out: the block's first output),
 * their windows' sums side by side (APO_TV_CHAINS chains, tile_vec.h: two sums a vector) and
 * apo__ultosc_of in vector lanes: a window's branch taken as a select of the sum with its term and
 * without, so each lane performs the scalar loop's operations in its order, and a lane whose window
 * holds a gap takes NaN. nv is a constant where this is inlined.
 */
static inline void apo__ultosc_group(const double *pressure, const double *range,
                                     const size_t *clean_from, const size_t s[3], size_t g,
                                     size_t nv, double *out) {
    const size_t span = s[2], lanes = APO_TILE_LANES;
    static const double weight[3] = {4.0, 2.0, 1.0};
    apo_tv osc[APO_ULTOSC_CHAINS];
    for (size_t c = 0; c < nv; c++)
        osc[c] = apo_tv_splat(0.0);
    for (int k = 0; k < 3; k++) {
        const size_t first = g + span - s[k];
        apo_tv a[APO_ULTOSC_CHAINS], b[APO_ULTOSC_CHAINS];
        for (size_t c = 0; c < nv; c++)
            a[c] = b[c] = apo_tv_splat(0.0);
        for (size_t j = 0; j < s[k]; j++)
            for (size_t c = 0; c < nv; c++) {
                a[c] = a[c] + apo_tv_load(pressure + first + j + c * lanes);
                b[c] = b[c] + apo_tv_load(range + first + j + c * lanes);
            }
        for (size_t c = 0; c < nv; c++) {
            const apo_tv q = a[c] / b[c], term = k < 2 ? weight[k] * q : q;
            osc[c] = apo_tv_pick(b[c] > 0.0, osc[c] + term, osc[c]);
        }
    }
    for (size_t c = 0; c < nv; c++) {
        double o[APO_TILE_LANES];
        apo_tv_store(o, 100.0 * (osc[c] / 7.0));
        for (size_t l = 0; l < lanes; l++) {
            const size_t at = g + c * lanes + l;
            out[at] = clean_from[at + span - 1] <= at ? o[l] : (double)NAN;
        }
    }
}

/* Bars [t, end) in blocks, as far as whole groups of lanes reach; returns the first bar left
 * to the scalar loop. t >= s[2], so every window and the close before it are in the row. */
static inline size_t apo__ultosc_blocks(const apo__cat_io *io, const size_t s[3], size_t t,
                                        size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    double pressure[APO_ULTOSC_BLOCK + APO_ULTOSC_SPAN_MAX - 1];
    double range[APO_ULTOSC_BLOCK + APO_ULTOSC_SPAN_MAX - 1];
    /* clean_from[j]: one past the last term up to j that is not finite (0 when none). */
    size_t clean_from[APO_ULTOSC_BLOCK + APO_ULTOSC_SPAN_MAX - 1];
    const size_t span = s[2], lanes = APO_TILE_LANES;
    while (end - t >= lanes) {
        size_t n = end - t < APO_ULTOSC_BLOCK ? end - t : APO_ULTOSC_BLOCK;
        n -= n % lanes;
        const size_t base = t + 1 - span, terms = n + span - 1;
        /* The terms in lanes, each as the scalar loop below takes it, and whether both are
         * finite (all bits set) in clean_from; then clean_from itself, a scan. */
        size_t j = 0;
        for (; j + lanes <= terms; j += lanes) {
            const size_t i = base + j;
            const apo_tv before = apo_tv_load(close + i - 1), l = apo_tv_load(low + i);
            const apo_tv r = apo__true_range_vec(high, low, close, i);
            const apo_tv pr = apo_tv_load(close + i) - apo_tv_pick(l < before, l, before);
            const apo_tm fine = apo_tv_finite(r) & apo_tv_finite(pr);
            apo_tv_store(range + j, r);
            apo_tv_store(pressure + j, pr);
            memcpy(clean_from + j, &fine, sizeof fine);
        }
        for (; j < terms; j++) {
            const size_t i = base + j;
            const double before = close[i - 1], l = low[i];
            range[j] = apo__true_range(high, low, close, i);
            pressure[j] = close[i] - (l < before ? l : before);
            clean_from[j] = isfinite(range[j]) && isfinite(pressure[j]) ? SIZE_MAX : 0;
        }
        size_t bad = 0;
        for (j = 0; j < terms; j++) {
            bad = clean_from[j] != 0 ? bad : j + 1;
            clean_from[j] = bad;
        }
        size_t g = 0;
        for (; n - g >= APO_ULTOSC_CHAINS * lanes; g += APO_ULTOSC_CHAINS * lanes)
            apo__ultosc_group(pressure, range, clean_from, s, g, APO_ULTOSC_CHAINS, out + t);
        for (; g < n; g += lanes)
            apo__ultosc_group(pressure, range, clean_from, s, g, 1, out + t);
        t += n;
    }
    return t;
}
#endif

static inline APO_HD void apo__ultosc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    size_t s[3];
    apo__ultosc_periods(io, s);
    size_t t = apo__cat_nan_lead(out, begin, end, s[2]);
#ifdef APO_TILE_LANES
    if (s[2] <= APO_ULTOSC_SPAN_MAX)
        t = apo__ultosc_blocks(io, s, t, end);
#endif
    for (; t < end; t++) {
        double a[3] = {0.0, 0.0, 0.0}, b[3] = {0.0, 0.0, 0.0};
        int clean = 1;
        for (size_t i = t + 1 - s[2]; i <= t; i++) {
            const double range = apo__true_range(high, low, close, i);
            const double before = close[i - 1], l = low[i];
            const double pressure = close[i] - (l < before ? l : before);
            clean &= isfinite(range) && isfinite(pressure);
            for (int k = 0; k < 3; k++)
                if (i + s[k] > t) {
                    a[k] = a[k] + pressure;
                    b[k] = b[k] + range;
                }
        }
        out[t] = clean ? apo__ultosc_of(a, b) : (double)NAN;
    }
}

#endif /* APO_KERNELS_ULTOSC_TILE_H */

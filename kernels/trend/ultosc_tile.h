/*
 * ultosc_tile.h: ULTOSC(timeperiod1, timeperiod2, timeperiod3), TA-Lib's ultimate oscillator.
 * Inputs high, low, close. Here, beside the true range it shares (trange_tile.h), rather than
 * among the oscillators, which come before the trend room.
 *
 * Definition (TA-Lib's): bar i's buying pressure is close[i] - min(low[i], close[i-1]) and
 * its true range trange's. The periods are sorted, s1 <= s2 <= s3 (TA-Lib sorts them too, so
 * the shortest window always weighs 4); a_k and b_k are the sums of the pressures and of the
 * true ranges of the s_k bars ending at t; then, from 0, `osc += 4 * (a1 / b1)`,
 * `osc += 2 * (a2 / b2)`, `osc += a3 / b3`, each term only where its b_k > 0 (TA-Lib 0.8's
 * exact test: a sum of ranges is 0 only when every range is), and ULTOSC = 100 * (osc / 7),
 * output from t = s3 (the lookback). A bar whose pressure or range is not finite (a non-finite
 * high, low or close, or close the bar before) makes NaN every output whose s3 bars hold it.
 *
 * The six sums are slid in plain double between anchors, as sliding_plain.h slides cmf's two
 * (every 256 bars, or window_plain.h's spacing for s3 where wider: apo__ultosc_anchor): evaluated
 * directly at every anchor and at the first clean window after a tile's start or a gap, each
 * window's terms in partials.h's eight partials, and slid from there, a_k' = a_k + (term in - term
 * out). A range sum whose window holds no nonzero range is set to exactly 0 (the run keeps one past
 * the last bar with a nonzero range), so that a window without a trading range skips its term as
 * TA-Lib's exact test does, whatever the slides left. Each sum's error stays below
 * (A + s_k / 8 + 4) eps s_k times the largest term slid since the anchor (window_plain.h's
 * bound), and each output is a function of the tile grid alone. Until 2026-12-06 every window
 * was summed afresh at every bar in index order, s1 + s2 + s3 additions of each kind a bar
 * (49 at TA-Lib's defaults), which held ultosc at 0.8 of TA-Lib's speed
 * (docs/kernels/talib.md).
 *
 * Stream (RUN): n[0] one past the last bar whose terms are not finite (bar 0 has none: no close
 * before it), n[1] whether the sums are the last window's, n[2] one past the last bar with a
 * nonzero range, v[2k] and v[2k + 1] a_k and b_k.
 *
 * On the CPU (APO_TILE_LANES) and for s3 up to APO_ULTOSC_SPAN_MAX, a chunk of clean bars up to
 * the next anchor takes its terms in vector lanes, its first bar's direct sums from them where
 * that bar is an anchor or starts the run, the slides' differences in vector lanes, the slides
 * one bar after another and the outputs in vector lanes: each bar the per-bar loop's operations
 * in its order, so the same bits (docs/perf-log/2026-12-06-zen4-state-lines.md, "ultosc").
 */
#ifndef APO_KERNELS_ULTOSC_TILE_H
#define APO_KERNELS_ULTOSC_TILE_H

#include "partials.h"
#include "run_entries.h"
#include "trange_tile.h"
#include "window.h"
#include "window_plain.h"

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

/* Bar i's pressure and true range; 0 when one is not finite or there is no close before i. */
static APO_HD_STEP APO_HD int apo__ultosc_terms(const apo__cat_io *io, size_t i, double *pressure,
                                                double *range) {
    if (i == 0)
        return 0;
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    const double before = close[i - 1], l = low[i];
    *range = apo__true_range(high, low, close, i);
    *pressure = close[i] - (l < before ? l : before);
    return isfinite(*range) && isfinite(*pressure);
}

/* The state of a clean window ending at t evaluated directly: its six sums, each window's terms
 * in the eight partials of partials.h (bar j of window k to partial (j - r) % 8, its first
 * r = s_k % 8 bars one to a partial: the same bits on every path), the three windows' partials
 * filled in one pass over the s3 bars; and one past the last of them with a nonzero range (0:
 * none). */
static APO_CAT_SPECIALISED APO_HD size_t apo__ultosc_direct(const apo__cat_io *io,
                                                            const size_t s[3], size_t t,
                                                            double a[3], double b[3]) {
    double pa[3][APO_PARTS], pb[3][APO_PARTS];
    for (int k = 0; k < 3; k++)
        for (size_t l = 0; l < APO_PARTS; l++)
            pa[k][l] = pb[k][l] = 0.0;
    size_t nonzero = 0;
    for (size_t i = t + 1 - s[2]; i <= t; i++) {
        double pr = 0.0, rg = 0.0;
        (void)apo__ultosc_terms(io, i, &pr, &rg);
        nonzero = rg != 0.0 ? i + 1 : nonzero;
        for (int k = 0; k < 3; k++) {
            if (i + s[k] <= t)
                continue;
            const size_t j = i - (t + 1 - s[k]), r = s[k] % APO_PARTS;
            const size_t l = j < r ? j : (j - r) % APO_PARTS;
            pa[k][l] += pr;
            pb[k][l] += rg;
        }
    }
    for (int k = 0; k < 3; k++) {
        a[k] = apo__parts_combine(pa[k]);
        b[k] = apo__parts_combine(pb[k]);
    }
    return nonzero;
}

/* The anchors' spacing for ultosc's longest window s3: window_plain.h's, and at least 256 bars,
 * so that a chunk's direct sums and its terms before its first bar (s3 of them) are a small part
 * of its 256 bars (64 bars apart, the chunks of TA-Lib's defaults took 28 terms more for 64
 * bars, and ultosc stayed at TA-Lib's speed). The slides' error grows with the spacing:
 * (256 + s3 / 8 + 4) eps s3 of the largest term since the anchor at most, 1.7e-12 at s3 = 28. */
static inline APO_HD size_t apo__ultosc_anchor(size_t s3) {
    const size_t plain = apo__plain_anchor(s3);
    return plain > 256 ? plain : 256;
}

/* The range sum of window k after a slide: exactly 0 where its s_k bars ending at t hold no
 * nonzero range (`nonzero` one past the last that does). A select on the slide's chain. */
static APO_HD_STEP APO_HD double apo__ultosc_range_sum(double b, size_t nonzero, size_t span,
                                                       size_t t) {
    return nonzero + span > t + 1 ? b : 0.0;
}

#ifdef APO_TILE_LANES
/* The longest s3 of the chunks, and the most bars of a chunk (the anchors' least spacing, so
 * that a chunk holds an anchor at its first bar at most): the chunk's terms span
 * APO_ULTOSC_CHUNK + s3 bars, 12 KiB at most, and its sums 12 KiB. */
#define APO_ULTOSC_SPAN_MAX 512
#define APO_ULTOSC_CHUNK 256

/* The outputs of n bars from out from their sums (n a multiple of the lanes, or the bars past
 * the last whole vector one at a time): apo__ultosc_of in vector lanes, a window's branch a
 * select of the oscillator with its term and without. */
static inline void apo__ultosc_outputs(const double sums[6][APO_ULTOSC_CHUNK], size_t n,
                                       double *out) {
    static const double weight[3] = {4.0, 2.0, 1.0};
    const size_t lanes = APO_TILE_LANES;
    size_t j = 0;
    for (; j + lanes <= n; j += lanes) {
        apo_tv osc = apo_tv_splat(0.0);
        for (int k = 0; k < 3; k++) {
            const apo_tv a = apo_tv_load(sums[2 * k] + j), b = apo_tv_load(sums[2 * k + 1] + j);
            const apo_tv q = a / b, term = k < 2 ? weight[k] * q : q;
            osc = apo_tv_pick(b > 0.0, osc + term, osc);
        }
        apo_tv_store(out + j, 100.0 * (osc / 7.0));
    }
    for (; j < n; j++) {
        const double a[3] = {sums[0][j], sums[2][j], sums[4][j]};
        const double b[3] = {sums[1][j], sums[3][j], sums[5][j]};
        out[j] = apo__ultosc_of(a, b);
    }
}

/* The sum of the p terms of x ending at x[last] in the eight partials of partials.h, as
 * apo__ultosc_direct gathers them (the same bits). */
static inline double apo__ultosc_buffer_sum(const double *x, size_t last, size_t p) {
    const double *w = x + last + 1 - p;
    const size_t r = p % APO_PARTS;
    double part[APO_PARTS];
    for (size_t l = 0; l < APO_PARTS; l++)
        part[l] = 0.0;
    for (size_t l = 0; l < r; l++)
        part[l] += w[l];
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++)
            part[l] += w[i + l];
    return apo__parts_combine(part);
}

/* Bar j's six sums into the chunk's rows, where the outputs read them. */
static inline void apo__ultosc_put(double sums[6][APO_ULTOSC_CHUNK], size_t j, double a0, double b0,
                                   double a1, double b1, double a2, double b2) {
    sums[0][j] = a0;
    sums[1][j] = b0;
    sums[2][j] = a1;
    sums[3][j] = b1;
    sums[4][j] = a2;
    sums[5][j] = b2;
}

/*
 * The bars [t, e) of a run (e - t at most APO_ULTOSC_CHUNK, no anchor among them but t, the
 * samples apo__ultosc_chunk_end names finite, s3 at most APO_ULTOSC_SPAN_MAX): the terms in
 * lanes (the scalar loop's values: apo__true_range_vec, trange_tile.h); bar t's sums evaluated
 * directly from them where `fresh` (t an anchor, or the run not valid), else slid from a and b;
 * the slides' differences, the slides, the outputs. a, b and *nonzero_io become their values at
 * e - 1. Returns 0, having changed nothing, where a term of finite samples is not finite (a
 * range past DBL_MAX), which the per-bar loop takes as a gap.
 */
static inline int apo__ultosc_chunk(const apo__cat_io *io, const size_t s[3], size_t t, size_t e,
                                    int fresh, double a[3], double b[3], size_t *nonzero_io) {
    const double *low = io->in[1], *close = io->in[2];
    const size_t n = e - t, span = s[2], lanes = APO_TILE_LANES, base = t - span;
    double pressure[APO_ULTOSC_CHUNK + APO_ULTOSC_SPAN_MAX],
        range[APO_ULTOSC_CHUNK + APO_ULTOSC_SPAN_MAX];
    /* A fresh chunk reads nothing before its first window (bar t - s3 + 1 and the close
     * before it: a stream keeps no bar before that at its tile's start); its slot 0, the term
     * a slide at t would let go, is not read. */
    const size_t terms = n + span, first = fresh ? 1 : 0;
    size_t j = first;
    if (fresh)
        pressure[0] = range[0] = 0.0;
    for (; j + lanes <= terms; j += lanes) {
        const size_t i = base + j;
        const apo_tv before = apo_tv_load(close + i - 1), l = apo_tv_load(low + i);
        apo_tv_store(range + j, apo__true_range_vec(io->in[0], low, close, i));
        apo_tv_store(pressure + j, apo_tv_load(close + i) - apo_tv_pick(l < before, l, before));
    }
    for (; j < terms; j++)
        (void)apo__ultosc_terms(io, base + j, &pressure[j], &range[j]);
    int finite = 1;
    for (j = first; j < terms; j++)
        finite &= apo__finite(pressure[j]) & apo__finite(range[j]);
    if (!finite)
        return 0;
    size_t nonzero = *nonzero_io, from = 0;
    if (fresh) {
        /* Bar t from its window's terms (apo__ultosc_direct's sums); the slides from t + 1. */
        for (int k = 0; k < 3; k++) {
            a[k] = apo__ultosc_buffer_sum(pressure, span, s[k]);
            b[k] = apo__ultosc_buffer_sum(range, span, s[k]);
        }
        nonzero = 0;
        for (j = 1; j <= span; j++)
            nonzero = range[j] != 0.0 ? base + j + 1 : nonzero;
        from = 1;
    }
    /* diff[2k][j], diff[2k + 1][j]: bar t + j's differences of window k, then its sums. */
    double sums[6][APO_ULTOSC_CHUNK];
    int every_range = 1;
    for (int k = 0; k < 3; k++) {
        const size_t out_at = span - s[k];
        for (j = 0; j < n; j++) {
            sums[2 * k][j] = pressure[span + j] - pressure[out_at + j];
            sums[2 * k + 1][j] = range[span + j] - range[out_at + j];
        }
    }
    for (j = from; j < n; j++)
        every_range &= range[span + j] != 0.0;
    /* The slides, the six sums in registers (as the array elements of a and b, gcc kept them
     * in memory, a store and a load on each chain a bar). */
    double a0 = a[0], a1 = a[1], a2 = a[2], b0 = b[0], b1 = b[1], b2 = b[2];
    if (fresh)
        apo__ultosc_put(sums, 0, a0, b0, a1, b1, a2, b2);
    if (every_range) {
        /* Every bar of the chunk has a range, so each window ending in it has one: the
         * selects would keep every sum. */
        for (j = from; j < n; j++) {
            a0 = a0 + sums[0][j];
            b0 = b0 + sums[1][j];
            a1 = a1 + sums[2][j];
            b1 = b1 + sums[3][j];
            a2 = a2 + sums[4][j];
            b2 = b2 + sums[5][j];
            apo__ultosc_put(sums, j, a0, b0, a1, b1, a2, b2);
        }
        nonzero = e;
    } else {
        for (j = from; j < n; j++) {
            nonzero = range[span + j] != 0.0 ? t + j + 1 : nonzero;
            a0 = a0 + sums[0][j];
            b0 = apo__ultosc_range_sum(b0 + sums[1][j], nonzero, s[0], t + j);
            a1 = a1 + sums[2][j];
            b1 = apo__ultosc_range_sum(b1 + sums[3][j], nonzero, s[1], t + j);
            a2 = a2 + sums[4][j];
            b2 = apo__ultosc_range_sum(b2 + sums[5][j], nonzero, s[2], t + j);
            apo__ultosc_put(sums, j, a0, b0, a1, b1, a2, b2);
        }
    }
    a[0] = a0, a[1] = a1, a[2] = a2, b[0] = b0, b[1] = b1, b[2] = b2;
    apo__ultosc_outputs((const double(*)[APO_ULTOSC_CHUNK])sums, n, io->out[0] + t);
    *nonzero_io = nonzero;
    return 1;
}

/* The end of the chunk from t when the chunk path may take it: s3 at most APO_ULTOSC_SPAN_MAX,
 * t not before *plain_until, the bars up to the next multiple of APO_ULTOSC_CHUNK (or end) at
 * least APO_DD_BLOCK_MIN and the samples the chunk reads all finite: from bar t - s3 - 1 on,
 * the close before the bar a slide at t lets go, or from t - s3 for a `fresh` chunk, which
 * reads its first window only (a stream keeps no bar before it at its tile's start). Else t,
 * and where those samples hold a gap, *plain_until becomes e (window_sum.h's rule). */
static inline size_t apo__ultosc_chunk_end(const apo__cat_io *io, const size_t s[3], int fresh,
                                           size_t t, size_t end, size_t *plain_until) {
    const size_t reach = s[2] + (fresh ? 0 : 1);
    if (s[2] > APO_ULTOSC_SPAN_MAX || t < reach || t < *plain_until)
        return t;
    const size_t next = t + (APO_ULTOSC_CHUNK - t % APO_ULTOSC_CHUNK), e = next < end ? next : end;
    if (e - t < APO_DD_BLOCK_MIN)
        return t;
    if (!apo__inputs_finite(io->in, 3, t - reach, e)) {
        *plain_until = e;
        return t;
    }
    return e;
}
#endif

/* The run's start at a tile's (or stream's) `begin`: n[0] one past the last bar before begin,
 * among the s3 - 1 whose terms its first window holds, whose terms are not finite (1 at least:
 * bar 0 has none), nothing valid yet. */
static inline APO_HD void apo__ultosc_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    size_t s[3];
    apo__ultosc_periods(io, s);
    apo__cat_run_from(r, begin);
    size_t bad = 1;
    double pr = 0.0, rg = 0.0;
    for (size_t i = begin + 1 > s[2] ? begin + 1 - s[2] : 1; i < begin; i++)
        bad = apo__ultosc_terms(io, i, &pr, &rg) ? bad : i + 1;
    r->n[0] = bad;
}

/* The loop from r->t to end: a window holding a bar whose terms are not finite gives NaN, a
 * clean one the oscillator of its sums, evaluated directly at anchors and at the first clean
 * window after a gap or the run's start, slid between. */
static APO_CAT_SPECIALISED APO_HD void apo__ultosc_run(const apo__cat_io *io, size_t end,
                                                       apo__cat_run *r) {
    double *out = io->out[0];
    size_t s[3];
    apo__ultosc_periods(io, s);
    const size_t anchor = apo__ultosc_anchor(s[2]);
    size_t bad = r->n[0], nonzero = r->n[2];
    int valid = r->n[1] != 0;
    double a[3] = {r->v[0], r->v[2], r->v[4]}, b[3] = {r->v[1], r->v[3], r->v[5]};
#ifdef APO_TILE_LANES
    size_t plain_until = 0;
#endif
    for (size_t t = r->t; t < end; t++) {
#ifdef APO_TILE_LANES
        const int fresh = !valid || t % anchor == 0;
        const size_t e = apo__ultosc_chunk_end(io, s, fresh, t, end, &plain_until);
        if (e > t) {
            if (apo__ultosc_chunk(io, s, t, e, fresh, a, b, &nonzero)) {
                valid = 1;
                t = e - 1;
                continue;
            }
            plain_until = e;
        }
#endif
        double pr = 0.0, rg = 0.0;
        const int fine = apo__ultosc_terms(io, t, &pr, &rg);
        if (!apo__window_step(fine, out, t, s[2], &bad, &valid))
            continue;
        if (!valid || t % anchor == 0) {
            nonzero = apo__ultosc_direct(io, s, t, a, b);
            valid = 1;
        } else {
            nonzero = rg != 0.0 ? t + 1 : nonzero;
            for (int k = 0; k < 3; k++) {
                double pr_out = 0.0, rg_out = 0.0;
                (void)apo__ultosc_terms(io, t - s[k], &pr_out, &rg_out);
                a[k] = a[k] + (pr - pr_out);
                b[k] = apo__ultosc_range_sum(b[k] + (rg - rg_out), nonzero, s[k], t);
            }
        }
        out[t] = apo__ultosc_of(a, b);
    }
    apo__window_keep(r, end, bad, valid);
    r->n[2] = nonzero;
    for (int k = 0; k < 3; k++) {
        r->v[2 * k] = a[k];
        r->v[2 * k + 1] = b[k];
    }
}

/* ultosc's tile and stream (catalog_table.h, RUN): apo__ultosc_tile, apo__ultosc_stream_start and
 * apo__ultosc_stream_run. */
APO_CAT_RUN_ENTRIES(ultosc, apo__ultosc_start(io, begin, r), apo__ultosc_run(io, end, r))

#endif /* APO_KERNELS_ULTOSC_TILE_H */

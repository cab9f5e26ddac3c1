/*
 * sar_tile.h: SAR(acceleration, maximum) and SAREXT(startvalue, offsetonreverse,
 * accelerationinitlong, accelerationlong, accelerationmaxlong, accelerationinitshort,
 * accelerationshort, accelerationmaxshort), Wilder's parabolic stop and reverse as TA-Lib
 * defines it. Inputs high, low; one output. The lookback is 1.
 *
 * Definition (TA-Lib's, from the series' first bar b0; b1 the next):
 *  - the position at b1 is short where the one-bar minus DM is above 0 (the low fell, by more
 *    than the high rose: low[b0] - low[b1] > 0 and high[b1] - high[b0] below it), else long;
 *    SAREXT's startvalue, when not 0, forces it: long at startvalue, short at -startvalue;
 *  - the stop starts at low[b0] (long) or high[b0] (short), the extreme point at high[b1] or
 *    low[b1], the accelerations at their initial values;
 *  - at each bar from b1, with the bar before (b1 itself at b1): a long position whose low
 *    reaches the stop (low <= stop) reverses: the stop becomes the extreme point, raised to
 *    the bar's and the bar before's highs, SAREXT adds stop * offsetonreverse, that is the
 *    output; then the extreme point is the low, the short acceleration its initial value, and
 *    the stop steps `stop + af * (ep - stop)`, raised to the two highs. A long position that
 *    holds outputs the stop, takes a new high as its extreme point (the acceleration steps by
 *    its increment, capped at its maximum), and steps the stop, lowered to the two lows. The
 *    short position mirrors it (a high at or above the stop reverses; offsetonreverse is
 *    subtracted). SAREXT outputs a short position's stop negated (`0 - stop`), SAR as it is.
 *  - an initial acceleration or an increment above its maximum is the maximum (TA-Lib's
 *    correction; SAR's acceleration is both the initial value and the increment).
 * Every operation is TA-Lib's source's, in its order, and the step `stop + af (ep - stop)` one
 * fused multiply-add as TA-Lib 0.8's build for FMA computes it (apo__sar_next), so the stops
 * are TA-Lib 0.8.1's where its wheel runs that build (docs/kernels.md, "Where TA-Lib differs"
 * under the parabolic SAR).
 *
 * Tiles: the position, stop, extreme point and accelerations at t depend on every bar before
 * it, and a stop restarted from a halo is another stop (the path of reversals differs for as
 * long as the two never meet, which nothing bounds). So, as OBV (obv_tile.h), the kernel is
 * whole-row: every tile runs the definition from the row's first bar, storing nothing before
 * `begin`; the operations that give output t are one sequence whichever tile t falls in, so
 * the bits do not depend on the grid, and a run of consecutive tiles may be one call.
 *
 * Gaps: a bar with a non-finite high or low gives NaN, changes nothing and is not a bar
 * before: the clean bars' outputs are TA-Lib's SAR of the series with its gap bars taken out
 * (the first clean bar gives NaN, its lookback). A stream carries the state (apo__sar_carry).
 */
#ifndef APO_KERNELS_SAR_TILE_H
#define APO_KERNELS_SAR_TILE_H

#include "catalog.h"

/* The parameters, after TA-Lib's corrections; [0] long, [1] short. */
typedef struct apo__sar_params {
    double start, offset;
    double init[2], step[2], max[2];
    int negate_short; /* SAREXT's outputs of a short position are its stop negated */
} apo__sar_params;

/* The running state, in the order a stream carries it (apo__sar_carry): the clean bars seen
 * (0, 1, then 2 for any more), the position (1 long), the stop, the extreme point, the two
 * accelerations and the last clean bar's high and low. */
#define APO_SAR_CARRY 8
#define APO_SAREXT_CARRY APO_SAR_CARRY
typedef struct apo__sar_state {
    double seen, is_long, sar, ep, af[2], high, low;
} apo__sar_state;

/* v > max ? max : v, apo__below_or's select. */
static inline APO_HD double apo__sar_capped(double v, double max) { return apo__below_or(max, v); }

static inline APO_HD apo__sar_params apo__sar_params_of(const apo__cat_io *io, int ext) {
    apo__sar_params k;
    if (ext) {
        k.start = io->p[0];
        k.offset = io->p[1];
        k.max[0] = io->p[4];
        k.max[1] = io->p[7];
        k.init[0] = apo__sar_capped(io->p[2], k.max[0]);
        k.step[0] = apo__sar_capped(io->p[3], k.max[0]);
        k.init[1] = apo__sar_capped(io->p[5], k.max[1]);
        k.step[1] = apo__sar_capped(io->p[6], k.max[1]);
    } else {
        k.start = 0.0;
        k.offset = 0.0;
        k.max[0] = k.max[1] = io->p[1];
        k.init[0] = k.init[1] = k.step[0] = k.step[1] = apo__sar_capped(io->p[0], io->p[1]);
    }
    k.negate_short = ext;
    return k;
}

/* The second clean bar (h, l) after the first (s->high, s->low): the starting position. */
static inline APO_HD void apo__sar_begin(apo__sar_state *s, const apo__sar_params *k, double h,
                                         double l) {
    int is_long;
    if (k->start == 0.0) {
        const double down = s->low - l, up = h - s->high;
        is_long = !(down > 0.0 && up < down);
        s->sar = is_long ? s->low : s->high;
    } else {
        is_long = k->start > 0.0;
        s->sar = fabs(k->start);
    }
    s->is_long = is_long ? 1.0 : 0.0;
    s->ep = is_long ? h : l;
    s->af[0] = k->init[0];
    s->af[1] = k->init[1];
    /* The bar before the second clean bar's step is that bar itself (TA-Lib's first step). */
    s->high = h;
    s->low = l;
}

/* A stop at least as high as the bars' highs (a short position's), or at most as low as their
 * lows, by TA-Lib's comparisons: `if (sar < a) sar = a; if (sar < b) sar = b;` (the lows'
 * with `>`). Those two selects give what one select against the higher of a and b gives, in
 * every case of ties, zeros of either sign and a NaN stop (a and b are clean bars'), so the
 * bars' extreme is taken off the stop's chain, which keeps one x86 max (apo__above_or) where
 * gcc's branches were mispredicted as the walk went. */
static inline APO_HD double apo__sar_above(double sar, double a, double b) {
    return apo__above_or(apo__above_or(b, a), sar);
}

static inline APO_HD double apo__sar_below(double sar, double a, double b) {
    return apo__below_or(apo__below_or(b, a), sar);
}

/* The stop's step toward the extreme point, TA-Lib 0.8's fused `fma(af, ep - sar, sar)` (its
 * SAR and SAREXT built for FMA): a written fma, one rounding on every device (apo_hd.h), so
 * TA-Lib 0.8.1's bits there, and one operation less on the chain than `sar + af * (ep - sar)`. */
static inline APO_HD double apo__sar_next(double sar, double af, double ep) {
    return fma(af, ep - sar, sar);
}

/* One clean bar (h, l) from the third on (the second's own step included): returns the output. */
static inline APO_HD double apo__sar_step(apo__sar_state *s, const apo__sar_params *k, double h,
                                          double l) {
    const double ph = s->high, pl = s->low;
    double sar = s->sar, out;
    if (s->is_long != 0.0) {
        if (l <= sar) {
            s->is_long = 0.0;
            sar = apo__sar_above(s->ep, ph, h);
            if (k->offset != 0.0)
                sar += sar * k->offset;
            out = k->negate_short ? 0.0 - sar : sar;
            s->af[1] = k->init[1];
            s->ep = l;
            sar = apo__sar_above(apo__sar_next(sar, s->af[1], s->ep), ph, h);
        } else {
            out = sar;
            /* A new high as selects, not a branch: one bar in three of a walk takes it. */
            const int higher = h > s->ep;
            const double af = apo__sar_capped(s->af[0] + k->step[0], k->max[0]);
            s->af[0] = higher ? af : s->af[0];
            s->ep = apo__above_or(h, s->ep);
            sar = apo__sar_below(apo__sar_next(sar, s->af[0], s->ep), pl, l);
        }
    } else if (h >= sar) {
        s->is_long = 1.0;
        sar = apo__sar_below(s->ep, pl, l);
        if (k->offset != 0.0)
            sar -= sar * k->offset;
        out = sar;
        s->af[0] = k->init[0];
        s->ep = h;
        sar = apo__sar_below(apo__sar_next(sar, s->af[0], s->ep), pl, l);
    } else {
        out = k->negate_short ? 0.0 - sar : sar;
        const int lower = l < s->ep;
        const double af = apo__sar_capped(s->af[1] + k->step[1], k->max[1]);
        s->af[1] = lower ? af : s->af[1];
        s->ep = apo__below_or(l, s->ep);
        sar = apo__sar_above(apo__sar_next(sar, s->af[1], s->ep), ph, h);
    }
    s->sar = sar;
    s->high = h;
    s->low = l;
    return out;
}

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on. The
 * tile and a stream's carried run both are this loop. */
static inline APO_HD void apo__sar_run(apo__sar_state *s, const apo__cat_io *io, int ext,
                                       size_t from, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1];
    double *out = io->out[0];
    const apo__sar_params k = apo__sar_params_of(io, ext);
    /* The state in a local: through `s`, its doubles were memory that each output's store
     * might have written, so every bar read them back. */
    apo__sar_state st = *s;
    for (size_t t = from; t < end; t++) {
        if (st.seen == 2.0 && t >= begin) {
            /* Past the first two clean bars, every bar an output: the loop below's operations
             * for bars with finite prices, without its tests of the start. A gap returns to it. */
            for (; t < end && apo__finite(high[t]) & apo__finite(low[t]); t++)
                out[t] = apo__canonical_nan(apo__sar_step(&st, &k, high[t], low[t]));
            if (t >= end)
                break;
        }
        const double h = high[t], l = low[t];
        double v = NAN;
        if (isfinite(h) && isfinite(l)) {
            if (st.seen == 0.0) {
                st.seen = 1.0;
                st.high = h;
                st.low = l;
            } else {
                if (st.seen == 1.0) {
                    st.seen = 2.0;
                    apo__sar_begin(&st, &k, h, l);
                }
                /* Past DBL_MAX (docs/kernels.md, Range) a stop may be an arithmetic NaN,
                 * whose bits the CPU and the GPU do not share (apo_hd.h). */
                v = apo__canonical_nan(apo__sar_step(&st, &k, h, l));
            }
        }
        if (t >= begin)
            out[t] = v;
    }
    *s = st;
}

static inline APO_HD void apo__sar_body(const apo__cat_io *io, int ext, size_t begin, size_t end) {
    apo__sar_state s = {0.0, 0.0, 0.0, 0.0, {0.0, 0.0}, 0.0, 0.0};
    apo__sar_run(&s, io, ext, 0, begin, end);
}

static inline APO_HD void apo__sar_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__sar_body(io, 0, begin, end);
}

static inline APO_HD void apo__sarext_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__sar_body(io, 1, begin, end);
}

/*
 * A stream's series fed on from bar `begin` to `stop` - 1, going on from the state `c` its last
 * piece left at `begin` (all zeros before the first bar: the tile's start state), in
 * apo__sar_state's order. The state is the tile's at `begin`, so the outputs are the bits of
 * any tile holding them (runtime/streaming/stream.c).
 */
static inline void apo__sar_carry_run(const apo__cat_io *io, int ext, double *c, size_t begin,
                                      size_t stop) {
    apo__sar_state s = {c[0], c[1], c[2], c[3], {c[4], c[5]}, c[6], c[7]};
    apo__sar_run(&s, io, ext, begin, begin, stop);
    const double kept[APO_SAR_CARRY] = {s.seen,  s.is_long, s.sar,  s.ep,
                                        s.af[0], s.af[1],   s.high, s.low};
    for (int i = 0; i < APO_SAR_CARRY; i++)
        c[i] = kept[i];
}

static inline void apo__sar_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__sar_carry_run(io, 0, c, begin, stop);
}

static inline void apo__sarext_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__sar_carry_run(io, 1, c, begin, stop);
}

#endif /* APO_KERNELS_SAR_TILE_H */

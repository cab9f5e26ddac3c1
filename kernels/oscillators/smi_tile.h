/*
 * smi_tile.h: SMI(timeperiod, fastperiod, slowperiod, signalperiod), TA-Lib 0.8's stochastic
 * momentum index (Blau): over the window of p = timeperiod bars ending at t, with HH its highest
 * high and LL its lowest low, the distance of the close from the window's midpoint,
 * `num = close - (HH + LL) * 0.5`, and the window's range `den = HH - LL`; each smoothed by an EMA
 * of slowperiod and that by an EMA of fastperiod (TA-Lib's order: slow first), and
 * `smi = 100 * N / (0.5 * D)`, N and D the doubly smoothed num and den, 0 where 0.5 * D is not
 * above 0 (flat windows only: D averages ranges); smisignal the EMA of signalperiod of smi. Each
 * EMA is TA-Lib's, the stage of ema_tile.h (apo__ema_stage): seeded with the mean of its first
 * period inputs (the stage before's values from its seed on), then TA-Lib 0.8's fused step
 * `e = fma(k, v - e, e)`, k = 2/(period + 1) (TA-Lib 0.8.1's bits where its SMI built for FMA
 * runs). Lookback (p - 1) + (slow - 1) +
 * (fast - 1) + (signal - 1); both outputs start there, TA-Lib's, though the line exists signal - 1
 * bars earlier.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h the lookback plus each EMA's decay
 * steps and the slowest's once more for the chain (catalog_dispatch.c, SMI), the first window
 * ending at w0 + p - 1: a tile starting at 0 has the definition's operations, later tiles agree
 * with it to 2^-64 of the scale. The window's extremes are tracked by index (willr's
 * apo__track_extreme), or on the CPU, for blocks of clean windows of up to APO_EXTREME_SPAN_MAX
 * bars, taken by window_extreme.h's doubling: exact either way, so the same bits.
 *
 * Gaps (the EMA family's rule): a bar whose window holds a non-finite high or low, or whose close
 * is not finite, gives NaN in both outputs and moves no stage.
 *
 * Stream: RUN (apo__smi_start, apo__smi_go), the tile being the start and the run: the stream
 * carries the four stages, their seen counts and the last gap, and a one-bar update scans its
 * bar's window (p bars) for the extremes. The start reads nothing, so a stream takes the next
 * tile's run ahead (AHEAD). Until 2026-12-08 the stream was NONE: every update ran the tile
 * again from w0.
 */
#ifndef APO_KERNELS_SMI_TILE_H
#define APO_KERNELS_SMI_TILE_H

#include "catalog.h"
#include "ema_tile.h"
#include "run_entries.h"
#include "willr_tile.h"

/* The lookback: the window, then the three EMAs' seeds. */
static inline APO_HD size_t apo__smi_lookback(size_t p, size_t fast, size_t slow, size_t signal) {
    return (p - 1) + (slow - 1) + (fast - 1) + (signal - 1);
}

/* The four EMAs, each with the values its seed has seen: num and den share theirs. */
typedef struct {
    size_t slow_seen, fast_seen, signal_seen;
    double slow_num, slow_den, fast_num, fast_den, signal;
} apo__smi_stages;

/* The three EMAs' periods and rates, k = 2/(period + 1), taken once a tile: in the step they
 * were three divisions a bar (the periods read again through io->p, which the output stores
 * may alias), the same quotients. */
typedef struct {
    size_t fast, slow, signal;
    double k_fast, k_slow, k_signal;
} apo__smi_rates;

static inline APO_HD apo__smi_rates apo__smi_rates_of(const apo__cat_io *io) {
    apo__smi_rates r;
    r.fast = (size_t)io->p[1];
    r.slow = (size_t)io->p[2];
    r.signal = (size_t)io->p[3];
    r.k_fast = 2.0 / ((double)r.fast + 1.0);
    r.k_slow = 2.0 / ((double)r.slow + 1.0);
    r.k_signal = 2.0 / ((double)r.signal + 1.0);
    return r;
}

/* Takes bar t's num and den through the stages; returns 1 with *line and *signal set where the
 * signal is seeded after it. */
static inline APO_HD int apo__smi_step(apo__smi_stages *s, double num, double den,
                                       const apo__smi_rates *r, double *line, double *signal) {
    s->slow_num = apo__ema_stage(s->slow_num, num, s->slow_seen, r->slow, r->k_slow);
    s->slow_den = apo__ema_stage(s->slow_den, den, s->slow_seen, r->slow, r->k_slow);
    if (s->slow_seen < r->slow && ++s->slow_seen < r->slow)
        return 0;
    s->fast_num = apo__ema_stage(s->fast_num, s->slow_num, s->fast_seen, r->fast, r->k_fast);
    s->fast_den = apo__ema_stage(s->fast_den, s->slow_den, s->fast_seen, r->fast, r->k_fast);
    if (s->fast_seen < r->fast && ++s->fast_seen < r->fast)
        return 0;
    const double half = 0.5 * s->fast_den;
    *line = half > 0.0 ? 100.0 * s->fast_num / half : 0.0;
    s->signal = apo__ema_stage(s->signal, *line, s->signal_seen, r->signal, r->k_signal);
    if (s->signal_seen < r->signal && ++s->signal_seen < r->signal)
        return 0;
    *signal = s->signal;
    return 1;
}

/* Where a tile's loop stands: the stages, one past the last gap of high or low (the tile's
 * first bar w0 before any: the windows start there), and the indices of the window's extremes
 * where `tracked` (they are the last window's). */
typedef struct {
    apo__smi_stages s;
    size_t bad, at_high, at_low;
    int tracked;
} apo__smi_loop;

/* Bar t's num and den through the stages s, its outputs written where t >= begin. */
static inline APO_HD void apo__smi_bar(double *line_out, double *signal_out, size_t begin, size_t t,
                                       double num, double den, const apo__smi_rates *rates,
                                       apo__smi_stages *s) {
    double line = NAN, signal = NAN;
    if (!apo__smi_step(s, num, den, rates, &line, &signal))
        line = NAN;
    if (t >= begin) {
        line_out[t] = apo__canonical_nan(line);
        signal_out[t] = apo__canonical_nan(signal);
    }
}

/* The bars [t, e) one by one, the extremes tracked by index. */
static inline APO_HD void apo__smi_track(const apo__cat_io *io, size_t begin, size_t t, size_t e,
                                         const apo__smi_rates *rates, apo__smi_loop *l) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    const size_t p = (size_t)io->p[0];
    for (; t < e; t++) {
        if (!apo__all_finite_at(io->in, 2, t))
            l->bad = t + 1;
        const int clean = apo__window_clean(t, p, l->bad);
        if (clean) {
            apo__track_extreme(high, t, p, !l->tracked, 1.0, &l->at_high);
            apo__track_extreme(low, t, p, !l->tracked, -1.0, &l->at_low);
        }
        l->tracked = clean;
        if (clean && apo__finite(close[t])) {
            const double hh = high[l->at_high], ll = low[l->at_low];
            apo__smi_bar(io->out[0], io->out[1], begin, t, close[t] - (hh + ll) * 0.5, hh - ll,
                         rates, &l->s);
        } else if (t >= begin) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
        }
    }
}

/* A block [t, e) of clean windows and finite closes (apo__extreme_piece, CPU only): the
 * extremes by doubling (window_extreme.h: the same values as the tracking's), num and den in
 * vector lanes (the same operations), then the stages bar by bar. The tracking's compares and
 * branches on the data, mispredicted on a long series, took most of the tile's time. It leaves
 * no indices: the next bar tracked scans its window. */
static inline APO_HD void apo__smi_block(const apo__cat_io *io, size_t begin, size_t t, size_t e,
                                         const apo__smi_rates *rates, apo__smi_loop *l) {
#ifdef APO_TILE_LANES
    const size_t p = (size_t)io->p[0], n = e - t;
    const double *close = io->in[2] + t;
    double num[APO_EXTREME_BLOCK], den[APO_EXTREME_BLOCK];
    apo__extreme_scratch scratch;
    apo__window_extremes(io->in[0], t, n, p, 1, num, NULL, &scratch);
    apo__window_extremes(io->in[1], t, n, p, 0, den, NULL, &scratch);
    for (size_t k = 0; k < n; k++) {
        const double hh = num[k], ll = den[k];
        num[k] = close[k] - (hh + ll) * 0.5;
        den[k] = hh - ll;
    }
    /* The stages in a local copy and the output rows in locals: through l and io, which the
     * output stores may alias, gcc loaded and stored every stage at every bar, its chains
     * waiting on the store's forwarding. */
    apo__smi_stages st = l->s;
    double *line_out = io->out[0], *signal_out = io->out[1];
    for (size_t k = 0; k < n; k++)
        apo__smi_bar(line_out, signal_out, begin, t + k, num[k], den[k], rates, &st);
    l->s = st;
#else
    (void)io, (void)begin, (void)t, (void)e, (void)rates;
#endif
    l->tracked = 0;
}

/* A stream's start of the tile at `begin`: the loop at the warm-up origin w0 with empty stages,
 * the windows starting there (n[3], one past the last gap, is w0). It reads nothing. */
static inline APO_HD void apo__smi_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from_origin(io, begin, r);
    r->n[3] = r->t;
}

/* The run of the tile at `begin` from r->t to `end`, the outputs written from `begin`: the
 * stages' seen counts in n[0..2] and values in v[0..4], one past the last gap in n[3]. The
 * extremes' indices are not carried: a run's first bar scans its window, as the first bar
 * after a block does; the extremes are exact either way, and the stages go bar by bar in the
 * same order, so a tile of one start and one run, and a stream's runs of any lengths, give the
 * same bits. */
static inline APO_HD void apo__smi_go(const apo__cat_io *io, size_t begin, size_t end,
                                      apo__cat_run *r) {
    if (end <= r->t)
        return;
    const apo__smi_rates rates = apo__smi_rates_of(io);
    apo__smi_loop l;
    memset(&l, 0, sizeof l);
    l.s.slow_seen = r->n[0];
    l.s.fast_seen = r->n[1];
    l.s.signal_seen = r->n[2];
    l.bad = r->n[3];
    l.s.slow_num = r->v[0];
    l.s.slow_den = r->v[1];
    l.s.fast_num = r->v[2];
    l.s.fast_den = r->v[3];
    l.s.signal = r->v[4];
    for (size_t t = r->t, stop; t < end; t = stop)
        if (apo__extreme_piece(io->in, 3, (size_t)io->p[0], t, end, l.bad, &stop))
            apo__smi_block(io, begin, t, stop, &rates, &l);
        else
            apo__smi_track(io, begin, t, stop, &rates, &l);
    r->t = end;
    r->n[0] = l.s.slow_seen;
    r->n[1] = l.s.fast_seen;
    r->n[2] = l.s.signal_seen;
    r->n[3] = l.bad;
    r->v[0] = l.s.slow_num;
    r->v[1] = l.s.slow_den;
    r->v[2] = l.s.fast_num;
    r->v[3] = l.s.fast_den;
    r->v[4] = l.s.signal;
}

APO_CAT_RUN_ENTRIES(smi, apo__smi_start(io, begin, r), apo__smi_go(io, begin, end, r))

#endif /* APO_KERNELS_SMI_TILE_H */

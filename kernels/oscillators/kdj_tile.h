/*
 * kdj_tile.h: KDJ(fastk_period, slowk_period, slowk_matype, slowd_period, slowd_matype), TA-Lib
 * 0.8's KDJ stochastic: TA-Lib's STOCH with its averages' kinds free, k its slowk, d its slowd, and
 * `j = 3.0 * k - 2.0 * d` (TA-Lib's operations). fastk is stoch's (stoch_tile.h, apo__fastk_at:
 * `(close - LL) / ((HH - LL) / 100)` over the fastk_period bars ending at t, 0 where HH = LL), from
 * bar fastk_period - 1; k the MA(slowk_period, slowk_matype) of fastk, d the MA(slowd_period,
 * slowd_matype) of k. TA-Lib's default kind for both is 13, Wilder's smoothing (its MA's RMA:
 * seeded with the mean of the first p values, then rma's fused step, wilder_step.h,
 * rma_tile.h). Lookback (fastk_period - 1) + the two averages' lookbacks (apo__kdj_ma_lookback,
 * TA-Lib's for every kind of its MA_Type 0 .. 13).
 *
 * Kinds the body takes: every kind at period 1 (the value itself, TA-Lib's MA at period 1) and,
 * above it, two families. The recurrences that read only the value at hand, 13 (and 11, "the
 * function's own default", which is 13 for KDJ), 1 (EMA: the same seed, then
 * `e = (v - e) * k + e`, k = 2/(p + 1)) and 10 (no average: the value itself), run as one loop
 * over the bars (apo__kdj_ma). The kinds ma_series.h takes over a computed series, 0 (SMA),
 * 2 (WMA), 3 (DEMA), 4 (TEMA), 5 (TRIMA), 6 (KAMA), 8 (T3), 9 (HMA) and 12 (ZLEMA), run fastk, k
 * and d in pieces of APO_KDJ_PIECE bars (apo__kdj_tile_pieces), either average through
 * ma_series.h where it is of those kinds and through apo__kdj_ma where it is a recurrence, both
 * in fastk's own indices (u = t - (fastk_period - 1)) from the same origin: k's warm-up is a run
 * of NaN values that d skips (the EMA family, ZLEMA, KAMA's restart) or whose window it does not
 * fill (the window kinds), as TA-Lib's d taken from k's first value. SMA, WMA, TRIMA, HMA, KAMA
 * and ZLEMA read their series at one or more distances back (apo__ma_series_lag_distance): for
 * k, fastk that far back, a pure function of its window (apo__fastk_at); for d, k that far back,
 * from one more k generator per distance started at the same bar (the same bits) running
 * behind, as stochrsi_tile.h does. MAMA (7) above period 1 reads the whole series and is refused
 * by the runtime (docs/kernels/momentum.md, "TA-Lib 0.8's newer functions, group 5"); the body
 * writes NaN if called with it. All three outputs are NaN where k or d has no value (TA-Lib's
 * lookback, and the gaps below). Without an out[2] (stoch and stochf at a matype other than 0,
 * which take this body for their k and d: stoch_ma.h) j is not written.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h the lookback plus each average's
 * warm-up (the recurrences' decay steps, DEMA's, TEMA's, T3's, KAMA's and ZLEMA's as their
 * kernels' halo rules, none for SMA, WMA, TRIMA and HMA, whose windows the lookback covers) and
 * the slower's once more for the chain (catalog_dispatch.c, KDJ), the first fastk at
 * w0 + fastk_period - 1: a tile starting at 0 has the definition's operations (a window kind's as
 * ma_series.h's running double-double sums), later tiles agree with it to 2^-64 of the scale.
 *
 * Gaps: a bar whose fastk window holds a non-finite high or low, or whose close is not finite,
 * has a NaN fastk, which moves no recurrence nor DEMA, TEMA, T3 or ZLEMA stage (the EMA
 * family's rule), which an SMA's, WMA's, TRIMA's or HMA's window holds for its period (the
 * windows' rule, ma_series.h) and after which KAMA restarts; it gives NaN in all three outputs.
 * Stream: RUN, the two averages carried where both are recurrences (kdj_stream.h).
 */
#ifndef APO_KERNELS_KDJ_TILE_H
#define APO_KERNELS_KDJ_TILE_H

#include "catalog.h"
#include "hma_tile.h"
#include "ma_series.h"
#include "ma_type.h"
#include "stoch_tile.h"
#include "wilder_step.h"

/* TA-Lib 0.8's MA_Type beyond ma_type.h's nine (APO_MA_HMA .. APO_MA_WILDER) are in
 * ma_series_lagged.h, whose kinds take two of them. */

/* TA-Lib's lookback of its MA(p, matype) for every matype 0 .. 13; KDJ's own default (11) is 13. */
static inline APO_HD size_t apo__kdj_ma_lookback(int matype, size_t p) {
    if (p <= 1 || matype == APO_MA_NONE)
        return 0;
    switch (matype) {
    case APO_MA_HMA:
        return apo__hma_lookback(p);
    case APO_MA_ZLEMA:
        return (p - 1) / 2 + (p - 1);
    case APO_MA_OWN:
    case APO_MA_WILDER:
        return p - 1;
    default:
        return apo__ma_lookback(matype, p);
    }
}

/* The bars of a piece of fastk, k and d where an average is of ma_series.h's kinds: small,
 * because a GPU thread keeps the pieces' buffers in its local memory (13 of them at most: fastk,
 * k, d, and the values at each distance back of k's kind and of d's, 6.5 KiB). */
#define APO_KDJ_PIECE 64

/* 1 when the average is a recurrence over the value at hand (apo__kdj_ma). */
static inline APO_HD int apo__kdj_recurrence(int matype, size_t p) {
    return p <= 1 || matype == APO_MA_EMA || matype == APO_MA_NONE || matype == APO_MA_OWN ||
           matype == APO_MA_WILDER;
}

/* 1 when this body takes the average (see above). */
static inline APO_HD int apo__kdj_takes(int matype, size_t p) {
    return apo__kdj_recurrence(matype, p) || apo__ma_series_takes_lagged(matype, p);
}

/* The rate at which a recurrence forgets its seed, for its halo: 1 for none. */
static inline APO_HD double apo__kdj_rate(int matype, double p) {
    if (p <= 1.0 || matype == APO_MA_NONE)
        return 1.0;
    return matype == APO_MA_EMA ? 2.0 / (p + 1.0) : 1.0 / p;
}

/* One of the two averages: its kind, period, values seen toward its seed, and value. */
typedef struct {
    int kind; /* 1 EMA, 13 Wilder, 10 the value itself */
    size_t p, seen;
    double a;
} apo__kdj_ma;

static inline APO_HD apo__kdj_ma apo__kdj_ma_make(int matype, size_t p) {
    apo__kdj_ma m;
    /* Plain ints: C++ (the CUDA side) refuses a conditional between two enums' constants. */
    int kind = APO_MA_WILDER;
    if (p <= 1 || matype == APO_MA_NONE)
        kind = APO_MA_NONE;
    else if (matype == APO_MA_EMA)
        kind = APO_MA_EMA;
    m.kind = kind;
    m.p = p;
    m.seen = 0;
    m.a = 0.0;
    return m;
}

/* Takes v; returns whether the average has a value after it. */
static inline APO_HD int apo__kdj_ma_take(apo__kdj_ma *m, double v) {
    const double pd = (double)m->p;
    if (m->kind == APO_MA_NONE) {
        m->a = v;
        return 1;
    }
    if (m->seen < m->p) {
        m->a = m->a + v;
        if (++m->seen < m->p)
            return 0;
        m->a = m->a / pd;
    } else if (m->kind == APO_MA_EMA) {
        m->a = (v - m->a) * (2.0 / (pd + 1.0)) + m->a;
    } else {
        const double keep = APO__WILDER_KEEP(pd);
        m->a = APO__WILDER_NEXT(fma, m->a, v, keep, 1.0 - keep);
    }
    return 1;
}

/* One of the two averages over a series handed over in pieces, in fastk's indices: a recurrence
 * (rec) or one of ma_series.h's kinds (ser). */
typedef struct {
    apo__kdj_ma rec;
    apo__ma_series ser;
    int by_series;
} apo__kdj_avg;

/* The average whose series starts at index `origin`, every output from there wanted. */
static inline APO_HD void apo__kdj_avg_start(apo__kdj_avg *a, int matype, size_t p, size_t origin) {
    a->by_series = !apo__kdj_recurrence(matype, p);
    a->rec = apo__kdj_ma_make(matype, p);
    apo__ma_series_start(&a->ser, matype, p, 0, origin);
}

/* How many distances back the average reads its series, and the i-th (ma_series.h). */
static inline APO_HD size_t apo__kdj_avg_lags(const apo__kdj_avg *a) {
    return a->by_series ? apo__ma_series_lag_count(a->ser.matype, a->ser.p) : 0;
}
static inline APO_HD size_t apo__kdj_avg_lag(const apo__kdj_avg *a, size_t i) {
    return apo__ma_series_lag_distance(a->ser.matype, a->ser.p, i);
}

/* The series at [u0, u1) (v[u - u0]), lag[i][u - u0] the value apo__kdj_avg_lag(i) before it,
 * and the average at each u into out[u - u0]: NaN where it has none. */
static inline APO_HD void apo__kdj_avg_run(apo__kdj_avg *a, const double *v,
                                           const double *const *lag, double *out, size_t u0,
                                           size_t u1) {
    if (a->by_series) {
        apo__ma_series_run_lagged(&a->ser, v, lag, out, u0, u1);
        return;
    }
    for (size_t u = u0; u < u1; u++) {
        const double x = v[u - u0];
        out[u - u0] = isfinite(x) && apo__kdj_ma_take(&a->rec, x) ? a->rec.a : (double)NAN;
    }
}

/* Scratch of a piece for k's generators: fastk, and the fastk at each distance back. */
typedef struct {
    double fastk[APO_KDJ_PIECE];
    double lag[APO_MA_SERIES_LAGS][APO_KDJ_PIECE];
} apo__kdj_scratch;

/* k at bars [t0, t1) (t0 where its last piece ended) into k[t - t0], fastk starting at bar
 * `from`. */
static inline APO_HD void apo__kdj_k_run(apo__kdj_avg *avg, const apo__cat_io *io, size_t fk,
                                         size_t from, size_t t0, size_t t1, apo__kdj_scratch *sc,
                                         double *k) {
    const size_t lags = apo__kdj_avg_lags(avg);
    const double *rows[APO_MA_SERIES_LAGS];
    for (size_t i = 0; i < APO_MA_SERIES_LAGS; i++)
        rows[i] = sc->lag[i];
    for (size_t t = t0; t < t1; t++) {
        sc->fastk[t - t0] = apo__fastk_at(io, t, fk);
        /* fastk is a function of its window: the values the average reads back are fastk
         * recomputed there (NaN before the series' first bar, where it has none). */
        for (size_t i = 0; i < lags; i++) {
            const size_t back = apo__kdj_avg_lag(avg, i);
            sc->lag[i][t - t0] = t >= from + back ? apo__fastk_at(io, t - back, fk) : (double)NAN;
        }
    }
    apo__kdj_avg_run(avg, sc->fastk, rows, k, t0 - (fk - 1), t1 - (fk - 1));
}

/* The pieces' buffers: k's scratch, k, d, and k at each distance d's average reads back. */
typedef struct {
    apo__kdj_scratch sc;
    double k[APO_KDJ_PIECE], d[APO_KDJ_PIECE];
    double old[APO_MA_SERIES_LAGS][APO_KDJ_PIECE];
} apo__kdj_buffers;

/* The values of k that d's average reads back, for the piece [t0, t1): k `back` bars behind,
 * from a second k generator started at the same bar (the same bits); NaN before `from`. */
static inline APO_HD void apo__kdj_k_behind(apo__kdj_avg *behind, const apo__cat_io *io, size_t fk,
                                            size_t from, size_t back, size_t t0, size_t t1,
                                            apo__kdj_buffers *b, double *old) {
    const size_t first = from + back > t0 ? from + back : t0;
    for (size_t t = t0; t < t1 && t < first; t++)
        old[t - t0] = NAN;
    if (t1 > first)
        apo__kdj_k_run(behind, io, fk, from, first - back, t1 - back, &b->sc, old + (first - t0));
}

/* The body where an average is of ma_series.h's kinds (see above), from the first fastk at
 * `from` on. */
static inline APO_HD void apo__kdj_tile_pieces(const apo__cat_io *io, size_t begin, size_t end,
                                               size_t from) {
    const size_t fk = (size_t)io->p[0], pk = (size_t)io->p[1], pd = (size_t)io->p[3];
    const int kind_k = (int)io->p[2], kind_d = (int)io->p[4];
    apo__kdj_avg lead, d, behind[APO_MA_SERIES_LAGS];
    apo__kdj_avg_start(&lead, kind_k, pk, from - (fk - 1));
    apo__kdj_avg_start(&d, kind_d, pd, from - (fk - 1));
    const size_t lags = apo__kdj_avg_lags(&d);
    for (size_t i = 0; i < lags; i++)
        apo__kdj_avg_start(&behind[i], kind_k, pk, from - (fk - 1));
    apo__kdj_buffers b;
    const double *old[APO_MA_SERIES_LAGS];
    for (size_t i = 0; i < APO_MA_SERIES_LAGS; i++)
        old[i] = b.old[i];
    for (size_t t0 = from; t0 < end; t0 += APO_KDJ_PIECE) {
        const size_t t1 = end - t0 > APO_KDJ_PIECE ? t0 + APO_KDJ_PIECE : end;
        apo__kdj_k_run(&lead, io, fk, from, t0, t1, &b.sc, b.k);
        for (size_t i = 0; i < lags; i++)
            apo__kdj_k_behind(&behind[i], io, fk, from, apo__kdj_avg_lag(&d, i), t0, t1, &b,
                              b.old[i]);
        apo__kdj_avg_run(&d, b.k, old, b.d, t0 - (fk - 1), t1 - (fk - 1));
        for (size_t t = t0 > begin ? t0 : begin; t < t1; t++) {
            const double ko = b.k[t - t0], dout = b.d[t - t0];
            const int both = isfinite(ko) && isfinite(dout);
            io->out[0][t] = both ? ko : (double)NAN;
            io->out[1][t] = both ? dout : (double)NAN;
            if (io->out[2] != NULL)
                io->out[2][t] = both ? apo__canonical_nan(3.0 * ko - 2.0 * dout) : (double)NAN;
        }
    }
}

/* 1 when both averages are recurrences over the value at hand (kdj's p[2] at period p[1], p[4]
 * at p[3]): the body is then one loop whose state is the two averages (apo__kdj_recurrences). */
static inline APO_HD int apo__kdj_both_recurrences(const double *p) {
    return apo__kdj_recurrence((int)p[2], (size_t)p[1]) &&
           apo__kdj_recurrence((int)p[4], (size_t)p[3]);
}

/* The loop of both recurrences over the bars [from, end), `from` at or after the first fastk
 * (w0 + fk - 1), the averages k and d standing where the bars before `from` left them; outputs
 * at the bars from `begin` on. fastk is taken a block at a time by stoch's apo__fastk_block (the
 * bits of apo__fastk_at; a clean block's windows side by side on the CPU), where a scan of fk
 * bars a bar, with its finiteness tests, had cost twice the averages' chain. A tile is this loop
 * from its first fastk with empty averages; a stream's update is the same loop from where the
 * last one stopped (kdj_stream.h), so the same operations. */
static inline APO_HD void apo__kdj_recurrences(const apo__cat_io *io, size_t begin, size_t from,
                                               size_t end, apo__kdj_ma *k, apo__kdj_ma *d) {
    if (from >= end) /* the run would read past end */
        return;
    const size_t fk = (size_t)io->p[0];
    apo__fastk_run run = apo__fastk_run_from(io, from, fk);
    double fastk[APO_STOCH_BLOCK];
    for (size_t t0 = from; t0 < end; t0 += APO_STOCH_BLOCK) {
        const size_t t1 = end - t0 < APO_STOCH_BLOCK ? end : t0 + APO_STOCH_BLOCK;
        apo__fastk_block(io, &run, t0, t1, fk, fastk);
        for (size_t t = t0; t < t1; t++) {
            double ko = NAN, dout = NAN, jo = NAN;
            if (isfinite(fastk[t - t0]) && apo__kdj_ma_take(k, fastk[t - t0]) &&
                apo__kdj_ma_take(d, k->a)) {
                ko = k->a;
                dout = d->a;
                jo = 3.0 * ko - 2.0 * dout;
            }
            if (t >= begin) {
                io->out[0][t] = ko;
                io->out[1][t] = dout;
                if (io->out[2] != NULL)
                    io->out[2][t] = apo__canonical_nan(jo);
            }
        }
    }
}

/* NaN at the bars [t0, t1) of every output (no j where io->out[2] is NULL): the tile's lead,
 * before its first fastk, and a stream's share of it (kdj_stream.h). */
static inline APO_HD void apo__kdj_nan(const apo__cat_io *io, size_t t0, size_t t1) {
    for (size_t t = t0; t < t1; t++) {
        io->out[0][t] = io->out[1][t] = NAN;
        if (io->out[2] != NULL)
            io->out[2][t] = NAN;
    }
}

static inline APO_HD void apo__kdj_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], pk = (size_t)io->p[1], pd = (size_t)io->p[3];
    const int kind_k = (int)io->p[2], kind_d = (int)io->p[4];
    const size_t first = apo__cat_origin(io, begin) + fk - 1;
    if (!apo__kdj_takes(kind_k, pk) || !apo__kdj_takes(kind_d, pd)) {
        apo__kdj_nan(io, begin, end);
        return;
    }
    apo__kdj_nan(io, begin, first < end ? first : end);
    if (!apo__kdj_both_recurrences(io->p)) {
        apo__kdj_tile_pieces(io, begin, end, first);
        return;
    }
    apo__kdj_ma k = apo__kdj_ma_make(kind_k, pk), d = apo__kdj_ma_make(kind_d, pd);
    apo__kdj_recurrences(io, begin, first, end, &k, &d);
}

#endif /* APO_KERNELS_KDJ_TILE_H */

/*
 * kdj_tile.h: KDJ(fastk_period, slowk_period, slowk_matype, slowd_period, slowd_matype), TA-Lib
 * 0.8's KDJ stochastic: TA-Lib's STOCH with its averages' kinds free, k its slowk, d its slowd, and
 * `j = 3.0 * k - 2.0 * d` (TA-Lib's operations). fastk is stoch's (stoch_tile.h, apo__fastk_at:
 * `(close - LL) / ((HH - LL) / 100)` over the fastk_period bars ending at t, 0 where HH = LL), from
 * bar fastk_period - 1; k the MA(slowk_period, slowk_matype) of fastk, d the MA(slowd_period,
 * slowd_matype) of k. TA-Lib's default kind for both is 13, Wilder's smoothing (its MA's RMA:
 * seeded with the mean of the first p values, then rma's `a = (a * (p - 1) + v) / p`,
 * rma_tile.h). Lookback (fastk_period - 1) + the two averages' lookbacks (apo__kdj_ma_lookback,
 * TA-Lib's for every kind of its MA_Type 0 .. 13).
 *
 * Kinds the body takes: the recurrences that read only the value at hand, 13 (and 11, "the
 * function's own default", which is 13 for KDJ), 1 (EMA: the same seed, then
 * `e = (v - e) * k + e`, k = 2/(p + 1)), 10 (no average: the value itself), and any kind at
 * period 1 (the value itself, TA-Lib's MA at period 1). The others (SMA, WMA, DEMA, TEMA, TRIMA,
 * KAMA, MAMA, T3, HMA, ZLEMA above period 1) would average a computed series over a window or a
 * chain of stages, which this body does not hold; the runtime refuses them with the kinds it
 * takes (docs/kernels/momentum.md, "TA-Lib 0.8's newer functions, group 5"), and the body writes
 * NaN if called with them.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h the lookback plus each average's
 * decay steps and the slower's once more for the chain (catalog_dispatch.c, KDJ), the first fastk
 * at w0 + fastk_period - 1: a tile starting at 0 has the definition's operations, later tiles
 * agree with it to 2^-64 of the scale.
 *
 * Gaps (the EMA family's rule): a bar whose fastk window holds a non-finite high or low, or whose
 * close is not finite, gives NaN in all three outputs and moves neither average. Stream: NONE (a
 * piece re-runs its tile).
 */
#ifndef APO_KERNELS_KDJ_TILE_H
#define APO_KERNELS_KDJ_TILE_H

#include "catalog.h"
#include "hma_tile.h"
#include "ma_type.h"
#include "stoch_tile.h"

/* TA-Lib 0.8's MA_Type beyond ma_type.h's nine: HMA, no average, the function's own default,
 * ZLEMA and Wilder's smoothing (RMA). */
enum { APO_MA_HMA = 9, APO_MA_NONE = 10, APO_MA_OWN = 11, APO_MA_ZLEMA = 12, APO_MA_WILDER = 13 };

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

/* 1 when this body takes the average (see above). */
static inline APO_HD int apo__kdj_takes(int matype, size_t p) {
    return p <= 1 || matype == APO_MA_EMA || matype == APO_MA_NONE || matype == APO_MA_OWN ||
           matype == APO_MA_WILDER;
}

/* The rate at which an average the body takes forgets its seed, for its halo: 0 for none. */
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
        m->a = (m->a * (pd - 1.0) + v) / pd;
    }
    return 1;
}

static inline APO_HD void apo__kdj_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], pk = (size_t)io->p[1], pd = (size_t)io->p[3];
    const int kind_k = (int)io->p[2], kind_d = (int)io->p[4];
    const int takes = apo__kdj_takes(kind_k, pk) && apo__kdj_takes(kind_d, pd);
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__kdj_ma k = apo__kdj_ma_make(kind_k, pk), d = apo__kdj_ma_make(kind_d, pd);
    for (size_t t = begin; t < end && (t < w0 + fk - 1 || !takes); t++)
        io->out[0][t] = io->out[1][t] = io->out[2][t] = NAN;
    if (!takes)
        return;
    for (size_t t = w0 + fk - 1; t < end; t++) {
        double ko = NAN, dout = NAN, jo = NAN;
        const double fastk = apo__fastk_at(io, t, fk);
        if (isfinite(fastk) && apo__kdj_ma_take(&k, fastk) && apo__kdj_ma_take(&d, k.a)) {
            ko = k.a;
            dout = d.a;
            jo = 3.0 * ko - 2.0 * dout;
        }
        if (t >= begin) {
            io->out[0][t] = ko;
            io->out[1][t] = dout;
            io->out[2][t] = apo__canonical_nan(jo);
        }
    }
}

#endif /* APO_KERNELS_KDJ_TILE_H */

/*
 * apo_tile.h: APO(fastperiod, slowperiod, matype) and PPO(fastperiod, slowperiod, matype),
 * TA-Lib's absolute and percentage price oscillators: the fast and slow MA(matype) of the
 * close (ma_type.h), apo = fast - slow, ppo = ((fast - slow) / slow) * 100 (TA-Lib's order),
 * 0 where the slow MA is exactly 0 (TA-Lib: below 1e-8 in magnitude, docs/kernels/talib.md "Where
 * TA-Lib differs"). As in TA-Lib, the periods are swapped where slowperiod < fastperiod, and
 * each MA is seeded at its own lookback from the series' first bar; the lookback is the slow
 * MA's.
 *
 * Tile: the two averages run side by side in pieces of APO_PO_PIECE bars (ma_pieces.h): the
 * slow MA's piece is written to the output row and kept, then the fast MA's piece overwrites
 * it and the two are combined. Each average has the bits of its matype's kernel at this tile
 * (whatever the pieces), so the outputs are a pure function of the tile grid. Halo: the slow
 * MA's lookback and warm-up (the table's PO halo, catalog_dispatch.c), which covers the fast
 * MA's. Gaps: each MA's own rule (ma_type.h); an output is NaN where either MA is. Stream:
 * RUN at two EMAs, whose loop's state a stream carries; at the other matypes an update runs the
 * tile from its warm-up (apo_stream.h).
 *
 * Two EMAs (matype 1, TA-Lib 0.8's default for apo, ppo and pvo; both periods above 1) run in
 * one loop instead (apo__price_osc_emas): each performs ema's steps from the same bar
 * (apo__ema_take, ema_tile.h, which ma_pieces.h runs for them too), so the same bits, but their
 * two chains advance side by side, where the pieces waited on one chain's latency and then on
 * the other's. On the CPU, ppo's seeded stretches take their quotients in vector lanes after
 * each chunk of the chains (apo__ppo_steady), the same bits.
 */
#ifndef APO_KERNELS_APO_TILE_H
#define APO_KERNELS_APO_TILE_H

#include "catalog.h"
#include "ma_pieces.h"
#include "tile_vec.h"

/* The bars of a piece: the slow MA's values held while the fast MA's overwrite them. */
#define APO_PO_PIECE 256

/* TA-Lib's PPO of a fast and a slow average. */
static inline APO_HD double apo__ppo_of(double fast, double slow) {
    return slow != 0.0 ? ((fast - slow) / slow) * 100.0 : 0.0;
}

#ifdef APO_TILE_LANES
/* apo__ppo_of of each lane: the quotient taken in every lane, 0 selected where slow is 0. */
static inline apo_tv apo__ppo_of_tv(apo_tv fast, apo_tv slow) {
    const apo_tv zero = {0};
    return apo_tv_pick(slow != zero, ((fast - slow) / slow) * 100.0, zero);
}

/* ppo's steady stretch in apo__price_osc_emas from t (both EMAs seeded, t an output) to end
 * or the first sample that is not finite, APO_PO_CHUNK bars at a time: the two chains' values
 * of each bar first, then the chunk's outputs in vector lanes, each from its own two values by
 * the loop's operations, so the same bits. Why: the scalar division a bar, off the chains, held
 * the loop to the divider's pace, which the VMs' slow phases stretch most (trix's move,
 * trix_tile.h; docs/perf-log/2026-12-06-zen3-ppo-chunks.md). apo, without a division, keeps
 * the loop (the chunks were no faster). Returns the first bar not taken; *e_f and *e_s hold the
 * averages after it. */
#define APO_PO_CHUNK 64
static inline size_t apo__ppo_steady(const double *x, double *out, size_t t, size_t end, double kf,
                                     double ks, double *e_f, double *e_s) {
    double ef = *e_f, es = *e_s;
    double fs[APO_PO_CHUNK], ss[APO_PO_CHUNK];
    while (t < end) {
        const size_t n = end - t < APO_PO_CHUNK ? end - t : APO_PO_CHUNK;
        size_t j = 0;
        for (; j < n && isfinite(x[t + j]); j++) {
            const double v = x[t + j];
            es = (v - es) * ks + es; /* apo__ema_take, seeded */
            ef = (v - ef) * kf + ef;
            ss[j] = es;
            fs[j] = ef;
        }
        size_t i = 0;
        for (; i + APO_TILE_LANES <= j; i += APO_TILE_LANES) {
            const apo_tv f = apo_tv_load(fs + i), sl = apo_tv_load(ss + i);
            const apo_tv y = apo__ppo_of_tv(f, sl);
            apo_tv_store(out + t + i, apo_tv_or_nan(y == y, y)); /* apo__canonical_nan */
        }
        for (; i < j; i++)
            out[t + i] = apo__canonical_nan(apo__ppo_of(fs[i], ss[i]));
        t += j;
        if (j < n)
            break;
    }
    *e_f = ef;
    *e_s = es;
    return t;
}
#endif

/* The oscillator of two EMAs of periods fast and slow (both above 1) from r->t to end, writing
 * from `begin` on; the tile's run starts at its warm-up origin with both EMAs empty, as ema's
 * stream starts it (apo__ema_start), and a stream's goes on from where its last update stopped
 * (apo__cat_run: n[0] and n[1] the samples the fast and the slow EMA's seeds have seen, v[0]
 * and v[1] their seed sums, v[2] and v[3] their averages). */
static APO_CAT_SPECIALISED APO_HD void apo__price_osc_emas(const apo__cat_io *io, size_t fast,
                                                           size_t slow, size_t begin, size_t end,
                                                           int percent, apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const double kf = 2.0 / ((double)fast + 1.0), ks = 2.0 / ((double)slow + 1.0);
    size_t seen_f = r->n[0], seen_s = r->n[1];
    double sum_f = r->v[0], sum_s = r->v[1], e_f = r->v[2], e_s = r->v[3];
    for (size_t t = r->t; t < end; t++) {
#ifdef APO_TILE_LANES
        if (percent && seen_f == fast && seen_s == slow && t >= begin) {
            t = apo__ppo_steady(x, out, t, end, kf, ks, &e_f, &e_s);
            if (t >= end)
                break;
        }
#endif
        const double v = x[t];
        const double s = apo__ema_take(v, slow, ks, &seen_s, &sum_s, &e_s);
        const double f = apo__ema_take(v, fast, kf, &seen_f, &sum_f, &e_f);
        if (t >= begin)
            out[t] = apo__canonical_nan(percent ? apo__ppo_of(f, s) : f - s);
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen_f;
    r->n[1] = seen_s;
    r->v[0] = sum_f;
    r->v[1] = sum_s;
    r->v[2] = e_f;
    r->v[3] = e_s;
}

/* The periods in TA-Lib's order, swapped where slowperiod < fastperiod. */
static inline APO_HD void apo__price_osc_periods(const double *p, size_t *fast, size_t *slow) {
    *fast = (size_t)p[0];
    *slow = (size_t)p[1];
    if (*slow < *fast) {
        const size_t swap = *slow;
        *slow = *fast;
        *fast = swap;
    }
}

/* Whether the two averages are the EMAs of apo__price_osc_emas' loop (matype 1, both periods
 * above 1): the loop whose state a stream carries (apo_stream.h). */
static inline APO_HD int apo__price_osc_ema_loop(const double *p) {
    size_t fast, slow;
    apo__price_osc_periods(p, &fast, &slow);
    return (int)p[2] == APO_MA_EMA && fast > 1;
}

static APO_CAT_SPECIALISED APO_HD void apo__price_osc_tile(const apo__cat_io *io, size_t begin,
                                                           size_t end, int percent) {
    size_t fast, slow;
    apo__price_osc_periods(io->p, &fast, &slow);
    const int matype = (int)io->p[2];
    if (apo__price_osc_ema_loop(io->p)) {
        apo__cat_run r;
        apo__cat_run_from_origin(io, begin, &r);
        apo__price_osc_emas(io, fast, slow, begin, end, percent, &r);
        return;
    }
    double *out = io->out[0];
    apo__ma_pieces slow_ma, fast_ma;
    apo__ma_pieces_start(&slow_ma, matype, io->in[0], out, slow, io->h, begin);
    apo__ma_pieces_start(&fast_ma, matype, io->in[0], out, fast, io->h, begin);
    double slow_v[APO_PO_PIECE];
    for (size_t t0 = begin; t0 < end; t0 += APO_PO_PIECE) {
        const size_t t1 = end - t0 > APO_PO_PIECE ? t0 + APO_PO_PIECE : end;
        apo__ma_pieces_run(&slow_ma, t1);
        for (size_t t = t0; t < t1; t++)
            slow_v[t - t0] = out[t];
        apo__ma_pieces_run(&fast_ma, t1);
        for (size_t t = t0; t < t1; t++) {
            const double s = slow_v[t - t0];
            const double v = percent ? apo__ppo_of(out[t], s) : out[t] - s;
            out[t] = apo__canonical_nan(v);
        }
    }
}

static inline APO_HD void apo__apo_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__price_osc_tile(io, begin, end, 0);
}

static inline APO_HD void apo__ppo_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__price_osc_tile(io, begin, end, 1);
}

#endif /* APO_KERNELS_APO_TILE_H */

/*
 * macd_tile.h: the arithmetic of one MACD tile, shared by the CPU kernels (macd.c,
 * apo__cpu_macd_tile; macd_lanes.h, several tiles side by side) and the CUDA kernel (macd.cu).
 *
 * What: TA-Lib's MACD (EMA update e = (x - e) * k + e with k = 2 / (p + 1), slow and fast
 * EMAs seeded with plain means at the slow seed index, the signal EMA seeded with the mean
 * of the first `signal` macd values), with non-finite samples as gaps; see macd.c.
 *
 * Tile shape: one call computes one tile [begin, end) of one row, re-running the
 * definition on the sub-series from w0 = max(0, begin - warmup) and writing the outputs
 * [begin, end) only. The warm-up H = apo__macd_warmup(fast, slow, signal) is a parameter
 * here: it needs libm's log, which may round differently on a GPU, so the host computes it
 * once (apo__cpu_macd_tile, or the CUDA launcher, which is host code) and passes it in. The tile
 * grid and the halo are then the same integers on both sides.
 *
 * Determinism: the outputs of a tile depend on x, the parameters, H and `begin` only, with
 * a fixed operation order of IEEE +, -, *, / and isfinite (apo_hd.h): no transcendental,
 * no FMA contraction on either compiler, no state crossing tiles. The lane kernels
 * (macd_lanes.h) run the same operations as phase 3 and apo__macd_step, so all give the same
 * bits.
 * Non-finite samples give the NAN constant, the same bits on both sides; only an EMA that
 * overflows (finite samples near DBL_MAX) makes a NaN by arithmetic, whose sign and payload
 * may differ on the GPU (apo_hd.h).
 */
#ifndef APO_MACD_TILE_H
#define APO_MACD_TILE_H

#include "apo_hd.h"

/* A tile's EMA states once its seeds and warm-up are done: the steady loop goes on from
 * index t. The steady loop is the hot part of every tile; everything before is O(H). */
typedef struct apo__macd_state {
    size_t t, end;
    double ef, es, eg;
    apo__out macd, signal_line, hist;
} apo__macd_state;

typedef struct apo__macd_rates {
    double kf, ks, kg;
} apo__macd_rates;

/* The EMA states (fast, slow, signal) of a piece of a tile at its two edges, which the pieces
 * record where a tile is cut into pieces that run side by side (the CPU's lanes, macd_lanes.h;
 * a GPU's staged warps, kernels/cuda/staged_kernels.h) and macd_cut.h checks: `head`, the
 * states its first output is computed from, defined when `steady` (its seeds were done by its
 * `begin`); `tail`, the states after its last index, defined when `ran` (its seeds were done
 * before its `end`). */
struct apo__macd_edges {
    double head[3], tail[3];
    int steady, ran;
};
typedef struct apo__macd_edges apo__macd_edges;

static inline APO_HD void apo__macd_emit_nan(size_t t, apo__out macd, apo__out signal_line,
                                             apo__out hist) {
    APO_OUT(macd, t) = NAN;
    APO_OUT(signal_line, t) = NAN;
    APO_OUT(hist, t) = NAN;
}

/* Swaps fast and slow when fast > slow, as TA-Lib does, and computes the EMA rates.
 * Requires fast, slow, signal >= 1 (the caller checks). */
static inline APO_HD void apo__macd_setup(size_t *fast, size_t *slow, size_t signal,
                                          apo__macd_rates *r) {
    if (*fast > *slow) {
        size_t tmp = *fast;
        *fast = *slow;
        *slow = tmp;
    }
    r->kf = 2.0 / ((double)*fast + 1.0);
    r->ks = 2.0 / ((double)*slow + 1.0);
    r->kg = 2.0 / ((double)signal + 1.0);
}

/* One warm-up step at index st->t (before the tile's `begin`): the EMA updates of phase 3,
 * with no output. The staged CUDA kernel runs the warm-up this way segment by segment. */
static inline APO_HD void apo__macd_warm_step(apo__in x, const apo__macd_rates *r,
                                              apo__macd_state *st) {
    const double v = APO_IN(x, st->t);
    if (isfinite(v)) {
        st->ef = (v - st->ef) * r->kf + st->ef;
        st->es = (v - st->es) * r->ks + st->es;
        st->eg = ((st->ef - st->es) - st->eg) * r->kg + st->eg;
    }
    st->t = st->t + 1;
}

/* Runs a tile up to its steady state, with fast <= slow as apo__macd_setup leaves them and
 * h = apo__macd_warmup(fast, slow, signal). Returns 0 when the tile is already complete (its
 * outputs are all written; `st` is then a finished state, t == end), 1 when `st` holds the
 * state to go on from. With warm_up 0 it stops after the signal seed, before phase 3, with
 * st->t the next index (possibly still before `begin`): the lane kernels (macd_lanes.h) run
 * the warm-up of several tiles at once, with phase 3's operations. */
static inline APO_HD int apo__macd_prepare(apo__in x, size_t begin, size_t end, size_t fast,
                                           size_t slow, size_t signal, size_t h,
                                           const apo__macd_rates *r, int warm_up, apo__out macd,
                                           apo__out signal_line, apo__out hist,
                                           apo__macd_state *st) {
    const size_t w0 = begin > h ? begin - h : 0;
    /* Every path defines the whole state, so a caller never reads an unset field. */
    st->t = end;
    st->end = end;
    st->ef = 0.0;
    st->es = 0.0;
    st->eg = 0.0;
    st->macd = macd;
    st->signal_line = signal_line;
    st->hist = hist;

    /* Phase 1: find the slow seed index, the index of the `slow`-th finite sample from w0,
     * and the index where the last `fast` of those finite samples start. */
    size_t t = w0;
    size_t seen = 0;
    size_t fast_from = w0;
    while (t < end && seen < slow) {
        if (isfinite(APO_IN(x, t))) {
            ++seen;
            if (seen == slow - fast + 1) {
                fast_from = t;
            }
        }
        if (seen < slow) {
            if (t >= begin) {
                apo__macd_emit_nan(t, macd, signal_line, hist);
            }
            ++t;
        }
    }
    if (t >= end) {
        return 0;
    }

    /* Seeds: plain means, summed in index order over the finite samples. */
    double sum_slow = 0.0, sum_fast = 0.0;
    for (size_t k = w0; k <= t; ++k) {
        const double v = APO_IN(x, k);
        if (isfinite(v)) {
            sum_slow += v;
            if (k >= fast_from) {
                sum_fast += v;
            }
        }
    }
    double es = sum_slow / (double)slow;
    double ef = sum_fast / (double)fast;

    /* Phase 2: the macd line exists from the seed index; the signal EMA is seeded with the
     * mean of the first `signal` macd values. Outputs stay NaN until then. */
    double sum_macd = ef - es;
    size_t nmacd = 1;
    while (nmacd < signal) {
        if (t >= begin) {
            apo__macd_emit_nan(t, macd, signal_line, hist);
        }
        ++t;
        if (t >= end) {
            return 0;
        }
        const double v = APO_IN(x, t);
        if (isfinite(v)) {
            ef = (v - ef) * r->kf + ef;
            es = (v - es) * r->ks + es;
            sum_macd += ef - es;
            ++nmacd;
        }
    }
    double eg = sum_macd / (double)signal;
    if (t >= begin) {
        const double m = ef - es;
        APO_OUT(macd, t) = m;
        APO_OUT(signal_line, t) = eg;
        APO_OUT(hist, t) = m - eg;
    }

    st->t = t + 1;
    st->ef = ef;
    st->es = es;
    st->eg = eg;
    /* Phase 3: the warm-up part before `begin` only updates the states. */
    while (warm_up && st->t < begin) {
        apo__macd_warm_step(x, r, st);
    }
    return st->t < end;
}

/* One steady step of one tile at index st->t, writing its outputs through macd, signal_line
 * and hist (the state's own, apo__macd_step; the staged CUDA kernel passes its shared-memory
 * rings, so that the compiler stores to shared memory rather than through generic addresses,
 * docs/cuda.md, "The staged kernels' steps"); the lane kernels (macd_lanes.h) do the same
 * operations in the same order, so all give the same bits. */
static inline APO_HD void apo__macd_step_to(apo__in x, const apo__macd_rates *r,
                                            apo__macd_state *st, apo__out macd,
                                            apo__out signal_line, apo__out hist) {
    const size_t t = st->t;
    const double v = APO_IN(x, t);
    if (isfinite(v)) {
        st->ef = (v - st->ef) * r->kf + st->ef;
        st->es = (v - st->es) * r->ks + st->es;
        const double m = st->ef - st->es;
        st->eg = (m - st->eg) * r->kg + st->eg;
        APO_OUT(macd, t) = m;
        APO_OUT(signal_line, t) = st->eg;
        APO_OUT(hist, t) = m - st->eg;
    } else {
        apo__macd_emit_nan(t, macd, signal_line, hist);
    }
    st->t = t + 1;
}

static inline APO_HD void apo__macd_step(apo__in x, const apo__macd_rates *r, apo__macd_state *st) {
    apo__macd_step_to(x, r, st, st->macd, st->signal_line, st->hist);
}

static inline APO_HD void apo__macd_finish(apo__in x, const apo__macd_rates *r,
                                           apo__macd_state *st) {
    while (st->t < st->end) {
        apo__macd_step(x, r, st);
    }
}

/*
 * One tile [begin, end) of one row (begin < end; fast, slow, signal >= 1; the caller
 * checks), with warmup = apo__macd_warmup(fast, slow, signal) computed on the host: the
 * semantics of apo__cpu_macd_tile() in macd.h. fast > slow is swapped.
 */
/* The tile at rates r (fast <= slow, the periods whose means seed the EMAs): the body of
 * apo__macd_tile, and of macdfix's fixed rates (macdfix_tile.h). */
static inline APO_HD void apo__macd_tile_at(apo__in x, size_t begin, size_t end, size_t fast,
                                            size_t slow, size_t signal, size_t warmup,
                                            const apo__macd_rates *r, apo__out macd,
                                            apo__out signal_line, apo__out hist) {
    apo__macd_state st;
    if (apo__macd_prepare(x, begin, end, fast, slow, signal, warmup, r, 1, macd, signal_line, hist,
                          &st)) {
        apo__macd_finish(x, r, &st);
    }
}

static inline APO_HD void apo__macd_tile(apo__in x, size_t begin, size_t end, size_t fast,
                                         size_t slow, size_t signal, size_t warmup, apo__out macd,
                                         apo__out signal_line, apo__out hist) {
    apo__macd_rates r;
    apo__macd_setup(&fast, &slow, signal, &r);
    apo__macd_tile_at(x, begin, end, fast, slow, signal, warmup, &r, macd, signal_line, hist);
}

#endif /* APO_MACD_TILE_H */

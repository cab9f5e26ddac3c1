/*
 * obv_tile.h: OBV, TA-Lib's on balance volume. Inputs close, volume; one output, obv.
 *
 * Definition (TA-Lib's, from the series' first bar): obv[0] = volume[0]; then at each bar
 * obv += volume where close rose from the previous close, obv -= volume where it fell,
 * unchanged where it is equal. The lookback is 0.
 *
 * Tiles: OBV at t is a running sum from the row's first bar, so every tile re-runs it from
 * the row's first bar (the kernel is whole-row: catalog.h), storing nothing before `begin`.
 * The operations that give obv[t] are one sequence whichever tile t falls in, so the bits
 * do not depend on the grid at all, and they are TA-Lib's recursion's bits (ad_tile.h says
 * the same of AD). That is also why the CPU may call this body once over a run of
 * consecutive tiles (one pass instead of one per tile) with the same bits.
 *
 * Gaps: a bar with a non-finite close or volume gives NaN, adds nothing and is not a
 * previous close: the next clean bar compares its close with the last clean one, and the
 * first clean bar seeds obv with its volume. The clean bars' outputs are thus the OBV of the
 * series with its gap bars removed.
 */
#ifndef APO_KERNELS_OBV_TILE_H
#define APO_KERNELS_OBV_TILE_H

#include "flow.h"

/* The running state: the sum, the last clean close, and whether a clean bar was seen. */
typedef struct apo__obv_state {
    double obv, prev;
    int seeded;
} apo__obv_state;

/* Steps the state over bar t; returns 0 (and leaves the state) for a gap. */
static inline APO_HD int apo__obv_step(apo__obv_state *s, const apo__cat_io *io, size_t t) {
    const double close = io->in[0][t], vol = io->in[1][t];
    if (!(isfinite(close) && isfinite(vol)))
        return 0;
    if (!s->seeded) {
        s->obv = vol;
        s->seeded = 1;
    } else if (close > s->prev) {
        s->obv += vol;
    } else if (close < s->prev) {
        s->obv -= vol;
    }
    s->prev = close;
    return 1;
}

#ifdef APO_TILE_LANES
/* Bars per block of the vector path (apo__obv_block). */
#define APO_OBV_BLOCK 256

/* Each bar's step in lanes: volume where the close rose from the previous one, -volume where
 * it fell, else -0.0 (x + -0 is x, signed zeros included; x - v is x + -v), so that adding
 * the step is the scalar step's add or its "unchanged". */
static inline apo_tv apo__obv_steps(apo_tv close, apo_tv prev, apo_tv vol) {
    return apo_tv_pick((apo_tm)(close > prev), vol,
                       apo_tv_pick((apo_tm)(close < prev), -vol, apo_tv_splat(-0.0)));
}

/* The previous closes of the vector of bars t .. : the last clean close, then this vector's
 * own (never bar t - 1 itself, which a stream's piece may not hold, or which may be a gap). */
static inline apo_tv apo__obv_prev(apo_tv close, double last) {
    apo_tv prev;
    prev[0] = last;
    for (int j = 1; j < APO_TILE_LANES; j++)
        prev[j] = close[j - 1];
    return prev;
}

/* The seeded state stepped over the n bars from t (whole vectors, n > 0) on the assumption
 * that none has a gap; returns n, or 0 when a bar had a gap after all (the state left; the
 * outputs written may be wrong and apo__obv_block_to_gap rewrites them). Why one gap test
 * for the block: with a test, a branch and a NaN fix per vector the loop was bound by its
 * instructions (about 50 per 4 bars), not by the sum's chain of one add a bar; 1e4 bars took
 * 1.0 ns a bar against the chain's 0.82 (docs/PERF.md). On clean bars the sum is never NaN
 * (finite steps; an overflow gives an infinity that finite steps keep), so the outputs are
 * the sums themselves, stored as the chain makes them; a sum that is NaN already (never
 * made by this loop) is left to the other path. After the block's first vector the
 * previous closes are the block's own bars, read one bar back. */
static inline size_t apo__obv_block_clean(apo__obv_state *s, const double *close, const double *vol,
                                          size_t t, size_t n, double *out) {
    double obv = s->obv;
    if (!(obv == obv))
        return 0;
    apo_tv gaps = apo_tv_splat(0.0);
    for (size_t k = 0; k < n; k += APO_TILE_LANES) {
        const apo_tv c = apo_tv_load(close + t + k), v = apo_tv_load(vol + t + k);
        /* x - x is NaN for a non-finite x, and NaN sticks in the sum (apo__flow_finite). */
        gaps += (c - c) + (v - v);
        const apo_tv prev = k == 0 ? apo__obv_prev(c, s->prev) : apo_tv_load(close + t + k - 1);
        double step[APO_TILE_LANES];
        apo_tv_store(step, apo__obv_steps(c, prev, v));
        for (int j = 0; j < APO_TILE_LANES; j++) {
            obv += step[j];
            if (out != NULL)
                out[t + k + (size_t)j] = obv;
        }
    }
    if (!apo_tm_all((apo_tm)(gaps == 0.0)))
        return 0;
    s->obv = obv;
    s->prev = close[t + n - 1];
    return n;
}

/* As apo__obv_block_clean, but stopping before the first vector holding a gap, each vector
 * tested: returns how many bars (0: the scalar loop must take bar t). */
static inline size_t apo__obv_block_to_gap(apo__obv_state *s, const apo__cat_io *io, size_t t,
                                           size_t n, double *out) {
    const double *close = io->in[0], *vol = io->in[1];
    double obv = s->obv, last = s->prev;
    size_t k = 0;
    for (; k < n; k += APO_TILE_LANES) {
        const apo_tm clean = apo__flow_finite(io->in, 2, t + k);
        if (!apo_tm_all(clean))
            break;
        const apo_tv c = apo_tv_load(close + t + k), v = apo_tv_load(vol + t + k);
        const apo_tv step = apo__obv_steps(c, apo__obv_prev(c, last), v);
        apo_tv sum;
        for (int j = 0; j < APO_TILE_LANES; j++) {
            obv += step[j];
            sum[j] = obv;
        }
        if (out != NULL)
            apo_tv_store(out + t + k, apo__flow_output(clean, sum));
        last = c[APO_TILE_LANES - 1];
    }
    s->obv = obv;
    s->prev = last;
    return k;
}

/* The state stepped over the bars t .. in whole vectors, up to APO_OBV_BLOCK of them before
 * stop, while it is seeded: a block without gaps at once, else up to its first gap; returns
 * how many (0: the state left, the scalar loop must take bar t). Each bar's step is computed
 * in lanes off the sum's chain, which is then one add a bar, the scalar loop's: the same
 * bits. The outputs are written where out is not NULL. */
static inline size_t apo__obv_block(apo__obv_state *s, const apo__cat_io *io, size_t t, size_t stop,
                                    double *out) {
    const size_t left = (stop - t) / APO_TILE_LANES * APO_TILE_LANES;
    const size_t n = left < APO_OBV_BLOCK ? left : APO_OBV_BLOCK;
    if (!s->seeded || n == 0)
        return 0;
    const size_t done = apo__obv_block_clean(s, io->in[0], io->in[1], t, n, out);
    return done > 0 ? done : apo__obv_block_to_gap(s, io, t, n, out);
}
#endif

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on. The
 * tile and a stream's carried run (apo__obv_carry) both are this loop, so they perform the
 * same operations on the same state at every bar. The vector path takes the blocks
 * apo__obv_block accepts; a block it refuses is stepped bar by bar, as the GPU steps all. */
static inline APO_HD void apo__obv_run(apo__obv_state *s, const apo__cat_io *io, size_t from,
                                       size_t begin, size_t end) {
    double *out = io->out[0];
    size_t t = from;
    while (t < end) {
        const size_t stop = t < begin && begin < end ? begin : end;
        size_t plain_until = stop;
#ifdef APO_TILE_LANES
        const size_t n = apo__obv_block(s, io, t, stop, t < begin ? NULL : out);
        if (n > 0) {
            t += n;
            continue;
        }
        /* Refused: before the seed, the next bar by the scalar step; else the vector holding
         * a gap, or the last bars that fill no vector. */
        if (!s->seeded)
            plain_until = t + 1;
        else if (t + APO_TILE_LANES < stop)
            plain_until = t + APO_TILE_LANES;
#endif
        for (; t < plain_until; t++) {
            const int clean = apo__obv_step(s, io, t);
            /* A sum past DBL_MAX (docs/kernels.md, Range) may turn into an arithmetic NaN,
             * whose bits the CPU and the GPU do not share (apo_hd.h). */
            if (t >= begin)
                out[t] = clean ? apo__canonical_nan(s->obv) : NAN;
        }
    }
}

static inline APO_HD void apo__obv_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__obv_state s;
    s.obv = 0.0;
    s.prev = 0.0;
    s.seeded = 0;
    apo__obv_run(&s, io, 0, begin, end);
}

/* Doubles of the state a stream carries per series (apo__obv_carry). */
#define APO_OBV_CARRY 3

/*
 * A stream's series fed on from bar `begin` to `stop` - 1, going on from the state `c` its
 * last piece left at `begin` (all zeros before the first bar: the tile's start state):
 * c[0] the sum, c[1] the last clean close, c[2] 1.0 once a clean bar was seen. The state
 * is the tile's at `begin`, so the outputs are the bits of any tile holding them; it is
 * never reset, as the batch's run never is (runtime/streaming/stream.c).
 */
static inline void apo__obv_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__obv_state s;
    s.obv = c[0];
    s.prev = c[1];
    s.seeded = c[2] != 0.0;
    apo__obv_run(&s, io, begin, begin, stop);
    c[0] = s.obv;
    c[1] = s.prev;
    c[2] = s.seeded ? 1.0 : 0.0;
}

#endif /* APO_KERNELS_OBV_TILE_H */

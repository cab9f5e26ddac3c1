/*
 * kama_tile.h: KAMA(timeperiod), TA-Lib's Kaufman adaptive moving average.
 *
 * Definition (TA-Lib's): noise = sum of |x[i] - x[i-1]| over the p differences ending at t,
 * roc = x[t] - x[t-p]; the efficiency ratio er = 1 where noise <= roc (TA-Lib compares with
 * the signed roc) or noise is 0, else |roc / noise|; sc = (er * (2/3 - 2/31) + 2/31)^2 and
 * kama = (x[t] - kama) * sc + kama, seeded with kama = x[p-1], first output at t = p
 * (lookback p).
 *
 * Evaluation (docs/kernels.md, "kama"): the series is cut into segments of APO_KAMA_SEG bars
 * at fixed indices, so that the two running quantities, each a chain from bar to bar, run in
 * several segments at once (one per vector lane) and only their carries cross segments:
 *
 * - noise is a running sum of the moves in minus the moves out, exact to about 2^-100 of the
 *   moves' scale: inside a segment the moves since its start add up from 0 into a pair of
 *   doubles (each step's TwoSum error gathered beside the sum, as window_sum.h's slides), added
 *   at the segment's end to the carry s, a pair of the same kind whose errors are folded in
 *   every APO_KAMA_NOISE_FOLD bars (apo__kama_noise_after).
 *   A move that touches a non-finite sample, or a sample before the run's origin, counts 0,
 *   so the sum is the window's whatever came before it. TA-Lib's plain running sum drifts.
 *
 * - kama is carried as its deviation from the sample, e = kama - x[t], which follows
 *   e[t] = (e[t-1] - (x[t] - x[t-1])) * (1 - sc): a product and a difference on the chain
 *   instead of TA-Lib's three operations, and rounding relative to |e| (a fraction of the
 *   price's moves), not to the price; kama = x[t] + e[t] then rounds once. Inside a segment
 *   the recurrence runs from 0 beside the product of its factors, dev and prod, and
 *   e = dev + prod * e_before, e_before the deviation at the segment's last bar before it.
 *   A bar without an output (the warm-up and the gaps) has factor 0 and difference 0, which
 *   makes the seed's deviation 0 (kama = x[p-1]) with no branch.
 *
 * Every bar performs these operations in this order, in a vector lane or alone, so the result
 * is a function of the segments' fixed positions and the run's origin only: tiles, streams,
 * vector paths and the GPU agree. The outputs differ from TA-Lib's bits by its roundings: the
 * deviation form rounds about half an ulp of kama once, where TA-Lib's form rounds that much
 * at each bar and carries it on.
 *
 * Gaps: a non-finite sample gives NaN and restarts the definition after it (its next p
 * samples are a new lookback): KAMA's noise window and seed have no meaning across a gap,
 * and the restart keeps the gap's effect to the p outputs after it plus the decay of the
 * new seed, never the rest of the series.
 *
 * Tile: a recurrence whose rate sc is at least (2/31)^2, so a tile re-runs the definition
 * from w0 = max(0, begin - h), h = p + D((2/31)^2) (catalog_dispatch.c; D = 10,650 steps): by
 * `begin` the restarted seed weighs below 2^-64 of the data scale.
 */
#ifndef APO_KERNELS_KAMA_TILE_H
#define APO_KERNELS_KAMA_TILE_H

#include "catalog.h"
#include "dd.h"
#include "run_entries.h"
#include "tile_vec.h"
#include "window_sum.h"

/* The bars of a segment. Segments start at the multiples of it, and a tile's length is a
 * multiple of it (catalog.h: 16 (halo + 1) or 4096), so a tile starts a segment. */
#define APO_KAMA_SEG 16

/* TA-Lib's constants: the rates at er = 0 and er = 1, as square roots. */
#define APO_KAMA_SLOW (2.0 / (30.0 + 1.0))
#define APO_KAMA_FAST_LESS_SLOW (2.0 / (2.0 + 1.0) - APO_KAMA_SLOW)

/* Move i of the noise sum: |x[i] - x[i-1]| where both samples are finite and i is past the
 * run's origin w0, else 0 (a gap's moves, and the moves before the run, count nothing). */
static inline APO_HD double apo__kama_move(const double *x, size_t i, size_t w0) {
    if (i <= w0)
        return 0.0;
    const double u = fabs(x[i] - x[i - 1]);
    return u <= DBL_MAX ? u : 0.0;
}

/* The factor 1 - sc the deviation keeps, from the noise n and roc. */
static inline APO_HD double apo__kama_keep(double n, double roc) {
    const double er = n <= roc || n == 0.0 ? 1.0 : fabs(roc / n);
    double sc = er * APO_KAMA_FAST_LESS_SLOW + APO_KAMA_SLOW;
    sc = sc * sc;
    return 1.0 - sc;
}

/* Where a run stands inside a segment: the carries at its start (s: the noise through the
 * bar before it; before: the deviation there) and the running values since. */
typedef struct apo__kama_seg {
    apo__dd s;
    double before;
    double moved_hi, moved_lo; /* the moves' sum since the segment's start, unnormalised */
    double dev, prod;          /* the deviation from 0 there, and the product of the factors */
} apo__kama_seg;

static inline APO_HD void apo__kama_seg_open(apo__kama_seg *g, apo__dd s, double before) {
    g->s = s;
    g->before = before;
    g->moved_hi = 0.0;
    g->moved_lo = 0.0;
    g->dev = 0.0;
    g->prod = 1.0;
}

/* The noise carried to the start of the segment after the one ending at bar t: s with the
 * segment's moves added as window_sum.h slides a sum (the TwoSum's error gathered into lo,
 * which costs the chain across segments one add), lo folded into hi at every
 * APO_KAMA_NOISE_FOLD bars, where |lo| is at most about (APO_KAMA_NOISE_FOLD + p) 2^-53 of the
 * moves' scale.
 *
 * The folds sit at every APO_KAMA_NOISE_FOLD bars from the tile's start `begin`, not from the
 * row's position 0: a row may start at any tile boundary (a stream's update on the devices
 * starts its row at one deep in the history, runtime/core/stream_devices.c), and the tile
 * length, 16 (halo + 1), is a multiple of APO_KAMA_SEG but not of APO_KAMA_NOISE_FOLD. Folds
 * placed by the row's index moved with the row's start and changed the odd output by an ulp.
 * (t + 1 - begin) wraps below begin (the warm-up), which keeps its residue: 2^64 is a
 * multiple of APO_KAMA_NOISE_FOLD. */
#define APO_KAMA_NOISE_FOLD 64

static inline APO_HD apo__dd apo__kama_noise_after(apo__dd s, double moved_hi, double moved_lo,
                                                   size_t t, size_t begin) {
    const apo__dd a = apo__two_sum(s.hi, moved_hi);
    const apo__dd r = apo__dd_make(a.hi, s.lo + (a.lo + moved_lo));
    return (t + 1 - begin) % APO_KAMA_NOISE_FOLD == 0 ? apo__two_sum(r.hi, r.lo) : r;
}

static inline APO_HD double apo__kama_dev_after(double dev, double prod, double before) {
    return dev + prod * before;
}

/* Bar t, alone: the state's step, returning the output (NaN without one). *start is the
 * first sample of the run without gaps, begin the tile's start. */
static inline APO_HD double apo__kama_step(const double *x, size_t p, size_t w0, size_t begin,
                                           size_t t, size_t *start, apo__kama_seg *g) {
    if (!isfinite(x[t]))
        *start = t + 1;
    const int valid = t >= *start + p;
    const double out_move = t > w0 + p ? apo__kama_move(x, t - p, w0) : 0.0;
    const apo__dd d = apo__two_sum(apo__kama_move(x, t, w0), -out_move);
    const apo__dd m = apo__two_sum(g->moved_hi, d.hi);
    g->moved_hi = m.hi;
    g->moved_lo = g->moved_lo + (m.lo + d.lo);
    double keep = 0.0, step = 0.0;
    if (valid) {
        const double n = (g->s.hi + g->moved_hi) + (g->s.lo + g->moved_lo);
        keep = apo__kama_keep(n, x[t] - x[t - p]);
        step = x[t] - x[t - 1];
    }
    g->dev = (g->dev - step) * keep;
    g->prod = g->prod * keep;
    const double e = apo__kama_dev_after(g->dev, g->prod, g->before);
    if ((t + 1) % APO_KAMA_SEG == 0)
        apo__kama_seg_open(g, apo__kama_noise_after(g->s, g->moved_hi, g->moved_lo, t, begin), e);
    return valid ? apo__canonical_nan(x[t] + e) : (double)NAN;
}

#ifdef APO_TILE_LANES
/* The vector path: APO_TILE_LANES consecutive segments at once, lane j the segment starting
 * at t0 + j APO_KAMA_SEG, step k of the loops its bar k. Each lane performs apo__kama_step's
 * operations, on a block where every bar has its output: the run without gaps started at
 * least p bars before t0, the block's samples are finite and t0 is past w0 + p (every move
 * out is a move of the run). */
/* Two vectors of segments at once: each step's chains (the moves' sum, the deviation) run in
 * both, so that one's latency overlaps the other's (a lone chain of a product and a
 * difference left the loop waiting on it). */
#define APO_KAMA_VECS 2
#define APO_KAMA_BLOCK (APO_KAMA_VECS * APO_TILE_LANES * APO_KAMA_SEG)

/* Bars k .. k + APO_TILE_LANES - 1 of each lane's segment (at: bar 0 of lane 0's) as
 * columns: col[i] holds bar k + i of every segment (row j of the square, loaded, is
 * APO_TILE_LANES consecutive bars of segment j; apo_tv_transpose makes them lanes). */
static inline void apo__kama_lanes_columns(const double *at, size_t k, apo_tv *col) {
    for (int j = 0; j < APO_TILE_LANES; j++)
        col[j] = apo_tv_load(at + (size_t)j * APO_KAMA_SEG + k);
    apo_tv_transpose(col);
}

/* Bar k of each lane's segment: at[j APO_KAMA_SEG] in lane j. */
static inline apo_tv apo__kama_lanes_load(const double *at) {
    double v[APO_TILE_LANES];
    for (int j = 0; j < APO_TILE_LANES; j++)
        v[j] = at[j * APO_KAMA_SEG];
    return apo_tv_load(v);
}

/* 1 when the APO_KAMA_BLOCK samples from x are finite (v - v is 0 for those only), without
 * the branch of a scalar test per sample. */
static inline int apo__kama_lanes_finite(const double *x) {
    apo_tm ok = {0};
    ok = ok - 1;
    for (size_t i = 0; i < APO_KAMA_BLOCK; i += APO_TILE_LANES) {
        const apo_tv v = apo_tv_load(x + i);
        ok &= (apo_tm)(v - v == 0.0);
    }
    return apo_tm_all(ok);
}

/* |a - b| where finite, else 0 (apo__kama_move, lane by lane). */
static inline apo_tv apo__kama_lanes_move(apo_tv a, apo_tv b) {
    const apo_tv u = (apo_tv)((apo_tm)(a - b) & (int64_t)INT64_MAX);
    return (apo_tv)((apo_tm)u & (apo_tm)(u <= DBL_MAX));
}

/* The block at t0 with the carries s and *before at its start, which it leaves at its end;
 * writes the outputs of the segments from `from` on (a segment's start). Returns the noise at
 * the end. Segment v APO_TILE_LANES + j is lane j of vector v; begin is the tile's start. */
static inline apo__dd apo__kama_block(const double *x, double *out, size_t p, size_t begin,
                                      size_t t0, size_t from, apo__dd s, double *before) {
    enum { V = APO_KAMA_VECS, W = APO_TILE_LANES, SEG = APO_KAMA_SEG };
    apo_tv roc[SEG][V], step[SEG][V], hi[SEG][V], lo[SEG][V];
    /* The moves in and out and their running sum in each segment. */
    apo_tv prev[V], prev_out[V], moved_hi[V], moved_lo[V];
    for (size_t v = 0; v < V; v++) {
        const double *const at = x + t0 + v * W * SEG;
        prev[v] = apo__kama_lanes_load(at - 1);
        prev_out[v] = apo__kama_lanes_load(at - p - 1);
        moved_hi[v] = prev[v] - prev[v];
        moved_lo[v] = moved_hi[v];
    }
    for (size_t k0 = 0; k0 < SEG; k0 += W) {
        apo_tv xt[V][W], xo[V][W];
        for (size_t v = 0; v < V; v++) {
            const double *const at = x + t0 + v * W * SEG;
            apo__kama_lanes_columns(at, k0, xt[v]);
            apo__kama_lanes_columns(at - p, k0, xo[v]);
        }
        for (size_t i = 0; i < W; i++) {
            const size_t k = k0 + i;
            for (size_t v = 0; v < V; v++) {
                const apo_tv in = apo__kama_lanes_move(xt[v][i], prev[v]);
                const apo_tv gone = -apo__kama_lanes_move(xo[v][i], prev_out[v]);
                /* apo__two_sum(in, gone), then apo__two_sum(moved_hi, d.hi), lane by lane. */
                const apo_tv dh = in + gone, dbb = dh - in;
                const apo_tv dl = (in - (dh - dbb)) + (gone - dbb);
                const apo_tv mh = moved_hi[v] + dh, mbb = mh - moved_hi[v];
                const apo_tv ml = (moved_hi[v] - (mh - mbb)) + (dh - mbb);
                moved_hi[v] = mh;
                moved_lo[v] = moved_lo[v] + (ml + dl);
                hi[k][v] = moved_hi[v];
                lo[k][v] = moved_lo[v];
                roc[k][v] = xt[v][i] - xo[v][i];
                step[k][v] = xt[v][i] - prev[v];
                prev[v] = xt[v][i];
                prev_out[v] = xo[v][i];
            }
        }
    }
    /* Each segment's noise at its start, one after another. */
    double s_hi[V][W], s_lo[V][W];
    for (size_t v = 0; v < V; v++)
        for (size_t j = 0; j < W; j++) {
            s_hi[v][j] = s.hi;
            s_lo[v][j] = s.lo;
            s = apo__kama_noise_after(s, moved_hi[v][j], moved_lo[v][j],
                                      t0 + (v * W + j + 1) * SEG - 1, begin);
        }
    /* The factors and each segment's deviation from 0 and product. */
    const apo_tv zero = {0}, one = zero + 1.0;
    apo_tv sh[V], sl[V], dev[V], prod[V];
    for (size_t v = 0; v < V; v++) {
        sh[v] = apo_tv_load(s_hi[v]);
        sl[v] = apo_tv_load(s_lo[v]);
        dev[v] = zero;
        prod[v] = one;
    }
    for (size_t k = 0; k < SEG; k++)
        for (size_t v = 0; v < V; v++) {
            const apo_tv n = (sh[v] + hi[k][v]) + (sl[v] + lo[k][v]);
            const apo_tv q = (apo_tv)((apo_tm)(roc[k][v] / n) & (int64_t)INT64_MAX);
            const apo_tv er = apo_tv_pick((apo_tm)(n <= roc[k][v]) | (apo_tm)(n == 0.0), one, q);
            apo_tv sc = er * APO_KAMA_FAST_LESS_SLOW + APO_KAMA_SLOW;
            sc = sc * sc;
            const apo_tv keep = 1.0 - sc;
            dev[v] = (dev[v] - step[k][v]) * keep;
            prod[v] = prod[v] * keep;
            hi[k][v] = dev[v];
            lo[k][v] = prod[v];
        }
    /* Each segment's deviation before it, then the outputs. */
    double b[V][W];
    for (size_t v = 0; v < V; v++)
        for (size_t j = 0; j < W; j++) {
            b[v][j] = *before;
            *before = apo__kama_dev_after(dev[v][j], prod[v][j], *before);
        }
    if (t0 + APO_KAMA_BLOCK <= from)
        return s;
    for (size_t v = 0; v < V; v++) {
        const apo_tv bv = apo_tv_load(b[v]);
        for (size_t k0 = 0; k0 < SEG; k0 += W) {
            apo_tv y[W];
            for (size_t i = 0; i < W; i++) {
                const size_t k = k0 + i;
                y[i] = hi[k][v] + lo[k][v] * bv; /* apo__kama_dev_after */
            }
            apo_tv_transpose(y);
            for (size_t j = 0; j < W; j++) {
                const size_t t = t0 + (v * W + j) * SEG + k0;
                if (t >= from) {
                    const apo_tv o = apo_tv_load(x + t) + y[j];
                    apo_tv_store(out + t, apo_tv_pick((apo_tm)(o == o), o, zero + NAN));
                }
            }
        }
    }
    return s;
}
#endif

/* The tile's start: the run's origin w0 = max(0, begin - h) (apo__cat_run: n[0] the first
 * sample of the run without gaps as of n[1], the position of the carries v[0] + v[1] (the
 * noise) and v[2] (the deviation): w0 or a segment's start; n[2] w0). */
static inline APO_HD void apo__kama_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    const size_t w0 = apo__cat_origin(io, begin);
    apo__cat_run_from(r, w0);
    r->n[0] = w0;
    r->n[1] = w0;
    r->n[2] = w0;
}

/* The run from r->t to end, writing the positions from `begin` (the tile's) on. The carries
 * are kept at a segment's start: a run that stopped inside a segment goes on by taking that
 * segment's bars again from its start (at most APO_KAMA_SEG - 1, not written again). */
static inline APO_HD void apo__kama_run(const apo__cat_io *io, size_t begin, size_t end,
                                        apo__cat_run *r) {
    if (end <= r->t)
        return;
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const size_t w0 = r->n[2], from = r->t > begin ? r->t : begin;
    size_t start = r->n[0], t = r->n[1];
    apo__kama_seg g;
    apo__kama_seg_open(&g, apo__dd_make(r->v[0], r->v[1]), r->v[2]);
    /* The carries as of the last segment's start reached. */
    size_t kept_at = t, kept_start = start;
    apo__dd kept_s = g.s;
    double kept_before = g.before;
    while (t < end) {
#ifdef APO_TILE_LANES
        if (t % APO_KAMA_SEG == 0 && t >= r->t && t + APO_KAMA_BLOCK <= end && t > w0 + p &&
            t >= start + p && apo__kama_lanes_finite(x + t)) {
            g.s = apo__kama_block(x, out, p, begin, t, from, g.s, &g.before);
            t += APO_KAMA_BLOCK;
            kept_at = t;
            kept_start = start;
            kept_s = g.s;
            kept_before = g.before;
            continue;
        }
#endif
        const double y = apo__kama_step(x, p, w0, begin, t, &start, &g);
        if (t >= from)
            out[t] = y;
        t++;
        if (t % APO_KAMA_SEG == 0) {
            kept_at = t;
            kept_start = start;
            kept_s = g.s;
            kept_before = g.before;
        }
    }
    r->t = end;
    r->n[0] = kept_start;
    r->n[1] = kept_at;
    r->v[0] = kept_s.hi;
    r->v[1] = kept_s.lo;
    r->v[2] = kept_before;
}

/* kama's tile and stream (catalog_table.h, RUN): apo__kama_tile, apo__kama_stream_start and
 * apo__kama_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(kama, apo__kama_start(io, begin, r), apo__kama_run(io, begin, end, r))

#endif /* APO_KERNELS_KAMA_TILE_H */

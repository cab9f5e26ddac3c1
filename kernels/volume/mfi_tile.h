/*
 * mfi_tile.h: MFI(timeperiod), TA-Lib's money flow index. Inputs high, low, close, volume.
 *
 * Definition: the typical price tp = (high + low + close) / 3 and the money flow
 * tp * volume of each bar (flow.h); bar i's flow is positive where tp[i] > tp[i-1], negative
 * where tp[i] < tp[i-1], neither where equal. MFI = 100 * (pos / (pos + neg)) over the p
 * bars t - p + 1 .. t (lookback p); 0 where pos + neg is 0. TA-Lib gives 0 where the sum is
 * below 1 (a guard against division by small numbers that zeroes fractional volumes, of
 * crypto assets for one); here only an exact 0 does.
 *
 * Tile: halo p. For p <= APO_MFI_DIRECT_MAX each output sums its own window's flows
 * (apo__mfi_direct_block), in a fixed order that makes it a function of the window alone; a
 * plain add or two a bar, where the slide below needs a TwoSum a bar on each sum, which kept
 * the 1e4-bar call at 0.6 of TA-Lib's speed (docs/PERF.md). Longer periods slide:
 * pos and neg are double-doubles of the exact flows (Dekker's product, dd.h),
 * summed exactly at the tile's first clean window and after each gap, then slid as
 * window_sum.h slides a sum of products (apo__dd_slide_dd: one plain add a step on each
 * sum's chain, the exact errors gathered beside it and folded at fixed bars), where every
 * bar puts its flow into pos, neg or neither and 0 into the others. The slide's accuracy is
 * window_sum.h's (about m APO_DD_FOLD 2^-106 of the data's scale after m steps), far below
 * the double the output is rounded to. Gaps: a window of bars t - p .. t holding a
 * non-finite sample of any input gives NaN (window.h).
 *
 * Runs of clean windows are slid in blocks (window_sum.h, "Blocked slides"): each step's
 * flows, in and out, one bar per vector lane on the CPU (tile_vec.h), then the two serial
 * slides, then the outputs; every step performs the operations of the bar-by-bar loop, so
 * the bits do not depend on where the blocks fall, nor on the vector path. The body is a
 * start and a run (apo__mfi_run), so that a stream resumes it bar by bar.
 */
#ifndef APO_KERNELS_MFI_TILE_H
#define APO_KERNELS_MFI_TILE_H

#include "flow.h"
#include "run_entries.h"
#include "window.h"
#include "window_sum.h"

/* A bar's flow as it enters the two sums: into pos where its typical price rose from the
 * previous bar's, into neg where it fell; 0 into the other (into both where unchanged). */
typedef struct apo__mfi_flows {
    apo__dd pos, neg;
} apo__mfi_flows;

/* Bar i's flows (i >= 1). */
static inline APO_HD apo__mfi_flows apo__mfi_flows_at(const apo__cat_io *io, size_t i) {
    const double tp = apo__typical(io, i), prev = apo__typical(io, i - 1);
    const apo__dd flow = apo__money_flow_of(io, i, tp), zero = apo__dd_make(0.0, 0.0);
    apo__mfi_flows f;
    f.pos = tp > prev ? flow : zero;
    f.neg = tp < prev ? flow : zero;
    return f;
}

/* MFI from the window's slid sums. */
static inline APO_HD double apo__mfi_value(apo__dd pos, apo__dd neg) {
    const apo__dd p = apo__dd_settle(pos);
    const double total = apo__dd_add(p, apo__dd_settle(neg)).hi;
    return total != 0.0 ? apo__canonical_nan(100.0 * (p.hi / total)) : 0.0;
}

#ifdef APO_TILE_LANES
/* TwoSum (dd.h) lane by lane: a + b = *s + *e exactly. */
static inline void apo__mfi_two_sum_lanes(apo_tv a, apo_tv b, apo_tv *s, apo_tv *e) {
    const apo_tv sum = a + b;
    const apo_tv bb = sum - a;
    *s = sum;
    *e = (a - (sum - bb)) + (b - bb);
}

/* The typical prices of bars i .. i + APO_TILE_LANES - 1 (apo__typical, lane by lane). */
static inline apo_tv apo__mfi_typical_lanes(const apo__cat_io *io, size_t i) {
    return (apo_tv_load(io->in[0] + i) + apo_tv_load(io->in[1] + i) + apo_tv_load(io->in[2] + i)) /
           3.0;
}

/* Bars a block's flows are computed for at once: its own and, for p <= APO_DD_FOLD, the p
 * bars before them, which its steps remove (two separate runs of bars otherwise). */
#define APO_MFI_SPAN (2 * APO_DD_FOLD)

/* A block's flows (apo__mfi_flows_at): pos's hi and lo, neg's hi and lo, by bar. */
typedef struct apo__mfi_scratch {
    double ph[APO_MFI_SPAN], pl[APO_MFI_SPAN], nh[APO_MFI_SPAN], nl[APO_MFI_SPAN];
} apo__mfi_scratch;

/* The flows of bars from .. from + m - 1 (from >= 1, m <= APO_MFI_SPAN - at) into f at
 * index at on: each bar's typical price computed once (a step both adds a bar and removes
 * one, and a bar is the next one's previous), then Dekker's product as apo__two_prod forms
 * it, operation for operation, in lanes, the last bars that fill no vector in scalar. */
static inline void apo__mfi_flows_into(const apo__cat_io *io, size_t from, size_t m,
                                       apo__mfi_scratch *f, size_t at) {
    double tp[APO_MFI_SPAN + 1]; /* tp[j]: the typical price of bar from - 1 + j */
    size_t j = 0;
    for (; j + APO_TILE_LANES <= m + 1; j += APO_TILE_LANES)
        apo_tv_store(tp + j, apo__mfi_typical_lanes(io, from - 1 + j));
    for (; j <= m; j++)
        tp[j] = apo__typical(io, from - 1 + j);
    const apo_tv zero = apo_tv_splat(0.0);
    for (j = 0; j + APO_TILE_LANES <= m; j += APO_TILE_LANES) {
        const apo_tv cur = apo_tv_load(tp + j + 1), prev = apo_tv_load(tp + j);
        const apo_tv vol = apo_tv_load(io->in[3] + from + j);
        const apo_tv prod = cur * vol;
        const apo_tv ct = 134217729.0 * cur, cv = 134217729.0 * vol;
        const apo_tv th = ct - (ct - cur), vh = cv - (cv - vol);
        const apo_tv tl = cur - th, vl = vol - vh;
        const apo_tv err = ((th * vh - prod) + th * vl + tl * vh) + tl * vl;
        const apo_tm up = (apo_tm)(cur > prev), down = (apo_tm)(cur < prev);
        apo_tv_store(f->ph + at + j, apo_tv_pick(up, prod, zero));
        apo_tv_store(f->pl + at + j, apo_tv_pick(up, err, zero));
        apo_tv_store(f->nh + at + j, apo_tv_pick(down, prod, zero));
        apo_tv_store(f->nl + at + j, apo_tv_pick(down, err, zero));
    }
    for (; j < m; j++) {
        const apo__dd flow = apo__money_flow_of(io, from + j, tp[j + 1]);
        const int up = tp[j + 1] > tp[j], down = tp[j + 1] < tp[j];
        f->ph[at + j] = up ? flow.hi : 0.0;
        f->pl[at + j] = up ? flow.lo : 0.0;
        f->nh[at + j] = down ? flow.hi : 0.0;
        f->nl[at + j] = down ? flow.lo : 0.0;
    }
}

/* apo__dd_block_step_dd of in and out (hi, lo) for steps k .. k + APO_TILE_LANES - 1. */
static inline void apo__mfi_step_lanes(apo__dd_block *b, size_t k, apo_tv in_hi, apo_tv in_lo,
                                       apo_tv out_hi, apo_tv out_lo) {
    apo_tv h, l;
    apo__mfi_two_sum_lanes(in_hi, -out_hi, &h, &l);
    apo_tv_store(b->h + k, h);
    apo_tv_store(b->l + k, l);
    apo_tv_store(b->x + k, in_lo - out_lo);
}

/* The steps of the block t .. t + n - 1 into bp (pos) and bn (neg), as apo__mfi_block's
 * scalar loop makes them. */
static inline void apo__mfi_steps_lanes(const apo__cat_io *io, size_t p, size_t t, size_t n,
                                        apo__dd_block *bp, apo__dd_block *bn) {
    apo__mfi_scratch f;
    size_t in;
    if (p <= APO_DD_FOLD) {
        apo__mfi_flows_into(io, t - p, n + p, &f, 0);
        in = p;
    } else {
        apo__mfi_flows_into(io, t - p, n, &f, 0);
        apo__mfi_flows_into(io, t, n, &f, APO_DD_FOLD);
        in = APO_DD_FOLD;
    }
    size_t k = 0;
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES) {
        apo__mfi_step_lanes(bp, k, apo_tv_load(f.ph + in + k), apo_tv_load(f.pl + in + k),
                            apo_tv_load(f.ph + k), apo_tv_load(f.pl + k));
        apo__mfi_step_lanes(bn, k, apo_tv_load(f.nh + in + k), apo_tv_load(f.nl + in + k),
                            apo_tv_load(f.nh + k), apo_tv_load(f.nl + k));
    }
    for (; k < n; k++) {
        apo__dd_block_step_dd(bp, k, apo__dd_make(f.ph[in + k], f.pl[in + k]),
                              apo__dd_make(f.ph[k], f.pl[k]));
        apo__dd_block_step_dd(bn, k, apo__dd_make(f.nh[in + k], f.nl[in + k]),
                              apo__dd_make(f.nh[k], f.nl[k]));
    }
}

/* apo__mfi_value of the slid sums (hi, lo) of pos and neg, lane by lane: the settling
 * TwoSums, then apo__dd_add's operations (only its hi is used) and the quotient. */
static inline apo_tv apo__mfi_value_lanes(apo_tv pos_hi, apo_tv pos_lo, apo_tv neg_hi,
                                          apo_tv neg_lo) {
    apo_tv ph, pl, nh, nl, sh, sl, th, tl;
    apo__mfi_two_sum_lanes(pos_hi, pos_lo, &ph, &pl);
    apo__mfi_two_sum_lanes(neg_hi, neg_lo, &nh, &nl);
    apo__mfi_two_sum_lanes(ph, nh, &sh, &sl);
    apo__mfi_two_sum_lanes(pl, nl, &th, &tl);
    sl = sl + th;
    const apo_tv q = sh + sl;
    const apo_tv total = q + ((sl - (q - sh)) + tl);
    const apo_tv y = 100.0 * (ph / total);
    return apo_tv_pick((apo_tm)(total != 0.0), apo_tv_pick((apo_tm)(y == y), y, apo_tv_splat(NAN)),
                       apo_tv_splat(0.0));
}
#endif

/* The clean windows t .. e - 1, a block (window_sum.h) whose window before t was clean and
 * slid into pos and neg: slides both, writes the outputs and returns the sums. The same
 * operations as apo__mfi_run's loop, bar by bar, so the same bits. */
static inline APO_HD apo__dd_pair apo__mfi_block(const apo__cat_io *io, size_t p, size_t t,
                                                 size_t e, apo__dd pos, apo__dd neg) {
    const size_t n = e - t;
    apo__dd_block bp, bn;
#ifdef APO_TILE_LANES
    apo__mfi_steps_lanes(io, p, t, n, &bp, &bn);
#else
    for (size_t k = 0; k < n; k++) {
        const apo__mfi_flows in = apo__mfi_flows_at(io, t + k),
                             out = apo__mfi_flows_at(io, t + k - p);
        apo__dd_block_step_dd(&bp, k, in.pos, out.pos);
        apo__dd_block_step_dd(&bn, k, in.neg, out.neg);
    }
#endif
    const apo__dd_pair slid = apo__dd_block_slide_two(pos, &bp, 1, neg, &bn, 1, t, n);
    pos = slid.a;
    neg = slid.b;
    double *y = io->out[0] + t;
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES)
        apo_tv_store(y + k, apo__mfi_value_lanes(apo_tv_load(bp.h + k), apo_tv_load(bp.l + k),
                                                 apo_tv_load(bn.h + k), apo_tv_load(bn.l + k)));
#endif
    for (; k < n; k++)
        y[k] = apo__mfi_value(apo__dd_make(bp.h[k], bp.l[k]), apo__dd_make(bn.h[k], bn.l[k]));
    return apo__dd_pair_of(pos, neg);
}

/* Periods up to this take each window's own sums (apo__mfi_direct_block); longer ones slide.
 * It is the slide's block length, so that a block's scratch stays a fixed stack block. */
#define APO_MFI_DIRECT_MAX APO_DD_FOLD

/* The most outputs a direct block computes: on the CPU several slide blocks of clean windows
 * at once, since every block computes the flows of p - 1 bars before its first output again
 * (a fifth more flows at p = 14 with 64 outputs); a stack block of 18 KiB. */
#ifdef APO_TILE_LANES
#define APO_MFI_DIRECT_OUTPUTS (4 * APO_DD_FOLD)
#else
#define APO_MFI_DIRECT_OUTPUTS APO_DD_FOLD
#endif

/* Bars a direct block's scratch holds: its outputs' windows. */
#define APO_MFI_DIRECT_SPAN (APO_MFI_DIRECT_OUTPUTS + APO_MFI_DIRECT_MAX)

/* A direct block's flows and their sums over 2 and 4 bars, pos and neg, by bar from the
 * first window's first bar. */
typedef struct apo__mfi_direct_scratch {
    double tp[APO_MFI_DIRECT_SPAN + 1]; /* tp[j]: the typical price of the bar before f*[j] */
    double fp[APO_MFI_DIRECT_SPAN], fn[APO_MFI_DIRECT_SPAN]; /* the bar's flow or 0 */
    double qp[APO_MFI_DIRECT_SPAN], qn[APO_MFI_DIRECT_SPAN]; /* f[j] + f[j + 1] */
    double rp[APO_MFI_DIRECT_SPAN], rn[APO_MFI_DIRECT_SPAN]; /* q[j] + q[j + 2] */
} apo__mfi_direct_scratch;

/* The sum of the p flows f[k] .. f[k + p - 1] from its parts: the 4-bar sums r[k], r[k + 4],
 * ... added left to right, then the 0 to 3 bars left (f, q, or q then f). Each output's sum
 * is thus a fixed expression of its own window's flows, whichever block computes it. */
static inline APO_HD double apo__mfi_window_sum(const double *f, const double *q, const double *r,
                                                size_t p, size_t k) {
    const size_t m = p / 4, a = k + 4 * m;
    double tail = 0.0;
    switch (p % 4) {
    case 1:
        tail = f[a];
        break;
    case 2:
        tail = q[a];
        break;
    case 3:
        tail = q[a] + f[a + 2];
        break;
    default:
        break;
    }
    if (m == 0)
        return tail;
    double sum = r[k];
    for (size_t i = 1; i < m; i++)
        sum = sum + r[k + 4 * i];
    return p % 4 != 0 ? sum + tail : sum;
}

/* MFI from a window's sums: 100 pos / (pos + neg), 0 where both are 0. */
static inline APO_HD double apo__mfi_quotient(double pos, double neg) {
    const double total = pos + neg;
    return total != 0.0 ? apo__canonical_nan(100.0 * (pos / total)) : 0.0;
}

#ifdef APO_TILE_LANES
/* apo__mfi_window_sum for the outputs k .. k + APO_TILE_LANES - 1, one per lane, the same
 * additions in the same order. */
static inline apo_tv apo__mfi_window_sum_lanes(const double *f, const double *q, const double *r,
                                               size_t p, size_t k) {
    const size_t m = p / 4, a = k + 4 * m;
    apo_tv tail = apo_tv_splat(0.0);
    switch (p % 4) {
    case 1:
        tail = apo_tv_load(f + a);
        break;
    case 2:
        tail = apo_tv_load(q + a);
        break;
    case 3:
        tail = apo_tv_load(q + a) + apo_tv_load(f + a + 2);
        break;
    default:
        break;
    }
    if (m == 0)
        return tail;
    apo_tv sum = apo_tv_load(r + k);
    for (size_t i = 1; i < m; i++)
        sum = sum + apo_tv_load(r + k + 4 * i);
    return p % 4 != 0 ? sum + tail : sum;
}
#endif

/* sum[j] = x[j] + x[j + apart] for j < count: the block's 2- and 4-bar sums, in lanes where
 * they fill a vector, the same add per element either way. */
static inline APO_HD void apo__mfi_add_apart(const double *x, size_t apart, size_t count,
                                             double *sum) {
    size_t j = 0;
#ifdef APO_TILE_LANES
    for (; j + APO_TILE_LANES <= count; j += APO_TILE_LANES)
        apo_tv_store(sum + j, apo_tv_load(x + j) + apo_tv_load(x + j + apart));
#endif
    for (; j < count; j++)
        sum[j] = x[j] + x[j + apart];
}

/* The outputs t .. t + n - 1 (1 <= n <= APO_MFI_DIRECT_OUTPUTS, p <= APO_MFI_DIRECT_MAX), whose
 * windows are all clean, each from its own window's flows: nothing carries from one output to the
 * next, so the bits are a function of the window alone, however tiles, blocks and streams
 * fall. A flow is tp * volume rounded once; the sums add p values >= 0, so each is within
 * (p - 1) eps of its exact value (p eps with the flow's rounding), and the quotient within a
 * few eps more. Each array is filled element by element with one expression, in lanes where
 * they fill a vector and in scalar after, so the vector paths give the same bits. */
static inline APO_HD void apo__mfi_direct_block(const apo__cat_io *io, size_t p, size_t t,
                                                size_t n) {
    apo__mfi_direct_scratch s;
    const size_t first = t + 1 - p, bars = n + p - 1; /* the flows' bars: first .. */
    const double *vol = io->in[3] + first;
    size_t j = 0;
#ifdef APO_TILE_LANES
    for (; j + APO_TILE_LANES <= bars + 1; j += APO_TILE_LANES)
        apo_tv_store(s.tp + j, apo__mfi_typical_lanes(io, first - 1 + j));
#endif
    for (; j <= bars; j++)
        s.tp[j] = apo__typical(io, first - 1 + j);
    j = 0;
#ifdef APO_TILE_LANES
    for (; j + APO_TILE_LANES <= bars; j += APO_TILE_LANES) {
        const apo_tv cur = apo_tv_load(s.tp + j + 1), prev = apo_tv_load(s.tp + j);
        const apo_tv flow = cur * apo_tv_load(vol + j), zero = apo_tv_splat(0.0);
        apo_tv_store(s.fp + j, apo_tv_pick((apo_tm)(cur > prev), flow, zero));
        apo_tv_store(s.fn + j, apo_tv_pick((apo_tm)(cur < prev), flow, zero));
    }
#endif
    for (; j < bars; j++) {
        const double cur = s.tp[j + 1], prev = s.tp[j], flow = cur * vol[j];
        s.fp[j] = cur > prev ? flow : 0.0;
        s.fn[j] = cur < prev ? flow : 0.0;
    }
    apo__mfi_add_apart(s.fp, 1, bars - 1, s.qp);
    apo__mfi_add_apart(s.fn, 1, bars - 1, s.qn);
    if (bars > 3) {
        apo__mfi_add_apart(s.qp, 2, bars - 3, s.rp);
        apo__mfi_add_apart(s.qn, 2, bars - 3, s.rn);
    }
    double *y = io->out[0] + t;
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES) {
        const apo_tv pos = apo__mfi_window_sum_lanes(s.fp, s.qp, s.rp, p, k);
        const apo_tv neg = apo__mfi_window_sum_lanes(s.fn, s.qn, s.rn, p, k);
        const apo_tv total = pos + neg, v = 100.0 * (pos / total);
        apo_tv_store(y + k, apo_tv_pick((apo_tm)(total != 0.0),
                                        apo_tv_pick((apo_tm)(v == v), v, apo_tv_splat(NAN)),
                                        apo_tv_splat(0.0)));
    }
#endif
    for (; k < n; k++)
        y[k] = apo__mfi_quotient(apo__mfi_window_sum(s.fp, s.qp, s.rp, p, k),
                                 apo__mfi_window_sum(s.fn, s.qn, s.rn, p, k));
}

/* apo__mfi_run for p <= APO_MFI_DIRECT_MAX: clean blocks and clean single bars alike from
 * their windows (apo__mfi_direct_block); the state is only the last gap and whether the last
 * window was clean, the sums v[] stay 0. */
static inline APO_HD void apo__mfi_run_direct(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        size_t e = apo__clean_block_end(io->in, 4, valid, t, end, &plain_until);
        if (e > t) {
            /* The clean slide blocks that follow, while they fit one direct block. */
            while (e < end && e - t + APO_DD_FOLD <= APO_MFI_DIRECT_OUTPUTS) {
                const size_t next = apo__clean_block_end(io->in, 4, 1, e, end, &plain_until);
                if (next == e)
                    break;
                e = next;
            }
            apo__mfi_direct_block(io, p, t, e - t);
            t = e - 1;
            continue;
        }
        if (!apo__all_finite_at(io->in, 4, t))
            bad = t + 1;
        valid = apo__window_clean(t, p + 1, bad);
        if (valid)
            apo__mfi_direct_block(io, p, t, 1);
        else
            io->out[0][t] = NAN;
    }
    apo__window_keep(r, end, bad, valid);
}

/* The loop from r->t to end, after apo__window_start over the 4 inputs and p + 1 bars
 * (apo__cat_run: n[0] the last gap, n[1] whether the sums are the last window's; v[0], v[1]
 * pos and v[2], v[3] neg, as slid: hi and the gathered errors). A tile is one start and one
 * run; a stream's pieces of it are one start and several runs, each going on from the last
 * (runtime/streaming), and a piece of a bar reads only the four bars its step needs. */
static inline APO_HD void apo__mfi_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    if (p <= APO_MFI_DIRECT_MAX) {
        apo__mfi_run_direct(io, end, r);
        return;
    }
    const size_t span = p + 1;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd pos = apo__window_sum(r, 0), neg = apo__window_sum(r, 1);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(io->in, 4, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair s = apo__mfi_block(io, p, t, e, pos, neg);
            pos = s.a;
            neg = s.b;
            t = e - 1;
            continue;
        }
        if (!apo__window_step(apo__all_finite_at(io->in, 4, t), out, t, span, &bad, &valid))
            continue;
        if (!valid) {
            /* The exact restart: the window's flows gathered in bar order. */
            pos = neg = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++) {
                const apo__mfi_flows f = apo__mfi_flows_at(io, i);
                pos = apo__dd_add(pos, f.pos);
                neg = apo__dd_add(neg, f.neg);
            }
            valid = 1;
        } else {
            const apo__mfi_flows in = apo__mfi_flows_at(io, t), old = apo__mfi_flows_at(io, t - p);
            pos = apo__dd_slide_dd(pos, in.pos, old.pos, t);
            neg = apo__dd_slide_dd(neg, in.neg, old.neg, t);
        }
        out[t] = apo__mfi_value(pos, neg);
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, pos);
    apo__window_keep_sum(r, 1, neg);
}

/* mfi's tile and stream (catalog_table.h, RUN): apo__mfi_tile, apo__mfi_stream_start and
 * apo__mfi_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(mfi, apo__window_start(io, 4, (size_t)io->p[0] + 1, begin, r),
                    apo__mfi_run(io, end, r))

#endif /* APO_KERNELS_MFI_TILE_H */

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
 * Tile: halo p. pos and neg are double-doubles of the exact flows (dd.h), summed exactly
 * at the tile's first clean window and after each gap, then slid. Gaps: a window of bars
 * t - p .. t holding a non-finite sample of any input gives NaN (window.h). Where p + 1
 * bars fit APO_MFI_RING, each bar's typical price and signed flow are evaluated once and
 * kept in a ring for the slide to remove, instead of evaluated again (four typical prices
 * and two flows per output before); the same values enter the same sums in the same order.
 * The body is a start and a run (apo__mfi_run), so that a stream resumes it bar by bar.
 */
#ifndef APO_KERNELS_MFI_TILE_H
#define APO_KERNELS_MFI_TILE_H

#include "flow.h"
#include "window.h"

/* Adds bar i's flow (sign 1) or removes it (sign -1) from pos or neg. */
static inline APO_HD void apo__mfi_add(const apo__cat_io *io, size_t i, double sign, apo__dd *pos,
                                       apo__dd *neg) {
    const double tp = apo__typical(io, i), prev = apo__typical(io, i - 1);
    if (tp == prev)
        return;
    apo__dd f = apo__money_flow(io, i);
    if (sign < 0.0)
        f = apo__dd_neg(f);
    if (tp > prev)
        *pos = apo__dd_add(*pos, f);
    else
        *neg = apo__dd_add(*neg, f);
}

/* Entries of the ring of bars' flows; a power of two. Fixed, because a body allocates
 * nothing; small, because on the GPU each thread holds its ring. */
#define APO_MFI_RING 64

/* A bar's place in the sums: its flow and the sum it enters (1 pos, -1 neg, 0 none), as
 * apo__mfi_add decides them. */
typedef struct apo__mfi_bar {
    apo__dd flow;
    int side;
} apo__mfi_bar;

/* Bar i's entry from its typical price tp and the previous bar's, prev. */
static inline APO_HD apo__mfi_bar apo__mfi_bar_at(const apo__cat_io *io, size_t i, double tp,
                                                  double prev) {
    apo__mfi_bar b;
    b.side = tp > prev ? 1 : tp < prev ? -1 : 0;
    b.flow = b.side != 0 ? apo__money_flow_of(io, i, tp) : apo__dd_make(0.0, 0.0);
    return b;
}

/* apo__mfi_add from a bar's entry. */
static inline APO_HD void apo__mfi_apply(apo__mfi_bar b, double sign, apo__dd *pos, apo__dd *neg) {
    if (b.side == 0)
        return;
    apo__dd f = b.flow;
    if (sign < 0.0)
        f = apo__dd_neg(f);
    if (b.side > 0)
        *pos = apo__dd_add(*pos, f);
    else
        *neg = apo__dd_add(*neg, f);
}

/* The loop from r->t to end, after apo__window_start over the 4 inputs and p + 1 bars
 * (apo__cat_run: n[0] the last gap, n[1] whether the sums are the last window's; v[0], v[1]
 * pos and v[2], v[3] neg as double-doubles; v[4] the typical price of bar r->t - 1 while
 * valid). A tile is one start and one run; a stream's pieces of it are one start and
 * several runs, each going on from the last (runtime/streaming). Where p + 1 bars fit the
 * ring, a run that goes on from a valid window first fills the ring with the entries of that
 * window's bars, evaluated from the inputs as the tile evaluated them when they arrived:
 * the same values, so the slide removes what the tile run whole removes; a run of fewer
 * bars than that window does without the ring, so that a stream's update of one bar does
 * not read p + 1. */
static inline APO_HD void apo__mfi_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const size_t span = p + 1;
    /* A run that goes on from a valid window and computes fewer bars than the window holds
     * (a stream's update of a bar or a few) would refill the ring from p + 1 bars to use a
     * few entries: it evaluates its bars without the ring instead, reading only the four
     * bars each needs (the same values, so the same bits), and leaves prev for a later run
     * that uses the ring. */
    const int use_ring = span <= APO_MFI_RING && !(r->n[1] != 0 && end < r->t + span);
    apo__mfi_bar ring[APO_MFI_RING];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    double prev = r->v[4]; /* the typical price of bar t - 1 while valid (ring only) */
    apo__dd pos = apo__dd_make(r->v[0], r->v[1]), neg = apo__dd_make(r->v[2], r->v[3]);
    if (use_ring && valid) {
        double before = apo__typical(io, r->t - 1 - p);
        for (size_t i = r->t - p; i < r->t; i++) {
            const double tp = apo__typical(io, i);
            ring[i & (APO_MFI_RING - 1)] = apo__mfi_bar_at(io, i, tp, before);
            before = tp;
        }
    }
    for (size_t t = r->t; t < end; t++) {
        if (!apo__all_finite_at(io->in, 4, t))
            bad = t + 1;
        if (!apo__window_clean(t, span, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            pos = neg = apo__dd_make(0.0, 0.0);
            if (use_ring) {
                prev = apo__typical(io, t - p);
                for (size_t i = t + 1 - p; i <= t; i++) {
                    const double tp = apo__typical(io, i);
                    ring[i & (APO_MFI_RING - 1)] = apo__mfi_bar_at(io, i, tp, prev);
                    apo__mfi_apply(ring[i & (APO_MFI_RING - 1)], 1.0, &pos, &neg);
                    prev = tp;
                }
            } else {
                for (size_t i = t + 1 - p; i <= t; i++)
                    apo__mfi_add(io, i, 1.0, &pos, &neg);
            }
            valid = 1;
        } else if (use_ring) {
            const double tp = apo__typical(io, t);
            ring[t & (APO_MFI_RING - 1)] = apo__mfi_bar_at(io, t, tp, prev);
            prev = tp;
            apo__mfi_apply(ring[t & (APO_MFI_RING - 1)], 1.0, &pos, &neg);
            apo__mfi_apply(ring[(t - p) & (APO_MFI_RING - 1)], -1.0, &pos, &neg);
        } else {
            apo__mfi_add(io, t, 1.0, &pos, &neg);
            apo__mfi_add(io, t - p, -1.0, &pos, &neg);
        }
        const double total = apo__dd_add(pos, neg).hi;
        out[t] = total != 0.0 ? apo__canonical_nan(100.0 * (pos.hi / total)) : 0.0;
    }
    if (!use_ring && valid && end > r->t)
        prev = apo__typical(io, end - 1);
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
    r->v[0] = pos.hi;
    r->v[1] = pos.lo;
    r->v[2] = neg.hi;
    r->v[3] = neg.lo;
    r->v[4] = prev;
}

static inline APO_HD void apo__mfi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__window_start(io, 4, (size_t)io->p[0] + 1, begin, &r);
    apo__mfi_run(io, end, &r);
}

#endif /* APO_KERNELS_MFI_TILE_H */

/*
 * returns_stats_lanes.h: up to APO_LANES returns_stats tiles at once, one per lane of a
 * vector (lanes.h), with the bits of apo__returns_stats_tile (returns_stats_tile.h).
 *
 * What: the two passes of the scalar tile, lane by lane in lockstep. Pass 1 computes
 * r = x[t] / x[t-1] - 1.0 and, where r is finite, adds 1 to the count, r to the sum (in
 * index order) and updates the minimum and maximum with the scalar code's comparisons;
 * the lane's mean is then sum / count. Pass 2 adds d * d, d = r - mean, to M2 in index
 * order, again for the finite returns only. A lane that skips a return keeps its
 * accumulators by a select, bit for bit, so each lane performs the scalar tile's operations
 * in the scalar tile's order. The count is kept as a double, exact below 2^53, as the
 * scalar code's (double)count is.
 *
 * Why: the division is the cost. The divider takes about as long per double whatever the
 * vector width, and the scalar tile divides twice per sample (pass 2 recomputes r). With
 * `scratch` (room for `scratch_len` doubles, at least the round's longest tile times
 * APO_LANES) pass 1 stores each lane's returns there and pass 2 reads them back, so each
 * sample is divided once; without it (NULL, or too small) pass 2 recomputes them, with the
 * same bits.
 *
 * Lanes whose tile ends early stop accumulating and re-read their last sample; lanes
 * without a return read a constant of their own and accumulate nothing.
 *
 * Included by lanes_<path>.c after lanes.h; builds APO_LANES_NAME(apo__returns_stats_round).
 */
#ifndef APO_RETURNS_STATS_LANES_H
#define APO_RETURNS_STATS_LANES_H

#include <string.h>

#include "lanes.h"
#include "reductions.h"
#include "returns_stats_tile.h"

/* Each lane's cursor back on its first return's sample, with the sample before it in prev. */
static inline void APO_LANES_NAME(apo__returns_rewind)(const double **at, apo_vd *prev,
                                                       const double *const *first) {
    for (size_t i = 0; i < APO_LANES; i++) {
        at[i] = first[i];
        (*prev)[i] = first[i][-1];
    }
}

/* The lanes' next return, cur / prev - 1 with cur the samples under the cursors; cur becomes
 * prev and each cursor moves on, or stays on its lane's last sample. Both passes read their
 * returns with this step, so pass 2 recomputes pass 1's bits. */
static inline apo_vd APO_LANES_NAME(apo__returns_next)(const double **at, const double *const *last,
                                                       apo_vd *prev) {
    apo_vd cur;
    for (size_t i = 0; i < APO_LANES; i++)
        cur[i] = *at[i];
    const apo_vd rv = cur / *prev - apo_vd_splat(1.0);
    *prev = cur;
    for (size_t i = 0; i < APO_LANES; i++)
        at[i] = at[i] < last[i] ? at[i] + 1 : at[i];
    return rv;
}

/* The lanes that take their return at step jv: a finite return, within the lane's tile. */
static inline apo_vm APO_LANES_NAME(apo__returns_take)(apo_vd rv, apo_vd jv, apo_vd len) {
    return apo_vm_and(apo_vd_le(apo_vd_abs(rv), apo_vd_splat(DBL_MAX)), apo_vd_lt(jv, len));
}

static void APO_LANES_NAME(apo__returns_stats_round)(const double *x, size_t cols,
                                                     const apo__tile_span *tiles, size_t count,
                                                     apo__moments *const *partials, double *scratch,
                                                     size_t scratch_len) {
    /* Each lane reads from `first` (the x[t] of its first return; x[t-1] before it) to
     * `last`, and then stays on `last`. Lanes without a return read a sample of their own:
     * they must not read the arrays at all, which may be views that hold only the tiles'
     * own samples (a rank's task, runtime/cluster/serve.c). */
    static const double no_samples[2] = {1.0, 1.0};
    const double *first[APO_LANES], *last[APO_LANES];
    size_t most = 0;
    apo_vd len;
    for (size_t i = 0; i < APO_LANES; i++) {
        first[i] = last[i] = no_samples + 1;
        len[i] = 0.0;
        if (i >= count)
            continue;
        const size_t t0 = tiles[i].begin > 1 ? tiles[i].begin : 1;
        if (tiles[i].end <= t0)
            continue;
        const size_t n = tiles[i].end - t0;
        first[i] = x + tiles[i].row * cols + t0;
        last[i] = first[i] + (n - 1);
        len[i] = (double)n;
        if (n > most)
            most = n;
    }
    const int stored = scratch != NULL && most <= scratch_len / APO_LANES;

    const apo_vd one = apo_vd_splat(1.0);
    apo_vd cnt = apo_vd_splat(0.0), sum = apo_vd_splat(0.0);
    apo_vd mn = apo_vd_splat(INFINITY), mx = apo_vd_splat(-INFINITY);
    apo_vd prev, jv = apo_vd_splat(0.0);
    const double *at[APO_LANES];
    APO_LANES_NAME(apo__returns_rewind)(at, &prev, first);

    /* Pass 1: count, sum, min, max of the finite returns. */
    for (size_t j = 0; j < most; j++) {
        const apo_vd rv = APO_LANES_NAME(apo__returns_next)(at, last, &prev);
        const apo_vm take = APO_LANES_NAME(apo__returns_take)(rv, jv, len);
        cnt = apo_vd_select(take, cnt + one, cnt);
        sum = apo_vd_select(take, sum + rv, sum);
        mn = apo_vd_select(apo_vm_and(take, apo_vd_lt(rv, mn)), rv, mn);
        mx = apo_vd_select(apo_vm_and(take, apo_vd_gt(rv, mx)), rv, mx);
        if (stored)
            memcpy(scratch + j * APO_LANES, &rv, sizeof rv);
        jv = jv + one;
    }

    const apo_vm nonempty = apo_vd_ne(cnt, apo_vd_splat(0.0));
    /* Empty lanes divide by 1 instead of 0: their mean is never used. */
    const apo_vd mean = sum / apo_vd_select(nonempty, cnt, one);

    /* Pass 2: M2 about the lane's mean. */
    apo_vd m2 = apo_vd_splat(0.0);
    jv = apo_vd_splat(0.0);
    if (stored) {
        for (size_t j = 0; j < most; j++) {
            apo_vd rv;
            memcpy(&rv, scratch + j * APO_LANES, sizeof rv);
            const apo_vm take = APO_LANES_NAME(apo__returns_take)(rv, jv, len);
            const apo_vd d = rv - mean;
            m2 = apo_vd_select(take, m2 + d * d, m2);
            jv = jv + one;
        }
    } else {
        APO_LANES_NAME(apo__returns_rewind)(at, &prev, first);
        for (size_t j = 0; j < most; j++) {
            const apo_vd rv = APO_LANES_NAME(apo__returns_next)(at, last, &prev);
            const apo_vm take = APO_LANES_NAME(apo__returns_take)(rv, jv, len);
            const apo_vd d = rv - mean;
            m2 = apo_vd_select(take, m2 + d * d, m2);
            jv = jv + one;
        }
    }

    for (size_t i = 0; i < count; i++) {
        apo__moments *out = partials[i];
        if (cnt[i] == 0.0) {
            apo__moments_empty(out);
            continue;
        }
        out->count = cnt[i];
        out->mean = mean[i];
        out->m2 = m2[i];
        out->min = mn[i];
        out->max = mx[i];
    }
}

#endif /* APO_RETURNS_STATS_LANES_H */

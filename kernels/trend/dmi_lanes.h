/*
 * dmi_lanes.h: PLUS_DI's, MINUS_DI's, ADX's, DX's and ADXR's tiles side by side, one per vector
 * lane (catalog_lanes.h says how the bits stay each tile's). Each lane performs dmi_tile.h's
 * operations in its order: the true range is trange_tile.h's vector body, the
 * directional movements and the "defined" tests are selects on the same comparisons, and a
 * lane where DX is undefined keeps its ADX, as the scalar body skips it (DX's lanes keep their
 * last output, which the scalar body repeats).
 */
#ifndef APO_KERNELS_DMI_LANES_H
#define APO_KERNELS_DMI_LANES_H

#include "catalog_lanes.h"
#include "dmi_tile.h"
#include "trange_tile.h"

#ifdef APO_TILE_LANES

/* A DI's output from its step's sums (dmi_tile.h's operations lane for lane): NaN before the
 * p-th bar (has_output 0), 0 where the sum of TR is 0, else 100 * (S±DM / STR). */
static inline apo_tv apo__di_lanes_of(int has_output, apo_tv dm_sum, apo_tv tr_sum) {
    const apo_tv zero = {0}, nan = zero + (double)NAN;
    if (!has_output)
        return nan;
    const apo_tv di = apo_tv_pick(tr_sum == zero, zero, (zero + 100.0) * (dm_sum / tr_sum));
    return apo_tv_pick(di != di, nan, di);
}

/* DX from a step's sums (dmi_tile.h's operations lane for lane), and the lanes where it is
 * undefined (no true range, or the DIs' sum 0), whose DX is a value never kept. */
static inline apo_tv apo__dx_lanes_of(apo_tv sp, apo_tv sm, apo_tv str, apo_tm *undefined) {
    const apo_tv zero = {0}, hundred = zero + 100.0;
    const apo_tm sign = (apo_tm)(-zero); /* -0.0: the sign bit of each lane, for fabs */
    const apo_tm no_range = str == zero;
    const apo_tv plus = apo_tv_pick(no_range, zero, hundred * (sp / str));
    const apo_tv minus = apo_tv_pick(no_range, zero, hundred * (sm / str));
    const apo_tv sum = minus + plus;
    *undefined = no_range | (sum == zero);
    return hundred * ((apo_tv)((apo_tm)(minus - plus) & ~sign) / sum);
}

/* ADXR's scalar rest of lane k's tile after `step` steps of lanes: the leading recurrence as
 * the lanes left it, and its last p - 1 outputs from the lanes' ring (ring[s % (p - 1)] lane
 * k: its output at step s) put where apo__adxr_ring_run looks for them. */
static inline void apo__adxr_lane_rest(const apo__cat_io *io, const apo__tile_span *tile,
                                       const apo__cat_run *r, const apo_tv *ring, size_t k,
                                       size_t step) {
    const size_t lag = (size_t)io->p[0] - 1, first = r->t - step;
    if (r->t >= tile->end)
        return;
    apo__dmi_state lead = {r->n[0], r->n[1], r->v[0], r->v[1], r->v[2], r->v[3]};
    double past[APO_ADXR_RING];
    for (size_t i = 0; i < lag; i++)
        past[i] = NAN;
    for (size_t s = step > lag ? step - lag : 0; s < step; s++)
        past[(first + s) % lag] = ring[s % lag][k];
    apo__adxr_ring_run(io, tile->begin, tile->end, r->t, &lead, past);
}

/* A round of up to APO_TILE_LANES tiles; which: APO_DMI_PLUS, APO_DMI_MINUS, APO_DMI_ADX,
 * APO_DMI_DX or APO_DMI_ADXR (ring: room for p - 1 vectors, else NULL). edges: NULL, or one
 * per tile for its run at its begin and end (catalog_lanes.h). */
static APO_CAT_SPECIALISED void apo__dmi_lanes(const apo__cat_io *io, const apo__tile_span *tiles,
                                               size_t count, int which, apo__cat_edge *edges,
                                               apo_tv *ring) {
    apo__cat_lanes ln;
    apo__cat_lanes_start(&ln, io, tiles, count);
    const double *high = io->in[0], *low = io->in[1];
    const size_t p = (size_t)io->p[0];
    const apo_tv zero = {0}, pd = zero + (double)p, keep = zero + ((double)p - 1.0),
                 nan = zero + (double)NAN;
    apo_tv sp = zero, sm = zero, str = zero, adx = zero;
    size_t n[2] = {0, 0}; /* the bars and the DX seen, as apo__dmi_run counts them */
    size_t step = 0;
    /* ADXR: ring[at] holds the ADX of lag steps back, NaN before the lanes' first step (the
     * scalar tile's lagging recurrence has no output there). */
    const size_t lag = p - 1;
    size_t at = 0;
    if (which == APO_DMI_ADXR)
        for (size_t i = 0; i < lag; i++)
            ring[i] = nan;
    /* Each bar is gathered once, at its own step, and kept for the next one's moves and true
     * range: three gathers a step where five (the previous bar's high, low and close again)
     * were a third of its time. A lane whose tile has ended re-reads its last bar, so its
     * "previous" bar is that bar too: values it never stores. */
    apo_tv h_before = apo__cat_lanes_load(high, &ln, 0, 1),
           l_before = apo__cat_lanes_load(low, &ln, 0, 1),
           c_before = apo__cat_lanes_load(io->in[2], &ln, 0, 1);
    /* Whether the previous bar passed the quick gap test below. */
    int bounded_before =
        apo_tv_all_finite((h_before + h_before) + (l_before + l_before) + (c_before + c_before));
    /* plus_di and minus_di write each step's output one step late: the output's division
     * then comes after the next step's divisions of the sums in program order, and the
     * divider, which takes the oldest ready division first, no longer makes the sums' chain
     * wait for it (measured: 7% of a 1e4-bar row; docs/PERF.md). The step whose output
     * waits: whether it has one, and its sums. */
    int late_has_output = 0;
    apo_tv late_dm = zero, late_tr = zero;
    for (; step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, n, 2, (const apo_tv[]){sp, sm, str, adx}, 4,
                                 edges);
        const apo_tv h = apo__cat_lanes_load(high, &ln, step, 0),
                     l = apo__cat_lanes_load(low, &ln, step, 0),
                     c = apo__cat_lanes_load(io->in[2], &ln, step, 0);
        const apo_tv tr = apo__true_range_of(h, l, c_before);
        const apo_tv up = h - h_before;
        const apo_tv down = l_before - l;
        h_before = h;
        l_before = l;
        c_before = c;
        /* The gap test, first on the bars themselves: where 2x is finite for each of this
         * bar's and the previous bar's high, low and close (a sum of such terms is not finite
         * if one is not), every difference of them is finite, and so are the true range and
         * the moves. That is a few additions from the loads, where the exact test waited for
         * the true range's comparisons and held the step back (measured: 3% of a 1e4-bar
         * row). Where it fails (a gap, or samples above half the largest double) the exact
         * test decides, one test for the three: x - x is +0.0 where x is finite, else NaN. */
        const int bounded = apo_tv_all_finite((h + h) + (l + l) + (c + c));
        if (!(bounded && bounded_before) &&
            !apo_tv_all_finite((tr - tr) + (up - up) + (down - down)))
            break;
        bounded_before = bounded;
        const apo_tv pdm = apo_tv_pick((up > zero) & (up > down), up, zero);
        const apo_tv mdm = apo_tv_pick((down > zero) & (down > up), down, zero);
        n[0]++;
        APO__DMI_SUMS(which, n[0], p, pd, sp, sm, str, pdm, mdm, tr);
        if (which == APO_DMI_PLUS || which == APO_DMI_MINUS) {
            if (step > 0)
                apo__cat_lanes_store(io->out[0], &ln, tiles, step - 1,
                                     apo__di_lanes_of(late_has_output, late_dm, late_tr));
            late_has_output = n[0] >= p;
            late_dm = which == APO_DMI_PLUS ? sp : sm;
            late_tr = str;
            continue;
        }
        /* ADX and DX: DX from both DIs, in this step (ADX's chain reads it). */
        apo_tv y = nan;
        if (n[0] >= p) {
            apo_tm undefined;
            const apo_tv dx = apo__dx_lanes_of(sp, sm, str, &undefined);
            if (which == APO_DMI_DX) {
                /* An undefined DX repeats the last output (0 before any), kept in adx. */
                adx = apo_tv_pick(undefined, adx, dx);
                y = adx;
            } else if (++n[1] <= p) {
                adx = apo_tv_pick(undefined, adx, adx + dx);
                if (n[1] == p) {
                    adx = adx / pd;
                    y = adx;
                }
            } else {
                adx = apo_tv_pick(undefined, adx, (adx * keep + dx) / pd);
                y = adx;
            }
            y = apo_tv_pick(y != y, nan, y);
        }
        if (which == APO_DMI_ADXR) {
            const apo_tv before = ring[at];
            ring[at] = y;
            at = at + 1 == lag ? 0 : at + 1;
            y = (before + y) / (zero + 2.0);
            y = apo_tv_pick(y != y, nan, y);
        }
        apo__cat_lanes_store(io->out[0], &ln, tiles, step, y);
    }
    /* The DIs' last step's output (that of the step before a gap, or the round's last). */
    if ((which == APO_DMI_PLUS || which == APO_DMI_MINUS) && step > 0)
        apo__cat_lanes_store(io->out[0], &ln, tiles, step - 1,
                             apo__di_lanes_of(late_has_output, late_dm, late_tr));
    apo__cat_lanes_stop(&ln, step, n, 2);
    for (size_t k = 0; k < count; k++) {
        ln.run[k].v[0] = sp[k];
        ln.run[k].v[1] = sm[k];
        ln.run[k].v[2] = str[k];
        ln.run[k].v[3] = adx[k];
        if (which == APO_DMI_ADXR)
            apo__adxr_lane_rest(io, &tiles[k], &ln.run[k], ring, k, step);
        else
            apo__dmi_run(io, tiles[k].begin, tiles[k].end, which, &ln.run[k]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, k, edges);
    }
}

/* A round of plus_di's, minus_di's, adx's or dx's tiles (which: APO_DMI_PLUS, APO_DMI_MINUS,
 * APO_DMI_ADX or APO_DMI_DX); edges as apo__dmi_lanes's. */
static APO_CAT_SPECIALISED void apo__dmi_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                               size_t count, int which, apo__cat_edge *edges) {
    apo__dmi_lanes(io, tiles, count, which, edges, NULL);
}

/* A round of ADXR's tiles: ADX's lanes, and the ADX of p - 1 steps back kept in a ring on the
 * stack (up to 32 KiB on avx512), as the CPU's scalar tile keeps it (dmi_tile.h,
 * APO_ADXR_RING); a longer lag runs the scalar tiles, two recurrences each. */
static inline void apo__adxr_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                   size_t count) {
    if ((size_t)io->p[0] - 1 > APO_ADXR_RING) {
        for (size_t k = 0; k < count; k++)
            apo__adxr_tile(io, tiles[k].begin, tiles[k].end);
        return;
    }
    apo_tv ring[APO_ADXR_RING];
    apo__dmi_lanes(io, tiles, count, APO_DMI_ADXR, NULL, ring);
}

#endif /* APO_TILE_LANES */

#endif /* APO_KERNELS_DMI_LANES_H */

/*
 * macd_lanes.h: up to APO_LANES macd tiles at once, one per lane of a vector (lanes.h),
 * with the bits of apo__macd_tile (macd_tile.h) for each.
 *
 * What: each lane seeds its tile with the scalar code (apo__macd_prepare with warm_up 0:
 * phases 1 and 2, a few dozen samples), then all lanes step in lockstep through the
 * warm-up (phase 3) and the steady part, one index per lane per step. A step computes in
 * every lane the EMA updates of phase 3 and of apo__macd_step, which are the same
 * operations in the same order: ef = (v - ef) * kf + ef, es likewise, m = ef - es,
 * eg = (m - eg) * kg + eg. A lane whose sample is not finite keeps its states (a select, bit
 * for bit) and, when it emits, writes the NAN constant as apo__macd_emit_nan does. A lane
 * stores its outputs only from its tile's `begin`, as the scalar code emits them; before
 * that it only updates its states.
 *
 * Why: the EMA update is a chain of three dependent operations per sample; lanes are
 * independent chains, so one vector step advances APO_LANES tiles in the latency of one.
 *
 * Lanes that do not move (before their first step, after their last, or without a tile)
 * read NaN, which leaves their states alone, and store nothing.
 *
 * With `edges`, a round also records each lane's states where its outputs start and where
 * its tile ends (apo__macd_edges), which a lone tile's split checks its pieces with
 * (lanes_dispatch.c). Every event (a lane starting, starting to store, stopping) begins a
 * stretch, so the states are read at the top of one.
 *
 * Included by lanes_<path>.c after lanes.h; builds APO_LANES_NAME(apo__macd_round).
 */
#ifndef APO_MACD_LANES_H
#define APO_MACD_LANES_H

#include "force_inline.h"
#include "lanes.h"
#include "macd.h"
#include "macd_tile.h"

/* The EMA states of the lanes and the constants of a round. */
typedef struct apo__macd_lanes {
    apo_vd ef, es, eg;
} apo__macd_lanes;

typedef struct apo__macd_consts {
    apo_vd kf, ks, kg, finite_max, nan;
} apo__macd_consts;

/* One step of every lane on the samples v: the EMA updates of phase 3 and of
 * apo__macd_step, in the same order; a lane whose sample is not finite keeps its states and
 * gets the NAN constant as its outputs, as apo__macd_emit_nan writes them. */
static inline void apo__macd_lanes_step(apo__macd_lanes *s, const apo__macd_consts *k, apo_vd v,
                                        apo_vd *out_m, apo_vd *out_s, apo_vd *out_h) {
    /* isfinite, as a comparison: false for infinities and NaN. */
    const apo_vm finite = apo_vd_le(apo_vd_abs(v), k->finite_max);
    const apo_vd ef_new = (v - s->ef) * k->kf + s->ef;
    const apo_vd es_new = (v - s->es) * k->ks + s->es;
    const apo_vd m = ef_new - es_new;
    const apo_vd eg_new = (m - s->eg) * k->kg + s->eg;
    s->ef = apo_vd_select(finite, ef_new, s->ef);
    s->es = apo_vd_select(finite, es_new, s->es);
    s->eg = apo_vd_select(finite, eg_new, s->eg);
    *out_m = apo_vd_select(finite, m, k->nan);
    *out_s = apo_vd_select(finite, eg_new, k->nan);
    *out_h = apo_vd_select(finite, m - eg_new, k->nan);
}

/* Lane i's states, in apo__macd_edges' order. */
static inline void apo__macd_lanes_read(const apo__macd_lanes *v, size_t i, double out[3]) {
    out[0] = apo_vd_lane(v->ef, i);
    out[1] = apo_vd_lane(v->es, i);
    out[2] = apo_vd_lane(v->eg, i);
}

/* The round's constants. */
static inline apo__macd_consts apo__macd_consts_of(const apo__macd_rates *r) {
    apo__macd_consts k;
    k.kf = apo_vd_splat(r->kf);
    k.ks = apo_vd_splat(r->ks);
    k.kg = apo_vd_splat(r->kg);
    k.finite_max = apo_vd_splat(DBL_MAX);
    k.nan = apo_vd_splat(NAN);
    return k;
}

/* Stores a block's outputs of the lanes in `emit`, transposed to one vector per lane (om the
 * macd, os the signal; hist is om - os), at each lane's `at`. Two loops, so that the loop of
 * ordinary stores stays free of the streaming stores' alignment tests. */
static APO_FORCE_INLINE void apo__macd_block_store(const apo_vd *om, const apo_vd *os,
                                                   const size_t *at, unsigned emit, double *macd,
                                                   double *signal_line, double *hist, int stream) {
    if (stream) {
        for (size_t i = 0; i < APO_LANES; i++) {
            if (emit >> i & 1u) {
                apo_vd_stream(macd + at[i], om[i]);
                apo_vd_stream(signal_line + at[i], os[i]);
                apo_vd_stream(hist + at[i], om[i] - os[i]);
            }
        }
    } else {
        for (size_t i = 0; i < APO_LANES; i++) {
            if (emit >> i & 1u) {
                apo_vd_storeu(macd + at[i], om[i]);
                apo_vd_storeu(signal_line + at[i], os[i]);
                apo_vd_storeu(hist + at[i], om[i] - os[i]);
            }
        }
    }
}

/* fast <= slow (apo__macd_setup's order), h = apo__macd_warmup(fast, slow, signal); `edges`
 * NULL or one per tile. */
static void APO_LANES_NAME(apo__macd_round)(const double *x, size_t cols,
                                            const apo__tile_span *tiles, size_t count, size_t fast,
                                            size_t slow, size_t signal, size_t h,
                                            const apo__macd_rates *r, double *macd,
                                            double *signal_line, double *hist, int stream,
                                            apo__macd_edges *edges) {
    /* Only where a block's store of a lane is a whole line (lanes.h, APO_LANES_STREAM). */
    stream = stream && APO_LANES_STREAM;
    size_t at[APO_LANES];    /* the lane's next index, absolute in the arrays */
    size_t start[APO_LANES]; /* the step of the lane's first index */
    size_t speak[APO_LANES]; /* ... of its first output (the warm-up ends) */
    size_t stop[APO_LANES];  /* ... and the step after its last index */
    apo__macd_state seeded[APO_LANES];
    apo__macd_lanes v;
    v.ef = v.es = v.eg = apo_vd_splat(0.0);

    size_t end_step = 0;
    unsigned lanes = 0;
    for (size_t i = 0; i < APO_LANES; i++) {
        at[i] = 0;
        start[i] = 0;
        speak[i] = 0;
        stop[i] = 0;
        if (i >= count)
            continue;
        const apo__tile_span *tl = &tiles[i];
        const size_t row0 = tl->row * cols;
        apo__macd_state *st = &seeded[i];
        if (edges != NULL)
            edges[i].steady = edges[i].ran = 0;
        if (!apo__macd_prepare(x + row0, tl->begin, tl->end, fast, slow, signal, h, r, 0,
                               macd + row0, signal_line + row0, hist + row0, st))
            continue;
        if (edges != NULL) {
            /* Seeds done by `begin`: the outputs from `begin` on are steady steps. */
            edges[i].steady = st->t <= tl->begin;
            edges[i].ran = 1;
        }
        /* st->t is the next index; the indices before `begin` are warm-up. Blocks start at
         * steps that are multiples of APO_LANES; the lane starts so that its outputs of a
         * block fill whole aligned vectors of `macd`. */
        at[i] = row0 + st->t;
        const size_t phase = ((uintptr_t)(macd + at[i]) / sizeof(double)) % APO_LANES;
        start[i] = i * APO_LANES_STAGGER + phase;
        speak[i] = start[i] + (st->t < tl->begin ? tl->begin - st->t : 0);
        stop[i] = start[i] + (tl->end - st->t);
        lanes |= 1u << i;
        if (stop[i] > end_step)
            end_step = stop[i];
    }
    if (lanes == 0)
        return;

    const apo__macd_consts k = apo__macd_consts_of(r);

    size_t step = 0;
    while (step < end_step) {
        /* Lanes moving and lanes storing in this stretch, which lasts up to the next lane
         * starting, starting to store or stopping. A lane starting now takes up its seeded
         * states. */
        unsigned moving = 0, emit = 0;
        size_t next = end_step;
        for (size_t i = 0; i < APO_LANES; i++) {
            if (!(lanes >> i & 1u))
                continue;
            if (step == start[i]) {
                v.ef = apo_vd_with_lane(v.ef, i, seeded[i].ef);
                v.es = apo_vd_with_lane(v.es, i, seeded[i].es);
                v.eg = apo_vd_with_lane(v.eg, i, seeded[i].eg);
            }
            if (edges != NULL && step == speak[i])
                apo__macd_lanes_read(&v, i, edges[i].head);
            if (edges != NULL && step == stop[i])
                apo__macd_lanes_read(&v, i, edges[i].tail);
            if (step < start[i]) {
                next = start[i] < next ? start[i] : next;
                continue;
            }
            if (step >= stop[i])
                continue;
            moving |= 1u << i;
            if (step < speak[i])
                next = speak[i] < next ? speak[i] : next;
            else
                emit |= 1u << i;
            next = stop[i] < next ? stop[i] : next;
        }

        /* Single steps up to the next multiple of APO_LANES and after the last block, each
         * lane's sample loaded and its outputs stored on their own; blocks of APO_LANES
         * steps in between, each moving lane's samples loaded as one vector and transposed
         * into one vector per step, and the outputs back the same way. */
        while (step < next) {
            if (step % APO_LANES == 0 && next - step >= APO_LANES) {
                apo_vd in[APO_LANES], om[APO_LANES], os[APO_LANES], oh[APO_LANES];
                for (size_t i = 0; i < APO_LANES; i++)
                    in[i] = apo_vd_loadu((moving >> i & 1u) ? x + at[i] : apo_lanes_idle);
                apo_vd_transpose(in);
                for (size_t j = 0; j < APO_LANES; j++)
                    apo__macd_lanes_step(&v, &k, in[j], &om[j], &os[j], &oh[j]);
                if (emit != 0) {
                    /* hist is the subtraction m - eg again, after the transpose (two
                     * transposes instead of three): the same operands give the same bits,
                     * and at a gap both are the NAN constant, which NaN - NaN returns on
                     * x86, Arm (the first NaN) and RISC-V (the default NaN, the same bits). */
                    apo_vd_transpose(om);
                    apo_vd_transpose(os);
                    apo__macd_block_store(om, os, at, emit, macd, signal_line, hist, stream);
                }
                for (size_t i = 0; i < APO_LANES; i++)
                    at[i] += (moving >> i & 1u) * APO_LANES;
                step += APO_LANES;
                continue;
            }
            apo_vd in, om, os, oh;
            for (size_t i = 0; i < APO_LANES; i++)
                in[i] = (moving >> i & 1u) ? x[at[i]] : NAN;
            apo__macd_lanes_step(&v, &k, in, &om, &os, &oh);
            for (size_t i = 0; i < APO_LANES; i++) {
                if (emit >> i & 1u) {
                    macd[at[i]] = om[i];
                    signal_line[at[i]] = os[i];
                    hist[at[i]] = oh[i];
                }
            }
            for (size_t i = 0; i < APO_LANES; i++)
                at[i] += moving >> i & 1u;
            step++;
        }
    }
    /* The lanes that stop last stop here. */
    for (size_t i = 0; edges != NULL && i < APO_LANES; i++)
        if ((lanes >> i & 1u) && stop[i] == end_step)
            apo__macd_lanes_read(&v, i, edges[i].tail);
    apo_lanes_fence(stream);
}

#endif /* APO_MACD_LANES_H */

/*
 * staged_kernels.h: what one warp of a staged CUDA kernel does (kernels/cuda/staged.cu), as
 * APO_HD functions that its host emulation (kernels/cuda/staged_emulation.c) runs too.
 *
 * What: bollinger, macd and returns_stats: a warp computes the tiles of 32 consecutive work
 * items of a chunk view, lane l the tile of item 32 g + l, segment by segment through shared
 * memory (stage.h), each lane running its tile's body. bootstrap: a warp computes one
 * replicate, its 32 lanes drawing 64 returns at a time (one Philox block per lane) and lane
 * 0 adding them in draw order.
 *
 * Launch shape (staged.cu): bollinger, macd, returns_stats: one warp per block, so that any
 * number of groups spreads over every SM, a grid of ceil(items / 32) blocks (at most 65535,
 * and a grid-stride loop over the groups), apo__stage_bytes() of dynamic shared memory per
 * warp. bootstrap: 4 warps per block, one (row, replicate) per warp.
 *
 * Determinism: each lane's tile body performs the operations of one call over its tile in
 * the same order (the bodies' segment-wise entry points: apo__bollinger_advance,
 * apo__macd_prepare with its warm-up done by apo__macd_warm_step, apo__macd_step,
 * apo__returns_stats_pass1 and _pass2), and the replicate's sum adds the draws in draw order
 * as apo__bootstrap_tile does; staging only moves samples and outputs. So every output and
 * partial has the CPU's bits (docs/cuda.md, "Staged kernels").
 */
#ifndef APO_STAGED_KERNELS_H
#define APO_STAGED_KERNELS_H

#include "bollinger_stage.h"
#include "bootstrap_tile.h"
#include "cuda_chunk.h"
#include "lone_tile_cut.h"
#include "macd_cut.h"
#include "macd_tile.h"
#include "moments_tile.h"
#include "returns_stats_tile.h"
#include "stage.h"

/* bollinger: lookback `period` (the window and the leaving sample), three outputs. */
static inline APO_HD void apo__bollinger_staged_warp(const apo__stage_warp *w,
                                                     const apo__cuda_view *v, size_t tiles,
                                                     size_t group, size_t period, double nbdev_up,
                                                     double nbdev_dn) {
    apo__bollinger_cursor cur[APO_LANE_STATES];
    apo__bollinger_stage_streams(w, v, tiles, group, period, cur);
    APO_WARP_SYNC();
    APO_STAGE_PASS(w, lane, a, b, 3, {
        (void)a;
        apo__bollinger_advance(apo__stage_in(w, lane), b, period, nbdev_up, nbdev_dn,
                               &cur[APO_LANE_SLOT(lane)], apo__stage_out(w, 0, lane),
                               apo__stage_out(w, 1, lane), apo__stage_out(w, 2, lane));
    });
}

/* The pieces a macd tile item of view v is cut into when each may take up to `most`. */
static inline APO_HD size_t apo__macd_cut_pieces(const apo__chunk_item *it, size_t h, size_t most) {
    return apo__cut_pieces_most(it->end - it->begin, h, most, APO_MACD_CUT_QUARTERS);
}

/* Lane `lane`'s stream for piece item i = 32 group + lane of view v, its tiles cut into up to
 * `most` pieces (item i: tile i / most, piece i % most; apo__cut_span with warm-up h), or none
 * past the items or for a piece its tile does not have. *it gets the piece as an item. */
static inline APO_HD int apo__stage_piece(const apo__stage_warp *w, const apo__cuda_view *v,
                                          size_t tiles, size_t most, size_t h, size_t group,
                                          unsigned lane, apo__chunk_item *it) {
    const size_t i = group * APO_STAGE_LANES + lane;
    if (i >= v->rows * tiles * most) {
        apo__stage_stream_none(&w->stream[lane]);
        return 0;
    }
    *it = apo__chunk_item_of(v, tiles, i / most);
    const size_t pieces = apo__macd_cut_pieces(it, h, most), j = i % most;
    if (j >= pieces) {
        apo__stage_stream_none(&w->stream[lane]);
        return 0;
    }
    const apo__tile_span sp = apo__cut_span(it->begin, it->end, h, pieces, j);
    it->begin = sp.begin;
    it->end = sp.end;
    apo__stage_item_at(w, v, lane, it);
    return 1;
}

/*
 * macd: each lane seeds its tile reading global memory (apo__macd_prepare without the warm-up:
 * O(slow + signal) samples from begin - H), then streams the warm-up and the tile from there:
 * lookback 0, three outputs from the tile's begin. With `edges` (the cut launch), the lanes take
 * pieces of tiles instead (apo__stage_piece, each run as a tile of its own from its own warm-up)
 * and record each piece's edges at edges[32 group + lane] for apo__macd_mend_item.
 */
static inline APO_HD void apo__macd_staged_warp(const apo__stage_warp *w, const apo__cuda_view *v,
                                                size_t tiles, size_t group, size_t fast,
                                                size_t slow, size_t signal, size_t warmup,
                                                size_t most, apo__macd_edges *edges) {
    apo__macd_state st[APO_LANE_STATES];
    int ran[APO_LANE_STATES];
    apo__macd_rates r;
    apo__macd_setup(&fast, &slow, signal, &r);
    APO_FOR_LANES(lane) {
        apo__chunk_item it;
        ran[APO_LANE_SLOT(lane)] = 0;
        /* Set by apo__macd_prepare where the lane has a stream; zeroed so that no compiler
         * sees the edges read an unset state. */
        st[APO_LANE_SLOT(lane)].ef = st[APO_LANE_SLOT(lane)].es = st[APO_LANE_SLOT(lane)].eg = 0.0;
        const int have = edges != NULL
                             ? apo__stage_piece(w, v, tiles, most, warmup, group, lane, &it)
                             : apo__stage_item(w, v, tiles, group, lane, &it);
        apo__macd_edges *e = edges != NULL ? &edges[group * APO_STAGE_LANES + lane] : NULL;
        if (e != NULL && have) {
            e->steady = 0;
            e->ran = 0;
        }
        if (have) {
            apo__stage_stream *s = &w->stream[lane];
            apo__macd_state *m = &st[APO_LANE_SLOT(lane)];
            if (apo__macd_prepare(apo__in_at(s->x), it.begin, it.end, fast, slow, signal, warmup,
                                  &r, 0, apo__out_at(s->out[0]), apo__out_at(s->out[1]),
                                  apo__out_at(s->out[2]), m)) {
                if (e != NULL) {
                    /* Seeds done by `begin`: the outputs from `begin` on are steady steps. */
                    e->steady = m->t <= it.begin;
                    e->ran = 1;
                }
                ran[APO_LANE_SLOT(lane)] = 1;
                s->lo = m->t;
                s->from = m->t;
                m->macd = apo__stage_out(w, 0, lane);
                m->signal_line = apo__stage_out(w, 1, lane);
                m->hist = apo__stage_out(w, 2, lane);
            } else {
                /* The seeds reached the tile's end: every output is written. */
                apo__stage_stream_none(s);
            }
        }
    }
    APO_WARP_SYNC();
    APO_STAGE_PASS(w, lane, a, b, 3, {
        (void)a;
        const apo__in x = apo__stage_in(w, lane);
        const size_t begin = w->stream[lane].out_from;
        apo__macd_state *m = &st[APO_LANE_SLOT(lane)];
        /* The rings again, derived here from the shared memory: the state's copies held the
         * global rows apo__macd_prepare wrote through before the warp replaced them, so to
         * nvcc they could be either and the step's stores through them were generic. */
        const apo__out macd = apo__stage_out(w, 0, lane);
        const apo__out signal_line = apo__stage_out(w, 1, lane);
        const apo__out hist = apo__stage_out(w, 2, lane);
        /* The warm-up's steps, then the outputs' (two loops: the second, nearly every step of
         * a tile, tests nothing but its end). */
        while (m->t < b && m->t < begin) {
            apo__macd_warm_step(x, &r, m);
        }
        if (edges != NULL && m->t == begin) {
            /* A steady piece's states at its first output (again, the same, where the warm-up
             * ended at a segment's end). */
            double *head = edges[group * APO_STAGE_LANES + lane].head;
            head[0] = m->ef;
            head[1] = m->es;
            head[2] = m->eg;
        }
        while (m->t < b) {
            apo__macd_step_to(x, &r, m, macd, signal_line, hist);
        }
    });
    if (edges != NULL) {
        APO_FOR_LANES(lane) {
            if (ran[APO_LANE_SLOT(lane)]) {
                const apo__macd_state *m = &st[APO_LANE_SLOT(lane)];
                double *tail = edges[group * APO_STAGE_LANES + lane].tail;
                tail[0] = m->ef;
                tail[1] = m->es;
                tail[2] = m->eg;
            }
        }
    }
}

/*
 * Tile item k of view v after its pieces ran (apo__macd_staged_warp with edges, up to `most` a
 * tile, edges[k most + j] piece j's): the tile's outputs mended where a piece's states were not
 * the whole tile's (apo__macd_mend), or the whole tile computed serially where its first piece
 * did not reach a steady end. counts, where not NULL, gets the tile's pieces and those computed
 * again at counts[2 k] and [2 k + 1].
 */
static inline APO_HD void apo__macd_mend_item(const apo__cuda_view *v, size_t tiles, size_t k,
                                              size_t fast, size_t slow, size_t signal,
                                              size_t warmup, size_t most,
                                              const apo__macd_edges *edges, size_t *counts) {
    const apo__chunk_item it = apo__chunk_item_of(v, tiles, k);
    const size_t pieces = apo__macd_cut_pieces(&it, warmup, most);
    size_t again = 0;
    if (pieces >= 2) {
        apo__macd_rates r;
        apo__macd_setup(&fast, &slow, signal, &r);
        const size_t o = it.row * v->out_cols;
        const apo__in x = apo__in_at(v->x + it.row * v->cols);
        const apo__out macd = apo__out_at(v->out[0] + o);
        const apo__out signal_line = apo__out_at(v->out[1] + o);
        const apo__out hist = apo__out_at(v->out[2] + o);
        int whole;
        again = apo__macd_mend(x, it.begin, it.end, warmup, pieces, edges + k * most, &r, macd,
                               signal_line, hist, &whole);
        if (whole) {
            apo__macd_tile_at(x, it.begin, it.end, fast, slow, signal, warmup, &r, macd,
                              signal_line, hist);
        }
    }
    if (counts != NULL) {
        counts[2 * k] = pieces;
        counts[2 * k + 1] = again;
    }
}

/* returns_stats: lookback 1 (the previous sample), no staged output; two passes over the
 * stream, then each lane stores its tile's partial. */
static inline APO_HD void apo__returns_stats_staged_warp(const apo__stage_warp *w,
                                                         const apo__cuda_view *v, size_t tiles,
                                                         size_t group) {
    apo__returns_acc acc[APO_LANE_STATES];
    double m2[APO_LANE_STATES];
    APO_FOR_LANES(lane) {
        apo__chunk_item it;
        apo__returns_acc_init(&acc[APO_LANE_SLOT(lane)]);
        m2[APO_LANE_SLOT(lane)] = 0.0;
        if (apo__stage_item(w, v, tiles, group, lane, &it)) {
            apo__stage_stream *s = &w->stream[lane];
            /* Returns from max(begin, 1), each reading the sample before it. */
            s->from = it.begin > 1 ? it.begin : 1;
            s->lo = s->from - 1;
        }
    }
    APO_WARP_SYNC();
    APO_STAGE_PASS(w, lane, a, b, 0, {
        apo__returns_stats_pass1(apo__stage_in(w, lane), a, b, &acc[APO_LANE_SLOT(lane)]);
    });
    APO_STAGE_PASS(w, lane, a, b, 0, {
        const apo__returns_acc *ac = &acc[APO_LANE_SLOT(lane)];
        if (ac->count > 0) {
            apo__returns_stats_pass2(apo__stage_in(w, lane), a, b, apo__returns_stats_mean(ac),
                                     &m2[APO_LANE_SLOT(lane)]);
        }
    });
    APO_FOR_LANES(lane) {
        const size_t i = group * APO_STAGE_LANES + lane;
        if (i < v->rows * tiles) {
            apo__moments m;
            apo__returns_stats_store(&acc[APO_LANE_SLOT(lane)], m2[APO_LANE_SLOT(lane)], &m);
            apo__store_partial(v->partials + i * APO_PARTIAL_DOUBLES, &m);
        }
    }
    APO_WARP_SYNC();
}

/* Doubles of shared memory per bootstrap warp: two rounds of 64 draws. */
#define APO_BOOTSTRAP_WARP_DOUBLES (4 * APO_STAGE_LANES)

/*
 * bootstrap: replicate `item` of the view with tile 1 (one (row, replicate) per item). Round
 * by round, lane l draws the pair q0 + l (draws 2 (q0 + l) and 2 (q0 + l) + 1) into the
 * round's half of buf, and lane 0 adds the round's draws in draw order, while the lanes
 * draw the next round into the other half.
 */
static inline APO_HD void apo__bootstrap_staged_warp(double *buf, const apo__cuda_view *v,
                                                     size_t replicates, uint64_t seed,
                                                     size_t item) {
    const apo__chunk_item it = apo__chunk_item_of(v, replicates, item);
    const double *x = v->x + it.row * v->cols;
    const uint64_t m = (uint64_t)(v->cols - 1);
    const uint64_t pairs = (m + 1) / 2;
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    double sum = 0.0; /* lane 0's */
    for (uint64_t q0 = 0; q0 < pairs; q0 += APO_STAGE_LANES) {
        double *half = buf + ((q0 / APO_STAGE_LANES) % 2) * 2 * APO_STAGE_LANES;
        APO_FOR_LANES(lane) {
            const uint64_t q = q0 + lane;
            if (q < pairs) {
                apo__bootstrap_pair(x, m, key, (uint32_t)it.begin, (uint32_t)it.row, 2 * q,
                                    &half[2 * lane], &half[2 * lane + 1]);
            }
        }
        APO_WARP_SYNC();
        APO_FOR_LANES(lane) {
            if (lane == 0) {
                const uint64_t left = m - 2 * q0;
                const uint64_t draws = left < 2 * APO_STAGE_LANES ? left : 2 * APO_STAGE_LANES;
                for (uint64_t d = 0; d < draws; ++d) {
                    sum += half[d];
                }
            }
        }
    }
    APO_FOR_LANES(lane) {
        if (lane == 0) {
            v->out[0][it.row * v->out_cols + it.begin] = apo__bootstrap_mean(sum, m);
        }
    }
    /* The next replicate reuses buf. */
    APO_WARP_SYNC();
}

#endif /* APO_STAGED_KERNELS_H */

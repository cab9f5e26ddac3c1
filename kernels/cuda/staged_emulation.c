/*
 * staged_emulation.c: the host emulation of the staged CUDA kernels (staged_emulation.h).
 *
 * What: the launchers of kernels/cuda/staged.cu, with each kernel launch replaced by a loop over
 * the warps' groups that calls the same warp function (staged_kernels.h) with the lanes run
 * in turn (stage.h). The decisions (staged or simple, the ring geometry, the item mapping)
 * are the launchers' own functions.
 *
 * Determinism: the warp functions are the GPU's source; the emulation changes only who
 * runs the lanes, and the host copies a segment before the one before it is computed,
 * which is at least as strict as the GPU's overlap (stage.h).
 */
#define APO_STAGED_ACCESS 1

#include "staged_emulation.h"

#include <stddef.h>

#define APO_STAGE_NOTE_PASS(uniform) apo__emulate_note_pass(uniform)

#include <stdlib.h>

#include "kernels.h"
#include "staged_kernels.h"

/* The passes of each path (stage.h) since the last apo__emulate_passes: [0] general, [1] fast.
 * The tests read them to know that their shapes ran both. */
static size_t emulated_passes[2];

void apo__emulate_note_pass(int uniform) { ++emulated_passes[uniform ? 1 : 0]; }

void apo__emulate_passes(size_t *general, size_t *fast) {
    *general = emulated_passes[0];
    *fast = emulated_passes[1];
    emulated_passes[0] = 0;
    emulated_passes[1] = 0;
}

static int view_ok(const apo__cuda_view *v) { return v != NULL && v->tile != 0 && v->x != NULL; }

/* A view with nothing to compute, which the launchers return from at once. */
static int view_empty(const apo__cuda_view *v) { return v->rows == 0 || v->begin >= v->end; }

/* Runs `warp` over every group of 32 items of v with a block of `bytes` as shared memory. */
#define EMULATE_GROUPS(v, tiles, geom, CALL)                                                       \
    do {                                                                                           \
        void *block_ = malloc(apo__stage_bytes(geom));                                             \
        if (block_ == NULL) {                                                                      \
            return -1;                                                                             \
        }                                                                                          \
        apo__stage_warp w_;                                                                        \
        apo__stage_warp_init(&w_, block_, (geom));                                                 \
        const size_t groups_ = ((v)->rows * (tiles) + APO_STAGE_LANES - 1) / APO_STAGE_LANES;      \
        for (size_t g_ = 0; g_ < groups_; ++g_) {                                                  \
            CALL;                                                                                  \
        }                                                                                          \
        free(block_);                                                                              \
    } while (0)

int apo__emulate_bollinger(const apo__cuda_view *v, size_t period, double nbdev_up,
                           double nbdev_dn) {
    if (!view_ok(v) || period < 1 || v->out[0] == NULL || v->out[1] == NULL || v->out[2] == NULL) {
        return -1;
    }
    if (view_empty(v)) {
        return APO_EMULATED_STAGED;
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__stage_geom g;
    if (!apo__stage_geom_init(&g, period, 3)) {
        for (size_t i = 0; i < v->rows * tiles; ++i) {
            const apo__chunk_item it = apo__chunk_item_of(v, tiles, i);
            const size_t o = it.row * v->out_cols;
            apo__bollinger_tile(apo__in_at(v->x + it.row * v->cols), it.begin, it.end, period,
                                nbdev_up, nbdev_dn, apo__out_at(v->out[0] + o),
                                apo__out_at(v->out[1] + o), apo__out_at(v->out[2] + o));
        }
        return APO_EMULATED_SIMPLE;
    }
    EMULATE_GROUPS(v, tiles, &g,
                   apo__bollinger_staged_warp(&w_, v, tiles, g_, period, nbdev_up, nbdev_dn));
    return APO_EMULATED_STAGED;
}

int apo__emulate_macd(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal) {
    if (!view_ok(v) || fast < 1 || slow < 1 || signal < 1 || v->out[0] == NULL ||
        v->out[1] == NULL || v->out[2] == NULL) {
        return -1;
    }
    if (view_empty(v)) {
        return APO_EMULATED_STAGED;
    }
    /* The host's warm-up, as the launcher computes it. */
    const size_t warmup = apo__macd_warmup(fast, slow, signal);
    const size_t tiles = apo__chunk_tiles(v);
    apo__stage_geom g;
    apo__stage_geom_init(&g, 0, 3);
    EMULATE_GROUPS(v, tiles, &g,
                   apo__macd_staged_warp(&w_, v, tiles, g_, fast, slow, signal, warmup, 1, NULL));
    return APO_EMULATED_STAGED;
}

int apo__emulate_macd_cut(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal,
                          size_t most, size_t *pieces) {
    pieces[0] = pieces[1] = 0;
    if (!view_ok(v) || fast < 1 || slow < 1 || signal < 1 || v->out[0] == NULL ||
        v->out[1] == NULL || v->out[2] == NULL || most < 1) {
        return -1;
    }
    const size_t warmup = apo__macd_warmup(fast, slow, signal);
    if (view_empty(v)) {
        return APO_EMULATED_STAGED;
    }
    const size_t tiles = apo__chunk_tiles(v), items = v->rows * tiles;
    apo__chunk_item longest;
    longest.begin = 0;
    longest.end = apo__chunk_longest_tile(v);
    if (apo__macd_cut_pieces(&longest, warmup, most) < 2) {
        return apo__emulate_macd(v, fast, slow, signal);
    }
    apo__stage_geom g;
    apo__stage_geom_init(&g, 0, 3);
    apo__macd_edges *edges = malloc(items * most * sizeof *edges);
    size_t *counts = malloc(2 * items * sizeof *counts);
    void *block = malloc(apo__stage_bytes(&g));
    if (edges == NULL || counts == NULL || block == NULL) {
        free(edges);
        free(counts);
        free(block);
        return -1;
    }
    apo__stage_warp w;
    apo__stage_warp_init(&w, block, &g);
    const size_t groups = (items * most + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t grp = 0; grp < groups; ++grp) {
        apo__macd_staged_warp(&w, v, tiles, grp, fast, slow, signal, warmup, most, edges);
    }
    for (size_t k = 0; k < items; ++k) {
        apo__macd_mend_item(v, tiles, k, fast, slow, signal, warmup, most, edges, counts);
        pieces[0] += counts[2 * k];
        pieces[1] += counts[2 * k + 1];
    }
    free(edges);
    free(counts);
    free(block);
    return APO_EMULATED_CUT;
}

int apo__emulate_returns_stats(const apo__cuda_view *v) {
    if (!view_ok(v) || v->partials == NULL) {
        return -1;
    }
    if (view_empty(v)) {
        return APO_EMULATED_STAGED;
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__stage_geom g;
    apo__stage_geom_init(&g, 1, 0);
    EMULATE_GROUPS(v, tiles, &g, apo__returns_stats_staged_warp(&w_, v, tiles, g_));
    return APO_EMULATED_STAGED;
}

int apo__emulate_bootstrap(const apo__cuda_view *v, uint64_t seed) {
    if (!view_ok(v) || v->cols < 2 || v->out[0] == NULL || v->partials == NULL) {
        return -1;
    }
    if (view_empty(v)) {
        return APO_EMULATED_STAGED;
    }
    double buf[APO_BOOTSTRAP_WARP_DOUBLES];
    apo__cuda_view per_replicate = *v;
    per_replicate.tile = 1;
    const size_t replicates = v->end - v->begin;
    for (size_t i = 0; i < v->rows * replicates; ++i) {
        apo__bootstrap_staged_warp(buf, &per_replicate, replicates, seed, i);
    }
    /* The tile moments: one thread per tile of the view, as in the simple kernel. */
    const size_t tiles = apo__chunk_tiles(v);
    for (size_t i = 0; i < v->rows * tiles; ++i) {
        const apo__chunk_item it = apo__chunk_item_of(v, tiles, i);
        apo__moments m;
        apo__bootstrap_tile_moments(v->out[0] + it.row * v->out_cols, it.begin, it.end, &m);
        apo__store_partial(v->partials + i * APO_PARTIAL_DOUBLES, &m);
    }
    return APO_EMULATED_STAGED;
}

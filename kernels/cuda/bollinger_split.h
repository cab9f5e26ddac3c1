/*
 * bollinger_split.h: bollinger's staged kernel split between two warps
 * (APPORTION_CUDA_KERNELS=split, kernels/cuda/bollinger_split.cu), as APO_HD code that its host
 * emulation (kernels/cuda/bollinger_split_emulation.c) runs too.
 *
 * What: a block of two warps owns the tiles of 32 consecutive work items, as one warp of the
 * staged kernel does (stage.h). The *chain* warp stages the samples and runs each lane's
 * sliding chain (apo__bollinger_advance) segment by segment, but stores each window's mean and
 * variance, not its bands, into a window ring of two segments per lane in shared memory. The
 * *finish* warp takes segment k - 1 from there while the chain computes segment k: the square
 * roots and the bands (apo__bollinger_bands), stored to global memory 16 consecutive doubles per
 * tile and output, as the staged kernel's stores are. The step of the chain then holds no square
 * root: on sm_90, ptxas puts `sqrt.rn.f64`'s slow path behind a branch that ends a basic block,
 * which a single warp pays for in every step (docs/cuda.md, "The staged kernels' steps").
 *
 * Phases: both warps run one loop of segs + 1 trips, each ending at a block barrier (the same
 * __syncthreads for every thread, so no barrier sits in code one warp skips); in trip k the
 * chain copies segment k + ahead (stage.h: 1, or 2 up to a period of 16) and computes segment
 * k, the finish warp finishes segment k - 1. A segment's windows are read only after the
 * barrier that follows their writing, and a slot is written again two segments later, after
 * the barrier that follows their reading. On the host the two roles of a trip run in turn, the
 * chain first: a window ring of one segment would lose the segment the finish has not read,
 * and the emulation's bits would show it.
 *
 * Shared memory of a block (apo__bollinger_split_bytes): the staged kernel's streams and input
 * rings (a geometry without output rings), then the window rings [2][32][33] (means, then
 * variances; 32 slots a lane and an odd row length, so that 32 lanes writing one position and
 * a tile's 16 positions fall on distinct banks). Up to a lookback of 32 (a ring of 64) that is
 * 35,584 bytes, under the 48 KiB that needs no opt-in; longer periods run the one-warp staged
 * kernel.
 *
 * Determinism: the chain performs the operations of apo__bollinger_advance in its order and
 * stores the values apo__bollinger_bands takes (the mean, the variance); the finish applies
 * apo__bollinger_bands to them, or writes a constant window's value as APO_BOLLINGER_PUT_FLAT
 * does, or the NaN bands of an undefined window (NaN variance: NaN bands, its middle kept). So
 * every output has the CPU's bits (tests/kernels/cuda/test_cuda_staging.c, tests/simt).
 *
 * Include this header before bollinger_tile.h, in a unit of its own: it defines the tile
 * body's stores.
 */
#ifndef APO_BOLLINGER_SPLIT_H
#define APO_BOLLINGER_SPLIT_H

#ifdef APO_BOLLINGER_TILE_H
#error "bollinger_split.h sets the tile body's stores: include it before bollinger_tile.h"
#endif

/* The tile body's stores: the pass's (bollinger_pass_stores.h), with each window's variance in
 * "upper" (or APO_BOLLINGER_PASS_FLAT for a constant window, NaN for an undefined one) and its
 * mean in "middle" (the constant, the undefined window's middle); "lower" is never written. */
#define APO_BOLLINGER_PASS_VARIANCE 1
#include "bollinger_pass_stores.h"

#include "bollinger_stage.h"
#include "stage.h"

/* Which warp of the pair runs a phase. On the GPU the thread's own; on the host (the
 * emulation, one thread) both, in turn, the chain's first; a barrier is then the end of a
 * trip. */
#define APO_SPLIT_CHAIN 0u
#define APO_SPLIT_FINISH 1u
#define APO_SPLIT_THREADS (2u * APO_STAGE_LANES)
#if defined(__CUDA_ARCH__)
#define APO_SPLIT_ROLE(role) if (threadIdx.x / APO_STAGE_LANES == (role))
#define APO_SPLIT_SYNC() __syncthreads()
#else
#define APO_SPLIT_ROLE(role) if ((void)(role), 1)
#define APO_SPLIT_SYNC() ((void)0)
#endif

/* A lane's window ring: two segments of means, then of variances (slot = position mod 32). */
#define APO_SPLIT_WINDOW_SLOTS (2u * APO_STAGE_SEG)
#define APO_SPLIT_WINDOW_STRIDE (APO_SPLIT_WINDOW_SLOTS + 1u)

/* The geometry of the pair for `period` (no output rings: the windows replace them); 0 when
 * the block would need more than 48 KiB, or the ring more than the staged kernel allows. */
static inline APO_HD size_t apo__bollinger_split_bytes(const apo__stage_geom *g) {
    return apo__stage_bytes(g) + 2 * APO_STAGE_LANES * APO_SPLIT_WINDOW_STRIDE * sizeof(double);
}

static inline APO_HD int apo__bollinger_split_geom(apo__stage_geom *g, size_t period) {
    return apo__stage_geom_init(g, period, 0) && apo__bollinger_split_bytes(g) <= 48u * 1024u;
}

/* The windows of lane i: what = 0 its means, 1 its variances. They follow the input rings,
 * where a geometry without outputs puts w->out. */
static inline APO_HD double *apo__bollinger_split_window(const apo__stage_warp *w, unsigned what,
                                                         unsigned i) {
    return w->out + (what * APO_STAGE_LANES + i) * APO_SPLIT_WINDOW_STRIDE;
}

/* The outputs of position pos of lane i's tile from its windows, into its three rows. */
static inline APO_HD void apo__bollinger_split_put(const apo__stage_warp *w, unsigned i, size_t pos,
                                                   double *upper_row, double *middle_row,
                                                   double *lower_row, double nbdev_up,
                                                   double nbdev_dn) {
    const size_t slot = pos & (APO_SPLIT_WINDOW_SLOTS - 1);
    const double mean = apo__bollinger_split_window(w, 0, i)[slot];
    const double var = apo__bollinger_split_window(w, 1, i)[slot];
    double upper = mean, middle = mean, lower = mean;
    if (var != APO_BOLLINGER_PASS_FLAT) {
        apo__bollinger_bands(mean, var, nbdev_up, nbdev_dn, &upper, &middle, &lower);
    }
    apo__stage_store(upper_row, pos, upper);
    apo__stage_store(middle_row, pos, middle);
    apo__stage_store(lower_row, pos, lower);
}

/*
 * The finish of segment k: each thread, half a warp per tile, takes a position of the
 * segment from the tile's windows and stores its three outputs where the staged kernel's
 * stores would (stage.h's APO_STAGE_EACH_STORE, from the span in a uniform pass).
 */
static inline APO_HD void apo__bollinger_split_finish(const apo__stage_warp *w,
                                                      const apo__stage_span *sp, size_t k,
                                                      double nbdev_up, double nbdev_dn) {
    APO_FOR_LANES(thr) {
        if (sp->uniform) {
            APO_STAGE_EACH_STORE_UNIFORM(sp, k, thr, i, pos, rows, {
                apo__bollinger_split_put(w, i, pos, rows[0], rows[1], rows[2], nbdev_up, nbdev_dn);
            });
        } else {
            APO_STAGE_EACH_STORE(w, k, thr, i, pos, rows, {
                apo__bollinger_split_put(w, i, pos, rows[0], rows[1], rows[2], nbdev_up, nbdev_dn);
            })
        }
    }
}

/* The pair's group of 32 work items: the chain sets the streams, then the loop of the header's
 * comment. */
static inline APO_HD void apo__bollinger_split_pair(const apo__stage_warp *w,
                                                    const apo__cuda_view *v, size_t tiles,
                                                    size_t group, size_t period, double nbdev_up,
                                                    double nbdev_dn) {
    apo__bollinger_cursor cur[APO_LANE_STATES];
    APO_SPLIT_ROLE(APO_SPLIT_CHAIN) {
        apo__bollinger_stage_streams(w, v, tiles, group, period, cur);
    }
    APO_SPLIT_SYNC();
    apo__stage_span sp;
    apo__stage_span_of(w, &sp);
    APO_SPLIT_ROLE(APO_SPLIT_CHAIN) {
        APO_STAGE_NOTE_PASS(sp.uniform);
        apo__stage_prime(w, &sp);
    }
    APO_SPLIT_SYNC();
    for (size_t k = 0; k <= sp.segs; ++k) {
        APO_SPLIT_ROLE(APO_SPLIT_CHAIN) {
            if (k < sp.segs) {
                apo__stage_load_ahead(w, &sp, k);
                APO_FOR_LANES(lane) {
                    size_t a, b;
                    if (sp.uniform) {
                        apo__stage_span_segment(&sp, lane, k, &a, &b);
                    } else if (!apo__stage_segment(&w->stream[lane], k, &a, &b)) {
                        continue;
                    }
                    (void)a;
                    const apo__out var = apo__out_ring(apo__bollinger_split_window(w, 1, lane),
                                                       APO_SPLIT_WINDOW_SLOTS - 1);
                    const apo__out mean = apo__out_ring(apo__bollinger_split_window(w, 0, lane),
                                                        APO_SPLIT_WINDOW_SLOTS - 1);
                    apo__bollinger_advance(apo__stage_in(w, lane), b, period, nbdev_up, nbdev_dn,
                                           &cur[APO_LANE_SLOT(lane)], var, mean, var);
                }
                APO_STAGE_WAIT(w->g.ahead - 1);
            }
        }
        APO_SPLIT_ROLE(APO_SPLIT_FINISH) {
            if (k > 0) {
                apo__bollinger_split_finish(w, &sp, k - 1, nbdev_up, nbdev_dn);
            }
        }
        APO_SPLIT_SYNC();
    }
}

#endif /* APO_BOLLINGER_SPLIT_H */

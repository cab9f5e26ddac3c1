/*
 * staged_emulation.h: the staged CUDA kernels (kernels/cuda/staged.cu) run on the host, for the
 * unit tests (tests/kernels/cuda/test_cuda_staging.c), in every build, with or without CUDA.
 *
 * What: each function computes a chunk view (kernels_cuda.h) as its launcher does,
 * deciding as the launcher decides whether the staged kernel applies (a lookback that fits
 * the ring, stage.h) and otherwise running what the simple kernel runs (the tile body on
 * global memory, one item at a time). The staged path runs the warp functions of
 * staged_kernels.h, whose lanes and phases stage.h runs in turn on the host, on a heap
 * block laid out as a warp's shared memory.
 *
 * Returns APO_EMULATED_STAGED, APO_EMULATED_SIMPLE, APO_EMULATED_SPLIT or APO_EMULATED_CUT (what
 * ran), or -1 for an
 * argument the launcher would refuse or memory that could not be had.
 */
#ifndef APO_STAGED_EMULATION_H
#define APO_STAGED_EMULATION_H

#include <stddef.h>
#include <stdint.h>

#include "kernels_cuda.h"

#define APO_EMULATED_STAGED 1
#define APO_EMULATED_SIMPLE 2
#define APO_EMULATED_SPLIT 3
#define APO_EMULATED_CUT 4

int apo__emulate_bollinger(const apo__cuda_view *v, size_t period, double nbdev_up,
                           double nbdev_dn);
/* bollinger as the launcher runs it with pairs of warps (bollinger_split_emulation.c): the
 * pair where it applies (APO_EMULATED_SPLIT), else what apo__emulate_bollinger runs. */
int apo__emulate_bollinger_split(const apo__cuda_view *v, size_t period, double nbdev_up,
                                 double nbdev_dn);
int apo__emulate_macd(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal);
/* macd as its cut launch runs it (staged.cu, apo__cuda_macd_cut), with up to `most` pieces a
 * tile (the launch derives it from the thread budget; a test picks it): APO_EMULATED_CUT where
 * the cut pays, else what apo__emulate_macd runs. pieces[0] gets the pieces run, pieces[1] those
 * run again. */
int apo__emulate_macd_cut(const apo__cuda_view *v, size_t fast, size_t slow, size_t signal,
                          size_t most, size_t *pieces);
int apo__emulate_returns_stats(const apo__cuda_view *v);
int apo__emulate_bootstrap(const apo__cuda_view *v, uint64_t seed);

/* The warp passes (APO_STAGE_PASS, stage.h, and the pairs' passes) that took the general path
 * and the fast path (a warp of 32 full tiles of one row) since the last call; resets both. Not
 * thread-safe: for the single-threaded tests. apo__emulate_note_pass counts one (the emulated
 * warp code's APO_STAGE_NOTE_PASS). */
void apo__emulate_passes(size_t *general, size_t *fast);
void apo__emulate_note_pass(int uniform);

#endif /* APO_STAGED_EMULATION_H */

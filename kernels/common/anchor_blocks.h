/*
 * anchor_blocks.h: how the anchored catalog kernels' CUDA launch (catalog_launch.h) deals the
 * blocks between anchors of a chunk view (kernels_cuda.h) to its threads.
 *
 * What: a kernel whose body restarts at every multiple of a spacing A (sma's and wma's anchors,
 * var's, correl's and beta's blocks, the linearreg family's anchors: averages_anchors.h,
 * statistics_anchors.h) computes each block between two anchors independently of the others.
 * The tiles of the view (cuda_chunk.h) are cut at the multiples of A: a tile's first block
 * starts at the tile's start, the others at anchors, the last ends at the tile's end. Work item
 * i is slot i % slots of the view's tile i / slots, slots = apo__anchor_slots(tile, A) a tile,
 * so the lanes of a warp hold consecutive blocks of a row. A slot past its tile's last block is
 * empty (begin == end): only where the tile length is not a multiple of A, one a tile.
 *
 * Determinism: an item's bounds depend only on the view, A and i, and no two items share a
 * position, so the grid and the schedule change no bit; the body run on a block writes the
 * tile's bits there (tests/kernels/common/test_catalog_anchored.c). Plain APO_HD code, so a
 * host test drives it exactly as the GPU does.
 */
#ifndef APO_KERNELS_ANCHOR_BLOCKS_H
#define APO_KERNELS_ANCHOR_BLOCKS_H

#include "cuda_chunk.h"

/* The slots a tile of length `tile` takes with anchors `spacing` apart (spacing > 0): its
 * blocks when its starts are multiples of the spacing (tile a multiple of it), else the most a
 * tile may hold: its start's block and one for each anchor inside it. */
static inline APO_HD size_t apo__anchor_slots(size_t tile, size_t spacing) {
    return tile % spacing == 0 ? tile / spacing : 1 + (tile + spacing - 1) / spacing;
}

/* Work item i (i < v->rows * tiles * slots, tiles = apo__chunk_tiles(v), slots =
 * apo__anchor_slots(v->tile, spacing)): a block of global row `row`, empty when begin == end. */
static inline APO_HD apo__chunk_item apo__anchor_block_of(const apo__cuda_view *v, size_t tiles,
                                                          size_t slots, size_t spacing, size_t i) {
    const apo__chunk_item tile = apo__chunk_item_of(v, tiles, i / slots);
    const size_t slot = i % slots;
    apo__chunk_item it = tile;
    if (slot > 0) {
        const size_t anchor = (tile.begin / spacing + slot) * spacing;
        it.begin = anchor < tile.end ? anchor : tile.end;
    }
    const size_t next = (it.begin / spacing + 1) * spacing;
    it.end = next < tile.end ? next : tile.end;
    return it;
}

#endif /* APO_KERNELS_ANCHOR_BLOCKS_H */

/*
 * lone_tile_cut.h: how a lone tile of a recurrence is cut into pieces that run side by side,
 * and how a piece's run is checked against the run before it: shared by macd's split on the
 * CPU (apo__cpu_macd_split_tile, dispatch/lanes_dispatch.c), the Wilder recurrences' and EMA
 * chains' on the CPU (dispatch/catalog_split.h) and on a GPU (kernels/cuda/cut.cu). APO_HD.
 *
 * Why: a lone tile is one serial chain, paced by the latency of its step, while the lanes
 * of the CPU's path, or the threads of a GPU, idle. Each piece after the first starts from its
 * own warm-up of h samples, so its states at its cut are almost always the whole tile's to the
 * bit; the caller checks that they are (apo__cat_runs_alike) and computes a piece again serially
 * from the piece before's where not, so the outputs are the scalar tile's whatever the data
 * (docs/kernels-vector-paths.md, "A lone macd tile in lanes", "A lone Wilder tile in lanes";
 * docs/cuda.md, "Lone tiles cut into pieces").
 */
#ifndef APO_KERNELS_LONE_TILE_CUT_H
#define APO_KERNELS_LONE_TILE_CUT_H

#include <stddef.h>

#include "apo_hd.h"
#include "catalog.h"
#include "tile_span.h"

/* The fewest outputs of a piece: every piece must have some (a recurrence with no warm-up
 * would otherwise cut a tile of 2 bars), and a cut of a shorter tile saves less than the
 * round's setup. */
#define APO_CUT_MIN_PIECE 64

/* The most pieces of the CPU's cuts: the lanes of the widest path. */
#define APO_CUT_MAX_PIECES 8

/* Whether cutting a tile of len samples with warm-up h into `pieces` pays: each piece has at
 * least APO_CUT_MIN_PIECE outputs, and a piece's steps (its warm-up h and len / pieces outputs,
 * each step paced like a serial one) are at most `quarters` / 4 of the serial tile's len. */
static inline APO_HD int apo__cut_pays(size_t len, size_t h, size_t pieces, size_t quarters) {
    return pieces >= 2 && len >= APO_CUT_MIN_PIECE * pieces &&
           h + len / pieces <= len / 4 * quarters;
}

/* The `quarters` of the cuts below, the same on a CPU and a GPU: macd cuts at half, measured
 * when its cut was built; the catalog's recurrences with a warm-up at three quarters, where the
 * Wilder recurrences' pieces measured 0.58 of the serial time at 0.59 of its steps
 * (docs/PERF.md). */
#define APO_MACD_CUT_QUARTERS 2
#define APO_CATALOG_CUT_QUARTERS 3

/* The pieces a lone tile is cut into on a CPU path of `lanes` lanes: all of them, or 1 (no
 * cut). */
static inline APO_HD size_t apo__cut_pieces(size_t len, size_t h, size_t lanes, size_t quarters) {
    return lanes <= APO_CUT_MAX_PIECES && apo__cut_pays(len, h, lanes, quarters) ? lanes : 1;
}

/* The pieces a GPU cuts a tile into when `most` may run at once: the largest power of two up
 * to `most` whose cut pays (quarters as the CPU's), or 1. A GPU's threads are not lanes of one
 * step, so any count will do; halving keeps every warp's pieces of the same few tiles. */
static inline APO_HD size_t apo__cut_pieces_most(size_t len, size_t h, size_t most,
                                                 size_t quarters) {
    size_t pieces = 1;
    while (pieces * 2 <= most)
        pieces *= 2;
    for (; pieces >= 2; pieces /= 2)
        if (apo__cut_pays(len, h, pieces, quarters))
            return pieces;
    return 1;
}

/* The most pieces a GPU's cut launch gives each of `tiles` tiles (kernels/cuda/cut.cu, macd's
 * in kernels/cuda/staged.cu): a power of two up to 32 while the launch stays within 65,536
 * (tile, piece) items. An H100's 132 SMs hold 270,336 threads; a quarter of that keeps every SM
 * busy with chains of a few hundred steps, and beyond 32 a tile of five warm-ups runs more
 * warm-up than outputs (apo__cut_pays refuses such cuts anyway). */
static inline APO_HD size_t apo__cut_gpu_most(size_t tiles) {
    size_t most = 1;
    while (most < 32 && tiles * most * 2 <= 65536)
        most *= 2;
    return most;
}

/* Piece j of the cut of [begin, end) into `pieces`, of row 0. Every piece but the first runs a
 * whole warm-up before its outputs, the first only what lies before `begin` (none at a row's
 * start): the first gets that much more of the outputs, so that all pieces run about the same
 * number of steps. One piece is the whole tile. */
static inline APO_HD apo__tile_span apo__cut_span(size_t begin, size_t end, size_t h, size_t pieces,
                                                  size_t j) {
    apo__tile_span s;
    s.row = 0;
    s.begin = begin;
    s.end = end;
    if (pieces < 2)
        return s;
    const size_t len = end - begin;
    const size_t h0 = begin < h ? begin : h;
    const size_t first = (len + h0 + (pieces - 1) * h) / pieces - h0;
    const size_t rest = len - first;
    s.begin = j == 0 ? begin : begin + first + rest * (j - 1) / (pieces - 1);
    s.end = begin + first + rest * j / (pieces - 1);
    return s;
}

/* spans[0 .. pieces): every piece of the cut (apo__cut_span). */
static inline APO_HD void apo__cut_spans(size_t begin, size_t end, size_t h, size_t pieces,
                                         apo__tile_span *spans) {
    for (size_t j = 0; j < pieces; j++)
        spans[j] = apo__cut_span(begin, end, h, pieces, j);
}

/* Whether the doubles a[0 .. n) and b[0 .. n) are the same bits (a NaN's payload and a zero's
 * sign included, as memcmp tells them; memcmp is not in a GPU's device code). */
static inline APO_HD int apo__cut_same_bits(const double *a, const double *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (apo__bits_of(a[i]) != apo__bits_of(b[i]))
            return 0;
    return 1;
}

/* Whether two runs of kernel id continue alike: the same position and values to the bit, and
 * counts alike once capped at p + 1. A count is only compared with p and p + 1 (the seeds'
 * <, == and <= tests, catalog.h); plus_di's, minus_di's and adx's grow with every bar, so the
 * whole tile's and a piece's differ by the bars before the piece's warm-up. atr's, natr's,
 * rma's and zlema's seed sum (v[0]) is read only while seeding (APO__WILDER_STEP, apo__rma_run,
 * apo__zlema_run), and so are dema's and tema's stages' (v[0 .. 2], apo__ema_chain_run): once
 * both runs are seeded (the last stage, and so every stage, for the chains) they are sums of
 * different bars and are not compared (efi's seed sum becomes its average in the same slot,
 * which is compared). t3's counts are its filling stage and that stage's values (t3_tile.h), never
 * past 6 and p, and tsi's its two seeds' values and whether its first bar is past (tsi_tile.h),
 * never past its two periods: compared as they are, since a cap at p + 1 would take t3's stage 3
 * for stage 6 at p = 2, and tsi's second seed's counts alike past firstperiod + 1. The kernels that
 * only a GPU cuts (APO_CAT_T_GPU_CUT: trix) are compared whole, every value and count as it
 * is: the same run, so the same future, whatever their counts mean. */
static inline APO_HD int apo__cat_runs_alike(apo__cat_id id, const apo__cat_run *a,
                                             const apo__cat_run *b, size_t p) {
    const int chain = id == APO_CAT_DEMA || id == APO_CAT_TEMA;
    const int last_stage = id == APO_CAT_TEMA ? 2 : chain ? 1 : 0;
    const int seeded = a->n[last_stage] >= p && b->n[last_stage] >= p;
    size_t from = 0;
    if (seeded && chain)
        from = 3;
    else if (seeded &&
             (id == APO_CAT_ATR || id == APO_CAT_NATR || id == APO_CAT_RMA || id == APO_CAT_ZLEMA))
        from = 1;
    const size_t values = sizeof a->v / sizeof a->v[0];
    if (a->t != b->t || !apo__cut_same_bits(a->v + from, b->v + from, values - from))
        return 0;
    const int whole = id == APO_CAT_T3 || id == APO_CAT_TSI || !apo__catalog_cuts(id);
    const size_t cap = whole ? (size_t)-1 : p + 1;
    for (int c = 0; c < 4; c++) {
        const size_t na = a->n[c] < cap ? a->n[c] : cap;
        const size_t nb = b->n[c] < cap ? b->n[c] : cap;
        if (na != nb)
            return 0;
    }
    return 1;
}

#endif /* APO_KERNELS_LONE_TILE_CUT_H */

/*
 * catalog.h: the indicator catalog's kernels (docs/kernels.md, "The catalog"), one
 * interface for all of them, on the ground floor: the ids and families that the table
 * (catalog_table.h) generates, the tile bodies' types, and the queries that follow from a
 * row alone. What needs libm or a family's blocks (halos, tile lengths) and the CPU's tile
 * calls are the host side's, which dispatch/ defines and declares (catalog_dispatch.h), so
 * nothing here calls up the house. The window bodies get this header through window.h.
 *
 * What: every catalog kernel is identified by an apo__cat_id and computes one tile
 * [begin, end) of one row from the row pointers of its inputs into the row pointers of its
 * outputs (apo__cat_io, absolute indices as in kernels.h). Its arithmetic is one APO_HD
 * static inline body in kernels/<room>/<name>_tile.h, which the CPU (apo__cpu_catalog_tile)
 * and the CUDA launcher of its family (kernels/<room>/<room>.cu) both call.
 *
 * Tile shape: the tile length and the halo (the samples before `begin` a tile reads: the
 * window, or the warm-up of a recurrence) follow the parameters only
 * (apo__catalog_tile_len, apo__catalog_halo), so the result is a pure function of the tile
 * grid. The halo of a recurrence needs libm's log; the host computes it (catalog_dispatch.h)
 * and passes it to the bodies in the field h of apo__cat_io, so the CPU and the GPU re-read
 * the same samples.
 *
 * Whole-row kernels (apo__catalog_whole_row: obv, ad) are running sums from the row's first
 * sample: their tiles read the row from index 0 whatever `begin` is (their halo is 0 and
 * unused), and the runtime hands them whole input rows (apo__cuda_impl.whole_row_input).
 * Since a tile's bits do not depend on its `begin`, the CPU computes a run of consecutive
 * tiles of one row by one call over their union (runtime/catalog/catalog_kernels.c).
 *
 * Determinism: the bodies use IEEE +, -, *, /, sqrt, fabs and isfinite only, in a fixed
 * order, without FMA contraction on either compiler (apo_hd.h), and write NaN outputs as
 * the NAN constant.
 */
#ifndef APO_KERNELS_CATALOG_H
#define APO_KERNELS_CATALOG_H

#include <stddef.h>

#include "apo_hd.h"
#include "catalog_table.h"
#include "force_inline.h"
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APO_CAT_MAX_IN 5
/* Four outputs: Heikin-Ashi's candle (ha). Buffers of outputs in the launchers, the scored
 * passes and the tests are sized by it; the public descriptors (APO_MAX_IO) hold more. */
#define APO_CAT_MAX_OUT 4
#define APO_CAT_MAX_PAR 8

/* The catalog kernels, in the order of the table's rows (catalog_table.h), which is the
 * order of the runtime's descriptors. */
typedef enum apo__cat_id {
#define APO__CAT_ID(ID, ...) APO_CAT_##ID,
    APO_CATALOG(APO__CAT_ID)
#undef APO__CAT_ID
        APO_CAT_COUNT
} apo__cat_id;

/* The families, one room and one CUDA launcher each (APO_CATALOG_ROOMS). Each is also named
 * by its room, APO__CAT_FAMILY_<room>, for the table's rows. */
typedef enum apo__cat_family {
#define APO__CAT_FAMILY(room, ID) APO_CAT_##ID, APO__CAT_FAMILY_##room = APO_CAT_##ID,
    APO_CATALOG_ROOMS(APO__CAT_FAMILY)
#undef APO__CAT_FAMILY
} apo__cat_family;

/* One row of one call: inputs and outputs at absolute indices (index t of the row is
 * in[i][t]), the parameters in the kernel's order, the halo h from apo__catalog_halo, and the
 * tile length of the grid the call's tiles are cut from (apo__catalog_tile_len), or 0 when
 * the call is one tile: a body that runs the tiles of a call over several side by side (ema)
 * reads the grid from it. */
typedef struct apo__cat_io {
    const double *in[APO_CAT_MAX_IN];
    double *out[APO_CAT_MAX_OUT];
    double p[APO_CAT_MAX_PAR];
    size_t h;
    size_t tile;
} apo__cat_io;

/*
 * Where a body stands between two calls (streams, runtime/streaming): the next position its
 * loop computes and its running values (ema: the seed's sum and the average; dema and
 * tema: those of each stage; rsi and cmo: the average gain and loss; atr and natr: the
 * seed's sum and the average; kama: its carries at its last segment's start; adosc: the A/D line
 * and its two averages; plus_di, minus_di and adx: the bars and DX seen, the three
 * smoothed sums and ADX; mom, roc, trange: the position alone; stoch and stochf: the last fastk
 * and slowk values their next means read, while they fit (stoch_stream.h), or at another matype
 * kdj's; kdj: its two averages where both are recurrences (kdj_stream.h); rma, zlema and efi:
 * the seed's sum and the average; cvi: its EMA and the copy r bars behind; rvi: its two legs;
 * kc: its EMA and ATR; ha: whether seeded, the last haopen and haclose; apo, ppo and pvo at two
 * EMAs: both (apo_stream.h); ma: its kind's (ma_stream.h); fosc: tsf's, a bar behind; the
 * sliding windows, sma, wma, max, min, willr, aroon, cci, var, stddev, zscore, linearreg,
 * linearreg_slope, mvwap and mfi: the last gap, whether the running sums or extremes'
 * indices are the last window's, and those sums or indices). Such a body is a start (the tile's
 * warm-up origin, or its first window's gaps) and a run to a position; a tile is one start and one
 * run, so a tile run in pieces, each piece going on from the state the last one left, performs the
 * same operations as the tile run whole (max, min, willr and aroon: gives the same outputs, their
 * extremes tracked or, on the CPU, by blocks of doubling; window_extreme.h).
 */
typedef struct apo__cat_run {
    size_t t;    /* the next position the loop computes */
    size_t n[4]; /* counts: how many samples each seed has seen; a window's last gap, validity
                  * and extremes' indices */
    double v[6]; /* running values: seeds' sums and averages; a window's double-double sums */
} apo__cat_run;

/* Whether a stream's piece of run r that stops at `end` is its one bar t = r->t, at or past
 * its tile's `begin` (so it writes its output) and at or past bar `first` (a step that reads
 * bar t - 1 takes 1): the pieces a kernel's stream lanes take side by side
 * (catalog_dispatch.h, apo__cpu_catalog_resume_lanes), each kernel adding its seeds' test. */
static inline int apo__cat_one_bar_piece(const apo__cat_run *r, size_t begin, size_t end,
                                         size_t first) {
    return end == r->t + 1 && r->t >= begin && r->t >= first;
}

/* For a body that takes its kernel as a constant argument (which output, rsi or cmo) and
 * whose loop is long: always inlined into its callers, so each copy is specialised. Left a
 * call, gcc keeps one copy that tests the constant per bar and computes every kernel's
 * divisions. */
#ifdef __CUDACC__
#define APO_CAT_SPECIALISED inline
#else
#define APO_CAT_SPECIALISED APO_FORCE_INLINE /* plain inline under a sanitizer */
#endif

/* A run from position t with every count and value 0: empty seeds. */
static inline APO_HD void apo__cat_run_from(apo__cat_run *r, size_t t) {
    r->t = t;
    for (int i = 0; i < 4; i++)
        r->n[i] = 0;
    for (int i = 0; i < 6; i++)
        r->v[i] = 0.0;
}

/* The warm-up origin of the tile at `begin`, w0 = max(0, begin - h): where a recurrence's tile
 * starts its definition again (catalog_dispatch.c, the halo rules). */
static inline APO_HD size_t apo__cat_origin(const apo__cat_io *io, size_t begin) {
    return begin > io->h ? begin - io->h : 0;
}

/* A recurrence's start whose state is all counts and values 0: its run at the warm-up origin,
 * reading nothing (so a stream can take it ahead, APO_CAT_T_AHEAD). */
static inline APO_HD void apo__cat_run_from_origin(const apo__cat_io *io, size_t begin,
                                                   apo__cat_run *r) {
    apo__cat_run_from(r, apo__cat_origin(io, begin));
}

/* Whether a call over [begin, end) holds more than one tile of the grid io->tile (0: the call
 * is one tile, as a GPU thread's): the bodies that then run the tiles side by side (ema, eri)
 * test it. */
static inline APO_HD int apo__cat_spans_tiles(const apo__cat_io *io, size_t begin, size_t end) {
    return io->tile != 0 && end - begin > io->tile - begin % io->tile;
}

/* The end of the grid's tile that holds `at`, cut at the call's `end`: where such a body's
 * lane for that tile stops. */
static inline APO_HD size_t apo__cat_grid_end(const apo__cat_io *io, size_t at, size_t end) {
    const size_t next = (at / io->tile + 1) * io->tile;
    return next < end ? next : end;
}

/* The NaN lead of a tile: writes NaN to out at begin .. end - 1 below `first`, the bars before
 * the kernel's first full window, and returns the first bar left (end where none is). */
static inline APO_HD size_t apo__cat_nan_lead(double *out, size_t begin, size_t end, size_t first) {
    size_t t = begin;
    for (; t < end && t < first; t++)
        out[t] = NAN;
    return t;
}

/* TA-Lib's typical price of bar t, (high + low + close) / 3 in that order (in[0], in[1], in[2]):
 * cci's, mfi's, vwap's and the money flow's (volume/flow.h). */
static inline APO_HD double apo__typical(const apo__cat_io *io, size_t t) {
    return (io->in[0][t] + io->in[1][t] + io->in[2][t]) / 3.0;
}

/* The doubles from p to the next 64-byte line (0 when p starts one; at most 7): the outputs a
 * vector loop takes one by one before its own, so that none of its stores straddles two lines
 * (elementwise.h, mom_tile.h, trange_tile.h). Where the split falls changes no bit. */
static inline APO_HD size_t apo__doubles_to_line(const double *p) {
    return (size_t)((64 - ((uintptr_t)p & 63)) & 63) / sizeof(double);
}

/* The start of a recurrence over bar-to-bar changes (rsi, cmo, atr, natr): the warm-up's
 * origin w0 = max(0, begin - h) has no change before it, so its output is NaN when the tile
 * starts there, and the loop runs from w0 + 1 with empty seeds. The output through an accessor
 * (apo_hd.h): a GPU's scored kernel writes rsi's and cmo's with a stride (scored.cu). */
static inline APO_HD void apo__cat_run_start_changes_to(const apo__cat_io *io, size_t begin,
                                                        apo__cat_run *r, apo__out out) {
    const size_t w0 = apo__cat_origin(io, begin);
    if (begin == w0)
        APO_OUT(out, begin) = NAN;
    apo__cat_run_from(r, w0 + 1);
}

/* apo__cat_run_start_changes_to into the call's first output. */
static inline APO_HD void apo__cat_run_start_changes(const apo__cat_io *io, size_t begin,
                                                     apo__cat_run *r) {
    apo__cat_run_start_changes_to(io, begin, r, apo__out_at(io->out[0]));
}

/* Tile length of a whole-row kernel: long, because each tile re-reads the row before it
 * (docs/kernels/volume_statistics.md, "Cumulative indicators"). */
#define APO_CAT_WHOLE_ROW_TILE ((size_t)65536)

/* The traits of a kernel (APO_CAT_T_*, catalog_table.h). */
static inline APO_HD int apo__catalog_traits(apo__cat_id id) {
    switch (id) {
#define APO__CAT_TRAITS(ID, name, room, inputs, outputs, params, lookback, halo, stream, traits,   \
                        rule)                                                                      \
    case APO_CAT_##ID:                                                                             \
        return traits;
        APO_CATALOG(APO__CAT_TRAITS)
#undef APO__CAT_TRAITS
    default:
        return 0;
    }
}

/* The family of a kernel. */
static inline APO_HD apo__cat_family apo__catalog_family(apo__cat_id id) {
    switch (id) {
#define APO__CAT_FAMILY_OF(ID, name, room, ...)                                                    \
    case APO_CAT_##ID:                                                                             \
        return APO__CAT_FAMILY_##room;
        APO_CATALOG(APO__CAT_FAMILY_OF)
#undef APO__CAT_FAMILY_OF
    default:
        return APO_CAT_AVERAGES;
    }
}

/* 1 for a kernel whose tiles read their row from its first sample (obv, ad), 0 otherwise. */
static inline APO_HD int apo__catalog_whole_row(apo__cat_id id) {
    return (apo__catalog_traits(id) & APO_CAT_T_WHOLE_ROW) != 0;
}

/*
 * 1 for a kernel whose outputs do not depend on where its tile begins: output t is a function
 * of the inputs at fixed offsets from t (the bar, the bars before it, its own windows) and the
 * parameters, evaluated the same wherever the call starts, so its tile body run over any
 * sub-range [b, e) of a tile writes the whole tile's bits there and nothing outside it. The
 * table says so in one place, the stream column: POSITION is this fact (a stream resumes such a
 * kernel by running its body over the new positions alone, catalog_table.h), and the CUDA
 * launch rests on it too, many threads a tile, each on one position (catalog_launch.h).
 * tests/kernels/common/test_catalog_pointwise.c checks it for every such kernel.
 */
#define APO__CAT_POSITION_INDEPENDENT_RUN 0
#define APO__CAT_POSITION_INDEPENDENT_POSITION 1
#define APO__CAT_POSITION_INDEPENDENT_PAIR 0
#define APO__CAT_POSITION_INDEPENDENT_CARRY 0
#define APO__CAT_POSITION_INDEPENDENT_NONE 0
#define APO__CAT_POSITION_INDEPENDENT_OWN 0
static inline APO_HD int apo__catalog_position_independent(apo__cat_id id) {
    switch (id) {
#define APO__CAT_POSITION_INDEPENDENT(ID, name, room, inputs, outputs, params, lookback, halo,     \
                                      stream, ...)                                                 \
    case APO_CAT_##ID:                                                                             \
        return APO__CAT_POSITION_INDEPENDENT_##stream;
        APO_CATALOG(APO__CAT_POSITION_INDEPENDENT)
#undef APO__CAT_POSITION_INDEPENDENT
    default:
        return 0;
    }
}

/*
 * 1 for a position-independent kernel that a GPU runs a thread per position
 * (catalog_launch.h), 0 for one it runs a thread per tile. mom, the rocs and stochf are
 * position-independent too, but on an H100 they ran slower a thread per position (mom 2.94
 * to 4.48 ms at 1e8, the rocs 2.85-3.01 to 3.47-3.53, stochf 28.1 to 68.7: the oscillators
 * family's kernel spills to a 19 KB stack frame, which a thread per position pays at every
 * position, and stochf evaluates its three windows afresh at each;
 * docs/perf-log/2026-11-26-h100-third-run.md), so they keep the per-tile launch. Either gives
 * the CPU's bits: this is speed only. (stochf is position-independent at fastd_matype 0 only: at
 * another its tiles are kdj's recurrences, oscillators/stoch_ma.h.)
 */
static inline APO_HD int apo__catalog_gpu_per_position(apo__cat_id id) {
    switch (id) {
    case APO_CAT_MOM:
    case APO_CAT_ROC:
    case APO_CAT_ROCP:
    case APO_CAT_ROCR:
    case APO_CAT_ROCR100:
    case APO_CAT_STOCHF:
        return 0;
    default:
        return apo__catalog_position_independent(id);
    }
}

/* 1 for a kernel whose consecutive tiles of one row can be computed by one
 * apo__cpu_catalog_tile call over their union, with each tile's bits (APO_CAT_T_JOIN). */
static inline APO_HD int apo__catalog_tiles_join(apo__cat_id id) {
    return (apo__catalog_traits(id) & APO_CAT_T_JOIN) != 0;
}

/* 1 for the running sums (obv, ad), whose resumed run carries from the series' first bar
 * across every tile: their state (a few doubles, apo__catalog_resume_size bytes) is the
 * run's at some bar, never a tile's start, and apo__cpu_catalog_resume takes `begin` as
 * that bar (the piece's first) and ignores `fresh`. A whole-row tile is the same run from
 * bar 0, so a piece gives the bits of any tile holding it. */
static inline APO_HD int apo__catalog_carries(apo__cat_id id) { return apo__catalog_whole_row(id); }

/* 1 for the Wilder recurrences (rsi, cmo, atr, natr, plus_di, minus_di, adx): their tiles of
 * a row run as rounds of lanes at short tiles, and a lone one may be cut
 * (dispatch/catalog_split.h). */
static inline APO_HD int apo__catalog_wilder(apo__cat_id id) {
    return (apo__catalog_traits(id) & APO_CAT_T_WILDER) != 0;
}

/* 1 for a recurrence whose lone tile may be cut into pieces whose runs are checked at the cuts
 * (APO_CAT_T_CUT: the Wilder recurrences, dx, the DMs, rma, zlema, efi and the EMA chains but
 * trix; on the CPU dispatch/catalog_split.h, on a GPU cuda/cut.cu for those whose stream is
 * RUN). */
static inline APO_HD int apo__catalog_cuts(apo__cat_id id) {
    return (apo__catalog_traits(id) & APO_CAT_T_CUT) != 0;
}

/* 1 for a recurrence whose tiles a GPU cuts into pieces (cuda/cut.cu, for those whose stream is
 * RUN): the CPU's (APO_CAT_T_CUT) and trix, which the CPU runs its own way (APO_CAT_T_GPU_CUT). */
static inline APO_HD int apo__catalog_gpu_cuts(apo__cat_id id) {
    return (apo__catalog_traits(id) & (APO_CAT_T_CUT | APO_CAT_T_GPU_CUT)) != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CATALOG_H */

/*
 * catalog.h: the indicator catalog's kernels (docs/kernels.md, "The catalog"), one
 * interface for all of them.
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
 * grid. The halo of a recurrence needs libm's log; it is computed here, on the host, and
 * passed to the bodies in the field h of apo__cat_io, so the CPU and the GPU re-read the
 * same samples.
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
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APO_CAT_MAX_IN 5
#define APO_CAT_MAX_OUT 3
#define APO_CAT_MAX_PAR 8

/* The catalog kernels, grouped by family (room). The order is the order of the runtime's
 * descriptors (runtime/catalog/catalog_kernels.c). */
typedef enum apo__cat_id {
    /* kernels/averages */
    APO_CAT_SMA,
    APO_CAT_EMA,
    APO_CAT_WMA,
    APO_CAT_DEMA,
    APO_CAT_TEMA,
    /* kernels/oscillators */
    APO_CAT_MOM,
    APO_CAT_ROC,
    APO_CAT_RSI,
    APO_CAT_CMO,
    APO_CAT_WILLR,
    APO_CAT_CCI,
    APO_CAT_STOCHF,
    APO_CAT_STOCH,
    /* kernels/statistics */
    APO_CAT_STDDEV,
    APO_CAT_VAR,
    APO_CAT_MAX,
    APO_CAT_MIN,
    APO_CAT_LINEARREG,
    APO_CAT_LINEARREG_SLOPE,
    APO_CAT_CORREL,
    APO_CAT_BETA,
    /* kernels/trend */
    APO_CAT_TRANGE,
    APO_CAT_ATR,
    APO_CAT_NATR,
    APO_CAT_AROON,
    /* catalog2: kernels/statistics */
    APO_CAT_ZSCORE,
    /* catalog2: kernels/trend */
    APO_CAT_PLUS_DI,
    APO_CAT_MINUS_DI,
    APO_CAT_ADX,
    /* catalog2: kernels/volume */
    APO_CAT_MFI,
    APO_CAT_VWAP,
    /* catalog2: kernels/averages */
    APO_CAT_KAMA,
    /* catalog2: kernels/volume */
    APO_CAT_ADOSC,
    /* catalog3: kernels/volume, the whole-row running sums */
    APO_CAT_OBV,
    APO_CAT_AD,
    APO_CAT_COUNT
} apo__cat_id;

/* The families, one CUDA launcher each. */
typedef enum apo__cat_family {
    APO_CAT_AVERAGES,
    APO_CAT_OSCILLATORS,
    APO_CAT_STATISTICS,
    APO_CAT_TREND,
    APO_CAT_VOLUME
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
 * smoothed sums and ADX; mom, roc, trange, stoch and stochf: the position alone; the
 * sliding windows, sma, wma, max, min, willr, aroon, cci, var, stddev, zscore, linearreg,
 * linearreg_slope, vwap and mfi: the last gap, whether the running sums or extremes'
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

/* For a body that takes its kernel as a constant argument (which output, rsi or cmo) and
 * whose loop is long: always inlined into its callers, so each copy is specialised. Left a
 * call, gcc keeps one copy that tests the constant per bar and computes every kernel's
 * divisions. */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define APO_CAT_SPECIALISED inline __attribute__((always_inline))
#else
#define APO_CAT_SPECIALISED inline
#endif

/* A run from position t with every count and value 0: empty seeds. */
static inline APO_HD void apo__cat_run_from(apo__cat_run *r, size_t t) {
    r->t = t;
    for (int i = 0; i < 4; i++)
        r->n[i] = 0;
    for (int i = 0; i < 6; i++)
        r->v[i] = 0.0;
}

/* The start of a recurrence over bar-to-bar changes (rsi, cmo, atr, natr): the warm-up's
 * origin w0 = max(0, begin - h) has no change before it, so its output is NaN when the tile
 * starts there, and the loop runs from w0 + 1 with empty seeds. */
static inline APO_HD void apo__cat_run_start_changes(const apo__cat_io *io, size_t begin,
                                                     apo__cat_run *r) {
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    if (begin == w0)
        io->out[0][begin] = NAN;
    apo__cat_run_from(r, w0 + 1);
}

/* The family of a kernel. */
apo__cat_family apo__catalog_family(apo__cat_id id);

/* TA-Lib's lookback: the number of leading positions whose outputs are NaN on a series
 * without gaps. */
size_t apo__catalog_lookback(apo__cat_id id, const double *params);

/* Samples before a tile's `begin` that the tile reads: the lookback for a window, the
 * lookback plus the decay steps for a recurrence (docs/kernels.md). */
size_t apo__catalog_halo(apo__cat_id id, const double *params);

/* 1 for a kernel whose tiles read their row from its first sample (obv, ad), 0 otherwise. */
int apo__catalog_whole_row(apo__cat_id id);

/* 1 for a kernel whose consecutive tiles of one row can be computed by one
 * apo__cpu_catalog_tile call over their union, with each tile's bits: those whose output at
 * t is the same whatever tile holds t (the whole-row sums obv and ad, and the kernels that
 * evaluate each position from the samples of its own windows: mom, roc, trange, stochf,
 * stoch; no state crosses positions), and ema, whose body cuts the union at the grid
 * (apo__cat_io.tile) and runs each tile from its own start. */
int apo__catalog_tiles_join(apo__cat_id id);

/* Tile length of a whole-row kernel: long, because each tile re-reads the row before it
 * (docs/kernels.md, "Cumulative indicators"). */
#define APO_CAT_WHOLE_ROW_TILE ((size_t)65536)

/* Tile length: APO_CAT_WHOLE_ROW_TILE for a whole-row kernel, max(4096, 4 * (halo + 1)) for
 * ema (whose tiles run side by side, ema_tile.h), else max(4096, 16 * (halo + 1)). */
size_t apo__catalog_tile_len(apo__cat_id id, const double *params);

/* Bytes of the state a stream keeps to resume kernel id's tile (apo__cpu_catalog_resume),
 * 0 for a kernel that cannot resume (a stream re-runs its tile from the start). */
size_t apo__catalog_resume_size(apo__cat_id id);

/* 1 for the running sums (obv, ad), whose resumed run carries from the series' first bar
 * across every tile: their state (a few doubles, apo__catalog_resume_size bytes) is the
 * run's at some bar, never a tile's start, and apo__cpu_catalog_resume takes `begin` as
 * that bar (the piece's first) and ignores `fresh`. A whole-row tile is the same run from
 * bar 0, so a piece gives the bits of any tile holding it. */
int apo__catalog_carries(apo__cat_id id);

/* Kernel id's tile [begin, ...) of one row fed piece by piece: with `fresh` the state starts
 * the tile, else it goes on from the last call's stop; positions up to stop - 1 get the
 * bits apo__cpu_catalog_tile gives them. Only for kernels whose resume size is not 0; for
 * those that carry (apo__catalog_carries), see there. */
void apo__cpu_catalog_resume(apo__cat_id id, const apo__cat_io *io, void *state, int fresh,
                             size_t begin, size_t stop);

/* Computes positions [begin, end) of one row. io->h must be apo__catalog_halo(id, io->p);
 * requires begin < end and every input row at least `end` samples long. */
void apo__cpu_catalog_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end);

/* apo__cpu_catalog_tile compiled for vector path `isa` (an apo__cpu_isa the CPU supports;
 * one the build lacks falls back to sse2): the same bits on every path, faster where a
 * body's loop vectorizes (kernels/dispatch/catalog_entry.h). */
void apo__cpu_catalog_tile_on(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end,
                              int isa);

/* apo__cpu_catalog_tile_on for consecutive tiles of one row (io), each tile with the bits of
 * its own call: the recurrences rsi, cmo, atr, natr, plus_di, minus_di and adx compute them
 * side by side in the path's vector lanes (catalog_lanes.h), adosc in a round of lanes
 * (adosc_lanes.h) or two at a time (adosc_pairs.h), the others one by one. */
void apo__cpu_catalog_tiles_on(apo__cat_id id, const apo__cat_io *io, const apo__tile_span *tiles,
                               size_t count, int isa);

/* The lone tile [begin, end) of rsi, cmo, atr, natr, plus_di, minus_di or adx on path `isa`
 * as apo__cpu_catalog_tiles_on computes it: cut into pieces in the path's lanes where that
 * pays, each piece checked against the one before (kernels/dispatch/catalog_split.h). Returns
 * the pieces computed again serially, or (size_t)-1 when the tile was not cut; for tests. */
size_t apo__cpu_catalog_cut_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end,
                                 int isa);

/* The path kernel id runs fastest on, given the widest this CPU has (`widest`, an
 * apo__cpu_isa it supports) and which measured AVX-512 CPU it is (`avx512_kind`, an
 * apo__avx512_kind of cpu_isa.h): `widest`, or avx2 for the kernels measured slower on 8 lanes
 * than on 4 on that CPU (docs/kernels-vector-paths.md, "Vector paths"). Every path gives the same
 * bits, so the choice sets the speed alone. */
int apo__catalog_path_on(apo__cat_id id, int widest, int avx512_kind);

/* apo__catalog_path_on on this CPU. */
int apo__catalog_path(apo__cat_id id, int widest);

/* Steps after which an exponential average of rate k (0 < k <= 1) forgets its seed to
 * below 2^-64 of the data scale: ceil(64 ln 2 / -ln(1 - k)); 0 for k = 1. */
size_t apo__decay_steps(double k);

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CATALOG_H */

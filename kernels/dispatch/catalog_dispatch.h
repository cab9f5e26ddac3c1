/*
 * catalog_dispatch.h: the catalog's host side, which catalog_dispatch.c defines above every
 * family: the halos and tile lengths (a recurrence's halo needs libm's log and the blocks of
 * the statistics room), the CPU's tile calls on each vector path, the streams' resume and the
 * path each kernel runs fastest on. The types and what follows from the table alone (ids,
 * families, lookbacks, traits) are the ground floor's, common/catalog.h.
 *
 * For the runtime, the tests and the rooms of kernels/ above the families (dispatch/ and
 * cuda/); no family's file includes it.
 */
#ifndef APO_KERNELS_CATALOG_DISPATCH_H
#define APO_KERNELS_CATALOG_DISPATCH_H

#include <stddef.h>

#include "catalog.h"
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TA-Lib's lookback: the number of leading positions whose outputs are NaN on a series
 * without gaps (the table's lookback column). A kernel without parameters reads none
 * (params[0] is unset). */
size_t apo__catalog_lookback(apo__cat_id id, const double *params);

/* Samples before a tile's `begin` that the tile reads: the lookback for a window, the
 * lookback plus the decay steps for a recurrence (docs/kernels.md). */
size_t apo__catalog_halo(apo__cat_id id, const double *params);

/* 1 where kernel id's tiles read their row from its first sample at these parameters: a
 * whole-row kernel (apo__catalog_whole_row), and ma and bbands at matype 7 (MAMA,
 * averages/ma_type.h's apo__ma_whole_row), whose other matypes keep their halos. The runtime
 * hands such a call whole rows (runtime/catalog/call_span.c), as it does a whole-row kernel. */
int apo__catalog_whole_row_at(apo__cat_id id, const double *params);

/* Tile length: APO_CAT_WHOLE_ROW_TILE where the tiles read whole rows
 * (apo__catalog_whole_row_at), max(4096, 4 * (halo + 1)) for ema (whose tiles run side by
 * side, ema_tile.h), else max(4096, 16 * (halo + 1)). */
size_t apo__catalog_tile_len(apo__cat_id id, const double *params);

/* Bytes of the state a stream keeps to resume kernel id's tile (apo__cpu_catalog_resume),
 * 0 for a kernel that cannot resume (a stream re-runs its tile from the start). */
size_t apo__catalog_resume_size(apo__cat_id id);

/* The bytes at the start of that state which a piece within a tile reads (kernel.h,
 * resume_hot_size): all of it but for the RUN and POSITION kernels, whose run ahead for the
 * next tile comes last. */
size_t apo__catalog_resume_hot_size(apo__cat_id id);

/* Kernel id's tile [begin, ...) of one row fed piece by piece: with `fresh` the state starts
 * the tile, else it goes on from the last call's stop; positions up to stop - 1 get the
 * bits apo__cpu_catalog_tile gives them. Only for kernels whose resume size is not 0; for
 * those that carry (apo__catalog_carries), see there. */
void apo__cpu_catalog_resume(apo__cat_id id, const apo__cat_io *io, void *state, int fresh,
                             size_t begin, size_t stop);

/* The most series apo__cpu_catalog_resume_lanes takes at once. */
#define APO_CAT_RESUME_LANES 8

/* apo__cpu_catalog_resume(id, &io[l], states[l], 0, begins[l], stops[l]) for each of n series
 * of one stream (n <= APO_CAT_RESUME_LANES; each piece going on within its tile), the same
 * bits; the kernels whose one-bar piece is a long chain, a few short vectors or a step that
 * costs less than its call (stoch_stream_lanes.h, rsi_stream_lanes.h, cci_stream_lanes.h,
 * mfi_stream_lanes.h, atr_stream_lanes.h, dmi_stream_lanes.h, ema_stream_lanes.h) take their
 * series' pieces side by side in the vectors of path `isa` (cpu_isa.h), which the CPU has. */
void apo__cpu_catalog_resume_lanes(apo__cat_id id, const apo__cat_io *io, void *const *states,
                                   const size_t *begins, const size_t *stops, size_t n, int isa);

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
 * side by side in the path's vector lanes (catalog_lanes.h), as do the others of
 * apo__catalog_laned (catalog_paths.h: rma, zlema, efi, the EMA chains...), adosc in a round of
 * lanes (adosc_lanes.h) or two at a time (adosc_pairs.h), cvi and massi in rounds of their own
 * (cvi_tile.h, massi_tile.h), bbands at matype 0 in bollinger's rounds (its tile body
 * is bollinger's: lanes_dispatch.c), a lone macdfix tile in macd's cut (lanes_dispatch.c), the
 * others one by one. */
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

/* The path for rows of `tiles` tiles of kernel id, given the kernel's path `isa`
 * (apo__catalog_path) and the CPU's `avx512_kind`: avx2 where `isa` is avx512, the CPU an Intel
 * one or a Zen 4, the kernel's tiles of a row run as rounds of lanes (or a lone one is cut into
 * them) and a row holds at most APO_CAT_NARROW_ROUND tiles, since its round then keeps four
 * lanes busy at most, and an 8-lane step there cost 2 to 3 times a 4-lane one on Intel (atr at
 * 1e4 bars, four tiles) and about twice on Zen 4, whose 512-bit operations run in halves (massi:
 * docs/kernels-vector-paths.md, "Vector paths"); else `isa`. The same bits either way. */
#define APO_CAT_NARROW_ROUND 4
int apo__catalog_round_path_on(apo__cat_id id, size_t tiles, int isa, int avx512_kind);

/* apo__catalog_round_path_on on this CPU. */
int apo__catalog_round_path(apo__cat_id id, size_t tiles, int isa);

/* Steps after which an exponential average of rate k (0 < k <= 1) forgets its seed to
 * below 2^-64 of the data scale: ceil(64 ln 2 / -ln(1 - k)); 0 for k = 1. */
size_t apo__decay_steps(double k);

/* The warm-up an average of TA-Lib's matype at period p needs beyond its lookback
 * (averages/ma_type.h): 0 for the windows, a matype it does not compute and a period of 1;
 * D(2/(p+1)) per EMA stage and one more for a chain; KAMA's slowest rate's. */
size_t apo__ma_warmup(int matype, double p);

/* The halo of that average: its lookback (apo__ma_lookback) and its warm-up. */
size_t apo__ma_halo(int matype, double p);

/* 1 when an average of that matype at period p can be taken over a series a tile computes
 * itself (averages/ma_series.h: every matype at period 1, else SMA, EMA, WMA, DEMA, TEMA, T3);
 * the runtime refuses the others for macdext's signal line. */
int apo__ma_series_takes(int matype, double p);
/* 1 when kdj's body takes an average of this matype and period (kdj_tile.h). */
int apo__kdj_takes_ma(int matype, double p);

/* The longest fastk_period stochrsi takes (its ring of RSI values, stochrsi_tile.h). */
size_t apo__stochrsi_fastk_max(void);

/* The scalar run of a body that is a start and a run (apo__cat_run), from r to `end`, writing
 * from `begin` on: a stream's resumed piece takes it, and so does a piece of a cut lone tile
 * computed again (catalog_split.h). */
void apo__catalog_run_to(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end,
                         apo__cat_run *r);

#ifdef __cplusplus
}
#endif

#endif /* APO_KERNELS_CATALOG_DISPATCH_H */

/*
 * A stream (apportion.h, "Streams"; docs/streaming.md): per series, the input bars that the
 * tile being filled still needs, and the arithmetic that turns new bars into outputs equal
 * bit for bit to one batch call over the whole history.
 *
 * The batch outputs are a pure function of the tile grid: tile j of a series covers
 * positions [j L, (j + 1) L) (L the kernel's tile length), restarts the kernel's state at
 * its start and reads inputs from j L - halo on. So a series needs only the bars from
 * (current tile's start - halo) on: at most halo + L per input, whatever the history's
 * length. An update re-runs the kernel's own tile function over the current tile up to the
 * last new bar, on views that keep absolute positions, and copies out the new positions.
 * A kernel that can resume a tile (apo__kernel.resume_tile: bollinger, macd) keeps its
 * running state per series between updates instead, so an update costs its new bars, not
 * the tile's head; the state is a cache, never saved: a loaded stream, or a series whose
 * kernel could not go on, starts its tile again once.
 *
 * The running sums obv and ad read whole rows, but their run carries across tiles
 * (apo__kernel.resume_carries): their state is the run's at the series' last bar, a few
 * doubles. It is not a cache: no bar is kept to rebuild it from, so it is saved with the
 * stream, never reset, and such series never go to the devices.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_H
#define APO_RUNTIME_STREAMING_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"
#include "streaming/stream_layout.h"
#include "streaming/stream_windows.h"

/* Fails (APO_ERR_INVALID_ARGUMENT, naming the kernel and why) unless the kernel's outputs
 * are per bar over halo-bounded windows: the reductions and whole-row kernels are refused. */
apo_status apo__stream_check_kernel(const apo__kernel *k, const double *params);

/* Doubles of the run a series of kernel k carries across tiles (kernel.h, resume_carries),
 * which its saved state holds; 0 for a kernel whose state is a cache of its kept bars. */
size_t apo__stream_carry_len(const apo__kernel *k);

/* A stream of n_series empty series that keeps `revise` bars more (n_series and revise
 * checked by the caller). */
apo_status apo__stream_new(const apo__kernel *k, const double *params, size_t n_series,
                           uint64_t seed, size_t revise, apo_stream **out);

/* The stream of a sweep's sets, taking `sets` (n_sets streams of one set each, of the same
 * kernel and series count), which it frees with itself, also on failure. */
apo_status apo__stream_sweep_of(apo_stream **sets, size_t n_sets, apo_stream **out);

/* Frees n_sets streams (NULL ones too) and the array holding them (NULL is fine). */
void apo__stream_free_sets(apo_stream **sets, size_t n_sets);

/* Records that series r took m new bars whose outputs were computed elsewhere (the batch
 * hook): `row[i]` holds input i's bars from position `first` (at most the series' kept base)
 * to the series' bars + m; the series keeps its window of them and starts its next tile
 * afresh. */
void apo__stream_advance(apo_stream *s, size_t r, size_t m, const double *const *row,
                         uint64_t first);

/* Every allocation an update of a stream of one set needs, made before any series moves, so
 * that a failure leaves every series where it was. */
apo_status apo__stream_reserve_set(apo_stream *s, const size_t *n_new);

/* Feeds every series of a stream of one set, its room reserved (apo__stream_reserve_set):
 * with on_devices, a large update's series through the batch hook first. On a failure some
 * series may have moved: stream_journal.h puts them back. */
apo_status apo__stream_feed_set(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                double *const *outputs, int on_devices);

/* Feeds series [from, to) of a stream of one set on the calling thread, their room reserved,
 * series `from`'s bars at offset `at` of the packed arrays: a group's block of symbols
 * (stream_group.c). The batch hook is not called: for updates it would hand nothing. */
apo_status apo__stream_feed_range(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                  double *const *outputs, size_t from, size_t to, size_t at);

/* Room for a re-run of up to `bars` positions of one tile (apo__stream_rerun), made before
 * any series moves. */
apo_status apo__stream_reserve_rerun(apo_stream *s, size_t bars);

/* Computes again the outputs of series r at positions [from, n) from its kept bars (from at
 * least n - revise, or the current tile's start, so that the kept bars cover every tile it
 * meets), each tile from its start as the batch does, and writes them to outputs[o] + at.
 * The series' running state is dropped: its next update starts its tile afresh. Fails only
 * where a user kernel does (APO_ERR_KERNEL_FAILED), changing no kept bar. */
apo_status apo__stream_rerun(apo_stream *s, size_t r, uint64_t from, double *const *outputs,
                             size_t at);

void apo__stream_free(apo_stream *s);

#endif

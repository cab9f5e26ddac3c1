/*
 * What the stream tests share: inputs shaped for each kernel's input names (bars whose high
 * is above their low, positive volumes) with gaps of NaN bars where asked, the batch call
 * the streamed outputs must equal, a user kernel whose tiles restart a recurrence, and the
 * feeding of a stream by a plan of per-series counts.
 */
#ifndef APO_TEST_STREAM_FIXTURES_H
#define APO_TEST_STREAM_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

/* A kernel's inputs and its batch outputs over rows x cols, row-major. */
typedef struct stream_case {
    const char *kernel;
    apo_param params[APO_MAX_PARAMS];
    size_t n_params;
    size_t rows, cols;
    size_t n_inputs, n_outputs;
    size_t tile; /* the kernel's tile length at these parameters */
    double *in[APO_MAX_IO];
    double *batch[APO_MAX_IO];
} stream_case;

/* Registers "tema_user" on rt: an exponential average of rate 1/8 that restarts at each
 * tile's start from `halo` (40) samples before it, NaN at positions 0 to 2 (marked by their
 * absolute index); tiles of 500. Its outputs depend on the tile grid, as the built-ins'. */
void stream_register_tile_ema(apo_runtime *rt);

/* Registers "plus_position" on rt: each sample plus its absolute position, halo 0, tiles of
 * 300: only a view that keeps absolute positions gives the batch's bits. */
void stream_register_plus_position(apo_runtime *rt);

/* rsi_revert at its default thresholds as a user writes it from docs/scores.md's table, an
 * apo_rule_fn for rsi (out[0] is rsi's output; the middle (30 + 70) / 2): a user's rule whose
 * positions are the built-in rule's. */
int stream_user_rsi_revert(const double *in, const double *out, int prev, void *user);

/* What stream_case_init's `gaps` asks for, or'ed: NaN bars (series 1 scattered ones, series 2
 * a run across its first tile boundary), a flat stretch (every input of series 0 constant
 * over bars 60 to 139), a flat start (every input of series 3, where there is one,
 * constant over bars 0 to 139: a recurrence's averages of the changes exactly 0), and a jump
 * of scale (every input of series 4, where there is one, times 1e18 over bars 100 to 163: a
 * window's double-double sum then carries errors as large as what is left once those bars
 * leave it, so that every rounding of its slide, its folds included, shows in the outputs),
 * and prices on a grid (every input of series 5, where there is one, rounded to a quarter:
 * equal moves and equal samples, the ties a body's comparisons must break as the batch's do).
 * 1, as the older tests pass it, is STREAM_GAPS. */
#define STREAM_GAPS 1
#define STREAM_FLAT 2
#define STREAM_FLAT_START 4
#define STREAM_SCALES 8
#define STREAM_GRID 16

/* Offsets of the fields of a saved state's header (docs/streaming.md, "The state"), for the
 * tests that read or edit a state as a reader of the format would. */
#define OFF_FORMAT 8
#define OFF_VERSION 12
#define OFF_PARAMS 64
#define OFF_TILE 136
#define OFF_TOTAL 168
#define OFF_CARRY 176
#define OFF_REVISE 184

/* Fills the inputs (seeded by data_seed; the gaps and flat stretch `gaps` asks for) and runs
 * the batch call on rt. Returns the batch call's status (the case is still freed by
 * stream_case_free). */
apo_status stream_case_init(stream_case *c, apo_runtime *rt, const char *kernel,
                            const apo_param *params, size_t n_params, size_t rows, size_t cols,
                            uint64_t data_seed, int gaps);
void stream_case_free(stream_case *c);

/* The tile length of `kernel` at `params`, read from a short case (rows x 64 bars, seeded by
 * data_seed, no gaps), so that a longer history can be sized by it; the short case's batch
 * status goes to *status when status is not NULL. */
size_t stream_probe_tile(apo_runtime *rt, const char *kernel, const apo_param *params,
                         size_t n_params, size_t rows, uint64_t data_seed, apo_status *status);

/* Sets up the case of `kernel` at its defaults, with gaps, over `tiles` of its tiles and
 * `extra` bars more (the tile read by stream_probe_tile() from the same data seed, its status
 * to *probed when probed is not NULL), and fails the test unless its batch call succeeds.
 * Returns the tile length. */
size_t stream_case_over_tiles(stream_case *c, apo_runtime *rt, const char *kernel, size_t rows,
                              size_t tiles, size_t extra, uint64_t data_seed, apo_status *probed);

/* For each of the n kernels, at its defaults: its case over `tiles` of its tiles and `extra`
 * bars (stream_case_over_tiles, data seed `data_seed`; the probe's status must be APO_OK, the
 * failure naming the kernel), then check(rt, &case, tile), then the case freed. The slow
 * tests that cut several kernels' long histories in several ways share this loop. */
void stream_each_case_over_tiles(apo_runtime *rt, const char *const *kernels, size_t n, size_t rows,
                                 size_t tiles, size_t extra, uint64_t data_seed,
                                 void (*check)(apo_runtime *rt, const stream_case *c, size_t tile));

/* How updates are cut: every series' whole history in one update; one bar per update
 * around the starts and tile boundaries (bigger updates between); random counts from 0 to
 * `most`, different per series. */
typedef enum stream_plan {
    PLAN_ONE_CHUNK,
    PLAN_BAR_BY_BAR,
    PLAN_RANDOM,
    PLAN_EVERY_BAR
} stream_plan;
/* PLAN_EVERY_BAR: series 0 one bar per update, so that it stops at every position of every
 * tile; series r > 0 (update % (r + 2)) bars, zero included. */

/* Feeds the case's inputs into `s` (already made for it, nothing fed yet) by the plan, and
 * fails the test unless the concatenated outputs are bitwise the batch's. */
void stream_check_plan(apo_stream *s, const stream_case *c, stream_plan plan, uint64_t plan_seed,
                       size_t most);

/* stream_check_plan on a fresh stream for the case on rt, destroyed after. */
void stream_check_plan_fresh(apo_runtime *rt, const stream_case *c, stream_plan plan,
                             uint64_t plan_seed, size_t most);

/* The same, but after every update the stream is saved, loaded back on `rt` (with the
 * case's description expected) and the old one destroyed: the stream that goes on is always
 * one read from bytes. Destroys the last stream itself. */
void stream_check_plan_reloading(apo_stream *s, const stream_case *c, stream_plan plan,
                                 uint64_t plan_seed, size_t most, apo_runtime *rt);

/* The case's description, for apo_stream_create and apo_stream_load's `expect`. */
apo_stream_desc stream_desc_of(const stream_case *c);

/* The tile length of a stream's kernel at its parameters, read from its saved state's
 * header (docs/streaming.md, "The state"), as a reader of the format would. */
size_t stream_tile_of(const apo_stream *s);

/* Whether a stream of one series of the kernel `name` can be made on rt (the reductions, with
 * no per-bar outputs, cannot). */
int stream_kernel_streams(apo_runtime *rt, const char *name);

/* Runs visit(rt, name, ctx) for every kernel of rt that streams (stream_kernel_streams), every
 * one of them, in the registry's order: the loops over the streaming kernels share it. */
void stream_visit_streaming_kernels(apo_runtime *rt,
                                    void (*visit)(apo_runtime *rt, const char *name, void *ctx),
                                    void *ctx);

/* Runs check(rt, name) for every kernel of rt that streams (a stream of one series of it can
 * be made: the reductions, with no per-bar outputs, cannot), or a sample of them under
 * ThreadSanitizer (test_kernel_sampled, helpers.h); returns how many stream. */
size_t stream_each_kernel(apo_runtime *rt, void (*check)(apo_runtime *rt, const char *name));

/* On a runtime of `devices`, for each of its kernels but the reductions
 * (stream_kernel_is_reduction), in the registry's order: check(rt, i, info), i the kernel's
 * index in the registry (the slow cases seed their data by it), info its description (every
 * kernel listed, reductions included, must be described). Under the sanitizers only the
 * kernels test_stream_kernel_sampled takes (helpers.h: every kernel's stream goes through the
 * same threads and the same runtime code; stream_slow and stream_devices_slow took 131 and 69
 * s of a TSan stage over all of them). Fails the test unless the checks return `at_least`
 * cases in all, a share of it as large as the share of kernels taken ("only N <what>
 * checked"). */
void stream_check_each_per_bar_kernel(const char *devices,
                                      size_t (*check)(apo_runtime *rt, size_t i,
                                                      const apo_kernel_info *info),
                                      size_t at_least, const char *what);

/* The description of a stream of `kernel` over n_series series, everything else as
 * APO_STREAM_DESC_INIT gives it. */
apo_stream_desc stream_desc_named(const char *kernel, size_t n_series);

/* The grid sweep over grid[0 .. n_grid), everything else as APO_SWEEP_INIT gives it. */
apo_sweep stream_grid_sweep(const apo_sweep_param *grid, size_t n_grid);

/* Runs check(rt, name) for every kernel that streams on a cpu runtime with the user kernel
 * tema_user registered (stream_register_tile_ema()), and fails the test unless there are 38
 * at least: bollinger, macd, the catalog's 35 and the user kernel, so that a registry that
 * lost some would stream fewer. */
void stream_check_every_kernel(void (*check)(apo_runtime *rt, const char *name));

/* A stream for the case on rt; fails the test on error. */
apo_stream *stream_for(apo_runtime *rt, const stream_case *c);

/* A stream of description d on rt (stream_desc_of() with the test's own settings); fails the
 * test, naming the kernel, on error. */
apo_stream *stream_created(apo_runtime *rt, const apo_stream_desc *d);

/* The update size of the step tests (stream_revise, stream_peek_fork) where no tile boundary is
 * near: 97 bars, or a 24th of the bars up to `near` where that is more. Each of their steps
 * saves and compares whole states, which hold the tile's bars, so that steps of 97 bars cost
 * the square of the tile (adxr's and stochrsi's tiles of some 20,000 bars: 2.7 and 1.7 s of
 * stream_revise's sampled case, half of it); a bounded count of steps costs the tile once,
 * and every step still updates (and revises) past KEEP's 40 bars. */
size_t stream_far_step(size_t near);

/* The stream's saved state (apo_stream_save), malloc'ed, its length in *len; fails the test
 * on error. */
unsigned char *stream_state_bytes(const apo_stream *s, size_t *len);

/* Fails the test unless the stream's saved state is exactly `want` (want_len bytes). */
void stream_assert_state(const apo_stream *s, const unsigned char *want, size_t want_len,
                         const char *what);

/* Feeds bars [from, to) of every series of the case in one update, and writes their outputs
 * into got[o] at the series' positions (got laid out as the case's batch); fails the test on
 * error. */
void stream_feed_span(apo_stream *s, const stream_case *c, size_t from, size_t to,
                      double *const *got);

/* Fails the test unless got (laid out as the case's batch) equals the batch bitwise at bars
 * [from, to) of every series. */
void stream_assert_span(const stream_case *c, double *const *got, size_t from, size_t to,
                        const char *what);

/* Whether `name` is one of the catalog's reductions (returns_stats, bootstrap), which no
 * stream computes: the loops over every kernel skip them. */
int stream_kernel_is_reduction(const char *name);

/* FNV-1a 64 over the n bytes at p, the checksum of a saved state as docs/streaming.md
 * defines it: the tests' own, so that a state they edit and seal again checks the library's
 * checksum rather than reusing it. */
uint64_t stream_state_fnv1a(const unsigned char *p, size_t n);

/* A small seeded generator (splitmix64) for data and plans. */
uint64_t stream_rng(uint64_t *state);

#endif

/*
 * bench.h: what the apo-bench-* programs share (apo-bench-kernels, apo-bench-balance,
 * apo-bench-auto-profile). Every program compiles common.c, the shared helpers below, and
 * options.c, the option table (options.h); only apo-bench-kernels compiles stream.c and
 * overhead.c and uses OpenMP. The benches use the public header (include/apportion.h), libc
 * and jansson; overhead.c and sweep_order.c alone also call the pure tile functions of
 * kernels/dispatch/kernels.h, for the direct-call baseline (see overhead.c) and the sweep's
 * tile-order experiment (see sweep_order.c).
 */
#ifndef APO_BENCH_H
#define APO_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "apportion.h"

/* The program's name, for messages: each apo-bench-* program defines it. */
extern const char bench_prog[];

/* ---- timing and statistics (common.c) ------------------------------------------------- */

/* Monotonic seconds. */
double bench_now(void);

/* Seconds of CPU the calling thread has used. On a machine shared with other jobs a long call
 * is preempted more often than a short one, so the wall-clock ratio of two calls of unequal
 * length moves with the load; a call that does all its work on the calling thread (the peers,
 * apportion on "cpu:threads=1") has its work alone in this clock. */
double bench_thread_cpu(void);

/* Seconds of CPU the whole process has used, every thread's (the scored-sweep and
 * walk-forward sections time their calls by it). */
double bench_process_cpu(void);

/* Median of n values (sorts v in place); NaN for n == 0. */
double bench_median(double *v, size_t n);

/* Minimum of n values; NaN for n == 0. */
double bench_min(const double *v, size_t n);

/* Prints the failing call with apo_last_error() to stderr; returns 1 when st is not OK. */
int bench_check(apo_status st, const char *what);

/* A runtime on `devices` (NULL: the environment's, else auto) that neither reads nor writes
 * profiles and does not learn: the calls a bench times are the same from run to run. */
apo_status bench_runtime(const char *devices, apo_runtime **rt);

/* APO_WORKLOAD_INIT with the kernel, the shape and the inputs set: what every call of a bench
 * names first; the caller sets the rest (outputs, parameters, a sweep, a score). */
apo_workload bench_workload(const char *kernel, size_t rows, size_t cols,
                            const double *const *inputs, size_t n_inputs);

/* ---- options and environment (common.c) ----------------------------------------------- */

/* Parses a whole number in [lo, hi] into *out; returns 0, or -1 (out untouched). */
int bench_parse_count(const char *s, double lo, double hi, double *out);

/* The stored model of device d under `tag` on rt: its predicted ms for n elements; NaN when
 * it has none. */
double bench_stored_prediction(apo_runtime *rt, const char *tag, size_t d, double n);

/* Whether `name` is in the comma list (NULL: everything). */
int bench_selected(const char *list, const char *name);

/* Walks a comma list: returns the item at *p (NULL at the end of the list, or for a NULL
 * list), its length in *len, and moves *p past the item and its comma. */
const char *bench_list_next(const char **p, size_t *len);

/* Whether the list item item[0..len) is `name`, to the letter. */
int bench_item_is(const char *item, size_t len, const char *name);

/* The list item item[0..len) as a string in buf (bench_list_next gives it in place, up to its
 * comma): 0, or -1 with buf untouched when it does not fit in size bytes. */
int bench_item_copy(char *buf, size_t size, const char *item, size_t len);

/* The first item of the comma list `list` (NULL: none) that is none of the n names
 * name_of(0) .. name_of(n - 1), its length in *len; NULL when every item is one of them.
 * A bench checks a list of names with it before it runs anything: a typo would otherwise
 * run nothing and pass. */
const char *bench_list_unknown(const char *list, const char *(*name_of)(size_t i), size_t n,
                               size_t *len);

/* The first three fields of /proc/loadavg ("?" where there is none): the machine is shared,
 * so every run says how busy it was. */
void bench_load_average(char *buf, size_t size);

/* ---- seeded data (common.c) ----------------------------------------------------------- */

/* Seeded positive prices, rows x cols, row-major: 100 * exp(5e-4 * (w - 100)) of the seeded
 * random walk w of kernels/common/random_walk.h (the default input of `apportion run`), so log
 * increments are uniform in (-5e-4, 5e-4). A single shorter row is a prefix of a longer
 * one, so one input serves every size (apo-bench-balance, apo-bench-auto-profile). */
void bench_fill_walk(double *x, size_t rows, size_t cols, uint64_t seed);

/* OHLCV bars of rows x cols around closes that bench_fill_walk made: the open is the previous
 * close, high and low the larger and smaller of the two widened by up to 5e-4 (the walk's
 * largest step), volume uniform in [1000, 10000), each draw keyed by its index alone, so the
 * bars do not depend on the order they are made in. Any of open, high, low and volume may be
 * NULL (not wanted). */
void bench_fill_bars(const double *close, size_t rows, size_t cols, double *open, double *high,
                     double *low, double *volume);

/* ---- STREAM-style ceiling (stream.c) --------------------------------------------------- */

typedef struct bench_stream_result {
    const char *name;      /* "copy", "triad", "fan3" */
    double bytes_per_elem; /* STREAM's count: 16, 24, 32 */
    double best_gbs;       /* from the fastest repetition (STREAM's convention) */
    double median_gbs;     /* from the median repetition */
    double best_ms, median_ms;
} bench_stream_result;

enum { BENCH_STREAM_COPY = 0, BENCH_STREAM_TRIAD = 1, BENCH_STREAM_FAN3 = 2, BENCH_STREAM_N = 3 };

/* Runs copy (a = b), triad (a = b + s*c) and fan3 (a = d = e = b) over arrays of n doubles
 * with all OpenMP threads, `reps` timed repetitions each after one warm-up. Arrays are
 * first-touched in parallel with the same static schedule as the loops. Returns 0, or -1
 * when the arrays cannot be allocated (nothing is measured then). */
int bench_stream(size_t n, int reps, bench_stream_result out[BENCH_STREAM_N]);

/* ---- per-call overhead (overhead.c) ---------------------------------------------------- */

typedef struct bench_overhead_row {
    const char *kernel;
    size_t cols;
    size_t calls;
    double direct_us;       /* median of the serial tile loop called directly */
    double serial_us;       /* median of apo_distribute_workload on "cpu:threads=1" */
    double default_us;      /* median of apo_distribute_workload on the default runtime */
    double over_serial_us;  /* serial_us - direct_us */
    double over_default_us; /* default_us - direct_us */
    long wrong;             /* outputs of the runtimes not bitwise equal to the direct call */
} bench_overhead_row;

/* Measures one row of the overhead table: `calls` calls of each of the three ways, the
 * three interleaved call by call so that they see the same machine state. `rt_serial`
 * has the single device "cpu:threads=1"; `rt_default` is the runtime of the kernel table.
 * Returns 0, or -1 on an allocation or API failure (reported on stderr). */
int bench_overhead(apo_runtime *rt_serial, apo_runtime *rt_default, const char *kernel, size_t cols,
                   size_t calls, bench_overhead_row *row);

/* apo-bench-balance --ranks (ranks.c): the multi-rank scenario, run under mpirun. Returns
 * the exit status. */
int bench_ranks(const char *devices, double max_size);

/* apo-bench-balance --real-clock (real_clock.c): the cpu beside wall-clock sims, `kernel` on
 * one series of `size` samples; `scenarios` a comma list (NULL: all), `csv` one row per call
 * (NULL: none). Returns the exit status. */
int bench_real_clock(const char *kernel, double size, const char *scenarios, const char *csv);

/* apo-bench-balance --rank-series (rank_series.c): under mpirun, `calls` calls of `kernel` on
 * one series of `size` samples balanced by the runtime, each beside one at the static split
 * of the measured rates scaled by the weights read from `weights` (NULL: all 1); `csv` one row
 * per call (NULL: none). Returns the exit status. */
int bench_rank_series(const char *kernel, double size, int calls, const char *weights,
                      const char *csv);

#endif /* APO_BENCH_H */

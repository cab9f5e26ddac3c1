/*
 * What the tests of calls in pieces share (test_ragged.c, test_sweep.c): a call of one
 * input whose outputs are sized by apo_output_shape() and poisoned first, so that a piece
 * of a call can be compared with its call alone.
 */
#ifndef APO_TEST_CALL_FIXTURES_H
#define APO_TEST_CALL_FIXTURES_H

#include <stddef.h>

#include "apportion.h"

/* The devices the tests split calls across: the cpu and two sims, the slower one (a) to be
 * given the most by skewed ratios. */
#define CALL_MULTI_DEVICES "cpu,sim:a:rate=1e8,sim:b:rate=3e8"

/* A runtime on the devices of CALL_MULTI_DEVICES whose sim:b fails from its second task on,
 * with "msum" registered (test_register_moving_sum). Make a fresh one for each call that
 * should see the failure: a device that failed is soon quarantined. */
apo_runtime *call_runtime_failing_b(void);

/* The value every output holds before a call: no output is ever this. */
#define CALL_POISON (-12345.678)

/* A call's outputs: output i has len[i] values, rows of cols[i]. */
typedef struct call_outputs {
    double *data[APO_MAX_IO];
    size_t len[APO_MAX_IO], cols[APO_MAX_IO];
    size_t n;
} call_outputs;

/* Frees the outputs and zeroes `o`. */
void call_outputs_free(call_outputs *o);

/* A call's settings besides its shape, input and parameters (NULL, 0: none). */
typedef struct call_opts {
    const size_t *row_lengths;
    const apo_sweep *sweep;
    const double *ratios;
    size_t n_ratios;
    apo_split split;
} call_opts;

/* The workload of `kernel` (seed 99) over rows x cols of the inputs with `params` and the
 * settings `o` (NULL: none), without outputs. */
apo_workload call_workload(const char *kernel, size_t rows, size_t cols, const double **inputs,
                           const apo_param *params, size_t n_params, const call_opts *o);

/* Calls `kernel` (seed 99) over rows x cols of the one input x with `params` and the
 * settings `o` (NULL: none), into outputs it allocates and poisons first; returns the call's
 * status (a refused shape leaves `out` empty; the caller frees it either way). */
apo_status call_run(apo_runtime *rt, const char *kernel, size_t rows, size_t cols, const double *x,
                    const apo_param *params, size_t n_params, const call_opts *o, call_outputs *out,
                    apo_report *report);

/* call_run() that fails the test, saying `what` and the library's message, unless the call
 * succeeds: the form every call of a piece that must work takes. */
void call_run_ok(apo_runtime *rt, const char *kernel, size_t rows, size_t cols, const double *x,
                 const apo_param *params, size_t n_params, const call_opts *o, call_outputs *out,
                 apo_report *report, const char *what);

/* Where call_each_placement() puts a call: the cpu alone, the CALL_MULTI_DEVICES runtime with
 * skewed ratios, or a fresh runtime whose sim:b fails (call_runtime_failing_b). */
typedef enum call_where { CALL_ON_CPU, CALL_ON_MULTI, CALL_ON_FAILING } call_where;

/* One placement of a call: its runtime, ratios (NULL, 0: none) and split; for CALL_ON_MULTI
 * which of the skewed ratios; `what` names the case and the placement for the messages. */
typedef struct call_placement {
    call_where where;
    apo_runtime *rt;
    const double *ratios;
    size_t n_ratios, ratios_index;
    apo_split split;
    const char *what;
} call_placement;

/* The placements every piece of a call (a ragged row, a sweep's set) is checked over, for case
 * `ci` of `kernel`: along each split (auto, rows, time), on `cpu` without ratios, then on
 * `multi` with each of the n_skewed ratios of three devices; last, along time with
 * skewed[1], on a fresh call_runtime_failing_b() (a device that failed is soon quarantined).
 * Each is call(&placement, &got, &report, ctx), the call and its checks; got is freed after.
 * The ragged and sweep tests share this loop. */
void call_each_placement(apo_runtime *cpu, apo_runtime *multi, const double (*skewed)[3],
                         size_t n_skewed, const char *kernel, size_t ci,
                         void (*call)(const call_placement *p, call_outputs *got,
                                      apo_report *report, void *ctx),
                         void *ctx);

#endif

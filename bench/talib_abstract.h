/*
 * talib_abstract.h: any TA-Lib function called through TA-Lib's own abstract interface
 * (TA-Lib's ta_abstract.h: TA_GetFuncHandle, TA_ParamHolderAlloc, TA_CallFunc), with the
 * library loaded at run time, so that one caller serves every function of the library
 * without a C signature per function. apo-bench-peers calls the catalog kernels that have no
 * row of their own in peer_kernels.c this way, and tests/runtime/catalog/
 * test_catalog_talib08_slow.c checks every kernel of TA-Lib's name with it.
 *
 * A call is prepared once (talib_call_open: the function, its parameters set by apportion's
 * names) and then run on any series; the interface's own cost per run is a check of the
 * holder and one indirect call (docs/perf-log/2026-11-26-talib-coverage.md measures it
 * against a direct call). Everything is plain data: TA-Lib's structures are declared here
 * as its header lays them out, the only part of its ABI this file relies on.
 */
#ifndef APO_BENCH_TALIB_ABSTRACT_H
#define APO_BENCH_TALIB_ABSTRACT_H

#include <stddef.h>

/* The most inputs (flattened: a price input counts each of its components), parameters and
 * outputs that a TA-Lib function has (SAREXT's 8 parameters, MACDEXT's 3 outputs). */
#define TALIB_MAX_IN 6
#define TALIB_MAX_PARAMS 10
#define TALIB_MAX_OUT 4

/* TA-Lib's abstract interface in a loaded library: its functions, looked up by name. */
typedef struct talib_abstract {
    int (*get_func_handle)(const char *name, const void **handle);
    int (*get_func_info)(const void *handle, const void **info);
    int (*get_input_info)(const void *handle, unsigned int index, const void **info);
    int (*get_opt_input_info)(const void *handle, unsigned int index, const void **info);
    int (*get_output_info)(const void *handle, unsigned int index, const void **info);
    int (*holder_alloc)(const void *handle, void **params);
    int (*holder_free)(void *params);
    int (*set_input_real)(void *params, unsigned int index, const double *value);
    int (*set_input_price)(void *params, unsigned int index, const double *open, const double *high,
                           const double *low, const double *close, const double *volume,
                           const double *open_interest);
    int (*set_opt_integer)(void *params, unsigned int index, int value);
    int (*set_opt_real)(void *params, unsigned int index, double value);
    int (*set_output_integer)(void *params, unsigned int index, int *out);
    int (*set_output_real)(void *params, unsigned int index, double *out);
    int (*call)(const void *params, int start, int end, int *out_begin, int *out_count);
} talib_abstract;

/* Fills *ta from `lookup` (a symbol of the loaded library by name, NULL where it has none).
 * Returns 0, or -1 naming the missing symbol in why. */
int talib_abstract_load(talib_abstract *ta, void *(*lookup)(void *ctx, const char *name), void *ctx,
                        char *why, size_t why_size);

/* One function of TA-Lib, its parameters set, ready to run. */
typedef struct talib_call {
    const talib_abstract *ta;
    void *params; /* TA-Lib's TA_ParamHolder */
    const char *name;
    int n_in; /* flattened inputs */
    int n_out;
    int n_params;
    int price_input[TALIB_MAX_IN];  /* the TA-Lib input each flattened input belongs to */
    int component[TALIB_MAX_IN];    /* its price component (0 open .. 4 volume); -1: a real */
    int out_integer[TALIB_MAX_OUT]; /* 1 where TA-Lib writes ints (candles, indexes) */
    char param_names[TALIB_MAX_PARAMS][40]; /* apportion's names: optInFastK_Period is
                                                fastk_period */
    int param_integer[TALIB_MAX_PARAMS];
    double param_defaults[TALIB_MAX_PARAMS];
} talib_call;

/* Prepares TA-Lib's function `name` (upper case: "RSI") with its defaults. Returns 0, 1 where
 * the library has no such function, or -1 with why (an input kind this caller does not
 * feed). */
int talib_call_open(const talib_abstract *ta, const char *name, talib_call *c, char *why,
                    size_t why_size);

/* Sets the parameter of apportion's name `name` (TA-Lib's, lower case, without "optIn").
 * Returns 0, or -1 where the function has none of that name or TA-Lib refuses the value. */
int talib_call_set(talib_call *c, const char *name, double value);

/* Runs the function on in[0 .. n_in) of n samples (the whole series), writing its first value
 * at out[k][0] for a real output, at ints[k][0] for an integer one (out[k] unused then);
 * *begin is TA-Lib's outBegIdx. Returns TA-Lib's return code (0: success), or -1 for a count
 * other than n - *begin. */
int talib_call_run(const talib_call *c, int n, const double *const *in, double *const *out,
                   int *const *ints, int *begin);

void talib_call_close(talib_call *c);

#endif

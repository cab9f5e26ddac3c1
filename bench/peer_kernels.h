/*
 * peer_kernels.h: the catalog kernels that apo-bench-peers times against TA-Lib and Tulip
 * Indicators (peers_catalog.c), one row of data each (peer_kernels.c): apportion's kernel
 * and TA-Lib's defaults, TA-Lib's function and the shape of its C signature, and Tulip's
 * indicator with its options where Tulip has one. Nothing here is hand-written per kernel
 * beyond its row: a TA-Lib function is called through the one switch over its shape, a
 * Tulip function through Tulip's single signature.
 */
#ifndef APO_BENCH_PEER_KERNELS_H
#define APO_BENCH_PEER_KERNELS_H

#include <stddef.h>

#include "apportion.h"
#include "peers.h"
#include "talib_abstract.h"

/* The bar series a kernel reads (peers_catalog.c makes them): OHLCV, a second close
 * series for the pair kernels' y, and mavp's periods. */
enum {
    PEER_HIGH,
    PEER_LOW,
    PEER_CLOSE,
    PEER_VOLUME,
    PEER_OTHER,
    PEER_OPEN,
    PEER_PERIODS,
    PEER_SERIES
};

#define PEER_MAX_IN 4
#define PEER_MAX_OUT 4
#define PEER_MAX_PARAMS 8
#define PEER_MAX_TI_OPTIONS 3

/* The shapes of TA-Lib's C signatures that the catalog needs: after (startIdx, endIdx), the
 * input arrays, the options (I an int or TA_MAType, D a double), then (outBegIdx,
 * outNBElement) and the output arrays. */
typedef enum peer_ta_shape {
    PEER_TA_1IN_I_1OUT,     /* SMA, EMA, RSI, ...: (real, period) */
    PEER_TA_1IN_ID_1OUT,    /* STDDEV, VAR: (real, period, nbdev) */
    PEER_TA_2IN_1OUT,       /* OBV: (real, volume) */
    PEER_TA_2IN_I_1OUT,     /* CORREL, BETA: (real0, real1, period) */
    PEER_TA_2IN_I_2OUT,     /* AROON: (high, low, period) -> down, up */
    PEER_TA_3IN_1OUT,       /* TRANGE: (high, low, close) */
    PEER_TA_3IN_I_1OUT,     /* ATR, WILLR, ADX, ...: (high, low, close, period) */
    PEER_TA_3IN_III_2OUT,   /* STOCHF: (fastk, fastd, fastd_matype) -> fastk, fastd */
    PEER_TA_3IN_IIIII_2OUT, /* STOCH: (fastk, slowk, its matype, slowd, its matype) */
    PEER_TA_4IN_1OUT,       /* AD: (high, low, close, volume) */
    PEER_TA_4IN_I_1OUT,     /* MFI: (..., period) */
    PEER_TA_4IN_II_1OUT,    /* ADOSC: (..., fast, slow) */
    /* Any function, through TA-Lib's abstract interface (talib_abstract.h): the rows made
     * from the catalog's own list (peer_generate), for a kernel without a row here. */
    PEER_TA_ABSTRACT,
} peer_ta_shape;

typedef struct peer_kernel {
    const char *name; /* apportion's catalog kernel */
    int n_inputs;
    unsigned char inputs[PEER_MAX_IN]; /* PEER_* series in the kernel's input order, which
                                          is TA-Lib's and Tulip's too */
    int n_outputs;
    int n_params;
    apo_param params[PEER_MAX_PARAMS]; /* TA-Lib's defaults, in TA-Lib's order */
    const char *ta_name;               /* TA-Lib's function */
    peer_ta_shape ta_shape;
    const char *ti_name; /* Tulip's indicator; NULL where Tulip has none */
    int ti_n_options;
    double ti_options[PEER_MAX_TI_OPTIONS]; /* the same defaults in Tulip's terms */
    int ti_n_outputs;                       /* how many Tulip writes */
    unsigned char ti_out[PEER_MAX_OUT];     /* Tulip's output holding apportion's output k */
    /* 1 where TA-Lib (and Tulip) slide running double sums that drift from the exact value
     * over a long series while apportion's double-double sums do not (docs/kernels.md,
     * "Where TA-Lib differs"): their outputs then agree less closely (peers_catalog.c). */
    int running_sums;
} peer_kernel;

/* The rows written here, each TA-Lib's function called directly: the catalog's first
 * kernels. */
extern const peer_kernel peer_kernels[];
extern const size_t peer_kernel_count;

/* Rows made from the runtime's list of kernels: one for every catalog kernel of TA-Lib's name
 * (upper case) that has no row in peer_kernels[], its inputs by their names, its parameters
 * its defaults (the catalog's are TA-Lib's: tests/runtime/catalog/test_talib_coverage.c),
 * TA-Lib through its abstract interface, and Tulip's indicator where peer_kernels.c's table
 * of twins names one. `names` holds the rows' TA-Lib names (peer_kernel.ta_name points into
 * it). Returns the rows written, at most `max`. */
typedef char peer_ta_name[48];
size_t peer_generate(apo_runtime *rt, const talib_abstract *ta, peer_kernel *rows,
                     peer_ta_name *names, size_t max);

/* The peers' functions of one row, resolved in the loaded libraries. */
typedef void (*peer_any_fn)(void);
typedef struct peer_fns {
    peer_any_fn ta;                     /* TA-Lib's function, called by its shape */
    talib_call call;                    /* a PEER_TA_ABSTRACT row's, its parameters set */
    peer_any_fn ta06;                   /* TA-Lib 0.6's, where it is at hand; else NULL */
    bench_ti_fn ti;                     /* NULL: Tulip has none */
    int (*ti_start)(const double *opt); /* Tulip's first valid index for its options */
} peer_fns;

/* Resolves row k's functions (a PEER_TA_ABSTRACT row's through `ta`, which may be NULL for
 * the others); returns 0, or -1 with why when TA-Lib lacks one (a Tulip function that is
 * missing only leaves fns->ti NULL). peer_release frees what it holds. */
int peer_resolve(const bench_peers *p, const talib_abstract *ta, const peer_kernel *k,
                 peer_fns *fns, char *why, size_t why_size);
void peer_release(peer_fns *fns);

/* Calls TA-Lib's function `ta` (fns->ta or fns->ta06) of row k on in[0 .. n_inputs) of n samples,
 * the whole series (startIdx 0, endIdx n-1), writing its first value at out[k][0]; *begin is
 * TA-Lib's outBegIdx. Returns TA-Lib's return code (0 is success), or -1 for a count that is not n
 * - *begin. */
int peer_call_talib(const peer_kernel *k, peer_any_fn ta, int n, const double *const *in,
                    double *const *out, int *begin);

/* The same for a PEER_TA_ABSTRACT row, through fns->call: an integer output of TA-Lib's is
 * written to ints[k] and, with `convert`, copied into out[k] as doubles (the comparison
 * needs them; a timed call leaves the ints, which are TA-Lib's result as it gives it). */
int peer_call_talib_abstract(const peer_fns *fns, int n, const double *const *in,
                             double *const *out, int *const *ints, int convert, int *begin);

#endif

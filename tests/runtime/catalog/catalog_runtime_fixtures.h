/*
 * catalog_runtime_fixtures.h: what the catalog's runtime tests share (test_catalog_runtime.c
 * and test_catalog_runtime_slow.c): a case of each catalog kernel (a period that makes its
 * tiles several a row, its samples and its input columns), the candlestick patterns, a case's
 * job on a runtime, and the check that a case gives the cpu device's bits on every device set,
 * ratio and axis.
 */
#ifndef APO_TESTS_CATALOG_RUNTIME_FIXTURES_H
#define APO_TESTS_CATALOG_RUNTIME_FIXTURES_H

#include <stddef.h>

#include "apportion.h"

/* The columns of an OHLCV walk, and a second close for pair kernels (correl, beta); the open
 * last, as the candlestick patterns' first input; UNIT, 1.1 sin of the close, mostly in asin's
 * and acos's domain [-1, 1]. */
enum { HIGH, LOW, CLOSE, VOLUME, Y, OPEN, UNIT, N_COLUMNS };

/* A catalog kernel with a period that makes its tiles several per row (0: the kernel's
 * defaults), the samples per row, and its inputs as columns, in the kernel's order. */
typedef struct cat_case {
    const char *kernel;
    double period;
    size_t cols;
    size_t n_in;
    int in[4];
} cat_case;

#define CLOSE_ONLY                                                                                 \
    1, { CLOSE }
#define HLC                                                                                        \
    3, { HIGH, LOW, CLOSE }
#define HLCV                                                                                       \
    4, { HIGH, LOW, CLOSE, VOLUME }
#define CV                                                                                         \
    2, { CLOSE, VOLUME }
/* The candlestick patterns: rows of three tiles and a part (their tiles are 4096 bars). */
#define OHLC_COLS 13000
#define OHLC                                                                                       \
    4, { OPEN, HIGH, LOW, CLOSE }
/* obv and ad re-run their sum from the row's start in tiles of 65,536: rows of two tiles
 * and a part, so that every later tile's prefix crosses the gap and tile boundaries. */
#define WHOLE_ROW_COLS (2 * 65536 + 1234)

/* One case per catalog kernel, and the candlestick patterns (each a case of OHLC_COLS samples,
 * its defaults and the inputs OHLC). */
extern const cat_case cases[];
extern const size_t n_cases;
extern const char *const candlesticks[];
extern const size_t n_candlesticks;

/* The case of `kernel`, with `cols` samples a row. */
cat_case case_of(const char *kernel, size_t cols);

typedef struct cat_job {
    apo_workload w;
    double *columns[N_COLUMNS];
    const double *inputs[APO_MAX_IO];
    double *outputs[APO_MAX_IO];
    apo_param params[APO_MAX_PARAMS];
    size_t len;
} cat_job;

/* The case's job over `rows` rows: its seeded columns with a gap, outputs poisoned. */
void job_init(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows);
void job_free(cat_job *job);
/* Runs the job at `ratios` (NULL: the runtime's) along `split`; fails the test on an error. */
void run(apo_runtime *rt, cat_job *job, const double *ratios, size_t n, apo_split split);
/* The samples of output o whose bits differ between two jobs. */
size_t bitwise_diff(const cat_job *a, const cat_job *b, size_t o);
/* The case's job, with one more parameter where `extra` is given (NULL: none). */
void job_init_with(cat_job *job, apo_runtime *rt, const cat_case *c, size_t rows,
                   const apo_param *extra);
/* Case c (with `extra`, seeded by ci) on every device set, ratio and axis gives the cpu
 * device's bits. */
void same_bits_everywhere(apo_runtime *cpu, const cat_case *c, size_t ci, const apo_param *extra);

#endif

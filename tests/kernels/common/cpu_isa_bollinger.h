/*
 * bollinger on every vector path against its scalar tiles, bit for bit: the unit suite's
 * short rows (test_cpu_isa.c) and the slow suite's every shape (test_cpu_isa_slow.c); and the
 * path-by-path driver that it and macd's check (test_cpu_isa_slow.c) run.
 */
#ifndef APO_TEST_CPU_ISA_BOLLINGER_H
#define APO_TEST_CPU_ISA_BOLLINGER_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_isa_inputs.h"

/* A variant is an order of the tiles (variant / N_GROUPINGS, as make_spans() takes it), a
 * grouping (groupings[variant % N_GROUPINGS]) and streaming or ordinary stores (odd or
 * even, streaming_for()). */
#define N_VARIANTS (3 * N_GROUPINGS)

/* A kernel of three outputs as check_paths runs it: its name, its scalar single tile over [b, e)
 * of one row x, its tiles on a vector path, a description of its parameters for messages
 * ("period 20 nbdev 2/2"), and those parameters. */
typedef struct path_kernel {
    const char *name;
    void (*scalar_tile)(const double *x, size_t cols, size_t b, size_t e, const void *params,
                        double *const out[3]);
    void (*tiles)(const double *x, size_t rows, size_t cols, const apo__tile_span *spans,
                  size_t count, const void *params, double *const out[3], apo__cpu_isa isa);
    void (*describe)(const void *params, char *buf, size_t size);
    const void *params;
} path_kernel;

/* Kernel k over rows x cols of flavour f (seeded by seed) in tiles of len, on every path this
 * machine supports and each of the given variants, against its scalar single tiles: asserts
 * every output's bits and returns how many path and variant combinations it compared. */
size_t check_paths(const path_kernel *k, enum flavour f, size_t rows, size_t cols, size_t len,
                   uint64_t seed, const size_t *variants, size_t n_variants);

/* rows x cols of flavour f in tiles of len, on every path this machine supports and each of
 * the given variants, against the scalar single-tile function: asserts every output's bits
 * and returns how many path and variant combinations it compared. */
size_t check_bollinger_paths(enum flavour f, size_t rows, size_t cols, size_t period, double up,
                             double dn, size_t len, const size_t *variants, size_t n_variants);

#endif

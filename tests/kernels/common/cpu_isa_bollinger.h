/*
 * bollinger on every vector path against its scalar tiles, bit for bit: the unit suite's
 * short rows (test_cpu_isa.c) and the slow suite's every shape (test_cpu_isa_slow.c); and macd
 * the same way (test_cpu_isa_slow.c), through the same path-by-path driver.
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

/* rows x cols of flavour f in tiles of len, on every path this machine supports and each of
 * the given variants, against the scalar single-tile function: asserts every output's bits
 * and returns how many path and variant combinations it compared. */
size_t check_bollinger_paths(enum flavour f, size_t rows, size_t cols, size_t period, double up,
                             double dn, size_t len, const size_t *variants, size_t n_variants);

/* check_bollinger_paths for macd(fast, slow, signal). */
size_t check_macd_paths(enum flavour f, size_t rows, size_t cols, size_t fast, size_t slow,
                        size_t signal, size_t len, const size_t *variants, size_t n_variants);

#endif

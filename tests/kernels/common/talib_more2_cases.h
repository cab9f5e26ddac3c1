/*
 * talib_more2_cases.h: the check that the tests of TA-Lib 0.8's newer kernels, group 2
 * (docs/kernels/momentum.md, "TA-Lib 0.8's newer functions, group 2"), share across their families'
 * folders: a table of kernels and parameter sets, each run over its tile grid (backwards) and
 * over short tiles against its long-double reference (catalog_reference_talib_more2.c) on
 * seeded walks with and without gaps, and the grid alone setting the bits.
 */
#ifndef APO_TEST_TALIB_MORE2_CASES_H
#define APO_TEST_TALIB_MORE2_CASES_H

#include <stddef.h>

#include "catalog_more_fixtures.h"
#include "catalog_reference_talib_more2.h"

typedef struct more2_case {
    apo__cat_id id;
    const char *name;
    cols_kind cols;
    size_t n_out;
    apo__cat_ref_more_fn ref;
    double p[APO_CAT_MAX_PAR];
} more2_case;

/* Every case's every output against its reference within 1e-12 of the scale, on walks of 1 to
 * 3001 bars with and without gaps, over the tile grid run backwards and over tiles of 96 bars;
 * prints each case's worst error on stderr (docs/kernels.md quotes them). */
void more2_check_against_references(const more2_case *cases, size_t n);

/* Every case over its tile grid run forwards and backwards, on a walk with gaps of two tiles
 * and more: the same bits. */
void more2_check_grid_sets_the_bits(const more2_case *cases, size_t n);

#endif /* APO_TEST_TALIB_MORE2_CASES_H */

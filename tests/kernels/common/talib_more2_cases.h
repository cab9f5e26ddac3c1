/*
 * talib_more2_cases.h: the check that the tests of TA-Lib 0.8's newer kernels, group 2
 * (docs/kernels/momentum.md, "TA-Lib 0.8's newer functions, group 2"), share across their families'
 * folders: a table of kernels and parameter sets, each run over its tile grid (backwards) and
 * over short tiles against its long-double reference (catalog_reference_talib_more2.c) on
 * seeded walks with and without gaps, and the grid alone setting the bits. The overlap studies'
 * table (averages/test_overlap.c) and the oscillators of matype averages'
 * (oscillators/test_momentum_ma2.c) run the same check, each with its own options.
 */
#ifndef APO_TEST_TALIB_MORE2_CASES_H
#define APO_TEST_TALIB_MORE2_CASES_H

#include <stddef.h>
#include <stdint.h>

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

/* How a table's check against its references runs and reports, where a table's test differs
 * from group 2's: the first word of each case's stderr line, the longest walk, how many
 * parameters the line shows, and whether walks no longer than the lookback are left out. */
typedef struct more2_options {
    const char *label;
    size_t longest;
    size_t params_shown;
    int past_lookback_only;
} more2_options;

/* The case's seeded walk; mavp's periods (its second input) a walk of their own from 15 with
 * steps of 0.5 below, so that its periods move. */
void more2_case_series(series *s, const more2_case *c, uint64_t seed, size_t n, int gaps);

/* The kernel over tiles of len bars, backwards (forwards when forwards is set). */
void more2_run_tiles(const more2_case *c, const series *s, double *const *out, size_t len,
                     int forwards);

/* Every case's every output against its reference within 1e-12 of the scale, on walks of 1 to
 * opt->longest bars with and without gaps, over the tile grid run backwards and over tiles of
 * 96 bars; a reference's infinity must be met exactly. Prints each case's worst error on
 * stderr (docs/kernels.md quotes them). */
void more2_check_against_references_as(const more2_case *cases, size_t n, const more2_options *opt);

/* The same as group 2 runs it: "talib_more2", walks to 3001 bars, five parameters shown, every
 * walk. */
void more2_check_against_references(const more2_case *cases, size_t n);

/* Every case over its tile grid run forwards and backwards, on a walk with gaps of two tiles
 * and more: the same bits. Tiles longer than `longest` bars run as tiles of `longest`. */
void more2_check_grid_sets_the_bits_within(const more2_case *cases, size_t n, size_t longest);

/* The same as group 2 runs it: tiles of 4096 bars at the most. */
void more2_check_grid_sets_the_bits(const more2_case *cases, size_t n);

/* A family's two cases of its table `cases` (an array) as group 2 runs them, in Criterion's
 * suite `suite`: every kernel against its long-double reference, and the grid alone setting the
 * bits. The test file includes Criterion. */
#define MORE2_TABLE_TESTS(suite, cases)                                                            \
    Test(suite, every_kernel_against_its_long_double_reference, .timeout = 300) {                  \
        more2_check_against_references(cases, sizeof cases / sizeof cases[0]);                     \
    }                                                                                              \
    Test(suite, tiles_depend_on_the_grid_only, .timeout = 120) {                                   \
        more2_check_grid_sets_the_bits(cases, sizeof cases / sizeof cases[0]);                     \
    }

/* The same two cases for a table with options of its own (opt, a more2_options initializer in
 * braces) whose grid runs every tile at its own length. */
#define MORE2_TABLE_TESTS_AS(suite, cases, ...)                                                    \
    Test(suite, every_kernel_against_its_long_double_reference, .timeout = 300) {                  \
        const more2_options opt = __VA_ARGS__;                                                     \
        more2_check_against_references_as(cases, sizeof cases / sizeof cases[0], &opt);            \
    }                                                                                              \
    /* The grid alone sets the bits: tiles run forwards give the bits of tiles run backwards. */   \
    Test(suite, tiles_depend_on_the_grid_only, .timeout = 120) {                                   \
        more2_check_grid_sets_the_bits_within(cases, sizeof cases / sizeof cases[0], SIZE_MAX);    \
    }

#endif /* APO_TEST_TALIB_MORE2_CASES_H */

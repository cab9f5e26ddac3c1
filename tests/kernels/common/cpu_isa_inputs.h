/*
 * The inputs of the vector-path tests of the CPU kernels (test_cpu_isa.c, and the slow
 * suite's test_cpu_isa_slow.c): seeded walks of every flavour that reaches a branch of the
 * paths, tile spans in any order, the groupings of tiles per call, and the switch between
 * streaming and ordinary stores.
 */
#ifndef APO_TEST_CPU_ISA_INPUTS_H
#define APO_TEST_CPU_ISA_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

enum flavour {
    PLAIN,       /* a random walk near 100 */
    SPECIALS,    /* NaN, +inf, -inf and zeros sprinkled in */
    STRETCHES,   /* runs of repeated values, some longer than the periods */
    STEPS,       /* a walk on a coarse grid: many equal neighbours, windows of tiny variance */
    HUGE,        /* values near 1e150 with rare jumps: sums and squares near overflow */
    OVERFLOW,    /* finite values near +-1e308 alternating: sums overflow, NaN from arithmetic */
    INFINITE_M2, /* values in [1e300, 1.5e300]: runs slide on with an infinite M2, and nbdev 0
                    makes NaN bands from 0 * inf, which the tile bodies canonicalise */
    CROSSING,    /* a walk around zero: bollinger's runs without a shift (K = 0), where the
                    difference of two samples rounds, beside shifted ones */
    DIPS,        /* a walk near 100 with rare samples near 1: a lane's run loses its shift
                    in the middle of a round of shifted ones */
    FLAVOURS
};

/* The flavours' names, for messages. */
extern const char *const flavour_names[FLAVOURS];

/* rows x cols of the flavour, row r from its own seeded walk. */
double *make_input(enum flavour f, size_t rows, size_t cols, uint64_t seed);

/* n doubles of a value no kernel writes, so that an output left unwritten shows. */
double *poisoned(size_t n);

/* The tiles of rows x cols with tiles of `len`, in row order, into spans (returns the count);
 * `order` 1 lists them backwards, 2 interleaves the rows (row-major by tile index). */
size_t make_spans(size_t rows, size_t cols, size_t len, int order, apo__tile_span *spans,
                  size_t max);

/* How many tiles go to one group call (cpu_isa_inputs.c says why these). */
#define N_GROUPINGS 7
extern const size_t groupings[N_GROUPINGS];

/* Which outputs differ: the index of the first element whose bits differ, or n. */
size_t first_difference(const double *a, const double *b, size_t n);

/* Odd variants store bollinger's and macd's outputs with streaming stores, even ones with
 * ordinary stores; streaming_as_built() puts back the thresholds the build chose. */
void streaming_for(size_t variant);
void streaming_as_built(void);

#endif

/*
 * The inputs of the vector-path tests of the CPU kernels (cpu_isa_inputs.h).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa_inputs.h"
#include "kernels.h"
#include "reference.h"

/* ---- inputs ----------------------------------------------------------------------------- */

const char *const flavour_names[FLAVOURS] = {"plain",       "specials", "stretches",
                                             "steps",       "huge",     "overflow",
                                             "infinite_m2", "crossing", "dips"};

/* rows x cols of the flavour, row r from its own seeded walk. */
double *make_input(enum flavour f, size_t rows, size_t cols, uint64_t seed) {
    double *x = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++) {
        double *row = x + r * cols;
        apo__test_random_walk(seed + r, cols, 100.0, 0.25, row);
        for (size_t t = 0; t < cols; t++) {
            const double u = apo__test_uniform(seed + 1000 + r, t);
            switch (f) {
            case PLAIN:
                break;
            case SPECIALS:
                if (u < 0.002)
                    row[t] = NAN;
                else if (u < 0.003)
                    row[t] = INFINITY;
                else if (u < 0.004)
                    row[t] = -INFINITY;
                else if (u < 0.005)
                    row[t] = 0.0;
                break;
            case STRETCHES:
                if (u < 0.01 && t > 0) {
                    const size_t len = 1 + (size_t)(apo__test_uniform(seed + 2000 + r, t) * 80.0);
                    for (size_t k = 0; k < len && t + k < cols; k++)
                        row[t + k] = row[t - 1];
                    t += len;
                }
                break;
            case STEPS:
                row[t] = floor(row[t] * 4.0) / 4.0;
                break;
            case HUGE:
                row[t] = row[t] * 1e148 * (u < 0.001 ? 1e3 : 1.0);
                break;
            case OVERFLOW:
                row[t] = (t % 2 ? -1e308 : 1e308) * (0.5 + 0.5 * u);
                break;
            case INFINITE_M2:
                row[t] = 1e300 * (1.0 + 0.5 * u);
                break;
            case CROSSING:
                row[t] -= 100.0;
                break;
            case DIPS:
                if (u < 0.002)
                    row[t] *= 0.01;
                break;
            case FLAVOURS:
                break;
            }
        }
    }
    return x;
}

double *poisoned(size_t n) {
    double *p = malloc((n > 0 ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = -12345.678;
    return p;
}

/* The tiles of rows x cols with tiles of `len`, in row order, into spans (returns the count);
 * `order` 1 lists them backwards, 2 interleaves the rows (row-major by tile index). */
size_t make_spans(size_t rows, size_t cols, size_t len, int order, apo__tile_span *spans,
                  size_t max) {
    const size_t per_row = (cols + len - 1) / len;
    size_t n = 0;
    for (size_t a = 0; a < (order == 2 ? per_row : rows); a++) {
        for (size_t b = 0; b < (order == 2 ? rows : per_row); b++) {
            const size_t r = order == 2 ? b : a, k = order == 2 ? a : b;
            cr_assert_lt(n, max);
            spans[n].row = r;
            spans[n].begin = k * len;
            spans[n].end = (k + 1) * len < cols ? (k + 1) * len : cols;
            n++;
        }
    }
    if (order == 1) {
        for (size_t i = 0; i < n / 2; i++) {
            apo__tile_span t = spans[i];
            spans[i] = spans[n - 1 - i];
            spans[n - 1 - i] = t;
        }
    }
    return n;
}

/* How many tiles go to one group call: a lone tile (the scalar function), rounds that fit
 * each path's lanes exactly or partly (2, 3: the avx2 path within avx512; 5, 7: part of an
 * avx512 round), and big groups whose last round is short. The test cases' tile lengths
 * give short rows several tiles too: any grid is a valid grid for the tile functions (the
 * runtime's own lengths are covered by the runtime tests below). */
const size_t groupings[N_GROUPINGS] = {1, 2, 3, 5, 7, 8, 64};

/* Which outputs differ: the index of the first element whose bits differ, or n. */
size_t first_difference(const double *a, const double *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(double)) != 0)
            return i;
    return n;
}

/* Odd variants ask for bollinger's and macd's outputs with streaming stores, however small
 * the arrays (kernels.h, APO_*_STREAM_MIN_BYTES), even ones with ordinary stores: every
 * grouping gets both across the three orders. Only the AVX-512 path streams (lanes.h,
 * APO_LANES_STREAM); the narrower ones must give the same bits when asked. The arrays of
 * malloc() are aligned to 16 bytes only, so on AVX-512 some outputs stream and others fall
 * back to ordinary stores within one call, which is covered too. */
void streaming_for(size_t variant) {
    apo__bollinger_stream_min_bytes = variant % 2 == 1 ? 0 : SIZE_MAX;
    apo__macd_stream_min_bytes = variant % 2 == 1 ? 0 : SIZE_MAX;
}

void streaming_as_built(void) {
    apo__bollinger_stream_min_bytes = APO_BOLLINGER_STREAM_MIN_BYTES;
    apo__macd_stream_min_bytes = APO_MACD_STREAM_MIN_BYTES;
}

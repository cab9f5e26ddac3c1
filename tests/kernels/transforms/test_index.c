/*
 * test_index.c: maxindex, minindex and minmaxindex (kernels/transforms/index_tile.h) against
 * TA-Lib itself: tests/data/talib_index.bin holds a series full of ties (prices on a grid of
 * ticks, flat stretches, runs up and down, gaps) and TA-Lib 0.8.1's MAXINDEX, MININDEX and
 * MINMAXINDEX of it at six periods (scripts/talib-index-fixture.py); every output must be
 * TA-Lib's integer exactly where the window is clean, NaN where it holds a gap or before the
 * lookback, over any tiling of the row and through a stream's carried pieces. The long-double
 * reference of TA-Lib's rule runs through the table-driven checks (catalog_more_fixtures.c).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"
#include "catalog_reference_common.h"
#include "splitmix64.h"

#define MAX_PERIODS 8

typedef struct index_fixture {
    size_t n, n_periods;
    double *x;
    size_t period[MAX_PERIODS];
    /* t - index of TA-Lib's MAXINDEX, MININDEX, MINMAXINDEX's minidx and maxidx; 255 before
     * the lookback. */
    unsigned char *back[MAX_PERIODS][4];
} index_fixture;

static uint32_t u32_at(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void fixture_load(index_fixture *f, unsigned char **file_bytes) {
    memset(f, 0, sizeof *f);
    FILE *file = fopen(APO_TEST_DATA_DIR "/talib_index.bin", "rb");
    cr_assert_not_null(file, "tests/data/talib_index.bin: scripts/talib-index-fixture.py makes it");
    unsigned char *all = malloc(1 << 20);
    cr_assert_not_null(all);
    const size_t size = fread(all, 1, 1 << 20, file);
    fclose(file);
    cr_assert(size > 16 && memcmp(all, "APOIDX1", 8) == 0, "not an index fixture");
    f->n = u32_at(all + 8);
    f->n_periods = u32_at(all + 12);
    cr_assert(f->n_periods <= MAX_PERIODS);
    cr_assert_eq(size, 16 + 2 * f->n + f->n_periods * (4 + 4 * f->n), "the fixture's size");
    f->x = malloc(f->n * sizeof(double));
    cr_assert_not_null(f->x);
    const unsigned char *b = all + 16;
    for (size_t t = 0; t < f->n; t++) {
        const int16_t v = (int16_t)(b[2 * t] | b[2 * t + 1] << 8);
        f->x[t] = v == INT16_MIN ? NAN : v == INT16_MAX ? INFINITY : v / 4.0;
    }
    b += 2 * f->n;
    for (size_t k = 0; k < f->n_periods; k++) {
        f->period[k] = u32_at(b);
        b += 4;
        for (int o = 0; o < 4; o++, b += f->n)
            f->back[k][o] = (unsigned char *)b;
    }
    *file_bytes = all;
}

/* The kernels, their outputs and which of the fixture's columns each output is. */
static const struct {
    apo__cat_id id;
    const char *name;
    int n_out, column[2];
} kernels[] = {{APO_CAT_MAXINDEX, "maxindex", 1, {0}},
               {APO_CAT_MININDEX, "minindex", 1, {1}},
               {APO_CAT_MINMAXINDEX, "minmaxindex", 2, {2, 3}}};

static apo__cat_io io_of(apo__cat_id id, const double *x, double *const *out, size_t period) {
    const double p = (double)period;
    return tile_io(id, &x, 1, &p, 1, out, 2);
}

/* TA-Lib's integer where the window [t - p + 1, t] is clean, else NaN. */
static size_t check_against_talib(const index_fixture *f, size_t k, int kernel, double *const *out,
                                  const char *how) {
    const size_t p = f->period[k];
    size_t ties = 0;
    for (int o = 0; o < kernels[kernel].n_out; o++) {
        const unsigned char *back = f->back[k][kernels[kernel].column[o]];
        for (size_t t = 0; t < f->n; t++) {
            if (!window_clean(f->x, p, t)) {
                cr_assert(isnan(out[o][t]), "%s %s period %zu output %d t %zu: %g, not NaN",
                          kernels[kernel].name, how, p, o, t, out[o][t]);
                continue;
            }
            const double want = (double)(t - back[t]);
            cr_assert_eq(out[o][t], want, "%s %s period %zu output %d t %zu: %g, TA-Lib %g",
                         kernels[kernel].name, how, p, o, t, out[o][t], want);
            size_t equal = 0;
            for (size_t i = t + 1 - p; i <= t; i++)
                equal += f->x[i] == f->x[(size_t)want];
            ties += equal > 1;
        }
    }
    return ties;
}

/* Every kernel at every period of the fixture: one tile, then tiles of random lengths (each
 * replays the row from its first window), run backwards. */
Test(index, talibs_integers_on_a_series_full_of_ties) {
    index_fixture f;
    unsigned char *bytes;
    fixture_load(&f, &bytes);
    double *out[2] = {malloc(f.n * sizeof(double)), malloc(f.n * sizeof(double))};
    cr_assert(out[0] != NULL && out[1] != NULL);
    size_t ties = 0;
    for (size_t k = 0; k < f.n_periods; k++)
        for (int ki = 0; ki < 3; ki++) {
            const apo__cat_io io = io_of(kernels[ki].id, f.x, out, f.period[k]);
            apo__cpu_catalog_tile(kernels[ki].id, &io, 0, f.n);
            ties += check_against_talib(&f, k, ki, out, "one tile");
            size_t cuts[64], n_cuts = 0;
            for (size_t b = 0; b < f.n && n_cuts < 63; n_cuts++) {
                cuts[n_cuts] = b;
                b += 1 + apo__splitmix64(7 * k + (uint64_t)ki, n_cuts) % 200;
            }
            cuts[n_cuts] = f.n;
            for (size_t c = n_cuts; c-- > 0;)
                apo__cpu_catalog_tile(kernels[ki].id, &io, cuts[c], cuts[c + 1]);
            check_against_talib(&f, k, ki, out, "random tiles");
        }
    cr_assert_gt(ties, 5000, "the fixture's clean windows hold ties: %zu", ties);
    free(out[0]);
    free(out[1]);
    free(f.x);
    free(bytes);
}

/* A stream's pieces (apo__cpu_catalog_resume, the carried tracker and ring of samples) give
 * the tile's bits, whether the pieces are one bar or many, at periods up to the longest a
 * stream takes. */
Test(index, carried_pieces_give_the_tiles_bits) {
    index_fixture f;
    unsigned char *bytes;
    fixture_load(&f, &bytes);
    const size_t periods[] = {2, 30, APO_INDEX_STREAM_PERIOD_MAX};
    double *tile[2] = {malloc(f.n * sizeof(double)), malloc(f.n * sizeof(double))};
    double *piece[2] = {malloc(f.n * sizeof(double)), malloc(f.n * sizeof(double))};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++)
        for (int ki = 0; ki < 3; ki++) {
            const apo__cat_id id = kernels[ki].id;
            const apo__cat_io io = io_of(id, f.x, tile, periods[pi]);
            apo__cpu_catalog_tile(id, &io, 0, f.n);
            const apo__cat_io pio = io_of(id, f.x, piece, periods[pi]);
            const size_t size = apo__catalog_resume_size(id);
            cr_assert_gt(size, APO_INDEX_STREAM_PERIOD_MAX * sizeof(double), "the ring's room");
            double *state = calloc(1, size);
            cr_assert_not_null(state);
            for (size_t b = 0, j = 0; b < f.n; j++) {
                const size_t len =
                    j % 3 == 0 ? 1 : 1 + apo__splitmix64(pi * 3 + (uint64_t)ki, j) % 400;
                const size_t e = b + len < f.n ? b + len : f.n;
                apo__cpu_catalog_resume(id, &pio, state, 1, b, e);
                b = e;
            }
            for (int o = 0; o < kernels[ki].n_out; o++)
                cr_assert(memcmp(tile[o], piece[o], f.n * sizeof(double)) == 0,
                          "%s period %zu output %d: pieces differ from the tile", kernels[ki].name,
                          periods[pi], o);
            free(state);
        }
    for (int o = 0; o < 2; o++) {
        free(tile[o]);
        free(piece[o]);
    }
    free(f.x);
    free(bytes);
}

/* A flat row: TA-Lib's first window scans (the first of the equal samples), and then each
 * scan again as the extreme leaves, so every index is the window's oldest bar; after a single
 * higher bar, the flat samples that follow are taken as they come (the latest) for as long as
 * the flat stretch lasts. */
Test(index, a_flat_stretch_keeps_how_it_began) {
    enum { N = 40, P = 5 };
    double x[N], a[N], b[N];
    for (size_t t = 0; t < N; t++)
        x[t] = t == 10 ? 2.0 : 1.0;
    double *out[2] = {a, b};
    const apo__cat_io io = io_of(APO_CAT_MAXINDEX, x, out, P);
    apo__cpu_catalog_tile(APO_CAT_MAXINDEX, &io, 0, N);
    for (size_t t = 0; t < P - 1; t++)
        cr_assert(isnan(a[t]));
    for (size_t t = P - 1; t < 10; t++)
        cr_assert_eq(a[t], (double)(t + 1 - P), "t %zu: the oldest of the flat window", t);
    for (size_t t = 10; t < 10 + P; t++)
        cr_assert_eq(a[t], 10.0, "t %zu: the higher bar", t);
    /* The higher bar leaves at 15: a scan takes the oldest flat sample, 11; at 16 it has left
     * again, and so on: the flat stretch after a scan stays with the oldest. */
    for (size_t t = 10 + P; t < N; t++)
        cr_assert_eq(a[t], (double)(t + 1 - P), "t %zu", t);
    /* Rising into the flat stretch takes the latest instead: 1, then 2 for ever. The first
     * window scans (bar 1, the first 2), and from there each new 2 replaces the last. */
    for (size_t t = 0; t < N; t++)
        x[t] = t == 0 ? 1.0 : 2.0;
    apo__cpu_catalog_tile(APO_CAT_MAXINDEX, &io, 0, N);
    cr_assert_eq(a[P - 1], 1.0);
    for (size_t t = P; t < N; t++)
        cr_assert_eq(a[t], (double)t, "t %zu: the latest of the flat window", t);
}

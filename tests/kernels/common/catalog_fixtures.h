/*
 * catalog_fixtures.h: what the catalog's kernel tests share (common/test_catalog_kernels.c,
 * the checks of every kernel of the table, with its slow counterpart; and the families' own
 * tests: averages/, oscillators/, statistics/, trend/): the table of kernels with their
 * long-double references (catalog_reference.c), the seeded OHLC walks they run on, the tile
 * grid a test runs a kernel over, the check of every output against its reference, series
 * full of ties, tiles in pieces and a stream's pieces against the whole tiles.
 */
#ifndef APO_TEST_CATALOG_FIXTURES_H
#define APO_TEST_CATALOG_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "catalog_compare.h"
#include "catalog_dispatch.h"
#include "catalog_reference.h"

typedef struct ref_kernel {
    apo__cat_id id;
    const char *name;
    size_t n_in; /* 1: close; 2: high, low; 3: high, low, close; 4: x, y (two walks) */
    apo__cat_ref_fn ref;
    double def[3]; /* the parameters after the period */
    size_t min_period;
    size_t out_index; /* the output the reference gives */
} ref_kernel;

/* Every kernel the table checks, one row per output that a reference gives. */
extern const ref_kernel catalog_kernels[];
extern const size_t n_catalog_kernels;

/* The inputs of a kernel reading (close) or (high, low, close). */
typedef struct series {
    size_t n;
    double *high, *low, *close;
    const double *in[3];
} series;

/* The walk from seed (apo__ref_ohlcv) for a kernel of n_in inputs, with gaps (NaN and an
 * infinity in every input) when gaps is nonzero. */
void series_make(series *s, uint64_t seed, size_t n, size_t n_in, double start, double step,
                 int gaps);
void series_free(series *s);

/* Runs kernel id over its tile grid, the tiles backwards, on vector path isa; run_grid on
 * apo__cpu_catalog_tile's path (sse2). Output out_index goes to out. */
void run_grid_on(apo__cat_id id, const series *s, const double *p, double *out, size_t out_index,
                 int isa);
void run_grid(apo__cat_id id, const series *s, const double *p, double *out, size_t out_index);

/* Every output of k against its reference within tol of the scale (a failure names "what");
 * returns the worst error relative to the scale. */
double check_against_reference(const ref_kernel *k, const series *s, const double *p, double tol,
                               const char *what);

/* The table's first row of the kernel of that name, or of that id. */
const ref_kernel *kernel_named(const char *name);
const ref_kernel *kernel_of(apo__cat_id id);

/* A (high, low, close) series of n bars whose samples are drawn at random from values (a
 * generator seeded with seed), so that equal samples (and zeros of both signs) meet
 * everywhere; not a valid OHLC series (the high may be below the low). */
void series_of_ties(series *s, uint64_t seed, size_t n, const double *values, size_t count);

/* Kernel id's bars [0, n) of io on path isa, one call a piece of `piece` bars (the last one
 * shorter). */
void tile_in_pieces(apo__cat_id id, const apo__cat_io *io, size_t n, size_t piece, int isa);

/* Room for n doubles starting at any double of a 64-byte line (free() it). */
double *on_a_line(size_t n);

/* One run of tiles_on_every_path(): its output and how it was made. */
typedef struct path_run {
    const double *got; /* output 0, n bars */
    int isa;
    size_t piece;  /* the bars of a call */
    size_t offset; /* output 0's first double in its 64-byte line */
} path_run;

/* Kernel id's bars [0, n) of io (its output 0 aside) on every path this CPU has, in pieces of
 * each of pieces[0..n_pieces), with output 0 starting at each of the eight doubles of a
 * 64-byte line, in that order (path, piece, offset); check(run, n, ctx) after each. */
void tiles_on_every_path(apo__cat_id id, const apo__cat_io *io, size_t n, const size_t *pieces,
                         size_t n_pieces, void (*check)(const path_run *run, size_t n, void *ctx),
                         void *ctx);

/* A stream's pieces (apo__cpu_catalog_resume) of kernel id at parameters p, on a gapped walk
 * from seed of two tiles and more, must give the bits of the tiles run whole: pieces of 1 to
 * 300 bars, cycling. */
void check_resumed_pieces(apo__cat_id id, const double *p, uint64_t seed);

#endif

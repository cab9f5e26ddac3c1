/*
 * catalog_more_fixtures.h: what the tests of the catalog's later kernels share
 * (test_catalog_more.c, the quick cases, and test_catalog_more_slow.c, the costly ones): the
 * table of kernels with their long-double references (catalog_reference_more.c), the seeded
 * OHLCV walks they run on, the tile grid a test runs a kernel over, and the check of every
 * output against its reference.
 */
#ifndef APO_TEST_CATALOG_MORE_FIXTURES_H
#define APO_TEST_CATALOG_MORE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "catalog_compare.h"
#include "catalog_dispatch.h"
#include "catalog_reference_momentum_dm.h"
#include "catalog_reference_more.h"
#include "catalog_reference_new_volume.h"
#include "catalog_reference_ta_new_momentum.h"
#include "catalog_reference_talib_ha.h"
#include "catalog_reference_talib_more1.h"
#include "catalog_reference_talib_more4.h"
#include "catalog_reference_transforms.h"

/* Which columns a kernel reads, in its order; UNIT: one series mostly in [-1, 1] (asin's and
 * acos's domain), 1.1 sin of the close. */
typedef enum cols_kind { CLOSE, XY, HL, HLC, HLCV, OC, OHLC, UNIT, HLV, CV, V } cols_kind;

typedef struct ref_kernel {
    apo__cat_id id;
    const char *name;
    cols_kind cols;
    size_t n_out;
    apo__cat_ref_more_fn ref;
    size_t min_period;
    double second; /* the second parameter (adosc's slowperiod); 0: none */
} ref_kernel;

/* Every kernel the table checks. */
extern const ref_kernel catalog_more_kernels[];
extern const size_t n_catalog_more_kernels;

/* k's three parameters at `period`: its second (ref_kernel.second), and a third for the kernels
 * that have one (ultosc's timeperiod3, 28), kept apart so that the table's rows keep their
 * fields. */
void kernel_params(const ref_kernel *k, double period, double p[3]);

/* An OHLCV walk and a second close (y, another walk), the kernel's inputs in its order. */
typedef struct series {
    size_t n;
    double *col[7]; /* high, low, close, volume, y, open, unit */
    const double *in[5];
    size_t n_in;
} series;

/* The walk from seed (apo__ref_ohlcv) with the columns of kind in s->in, with gaps (NaN and an
 * infinity spread over the inputs) when gaps is nonzero. */
void series_make(series *s, uint64_t seed, size_t n, cols_kind kind, double start, double step,
                 int gaps);
void series_free(series *s);

/* The call of kernel id over series s with parameters p (three: 0 past the kernel's own) into
 * the n_out outputs out. */
void io_make(apo__cat_io *io, apo__cat_id id, const series *s, const double *p, double *const *out,
             size_t n_out);

/* The call of kernel id on arrays: its n_in inputs in, its n_par parameters p (the others 0,
 * the halo theirs; p may be NULL where n_par is 0), into its n_out outputs out. */
apo__cat_io tile_io(apo__cat_id id, const double *const *in, size_t n_in, const double *p,
                    size_t n_par, double *const *out, size_t n_out);

/* Kernel id once over [0, n) as one tile, the call tile_io() makes of its arguments. */
void run_tile_once(apo__cat_id id, const double *const *in, size_t n_in, const double *p,
                   size_t n_par, double *const *out, size_t n_out, size_t n);

/* run_tile_once() of the first three parameters p into out0 and out1 (NULL where the kernel
 * has one output). */
void run_one_tile(apo__cat_id id, const double *const *in, size_t n_in, const double *p,
                  double *out0, double *out1, size_t n);

/* Runs k over its tile grid (apo__catalog_tile_len), the tiles backwards; p as io_make's. */
void run_grid(const ref_kernel *k, const series *s, const double *p, double *const *out);

/* Every output of k against its reference within tol of the scale (a failure names "what");
 * returns the worst error relative to the scale. */
double check_against_reference(const ref_kernel *k, const series *s, const double *p, double tol,
                               const char *what);

/* A kernel of the table against TA-Lib's recursion on a seeded walk (s, of `tiles` tiles of len
 * bars and `extra` more): got, its grid's first output, and want, for the case to fill with
 * TA-Lib's values; within the first tile the two have the same bits (talib_assert_first_tile). */
typedef struct talib_run {
    series s;
    double *got, *want;
    size_t len;
} talib_run;

void talib_run_make(talib_run *r, const ref_kernel *k, const double *p, uint64_t seed, size_t tiles,
                    size_t extra);

/* 1 when got and want have the same bits at bar t, or are both NaN. */
int talib_same_at(const talib_run *r, size_t t);

/* Fails unless talib_same_at every bar of the first tile; what names the case. */
void talib_assert_first_tile(const talib_run *r, const char *what);

void talib_run_free(talib_run *r);

#endif

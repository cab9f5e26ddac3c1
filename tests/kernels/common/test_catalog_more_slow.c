/*
 * test_catalog_more_slow.c: the costliest cases of the catalog's later kernels (the slow suite;
 * the quick ones are test_catalog_more.c, with the same table and helpers from
 * catalog_more_fixtures.c): every kernel against its long-double reference on seeded OHLCV
 * walks of lengths 1 to 1e5, periods from the lower bound to 5000, with and without gaps; the
 * recurrences whose tiles are long over several tiles; and a tile reads nothing outside its
 * halo and span (catalog_halo.c).
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <stdio.h>

#include "catalog_compare.h"
#include "catalog_dispatch.h"
#include "catalog_halo.h"
#include "catalog_more_fixtures.h"

/* A kernel of the table at one point of the grid: its reference on a seeded walk, its
 * parameters at the point's period (kernel_params). */
static double check_point(const void *kernel, const grid_point *at) {
    const ref_kernel *k = kernel;
    series s;
    series_make(&s, 1000 + 100 * at->ki + 10 * at->li + at->pi, at->length, k->cols, 100.0, 0.5,
                at->gaps);
    double p[3];
    kernel_params(k, (double)at->period, p);
    const double w = check_against_reference(k, &s, p, 1e-12, at->what);
    series_free(&s);
    return w;
}

/* The same grid as test_catalog_kernels_slow.c's (reference_grid), every period of it. */
Test(catalog_more, every_kernel_against_its_long_double_reference, .timeout = 900) {
    for (size_t ki = 0; ki < n_catalog_more_kernels; ki++) {
        const ref_kernel *k = &catalog_more_kernels[ki];
        const double worst = reference_grid(k, ki, k->min_period, 0, check_point);
        fprintf(stderr, "catalog %s: worst error %.2g of the scale\n", k->name, worst);
    }
}

/* The recurrences whose tiles are long (kama's halo is over 10,000 samples) on series of
 * several tiles, so that the warm-up of later tiles is checked against the reference. */
Test(catalog_more, recurrences_over_several_tiles, .timeout = 900) {
    const apo__cat_id ids[] = {APO_CAT_KAMA,    APO_CAT_ADX,      APO_CAT_PLUS_DI, APO_CAT_MINUS_DI,
                               APO_CAT_PLUS_DM, APO_CAT_MINUS_DM, APO_CAT_DX,      APO_CAT_ADXR};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const ref_kernel *k = NULL;
        for (size_t ki = 0; ki < n_catalog_more_kernels; ki++)
            if (catalog_more_kernels[ki].id == ids[i])
                k = &catalog_more_kernels[ki];
        cr_assert_not_null(k);
        const double p[3] = {k->id == APO_CAT_KAMA ? 10 : 14, 0, 0};
        const size_t len = apo__catalog_tile_len(k->id, p);
        for (int gaps = 0; gaps < 2; gaps++) {
            series s;
            series_make(&s, 77 + i, 3 * len + 1234, k->cols, 100.0, 0.5, gaps);
            const double w = check_against_reference(k, &s, p, 1e-12, "several tiles");
            fprintf(stderr, "catalog %s over %zu tiles, gaps %d: worst error %.2g\n", k->name,
                    (s.n + len - 1) / len, gaps, w);
            series_free(&s);
        }
    }
}

/* A tile reads nothing outside its halo and span (catalog_halo.h): every kernel of the table
 * at periods on both sides of the Wilder tiles' cut and of the window kernels' designs. */
Test(catalog_more, tiles_read_only_their_halo, .timeout = 300) {
    const double periods[] = {2, 14, 33, 64, 65, 200, 512, 513, 1025};
    for (size_t ki = 0; ki < n_catalog_more_kernels; ki++) {
        const ref_kernel *k = &catalog_more_kernels[ki];
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            double p[APO_CAT_MAX_PAR] = {0};
            kernel_params(k, periods[pi], p);
            size_t b, e, n;
            catalog_halo_tile(k->id, p, &b, &e, &n);
            series s;
            series_make(&s, 400 + ki + pi, n, k->cols, 100.0, 0.5, 0);
            check_tile_reads_only_its_halo(k->id, p, s.in, s.n_in, n, k->name);
            series_free(&s);
        }
    }
}

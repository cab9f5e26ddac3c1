/*
 * test_catalog_kernels_slow.c: the costliest cases of the catalog's tile bodies (the slow
 * suite; the quick ones are test_catalog_kernels.c, with the same table and helpers from
 * catalog_fixtures.c): every kernel of the table against its long-double reference on seeded
 * OHLC walks of lengths 1 to 1e5 (many tiles), periods from the lower bound to 5000, with and
 * without gaps; a tile reads nothing outside its halo and span (catalog_halo.c); and a
 * stream's pieces give the tiles' bits at every switch of the sliding designs.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beta_tile.h"
#include "catalog_compare.h"
#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "catalog_halo.h"
#include "correl_tile.h"
#include "linearreg_tile.h"
#include "var_tile.h"

/* A kernel of the table at one point of the grid: its reference on a seeded walk. */
static double check_point(const void *kernel, const grid_point *at) {
    const ref_kernel *k = kernel;
    /* The stochastics' references cost O(n fk sk sd). */
    if ((k->id == APO_CAT_STOCH || k->id == APO_CAT_STOCHF) && at->period * at->length > 20000000)
        return 0;
    series s;
    series_make(&s, 100 * at->ki + 10 * at->li + at->pi, at->length, k->n_in, 100.0, 0.5, at->gaps);
    const double p[APO_CAT_MAX_PAR] = {(double)at->period, k->def[0], k->def[1], k->def[2]};
    const double w = check_against_reference(k, &s, p, 1e-12, at->what);
    series_free(&s);
    return w;
}

Test(catalog, every_kernel_against_its_long_double_reference, .timeout = 600) {
    for (size_t ki = 0; ki < n_catalog_kernels; ki++) {
        const ref_kernel *k = &catalog_kernels[ki];
        /* A kernel of no period (min_period 0) is checked at the first alone. */
        const double worst = reference_grid(k, ki, k->min_period, k->min_period == 0, check_point);
        fprintf(stderr, "catalog %s: worst error %.2g of the scale\n", k->name, worst);
    }
}

/* A tile reads nothing outside its halo and span (catalog_halo.h): every kernel of the table
 * at periods on both sides of its designs' limits (direct windows, blocks, plain slides,
 * double-doubles). */
Test(catalog, tiles_read_only_their_halo, .timeout = 300) {
    const double periods[] = {14, 33, 64, 65, 200, 257, 512, 513, 1025};
    for (size_t ki = 0; ki < n_catalog_kernels; ki++) {
        const ref_kernel *k = &catalog_kernels[ki];
        if (apo__catalog_whole_row(k->id) || (ki > 0 && catalog_kernels[ki - 1].id == k->id))
            continue; /* one row's tile only; or the same kernel's other output */
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            if (k->min_period == 0 && pi > 0)
                break; /* no period */
            const double p[APO_CAT_MAX_PAR] = {periods[pi], k->def[0], k->def[1], k->def[2]};
            size_t b, e, n;
            catalog_halo_tile(k->id, p, &b, &e, &n);
            series s;
            series_make(&s, 300 + ki + pi, n, k->n_in, 100.0, 0.5, 0);
            check_tile_reads_only_its_halo(k->id, p, s.in,
                                           k->n_in == 1   ? 1
                                           : k->n_in == 4 ? 2
                                                          : 3,
                                           n, k->name);
            series_free(&s);
        }
    }
}

/* The kernels whose loops take blocks of bars (sma and wma side by side and between anchors,
 * window_plain.h; cci's blocks of windows, cci_tile.h) or tiles side by side (ema). The
 * periods reach both sides of each anchors' spacing's limit (64, 128, APO_PLAIN_NEAR_MAX 256),
 * of the plain windows' old limit (1024) and present one (APO_PLAIN_MAX, 4096) and, for cci, of
 * the blocks' old limit (64) and their present one (APO_CCI_BLOCK_MAX, 512). */
Test(catalog, resumed_pieces_have_the_tiles_bits, .timeout = 120) {
    const apo__cat_id ids[] = {APO_CAT_SMA, APO_CAT_WMA, APO_CAT_EMA, APO_CAT_CCI};
    const double periods[] = {2, 30, 64, 65, 128, 129, 256, 257, 512, 513, 1024, 1025, 4096, 4097};
    for (size_t ii = 0; ii < sizeof ids / sizeof ids[0]; ii++)
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const double p[APO_CAT_MAX_PAR] = {periods[pi], 0, 0, 0};
            check_resumed_pieces(ids[ii], p, 61 + ii + pi);
        }
}

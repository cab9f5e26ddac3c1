/*
 * catalog_halo.h: a catalog tile reads nothing outside its halo and span (catalog_halo.c),
 * checked by test_catalog_kernels_slow.c and test_catalog_more_slow.c over their kernels'
 * tables.
 *
 * On the CPU the rest of a series is in memory, so a tile that reads before its halo still
 * gets its bits there; a device that holds only a tile and its halo (a GPU's chunk, a stream's
 * kept bars) would not. The check poisons every other sample and compares bits.
 */
#ifndef APO_TEST_CATALOG_HALO_H
#define APO_TEST_CATALOG_HALO_H

#include <stddef.h>

#include "catalog_dispatch.h"

/* The tile the check runs for kernel id at parameters p (APO_CAT_MAX_PAR of them): the first tile
 * of the grid that starts past its halo, [*begin, *end), and the length *n of a series that holds
 * it with 100 bars to spare. */
void catalog_halo_tile(apo__cat_id id, const double *p, size_t *begin, size_t *end, size_t *n);

/* Runs that tile on in[0 .. n_in - 1] (n bars each), then on copies whose samples outside
 * [begin - h, end) are NaN, and asserts every output bitwise equal over [begin, end). */
void check_tile_reads_only_its_halo(apo__cat_id id, const double *p, const double *const *in,
                                    size_t n_in, size_t n, const char *name);

#endif

/*
 * catalog_compare.h: the one comparison of a catalog kernel's output with its long-double
 * reference that the catalog's kernel tests share (catalog_fixtures.c,
 * catalog_more_fixtures.c, test_catalog_cumulative.c), and the buffers they compare in.
 */
#ifndef APO_TEST_CATALOG_COMPARE_H
#define APO_TEST_CATALOG_COMPARE_H

#include <stddef.h>

/* malloc of n doubles (at least one), asserted. */
double *alloc_doubles(size_t n);

/* got against want over n bars: NaN exactly where want is NaN (with the canonical NaN's bits
 * where canonical_nan is nonzero), else within tol * scale; a failure names the kernel, what
 * and the bar. Returns the worst error relative to the scale (0 where the scale is 0, which
 * then requires equality). */
double compare_with_reference(const char *name, const char *what, const double *got,
                              const double *want, const double *scale, size_t n, double tol,
                              int canonical_nan);

/* One point of reference_grid: kernel ki of a table on a series of `length` bars (with gaps
 * where gaps is 1) at `period`, li and pi their indices in the grid (with ki, the seed's
 * parts); what names the three for a failure. */
typedef struct grid_point {
    size_t ki, li, pi, length, period;
    int gaps;
    const char *what;
} grid_point;

/* The check of a table's kernel (its ref_kernel) at one point. Returns the worst error
 * relative to the scale (0 for a point it leaves out). */
typedef double (*reference_grid_point)(const void *kernel, const grid_point *at);

/* The grid that test_catalog_kernels_slow.c and test_catalog_more_slow.c check each kernel of
 * their tables over, written once so that the two tables keep the same coverage: lengths 1 to
 * 1e5, periods min_period, min_period + 1, 14, 30, 200 and 5000 (the first alone where
 * first_period_only), without and with gaps, point called at each. Returns the worst error. */
double reference_grid(const void *kernel, size_t ki, size_t min_period, int first_period_only,
                      reference_grid_point point);

#endif

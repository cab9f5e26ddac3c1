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

#endif

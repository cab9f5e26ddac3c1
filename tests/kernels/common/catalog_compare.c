/*
 * catalog_compare.c: see catalog_compare.h.
 */
#include "catalog_compare.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

double *alloc_doubles(size_t n) {
    double *p = malloc((n > 0 ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    return p;
}

double compare_with_reference(const char *name, const char *what, const double *got,
                              const double *want, const double *scale, size_t n, double tol,
                              int canonical_nan) {
    const double nan_bits = NAN;
    double worst = 0;
    for (size_t t = 0; t < n; t++) {
        cr_assert_eq(isnan(got[t]), isnan(want[t]), "%s %s: t %zu got %.17g want %.17g", name, what,
                     t, got[t], want[t]);
        if (isnan(want[t])) {
            cr_assert(!canonical_nan || memcmp(&got[t], &nan_bits, sizeof nan_bits) == 0,
                      "%s %s: t %zu is not the NAN constant", name, what, t);
            continue;
        }
        const double err = fabs(got[t] - want[t]);
        cr_assert(err <= tol * scale[t], "%s %s: t %zu got %.17g want %.17g (scale %g)", name, what,
                  t, got[t], want[t], scale[t]);
        if (scale[t] > 0 && err / scale[t] > worst)
            worst = err / scale[t];
    }
    return worst;
}

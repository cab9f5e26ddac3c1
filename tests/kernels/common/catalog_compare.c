/*
 * catalog_compare.c: see catalog_compare.h.
 */
#include "catalog_compare.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
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

double reference_grid(const void *kernel, size_t ki, size_t min_period, int first_period_only,
                      reference_grid_point point) {
    const size_t lengths[] = {1, 2, 3, 15, 31, 500, 4097, 20011, 100000};
    const size_t periods[] = {min_period, min_period + 1, 14, 30, 200, 5000};
    double worst = 0;
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            if (first_period_only && pi > 0)
                break;
            /* Long windows on long series cost the references O(n p), minutes of CPU in CI's
             * five builds: periods past 30 are checked up to 20,011 bars, and the period of
             * 5,000 with values (past 5,000 bars) on the gapped series only;
             * periods_at_their_upper_bound (test_catalog_kernels.c, test_catalog_more.c) checks
             * the longest. */
            if (lengths[li] > 20011 && periods[pi] > 30)
                continue;
            for (int gaps = 0; gaps < 2; gaps++) {
                if (periods[pi] >= 5000 && lengths[li] > 5000 && !gaps)
                    continue;
                char what[96];
                snprintf(what, sizeof what, "n %zu period %zu gaps %d", lengths[li], periods[pi],
                         gaps);
                const grid_point at = {ki, li, pi, lengths[li], periods[pi], gaps, what};
                const double w = point(kernel, &at);
                worst = w > worst ? w : worst;
            }
        }
    }
    return worst;
}

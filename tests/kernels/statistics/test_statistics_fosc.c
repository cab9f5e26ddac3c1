/*
 * test_statistics_fosc.c: fosc, TA-Lib 0.8's forecast oscillator
 * (docs/kernels/volume_statistics.md, "TA-Lib 0.8's newer momentum indicators"), against the tsf
 * kernel whose body it runs a bar back, bit for bit. fosc against its long-double reference, over
 * its tile grid, with gaps, at its bounds, is the table of tests/kernels/common/
 * (catalog_more_fixtures.c).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* fosc is tsf's forecast a bar back: over one tile from 0, the tsf kernel's output at t - 1 gives
 * fosc at t, bit for bit, at periods of tsf's three designs (direct, plain slides, double-double
 * slides). */
Test(statistics_fosc, fosc_is_tsf_a_bar_back) {
    series s;
    series_make(&s, 33, 6000, CLOSE, 100.0, 0.5, 1);
    const double periods[] = {5, 60, 3000};
    double *f = alloc_doubles(s.n), *tsf = alloc_doubles(s.n), *spare = alloc_doubles(s.n);
    for (size_t k = 0; k < 3; k++) {
        const double p[3] = {periods[k], 0, 0};
        run_one_tile(APO_CAT_FOSC, s.in, 1, p, f, spare, s.n);
        run_one_tile(APO_CAT_TSF, s.in, 1, p, tsf, spare, s.n - 1);
        cr_assert(isnan(f[0]), "fosc at 0");
        for (size_t t = 1; t < s.n; t++) {
            const double x = s.in[0][t], g = tsf[t - 1];
            const double want = !(isfinite(g) && isfinite(x)) ? (double)NAN
                                : x == 0.0                    ? 0.0
                                                              : 100.0 * (x - g) / x;
            cr_assert(memcmp(&f[t], &want, sizeof want) == 0, "period %g t %zu: %a, %a", periods[k],
                      t, f[t], want);
        }
    }
    free(f);
    free(tsf);
    free(spare);
    series_free(&s);
}

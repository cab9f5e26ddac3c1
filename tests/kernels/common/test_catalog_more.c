/*
 * test_catalog_more.c: the catalog kernels zscore, plus_di, minus_di,
 * adx, mfi, mvwap, kama and adosc (kernels/common/catalog.h) against independent long-double
 * references (catalog_reference_more.c): parameters at their bounds, flat windows, mvwap's
 * windows without volume, tile order and grid; the directional movement's and adosc's first
 * tiles bitwise against TA-Lib's recursion in double. The costliest cases (every kernel over
 * lengths 1 to 1e5, recurrences over several long tiles, the halo check) are the slow suite's,
 * in test_catalog_more_slow.c; catalog_more_fixtures.c holds the table and helpers both use.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"
#include "cpu_isa.h"

/* The longest periods the parameters allow, on a series just long enough for them. */
Test(catalog_more, periods_at_their_upper_bound, .timeout = 900) {
    for (size_t ki = 0; ki < n_catalog_more_kernels; ki++) {
        const ref_kernel *k = &catalog_more_kernels[ki];
        series s;
        double p[3];
        kernel_params(k, 100000, p);
        series_make(&s, 7 + ki, apo__catalog_lookback(k->id, p) + 4, k->cols, 50.0, 0.25, 0);
        check_against_reference(k, &s, p, 1e-12, "period 100000");
        series_free(&s);
    }
}

/* Constant and zero inputs: the definitions' zero denominators give TA-Lib's 0 (mvwap: NaN
 * for a window without volume), exactly. */
Test(catalog_more, flat_windows) {
    const size_t n = 300;
    series s;
    series_make(&s, 5, n, HLCV, 100.0, 0.5, 0);
    for (size_t t = 0; t < n; t++) {
        if (t < 100) {
            s.col[0][t] = s.col[1][t] = s.col[2][t] = s.col[4][t] = 42.0;
            s.col[3][t] = 0.0;
        }
    }
    const double p[3] = {20, 0, 0};
    double *out[2] = {alloc_doubles(n), alloc_doubles(n)};
    apo__cat_io io;
    const struct {
        apo__cat_id id;
        double want;
        size_t first;
        int xy;
    } cases[] = {{APO_CAT_ZSCORE, 0.0, 19, 0},
                 {APO_CAT_MFI, 0.0, 20, 0},
                 {APO_CAT_MVWAP, NAN, 19, 0},
                 {APO_CAT_PLUS_DI, 0.0, 20, 0},
                 {APO_CAT_MINUS_DI, 0.0, 20, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        series one = s;
        if (cases[c].xy) {
            one.n_in = 2;
            one.in[0] = s.col[2];
            one.in[1] = s.col[4];
        } else if (cases[c].id == APO_CAT_ZSCORE) {
            one.n_in = 1;
            one.in[0] = s.col[2];
        }
        io_make(&io, cases[c].id, &one, p, out, 1);
        apo__cpu_catalog_tile(cases[c].id, &io, 0, n);
        for (size_t t = cases[c].first; t < 100; t++) {
            if (isnan(cases[c].want))
                cr_assert(isnan(out[0][t]), "case %zu t %zu: %g", c, t, out[0][t]);
            else
                cr_assert_eq(out[0][t], cases[c].want, "case %zu t %zu: %g", c, t, out[0][t]);
        }
        cr_assert(isfinite(out[0][199]), "case %zu: moving data gives a value", c);
    }
    free(out[0]);
    free(out[1]);
    series_free(&s);
}

/* Any tile grid of the same tile length gives the same bits whatever order its tiles run
 * in. */
Test(catalog_more, tiles_depend_on_the_grid_only, .timeout = 300) {
    for (size_t ki = 0; ki < n_catalog_more_kernels; ki++) {
        const ref_kernel *k = &catalog_more_kernels[ki];
        double p[3];
        kernel_params(k, 9, p);
        const size_t len = apo__catalog_tile_len(k->id, p);
        series s;
        series_make(&s, 31 + ki, 3 * len + 1000, k->cols, 100.0, 0.5, 1);
        double *a[APO_CAT_MAX_OUT], *b[APO_CAT_MAX_OUT];
        for (size_t o = 0; o < APO_CAT_MAX_OUT; o++) {
            a[o] = alloc_doubles(s.n);
            b[o] = alloc_doubles(s.n);
        }
        run_grid(k, &s, p, a);
        apo__cat_io io;
        io_make(&io, k->id, &s, p, b, k->n_out);
        for (size_t o = 0; o < k->n_out; o++)
            for (size_t t = 0; t < s.n; t++)
                b[o][t] = -1.0;
        for (size_t b0 = 0; b0 < s.n; b0 += len)
            apo__cpu_catalog_tile(k->id, &io, b0, b0 + len < s.n ? b0 + len : s.n);
        for (size_t o = 0; o < k->n_out; o++)
            cr_assert(memcmp(a[o], b[o], s.n * sizeof(double)) == 0, "%s: tile order changed bits",
                      k->name);
        for (size_t o = 0; o < APO_CAT_MAX_OUT; o++) {
            free(a[o]);
            free(b[o]);
        }
        series_free(&s);
    }
}

/*
 * test_trend_dmi.c: the directional movement (kernels/trend/dmi_tile.h: plus_di, minus_di and
 * adx): the first tile bitwise against TA-Lib's recursion written in plain double. Against
 * their long-double references (catalog_reference_more.c) over lengths 1 to 1e5, at their
 * upper bound, in any tile order, over several tiles and reading only their halo, they are
 * checked with every kernel of their table (common/test_catalog_more.c and its slow
 * counterpart); catalog_more_fixtures.c holds the table and helpers.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"

/* TA-Lib's directional movement, written in plain double from its sources' operation
 * order (TA_PLUS_DI, TA_MINUS_DI, TA_ADX with TA_IS_ZERO read as an exact 0) on a series
 * without gaps: the first tile must have these bits. */
static void talib_dmi(const series *s, size_t q, int which, double *out) {
    const double *h = s->in[0], *l = s->in[1], *c = s->in[2];
    double sp = 0, sm = 0, st = 0, sum_dx = 0, adx = 0;
    for (size_t t = 0; t < s->n; t++)
        out[t] = NAN;
    for (size_t t = 1; t < s->n; t++) {
        const double up = h[t] - h[t - 1], down = l[t - 1] - l[t];
        double tr = h[t] - l[t];
        if (fabs(c[t - 1] - h[t]) > tr)
            tr = fabs(c[t - 1] - h[t]);
        if (fabs(l[t] - c[t - 1]) > tr)
            tr = fabs(l[t] - c[t - 1]);
        if (t < q) {
            if (up > 0 && up > down)
                sp += up;
            if (down > 0 && up < down)
                sm += down;
            st += tr;
            continue;
        }
        sp -= sp / (double)q;
        sm -= sm / (double)q;
        if (up > 0 && up > down)
            sp += up;
        if (down > 0 && up < down)
            sm += down;
        st = st - (st / (double)q) + tr;
        const double pdi = st != 0 ? 100.0 * (sp / st) : 0, mdi = st != 0 ? 100.0 * (sm / st) : 0;
        if (which == 0) {
            out[t] = pdi;
            continue;
        }
        if (which == 1) {
            out[t] = mdi;
            continue;
        }
        const double sum = mdi + pdi;
        if (t < 2 * q) {
            if (st != 0 && sum != 0)
                sum_dx += 100.0 * (fabs(mdi - pdi) / sum);
            if (t == 2 * q - 1) {
                adx = sum_dx / (double)q;
                out[t] = adx;
            }
            continue;
        }
        if (st != 0 && sum != 0)
            adx = ((adx * (double)(q - 1)) + 100.0 * (fabs(mdi - pdi) / sum)) / (double)q;
        out[t] = adx;
    }
}

Test(catalog_more, directional_movement_has_talib_bits_in_its_first_tile, .timeout = 300) {
    const size_t periods[] = {2, 3, 14, 30};
    const apo__cat_id ids[] = {APO_CAT_PLUS_DI, APO_CAT_MINUS_DI, APO_CAT_ADX};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        for (int which = 0; which < 3; which++) {
            const size_t q = periods[pi];
            const double p[3] = {(double)q, 0, 0};
            const ref_kernel *k = &catalog_more_kernels[1 + which];
            cr_assert_eq(k->id, ids[which]);
            cr_assert_eq(k->cols, HLC);
            talib_run r;
            talib_run_make(&r, k, p, 5 + pi, 2, 999);
            talib_dmi(&r.s, q, which, r.want);
            char what[64];
            snprintf(what, sizeof what, "%s(%zu)", k->name, q);
            talib_assert_first_tile(&r, what);
            size_t differ = 0;
            for (size_t t = r.len; t < r.s.n; t++)
                differ += !talib_same_at(&r, t);
            fprintf(stderr, "catalog %s(%zu): %zu of %zu later outputs differ from TA-Lib's bits\n",
                    k->name, q, differ, r.s.n - r.len);
            talib_run_free(&r);
        }
    }
}

/*
 * test_momentum_ma.c: the catalog's momentum functions on moving averages (trix, macdfix;
 * docs/kernels/momentum.md, "Momentum from moving averages"): their first tile bitwise against
 * TA-Lib's recursions, written here in plain double in the operation order of TA-Lib's sources (so
 * the operation order is checked, not only the value), later tiles within far less than an ulp of
 * the data; trix's stream pieces against its whole tiles. Their accuracy against the
 * long-double references, tile order, halo and the runtime's split are the table's cases
 * (common/test_catalog_kernels*.c, catalog_fixtures.c's rows).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_fixtures.h"

/* TA-Lib's EMA in double over x[from, from + n) with NaN before its seed: the mean of the first
 * q values, then ((v - e) * k) + e. */
static void talib_ema_k(const double *x, size_t n, size_t q, double k, double *out) {
    double e = 0;
    for (size_t t = 0; t < n; t++) {
        out[t] = NAN;
        if (t < q) {
            e += x[t];
            if (t == q - 1) {
                e = e / (double)q;
                out[t] = e;
            }
            continue;
        }
        e = ((x[t] - e) * k) + e;
        out[t] = e;
    }
}

/* TA-Lib's TRIX: three EMAs in turn (each over the values of the one before, from its first),
 * then (e3 / e3' - 1) * 100, 0 where e3' is 0. */
static void talib_trix(const double *x, size_t n, size_t q, double *out) {
    const double k = 2.0 / (double)(q + 1);
    double *e1 = alloc_doubles(n), *e2 = alloc_doubles(n), *e3 = alloc_doubles(n);
    const size_t lb = q - 1;
    talib_ema_k(x, n, q, k, e1);
    for (size_t t = 0; t < n; t++)
        e2[t] = e3[t] = out[t] = NAN;
    if (n > lb)
        talib_ema_k(e1 + lb, n - lb, q, k, e2 + lb);
    if (n > 2 * lb)
        talib_ema_k(e2 + 2 * lb, n - 2 * lb, q, k, e3 + 2 * lb);
    for (size_t t = 3 * lb + 1; t < n; t++)
        out[t] = e3[t - 1] != 0.0 ? (e3[t] / e3[t - 1] - 1.0) * 100.0 : 0.0;
    free(e1);
    free(e2);
    free(e3);
}

/* TA-Lib's MACDFIX: the slow EMA of rate 0.075 seeded with the mean of the first 26 samples,
 * the fast of rate 0.15 with the mean of the 12 ending there, macd their difference, the signal
 * TA-Lib's EMA(signal) of macd, hist macd - signal; all NaN before 25 + (signal - 1). */
static void talib_macdfix(const double *x, size_t n, size_t signal, double *out[3]) {
    for (size_t o = 0; o < 3; o++)
        for (size_t t = 0; t < n; t++)
            out[o][t] = NAN;
    if (n < 26)
        return;
    double es = 0, ef = 0;
    for (size_t t = 0; t < 26; t++)
        es += x[t];
    for (size_t t = 14; t < 26; t++)
        ef += x[t];
    es = es / 26.0;
    ef = ef / 12.0;
    double *line = alloc_doubles(n), *sig = alloc_doubles(n);
    line[25] = ef - es;
    for (size_t t = 26; t < n; t++) {
        ef = ((x[t] - ef) * 0.15) + ef;
        es = ((x[t] - es) * 0.075) + es;
        line[t] = ef - es;
    }
    talib_ema_k(line + 25, n - 25, signal, 2.0 / (double)(signal + 1), sig + 25);
    for (size_t t = 25 + signal - 1; t < n; t++) {
        out[0][t] = line[t];
        out[1][t] = sig[t];
        out[2][t] = line[t] - sig[t];
    }
    free(line);
    free(sig);
}

/* got against TA-Lib's want: bitwise before `first`, within 1e-13 of the data's scale (100)
 * after; returns how many later outputs differ in any bit. */
static size_t check_first_tile_bits(const char *what, const double *got, const double *want,
                                    size_t n, size_t first, double tol) {
    size_t differ = 0;
    for (size_t t = 0; t < n; t++) {
        if (t < first) {
            cr_assert(memcmp(&got[t], &want[t], sizeof got[t]) == 0 ||
                          (isnan(got[t]) && isnan(want[t])),
                      "%s t %zu: %.17g, TA-Lib %.17g", what, t, got[t], want[t]);
        } else {
            cr_assert(fabs(got[t] - want[t]) <= tol, "%s t %zu: %.17g, TA-Lib %.17g", what, t,
                      got[t], want[t]);
            differ += memcmp(&got[t], &want[t], sizeof got[t]) != 0;
        }
    }
    return differ;
}

Test(catalog, trix_has_talib_bits_in_its_first_tile, .timeout = 120) {
    const size_t periods[] = {1, 2, 3, 5, 14, 30, 90};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const double p[4] = {(double)periods[pi], 0, 0, 0};
        const size_t first = apo__catalog_tile_len(APO_CAT_TRIX, p);
        series s;
        series_make(&s, 17 + pi, 2 * first + 777, 1, 100.0, 0.5, 0);
        double *got = alloc_doubles(s.n), *want = alloc_doubles(s.n);
        run_grid(APO_CAT_TRIX, &s, p, got, 0);
        talib_trix(s.close, s.n, periods[pi], want);
        char what[32];
        snprintf(what, sizeof what, "trix(%zu)", periods[pi]);
        /* trix is a ratio's change: an ulp of e3 is 100 * 2^-52 of trix. */
        const size_t differ = check_first_tile_bits(what, got, want, s.n, first, 1e-11);
        fprintf(stderr, "catalog %s: %zu of %zu later outputs differ from TA-Lib's bits\n", what,
                differ, s.n - first);
        free(got);
        free(want);
        series_free(&s);
    }
}

Test(catalog, macdfix_has_talib_bits_in_its_first_tile, .timeout = 120) {
    const size_t signals[] = {1, 2, 9, 30};
    for (size_t si = 0; si < sizeof signals / sizeof signals[0]; si++) {
        const double p[4] = {(double)signals[si], 0, 0, 0};
        const size_t first = apo__catalog_tile_len(APO_CAT_MACDFIX, p);
        series s;
        series_make(&s, 23 + si, 2 * first + 555, 1, 100.0, 0.5, 0);
        double *want[3] = {alloc_doubles(s.n), alloc_doubles(s.n), alloc_doubles(s.n)};
        talib_macdfix(s.close, s.n, signals[si], want);
        for (size_t o = 0; o < 3; o++) {
            double *got = alloc_doubles(s.n);
            run_grid(APO_CAT_MACDFIX, &s, p, got, o);
            char what[48];
            snprintf(what, sizeof what, "macdfix(%zu) output %zu", signals[si], o);
            const size_t differ = check_first_tile_bits(what, got, want[o], s.n, first, 1e-13);
            fprintf(stderr, "catalog %s: %zu of %zu later outputs differ from TA-Lib's bits\n",
                    what, differ, s.n - first);
            free(got);
        }
        for (size_t o = 0; o < 3; o++)
            free(want[o]);
        series_free(&s);
    }
}

/* trix streams as a start and a run (RUN): pieces of any length give the whole tiles' bits. */
Test(catalog, trix_resumed_pieces_have_the_tiles_bits, .timeout = 120) {
    const double periods[] = {1, 4, 30};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const double p[4] = {periods[pi], 0, 0, 0};
        check_resumed_pieces(APO_CAT_TRIX, p, 71 + pi);
    }
}

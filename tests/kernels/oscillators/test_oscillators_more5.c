/*
 * test_oscillators_more5.c: TA-Lib 0.8's SMI and KDJ in the oscillators' room (kernels/
 * oscillators/smi_tile.h, kdj_tile.h) against their long-double references
 * (catalog_reference_talib_more5.c) through group 2's shared check (talib_more2_cases.h), and by
 * hand: smi's stages' seeds, TA-Lib's 0 over flat windows and a gap that moves no stage; kdj's
 * Wilder averages and j, its SMA and WMA windows, its TRIMA, HMA, ZLEMA and KAMA, and the kind
 * of average its body refuses; stoch and stochf at matypes other than 0, which take kdj's body
 * (stoch_ma.h): against kdj's reference, the outputs kdj's k and d, and a call over several
 * tiles (the row's join) the bits of its tiles run one by one.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_reference_talib_more5.h"
#include "talib_more2_cases.h"

/* smi and kdj at their defaults, the shortest periods, and others: smi's slow and fast periods
 * swapped in size; kdj's kinds EMA, Wilder's (as 11 and 13), none, and TEMA at period 1, then
 * the kinds it takes over its computed series: SMA of both (STOCH's), WMA of fastk with a DEMA
 * d, TEMA with T3, T3 with a WMA d (k generated again behind d), Wilder's with an SMA d, SMA
 * with an EMA d; and those that read their series several distances back (ma_series_lagged.h):
 * TRIMA with a KAMA d, HMA with ZLEMA, KAMA with HMA (five k generators behind d), ZLEMA with
 * TRIMA, all four at period 2 (TRIMA's boxes of 1 and 2, HMA's h = s = 1, ZLEMA's lag 0), an HMA
 * d after Wilder's, and long windows (HMA 25 with SMA, TRIMA 20 with ZLEMA 30). */
static const more2_case cases[] = {
    {APO_CAT_SMI, "smi", HLC, 2, apo__ref_cat_smi, {13, 2, 25, 9}},
    {APO_CAT_SMI, "smi", HLC, 2, apo__ref_cat_smi, {2, 2, 2, 2}},
    {APO_CAT_SMI, "smi", HLC, 2, apo__ref_cat_smi, {30, 10, 3, 20}},
    {APO_CAT_SMI, "smi", HLC, 2, apo__ref_cat_smi, {5, 40, 60, 2}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {9, 3, 13, 3, 13}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {1, 1, 13, 1, 13}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {14, 5, 1, 20, 11}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {5, 30, 10, 1, 4}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {3, 2, 13, 40, 1}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {9, 3, 0, 3, 0}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {14, 5, 2, 4, 3}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {5, 4, 4, 6, 8}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {9, 3, 8, 7, 2}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {5, 10, 13, 7, 0}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {3, 6, 0, 25, 1}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {9, 3, 5, 3, 6}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {5, 4, 9, 3, 12}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {14, 10, 6, 9, 9}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {3, 7, 12, 6, 5}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {9, 2, 5, 2, 9}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {5, 2, 12, 2, 6}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {5, 3, 13, 16, 9}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {9, 25, 9, 4, 0}},
    {APO_CAT_KDJ, "kdj", HLC, 3, apo__ref_cat_kdj, {4, 20, 5, 30, 12}},
    /* stoch and stochf at matypes other than 0, which take kdj's body (stoch_ma.h): EMA, WMA
     * with DEMA, TEMA with T3, TRIMA with KAMA, an SMA k with an EMA d; stochf's fastd of each
     * kind TA-Lib's STOCHF takes but MAMA. */
    {APO_CAT_STOCH, "stoch", HLC, 2, apo__ref_cat_stoch_ma, {5, 3, 1, 3, 1}},
    {APO_CAT_STOCH, "stoch", HLC, 2, apo__ref_cat_stoch_ma, {14, 5, 2, 4, 3}},
    {APO_CAT_STOCH, "stoch", HLC, 2, apo__ref_cat_stoch_ma, {5, 4, 4, 6, 8}},
    {APO_CAT_STOCH, "stoch", HLC, 2, apo__ref_cat_stoch_ma, {9, 3, 5, 3, 6}},
    {APO_CAT_STOCH, "stoch", HLC, 2, apo__ref_cat_stoch_ma, {5, 3, 0, 7, 1}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {5, 3, 1}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {14, 5, 2}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {5, 9, 3}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {9, 4, 4}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {5, 6, 5}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {5, 12, 6}},
    {APO_CAT_STOCHF, "stochf", HLC, 2, apo__ref_cat_stochf_ma, {3, 5, 8}},
};
MORE2_TABLE_TESTS(oscillators_more5, cases)

/* All periods 2 (k = 2/3): windows of two bars. */
Test(oscillators_more5, smi_by_hand) {
    const double high[] = {10, 12, 11, 14, 13, NAN, 15, 16};
    const double low[] = {8, 9, 9, 10, 12, 11, 13, 14};
    const double close[] = {9, 11, 10, 13, 12, 12, 14, 15};
    enum { N = sizeof close / sizeof close[0] };
    const double *hlc[3] = {high, low, close};
    const double p[4] = {2, 2, 2, 2};
    double line[N], signal[N], *out[2] = {line, signal};
    run_tile_once(APO_CAT_SMI, hlc, 3, p, 4, out, 2, N);
    for (size_t t = 0; t < 4; t++)
        cr_assert(isnan(line[t]) && isnan(signal[t]), "lookback 4: bar %zu", t);
    /* Windows (num, den): bar 1 (1, 4), bar 2 (-0.5, 3), bar 3 (1.5, 5), bar 4 (0, 4).
     * Slow: seed at bar 2 (0.25, 3.5); bar 3 (1.0833.., 4.5); bar 4 (0.36111.., 4.1666..).
     * Fast: seed at bar 3 (0.66666.., 4); bar 4 (0.46296.., 4.1111..).
     * Line: bar 3 100 * 0.6667 / 2 = 33.333..; bar 4 100 * (25/54) / (37/18) = 22.5225..;
     * signal seeded at bar 4 with their mean (TA-Lib 0.8.1: 22.5225.. and 27.9279..). */
    const double line3 = 100.0 / 3.0, line4 = 2500.0 / 111.0;
    cr_assert(fabs(line[4] - line4) < 1e-12, "line 4: %.17g", line[4]);
    cr_assert(fabs(signal[4] - (line3 + line4) / 2) < 1e-12, "signal 4: %.17g", signal[4]);
    /* The NaN high at 5 is in the windows of bars 5 and 6. */
    for (size_t t = 5; t < 7; t++)
        cr_assert(isnan(line[t]) && isnan(signal[t]), "gap: bar %zu", t);
    cr_assert(isfinite(line[7]) && isfinite(signal[7]), "bar 7 moves on from bar 4's stages");
}

/* Flat bars: every range 0, TA-Lib's 0 for the line and so for the signal. */
Test(oscillators_more5, smi_of_flat_bars_is_0) {
    double h[60], out0[60], out1[60], *out[2] = {out0, out1};
    for (size_t t = 0; t < 60; t++)
        h[t] = 7.5;
    const double *hlc[3] = {h, h, h};
    const double p[4] = {13, 2, 25, 9};
    run_tile_once(APO_CAT_SMI, hlc, 3, p, 4, out, 2, 60);
    for (size_t t = 0; t < 45; t++)
        cr_assert(isnan(out0[t]) && isnan(out1[t]), "bar %zu", t);
    for (size_t t = 45; t < 60; t++)
        cr_assert(out0[t] == 0.0 && out1[t] == 0.0, "bar %zu: %g %g", t, out0[t], out1[t]);
}

/* kdj over the first n (up to 6) of the bars worked by hand, at fastk_period 2 and averages of
 * period 2 of the kinds p names: the lookback, 3, has no value. */
static void kdj_of_hand_bars(const double p[5], size_t n, double *k, double *d, double *j) {
    static const double high[] = {10, 12, 11, 14, 13, 15};
    static const double low[] = {8, 9, 9, 10, 12, 11};
    static const double close[] = {9, 11, 10, 13, 12, 14};
    cr_assert(n <= sizeof close / sizeof close[0]);
    const double *hlc[3] = {high, low, close};
    double *out[3] = {k, d, j};
    run_tile_once(APO_CAT_KDJ, hlc, 3, p, 5, out, 3, n);
    for (size_t t = 0; t < 3; t++)
        cr_assert(isnan(k[t]) && isnan(d[t]) && isnan(j[t]), "lookback 3: bar %zu", t);
}

/* fastk_period 2, slowk and slowd Wilder's at period 2. */
Test(oscillators_more5, kdj_by_hand) {
    const double p[5] = {2, 2, 13, 2, 13};
    double k[5], d[5], j[5];
    kdj_of_hand_bars(p, 5, k, d, j);
    /* fastk: bar 1 (11 - 8) / 4 = 75, bar 2 (10 - 9) / 3 = 33.33.., bar 3 (13 - 9) / 5 = 80,
     * bar 4 (12 - 10) / 4 = 50. k: seed at bar 2 162.5 / 3 = 54.166..; bar 3 (k + 80) / 2;
     * bar 4 (that + 50) / 2. d: seed at bar 3 the mean of k at 2 and 3. */
    const double k2 = (75.0 + 100.0 / 3.0) / 2.0, k3 = (k2 + 80.0) / 2.0, k4 = (k3 + 50.0) / 2.0;
    const double d3 = (k2 + k3) / 2.0, d4 = (d3 + k4) / 2.0;
    cr_assert(fabs(k[3] - k3) < 1e-12 && fabs(d[3] - d3) < 1e-12, "bar 3: %.17g %.17g", k[3], d[3]);
    cr_assert(fabs(k[4] - k4) < 1e-12 && fabs(d[4] - d4) < 1e-12, "bar 4: %.17g %.17g", k[4], d[4]);
    cr_assert(fabs(j[4] - (3.0 * k4 - 2.0 * d4)) < 1e-12, "j 4: %.17g", j[4]);
}

/* The body takes recurrences over fastk and every kind ma_series.h takes over a computed series,
 * TRIMA, KAMA, HMA and ZLEMA among them; MAMA (7) above period 1 is refused by the runtime
 * (test_catalog_runtime.c), and the body, called with it, writes NaN rather than a guess. */
Test(oscillators_more5, kdj_takes_every_kind_but_mama) {
    for (int kind = 0; kind <= 13; kind++) {
        cr_assert(apo__kdj_takes_ma(kind, 1), "kind %d at period 1", kind);
        cr_assert(apo__kdj_takes_ma(kind, 2) == (kind != 7), "kind %d at period 2", kind);
        cr_assert(apo__kdj_takes_ma(kind, 40) == (kind != 7), "kind %d at period 40", kind);
    }
    double h[30], k[30], d[30], j[30], *out[3] = {k, d, j};
    for (size_t t = 0; t < 30; t++)
        h[t] = 50.0 + (double)(t % 7);
    const double *hlc[3] = {h, h, h};
    const double p[5] = {9, 3, 7, 3, 13};
    run_tile_once(APO_CAT_KDJ, hlc, 3, p, 5, out, 3, 30);
    for (size_t t = 0; t < 30; t++)
        cr_assert(isnan(k[t]) && isnan(d[t]) && isnan(j[t]), "bar %zu", t);
}

/* kdj at fastk_period 1 over bars whose fastk is their close (high 100, low 0), k the kind of
 * average kind at period p, and d no average (d = k): k[t] into k. */
static void kdj_k_of_fastk(const double *f, size_t n, double kind, double p, double *k) {
    double high[16], low[16], d[16], j[16], *out[3] = {k, d, j};
    cr_assert(n <= 16);
    for (size_t t = 0; t < n; t++)
        high[t] = 100.0, low[t] = 0.0;
    const double *hlc[3] = {high, low, f};
    const double par[5] = {1, p, kind, 1, 10};
    run_tile_once(APO_CAT_KDJ, hlc, 3, par, 5, out, 3, n);
}

/* TRIMA, HMA, ZLEMA and KAMA of a fastk worked by hand: each lookback NaN, then the definition. */
Test(oscillators_more5, kdj_trima_hma_zlema_and_kama_by_hand) {
    enum { N = 6 };
    const double f[N] = {10, 40, 20, 50, 30, 60};
    double k[N];
    /* TRIMA(3): weights 1, 2, 1 over 4; TRIMA(4): 1, 2, 2, 1 over 6. */
    kdj_k_of_fastk(f, N, 5, 3, k);
    cr_assert(isnan(k[1]) && k[2] == 27.5 && k[3] == 32.5 && k[4] == 37.5, "trima 3: %.17g", k[2]);
    kdj_k_of_fastk(f, N, 5, 4, k);
    cr_assert(isnan(k[2]) && k[3] == 30.0 && k[4] == 35.0, "trima 4: %.17g %.17g", k[3], k[4]);
    /* HMA(4): h = s = 2, d = 2 WMA(2) - WMA(4): d3 = 2 * 120 / 3 - 350 / 10 = 45,
     * d4 = 2 * 110 / 3 - 350 / 10; HMA at 4 (d3 + 2 d4) / 3. */
    kdj_k_of_fastk(f, N, 9, 4, k);
    const double d4 = 220.0 / 3.0 - 35.0;
    cr_assert(isnan(k[3]) && fabs(k[4] - (45.0 + 2.0 * d4) / 3.0) < 1e-12, "hma: %.17g", k[4]);
    /* ZLEMA(3): lag 1, y = 2 f - f[-1] = 70, 0, 80, 10, 90 from bar 1; seed 50 at bar 3, then
     * halfway to each y. */
    kdj_k_of_fastk(f, N, 12, 3, k);
    cr_assert(isnan(k[2]) && k[3] == 50.0 && k[4] == 30.0 && k[5] == 60.0, "zlema: %.17g", k[3]);
    /* KAMA(2): seed 40 at bar 1; at bar 2 the noise |20 - 40| + |40 - 10| = 50 and roc 10 (er
     * 0.2), at bar 3 noise 30 + 20 = 50 and roc 10 again. */
    kdj_k_of_fastk(f, N, 6, 2, k);
    const double slow = 2.0 / 31.0,
                 sc = (0.2 * (2.0 / 3.0 - slow) + slow) * (0.2 * (2.0 / 3.0 - slow) + slow);
    const double kama2 = 40.0 + sc * (20.0 - 40.0), kama3 = kama2 + sc * (50.0 - kama2);
    cr_assert(isnan(k[1]) && fabs(k[2] - kama2) < 1e-12 && fabs(k[3] - kama3) < 1e-12,
              "kama: %.17g %.17g", k[2], k[3]);
}

/* fastk_period 2, an SMA of 2 for k and a WMA of 2 for d, by hand: the windows' first values
 * and the value leaving each (k's from fastk, d's from k). */
Test(oscillators_more5, kdj_sma_and_wma_by_hand) {
    enum { N = 6 };
    const double p[5] = {2, 2, 0, 2, 2};
    double k[N], d[N], j[N];
    kdj_of_hand_bars(p, N, k, d, j);
    /* fastk: bar 1 75, bar 2 33.33.., bar 3 80, bar 4 50, bar 5 (14 - 11) / 4 = 75. k, the mean
     * of two: bar 2 54.166.., bar 3 56.666.., bar 4 65, bar 5 62.5. d, weights 1 and 2 over 3. */
    const double f[6] = {NAN, 75.0, 100.0 / 3.0, 80.0, 50.0, 75.0};
    for (size_t t = 3; t < N; t++) {
        const double k1 = (f[t - 2] + f[t - 1]) / 2.0, k0 = (f[t - 1] + f[t]) / 2.0;
        const double dw = (k1 + 2.0 * k0) / 3.0;
        cr_assert(fabs(k[t] - k0) < 1e-12 && fabs(d[t] - dw) < 1e-12, "bar %zu: %.17g %.17g", t,
                  k[t], d[t]);
        cr_assert(fabs(j[t] - (3.0 * k0 - 2.0 * dw)) < 1e-12, "j %zu: %.17g", t, j[t]);
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The bars of the stochastics' rows below: three tiles and a part. */
enum { STOCH_BARS = 3 * 4096 + 777 };

/* Kernel id over [0, STOCH_BARS) as one call over the row's tiles of len bars (io->tile len, as the
 * runtime joins them) into joined, and tile by tile into tiled. */
static void joined_and_tiled(apo__cat_io *io, apo__cat_id id, size_t len, double *const *joined,
                             double *const *tiled) {
    io->out[0] = joined[0];
    io->out[1] = joined[1];
    io->tile = len;
    apo__cpu_catalog_tile(id, io, 0, STOCH_BARS);
    io->tile = 0;
    io->out[0] = tiled[0];
    io->out[1] = tiled[1];
    for (size_t b = 0; b < STOCH_BARS; b += len)
        apo__cpu_catalog_tile(id, io, b, b + len < STOCH_BARS ? b + len : STOCH_BARS);
}

/* stoch and stochf at a matype other than 0 are kdj's k and d at kdj's parameters, bit for bit
 * (stoch_ma.h), and a call over several tiles of the grid (the runtime joins a row's tiles:
 * io.tile) gives the bits of those tiles run one by one. */
Test(oscillators_more5, stochastics_of_other_kinds_are_kdjs_k_and_d_by_tiles) {
    static const struct {
        apo__cat_id id;
        double p[5], kdj[5];
    } cases[] = {
        {APO_CAT_STOCH, {5, 3, 1, 3, 1}, {5, 3, 1, 3, 1}},
        {APO_CAT_STOCH, {14, 5, 2, 4, 3}, {14, 5, 2, 4, 3}},
        {APO_CAT_STOCHF, {5, 3, 1}, {5, 1, 0, 3, 1}},
        {APO_CAT_STOCHF, {9, 4, 4}, {9, 1, 0, 4, 4}},
    };
    series s;
    series_make(&s, 91, STOCH_BARS, HLC, 100.0, 0.5, 1);
    double *k = alloc_doubles(STOCH_BARS), *d = alloc_doubles(STOCH_BARS),
           *j = alloc_doubles(STOCH_BARS);
    double *joined[2] = {alloc_doubles(STOCH_BARS), alloc_doubles(STOCH_BARS)};
    double *tiled[2] = {alloc_doubles(STOCH_BARS), alloc_doubles(STOCH_BARS)};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const size_t n_par = cases[c].id == APO_CAT_STOCH ? 5 : 3;
        apo__cat_io io = tile_io(cases[c].id, s.in, 3, cases[c].p, n_par, joined, 2);
        const size_t len = apo__catalog_tile_len(cases[c].id, io.p);
        joined_and_tiled(&io, cases[c].id, len, joined, tiled);
        /* With a warm-up shorter than the row's halo a tile's chain does not meet the run
         * before it, so only a call cut at the grid gives the tiles' bits. */
        apo__cat_io short_io = io;
        short_io.h = apo__catalog_lookback(cases[c].id, io.p);
        joined_and_tiled(&short_io, cases[c].id, len, joined, tiled);
        for (size_t t = 0; t < STOCH_BARS; t++)
            cr_assert(same_bits(joined[0][t], tiled[0][t]) && same_bits(joined[1][t], tiled[1][t]),
                      "case %zu, short warm-up, t %zu", c, t);
        joined_and_tiled(&io, cases[c].id, len, joined, tiled);
        double *kdj_out[3] = {k, d, j};
        apo__cat_io kio = tile_io(APO_CAT_KDJ, s.in, 3, cases[c].kdj, 5, kdj_out, 3);
        cr_assert_eq(kio.h, io.h, "case %zu: the halo is kdj's", c);
        cr_assert_eq(apo__catalog_lookback(APO_CAT_KDJ, kio.p),
                     apo__catalog_lookback(cases[c].id, io.p), "case %zu: the lookback", c);
        for (size_t b = 0; b < STOCH_BARS; b += len)
            apo__cpu_catalog_tile(APO_CAT_KDJ, &kio, b,
                                  b + len < STOCH_BARS ? b + len : STOCH_BARS);
        size_t values = 0;
        for (size_t t = 0; t < STOCH_BARS; t++) {
            cr_assert(same_bits(joined[0][t], tiled[0][t]) && same_bits(joined[1][t], tiled[1][t]),
                      "case %zu t %zu: joined %.17g %.17g, tiled %.17g %.17g", c, t, joined[0][t],
                      joined[1][t], tiled[0][t], tiled[1][t]);
            cr_assert(same_bits(tiled[0][t], k[t]) && same_bits(tiled[1][t], d[t]),
                      "case %zu t %zu: %.17g %.17g, kdj %.17g %.17g", c, t, tiled[0][t],
                      tiled[1][t], k[t], d[t]);
            values += isfinite(tiled[1][t]);
        }
        cr_assert_gt(values, STOCH_BARS / 2, "case %zu: %zu values", c, values);
    }
    for (int o = 0; o < 2; o++) {
        free(joined[o]);
        free(tiled[o]);
    }
    free(k);
    free(d);
    free(j);
    series_free(&s);
}

/*
 * test_momentum_new.c: TA-Lib 0.8's newer momentum kernels (docs/kernels/volume_statistics.md,
 * "TA-Lib 0.8's newer momentum indicators") of the oscillators' room, qstick, ao, ac, dpo, cmou,
 * er, vhf, coppock, eri and tsi, on bars worked by hand, flat series, eri against the ema
 * kernel and ac against the ao kernel bit for bit (vortex: tests/kernels/trend/test_trend_vortex.c;
 * fosc: tests/kernels/statistics/test_statistics_fosc.c). Every kernel against its long-double
 * reference, over its tile grid, with gaps, at its bounds, is the table of tests/kernels/common/
 * (catalog_more_fixtures.c, test_catalog_more.c and test_catalog_more_slow.c).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"
#include "cpu_isa.h"

#define N 8

static void near(double got, double want, const char *what) {
    cr_assert(fabs(got - want) <= 1e-13 * (1 + fabs(want)), "%s: %.17g, want %.17g", what, got,
              want);
}

/* Closes 1 2 4 3 5 5 5 5: rises 1, 2, 2; falls 1; then flat. */
static const double closes[N] = {1, 2, 4, 3, 5, 5, 5, 5};

Test(momentum_new, closes_worked_by_hand) {
    const double *in[1] = {closes};
    double out[N], spare[N];
    const double p2[3] = {2, 0, 0};
    run_one_tile(APO_CAT_CMOU, in, 1, p2, out, spare, N);
    cr_assert(isnan(out[1]), "cmou: lookback 2");
    near(out[2], 100.0, "cmou at 2: rises 1 and 2");
    near(out[3], 100.0 / 3.0, "cmou at 3: a rise of 2, a fall of 1");
    cr_assert_eq(out[7], 0.0, "cmou: a flat window is 0");
    run_one_tile(APO_CAT_ER, in, 1, p2, out, spare, N);
    near(out[3], 1.0 / 3.0, "er at 3: net 1 over a path of 3");
    near(out[4], 1.0 / 3.0, "er at 4: net 1 over a path of 1 + 2");
    cr_assert_eq(out[7], 1.0, "er: a flat window is 1");
    run_one_tile(APO_CAT_VHF, in, 1, p2, out, spare, N);
    near(out[3], 1.0 / 3.0, "vhf at 3: range of 4, 3 over a path of 3");
    cr_assert_eq(out[7], 0.0, "vhf: a flat window is 0");
    run_one_tile(APO_CAT_DPO, in, 1, p2, out, spare, N);
    cr_assert(isnan(out[1]), "dpo: lookback max(1, 2)");
    near(out[2], 1.0 - 3.0, "dpo at 2: x[0] less the mean of 2 and 4");
    const double cp[3] = {2, 1, 2};
    run_one_tile(APO_CAT_COPPOCK, in, 1, cp, out, spare, N);
    cr_assert(isnan(out[2]), "coppock: lookback 2 + 2 - 1");
    /* S[2] = 100 (4/2 - 1) + 100 (4/1 - 1) = 400; S[3] = 100 (3/4 - 1) + 100 (3/2 - 1) = 25. */
    near(out[3], (400.0 + 2 * 25.0) / 3.0, "coppock at 3");
}

Test(momentum_new, bars_worked_by_hand) {
    const double open[N] = {1, 2, 4, 3, 5, 5, 5, 5}, close[N] = {2, 1, 5, 5, 5, 6, 4, 5};
    const double high[N] = {3, 4, 6, 6, 6, 7, 6, 6}, low[N] = {1, 1, 2, 2, 4, 5, 3, 4};
    double out[N], out1[N];
    const double *oc[2] = {open, close}, *hl[2] = {high, low}, *hlc[3] = {high, low, close};
    const double p2[3] = {2, 0, 0};
    run_one_tile(APO_CAT_QSTICK, oc, 2, p2, out, out1, N);
    near(out[1], (1.0 - 1.0) / 2.0, "qstick at 1: bodies 1 and -1");
    near(out[2], (-1.0 + 1.0) / 2.0, "qstick at 2");
    near(out[3], (1.0 + 2.0) / 2.0, "qstick at 3");
    /* Medians 2 2.5 4 4 5 6 4.5 5. */
    const double ao[3] = {2, 3, 0};
    run_one_tile(APO_CAT_AO, hl, 2, ao, out, out1, N);
    cr_assert(isnan(out[1]), "ao: lookback 3 - 1");
    near(out[2], (2.5 + 4) / 2 - (2 + 2.5 + 4) / 3, "ao at 2");
    near(out[3], 4.0 - (2.5 + 4 + 4) / 3, "ao at 3");
    const double ac[3] = {2, 3, 2};
    run_one_tile(APO_CAT_AC, hl, 2, ac, out, out1, N);
    cr_assert(isnan(out[2]), "ac: lookback 2 + 1");
    const double ao2 = (2.5 + 4) / 2 - (2 + 2.5 + 4) / 3, ao3 = 4.0 - (2.5 + 4 + 4) / 3;
    near(out[3], ao3 - (ao2 + ao3) / 2, "ac at 3");
    const double p1[3] = {1, 0, 0};
    run_one_tile(APO_CAT_ERI, hlc, 3, p1, out, out1, N);
    near(out[4], 6.0 - 5.0, "eri at period 1: bullpower is high - close");
    near(out1[4], 4.0 - 5.0, "eri at period 1: bearpower is low - close");
}

/* A walk that stops moving: the oscillators' zero denominators give TA-Lib's values exactly. */
Test(momentum_new, flat_stretches) {
    const size_t n = 400;
    double *a = alloc_doubles(n), *b = alloc_doubles(n);
    /* tsi's averages of the changes' magnitudes only decay after the walk stops (TA-Lib's too):
     * it is 0 where no movement ever reached them, a series flat from its start. */
    double *flat = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        flat[t] = 42.0;
    const double *close[1] = {flat};
    const double tsi[3] = {3, 2, 0};
    run_one_tile(APO_CAT_TSI, close, 1, tsi, a, b, n);
    cr_assert(isnan(a[3]) && a[4] == 0.0 && a[n - 1] == 0.0, "tsi of a flat series: 0 from 4");
    free(flat);
    free(a);
    free(b);
}

/* eri's EMA is the ema kernel's body: over the same grid, bullpower and bearpower are the
 * extremes less ema's outputs, bit for bit. */
Test(momentum_new, eri_is_the_extremes_less_the_ema_kernel) {
    series s;
    series_make(&s, 21, 20000, HLC, 100.0, 0.5, 1);
    const double p[3] = {13, 0, 0};
    const size_t len = apo__catalog_tile_len(APO_CAT_ERI, p);
    double *bull = alloc_doubles(s.n), *bear = alloc_doubles(s.n), *e = alloc_doubles(s.n);
    apo__cat_io io, eio;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < 3; i++)
        io.in[i] = s.in[i];
    io.out[0] = bull;
    io.out[1] = bear;
    io.p[0] = 13;
    io.h = apo__catalog_halo(APO_CAT_ERI, p);
    eio = io;
    eio.in[0] = s.in[2];
    eio.out[0] = e;
    cr_assert_eq(io.h, apo__catalog_halo(APO_CAT_EMA, p), "eri's halo is ema's");
    for (size_t b = 0; b < s.n; b += len) {
        const size_t end = b + len < s.n ? b + len : s.n;
        apo__cpu_catalog_tile(APO_CAT_ERI, &io, b, end);
        apo__cpu_catalog_tile(APO_CAT_EMA, &eio, b, end);
    }
    for (size_t t = 0; t < s.n; t++) {
        const double h = s.in[0][t], l = s.in[1][t];
        const double wb = isfinite(e[t]) && isfinite(h) ? h - e[t] : (double)NAN;
        const double wl = isfinite(e[t]) && isfinite(l) ? l - e[t] : (double)NAN;
        cr_assert(memcmp(&bull[t], &wb, sizeof wb) == 0 && memcmp(&bear[t], &wl, sizeof wl) == 0,
                  "t %zu", t);
    }
    free(bull);
    free(bear);
    free(e);
    series_free(&s);
}

/* ac is ao less the mean of ao's last signalperiod outputs, summed oldest first (ao_tile.h),
 * bit for bit, on every vector path, over the tile grid, with gaps: at the defaults, at a signal
 * longer than the slow period, and past the blocks' bounds (the scalar loop). */
Test(momentum_new, ac_is_ao_less_the_mean_of_aos_outputs) {
    static const struct {
        double fast, slow, signal;
        size_t n;
    } cases[] = {{5, 34, 5, 20000}, {3, 7, 12, 5000}, {5, 600, 5, 3000}, {4, 9, 520, 2000}};
    size_t compared = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        series s;
        series_make(&s, 31 + c, cases[c].n, HLC, 100.0, 0.5, 1);
        const double p[3] = {cases[c].fast, cases[c].slow, cases[c].signal};
        const size_t signal = (size_t)p[2];
        double *ac = alloc_doubles(s.n), *ao = alloc_doubles(s.n);
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            apo__cat_io io;
            memset(&io, 0, sizeof io);
            io.in[0] = s.in[0];
            io.in[1] = s.in[1];
            io.p[0] = p[0];
            io.p[1] = p[1];
            io.p[2] = p[2];
            apo__cat_io aio = io;
            io.out[0] = ac;
            io.h = apo__catalog_halo(APO_CAT_AC, p);
            aio.out[0] = ao;
            aio.h = apo__catalog_halo(APO_CAT_AO, p);
            const size_t len = apo__catalog_tile_len(APO_CAT_AC, p);
            for (size_t b = 0; b < s.n; b += len) {
                const size_t end = b + len < s.n ? b + len : s.n;
                apo__cpu_catalog_tile_on(APO_CAT_AC, &io, b, end, isa);
                apo__cpu_catalog_tile_on(APO_CAT_AO, &aio, b, end, isa);
            }
            const size_t longer = p[0] > p[1] ? (size_t)p[0] : (size_t)p[1];
            for (size_t t = longer + signal - 2; t < s.n; t++) {
                double last = ao[t + 1 - signal], sum = last;
                for (size_t u = t + 2 - signal; u <= t; u++) {
                    last = ao[u];
                    sum = sum + last;
                }
                double want = last - sum / (double)signal;
                want = isfinite(want) ? want : (double)NAN;
                cr_assert(memcmp(&ac[t], &want, sizeof want) == 0,
                          "ac(%g, %g, %g) on %s: t %zu got %.17g want %.17g", p[0], p[1], p[2],
                          apo__cpu_isa_name((apo__cpu_isa)isa), t, ac[t], want);
                compared++;
            }
        }
        free(ac);
        free(ao);
        series_free(&s);
    }
    cr_assert_gt(compared, 20000);
}

/*
 * Streams against the batch: for every kernel with per-bar outputs (the catalog, bollinger,
 * macd, user kernels with a halo), at its defaults and other parameters, the outputs of the
 * updates laid end to end are bitwise one apo_distribute_workload call over the whole
 * history, however the bars were cut into updates (one chunk, bar by bar, random counts that
 * differ per series, zero included), with gaps of NaN bars; the cumulative obv and ad too,
 * whose streams carry the running sum across tiles. And the reductions are refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "stream_fixtures.h"
#include "test_user_kernel.h"

#define ROWS 3

/* The three plans on one case, each on a fresh stream. The random plan's updates are of 0 to
 * 700 bars, or to a 16th of the tile where that is more: a kernel whose stream runs its tile
 * again from the tile's origin at every update (stoch over KAMA and DEMA, kdj's body: tiles of
 * 343,616 bars) costs half a tile an update on average, and updates of at most 700 bars made
 * that one case 81 of the whole file's 135 CPU seconds (the file took some 550 s of an ASan
 * stage). */
static void check_all_plans(apo_runtime *rt, const stream_case *c, uint64_t seed) {
    static const stream_plan plans[] = {PLAN_ONE_CHUNK, PLAN_BAR_BY_BAR, PLAN_RANDOM};
    const size_t most = c->tile / 16 > 700 ? c->tile / 16 : 700;
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
        stream_check_plan_fresh(rt, c, plans[p], seed + p, most);
    }
}

/* Runs a kernel at some parameters over two tile boundaries and a bit; series 0 has no
 * gaps, series 1 scattered NaN bars, series 2 a run of them across its first tile boundary.
 * Returns 0 when the batch call itself refuses the parameters (then skipped). */
static int check_kernel(apo_runtime *rt, const char *kernel, const apo_param *params,
                        size_t n_params, uint64_t seed) {
    /* Probe the tile length with a short case first: the history is sized by it. */
    const size_t tile = stream_probe_tile(rt, kernel, params, n_params, ROWS, seed, NULL);
    stream_case c;
    apo_status st =
        stream_case_init(&c, rt, kernel, params, n_params, ROWS, 2 * tile + 137, seed, 1);
    if (st != APO_OK) {
        cr_assert_eq(st, APO_ERR_BAD_PARAM, "%s: %s", kernel, apo_last_error());
        stream_case_free(&c);
        return 0;
    }
    check_all_plans(rt, &c, seed * 10);
    stream_case_free(&c);
    return 1;
}

static size_t check_at_defaults(apo_runtime *rt, size_t i, const apo_kernel_info *info) {
    cr_assert(check_kernel(rt, info->name, NULL, 0, 11 + i), "%s refused its defaults", info->name);
    return 1;
}

Test(stream, every_per_bar_kernel_at_defaults_equals_batch, .timeout = 600) {
    stream_check_each_per_bar_kernel("cpu", check_at_defaults, 35, "kernels");
}

/* Each whole-number parameter of the kernel moved off its default (variant 0: up by 3,
 * variant 1: down to about half), within its bounds; returns the parameter sets checked. */
static size_t check_at_other_parameters(apo_runtime *rt, size_t i, const apo_kernel_info *info) {
    size_t checked = 0;
    for (int variant = 0; variant < 2; variant++) {
        apo_param params[APO_MAX_PARAMS];
        size_t np = 0;
        for (size_t p = 0; p < info->n_params; p++) {
            double d = info->param_defaults[p];
            double v = variant == 0 ? d + 3 : floor(d / 2);
            if (!info->param_integer[p] || v < info->param_min[p] || v > info->param_max[p])
                continue;
            params[np].name = info->param_names[p];
            params[np++].value = v;
        }
        if (np == 0)
            continue;
        checked += (size_t)check_kernel(rt, info->name, params, np, 101 + 7 * i + (size_t)variant);
    }
    return checked;
}

/* Other parameters for every kernel: each whole-number parameter moved off its default
 * (up by 3, or down to about half), within its bounds. */
Test(stream, every_per_bar_kernel_at_other_parameters_equals_batch, .timeout = 600) {
    stream_check_each_per_bar_kernel("cpu", check_at_other_parameters, 40, "parameter sets");
}

/* stoch and stochf at matypes other than 0 take kdj's body (kernels/oscillators/stoch_ma.h),
 * whose stream carries its two averages where both are recurrences (EMA, Wilder's, none:
 * kdj_stream.h) and otherwise runs the new positions from the tile's own warm-up: EMA with
 * TRIMA, WMA with T3, KAMA with DEMA, and EMA with EMA, carried; stochf's HMA-free kinds
 * TEMA and T3, and a carried EMA; kdj (its defaults, Wilder's twice, are in the tests above) at
 * EMA with none and none with EMA, carried both. */
Test(stream, stochastics_of_other_kinds_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    const apo_param stoch[][2] = {{{"slowk_matype", 1}, {"slowd_matype", 5}},
                                  {{"slowk_matype", 2}, {"slowd_matype", 8}},
                                  {{"slowk_matype", 6}, {"slowd_matype", 3}},
                                  {{"slowk_matype", 1}, {"slowd_matype", 1}}};
    const apo_param stochf[][1] = {
        {{"fastd_matype", 4}}, {{"fastd_matype", 8}}, {{"fastd_matype", 1}}};
    const apo_param kdj[][2] = {{{"slowk_matype", 1}, {"slowd_matype", 10}},
                                {{"slowk_matype", 10}, {"slowd_matype", 1}}};
    for (size_t i = 0; i < sizeof stoch / sizeof stoch[0]; i++)
        cr_assert(check_kernel(rt, "stoch", stoch[i], 2, 61 + i), "stoch set %zu", i);
    for (size_t i = 0; i < sizeof stochf / sizeof stochf[0]; i++)
        cr_assert(check_kernel(rt, "stochf", stochf[i], 1, 71 + i), "stochf set %zu", i);
    for (size_t i = 0; i < sizeof kdj / sizeof kdj[0]; i++)
        cr_assert(check_kernel(rt, "kdj", kdj[i], 2, 81 + i), "kdj set %zu", i);
    apo_runtime_destroy(rt);
}

/* The kernels whose streams carry their run since 2026-12-07 (rma, zlema, efi, cvi, rvi, kc, ma,
 * ha, fosc, and apo, ppo and pvo at two EMAs) and since 2026-12-08 (macdfix, smi), whose defaults
 * and moved parameters are in the tests above (ha has no parameter), at the edges of their runs:
 * zlema at periods whose lag is 0 and 1 (its stream writes the NaN lead itself), rma and efi at
 * period 1, kc with either leg's seed entering first, cvi at rocperiod 1 and past its timeperiod,
 * rvi at the shortest windows, apo with its periods swapped, ppo and pvo at averages kept in pieces
 * (their updates run the tile again), ma at kinds whose kernels' streams it takes (EMA, KAMA, T3;
 * SMA and DEMA are in the tests above) and at those it runs again (TRIMA, period 1), and fosc at
 * longer periods (its tsf's slid sums over windows of 30 and 2,100 bars, linearreg_tile.h); macdfix
 * with its signal seeded at once and over 200 bars (until its seeds are in, its run seeds again
 * from the tile's origin, also in the next tile's run ahead), smi at its shortest periods and at a
 * long window and signal behind a short slow EMA; and bbands, whose stream keeps a state of its
 * own since 2026-12-08 (bollinger's cursor at matype 0, at the shortest and a long window; ma's
 * run of its middle band at EMA, WMA, KAMA and T3, and its span at TRIMA; at MAMA it reads whole
 * rows, which a stream refuses), and stochrsi, whose too (its generators and fastd): at its
 * shortest periods, its fastd SMA's leaving values from the second generator (fastd_period 300)
 * and from the ring, the longest fastk window (256), and fastd at EMA, WMA and T3; and macdext,
 * whose too: its signal at period 1, its SMA's leaving values from the second generator (2,100)
 * and from the ring, its periods swapped, averages its pieces span (TRIMA) and KAMA and T3; and
 * adxr, whose stream steps its two recurrences where the CPU's tile keeps a ring of the leading
 * one's outputs (the same bits), at its shortest lag and at 59 bars. */
Test(stream, carried_recurrences_at_edge_parameters_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    static const struct {
        const char *kernel;
        apo_param params[4];
        size_t n;
    } cases[] = {
        {"zlema", {{"timeperiod", 1}}, 1},
        {"zlema", {{"timeperiod", 2}}, 1},
        {"zlema", {{"timeperiod", 4}}, 1},
        {"rma", {{"timeperiod", 1}}, 1},
        {"efi", {{"timeperiod", 1}}, 1},
        {"kc", {{"timeperiod", 3}, {"atrperiod", 30}}, 2},
        {"kc", {{"timeperiod", 40}, {"atrperiod", 2}, {"nbdev", -1.5}}, 3},
        {"cvi", {{"timeperiod", 5}, {"rocperiod", 1}}, 2},
        {"cvi", {{"timeperiod", 3}, {"rocperiod", 25}}, 2},
        {"rvi", {{"timeperiod", 1}, {"stddevperiod", 2}}, 2},
        {"apo", {{"fastperiod", 30}, {"slowperiod", 5}}, 2},
        {"ppo", {{"matype", 2}}, 1},
        {"pvo", {{"fastperiod", 3}, {"matype", 0}}, 2},
        {"ma", {{"timeperiod", 10}, {"matype", 1}}, 2},
        {"ma", {{"timeperiod", 7}, {"matype", 5}}, 2},
        {"ma", {{"timeperiod", 10}, {"matype", 6}}, 2},
        {"ma", {{"timeperiod", 4}, {"matype", 8}}, 2},
        {"ma", {{"timeperiod", 1}, {"matype", 1}}, 2},
        {"fosc", {{"timeperiod", 30}}, 1},
        {"fosc", {{"timeperiod", 2100}}, 1},
        {"macdfix", {{"signalperiod", 1}}, 1},
        {"macdfix", {{"signalperiod", 200}}, 1},
        {"smi", {{"timeperiod", 2}, {"fastperiod", 2}, {"slowperiod", 2}, {"signalperiod", 2}}, 4},
        {"smi",
         {{"timeperiod", 60}, {"fastperiod", 30}, {"slowperiod", 2}, {"signalperiod", 40}},
         4},
        {"bbands", {{"timeperiod", 2}}, 1},
        {"bbands", {{"timeperiod", 300}, {"nbdevup", 1.5}, {"nbdevdn", 0.5}}, 3},
        {"bbands", {{"matype", 1}}, 1},
        {"bbands", {{"timeperiod", 10}, {"matype", 2}}, 2},
        {"bbands", {{"timeperiod", 9}, {"matype", 5}}, 2},
        {"bbands", {{"timeperiod", 12}, {"matype", 6}}, 2},
        {"bbands", {{"timeperiod", 10}, {"matype", 8}}, 2},
        {"stochrsi", {{"timeperiod", 2}, {"fastk_period", 1}, {"fastd_period", 1}}, 3},
        {"stochrsi", {{"fastd_period", 300}}, 1},
        {"stochrsi", {{"fastk_period", 256}, {"fastd_period", 7}, {"fastd_matype", 2}}, 3},
        {"stochrsi", {{"fastd_period", 20}, {"fastd_matype", 1}}, 2},
        {"stochrsi", {{"timeperiod", 30}, {"fastd_period", 5}, {"fastd_matype", 8}}, 3},
        {"macdext", {{"signalperiod", 1}}, 1},
        {"macdext", {{"signalperiod", 2100}}, 1},
        {"macdext", {{"fastperiod", 30}, {"slowperiod", 5}, {"signalmatype", 2}}, 3},
        {"macdext", {{"fastmatype", 2}, {"slowmatype", 5}, {"signalmatype", 1}}, 3},
        {"macdext", {{"fastmatype", 6}, {"slowmatype", 8}, {"signalperiod", 4}}, 3},
        {"adxr", {{"timeperiod", 2}}, 1},
        {"adxr", {{"timeperiod", 60}}, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert(check_kernel(rt, cases[i].kernel, cases[i].params, cases[i].n, 91 + i),
                  "%s case %zu refused", cases[i].kernel, i);
    apo_runtime_destroy(rt);
}

Test(stream, bollinger_and_macd_named_parameters_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    const apo_param boll[] = {{"period", 5}, {"nbdev_up", 1.5}, {"nbdev_dn", 2.5}};
    const apo_param boll_long[] = {{"period", 300}};
    const apo_param macd[] = {{"fast", 5}, {"slow", 35}, {"signal", 5}};
    const apo_param macd_swapped[] = {{"fast", 30}, {"slow", 10}, {"signal", 4}};
    cr_assert(check_kernel(rt, "bollinger", boll, 3, 1));
    cr_assert(check_kernel(rt, "bollinger", boll_long, 1, 2));
    cr_assert(check_kernel(rt, "macd", macd, 3, 3));
    cr_assert(check_kernel(rt, "macd", macd_swapped, 3, 4));
    apo_runtime_destroy(rt);
}

/* linearreg and linearreg_slope past the direct sums' periods slide shifted plain sums between
 * anchors (linearreg_plain.h), whose state (the sums and the shift) a stream resumes: the
 * anchors' spacing 32 and 64 on both sides of its switch (40), the target periods, and past the
 * plain slide (1024) the double-doubles. */
Test(stream, linearreg_slid_periods_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    const double periods[] = {39, 40, 50, 129, 200, 1025};
    const char *kernels[] = {"linearreg", "linearreg_slope"};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
            const apo_param p[] = {{"timeperiod", periods[i]}};
            cr_assert(check_kernel(rt, kernels[k], p, 1, 31 + 10 * k + i), "%s(%g)", kernels[k],
                      periods[i]);
        }
    apo_runtime_destroy(rt);
}

/* The stochastics carry the values their next means read while they fit six doubles
 * (kernels/oscillators/stoch_stream.h): stoch's slowk_period - 1 + slowd_period - 1 and
 * stochf's fastd_period - 1 at six, where they are carried, and at seven, where the tile body
 * runs; with a fastk period of 1 (no scan) and of 30. */
Test(stream, stochastics_at_the_carried_values_bound_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    const double stoch[][3] = {{5, 4, 4}, {5, 4, 5}, {1, 7, 1}, {30, 1, 7}, {30, 2, 2}};
    for (size_t i = 0; i < sizeof stoch / sizeof stoch[0]; i++) {
        const apo_param p[] = {{"fastk_period", stoch[i][0]},
                               {"slowk_period", stoch[i][1]},
                               {"slowd_period", stoch[i][2]}};
        cr_assert(check_kernel(rt, "stoch", p, 3, 61 + i), "stoch(%g, %g, %g)", stoch[i][0],
                  stoch[i][1], stoch[i][2]);
    }
    const double stochf[][2] = {{5, 7}, {5, 8}, {1, 2}};
    for (size_t i = 0; i < sizeof stochf / sizeof stochf[0]; i++) {
        const apo_param p[] = {{"fastk_period", stochf[i][0]}, {"fastd_period", stochf[i][1]}};
        cr_assert(check_kernel(rt, "stochf", p, 2, 71 + i), "stochf(%g, %g)", stochf[i][0],
                  stochf[i][1]);
    }
    apo_runtime_destroy(rt);
}

Test(stream, user_kernels_with_a_halo_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    test_register_moving_sum(rt);
    stream_register_tile_ema(rt);
    stream_register_plus_position(rt);
    const apo_param k9[] = {{"k", 9}};
    cr_assert(check_kernel(rt, "msum", NULL, 0, 5));
    cr_assert(check_kernel(rt, "msum", k9, 1, 6));
    cr_assert(check_kernel(rt, "tema_user", NULL, 0, 7));
    cr_assert(check_kernel(rt, "plus_position", NULL, 0, 8));
    apo_runtime_destroy(rt);
}

/* Many random cuttings of one case: the plan's seed changes where every update ends. */
static void check_random_cuttings(apo_runtime *rt, const stream_case *c, size_t tile) {
    for (uint64_t seed = 0; seed < 4; seed++)
        stream_check_plan_fresh(rt, c, PLAN_RANDOM, 1000 + seed, seed % 2 ? 25 : tile + 50);
}

Test(stream, random_cuttings_equal_batch, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    stream_register_tile_ema(rt);
    const char *const kernels[] = {"bollinger", "tema_user", "adx"};
    stream_each_case_over_tiles(rt, kernels, 3, ROWS, 2, 5, 9, check_random_cuttings);
    apo_runtime_destroy(rt);
}

/* A running sum's case cut one bar at a time, in random pieces small and larger than its
 * tile of 65,536 bars, in one chunk, and saved and loaded after every update. */
static void check_carried_sum(apo_runtime *rt, const stream_case *c, size_t tile) {
    cr_assert_eq(tile, 65536, "%s tiles by %zu", c->kernel, tile);
    stream_check_plan_fresh(rt, c, PLAN_EVERY_BAR, 1, 0);
    for (uint64_t seed = 0; seed < 3; seed++)
        stream_check_plan_fresh(rt, c, PLAN_RANDOM, 40 + seed, seed == 0 ? 40 : tile + 999);
    stream_check_plan_fresh(rt, c, PLAN_ONE_CHUNK, 0, 0);
    stream_check_plan_reloading(stream_for(rt, c), c, PLAN_RANDOM, 50, 5000, rt);
}

/*
 * The running sums obv and ad (tiles of 65,536 bars, each re-running the sum from the row's
 * first bar): their streams carry the sum, the last clean close and the seed across tiles,
 * so a stream that lost or restarted it at a tile boundary differs from the batch from the
 * second tile on. Three tiles and a bit, gaps included (series 2's run of NaN bars crosses
 * the first tile boundary).
 */
Test(stream, obv_and_ad_carry_their_sum_across_tiles, .timeout = 600) {
    apo_runtime *rt = test_runtime("cpu");
    const char *const kernels[] = {"obv", "ad"};
    stream_each_case_over_tiles(rt, kernels, 2, ROWS, 3, 77, 31, check_carried_sum);
    apo_runtime_destroy(rt);
}

Test(stream, reductions_are_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    const char *names[] = {"returns_stats", "bootstrap"};
    for (size_t i = 0; i < 2; i++) {
        const apo_stream_desc d = stream_desc_named(names[i], 2);
        apo_stream *s = (apo_stream *)&d;
        test_assert_refused(apo_stream_create(rt, &d, &s), APO_ERR_INVALID_ARGUMENT,
                            "is a reduction");
        cr_assert_null(s);
    }
    apo_runtime_destroy(rt);
}

Test(stream, bad_descriptions_and_updates_are_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    apo_stream *s = NULL;
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "nope";
    d.n_series = 1;
    test_assert_refused(apo_stream_create(rt, &d, &s), APO_ERR_UNKNOWN_KERNEL, "nope");
    d.kernel = "bollinger";
    d.n_series = 0;
    test_assert_refused(apo_stream_create(rt, &d, &s), APO_ERR_INVALID_ARGUMENT, "n_series");
    d.n_series = 2;
    const apo_param bad[] = {{"period", 0.5}};
    d.params = bad, d.n_params = 1;
    test_assert_refused(apo_stream_create(rt, &d, &s), APO_ERR_BAD_PARAM, "period");
    apo_stream_desc small = d;
    small.size = 8;
    test_assert_refused(apo_stream_create(rt, &small, &s), APO_ERR_INVALID_ARGUMENT,
                        "APO_STREAM_DESC_INIT");
    d.params = NULL, d.n_params = 0;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());

    size_t none[] = {0, 0};
    cr_assert_eq(apo_stream_update(s, none, NULL, NULL), APO_OK, "%s", apo_last_error());
    size_t some[] = {0, 2};
    double x[2] = {1, 2}, y[2];
    const double *in[] = {x};
    double *out[] = {y, y, NULL};
    test_assert_refused(apo_stream_update(s, some, NULL, out), APO_ERR_NULL, "inputs");
    test_assert_refused(apo_stream_update(s, some, in, out), APO_ERR_NULL, "lower");
    uint64_t bars = 1;
    cr_assert_eq(apo_stream_bars(s, 1, &bars), APO_OK);
    cr_assert_eq(bars, 0, "a refused update fed %llu bars", (unsigned long long)bars);
    test_assert_refused(apo_stream_bars(s, 2, &bars), APO_ERR_NOT_FOUND, "series 2");
    apo_stream_destroy(s);
    apo_stream_destroy(NULL);
    apo_runtime_destroy(rt);
}

/* Memory follows the window, not the history: after many tiles, the state (which holds
 * exactly the kept bars, or a running sum's carried doubles) is no bigger than after the
 * first. */
Test(stream, state_stays_bounded_by_the_window, .timeout = 120) {
    apo_runtime *rt = test_runtime("cpu");
    /* sma keeps its window; obv (2 inputs) keeps no bar, only its 3 carried doubles. */
    const char *kernels[] = {"sma", "obv"};
    for (size_t k = 0; k < 2; k++) {
        const apo_stream_desc d = stream_desc_named(kernels[k], 1);
        apo_stream *s = stream_created(rt, &d);
        size_t tile = stream_tile_of(s), most = 0;
        enum { CHUNK = 997 };
        double x[CHUNK], v[CHUNK], y[CHUNK];
        const double *in[] = {x, v};
        double *out[] = {y};
        for (size_t t = 0; t < CHUNK; t++)
            x[t] = (double)(t % 17), v[t] = 100.0;
        size_t n_new[] = {CHUNK};
        const size_t updates = (k == 0 ? 60 : 3) * tile / CHUNK;
        for (size_t u = 0; u < updates; u++) {
            cr_assert_eq(apo_stream_update(s, n_new, in, out), APO_OK, "%s", apo_last_error());
            size_t len = 0;
            cr_assert_eq(apo_stream_save(s, NULL, 0, &len), APO_OK);
            most = len > most ? len : most;
        }
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, kernels[k], &info), APO_OK);
        /* The header, the bar count, the kept bars or carried doubles, the checksum. */
        const size_t bound = k == 0 ? 192 + 8 + (tile + info.halo) * 8 + 8 : 192 + 8 + 3 * 8 + 8;
        cr_assert_leq(most, bound, "%s: state of %zu bytes", kernels[k], most);
        apo_stream_destroy(s);
    }
    apo_runtime_destroy(rt);
}

/* A user kernel that fails once a tile reaches bar 50. */
static apo_status fails_late(const apo_kernel_call *call, void *user) {
    (void)user;
    for (size_t t = call->begin; t < call->end; t++)
        call->outputs[0][call->row * call->cols + t] = call->inputs[0][call->row * call->cols + t];
    return call->end > 50 ? APO_ERR_INVALID_ARGUMENT : APO_OK;
}

/* A user kernel that fails on series 1 after series 0 took its bars: the update is undone
 * (stream_journal.h), the saved state byte for byte as before it, and the stream goes on. */
Test(stream, a_kernel_failure_undoes_the_update, .timeout = 60) {
    apo_runtime *rt = test_runtime("cpu");
    apo_kernel_desc desc = test_user_kernel("fails_late", fails_late, NULL, 0);
    test_user_kernel_register(rt, &desc);
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "fails_late";
    d.n_series = 2;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    double x[80], y[80];
    for (size_t t = 0; t < 80; t++)
        x[t] = (double)t;
    const double *in[] = {x};
    double *out[] = {y};
    size_t first[] = {30, 30};
    cr_assert_eq(apo_stream_update(s, first, in, out), APO_OK, "%s", apo_last_error());
    size_t len = 0;
    unsigned char *before = stream_state_bytes(s, &len);
    size_t second[] = {10, 40};
    test_assert_refused(apo_stream_update(s, second, in, out), APO_ERR_KERNEL_FAILED,
                        "fails_late failed with APO_ERR_INVALID_ARGUMENT on series 1");
    stream_assert_state(s, before, len, "a kernel failure");
    /* The stream goes on from where it was: series 0 and 1 at bar 30, the outputs the inputs. */
    size_t third[] = {10, 10};
    cr_assert_eq(apo_stream_update(s, third, in, out), APO_OK, "%s", apo_last_error());
    for (size_t t = 0; t < 20; t++)
        cr_assert_eq(y[t], x[t]);
    uint64_t bars = 0;
    cr_assert_eq(apo_stream_bars(s, 1, &bars), APO_OK);
    cr_assert_eq(bars, 40);
    free(before);
    apo_stream_destroy(s);
    apo_runtime_destroy(rt);
}

/* Streams take none of the runtime's locks: two threads update their own streams while
 * this one runs batch calls on the same runtime, and every stream still equals its batch. */
typedef struct stream_thread {
    apo_runtime *rt;
    const stream_case *c;
    uint64_t seed;
} stream_thread;

static void *stream_thread_main(void *arg) {
    stream_thread *t = arg;
    apo_stream *s = stream_for(t->rt, t->c);
    stream_check_plan(s, t->c, PLAN_RANDOM, t->seed, 300);
    apo_stream_destroy(s);
    return NULL;
}

Test(stream, streams_on_threads_beside_batch_calls, .timeout = 300) {
    apo_runtime *rt = test_runtime("cpu");
    stream_case a, b;
    cr_assert_eq(stream_case_init(&a, rt, "bollinger", NULL, 0, ROWS, 9000, 21, 1), APO_OK);
    cr_assert_eq(stream_case_init(&b, rt, "rsi", NULL, 0, ROWS, 9000, 22, 1), APO_OK);
    stream_thread ta = {rt, &a, 1}, tb = {rt, &b, 2};
    pthread_t ha, hb;
    cr_assert_eq(pthread_create(&ha, NULL, stream_thread_main, &ta), 0);
    cr_assert_eq(pthread_create(&hb, NULL, stream_thread_main, &tb), 0);
    for (int i = 0; i < 5; i++) {
        stream_case again;
        cr_assert_eq(stream_case_init(&again, rt, "macd", NULL, 0, ROWS, 20000, 23, 0), APO_OK,
                     "%s", apo_last_error());
        stream_case_free(&again);
    }
    cr_assert_eq(pthread_join(ha, NULL), 0);
    cr_assert_eq(pthread_join(hb, NULL), 0);
    stream_case_free(&a);
    stream_case_free(&b);
    apo_runtime_destroy(rt);
}

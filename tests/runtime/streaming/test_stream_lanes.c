/*
 * Streams' one-bar pieces side by side (apo__kernel.resume_lanes; runtime/streaming/stream.c,
 * lane_piece): a stream of many series hands its one-bar pieces within a tile to the kernel a
 * batch at a time, stoch's, rsi's, cmo's, cci's, mfi's, atr's, natr's, ema's, adx's, dx's,
 * the DIs' and bollinger's taken in the lanes of the host path's vectors
 * (kernels/oscillators/stoch_stream_lanes.h, rsi_stream_lanes.h, cci_stream_lanes.h,
 * kernels/volume/mfi_stream_lanes.h, kernels/trend/atr_stream_lanes.h, dmi_stream_lanes.h,
 * kernels/averages/ema_stream_lanes.h, bollinger_stream_lanes.h). Fed so that one-bar pieces
 * mix with longer ones, idle series, a tile's first and last bars (and a recurrence's last
 * halo bars, which also run the next tile ahead), gaps, flat stretches, a jump of scale and
 * prices on a grid, at parameters inside the lanes' bounds, at them and past them, and at a
 * matype whose stream runs alone, on every host path the CPU has: every output bitwise the
 * batch call over the whole history.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "helpers.h"
#include "stream_fixtures.h"

/* More series than one batch of lanes and not a multiple of it, so that batches of every
 * size meet series fed alone between them. */
#define ROWS 21

typedef struct lanes_case {
    const char *kernel, *what;
    apo_param params[5];
    size_t n_params;
} lanes_case;

static const lanes_case cases[] = {
    {"stoch", "defaults (5, 3, 3)", {{NULL, 0}}, 0},
    /* fastk's window at the lanes' bound (APO_STOCH_LANES_FK) and one past it (alone). */
    {"stoch", "fastk 32", {{"fastk_period", 32}}, 1},
    {"stoch", "fastk 33", {{"fastk_period", 33}}, 1},
    /* Means of one value, and the carried values at their bound (APO_STOCH_CARRY). */
    {"stoch", "slowk 1, slowd 1", {{"slowk_period", 1}, {"slowd_period", 1}}, 2},
    {"stoch",
     "slowk 4, slowd 4",
     {{"fastk_period", 9}, {"slowk_period", 4}, {"slowd_period", 4}},
     3},
    /* Past the bound: the carried values do not fit, every piece runs alone. */
    {"stoch", "slowk 5, slowd 4", {{"slowk_period", 5}, {"slowd_period", 4}}, 2},
    /* An EMA's stoch (kdj's body, its averages carried: kdj_stream.h) runs alone. */
    {"stoch", "matype 1", {{"slowk_matype", 1}, {"slowd_matype", 1}}, 2},
    /* Wilder's averages: the seed's bars alone, the steps in lanes. */
    {"rsi", "defaults (14)", {{NULL, 0}}, 0},
    {"rsi", "timeperiod 2", {{"timeperiod", 2}}, 1},
    {"rsi", "timeperiod 90", {{"timeperiod", 90}}, 1},
    {"cmo", "defaults (14)", {{NULL, 0}}, 0},
    /* A clean window's slide in lanes, its gather and the new sum's folds at each lane's own
     * bars; the window at the lanes' bound (APO_CCI_LANES_P) and one past it (alone). */
    {"cci", "defaults (14)", {{NULL, 0}}, 0},
    {"cci", "timeperiod 2", {{"timeperiod", 2}}, 1},
    {"cci", "timeperiod 64", {{"timeperiod", 64}}, 1},
    {"cci", "timeperiod 65", {{"timeperiod", 65}}, 1},
    /* Each window's own sums in lanes, at every remainder of the period by 4 (the sums' tail),
     * the period at the lanes' bound (APO_MFI_DIRECT_MAX) and one past it (slid, alone). */
    {"mfi", "defaults (14)", {{NULL, 0}}, 0},
    {"mfi", "timeperiod 2", {{"timeperiod", 2}}, 1},
    {"mfi", "timeperiod 13", {{"timeperiod", 13}}, 1},
    {"mfi", "timeperiod 15", {{"timeperiod", 15}}, 1},
    {"mfi", "timeperiod 16", {{"timeperiod", 16}}, 1},
    {"mfi", "timeperiod 64", {{"timeperiod", 64}}, 1},
    {"mfi", "timeperiod 65", {{"timeperiod", 65}}, 1},
    /* Wilder's average of the true ranges, and its quotient by the close. */
    {"atr", "defaults (14)", {{NULL, 0}}, 0},
    {"atr", "timeperiod 1", {{"timeperiod", 1}}, 1},
    {"natr", "defaults (14)", {{NULL, 0}}, 0},
    /* An EMA's step past its seed. */
    {"ema", "defaults (30)", {{NULL, 0}}, 0},
    {"ema", "timeperiod 2", {{"timeperiod", 2}}, 1},
    /* The directional movement system past its seeds: the sums' steps, the DIs, DX and ADX's
     * step in lanes; each output's own chains (plus_di reads no -DM sum). */
    {"adx", "defaults (14)", {{NULL, 0}}, 0},
    {"adx", "timeperiod 2", {{"timeperiod", 2}}, 1},
    {"dx", "defaults (14)", {{NULL, 0}}, 0},
    {"plus_di", "defaults (14)", {{NULL, 0}}, 0},
    {"minus_di", "timeperiod 5", {{"timeperiod", 5}}, 1},
    /* A sliding run's step: the runs that stop (a sample out of the run's range, a constant
     * window next, the error bound) leave the lanes; the shortest window and no deviation. */
    {"bollinger", "defaults (20, 2, 2)", {{NULL, 0}}, 0},
    {"bollinger", "period 2", {{"period", 2}}, 1},
    {"bollinger", "period 5, nbdev 0", {{"period", 5}, {"nbdev_up", 0}, {"nbdev_dn", 0}}, 3},
};

/* Each case over a tile and 300 bars, cut two ways, on the runtime rt (under host
 * path `path`, test_each_host_path). */
static void check_cases(apo_runtime *rt, size_t path, void *arg) {
    (void)arg;
    const uint64_t seed = 71 + path;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const lanes_case *lc = &cases[k];
        const size_t tile =
            stream_probe_tile(rt, lc->kernel, lc->params, lc->n_params, ROWS, seed, NULL);
        stream_case c;
        cr_assert_eq(stream_case_init(&c, rt, lc->kernel, lc->params, lc->n_params, ROWS,
                                      tile + 300, seed,
                                      STREAM_GAPS | STREAM_FLAT | STREAM_FLAT_START |
                                          STREAM_SCALES | STREAM_GRID),
                     APO_OK, "%s %s: %s", lc->kernel, lc->what, apo_last_error());
        /* Series 0 one bar an update, the others 0 to many; then 0 to 2 bars each. */
        stream_check_plan_fresh(rt, &c, PLAN_EVERY_BAR, seed + k, 0);
        stream_check_plan_fresh(rt, &c, PLAN_RANDOM, seed + k, 2);
        stream_case_free(&c);
    }
}

Test(stream_lanes, one_bar_pieces_side_by_side_equal_batch_on_every_path, .timeout = 300) {
    test_each_host_path(check_cases, NULL);
}

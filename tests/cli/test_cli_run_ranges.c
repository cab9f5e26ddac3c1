/*
 * apportion run --score --ranges and --walk-forward (cli/run_ranges.c, docs/cli/run.md
 * "Ranges and walk-forward"): scores.csv's lines of each range against the range scored
 * alone by the library (the whole series' bands from a plain call, the range's slice
 * scored by apo_score_outputs_with()), bitwise; ranges by date against the same bars by
 * number; the walk-forward's winners and record against the ranged lines of scores.csv;
 * the usage errors. Each case runs the built tool as a subprocess (cli_fixtures.h).
 */
#include <apportion.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

#define COLS 900
#define MAX_LINES 64
#define N_FIELDS 12 /* set, period, nbdev_up, series, the eight scores */

/* One series `close` of COLS closes with a date a day, written to read back to the same
 * doubles; values gets them. Day t is 2001-01-01 plus t days. */
static void write_series(const char *path, double *values) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "date,close\n");
    unsigned state = 5;
    double x = 100;
    for (size_t t = 0; t < COLS; t++) {
        x += walk_step(&state);
        values[t] = x;
        const long day = (long)t;
        /* 2001 to 2003 are not leap years: months of 31, 28, 31, ... days. */
        static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        long y = 2001, d = day, m = 0;
        while (d >= 365)
            d -= 365, y++;
        while (d >= month_days[m])
            d -= month_days[m++];
        fprintf(f, "%04ld-%02ld-%02ld,%.17g\n", y, m + 1, d + 1, x);
    }
    cr_assert_eq(fclose(f), 0);
}

typedef struct lines {
    char *text;
    char *field[MAX_LINES][N_FIELDS];
    size_t n;
} lines;

/* scores.csv of dir, its header checked, its lines split. */
static lines read_lines(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/scores.csv", dir);
    size_t len;
    lines l = {0};
    l.text = read_all(path, &len);
    cr_assert_not_null(l.text, "%s", path);
    char *save = NULL, *line = strtok_r(l.text, "\n", &save);
    cr_assert_str_eq(line, "set,period,nbdev_up,series,total,mean,sd,sharpe,max_drawdown,trades,"
                           "exposure,bars");
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        cr_assert_lt(l.n, MAX_LINES);
        size_t k = 0;
        for (char *p = line; p != NULL && k < N_FIELDS; k++) {
            l.field[l.n][k] = p;
            if ((p = strchr(p, ',')) != NULL)
                *p++ = '\0';
        }
        cr_assert_eq(k, N_FIELDS);
        l.n++;
    }
    return l;
}

/* Range [a, b) of `values` scored alone for period p and width u: the whole series' bands,
 * then the slice. */
static void range_alone(const double *values, double p, double u, size_t a, size_t b,
                        double *want) {
    double *bands = malloc(3 * COLS * sizeof *bands);
    cr_assert_not_null(bands);
    double *out[3] = {bands, bands + COLS, bands + 2 * COLS};
    const double *in[1] = {values};
    apo_param params[2] = {{"period", p}, {"nbdev_up", u}};
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = "cpu";
    cfg.profiles = APO_SWITCH_OFF;
    apo_runtime *rt;
    cr_assert_eq(apo_runtime_create(&cfg, &rt), APO_OK);
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = "bollinger";
    w.inputs = in, w.n_inputs = 1;
    w.outputs = out, w.n_outputs = 3;
    w.params = params, w.n_params = 2;
    w.rows = 1, w.cols = COLS;
    w.learn = APO_SWITCH_OFF;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    const double *o[3] = {out[0] + a, out[1] + a, out[2] + a};
    apo_param cost = {"cost", 0.001};
    cr_assert_eq(apo_score_outputs_with("bollinger", "bands_revert", values + a, o, 3, b - a, &cost,
                                        1, want),
                 APO_OK, "%s", apo_last_error());
    free(bands);
}

static void run_ok(const char *input, const char *out_dir, const char *option, const char *value) {
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--input", input, "--column", "close",
                         "--param", "period=10,30", "--param", "nbdev_up=1.5,2", "--score",
                         "bands_revert", "--cost", "0.001", "--devices", "cpu", option, value,
                         "--output", out_dir));
}

Test(cli, ranges_lines_are_each_range_scored_alone, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("in.csv"), *dir = work_path("bars"), *dates = work_path("dates");
    double values[COLS];
    write_series(input, values);
    const size_t ranges[3][2] = {{0, 400}, {0, 900}, {400, 900}};
    run_ok(input, dir, "--ranges", "0:400,0:900,400:900");
    lines l = read_lines(dir);
    cr_assert_eq(l.n, 4 * 3, "4 sets, 1 series, 3 ranges");
    const double periods[2] = {10, 30}, widths[2] = {1.5, 2};
    for (size_t set = 0; set < 4; set++)
        for (size_t i = 0; i < 3; i++) {
            const size_t line = set * 3 + i;
            char name[64];
            snprintf(name, sizeof name, "close[%zu:%zu]", ranges[i][0], ranges[i][1]);
            cr_assert_str_eq(l.field[line][3], name);
            double want[APO_N_SCORES];
            range_alone(values, periods[set / 2], widths[set % 2], ranges[i][0], ranges[i][1],
                        want);
            for (int k = 0; k < APO_N_SCORES; k++) {
                const double got = strtod(l.field[line][4 + k], NULL);
                cr_assert(isnan(want[k]) ? isnan(got) : memcmp(&got, &want[k], sizeof got) == 0,
                          "line %zu score %d: %.17g, alone %.17g", line, k, got, want[k]);
            }
        }
    /* The same bars by date, both ends included: 2001-02-05 is bar 35, 2002-06-04 bar 519. */
    run_ok(input, dates, "--ranges", "2001-02-05:2002-06-04");
    lines d = read_lines(dates);
    cr_assert_eq(d.n, 4);
    for (size_t set = 0; set < 4; set++) {
        double want[APO_N_SCORES];
        range_alone(values, periods[set / 2], widths[set % 2], 35, 520, want);
        cr_assert_str_eq(d.field[set][3], "close[2001-02-05:2002-06-04]");
        for (int k = 0; k < APO_N_SCORES; k++) {
            const double got = strtod(d.field[set][4 + k], NULL);
            cr_assert(isnan(want[k]) ? isnan(got) : memcmp(&got, &want[k], sizeof got) == 0,
                      "set %zu score %d", set, k);
        }
    }
    free(l.text);
    free(d.text);
}

Test(cli, walk_forward_scores_each_train_winner_on_its_test, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("in.csv"), *dir = work_path("wf");
    double values[COLS];
    write_series(input, values);
    cli_result r = run_cli_ok(ARGS(
        "run", "--kernel", "bollinger", "--input", input, "--column", "close", "--param",
        "period=10,30", "--param", "nbdev_up=1.5,2", "--score", "bands_revert", "--cost", "0.001",
        "--devices", "cpu", "--walk-forward", "300:200:anchored", "--json", "--output", dir));
    json_t *j = parse_json(&r);
    const json_t *wf = get(j, "walk_forward");
    const json_t *windows = get(wf, "windows");
    /* Tests from 300, 500, 700: the last cut at 900. Ranges 0:300, 0:500, 0:700, 300:500,
     * 500:700, 700:900. */
    cr_assert_eq(json_array_size(windows), 3);
    lines l = read_lines(dir);
    cr_assert_eq(l.n, 4 * 6);
    const size_t train_at[3] = {0, 1, 2}, test_at[3] = {3, 4, 5};
    double total = 0;
    for (size_t w = 0; w < 3; w++) {
        /* The best train sharpe of the four sets (none is NaN on these walks). */
        size_t best = 0;
        for (size_t set = 1; set < 4; set++)
            if (strtod(l.field[set * 6 + train_at[w]][7], NULL) >
                strtod(l.field[best * 6 + train_at[w]][7], NULL))
                best = set;
        const json_t *win = json_array_get(windows, w);
        cr_assert_eq(json_integer_value(get(win, "set")), (json_int_t)best, "window %zu", w);
        const json_t *test = get(win, "test_scores");
        const double want = strtod(l.field[best * 6 + test_at[w]][4], NULL);
        const double got = json_number_value(get(test, "total"));
        cr_assert(memcmp(&got, &want, sizeof got) == 0, "window %zu: %.17g, %.17g", w, got, want);
        total += want;
    }
    const json_t *rec = json_array_get(get(wf, "record"), 0);
    cr_assert_eq(json_number_value(get(rec, "total")), total);
    cr_assert_eq(json_integer_value(get(rec, "windows")), 3);
    json_decref(j);
    free(l.text);
    free_result(&r);
}

static void refused(const char *input, const char *a, const char *b, const char *c, const char *d,
                    const char *says) {
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", input, "--column",
                                "close", "--devices", "cpu", a, b, c, d));
    cr_assert_neq(r.status, 0, "%s %s %s %s", a, b, c, d);
    assert_contains(r.err, says);
    free_result(&r);
}

Test(cli, bad_ranges_and_walk_forwards_are_refused, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("in.csv");
    double values[COLS];
    write_series(input, values);
    refused(input, "--ranges", "0:10", "--param", "period=5", "--ranges needs --score RULE");
    refused(input, "--score", "bands_revert", "--ranges", "10", "expected A:B");
    refused(input, "--score", "bands_revert", "--ranges", "20:30,5:40", "comes before range 0");
    refused(input, "--score", "bands_revert", "--ranges", "0:901", "ends at cols (900)");
    refused(input, "--score", "bands_revert", "--ranges", "2005-01-01:2001-01-01",
            "at least one bar");
    refused(input, "--score", "bands_revert", "--walk-forward", "300", "expected TRAIN:TEST");
    refused(input, "--score", "bands_revert", "--walk-forward", "900:10", "train leaves a bar");
    refused(input, "--ranges", "0:10", "--walk-forward", "300:100", "give one");
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--input", input, "--column", "close",
                         "--score", "bands_revert", "--ranges", "0:10", "--by", "sharpe:mean"),
                    "would mix its ranges");
}

/*
 * apportion run (cli/cmd_run.c) on several series at once: column lists, --group-by
 * tickers of different lengths, the index column, malformed series input, and sweeps.
 * Each case runs the built tool as a subprocess (cli_fixtures.h).
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS and mount() for the small-disk cases */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

static double *read_doubles(const char *path, size_t *n) {
    size_t len = 0;
    char *d = read_all(path, &len);
    cr_assert_not_null(d, "cannot read %s", path);
    *n = len / sizeof(double);
    return (double *)(void *)d;
}

/* Runs bollinger (period 10) on `input` with extra args, raw output, into out. */
static void run_bollinger(const char *input, const char *out, const char *a1, const char *a2,
                          const char *a3, const char *a4) {
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--param", "period=10", "--devices", "cpu",
                         "--input", input, "--output", out, a1, a2, a3, a4));
}

Test(cli, column_list_gives_the_bits_of_single_column_runs, .timeout = 60) {
    make_work_dir();
    char one[128], file[256];
    const char *path = work_path("w.csv");
    static char text[32768];
    size_t o = (size_t)snprintf(text, sizeof text, "date,close,open\n");
    unsigned st = 7;
    double a = 100, b = 50;
    for (int i = 0; i < 300; i++) {
        a += walk_step(&st), b += walk_step(&st);
        o += (size_t)snprintf(text + o, sizeof text - o, "2024-%04d,%.17g,%.17g\n", i, a, b);
    }
    write_text(path, text);
    const char *both = work_path("both");
    run_bollinger(path, both, "--column", "close,open", "--seed", "1");
    size_t n2 = 0;
    snprintf(file, sizeof file, "%s/upper.f64", both);
    double *two = read_doubles(file, &n2);
    cr_assert_eq(n2, 600);
    const char *cols[] = {"close", "open"};
    for (size_t c = 0; c < 2; c++) {
        snprintf(one, sizeof one, "%s/%s", work, cols[c]);
        run_bollinger(path, one, "--column", cols[c], "--seed", "1");
        size_t n1 = 0;
        snprintf(file, sizeof file, "%s/upper.f64", one);
        double *single = read_doubles(file, &n1);
        cr_assert_eq(n1, 300);
        cr_assert(memcmp(single, two + c * 300, 300 * sizeof(double)) == 0,
                  "row %zu of the two-column run differs from the %s run", c, cols[c]);
        free(single);
    }
    free(two);
}

/* The fields of line `line` (0: the header) of a CSV text without quotes, in fields[]. */
static size_t csv_line_fields(const char *text, size_t line, char fields[][64], size_t max) {
    const char *p = text;
    for (size_t l = 0; l < line && p != NULL; l++) {
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    cr_assert(p != NULL && *p != '\0', "no line %zu", line);
    size_t n = 0, k = 0;
    for (; *p != '\0' && *p != '\n' && n < max; p++) {
        if (*p == ',') {
            fields[n++][k] = '\0';
            k = 0;
        } else if (k < 63) {
            fields[n][k++] = *p;
        }
    }
    fields[n++][k] = '\0';
    return n;
}

Test(cli, group_by_tickers_of_different_lengths_match_their_single_runs, .timeout = 60) {
    make_work_dir();
    char out[128], file[256];
    const char *path = work_path("long.csv");
    static char text[65536], alone[3][32768];
    const char *tickers[3] = {"AAPL", "MSFT", "IBM"};
    const int length[3] = {200, 80, 200};
    size_t o = (size_t)snprintf(text, sizeof text, "date,ticker,close\n"), oa[3];
    for (int t = 0; t < 3; t++)
        oa[t] = (size_t)snprintf(alone[t], sizeof alone[t], "close\n");
    unsigned st = 11;
    double x[3] = {100, 30, 70};
    for (int i = 0; i < 200; i++) {
        for (int t = 0; t < 3; t++) {
            if (i >= length[t])
                continue;
            x[t] += walk_step(&st);
            /* MSFT's dates are its own: every other minute. */
            const int m = t == 1 ? 2 * i : i;
            o += (size_t)snprintf(text + o, sizeof text - o, "2024-01-02T%02d:%02d,%s,%.17g\n",
                                  m / 60, m % 60, tickers[t], x[t]);
            oa[t] += (size_t)snprintf(alone[t] + oa[t], sizeof alone[t] - oa[t], "%.17g\n", x[t]);
        }
    }
    write_text(path, text);
    snprintf(out, sizeof out, "%s/grouped", work);
    run_bollinger(path, out, "--group-by", "ticker", "--format", "csv");
    snprintf(file, sizeof file, "%s/upper.csv", out);
    size_t len = 0;
    char *csv = read_all(file, &len);
    char fields[8][64];
    cr_assert_eq(csv_line_fields(csv, 0, fields, 8), 6);
    for (int t = 0; t < 3; t++) {
        char head[64];
        snprintf(head, sizeof head, "%s_date", tickers[t]);
        cr_assert_str_eq(fields[2 * t], head);
        cr_assert_str_eq(fields[2 * t + 1], tickers[t]);
    }
    for (int t = 0; t < 3; t++) {
        char in[128], one[128];
        snprintf(in, sizeof in, "%s/%s.csv", work, tickers[t]);
        snprintf(one, sizeof one, "%s/%s", work, tickers[t]);
        write_text(in, alone[t]);
        run_bollinger(in, one, "--seed", "1", NULL, NULL);
        snprintf(file, sizeof file, "%s/upper.f64", one);
        size_t n = 0;
        double *single = read_doubles(file, &n);
        cr_assert_eq(n, (size_t)length[t]);
        for (int i = 0; i < 200; i++) {
            cr_assert_eq(csv_line_fields(csv, (size_t)i + 1, fields, 8), 6);
            if (i >= length[t]) {
                cr_assert_str_eq(fields[2 * t + 1], "", "past the end of %s", tickers[t]);
                continue;
            }
            char date[32];
            const int m = t == 1 ? 2 * i : i;
            snprintf(date, sizeof date, "2024-01-02T%02d:%02d", m / 60, m % 60);
            cr_assert_str_eq(fields[2 * t], date);
            const double v = strtod(fields[2 * t + 1], NULL);
            cr_assert(memcmp(&v, &single[i], sizeof v) == 0 || (isnan(v) && isnan(single[i])),
                      "%s[%d]: %s against %.17g", tickers[t], i, fields[2 * t + 1], single[i]);
        }
        free(single);
    }
    free(csv);
    /* Raw output has no layout for series of two lengths. */
    snprintf(out, sizeof out, "%s/raw", work);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                         "--group-by", "ticker", "--output", out),
                    "2 lengths: 200 (AAPL, ...), 80 (MSFT); use --format csv");
    cr_assert_neq(access(out, F_OK), 0, "a refused run leaves no folder");
}

/* Tickers of several lengths are one ragged call: swept, each ticker's block per set is its
 * own series' (exact means of the last two and three closes), and the report is that one
 * call's, counting each ticker's own samples. */
Test(cli, group_by_tickers_of_several_lengths_sweep_in_one_call, .timeout = 60) {
    make_work_dir();
    char out[128];
    const char *path = work_path("l.csv");
    write_text(path, "date,ticker,close\n2024-01-01,A,1\n2024-01-01,B,10\n2024-01-02,A,2\n2024-01-"
                     "02,B,20\n2024-01-03,A,4\n2024-01-04,A,3\n"
                     "2024-01-03,B,40\n");
    snprintf(out, sizeof out, "%s/out", work);
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--devices", "cpu,sim:a",
                                   "--input", path, "--group-by", "ticker", "--param", "period=2,3",
                                   "--output", out, "--format", "csv", "--json"));
    assert_contains_each(r.out, PARTS("\"rows\": 2", "\"cols\": 4", "\"elements\": 14"));
    cr_assert(strstr(r.out, "\"calls\"") == NULL, "one call, one report: %s", r.out);
    free_result(&r);
    assert_file_text(
        out, "middle.csv",
        "A period=2_date,A period=2,B period=2_date,B period=2,A period=3_date,A "
        "period=3,B period=3_date,B period=3\n"
        "2024-01-01,nan,2024-01-01,nan,2024-01-01,nan,2024-01-01,nan\n"
        "2024-01-02,1.5,2024-01-02,15,2024-01-02,nan,2024-01-02,nan\n"
        "2024-01-03,3,2024-01-03,30,2024-01-03,2.3333333333333335,2024-01-03,23.333333333333332\n"
        "2024-01-04,3.5,,,2024-01-04,3,,\n");
    /* A statistic per ticker: one value each, from its own returns. */
    snprintf(out, sizeof out, "%s/stats", work);
    run_cli_ok_free(ARGS("run", "--kernel", "returns_stats", "--devices", "cpu", "--input", path,
                         "--group-by", "ticker", "--output", out, "--format", "csv"));
    assert_file_text(out, "count.csv", "A,B\n3,2\n");
    /* B: returns 1 and 1; A: 1, 1 and -0.25, summed in order. */
    assert_file_text(out, "mean.csv", "A,B\n0.58333333333333337,1\n");
}

/* A ticker shorter than the warm-up does not refuse the others: its outputs are NaN, a
 * warning names it (not its row), and the others are what they are alone (exact means of
 * three closes). Every ticker too short is refused, naming one. */
Test(cli, group_by_ticker_shorter_than_the_warm_up_gives_nan_and_a_warning, .timeout = 60) {
    make_work_dir();
    char file[256];
    const char *path = work_path("l.csv");
    write_text(path, "date,ticker,close\n2024-01-01,A,1\n2024-01-01,B,10\n2024-01-01,C,5\n"
                     "2024-01-02,A,2\n2024-01-02,B,20\n2024-01-02,C,6\n2024-01-03,A,4\n"
                     "2024-01-03,C,7\n2024-01-04,A,3\n");
    const char *out = work_path("out");
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--devices", "cpu,sim:a",
                                   "--input", path, "--group-by", "ticker", "--param", "period=3",
                                   "--output", out, "--format", "csv"));
    assert_contains(r.err, "warning: series B (2 samples) is too short for these parameters, so "
                           "its outputs are NaN: bollinger: period 3 is longer than the series");
    cr_assert(strstr(r.err, "row") == NULL, "the ticker is named, not its row: %s", r.err);
    free_result(&r);
    assert_file_text(out, "middle.csv",
                     "A_date,A,B_date,B,C_date,C\n"
                     "2024-01-01,nan,2024-01-01,nan,2024-01-01,nan\n"
                     "2024-01-02,nan,2024-01-02,nan,2024-01-02,nan\n"
                     "2024-01-03,2.3333333333333335,,,2024-01-03,6\n"
                     "2024-01-04,3,,,,\n");
    /* Swept: B is too short for set 1, and so NaN in both sets. */
    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                        "--group-by", "ticker", "--param", "period=2,3", "--output", out,
                        "--format", "csv"));
    assert_contains(r.err, "series B (2 samples) is too short");
    free_result(&r);
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t n = 0;
    char *text = read_all(file, &n);
    assert_contains(text, "\n2024-01-02,1.5,2024-01-02,nan,2024-01-02,5.5,2024-01-02,nan,");
    free(text);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                     "--group-by", "ticker", "--param", "period=5", "--output", out, "--format",
                     "csv"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "invalid workload: every series is too short for these parameters; A "
                           "(4 samples): bollinger: period 5 is longer than the series (cols 4)");
    cr_assert(strstr(r.err, "warning: series") == NULL, "%s", r.err);
    free_result(&r);
    /* A bad parameter is still the library's message, not a short series. */
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                     "--group-by", "ticker", "--param", "period=1"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "parameter period must be from 2");
    cr_assert(strstr(r.err, "too short") == NULL, "%s", r.err);
    free_result(&r);
}

Test(cli, index_column_is_copied_into_csv_outputs, .timeout = 60) {
    make_work_dir();
    char out[128], file[256];
    const char *path = work_path("p.csv");
    static char text[16384];
    size_t o = (size_t)snprintf(text, sizeof text, "close,stamp,date\n");
    for (int i = 0; i < 50; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%d,t%d,\"2024-01-%02d, a\"\n", 100 + i, i,
                              i + 1);
    write_text(path, text);
    /* Default: the first non-numeric column, stamp. */
    snprintf(out, sizeof out, "%s/a", work);
    run_bollinger(path, out, "--format", "csv", NULL, NULL);
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t len = 0;
    char *csv = read_all(file, &len);
    char fields[4][64];
    cr_assert_eq(csv_line_fields(csv, 0, fields, 4), 2);
    cr_assert_str_eq(fields[0], "stamp");
    cr_assert_str_eq(fields[1], "middle");
    for (int i = 0; i < 50; i++) {
        char want[16];
        snprintf(want, sizeof want, "t%d", i);
        csv_line_fields(csv, (size_t)i + 1, fields, 4);
        cr_assert_str_eq(fields[0], want);
    }
    free(csv);
    /* Chosen: date, whose commas are quoted again on the way out. */
    snprintf(out, sizeof out, "%s/b", work);
    run_bollinger(path, out, "--format", "csv", "--index-column", "date");
    snprintf(file, sizeof file, "%s/middle.csv", out);
    csv = read_all(file, &len);
    assert_contains(csv, "date,middle\n\"2024-01-01, a\",nan\n");
    assert_contains(csv, "\n\"2024-01-20, a\",");
    free(csv);
}

Test(cli, malformed_series_input_is_refused_clearly, .timeout = 60) {
    make_work_dir();
    char raw[128];
    const char *path = work_path("m.csv");
    write_text(path, "date,ticker,close,open\nd1,A,1,2\nd2,A,x3,3\nd3,,4,4\n");
    struct {
        const char *a[4];
        const char *want;
    } cases[] = {
        {{"--column", "close,nope", NULL, NULL}, "no column named \"nope\""},
        {{"--column", "close,", NULL, NULL}, "--column 'close,': empty name in the list"},
        {{"--column", "close,close", NULL, NULL}, "column \"close\" is listed twice"},
        {{"--column", "open,close", NULL, NULL}, "m.csv:3:3: expected a number, got \"x3\""},
        {{"--group-by", "tickr", "--column", "open"}, "no column named \"tickr\""},
        {{"--group-by", "ticker", "--column", "close,open"}, "--group-by reads one value column"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cli_result r =
            run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                         cases[c].a[0], cases[c].a[1], cases[c].a[2], cases[c].a[3]));
        cr_assert_eq(r.status, 2, "case %zu: %s", c, r.err);
        assert_contains(r.err, cases[c].want);
        free_result(&r);
    }
    /* An empty group field names its line and column. */
    write_text(path, "date,ticker,close\nd1,A,1\nd2,,2\n");
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                         "--group-by", "ticker", "--param", "period=2"),
                    "m.csv:3:2: empty --group-by field");
    /* CSV options on raw input. */
    snprintf(raw, sizeof raw, "%s/x.f64", work);
    const double v[4] = {1, 2, 3, 4};
    FILE *f = fopen(raw, "wb");
    fwrite(v, sizeof v[0], 4, f);
    fclose(f);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", raw,
                         "--group-by", "ticker"),
                    "--group-by applies to CSV or Parquet input only");
}

/* ---- sweeps ------------------------------------------------------------------------------ */

/* Runs `apportion run` on the generated input (2 x 500) into out with up to six extra
 * arguments; the run must succeed, and its JSON report must count `sets` parameter sets and
 * `pieces` pieces (0: not checked). */
static void run_sweep(const char *kernel, const char *out, long long sets, long long pieces,
                      const char *a1, const char *a2, const char *a3, const char *a4,
                      const char *a5, const char *a6) {
    cli_result r =
        run_cli_ok(ARGS("run", "--kernel", kernel, "--devices", "cpu", "--rows", "2", "--cols",
                        "500", "--json", "--output", out, a1, a2, a3, a4, a5, a6));
    json_t *j = parse_json(&r);
    free_result(&r);
    if (sets != 0)
        cr_assert_eq(json_integer_value(get(j, "sets")), sets, "the sweep into %s: sets", out);
    if (pieces != 0)
        cr_assert_eq(json_integer_value(get(j, "pieces")), pieces, "the sweep into %s: pieces",
                     out);
    json_decref(j);
}

/* Asserts that set `set` of DIR/NAME.f64 (sets of n values) is the file ONE/NAME.f64. */
static void assert_set_is(const char *dir, const char *one, const char *name, size_t set,
                          size_t n) {
    char file[256];
    size_t n_all = 0, n_one = 0;
    snprintf(file, sizeof file, "%s/%s.f64", dir, name);
    double *all = read_doubles(file, &n_all);
    snprintf(file, sizeof file, "%s/%s.f64", one, name);
    double *single = read_doubles(file, &n_one);
    cr_assert_eq(n_one, n, "%s: %zu values, not %zu", file, n_one, n);
    cr_assert_geq(n_all, (set + 1) * n);
    cr_assert(memcmp(all + set * n, single, n * sizeof(double)) == 0,
              "set %zu of %s/%s.f64 differs from its single run", set, dir, name);
    free(all);
    free(single);
}

Test(cli, sweep_list_matches_single_runs_bitwise, .timeout = 60) {
    char one[128];
    const char *dir = work_path("sweep");
    run_sweep("bollinger", dir, 3, 1, "--param", "period=10,20,35", "--param", "nbdev_up=1.5", NULL,
              NULL);
    const char *periods[] = {"period=10", "period=20", "period=35"};
    for (size_t s = 0; s < 3; s++) {
        snprintf(one, sizeof one, "%s/one%zu", work, s);
        run_sweep("bollinger", one, 0, 0, "--param", periods[s], "--param", "nbdev_up=1.5", NULL,
                  NULL);
        const char *names[] = {"upper", "middle", "lower"};
        for (size_t i = 0; i < 3; i++)
            assert_set_is(dir, one, names[i], s, 2 * 500);
    }
}

Test(cli, sweep_range_equals_the_list_and_writes_sets_csv, .timeout = 60) {
    make_work_dir();
    char file[256];
    const char *list = work_path("list"), *range = work_path("range");
    run_sweep("bollinger", list, 0, 0, "--param", "period=10,20,30", "--param", "nbdev_dn=0.5,2.25",
              NULL, NULL);
    run_sweep("bollinger", range, 0, 0, "--param", "period=10:30:10", "--param",
              "nbdev_dn=0.5,2.25", NULL, NULL);
    const char *names[] = {"upper", "middle", "lower", "sets"};
    for (size_t i = 0; i < 4; i++) {
        size_t n1 = 0, n2 = 0;
        snprintf(file, sizeof file, "%s/%s.%s", list, names[i], i == 3 ? "csv" : "f64");
        char *a = read_all(file, &n1);
        snprintf(file, sizeof file, "%s/%s.%s", range, names[i], i == 3 ? "csv" : "f64");
        char *b = read_all(file, &n2);
        cr_assert(n1 == n2 && memcmp(a, b, n1) == 0, "%s differs between list and range", names[i]);
        if (i == 3)
            cr_assert_str_eq(a, "set,period,nbdev_dn\n0,10,0.5\n1,10,2.25\n2,20,0.5\n3,20,2.25\n"
                                "4,30,0.5\n5,30,2.25\n");
        else
            cr_assert_eq(n1, 6 * 2 * 500 * sizeof(double));
        free(a);
        free(b);
    }
}

Test(cli, sweep_grid_varies_the_first_parameter_slowest, .timeout = 60) {
    make_work_dir();
    char one[128], fast[32], slow[32];
    const char *dir = work_path("grid");
    run_sweep("macd", dir, 6, 0, "--param", "fast=4,6", "--param", "slow=20:40:10", "--param",
              "signal=5");
    const int fasts[] = {4, 6}, slows[] = {20, 30, 40};
    for (size_t f = 0; f < 2; f++)
        for (size_t s = 0; s < 3; s++) {
            snprintf(one, sizeof one, "%s/one_%zu_%zu", work, f, s);
            snprintf(fast, sizeof fast, "fast=%d", fasts[f]);
            snprintf(slow, sizeof slow, "slow=%d", slows[s]);
            run_sweep("macd", one, 0, 0, "--param", fast, "--param", slow, "--param", "signal=5");
            assert_set_is(dir, one, "macd", f * 3 + s, 2 * 500);
            assert_set_is(dir, one, "hist", f * 3 + s, 2 * 500);
        }
}

Test(cli, bad_sweeps_are_usage_errors, .timeout = 60) {
    make_work_dir();
    struct {
        const char *a[4];
        const char *want;
    } cases[] = {
        {{"--param", "period=10,,30", NULL, NULL}, "empty item"},
        {{"--param", "period=10,", NULL, NULL}, "empty item"},
        {{"--param", "period=10:25:10", NULL, NULL}, "does not divide"},
        {{"--param", "period=10:30:0", NULL, NULL}, "step must be positive"},
        {{"--param", "period=30:10:5", NULL, NULL}, "range is empty"},
        {{"--param", "period=10:30", NULL, NULL}, "START:STOP:STEP"},
        {{"--param", "period=10,inf", NULL, NULL}, "not a finite number"},
        {{"--param", "period=10,20", "--param", "period=5"}, "period is given twice"},
        {{"--param", "period=2:600:1", "--param", "nbdev_up=1:200:1"}, "more than 65536"},
        {{"--memory", "1G", NULL, NULL}, "--memory applies to a sweep only"},
        {{"--param", "period=10,20", "--memory", "12Q"}, "--memory '12Q'"},
    };
    const char *out = work_path("never");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--cols",
                                    "100", "--output", out, cases[c].a[0], cases[c].a[1],
                                    cases[c].a[2], cases[c].a[3]));
        cr_assert_eq(r.status, 2, "case %zu: %s", c, r.err);
        assert_contains(r.err, cases[c].want);
        free_result(&r);
        struct stat st;
        cr_assert_neq(stat(out, &st), 0, "case %zu wrote %s", c, out);
    }
}

/* A bollinger sweep's raw files in `whole` and `pieces` are byte for byte the same. */
static void assert_same_sweep_files(const char *whole, const char *pieces) {
    const char *names[] = {"upper.f64", "middle.f64", "lower.f64", "sets.csv"};
    char a[256], b[256];
    for (size_t i = 0; i < 4; i++) {
        snprintf(a, sizeof a, "%s/%s", whole, names[i]);
        snprintf(b, sizeof b, "%s/%s", pieces, names[i]);
        assert_same_files(a, b, "one piece and pieces");
    }
}

Test(cli, sweep_in_pieces_writes_the_same_files_as_one_piece, .timeout = 60) {
    make_work_dir();
    const char *whole = work_path("whole"), *pieces = work_path("pieces");
    run_sweep("bollinger", whole, 0, 1, "--param", "period=5:25:5", NULL, NULL, NULL, NULL);
    /* One set's outputs are 3 x 2 x 500 doubles (24000 bytes): 50K holds two sets, so the
     * five sets run in three pieces, the last of one set. */
    run_sweep("bollinger", pieces, 5, 3, "--param", "period=5:25:5", "--memory", "50K", NULL, NULL);
    assert_same_sweep_files(whole, pieces);
    /* CSV puts the sets side by side: it needs them all at once, and says so. */
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--rows", "2",
                         "--cols", "500", "--output", pieces, "--format", "csv", "--param",
                         "period=5:25:5", "--memory", "50K"),
                    "--format csv writes a sweep's sets side by side");
}

/* Without --memory, raw outputs go in pieces of about 64 MiB of outputs (docs/cli/run.md,
 * "Sweeps"): one set of 1 x 1,500,000 is 36 MB of outputs, so three sets take three pieces,
 * and the files are those of one piece. */
Test(cli, sweep_default_pieces_are_small_and_write_the_same_files, .timeout = 120) {
    make_work_dir();
    const char *whole = work_path("whole"), *pieces = work_path("pieces");
    const char *dirs[2] = {pieces, whole};
    for (size_t d = 0; d < 2; d++) {
        cli_result r =
            run_cli_ok(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--rows", "1",
                            "--cols", "1500000", "--json", "--output", dirs[d], "--param",
                            "period=10,20,30", d == 0 ? NULL : "--memory", d == 0 ? NULL : "1G"));
        json_t *j = parse_json(&r);
        free_result(&r);
        cr_assert_eq(json_integer_value(get(j, "sets")), 3);
        cr_assert_eq(json_integer_value(get(j, "pieces")), d == 0 ? 3 : 1);
        json_decref(j);
    }
    assert_same_sweep_files(whole, pieces);
}

Test(cli, sweep_csv_names_a_column_per_set_and_series, .timeout = 60) {
    make_work_dir();
    const char *path = work_path("w.csv");
    write_text(path, "date,close,open\nd1,1,2\nd2,2,3\nd3,4,3\nd4,3,5\n");
    const char *out = work_path("out");
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                         "--column", "close,open", "--param", "period=2,3", "--output", out,
                         "--format", "csv"));
    /* Means of the last two and three closes and opens, exact in binary. */
    assert_file_text(out, "middle.csv",
                     "date,close period=2,open period=2,close period=3,open period=3\n"
                     "d1,nan,nan,nan,nan\n"
                     "d2,1.5,2.5,nan,nan\n"
                     "d3,3,3,2.3333333333333335,2.6666666666666665\n"
                     "d4,3.5,4,3,3.6666666666666665\n");
}

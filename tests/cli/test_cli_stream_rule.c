/*
 * apportion stream --score (cli/cmd_stream.c; docs/cli/stream.md, "Live rules"): the set a
 * scored sweep's --top printed, handed to a stream with the same options, gives bar by bar
 * the position, return and running total of `run --score --positions` over the whole file,
 * and at the end of every run the scores `run --score` gives over the history fed so far, as
 * text, so bit for bit (both write %.17g). A sweep of a rule names its columns as `run`
 * names a sweep's; a state of a rule refuses another rule, other parameters and a damaged
 * byte, and a state of an indicator refuses --score, each with the state file byte for byte
 * as it was. Each case
 * runs the built tool as a subprocess (cli_fixtures.h).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

#define BARS 300
#define TICKERS 2
#define N_SCORES 8

static const char *const ticker[TICKERS] = {"A", "B"};
static double close_[TICKERS][BARS];

/* Two tickers' closes, a gap in A's at bars 50 to 52 and a flat stretch in B's at 140 to 149
 * (no return, a rule that may hold or not). */
static void make_bars(void) {
    unsigned st = 23;
    for (int t = 0; t < TICKERS; t++) {
        double c = 100 + 20 * t;
        for (int i = 0; i < BARS; i++) {
            if (!(t == 1 && i >= 140 && i < 150))
                c += walk_step(&st);
            close_[t][i] = c;
        }
    }
}

/* A long-format file of ticker t's bars [from[t], to[t]) in date order (hours from
 * 2024-01-01T00:00). */
static void write_rows(const char *path, const int *from, const int *to) {
    static char text[1 << 15];
    size_t o = (size_t)snprintf(text, sizeof text, "date,ticker,close\n");
    for (int i = 0; i < BARS; i++)
        for (int t = 0; t < TICKERS; t++) {
            if (i < from[t] || i >= to[t])
                continue;
            char c[32];
            if (t == 0 && i >= 50 && i <= 52)
                snprintf(c, sizeof c, "NA");
            else
                snprintf(c, sizeof c, "%.17g", close_[t][i]);
            o += (size_t)snprintf(text + o, sizeof text - o, "2024-01-%02dT%02d:00,%s,%s\n",
                                  1 + i / 24, i % 24, ticker[t], c);
            cr_assert_lt(o, sizeof text);
        }
    write_text(path, text);
}

static int ticker_of(const char *name) {
    for (int t = 0; t < TICKERS; t++)
        if (strcmp(name, ticker[t]) == 0)
            return t;
    cr_assert_fail("unknown series %s", name);
    return -1;
}

/* The text of fields [first, first + n) of a CSV line (no quoting in these files). */
static void fields(const char *line, int first, int n, char *out, size_t size) {
    const char *p = line;
    for (int f = 0; f < first; f++) {
        p = strchr(p, ',');
        cr_assert_not_null(p, "line %s has no field %d", line, first);
        p++;
    }
    const char *end = p;
    for (int f = 0; f < n; f++) {
        end = strchr(end + (f > 0), ',');
        if (end == NULL) {
            end = p + strlen(p);
            cr_assert_eq(f, n - 1, "line %s has fewer than %d fields", line, first + n);
        }
    }
    cr_assert_lt((size_t)(end - p), size);
    snprintf(out, size, "%.*s", (int)(end - p), p);
}

/* The text of file `name` in DIR (malloc'ed), its path in path[size]; fails the test when
 * the run did not write it. */
static char *file_in(const char *dir, const char *name, char *path, size_t size) {
    snprintf(path, size, "%s/%s", dir, name);
    size_t len = 0;
    char *text = read_all(path, &len);
    cr_assert_not_null(text, "no %s", path);
    return text;
}

/* The scores' text of set `set` and ticker t in DIR/scores.csv, whose lines are set, the
 * `swept` parameters' values, series, then the 8 scores. */
static void scores_of(const char *dir, int set, int swept, int t, char *out, size_t size) {
    char path[160];
    char *text = file_in(dir, "scores.csv", path, sizeof path);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    int found = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL && !found) {
        char s[16], name[16];
        fields(line, 0, 1, s, sizeof s);
        fields(line, 1 + swept, 1, name, sizeof name);
        if (atoi(s) == set && strcmp(name, ticker[t]) == 0) {
            fields(line, 2 + swept, N_SCORES, out, size);
            found = 1;
        }
    }
    free(text);
    cr_assert(found, "set %d series %s not in %s", set, ticker[t], path);
}

/* `run --score bands_revert --cost 0.0005` over ticker t's bars [0, to[t]), with `params`
 * (a NULL-terminated list of --param values) and extra options, into DIR. */
static void run_scored(const char *dir, const int *to, const char *const *params,
                       const char *extra1, const char *extra2) {
    char in[160];
    snprintf(in, sizeof in, "%s.csv", dir);
    write_rows(in, (const int[]){0, 0}, to);
    const char *args[32] = {"run",
                            "--kernel",
                            "bollinger",
                            "--devices",
                            "cpu",
                            "--no-learn",
                            "--input",
                            in,
                            "--group-by",
                            "ticker",
                            "--missing-as-nan",
                            "--score",
                            "bands_revert",
                            "--cost",
                            "0.0005",
                            "--output",
                            dir};
    int n = 17;
    for (int k = 0; params[k] != NULL; k++) {
        args[n++] = "--param";
        args[n++] = params[k];
    }
    if (extra1 != NULL)
        args[n++] = extra1;
    if (extra2 != NULL)
        args[n++] = extra2;
    args[n] = NULL;
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
}

/* The position, return and equity of every bar of set `set` in DIR/positions.csv (series,
 * bar, date, close, position, return, equity), as text. */
static char (*positions_of(const char *dir))[BARS][96] {
    static char text_of[TICKERS][BARS][96];
    char path[160];
    char *text = file_in(dir, "positions.csv", path, sizeof path);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    cr_assert_str_eq(line, "series,bar,date,close,position,return,equity");
    int lines = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char name[16], bar[16];
        fields(line, 0, 1, name, sizeof name);
        fields(line, 1, 1, bar, sizeof bar);
        fields(line, 4, 3, text_of[ticker_of(name)][atoi(bar)], 96);
        lines++;
    }
    cr_assert_eq(lines, TICKERS * BARS);
    free(text);
    return text_of;
}

/* The top row of a sweep over period, handed to a stream in ragged pieces: each bar's
 * position, return and equity are positions.csv's, and each piece's last bar's scores are
 * those of `run --score` over the bars so far. */
Test(cli, rule_stream_gives_the_positions_and_scores_of_run_score, .timeout = 300) {
    make_work_dir();
    make_bars();
    const char *dir = work_path("sweep");
    run_scored(dir, (const int[]){BARS, BARS}, (const char *const[]){"period=10,20", NULL},
               "--positions", "1");
    char(*positions)[BARS][96] = positions_of(dir);

    static const int cut[TICKERS][5] = {{0, 1, 37, 151, BARS}, {0, 5, 6, 200, BARS}};
    const char *state = work_path("rule.state");
    static int seen[TICKERS][BARS];
    for (int p = 0; p < 4; p++) {
        char in[128], out[128];
        snprintf(in, sizeof in, "%s/piece%d.csv", work, p);
        snprintf(out, sizeof out, "%s/out%d.csv", work, p);
        write_rows(in, (const int[]){cut[0][p], cut[1][p]},
                   (const int[]){cut[0][p + 1], cut[1][p + 1]});
        /* The first run starts the state from the options of the sweep's set 1; the later
         * ones repeat them, checked against the state, or leave them out. */
        cli_result r =
            p % 2 == 0
                ? run_cli(ARGS("stream", "--state", state, "--kernel", "bollinger", "--param",
                               "period=20", "--score", "bands_revert", "--cost", "0.0005",
                               "--input", in, "--group-by", "ticker", "--missing-as-nan",
                               "--devices=cpu", "--output", out))
                : run_cli(ARGS("stream", "--state", state, "--input", in, "--group-by", "ticker",
                               "--missing-as-nan", "--devices=cpu", "--output", out));
        cr_assert_eq(r.status, 0, "piece %d: %s", p, r.err);
        free_result(&r);

        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s/prefix%d", work, p);
        run_scored(prefix, (const int[]){cut[0][p + 1], cut[1][p + 1]},
                   (const char *const[]){"period=20", NULL}, NULL, NULL);
        size_t len = 0;
        char *text = read_all(out, &len);
        cr_assert_not_null(text);
        char *save = NULL, *line = strtok_r(text, "\n", &save);
        cr_assert_str_eq(line, "series,bar,date,position,return,equity,total,mean,sd,sharpe,"
                               "max_drawdown,trades,exposure,bars");
        while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
            char name[16], bar[16], got[96], scores[512], want[512];
            fields(line, 0, 1, name, sizeof name);
            fields(line, 1, 1, bar, sizeof bar);
            const int t = ticker_of(name), b = atoi(bar);
            cr_assert(b >= cut[t][p] && b < cut[t][p + 1], "piece %d: %s", p, line);
            fields(line, 3, 3, got, sizeof got);
            cr_assert_str_eq(got, positions[t][b], "%s: positions.csv has %s", line,
                             positions[t][b]);
            seen[t][b]++;
            if (b != cut[t][p + 1] - 1)
                continue;
            fields(line, 6, N_SCORES, scores, sizeof scores);
            scores_of(prefix, 0, 0, t, want, sizeof want);
            cr_assert_str_eq(scores, want, "piece %d series %s bar %d: run --score gives %s", p,
                             name, b, want);
        }
        free(text);
    }
    assert_each_seen_once(&seen[0][0], TICKERS, BARS, 0, ticker);
}

/* A sweep of a rule over period and cost, the view of more: one column per output and set,
 * named as `run` names a sweep's, and the last bar's scores of every set those of
 * scores.csv. Then the refusals, each leaving the state file as it was. */
Test(cli, rule_sweep_stream_names_its_sets_and_refuses_other_rules, .timeout = 300) {
    make_work_dir();
    make_bars();
    const char *all = work_path("all.csv"), *dir = work_path("batch"),
               *state = work_path("sweep.state"), *out = work_path("sweep_out.csv");
    write_rows(all, (const int[]){0, 0}, (const int[]){BARS, BARS});
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                                   "--input", all, "--group-by", "ticker", "--missing-as-nan",
                                   "--score", "bands_revert/more", "--param", "period=10,20",
                                   "--param", "cost=0,0.001", "--output", dir));
    free_result(&r);
    run_cli_ok_free(ARGS("stream", "--state", state, "--kernel", "bollinger", "--score",
                         "bands_revert/more", "--param", "period=10,20", "--param", "cost=0,0.001",
                         "--input", all, "--group-by", "ticker", "--missing-as-nan",
                         "--devices=cpu", "--output", out));
    size_t len = 0;
    char *text = read_all(out, &len);
    cr_assert_not_null(text);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    assert_contains(line, "series,bar,date,position period=10 cost=0,position period=10 "
                          "cost=0.001,position period=20 cost=0,position period=20 cost=0.001,"
                          "return period=10 cost=0,");
    assert_contains(line, ",round_trips period=20 cost=0.001");
    const char *sortino = strstr(line, ",sortino period=10 cost=0,");
    cr_assert_not_null(sortino);
    int checked = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char name[16], bar[16];
        fields(line, 0, 1, name, sizeof name);
        fields(line, 1, 1, bar, sizeof bar);
        if (atoi(bar) != BARS - 1)
            continue;
        const int t = ticker_of(name);
        for (int set = 0; set < 4; set++) {
            char want[512], got[512] = "";
            scores_of(dir, set, 2, t, want, sizeof want);
            /* Score k of set `set` is column 3 + 4 (3 + k) + set. */
            for (int k = 0; k < N_SCORES; k++) {
                char one[64];
                fields(line, 3 + 4 * (3 + k) + set, 1, one, sizeof one);
                strcat(got, k > 0 ? "," : "");
                strcat(got, one);
            }
            cr_assert_str_eq(got, want, "set %d series %s", set, name);
            checked++;
        }
    }
    cr_assert_eq(checked, 4 * TICKERS);
    free(text);

    /* Refused, the state as it was: another rule, other sets, --cost on a state of another
     * cost, and --score on a state of an indicator. */
    size_t before_len = 0;
    char *before = read_all(state, &before_len);
    const char *next = work_path("next.csv"), *refused = work_path("refused.csv");
    write_text(next, "date,ticker,close\n2024-02-01T00:00,A,101\n2024-02-01T00:00,B,99\n");
    run_cli_refused(ARGS("stream", "--state", state, "--score", "bands_zone", "--input", next,
                         "--group-by", "ticker", "--output", refused),
                    "is a stream of rule bands_revert/more on bollinger, not bands_zone");
    assert_file_is(state, before, before_len, "another rule");
    run_cli_refused(ARGS("stream", "--state", state, "--param", "period=10,20", "--cost", "0.002",
                         "--input", next, "--group-by", "ticker", "--output", refused),
                    "the state was refused");
    assert_file_is(state, before, before_len, "other sets");
    cr_assert(!file_exists(refused), "a refused run wrote its output");
    /* A byte of the folds changed: the state file's checksum refuses it, as any state's. */
    char *damaged = malloc(before_len);
    cr_assert_not_null(damaged);
    memcpy(damaged, before, before_len);
    damaged[before_len / 3] ^= 0x10;
    write_bytes(state, damaged, before_len);
    run_cli_refused(ARGS("stream", "--state", state, "--input", next, "--group-by", "ticker",
                         "--output", refused),
                    "corrupt or truncated state");
    assert_file_is(state, damaged, before_len, "a damaged state");
    cr_assert(!file_exists(refused), "a refused run wrote its output");
    free(damaged);
    free(before);

    const char *plain = work_path("plain.state");
    run_cli_ok_free(ARGS("stream", "--state", plain, "--kernel", "bollinger", "--input", all,
                         "--group-by", "ticker", "--missing-as-nan", "--devices=cpu", "--output",
                         out));
    before = read_all(plain, &before_len);
    run_cli_refused(ARGS("stream", "--state", plain, "--score", "bands_revert", "--input", next,
                         "--group-by", "ticker", "--output", refused),
                    "without a rule: --score bands_revert needs a new --state");
    assert_file_is(plain, before, before_len, "--score on an indicator's state");

    /* The rule's options without a rule, and a rule that does not fit the kernel. */
    run_cli_refused(ARGS("stream", "--state", plain, "--cost", "0.001", "--input", next,
                         "--group-by", "ticker", "--output", refused),
                    "--cost needs --score RULE, or a state of a rule");
    assert_file_is(plain, before, before_len, "--cost on an indicator's state");
    run_cli_refused(
        ARGS("stream", "--state", plain, "--score", "bands_revert", "--cost", "2", "--input", next),
        "--cost '2': expected a number from 0 to 1");
    free(before);
    const char *fresh = work_path("fresh.state");
    run_cli_refused(ARGS("stream", "--state", fresh, "--kernel", "bollinger", "--score",
                         "macd_cross", "--input", next, "--group-by", "ticker", "--output",
                         refused),
                    "macd_cross");
    cr_assert(!file_exists(fresh), "a refused run wrote a state");
}

/*
 * apportion run --score ... --by SCORE:AGG --min-trades N --positions SET (cli/scores_rank.c,
 * cli/run_positions.c; docs/cli/run.md "Ranking sets over the series" and "The positions of
 * one set"): the sets' median, quantile and mean of a score over their series against a naive
 * recount from scores.csv (sorting, summing in series order), in the order the docs give; the
 * best lines without the lines of too few trades; positions.csv against scores.csv through
 * the independent reference (score_reference.c) and the test's own arithmetic on its
 * positions; the usage errors, which write nothing. The tool runs as a subprocess.
 */
#include <apportion.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_fixtures.h"
#include "score_reference.h"

TestSuite(cli, .fini = cli_cleanup);

#define ROWS 5
#define COLS 3000
#define SETS 6
#define SHARPE 3
#define TRADES 5

/* scores.csv of a run over `period` x `nbdev_up` (two swept columns): v[set][row][score]. */
static double scores_of_file[SETS][ROWS][8];

static void read_scores(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/scores.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[1024];
    cr_assert_not_null(fgets(line, sizeof line, f));
    size_t lines = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t set, row;
        double p, w, v[8];
        cr_assert_eq(sscanf(line, "%zu,%lf,%lf,%zu,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &set, &p, &w,
                            &row, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]),
                     12, "%s", line);
        memcpy(scores_of_file[set][row], v, sizeof v);
        lines++;
    }
    fclose(f);
    cr_assert_eq(lines, SETS * ROWS);
}

#define RUN_GRID(...)                                                                              \
    ARGS("run", "--kernel", "bollinger", "--rows", "5", "--cols", "3000", "--devices", "cpu",      \
         "--no-learn", "--param", "period=10:30:10", "--param", "nbdev_up=1.5,2", "--score",       \
         "bands_revert", "--cost", "0.0005", __VA_ARGS__)

static void sort(double *x, size_t n) { /* insertion sort: the test's own */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
            const double t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
        }
}

/* The docs' aggregate of set s: 0 mean, 1 median, 2 quantile q; *n the series counted. */
static double naive(size_t s, int agg, double q, double min_trades, size_t *n) {
    double x[ROWS];
    *n = 0;
    for (size_t r = 0; r < ROWS; r++)
        if (isfinite(scores_of_file[s][r][SHARPE]) && scores_of_file[s][r][TRADES] >= min_trades)
            x[(*n)++] = scores_of_file[s][r][SHARPE];
    if (*n == 0)
        return NAN;
    if (agg == 0) {
        double sum = 0;
        for (size_t i = 0; i < *n; i++)
            sum += x[i];
        return sum / (double)*n;
    }
    sort(x, *n);
    if (agg == 1)
        return *n % 2 ? x[*n / 2] : (x[*n / 2 - 1] + x[*n / 2]) / 2;
    const double h = q * (double)(*n - 1);
    const size_t i = (size_t)floor(h);
    return h > (double)i ? x[i] + (h - (double)i) * (x[i + 1] - x[i]) : x[i];
}

static void check_ranking(const char *by, int agg, double q, double min_trades) {
    char mt[32];
    const char *dir = work_path("o");
    snprintf(mt, sizeof mt, "%g", min_trades);
    cli_result r =
        run_cli(RUN_GRID("--by", by, "--min-trades", mt, "--top", "6", "--json", "--output", dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    read_scores(dir);
    json_t *j = parse_json(&r), *sc = get(j, "scores"), *best = get(sc, "best");
    cr_assert_eq(json_array_size(best), SETS);
    double want[SETS];
    size_t counted[SETS], left_out = 0;
    for (size_t s = 0; s < SETS; s++) {
        want[s] = naive(s, agg, q, min_trades, &counted[s]);
        left_out += ROWS - counted[s];
    }
    if (min_trades > 0)
        cr_assert_gt(left_out, 0, "the filter leaves some series out");
    size_t prev = SETS;
    for (size_t b = 0; b < SETS; b++) {
        json_t *x = json_array_get(best, b);
        const size_t s = (size_t)json_integer_value(get(x, "set"));
        const json_t *v = get(x, "value");
        if (isnan(want[s]))
            cr_assert(json_is_null(v), "%s: set %zu has no series counted", by, s);
        else
            cr_assert_eq(json_real_value(v), want[s], "%s: set %zu: %.17g, the recount %.17g", by,
                         s, json_real_value(v), want[s]);
        cr_assert_eq((size_t)json_integer_value(get(x, "series")), counted[s]);
        if (prev < SETS) { /* largest first, NaN last, ties in set order */
            const double a = want[prev], c = want[s];
            cr_assert(isnan(c) || (!isnan(a) && (a > c || (a == c && prev < s))),
                      "%s: set %zu ranks before set %zu", by, prev, s);
        }
        prev = s;
    }
    json_decref(j);
    free_result(&r);
}

Test(cli, run_rank_sets_by_median_quantile_and_mean_against_a_recount, .timeout = 300) {
    make_work_dir();
    check_ranking("sharpe:median", 1, 0, 200);
    check_ranking("sharpe:q0.25", 2, 0.25, 0);
    check_ranking("sharpe:q1", 2, 1, 200);
    check_ranking("sharpe:mean", 0, 0, 200);
}

Test(cli, run_min_trades_leaves_lines_out_of_the_best, .timeout = 300) {
    make_work_dir();
    const char *dir = work_path("o");
    cli_result r =
        run_cli(RUN_GRID("--min-trades", "200", "--top", "30", "--json", "--output", dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    read_scores(dir);
    size_t kept = 0;
    for (size_t s = 0; s < SETS; s++)
        for (size_t row = 0; row < ROWS; row++)
            kept += scores_of_file[s][row][TRADES] >= 200;
    cr_assert(kept > 0 && kept < SETS * ROWS, "the threshold splits the lines (%zu kept)", kept);
    json_t *j = parse_json(&r), *best = get(get(j, "scores"), "best");
    cr_assert_eq(json_array_size(best), kept);
    for (size_t b = 0; b < kept; b++)
        cr_assert_geq(json_real_value(get(get(json_array_get(best, b), "scores"), "trades")), 200);
    cr_assert_eq(json_integer_value(get(get(j, "scores"), "min_trades")), 200);
    json_decref(j);
    free_result(&r);
}

Test(cli, run_rank_refusals_write_nothing, .timeout = 120) {
    make_work_dir();
    const char *dir = work_path("o");
    const struct {
        const char *opt, *value, *says;
    } bad[] = {
        {"--by", "sharpe:avg", "unknown aggregate 'avg'"},
        {"--by", "sharpe:q1.5", "outside 0 to 1"},
        {"--by", "sharpe:q-0.1", "outside 0 to 1"},
        {"--by", "nope:median", "no such score"},
        {"--min-trades", "-3", "whole number >= 0"},
        {"--positions", "6", "the run has 6 set(s), 0 to 5"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli_result r = run_cli(RUN_GRID(bad[i].opt, bad[i].value, "--output", dir));
        cr_assert_eq(r.status, 2, "%s %s: exit %d", bad[i].opt, bad[i].value, r.status);
        assert_contains(r.err, bad[i].says);
        struct stat st;
        cr_assert_neq(stat(dir, &st), 0, "%s %s made the output folder", bad[i].opt, bad[i].value);
        free_result(&r);
    }
    cli_result r = run_cli(RUN_GRID("--positions", "1"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "needs --output DIR");
    free_result(&r);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--min-trades", "3"),
                    "--min-trades needs --score RULE");
}

/* One value of a raw file (rows x cols of doubles). */
static double *read_raw(const char *dir, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s.f64", dir, name);
    size_t len = 0;
    double *d = (double *)(void *)read_all(path, &len);
    cr_assert_eq(len, ROWS * COLS * sizeof(double), "%s", path);
    return d;
}

Test(cli, run_positions_are_the_sets_scores_bar_by_bar, .timeout = 300) {
    make_work_dir();
    const char *dir = work_path("o"), *bands = work_path("b");
    const size_t set = 3; /* period 20, nbdev_up 2 */
    const double cost = 0.0005;
    cli_result r = run_cli(RUN_GRID("--positions", "3", "--output", dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "positions of set 3");
    free_result(&r);
    read_scores(dir);
    /* The set's bands by a plain run: where the reference starts scoring. */
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--rows", "5", "--cols", "3000",
                         "--devices", "cpu", "--no-learn", "--param", "period=20", "--param",
                         "nbdev_up=2", "--output", bands));
    double *up = read_raw(bands, "upper"), *mid = read_raw(bands, "middle"),
           *lo = read_raw(bands, "lower");
    char path[256];
    snprintf(path, sizeof path, "%s/positions.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[512];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "series,bar,close,position,return,equity\n");
    static double close[ROWS][COLS], ret[ROWS][COLS], eq[ROWS][COLS];
    static int pos[ROWS][COLS];
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t row, bar;
        double c, p, rt, e;
        cr_assert_eq(sscanf(line, "%zu,%zu,%lf,%lf,%lf,%lf", &row, &bar, &c, &p, &rt, &e), 6, "%s",
                     line);
        cr_assert_eq(row * COLS + bar, n, "line %zu: series and bars in order", n);
        close[row][bar] = c, pos[row][bar] = (int)p, ret[row][bar] = rt, eq[row][bar] = e;
        n++;
    }
    fclose(f);
    cr_assert_eq(n, ROWS * COLS);
    for (size_t row = 0; row < ROWS; row++) {
        size_t first = COLS;
        for (size_t t = 0; t < COLS && first == COLS; t++) {
            const size_t g = row * COLS + t;
            if (isfinite(up[g]) && isfinite(mid[g]) && isfinite(lo[g]))
                first = t;
        }
        long double ref[8];
        apo__ref_scores_of_positions(close[row], pos[row], COLS, first, cost, 252, ref);
        for (int k = 0; k < 8; k++) {
            const double want = (double)ref[k], have = scores_of_file[set][row][k];
            if (!(fabs(have - want) <= fmax(1e-12, 1e-9 * fabs(want))))
                cr_assert_fail("series %zu score %d: scores.csv %.17g, from the positions %.17g",
                               row, k, have, want);
        }
        /* The returns and running sum, bit for bit, by the test's own arithmetic. */
        double sum = 0;
        for (size_t t = 1; t < COLS; t++) {
            if (t > first) {
                const int d = pos[row][t] - pos[row][t - 1];
                const double want =
                    (double)pos[row][t - 1] * (close[row][t] / close[row][t - 1] - 1.0) -
                    cost * (double)(d < 0 ? -d : d);
                cr_assert_eq(ret[row][t], want, "series %zu bar %zu", row, t);
                sum += want;
            } else {
                cr_assert(isnan(ret[row][t]), "series %zu bar %zu is not scored", row, t);
            }
            cr_assert_eq(eq[row][t], sum, "series %zu bar %zu: equity", row, t);
        }
        cr_assert_eq(eq[row][COLS - 1], scores_of_file[set][row][0], "the last equity is total");
    }
    free(up), free(mid), free(lo);
}

Test(cli, run_without_positions_writes_no_positions_file, .timeout = 120) {
    make_work_dir();
    char path[256];
    const char *dir = work_path("o");
    cli_result r = run_cli(RUN_GRID("--output", dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(path, sizeof path, "%s/positions.csv", dir);
    cr_assert(!file_exists(path));
    free_result(&r);
}

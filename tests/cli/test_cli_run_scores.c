/*
 * apportion run --score (cli/scores_output.c, docs/cli/run.md "Scores"): scores.csv against the
 * library's own scoring of the indicator's outputs (apo_score_outputs() over the raw files
 * of the same sweep without --score), the same bytes on the CPU alone and with simulated
 * devices, the order of the best lines (--top, --by, NaN last, ties in line order), the
 * usage errors, no scores.csv after a failed or interrupted run, and --plot's folder checked
 * before the work. Each case runs the built tool as a subprocess (cli_fixtures.h).
 */
#include <apportion.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

#define N_SCORES 8
#define MAX_LINES 256
#define MAX_FIELDS 16

static const char *const score_names[N_SCORES] = {"total",        "mean",   "sd",       "sharpe",
                                                  "max_drawdown", "trades", "exposure", "bars"};

/* scores.csv read back: its header and each line's fields (no field of these tests is
 * quoted). */
typedef struct scores_file {
    char *text;
    char *header[MAX_FIELDS];
    size_t n_header;
    char *fields[MAX_LINES][MAX_FIELDS];
    size_t n_lines;
} scores_file;

static size_t split(char *line, char **fields) {
    size_t n = 0;
    for (char *p = line;; p++) {
        fields[n++] = p;
        cr_assert_leq(n, MAX_FIELDS);
        p = strchr(p, ',');
        if (p == NULL)
            return n;
        *p = '\0';
    }
}

static scores_file read_scores(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/scores.csv", dir);
    scores_file f = {0};
    size_t len = 0;
    f.text = read_all(path, &len);
    cr_assert_not_null(f.text, "cannot read %s", path);
    char *save = NULL, *line = strtok_r(f.text, "\n", &save);
    cr_assert_not_null(line);
    f.n_header = split(line, f.header);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        cr_assert_lt(f.n_lines, MAX_LINES);
        cr_assert_eq(split(line, f.fields[f.n_lines]), f.n_header, "line %zu", f.n_lines);
        f.n_lines++;
    }
    return f;
}

/* Score k of line `line`, as strtod() reads its field. */
static double score_of(const scores_file *f, size_t line, size_t k) {
    return strtod(f->fields[line][f->n_header - N_SCORES + k], NULL);
}

static void assert_same_bits(double got, double want, const char *what, size_t line) {
    if (isnan(want)) {
        cr_assert(isnan(got), "%s of line %zu: %.17g, not NaN", what, line, got);
        return;
    }
    cr_assert(memcmp(&got, &want, sizeof got) == 0, "%s of line %zu: %.17g, not %.17g", what, line,
              got, want);
}

#define COLS 600

/* Two series a and b of COLS closes each, a random walk written so that it reads back to
 * the same doubles; values gets them (2 x COLS). */
static void write_two_series(const char *path, double *values) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "a,b\n");
    unsigned state = 7;
    double a = 100, b = 50;
    for (size_t t = 0; t < COLS; t++) {
        a += walk_step(&state);
        b += 0.5 * walk_step(&state);
        values[t] = a;
        values[COLS + t] = b;
        fprintf(f, "%.17g,%.17g\n", a, b);
    }
    cr_assert_eq(fclose(f), 0);
}

static double *read_f64(const char *dir, const char *name, size_t want) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s.f64", dir, name);
    size_t len = 0;
    double *d = (double *)(void *)read_all(path, &len);
    cr_assert_not_null(d, "cannot read %s", path);
    cr_assert_eq(len, want * sizeof(double), "%s: %zu bytes", path, len);
    return d;
}

/* Every score of a swept scored run is, bit for bit, what the library gives when it scores
 * the indicator's outputs that the same sweep writes without --score. */
Test(cli, scores_csv_equals_the_materialised_outputs_scored, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("in.csv"), *scored = work_path("scored"), *raw = work_path("raw");
    double values[2 * COLS];
    write_two_series(input, values);
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--input", input, "--column", "a,b",
                         "--param", "period=10:30:10", "--param", "nbdev_up=1:3:1", "--score",
                         "bands_revert", "--cost", "0.001", "--devices", "cpu", "--output",
                         scored));
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--input", input, "--column", "a,b",
                         "--param", "period=10:30:10", "--param", "nbdev_up=1:3:1", "--devices",
                         "cpu", "--output", raw));
    /* Only scores.csv: no indicator output, no sets.csv (its columns are in scores.csv). */
    char names[256] = "";
    DIR *d = opendir(scored);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            strncat(names, e->d_name, sizeof names - strlen(names) - 1);
    closedir(d);
    cr_assert_str_eq(names, "scores.csv");

    scores_file f = read_scores(scored);
    const char *header[] = {"set", "period", "nbdev_up",     "series", "total",    "mean",
                            "sd",  "sharpe", "max_drawdown", "trades", "exposure", "bars"};
    cr_assert_eq(f.n_header, 12);
    for (size_t i = 0; i < 12; i++)
        cr_assert_str_eq(f.header[i], header[i]);
    const size_t sets = 9, rows = 2;
    cr_assert_eq(f.n_lines, sets * rows);
    double *bands[3];
    const char *band_names[3] = {"upper", "middle", "lower"};
    for (size_t k = 0; k < 3; k++)
        bands[k] = read_f64(raw, band_names[k], sets * rows * COLS);
    const char *periods[] = {"10", "20", "30"}, *widths[] = {"1", "2", "3"};
    for (size_t set = 0; set < sets; set++) {
        for (size_t row = 0; row < rows; row++) {
            const size_t line = set * rows + row;
            char set_text[16];
            snprintf(set_text, sizeof set_text, "%zu", set);
            cr_assert_str_eq(f.fields[line][0], set_text);
            cr_assert_str_eq(f.fields[line][1], periods[set / 3]);
            cr_assert_str_eq(f.fields[line][2], widths[set % 3]);
            cr_assert_str_eq(f.fields[line][3], row == 0 ? "a" : "b");
            const double *outs[3];
            for (size_t k = 0; k < 3; k++)
                outs[k] = bands[k] + line * COLS;
            double want[APO_N_SCORES];
            cr_assert_eq(apo_score_outputs("bollinger", "bands_revert", values + row * COLS, outs,
                                           3, COLS, 0.001, 252, want),
                         APO_OK, "%s", apo_last_error());
            for (size_t k = 0; k < N_SCORES; k++)
                assert_same_bits(score_of(&f, line, k), want[k], score_names[k], line);
            cr_assert_gt(want[APO_SCORE_BARS], 0);
        }
    }
    for (size_t k = 0; k < 3; k++)
        free(bands[k]);
    free(f.text);
}

/* A long file of three tickers, one shorter than most warm-ups (its lines score no bar:
 * NaN where a score needs bars). */
static void write_tickers(const char *path) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "date,ticker,close\n");
    const char *tickers[] = {"AAA", "BBB", "CCC"};
    const size_t lengths[] = {500, 320, 15};
    unsigned state = 11;
    for (size_t j = 0; j < 3; j++) {
        double x = 80 + 10 * (double)j;
        for (size_t t = 0; t < lengths[j]; t++) {
            x += walk_step(&state);
            fprintf(f, "%04zu-%02zu-%02zu,%s,%.17g\n", 2000 + t / 336, 1 + t / 28 % 12, 1 + t % 28,
                    tickers[j], x);
        }
    }
    cr_assert_eq(fclose(f), 0);
}

#define SIMS "cpu,sim:a:rate=1e8,sim:b:rate=3e8:latency=1ms"

/* A ragged --group-by sweep, over the cost too, writes the same bytes on the CPU alone and
 * on the CPU with two simulated devices (docs/api.md, "Scores": one series is scored whole
 * by one device). */
Test(cli, scores_are_the_same_bytes_on_any_devices, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("long.csv"), *one = work_path("one"), *three = work_path("three");
    write_tickers(input);
    const char *devices[] = {"cpu", SIMS};
    const char *dirs[] = {one, three};
    for (size_t k = 0; k < 2; k++) {
        run_cli_env_ok_free(ENV("APPORTION_SIM_CLOCK=virtual"),
                            ARGS("run", "--kernel", "macd", "--input", input, "--column", "close",
                                 "--group-by", "ticker", "--param", "fast=4:12:4", "--param",
                                 "cost=0,0.001", "--score", "macd_cross", "--periods-per-year",
                                 "98280", "--devices", devices[k], "--output", dirs[k]));
    }
    size_t n1 = 0, n3 = 0;
    char p1[256], p3[256];
    snprintf(p1, sizeof p1, "%s/scores.csv", one);
    snprintf(p3, sizeof p3, "%s/scores.csv", three);
    char *a = read_all(p1, &n1), *b = read_all(p3, &n3);
    cr_assert(a != NULL && b != NULL);
    cr_assert(n1 == n3 && memcmp(a, b, n1) == 0, "scores.csv differs across devices");
    free(a);
    free(b);
    scores_file f = read_scores(one);
    cr_assert_str_eq(f.header[1], "fast");
    cr_assert_str_eq(f.header[2], "cost");
    cr_assert_str_eq(f.header[3], "series");
    cr_assert_eq(f.n_lines, 3 * 2 * 3);
    cr_assert_str_eq(f.fields[5][3], "CCC");
    cr_assert_str_eq(f.fields[5][f.n_header - 1], "0", "the short ticker scores no bar");
    cr_assert_str_eq(f.fields[5][f.n_header - 5], "nan");
    free(f.text);
}

/* Whether line a ranks before line b by score k of f (the documented order). */
static int ranks_before(const scores_file *f, size_t k, size_t a, size_t b) {
    const double x = score_of(f, a, k), y = score_of(f, b, k);
    if (isnan(x) != isnan(y))
        return isnan(y);
    const int smaller_first = k == 2 || k == 4; /* sd, max_drawdown */
    if (!isnan(x) && x != y)
        return smaller_first ? x < y : x > y;
    return a < b;
}

/* --top and --by: the JSON's best lines are the lines of scores.csv in the documented order
 * (larger first but sd and max_drawdown, NaN last, equal values in line order), and the text
 * report shows as many. */
Test(cli, top_and_by_rank_the_lines, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("long.csv"), *out = work_path("out");
    write_tickers(input);
    const char *by[] = {"sharpe", "max_drawdown", "bars", "trades", "sd"};
    for (size_t q = 0; q < sizeof by / sizeof *by; q++) {
        cli_result r =
            run_cli_ok(ARGS("run", "--kernel", "bollinger", "--input", input, "--column", "close",
                            "--group-by", "ticker", "--param", "period=5:25:5", "--param",
                            "nbdev_up=1,2", "--score", "bands_revert", "--by", by[q], "--top",
                            "100", "--devices", "cpu", "--json", "--output", out));
        json_t *j = parse_json(&r);
        free_result(&r);
        scores_file f = read_scores(out);
        const size_t lines = f.n_lines, k = (size_t)(strcmp(by[q], "sharpe") == 0         ? 3
                                                     : strcmp(by[q], "max_drawdown") == 0 ? 4
                                                     : strcmp(by[q], "bars") == 0         ? 7
                                                     : strcmp(by[q], "trades") == 0       ? 5
                                                                                          : 2);
        cr_assert_eq(lines, 5 * 2 * 3);
        size_t order[MAX_LINES];
        for (size_t i = 0; i < lines; i++) {
            size_t at = i;
            while (at > 0 && ranks_before(&f, k, i, order[at - 1])) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = i;
        }
        const json_t *sc = get(j, "scores");
        cr_assert_str_eq(json_string_value(get(sc, "by")), by[q]);
        cr_assert_eq(json_integer_value(get(sc, "lines")), (json_int_t)lines);
        const json_t *best = get(sc, "best");
        cr_assert_eq(json_array_size(best), lines);
        for (size_t i = 0; i < lines; i++) {
            const json_t *x = json_array_get(best, i);
            const size_t line = order[i], set = line / 3;
            cr_assert_eq(json_integer_value(get(x, "set")), (json_int_t)set, "by %s, rank %zu",
                         by[q], i + 1);
            cr_assert_str_eq(json_string_value(get(x, "series")), f.fields[line][3],
                             "by %s, rank %zu", by[q], i + 1);
            const json_t *v = get(get(x, "scores"), by[q]);
            const double want = score_of(&f, line, k);
            if (isnan(want))
                cr_assert(json_is_null(v));
            else
                assert_same_bits(json_real_value(v), want, by[q], line);
        }
        /* The short ticker's lines have no bars: NaN sharpe and sd come last. */
        if (k == 3 || k == 2)
            cr_assert_str_eq(f.fields[order[lines - 1]][3], "CCC");
        json_decref(j);
        free(f.text);
    }
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--input", input, "--column",
                                   "close", "--group-by", "ticker", "--param", "period=5:25:5",
                                   "--score", "bands_zone", "--top", "3", "--devices", "cpu"));
    assert_contains(r.out, "best 3 of 15 (set and series) by sharpe, largest first, NaN last:");
    cr_assert_null(strstr(r.out, "\n   4 "), "more than 3 lines: %s", r.out);
    free_result(&r);
}

/* Usage errors, before any work: exit status 2, the message, and no output folder. */
Test(cli, score_usage_errors, .timeout = 120) {
    make_work_dir();
    const char *out = work_path("out");
    const struct {
        const char *kernel, *a[6], *message;
    } cases[] = {
        {"bollinger", {"--score", "nope"}, "--score: no rule named \"nope\""},
        {"macd", {"--score", "bands_revert"}, "rule bands_revert does not fit kernel macd"},
        {"bollinger", {"--score", "macd_cross"}, "the rules for it are bands_revert, bands_zone"},
        {"bollinger", {"--score", ""}, "--score: empty rule name"},
        {"bollinger",
         {"--score", "bands_revert", "--cost", "1.5"},
         "--cost '1.5': expected a number from 0 to 1"},
        {"bollinger",
         {"--score", "bands_revert", "--cost", "-0.1"},
         "expected a number from 0 to 1"},
        {"bollinger",
         {"--score", "bands_revert", "--param", "cost=0,2"},
         "parameter cost must be from 0 to 1"},
        {"bollinger",
         {"--score", "bands_revert", "--periods-per-year", "0"},
         "--periods-per-year '0': expected a number > 0"},
        {"bollinger", {"--top", "3"}, "--top needs --score RULE"},
        {"bollinger", {"--by", "sharpe"}, "--by needs --score RULE"},
        {"bollinger", {"--cost", "0.1"}, "--cost needs --score RULE"},
        {"bollinger",
         {"--score", "bands_revert", "--by", "profit"},
         "--by 'profit': no such score"},
        {"bollinger",
         {"--score", "bands_revert", "--top", "0"},
         "--top '0': expected a positive integer"},
        {"bollinger",
         {"--score", "bands_revert", "--cost", "0.1", "--param", "cost=0.2"},
         "--cost and --param cost give the same parameter"},
        {"bollinger",
         {"--score", "bands_revert", "--format", "csv"},
         "--score writes DIR/scores.csv only"},
        {"bollinger", {"--plot", "grid.png"}, "--plot needs --score RULE"},
        {"bollinger",
         {"--score", "bands_revert", "--param", "period=10,20", "--plot", "grid.png"},
         "--plot draws a score over two swept parameters; this run sweeps 1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *const *a = cases[c].a;
        cli_result r =
            run_cli(ARGS("run", "--kernel", cases[c].kernel, "--cols", "500", "--devices", "cpu",
                         "--output", out, a[0], a[1], a[2], a[3], a[4], a[5]));
        cr_assert_eq(r.status, 2, "case %zu: status %d: %s", c, r.status, r.err);
        assert_contains(r.err, cases[c].message);
        free_result(&r);
        cr_assert(!file_exists(out), "case %zu left %s", c, out);
    }
}

/* The names in dir, hidden ones too, sorted, each followed by a comma. */
static void names_in(const char *dir, char *out, size_t size) {
    struct dirent **list = NULL;
    const int n = scandir(dir, &list, NULL, alphasort);
    cr_assert_geq(n, 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..") != 0) {
            strncat(out, list[i]->d_name, size - strlen(out) - 1);
            strncat(out, ",", size - strlen(out) - 1);
        }
        free(list[i]);
    }
    free(list);
}

/* A run that fails after scores.csv was opened (a device that fails every task) and one
 * ended by SIGTERM during the work leave the folder as it was: the old scores.csv byte for
 * byte, no temporary; a folder the run created is removed. The SIGTERM run's device is
 * simulated at one element a second on the wall clock, so it is still working whenever the
 * signal comes; it is sent once the temporary exists and the run's main thread sleeps
 * waiting for that device (cli_main_thread_sleeps() says why). A temporary that a killed
 * run left is removed by the next run. */
Test(cli, no_scores_csv_after_a_failed_or_interrupted_run, .timeout = 120) {
    make_work_dir();
    char file[256];
    const char *out = work_path("out"), *fresh = work_path("fresh");
    snprintf(file, sizeof file, "%s/scores.csv", out);
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--cols", "500", "--param", "period=10,20",
                         "--score", "bands_zone", "--devices", "cpu", "--output", out));
    size_t old_len = 0;
    char *old = read_all(file, &old_len);
    cr_assert_not_null(old);

    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "800", "--score",
                                "bands_zone", "--devices", "sim:a:flaky=1", "--output", out));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "800", "--score", "bands_zone",
                     "--devices", "sim:a:flaky=1", "--output", fresh));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    free_result(&r);
    cr_assert(!file_exists(fresh), "a failed run left %s", fresh);

    pid_t pid = start_cli(ENV("APPORTION_SIM_CLOCK=wall"),
                          ARGS("run", "--kernel", "bollinger", "--cols", "800", "--score",
                               "bands_zone", "--devices", "sim:a:rate=1", "--output", out));
    for (int seen = 0; !seen;) {
        int wstatus;
        cr_assert_eq(waitpid(pid, &wstatus, WNOHANG), 0, "the run ended before the signal");
        DIR *d = opendir(out);
        cr_assert_not_null(d);
        for (struct dirent *e; !seen && (e = readdir(d)) != NULL;)
            seen = strncmp(e->d_name, ".scores.csv.", 12) == 0;
        closedir(d);
        seen = seen && cli_main_thread_sleeps(pid);
        if (!seen)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    cr_assert_eq(kill(pid, SIGTERM), 0);
    int sig = 0;
    r = finish_cli(pid, &sig);
    cr_assert_eq(sig, SIGTERM, "ended by signal %d, status %d: %s", sig, r.status, r.err);
    free_result(&r);
    char names[512];
    names_in(out, names, sizeof names);
    cr_assert_str_eq(names, "scores.csv,");
    size_t now_len = 0;
    char *now = read_all(file, &now_len);
    cr_assert(now != NULL && now_len == old_len && memcmp(now, old, old_len) == 0,
              "scores.csv changed");
    free(now);

    /* What kill -9 leaves: a temporary named for this machine and a process that has ended. */
    const pid_t dead = fork();
    cr_assert_geq(dead, 0);
    if (dead == 0)
        _exit(0);
    cr_assert_eq(waitpid(dead, NULL, 0), dead);
    char host[256] = "", tag[64];
    cr_assert_eq(gethostname(host, sizeof host - 1), 0);
    size_t n = 0;
    for (const char *c = host; *c != '\0' && n < 63; c++)
        tag[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                           (*c >= '0' && *c <= '9') || *c == '-'
                       ? *c
                       : '_';
    tag[n] = '\0';
    char stale[512];
    snprintf(stale, sizeof stale, "%s/.scores.csv.%s-%lld.Xa1b2c", out, tag, (long long)dead);
    write_text(stale, "set,series\n0,");
    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "500", "--param", "period=10,20",
                        "--score", "bands_zone", "--devices", "cpu", "--output", out));
    assert_contains(r.err, "a temporary output file that process");
    free_result(&r);
    names_in(out, names, sizeof names);
    cr_assert_str_eq(names, "scores.csv,");
    now = read_all(file, &now_len);
    cr_assert(now != NULL && now_len == old_len && memcmp(now, old, old_len) == 0);
    free(now);
    free(old);
}

/* --plot: the heatmap of sharpe over the two swept parameters, a whole PNG at the path and
 * nothing else left beside it (gnuplot's files live in a private folder, the picture is
 * renamed into place whole). scripts/deps.sh installs gnuplot. */
Test(cli, score_plot_writes_a_whole_picture, .timeout = 120) {
    make_work_dir();
    const char *picture = work_path("grid.png");
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "3000", "--rows", "2",
                                   "--devices", "cpu", "--param", "period=10:30:10", "--param",
                                   "nbdev_up=1,2", "--score", "bands_revert", "--plot", picture));
    free_result(&r);
    FILE *f = fopen(picture, "rb");
    cr_assert_not_null(f, "no picture at %s", picture);
    unsigned char head[8] = {0};
    cr_assert_eq(fread(head, 1, 8, f), 8);
    fclose(f);
    cr_assert(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG file", picture);
    char names[512];
    names_in(work, names, sizeof names);
    cr_assert_not_null(strstr(names, "grid.png,"), "%s", names);
    cr_assert_null(strstr(names, ".tmp"), "a temporary is left beside the picture: %s", names);
}

/* --plot into a folder that is missing, or onto a folder, is refused before the work, as
 * --output's folder is: exit 1, the reason, and no scores.csv nor --output folder made
 * (the check comes before gnuplot's, so this runs without gnuplot). */
Test(cli, score_plot_into_a_missing_folder_fails_before_the_work, .timeout = 120) {
    make_work_dir();
    char picture[160];
    const char *out = work_path("out");
    const char *bad[][2] = {{"missing/grid.png", "its folder"},
                            {"", "is a folder, not a picture file"}};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        if (bad[c][0][0] != '\0') {
            snprintf(picture, sizeof picture, "%s/%s", work, bad[c][0]);
        } else {
            snprintf(picture, sizeof picture, "%s/folder.png", work);
            cr_assert_eq(mkdir(picture, 0700), 0);
        }
        cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "3000", "--devices",
                                    "cpu", "--param", "period=10:30:10", "--param", "nbdev_up=1,2",
                                    "--score", "bands_revert", "--output", out, "--plot", picture));
        cr_assert_eq(r.status, 1, "case %zu: status %d: %s", c, r.status, r.err);
        assert_contains(r.err, bad[c][1]);
        assert_contains(r.err, "nothing was computed");
        free_result(&r);
        cr_assert(!file_exists(out), "case %zu made %s", c, out);
    }
}

/* A rule with thresholds (docs/scores.md, "Rules"): --param sweeps rsi_zone's lower like
 * any parameter, scores.csv has a column for it, and a set whose lower is not below upper is
 * a usage error naming it. */
Test(cli, a_sweep_over_a_rules_thresholds, .timeout = 120) {
    make_work_dir();
    const char *input = work_path("long.csv"), *out = work_path("out");
    write_tickers(input);
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "rsi", "--input", input, "--column", "close",
                                   "--group-by", "ticker", "--param", "lower=20:40:5", "--score",
                                   "rsi_zone", "--devices", "cpu", "--output", out));
    free_result(&r);
    scores_file f = read_scores(out);
    cr_assert_str_eq(f.header[1], "lower");
    cr_assert_str_eq(f.header[2], "series");
    cr_assert_eq(f.n_lines, 5 * 3);
    cr_assert_str_eq(f.fields[0][1], "20");
    cr_assert_str_eq(f.fields[12][1], "40");
    free(f.text);
    r = run_cli(ARGS("run", "--kernel", "rsi", "--cols", "800", "--param", "lower=60:80:10",
                     "--score", "rsi_zone", "--devices", "cpu"));
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "sweep set 1: rsi:rsi_zone: lower (70) must be below upper (70)") !=
                  NULL,
              "%s", r.err);
    free_result(&r);
}

/* A wide file (one ticker) of high, low and close, with or without its date column: its one
 * series is named after the file ("AAPL" for AAPL.csv), not after its first input column
 * ("high"), which names an input; a second dot stays in the name. */
Test(cli, a_wide_file_of_several_inputs_names_its_series_after_the_file, .timeout = 120) {
    make_work_dir();
    char out[128];
    const char *dated = work_path("AAPL.csv"), *undated = work_path("MSFT.prices.csv");
    FILE *f = fopen(dated, "w"), *g = fopen(undated, "w");
    cr_assert(f != NULL && g != NULL);
    fprintf(f, "date,high,low,close\n");
    fprintf(g, "high,low,close\n");
    unsigned state = 11;
    double close = 100;
    for (int t = 0; t < 80; t++) {
        close += walk_step(&state);
        fprintf(f, "2024-%02d-%02d,%.17g,%.17g,%.17g\n", 1 + t / 28, 1 + t % 28, close + 1,
                close - 1, close);
        fprintf(g, "%.17g,%.17g,%.17g\n", close + 1, close - 1, close);
    }
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(fclose(g), 0);
    const char *inputs[] = {dated, undated};
    const char *names[] = {"AAPL", "MSFT.prices"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, sizeof out, "%s/out%d", work, i);
        run_cli_ok_free(ARGS("run", "--kernel", "willr", "--input", inputs[i], "--param",
                             "timeperiod=10,14", "--score", "willr_zone", "--devices", "cpu",
                             "--output", out));
        scores_file s = read_scores(out);
        cr_assert_str_eq(s.header[2], "series");
        cr_assert_eq(s.n_lines, 2);
        for (size_t line = 0; line < s.n_lines; line++)
            cr_assert_str_eq(s.fields[line][2], names[i], "line %zu of %s", line, inputs[i]);
        free(s.text);
    }
}

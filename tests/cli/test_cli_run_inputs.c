/*
 * `apportion run --input-map`: a kernel's named inputs read from the CSV columns a map names
 * (docs/cli/run.md, "Several inputs"), equal byte for byte to `--column`, in wide and long
 * files, and every bad map refused with nothing written; `open` (bop, imi) by name and by map.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

Test(cli, input_map_reads_named_inputs_and_refuses_bad_maps, .timeout = 120) {
    make_work_dir();
    const char *path = work_path("bars.csv");
    static char text[65536];
    size_t o = (size_t)snprintf(text, sizeof text, "Date,Ticker,Price,Note\n");
    unsigned st = 5;
    double x = 100;
    for (int i = 0; i < 300; i++) {
        x += walk_step(&st);
        /* One minute a line: ordered dates, none repeated within a series. */
        o += (size_t)snprintf(text + o, sizeof text - o, "2024-01-02T%02d:%02d,%s,%.17g,n%d\n",
                              i / 60, i % 60, i % 2 ? "A" : "B", x, i);
    }
    write_text(path, text);
    const char *layouts[2][2] = {{NULL, NULL}, {"--group-by", "Ticker"}};
    for (int l = 0; l < 2; l++) {
        char by_column[160], by_map[160];
        snprintf(by_column, sizeof by_column, "%s/by_column%d", work, l);
        snprintf(by_map, sizeof by_map, "%s/by_map%d", work, l);
        const char *a[] = {"run",      "--kernel",    "bollinger",   "--input", path,
                           "--column", "Price",       "--output",    by_column, "--format",
                           "csv",      layouts[l][0], layouts[l][1], NULL};
        cli_result r = run_cli(a);
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
        const char *b[] = {"run",         "--kernel",    "bollinger",   "--input", path,
                           "--input-map", "CLOSE=Price", "--output",    by_map,    "--format",
                           "csv",         layouts[l][0], layouts[l][1], NULL};
        r = run_cli(b);
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
        for (int f = 0; f < 3; f++) {
            const char *names[3] = {"upper", "middle", "lower"};
            char fa[256], fb[256];
            snprintf(fa, sizeof fa, "%s/%s.csv", by_column, names[f]);
            snprintf(fb, sizeof fb, "%s/%s.csv", by_map, names[f]);
            size_t la = 0, lb = 0;
            char *ta = read_all(fa, &la), *tb = read_all(fb, &lb);
            cr_assert(ta != NULL && tb != NULL && la == lb && memcmp(ta, tb, la) == 0,
                      "layout %d, %s: --input-map differs from --column", l, names[f]);
            free(ta), free(tb);
        }
    }
    const char *bad[][2] = {{"close=Nope", "no column named \"Nope\""},
                            {"close=Note", "expected a number"},
                            {"close=Price,Close=Price", "input close is mapped twice"},
                            {"high=Price", "has no input 'high' (its inputs: close)"},
                            {"close", "is not INPUT=COLUMN"}};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char out[160];
        snprintf(out, sizeof out, "%s/bad%zu", work, c);
        const char *a[] = {"run",         "--kernel", "bollinger", "--input", path,
                           "--input-map", bad[c][0],  "--output",  out,       NULL};
        cli_result r = run_cli(a);
        cr_assert_eq(r.status, 2, "--input-map %s: exit %d", bad[c][0], r.status);
        cr_assert(strstr(r.err, bad[c][1]) != NULL, "--input-map %s: %s", bad[c][0], r.err);
        cr_assert_eq(access(out, F_OK), -1, "--input-map %s wrote %s", bad[c][0], out);
        free_result(&r);
    }
    /* Named inputs come from a CSV file: the generated input cannot give them. */
    const char *gen[] = {"run", "--kernel", "bollinger", "--input-map", "close=Price", NULL};
    cli_result r = run_cli(gen);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "reads the inputs close by name") != NULL, "%s", r.err);
    free_result(&r);
}

/* A volume below 0 is refused where the file holds it, by `run` and `stream` alike, with
 * nothing written (docs/kernels.md, "Negative volume"); a missing one is a gap, as before. */
Test(cli, a_negative_volume_is_refused_with_its_line_and_field, .timeout = 120) {
    make_work_dir();
    const char *path = work_path("ohlcv.csv"), *missing = work_path("missing.csv"),
               *state = work_path("obv.state");
    static char text[65536], gap[65536];
    size_t o = (size_t)snprintf(text, sizeof text, "date,ticker,high,low,close,volume\n");
    size_t g = (size_t)snprintf(gap, sizeof gap, "%s", text);
    unsigned st = 7;
    double x = 100;
    for (int i = 0; i < 200; i++) {
        x += walk_step(&st);
        /* Line 2 + i; record 57 (line 59) holds the bad volume, in field 6. */
        const char *ticker = i % 2 ? "A" : "B";
        const int day = i / 2 + 1;
        o += (size_t)snprintf(text + o, sizeof text - o, "2024-%02d-%02d,%s,%.6f,%.6f,%.6f,%s\n",
                              day / 28 + 1, day % 28 + 1, ticker, x + 1, x - 1, x,
                              i == 57 ? "-500000" : "125000");
        g += (size_t)snprintf(gap + g, sizeof gap - g, "2024-%02d-%02d,%s,%.6f,%.6f,%.6f,%s\n",
                              day / 28 + 1, day % 28 + 1, ticker, x + 1, x - 1, x,
                              i == 57 ? "" : "125000");
    }
    write_text(path, text);
    write_text(missing, gap);
    const char *kernels[] = {"mfi", "mvwap", "vwap", "obv", "ad", "adosc"};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char out[160];
        snprintf(out, sizeof out, "%s/out_%s", work, kernels[k]);
        cli_result r = run_cli(ARGS("run", "--kernel", kernels[k], "--input", path, "--group-by",
                                    "ticker", "--output", out));
        cr_assert_eq(r.status, 2, "%s: exit %d: %s", kernels[k], r.status, r.err);
        assert_contains(r.err, "ohlcv.csv:59:6: \"-500000\" is negative");
        cr_assert_eq(access(out, F_OK), -1, "%s wrote %s", kernels[k], out);
        free_result(&r);
    }
    cli_result r = run_cli(ARGS("stream", "--state", state, "--kernel", "obv", "--input", path,
                                "--group-by", "ticker"));
    cr_assert_eq(r.status, 2, "stream: exit %d: %s", r.status, r.err);
    assert_contains(r.err, "ohlcv.csv:59:6:");
    cr_assert_eq(access(state, F_OK), -1, "the refused stream wrote its state");
    free_result(&r);
    char out[160];
    snprintf(out, sizeof out, "%s/out_gap", work);
    run_cli_ok_free(ARGS("run", "--kernel", "mfi", "--input", missing, "--group-by", "ticker",
                         "--missing-as-nan", "--output", out));
}

/* The input `open` (bop, imi) is read from the CSV column of its name, any case, or from the
 * column a map names, end to end: bop's values are (close - open) / (high - low) of the file's
 * own numbers, imi's with its open mapped from another column are its values by name; a file
 * without the column is refused, naming it, with nothing written. */
Test(cli, open_is_read_by_name_and_by_map, .timeout = 120) {
    make_work_dir();
    const char *path = work_path("ohlc.csv"), *no_open = work_path("hlc.csv"),
               *bop_dir = work_path("bop"), *imi_dir = work_path("imi"),
               *mapped_dir = work_path("imi_mapped"), *bad_dir = work_path("bad");
    enum { N = 60 };
    static char text[16384], hlc[16384];
    double o[N], h[N], l[N], c[N];
    size_t at_hlc = (size_t)snprintf(hlc, sizeof hlc, "date,high,low,close\n");
    unsigned st = 11;
    double x = 100;
    for (int i = 0; i < N; i++) {
        x += walk_step(&st);
        /* Values with two decimals, which the file and the test both read as the same doubles. */
        c[i] = round(x * 100) / 100;
        h[i] = c[i] + 0.75;
        l[i] = c[i] - 0.5;
        o[i] = i % 7 == 3 ? c[i] : c[i] + (i % 2 ? 0.25 : -0.25);
        at_hlc += (size_t)snprintf(hlc + at_hlc, sizeof hlc - at_hlc, "%d,%.2f,%.2f,%.2f\n", i + 1,
                                   h[i], l[i], c[i]);
    }
    /* One bar a line, numbered. */
    size_t at = (size_t)snprintf(text, sizeof text, "date,Open,High,Low,Close,first\n");
    for (int i = 0; i < N; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%d,%.2f,%.2f,%.2f,%.2f,%.2f\n", i + 1,
                               o[i], h[i], l[i], c[i], o[i]);
    for (int i = 0; i < N; i++) {
        /* The file's own doubles, as the CLI parses them. */
        char cell[32];
        snprintf(cell, sizeof cell, "%.2f", o[i]), o[i] = strtod(cell, NULL);
        snprintf(cell, sizeof cell, "%.2f", h[i]), h[i] = strtod(cell, NULL);
        snprintf(cell, sizeof cell, "%.2f", l[i]), l[i] = strtod(cell, NULL);
        snprintf(cell, sizeof cell, "%.2f", c[i]), c[i] = strtod(cell, NULL);
    }
    write_text(path, text);
    write_text(no_open, hlc);
    run_cli_ok_free(
        ARGS("run", "--kernel", "bop", "--input", path, "--output", bop_dir, "--format", "csv"));
    char file[256];
    snprintf(file, sizeof file, "%s/bop.csv", bop_dir);
    size_t len = 0;
    char *got = read_all(file, &len);
    cr_assert_not_null(got);
    cr_assert(strncmp(got, "bop\n", 4) == 0, "the output's header");
    char *p = got + 4;
    for (int i = 0; i < N; i++) {
        char *end;
        const double v = strtod(p, &end);
        cr_assert(end != p, "bop line %d", i);
        cr_assert_eq(v, (c[i] - o[i]) / (h[i] - l[i]), "bop bar %d: %.17g", i, v);
        p = end;
    }
    free(got);
    run_cli_ok_free(
        ARGS("run", "--kernel", "imi", "--input", path, "--output", imi_dir, "--format", "csv"));
    run_cli_ok_free(ARGS("run", "--kernel", "imi", "--input", no_open, "--input-map", "open=high",
                         "--output", mapped_dir, "--format", "csv"));
    run_cli_ok_free(ARGS("run", "--kernel", "imi", "--input", path, "--input-map", "open=first",
                         "--output", mapped_dir, "--format", "csv"));
    char fa[256], fb[256];
    snprintf(fa, sizeof fa, "%s/imi.csv", imi_dir);
    snprintf(fb, sizeof fb, "%s/imi.csv", mapped_dir);
    size_t la = 0, lb = 0;
    char *ta = read_all(fa, &la), *tb = read_all(fb, &lb);
    cr_assert(ta != NULL && tb != NULL && la == lb && memcmp(ta, tb, la) == 0,
              "imi: open=first differs from the column open");
    free(ta), free(tb);
    cli_result r = run_cli(ARGS("run", "--kernel", "bop", "--input", no_open, "--output", bad_dir));
    cr_assert_eq(r.status, 2, "no open column: exit %d", r.status);
    assert_contains(r.err, "\"open\"");
    cr_assert_eq(access(bad_dir, F_OK), -1, "the refused run wrote %s", bad_dir);
    free_result(&r);
}

/*
 * apportion stream (cli/cmd_stream.c): new rows fed to a state file, run after run, give
 * the bits that `apportion run` gives over the whole history; rows not after a series' last
 * date are refused, skipped or accepted as asked; a damaged or foreign state, and rows it
 * cannot take (a column missing, a value not a number, a negative volume), are refused with
 * nothing changed, and the later rows then give the bits of one run; and a run killed (SIGKILL)
 * between writing its outputs and replacing the state, run again, leaves the files of an
 * uninterrupted run; obv's stream carries its running sum from run to run in the state. Each case
 * runs the built tool as a subprocess (cli_fixtures.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

#define BARS 300
#define TICKERS 2

/* Two tickers' bars (high, low, close), a gap in A's closes at bars 50 to 52. */
static double high[TICKERS][BARS], low[TICKERS][BARS], close_[TICKERS][BARS];
static const char *const ticker[TICKERS] = {"A", "B"};

static void make_bars(void) {
    unsigned st = 11;
    for (int t = 0; t < TICKERS; t++) {
        double c = 100 + 20 * t;
        for (int i = 0; i < BARS; i++) {
            c += walk_step(&st);
            close_[t][i] = c;
            high[t][i] = c + fabs(walk_step(&st));
            low[t][i] = c - fabs(walk_step(&st));
        }
    }
}

/* Bar i's date: hours from 2024-01-01T00:00. */
static void bar_date(int i, char *out, size_t size) {
    snprintf(out, size, "2024-01-%02dT%02d:00", 1 + i / 24, i % 24);
}

/* A long-format file of ticker t's bars [from[t], to[t]), the records in date order: high,
 * low and close, or with `volume` close and a volume. */
static void write_bars(const char *path, const int *from, const int *to, int volume) {
    static char text[1 << 16];
    size_t o = (size_t)snprintf(
        text, sizeof text, volume ? "date,ticker,close,volume\n" : "date,ticker,high,low,close\n");
    for (int i = 0; i < BARS; i++) {
        for (int t = 0; t < TICKERS; t++) {
            if (i < from[t] || i >= to[t])
                continue;
            char date[32];
            bar_date(i, date, sizeof date);
            char c[32];
            if (t == 0 && i >= 50 && i <= 52)
                snprintf(c, sizeof c, "NA");
            else
                snprintf(c, sizeof c, "%.17g", close_[t][i]);
            if (volume)
                o += (size_t)snprintf(text + o, sizeof text - o, "%s,%s,%s,%d\n", date, ticker[t],
                                      c, 1000 + (i * 37 + t * 11) % 500);
            else
                o += (size_t)snprintf(text + o, sizeof text - o, "%s,%s,%.17g,%.17g,%s\n", date,
                                      ticker[t], high[t][i], low[t][i], c);
            cr_assert_lt(o, sizeof text);
        }
    }
    write_text(path, text);
}

static void write_rows(const char *path, const int *from, const int *to) {
    write_bars(path, from, to, 0);
}

/* The batch: `run` over every bar, raw atr (TICKERS x BARS). */
static double *batch_atr(void) {
    char file[160];
    const char *all = work_path("all.csv"), *out = work_path("batch");
    write_rows(all, (const int[]){0, 0}, (const int[]){BARS, BARS});
    run_cli_ok_free(ARGS("run", "--kernel", "atr", "--param", "timeperiod=5", "--devices", "cpu",
                         "--input", all, "--group-by", "ticker", "--missing-as-nan", "--no-learn",
                         "--output", out));
    snprintf(file, sizeof file, "%s/atr.f64", out);
    size_t len = 0;
    double *v = (double *)(void *)read_all(file, &len);
    cr_assert_eq(len, sizeof(double) * TICKERS * BARS);
    return v;
}

static cli_result stream_rows(const char *state, const char *input, const char *output,
                              const char *extra) {
    return run_cli(ARGS("stream", "--state", state, "--kernel", "atr", "--param", "timeperiod=5",
                        "--input", input, "--group-by", "ticker", "--missing-as-nan", "--output",
                        output, extra));
}

/* Checks an output file of `stream` against the batch: every line's value has the bits of
 * the batch at its series and bar, and date; seen[t][bar] counts the lines. */
static void check_output_of(const char *path, const char *output, const double *batch,
                            int seen[TICKERS][BARS]) {
    size_t len = 0;
    char *text = read_all(path, &len);
    cr_assert_not_null(text, "no output %s", path);
    char *save = NULL, *line = strtok_r(text, "\n", &save), header[64];
    snprintf(header, sizeof header, "series,bar,date,%s", output);
    cr_assert_str_eq(line, header);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char name[8], date[32], want_date[32], value[64];
        unsigned bar;
        cr_assert_eq(sscanf(line, "%7[^,],%u,%31[^,],%63s", name, &bar, date, value), 4, "%s",
                     line);
        const int t = strcmp(name, "A") == 0 ? 0 : 1;
        cr_assert(strcmp(name, ticker[t]) == 0 && bar < BARS, "%s", line);
        bar_date((int)bar, want_date, sizeof want_date);
        cr_assert_str_eq(date, want_date, "%s", line);
        const double got = strtod(value, NULL), want = batch[t * BARS + bar];
        cr_assert(memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)),
                  "%s: batch %.17g", line, want);
        seen[t][bar]++;
    }
    free(text);
}

static void check_output(const char *path, const double *batch, int seen[TICKERS][BARS]) {
    check_output_of(path, "atr", batch, seen);
}

Test(cli, stream_in_ragged_pieces_gives_the_bits_of_one_run, .timeout = 120) {
    make_work_dir();
    make_bars();
    double *batch = batch_atr();
    /* Each ticker cut at its own places, one piece empty for one ticker, the gap inside. */
    static const int cut[TICKERS][6] = {{0, 1, 37, 37, 151, BARS}, {0, 5, 6, 200, 299, BARS}};
    const char *state = work_path("atr.state");
    static int seen[TICKERS][BARS];
    for (int p = 0; p < 5; p++) {
        char in[128], out[128];
        snprintf(in, sizeof in, "%s/piece%d.csv", work, p);
        snprintf(out, sizeof out, "%s/out%d.csv", work, p);
        write_rows(in, (const int[]){cut[0][p], cut[1][p]},
                   (const int[]){cut[0][p + 1], cut[1][p + 1]});
        cli_result r = stream_rows(state, in, out, "--devices=cpu");
        cr_assert_eq(r.status, 0, "piece %d: %s", p, r.err);
        free_result(&r);
        check_output(out, batch, seen);
    }
    assert_each_seen_once(&seen[0][0], TICKERS, BARS, 0, ticker);
    free(batch);
}

/* obv, a running sum from each series' first bar: the stream carries it in the state file
 * from run to run (docs/streaming.md, "Cumulative kernels"), and every piece's outputs have
 * the bits of `run` over the whole history, gap included. */
Test(cli, stream_of_obv_carries_its_sum_from_run_to_run, .timeout = 120) {
    make_work_dir();
    make_bars();
    char file[160];
    const char *all = work_path("obv_all.csv"), *dir = work_path("obv_batch"),
               *state = work_path("obv.state");
    write_bars(all, (const int[]){0, 0}, (const int[]){BARS, BARS}, 1);
    run_cli_ok_free(ARGS("run", "--kernel", "obv", "--devices", "cpu", "--input", all, "--group-by",
                         "ticker", "--missing-as-nan", "--no-learn", "--output", dir));
    snprintf(file, sizeof file, "%s/obv.f64", dir);
    size_t len = 0;
    double *batch = (double *)(void *)read_all(file, &len);
    cr_assert_eq(len, sizeof(double) * TICKERS * BARS);
    static const int cut[TICKERS][4] = {{0, 1, 51, BARS}, {0, 120, 121, BARS}};
    static int seen[TICKERS][BARS];
    for (int p = 0; p < 3; p++) {
        char in[128], out[128];
        snprintf(in, sizeof in, "%s/obv_piece%d.csv", work, p);
        snprintf(out, sizeof out, "%s/obv_out%d.csv", work, p);
        write_bars(in, (const int[]){cut[0][p], cut[1][p]},
                   (const int[]){cut[0][p + 1], cut[1][p + 1]}, 1);
        run_cli_ok_free(ARGS("stream", "--state", state, "--kernel", "obv", "--input", in,
                             "--group-by", "ticker", "--missing-as-nan", "--output", out,
                             "--devices=cpu"));
        check_output_of(out, "obv", batch, seen);
    }
    assert_each_seen_once(&seen[0][0], TICKERS, BARS, 0, ticker);
    free(batch);
}

/* A state after the first 100 bars of each ticker, and the path of the next rows' file. */
static void start_state(char *state, size_t size) {
    make_bars();
    snprintf(state, size, "%s/s.state", work);
    const char *in = work_path("head.csv"), *out = work_path("head_out.csv");
    write_rows(in, (const int[]){0, 0}, (const int[]){100, 100});
    cli_result r = stream_rows(state, in, out, "--devices=cpu");
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
}

Test(cli, stream_refuses_skips_or_accepts_rows_not_after_the_last, .timeout = 120) {
    make_work_dir();
    char state[128];
    start_state(state, sizeof state);
    size_t before_len = 0;
    char *before = read_all(state, &before_len);
    /* Bars 95 to 109: five of them already fed. */
    const char *in = work_path("overlap.csv"), *out = work_path("overlap_out.csv");
    write_rows(in, (const int[]){95, 95}, (const int[]){110, 110});
    cli_result r = stream_rows(state, in, out, "--devices=cpu");
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "is not after the state's last one, \"2024-01-05T03:00\" (5 such rows)");
    assert_contains(r.err, "--old-rows skip");
    free_result(&r);
    assert_file_is(state, before, before_len, "rows not after the last");
    cr_assert(!file_exists(out), "a refused run wrote its output");

    /* skip: the same outputs as a file of the new rows alone. */
    r = stream_rows(state, in, out, "--old-rows=skip");
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.err, "5 rows not after \"2024-01-05T03:00\" left out");
    free_result(&r);
    size_t n = 0;
    char *text = read_all(out, &n);
    assert_contains(text, "\nA,100,2024-01-05T04:00,");
    cr_assert_null(strstr(text, "2024-01-05T03:00"), "an old row was fed");
    free(text);

    /* accept: the old rows are fed as new bars, numbered on. */
    r = stream_rows(state, in, out, "--old-rows=accept");
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    text = read_all(out, &n);
    assert_contains(text, "\nA,110,2024-01-04T23:00,");
    free(text);
    free(before);
}

Test(cli, stream_refuses_a_damaged_or_foreign_state_and_changes_nothing, .timeout = 120) {
    make_work_dir();
    char state[128];
    start_state(state, sizeof state);
    const char *in = work_path("next.csv"), *out = work_path("next_out.csv");
    write_rows(in, (const int[]){100, 100}, (const int[]){110, 110});
    size_t len = 0;
    char *good = read_all(state, &len);

    /* One byte changed in the middle, then the file cut short. */
    char *bad = malloc(len);
    memcpy(bad, good, len);
    bad[len / 2] ^= 0x10;
    write_bytes(state, bad, len);
    cli_result r = stream_rows(state, in, out, "--devices=cpu");
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "corrupt or truncated state");
    free_result(&r);
    write_bytes(state, good, len - 9);
    r = stream_rows(state, in, out, "--devices=cpu");
    cr_assert_eq(r.status, 2, "%s", r.err);
    free_result(&r);
    cr_assert(!file_exists(out), "a refused state wrote an output");

    /* The good state, but asked as another kernel or with other parameters. */
    write_bytes(state, good, len);
    run_cli_refused(ARGS("stream", "--state", state, "--kernel", "natr", "--input", in,
                         "--group-by", "ticker", "--missing-as-nan"),
                    "is a stream of kernel atr, not natr");
    run_cli_refused(ARGS("stream", "--state", state, "--param", "timeperiod=6", "--input", in,
                         "--group-by", "ticker", "--missing-as-nan"),
                    "the state was refused");

    /* A ticker the state does not follow. */
    char other[128];
    snprintf(other, sizeof other, "%s/other.csv", work);
    write_text(other, "date,ticker,high,low,close\n2024-02-01,C,2,1,1.5\n");
    r = stream_rows(state, other, out, "--devices=cpu");
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "series \"C\" is not in the state");
    free_result(&r);
    assert_file_is(state, good, len, "a refused foreign state");

    /* A new state needs --kernel; --series is for raw input. */
    const char *fresh = work_path("fresh.state");
    run_cli_refused(ARGS("stream", "--state", fresh, "--input", in),
                    "--kernel K starts a new stream");
    run_cli_refused(
        ARGS("stream", "--state", fresh, "--kernel", "bollinger", "--input", in, "--series", "2"),
        "--series applies to raw float64 input only");
    cr_assert(!file_exists(fresh), "a refused start wrote a state");
    free(good);
    free(bad);
}

/* Waits (up to a minute) for path to exist. */
static int wait_for(const char *path) {
    for (int i = 0; i < 6000; i++) {
        if (file_exists(path))
            return 1;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return 0;
}

Test(cli, stream_killed_before_the_state_is_replaced_runs_again_to_the_same_files, .timeout = 180) {
    make_work_dir();
    char state[128], pending[160];
    start_state(state, sizeof state);
    const char *ref_state = work_path("ref.state");
    size_t len = 0;
    char *head = read_all(state, &len);
    write_bytes(ref_state, head, len);
    free(head);
    const char *in = work_path("next.csv"), *out = work_path("next_out.csv"),
               *ref_out = work_path("ref_out.csv");
    write_rows(in, (const int[]){100, 100}, (const int[]){160, 160});

    /* The uninterrupted run. */
    cli_result r = stream_rows(ref_state, in, ref_out, "--devices=cpu");
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);

    /* The new state is written to STATE.new first: a FIFO there holds the run in its open()
     * until the test kills it, after the output was renamed into place. */
    snprintf(pending, sizeof pending, "%s.new", state);
    cr_assert_eq(mkfifo(pending, 0644), 0, "%s", strerror(errno));
    pid_t pid = start_cli(NULL, ARGS("stream", "--state", state, "--kernel", "atr", "--param",
                                     "timeperiod=5", "--input", in, "--group-by", "ticker",
                                     "--missing-as-nan", "--output", out));
    cr_assert(wait_for(out), "the output never appeared");
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    int sig = 0;
    r = finish_cli(pid, &sig);
    cr_assert_eq(sig, SIGKILL, "the run ended before the kill: status %d, %s", r.status, r.err);
    free_result(&r);
    unlink(pending);

    /* Killed there: the output new, the state old. Run again. */
    r = stream_rows(state, in, out, "--devices=cpu");
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    assert_same_files(out, ref_out, "outputs after the re-run");
    assert_same_files(state, ref_state, "states after the re-run");
}

Test(cli, stream_of_raw_series_numbers_them, .timeout = 60) {
    make_work_dir();
    const char *raw = work_path("x.f64"), *state = work_path("raw.state");
    const double v[6] = {1, 2, 3, 10, 20, 30}; /* series 0: 1 2 3, series 1: 10 20 30 */
    write_bytes(raw, v, sizeof v);
    cli_result r = run_cli_ok(ARGS("stream", "--state", state, "--kernel", "sma", "--param",
                                   "timeperiod=2", "--input", raw, "--series", "2"));
    cr_assert_str_eq(r.out, "series,bar,sma\n0,0,nan\n0,1,1.5\n0,2,2.5\n1,0,nan\n1,1,15\n1,2,25\n");
    free_result(&r);
    r = run_cli_ok(ARGS("stream", "--state", state, "--input", raw, "--series", "2"));
    cr_assert_str_eq(r.out, "series,bar,sma\n0,3,2\n0,4,1.5\n0,5,2.5\n1,3,20\n1,4,15\n1,5,25\n");
    free_result(&r);
}

/* A sweep stream (run's --param syntax) over two runs: each output column names its set,
 * and every value has the bits of `run`'s sweep over the whole history at that set, series
 * and bar. A later run whose --param differs from the state's is refused, nothing changed. */
#define SWEEP_SETS 3
Test(cli, sweep_stream_gives_the_bits_of_runs_sweep_and_refuses_other_params, .timeout = 120) {
    make_work_dir();
    make_bars();
    char file[160], in[128], out[128];
    const char *all = work_path("all.csv"), *dir = work_path("batch");
    write_rows(all, (const int[]){0, 0}, (const int[]){BARS, BARS});
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--param", "period=10:30:10",
                                   "--devices", "cpu", "--input", all, "--group-by", "ticker",
                                   "--missing-as-nan", "--no-learn", "--output", dir));
    free_result(&r);
    snprintf(file, sizeof file, "%s/lower.f64", dir);
    size_t len = 0;
    double *batch = (double *)(void *)read_all(file, &len); /* sets x tickers x bars */
    cr_assert_eq(len, sizeof(double) * SWEEP_SETS * TICKERS * BARS);

    const char *state = work_path("sweep.state");
    static const int cut[3] = {0, 137, BARS};
    static int seen[TICKERS][BARS];
    for (int p = 0; p < 2; p++) {
        snprintf(in, sizeof in, "%s/sweep%d.csv", work, p);
        snprintf(out, sizeof out, "%s/sweep_out%d.csv", work, p);
        write_rows(in, (const int[]){cut[p], cut[p]}, (const int[]){cut[p + 1], cut[p + 1]});
        /* The second run gives the sweep as a list: the same sets, so the state takes it. */
        run_cli_ok_free(ARGS("stream", "--state", state, "--kernel", "bollinger", "--param",
                             p == 0 ? "period=10:30:10" : "period=10,20,30", "--input", in,
                             "--group-by", "ticker", "--missing-as-nan", "--devices=cpu",
                             "--output", out));
        char *text = read_all(out, &len);
        cr_assert_not_null(text);
        char *save = NULL, *line = strtok_r(text, "\n", &save);
        cr_assert_str_eq(line, "series,bar,date,upper period=10,upper period=20,upper period=30,"
                               "middle period=10,middle period=20,middle period=30,"
                               "lower period=10,lower period=20,lower period=30");
        while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
            char *fields = NULL, *f = strtok_r(line, ",", &fields);
            const int t = strcmp(f, "A") == 0 ? 0 : 1;
            const unsigned bar = (unsigned)strtoul(strtok_r(NULL, ",", &fields), NULL, 10);
            cr_assert_lt(bar, BARS);
            strtok_r(NULL, ",", &fields);            /* the date */
            for (int c = 0; c < 2 * SWEEP_SETS; c++) /* upper and middle */
                strtok_r(NULL, ",", &fields);
            for (int s = 0; s < SWEEP_SETS; s++) {
                const double got = strtod(strtok_r(NULL, ",", &fields), NULL);
                const double want = batch[((size_t)s * TICKERS + (size_t)t) * BARS + bar];
                cr_assert(memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)),
                          "set %d ticker %d bar %u: %.17g, batch %.17g", s, t, bar, got, want);
            }
            seen[t][bar]++;
        }
        free(text);
    }
    assert_each_seen_once(&seen[0][0], TICKERS, BARS, 0, ticker);
    free(batch);

    /* Other sets, or one set, on the sweep's state: refused, the state as it was. */
    size_t before_len = 0;
    char *before = read_all(state, &before_len);
    snprintf(out, sizeof out, "%s/refused.csv", work);
    static const char *const other[] = {"period=10:20:10", "period=20"};
    for (int k = 0; k < 2; k++) {
        run_cli_refused(ARGS("stream", "--state", state, "--param", other[k], "--input", in,
                             "--group-by", "ticker", "--missing-as-nan", "--devices=cpu",
                             "--old-rows=accept", "--output", out),
                        "the state was refused");
        assert_file_is(state, before, before_len, other[k]);
        cr_assert(!file_exists(out), "a refused run wrote its output");
    }
    free(before);
}

/* Runs the stream of `state` on a file of `text`, which must be refused with the state and
 * the output as they were. */
static void refuse_rows(const char *state, const char *kernel, const char *text, const char *what) {
    const char *in = work_path("refused.csv"), *out = work_path("refused_out.csv");
    write_text(in, text);
    size_t len = 0;
    char *before = read_all(state, &len);
    cr_assert_not_null(before);
    cli_result r =
        run_cli(ARGS("stream", "--state", state, "--kernel", kernel, "--input", in, "--group-by",
                     "ticker", "--missing-as-nan", "--output", out, "--devices=cpu"));
    cr_assert_neq(r.status, 0, "%s: the run was not refused", what);
    free_result(&r);
    assert_file_is(state, before, len, what);
    cr_assert(!file_exists(out), "%s: a refused run wrote its output", what);
    free(before);
}

/* Rows the stream cannot take (an input column missing, a value that is not a number, a
 * negative volume in the last ticker) are refused with the state byte for byte as it was,
 * and the next rows then give the bits of `run` over the whole history, as if the refused
 * runs had never been (issue 54: the state file of a refused run is untouched). */
Test(cli, stream_refused_rows_leave_the_state_and_the_later_bits, .timeout = 120) {
    make_work_dir();
    char state[128], in[128], out[128];
    start_state(state, sizeof state);
    double *batch = batch_atr();
    refuse_rows(state, "atr", "date,ticker,high,close\n2024-02-01,A,2,1.5\n2024-02-01,B,2,1.5\n",
                "a column missing");
    refuse_rows(state, "atr",
                "date,ticker,high,low,close\n2024-02-01,A,2,1,1.5\n2024-02-01,B,2,one,1.5\n",
                "a value that is not a number");
    snprintf(in, sizeof in, "%s/tail.csv", work);
    snprintf(out, sizeof out, "%s/tail_out.csv", work);
    write_rows(in, (const int[]){100, 100}, (const int[]){BARS, BARS});
    cli_result r = stream_rows(state, in, out, "--devices=cpu");
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    static int seen[TICKERS][BARS];
    check_output(out, batch, seen);
    assert_each_seen_once(&seen[0][0], TICKERS, BARS, 100, ticker);
    free(batch);

    /* obv's state, refused a negative volume in ticker B's row after A's was accepted. */
    char obv[128];
    snprintf(obv, sizeof obv, "%s/obv.state", work);
    snprintf(in, sizeof in, "%s/obv_head.csv", work);
    snprintf(out, sizeof out, "%s/obv_head_out.csv", work);
    write_bars(in, (const int[]){0, 0}, (const int[]){100, 100}, 1);
    run_cli_ok_free(ARGS("stream", "--state", obv, "--kernel", "obv", "--input", in, "--group-by",
                         "ticker", "--missing-as-nan", "--output", out, "--devices=cpu"));
    refuse_rows(obv, "obv",
                "date,ticker,close,volume\n2024-02-01T00:00,A,101,500\n2024-02-01T00:00,B,99,-1\n",
                "a negative volume");
}

/* --kernel in any case (docs/cli.md): a stream started as ATR goes on as atr and as Atr,
 * every piece with the bits of the batch. */
Test(cli, stream_takes_the_kernel_name_in_any_case, .timeout = 120) {
    make_work_dir();
    make_bars();
    double *batch = batch_atr();
    static const int cut[3] = {0, 120, BARS};
    static const char *const names[2] = {"ATR", "Atr"};
    const char *state = work_path("atr_case.state");
    static int seen[TICKERS][BARS];
    for (int p = 0; p < 2; p++) {
        char in[128], out[128];
        snprintf(in, sizeof in, "%s/case_piece%d.csv", work, p);
        snprintf(out, sizeof out, "%s/case_out%d.csv", work, p);
        write_rows(in, (const int[]){cut[p], cut[p]}, (const int[]){cut[p + 1], cut[p + 1]});
        run_cli_ok_free(ARGS("stream", "--state", state, "--kernel", names[p], "--param",
                             "timeperiod=5", "--input", in, "--group-by", "ticker",
                             "--missing-as-nan", "--output", out, "--devices=cpu"));
        check_output(out, batch, seen);
    }
    assert_each_seen_once(&seen[0][0], TICKERS, BARS, 0, ticker);
    free(batch);
}

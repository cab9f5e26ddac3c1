/*
 * The order of the records of a CSV input (docs/cli/run.md, "Order of records"): a long-format
 * file in any order gives each ticker's outputs bit for bit as the same file sorted by date;
 * a wide file likewise; two records of one series for one date are refused, naming the
 * ticker, the date and both lines, unless --record-order file keeps the file's order; an
 * index that cannot order a long file's records is refused. The index keys are checked
 * against dates worked out by hand.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_order.h"
#include "test_tmpdir.h"

#ifndef APO_CLI_PATH
#error "APO_CLI_PATH must name the apportion binary"
#endif

static char work[64];

static void make_work_dir(void) {
    if (work[0] != '\0')
        return;
    snprintf(work, sizeof work, "%s/apo_test_order_XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(work), "mkdtemp: %s", strerror(errno));
}

static void cleanup(void) {
    if (work[0] == '\0')
        return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    cr_assert_eq(system(cmd), 0);
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    cr_assert_not_null(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            cr_assert_not_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(text, f) >= 0, 1);
    cr_assert_eq(fclose(f), 0);
}

/* Runs the tool with args (NULL-terminated), the profiles in the work folder and no
 * APPORTION_* setting inherited; returns its exit status and its standard error in err. */
static int run(char *err, size_t err_size, const char *const *args) {
    make_work_dir();
    char err_path[128], state[128];
    snprintf(err_path, sizeof err_path, "%s/.stderr", work);
    snprintf(state, sizeof state, "%s/state", work);
    fflush(NULL);
    const pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        unsetenv("APPORTION_DEVICES");
        setenv("XDG_STATE_HOME", state, 1);
        setenv("APPORTION_PROFILE_DIR", state, 1);
        const int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int o = open("/dev/null", O_WRONLY);
        if (e < 0 || o < 0 || dup2(e, 2) < 0 || dup2(o, 1) < 0)
            _exit(126);
        const char *argv[32] = {APO_CLI_PATH};
        for (size_t i = 0; args[i] != NULL && i < 30; i++)
            argv[i + 1] = args[i];
        execv(APO_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    size_t n = 0;
    char *text = read_all(err_path, &n);
    snprintf(err, err_size, "%s", text);
    free(text);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A deterministic shuffle of n lines (a 64-bit LCG's draws, Fisher-Yates). */
static void shuffle(char **lines, size_t n, unsigned long long seed) {
    for (size_t i = n - 1; i > 0; i--) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const size_t j = (size_t)((seed >> 33) % (i + 1));
        char *t = lines[i];
        lines[i] = lines[j];
        lines[j] = t;
    }
}

/* Writes header and lines[0..n) as a file. */
static void write_lines(const char *path, const char *header, char **lines, size_t n) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(header, f);
    for (size_t i = 0; i < n; i++)
        fputs(lines[i], f);
    cr_assert_eq(fclose(f), 0);
}

/* Whether the files a/NAME and b/NAME hold the same bytes. */
static void assert_same_file(const char *a, const char *b, const char *name) {
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    size_t na = 0, nb = 0;
    char *ta = read_all(pa, &na), *tb = read_all(pb, &nb);
    cr_assert(na > 0);
    cr_assert(na == nb && memcmp(ta, tb, na) == 0, "%s differs between %s and %s", name, a, b);
    free(ta);
    free(tb);
}

#define N_DAYS 120
#define N_TICKERS 3

Test(cli_order, shuffled_long_file_gives_the_sorted_files_outputs, .fini = cleanup,
     .timeout = 120) {
    make_work_dir();
    static char store[N_DAYS * N_TICKERS][64];
    char *lines[N_DAYS * N_TICKERS];
    const char *tickers[N_TICKERS] = {"AAPL", "MSFT", "IBM"};
    size_t n = 0;
    double x[N_TICKERS] = {100, 50, 75};
    unsigned long long s = 7;
    for (int d = 0; d < N_DAYS; d++)
        for (int t = 0; t < N_TICKERS; t++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            x[t] += ((double)(s >> 11) / 9007199254740992.0 - 0.5);
            /* Days across month ends and a leap day: 2024-02-01 plus d days. */
            const int month = d < 29 ? 2 : d < 60 ? 3 : d < 90 ? 4 : 5;
            const int day = d < 29 ? d + 1 : d < 60 ? d - 28 : d < 90 ? d - 59 : d - 89;
            snprintf(store[n], sizeof store[n], "2024-%02d-%02d,%s,%.17g\n", month, day, tickers[t],
                     x[t]);
            lines[n] = store[n];
            n++;
        }
    char sorted[128], shuffled[128], out_a[128], out_b[128], err[2048];
    snprintf(sorted, sizeof sorted, "%s/sorted.csv", work);
    snprintf(shuffled, sizeof shuffled, "%s/shuffled.csv", work);
    write_lines(sorted, "date,ticker,close\n", lines, n);
    /* The first record stays AAPL's, so that the tickers appear in the same order. */
    shuffle(lines + 1, n - 1, 42);
    write_lines(shuffled, "date,ticker,close\n", lines, n);
    const char *formats[2] = {"f64", "csv"};
    for (int f = 0; f < 2; f++) {
        snprintf(out_a, sizeof out_a, "%s/a_%s", work, formats[f]);
        snprintf(out_b, sizeof out_b, "%s/b_%s", work, formats[f]);
        cr_assert_eq(run(err, sizeof err,
                         ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                              "--input", sorted, "--column", "close", "--group-by", "ticker",
                              "--output", out_a, "--format", formats[f])),
                     0, "%s", err);
        cr_assert_eq(run(err, sizeof err,
                         ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                              "--input", shuffled, "--column", "close", "--group-by", "ticker",
                              "--output", out_b, "--format", formats[f])),
                     0, "%s", err);
        const char *files[3][2] = {
            {"upper.f64", "upper.csv"}, {"middle.f64", "middle.csv"}, {"lower.f64", "lower.csv"}};
        for (int k = 0; k < 3; k++)
            assert_same_file(out_a, out_b, files[k][f]);
    }
    /* The CSV output's dates run forward. */
    char path[256];
    snprintf(path, sizeof path, "%s/middle.csv", out_b);
    size_t len = 0;
    char *text = read_all(path, &len);
    cr_assert(strncmp(text, "date,AAPL,MSFT,IBM\n2024-02-01,", 30) == 0, "%.60s", text);
    char prev[16] = "";
    for (char *line = strchr(text, '\n') + 1; *line != '\0'; line = strchr(line, '\n') + 1) {
        char date[16];
        memcpy(date, line, 10);
        date[10] = '\0';
        cr_assert(strcmp(prev, date) < 0, "%s after %s", date, prev);
        memcpy(prev, date, sizeof date);
    }
    cr_assert_str_eq(prev, "2024-05-30");
    free(text);
}

Test(cli_order, shuffled_wide_file_with_times_gives_the_sorted_files_outputs, .fini = cleanup,
     .timeout = 120) {
    make_work_dir();
    static char store[200][96];
    char *lines[200];
    for (int i = 0; i < 200; i++) {
        /* Times with zones and fractions: 09:00 in New York is 14:00 UTC, and each bar is
         * 1.25 s after the one before. */
        const long ms = 1250L * i;
        snprintf(store[i], sizeof store[i], "%d,2024-03-08T09:%02ld:%02ld.%03ld-05:00,%d\n",
                 1000 + (i * 37) % 101, ms / 60000, ms / 1000 % 60, ms % 1000, i % 7);
        lines[i] = store[i];
    }
    char sorted[128], shuffled[128], out_a[128], out_b[128], err[2048];
    snprintf(sorted, sizeof sorted, "%s/sorted.csv", work);
    snprintf(shuffled, sizeof shuffled, "%s/shuffled.csv", work);
    write_lines(sorted, "close,time,volume\n", lines, 200);
    shuffle(lines, 200, 9);
    write_lines(shuffled, "close,time,volume\n", lines, 200);
    snprintf(out_a, sizeof out_a, "%s/a", work);
    snprintf(out_b, sizeof out_b, "%s/b", work);
    cr_assert_eq(
        run(err, sizeof err,
            ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn", "--input",
                 sorted, "--column", "close,volume", "--output", out_a, "--format", "csv")),
        0, "%s", err);
    cr_assert_eq(
        run(err, sizeof err,
            ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn", "--input",
                 shuffled, "--column", "close,volume", "--output", out_b, "--format", "csv")),
        0, "%s", err);
    assert_same_file(out_a, out_b, "upper.csv");
    assert_same_file(out_a, out_b, "middle.csv");
    assert_same_file(out_a, out_b, "lower.csv");
}

Test(cli_order, two_records_of_a_ticker_for_one_date_are_refused, .fini = cleanup, .timeout = 60) {
    make_work_dir();
    char path[128], out[128], err[2048];
    snprintf(path, sizeof path, "%s/d.csv", work);
    write_text(path, "date,ticker,close\n2024-01-02,A,1\n2024-01-02,B,2\n2024-01-03,A,3\n"
                     "2024-01-03,B,4\n2024-01-02,A,5\n");
    snprintf(out, sizeof out, "%s/out", work);
    cr_assert_eq(
        run(err, sizeof err,
            ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn", "--param",
                 "period=2", "--input", path, "--group-by", "ticker", "--output", out)),
        2);
    cr_assert(strstr(err, "d.csv:6: ticker \"A\" has two records for date \"2024-01-02\" "
                          "(lines 2 and 6)") != NULL,
              "%s", err);
    cr_assert(strstr(err, "--record-order file") != NULL, "%s", err);
    cr_assert_neq(access(out, F_OK), 0, "a refused run leaves no folder");
    /* Kept in the file's order when asked: A is 1, 3, 5 as written, so its means of two are
     * 2 and 4. */
    cr_assert_eq(run(err, sizeof err,
                     ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                          "--param", "period=2", "--input", path, "--group-by", "ticker",
                          "--record-order", "file", "--output", out, "--format", "csv")),
                 0, "%s", err);
    char file[256];
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t n = 0;
    char *text = read_all(file, &n);
    cr_assert_str_eq(text, "A_date,A,B_date,B\n2024-01-02,nan,2024-01-02,nan\n2024-01-03,2,"
                           "2024-01-03,3\n2024-01-02,4,,\n");
    free(text);
    /* The same time written in two zones is one date too, in a wide file. */
    write_text(path, "time,close\n2024-01-02T10:00:00+01:00,1\n2024-01-02T09:00:00Z,2\n");
    cr_assert_eq(run(err, sizeof err,
                     ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                          "--param", "period=2", "--input", path)),
                 2);
    cr_assert(strstr(err, "d.csv:3: two records for time \"2024-01-02T09:00:00Z\" (lines 2 and 3)"),
              "%s", err);
}

Test(cli_order, an_index_that_cannot_order_a_long_file_is_refused, .fini = cleanup, .timeout = 60) {
    make_work_dir();
    char path[128], err[2048];
    snprintf(path, sizeof path, "%s/l.csv", work);
    struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"date,ticker,close\nd2,A,1\nd1,A,2\n", "l.csv:2: the date \"d2\" is neither"},
        {"date,ticker,close\n2024-01-02,A,1\n2024-01-02T10:00Z,A,2\n",
         "l.csv:3: the date \"2024-01-02T10:00Z\" is a time with a zone, but the first"},
        {"date,ticker,close\n2024-01-02,A,1\n2024-13-02,A,2\n", "l.csv:3: the date"},
        {"date,ticker,close\n20240102,A,1\n20240101,A,2\n", "none was found: name it with"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path, cases[i].text);
        cr_assert_eq(run(err, sizeof err,
                         ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                              "--param", "period=2", "--input", path, "--group-by", "ticker")),
                     2, "case %zu", i);
        cr_assert(strstr(err, cases[i].want) != NULL, "case %zu: %s", i, err);
    }
    /* A date written as a number orders the records once it is named. */
    char out[128], file[256];
    snprintf(out, sizeof out, "%s/out", work);
    cr_assert_eq(run(err, sizeof err,
                     ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--no-learn",
                          "--param", "period=2", "--input", path, "--group-by", "ticker",
                          "--index-column", "date", "--output", out, "--format", "csv")),
                 0, "%s", err);
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t n = 0;
    char *text = read_all(file, &n);
    cr_assert_str_eq(text, "date,A\n20240101,nan\n20240102,1.5\n");
    free(text);
}

/* Seconds since 1970 of a UTC date and time, from days counted by hand. */
static long long utc(long long days, int h, int m, int s) {
    return days * 86400 + h * 3600 + m * 60 + s;
}

Test(cli_order, index_keys_read_iso_dates_and_numbers) {
    /* 2024-01-01 is day 19723 (54 years of 365 days and 13 leap days). */
    cli_index_key k = cli_index_key_parse("2024-01-01");
    cr_assert_eq(k.kind, CLI_INDEX_LOCAL);
    cr_assert_eq(k.seconds, utc(19723, 0, 0, 0));
    k = cli_index_key_parse("2024-03-01T09:30");
    cr_assert_eq(k.kind, CLI_INDEX_LOCAL);
    cr_assert_eq(k.seconds, utc(19723 + 31 + 29, 9, 30, 0));
    k = cli_index_key_parse("2024-03-01 09:30:15.123456");
    cr_assert_eq(k.seconds, utc(19723 + 60, 9, 30, 15));
    cr_assert_eq(k.nanoseconds, 123456000);
    k = cli_index_key_parse("2024-03-01T09:30:15+05:30");
    cr_assert_eq(k.kind, CLI_INDEX_ZONED);
    cr_assert_eq(k.seconds, utc(19723 + 60, 4, 0, 15));
    cli_index_key a = cli_index_key_parse("2024-01-01T00:00:00-0100");
    cli_index_key b = cli_index_key_parse("2024-01-01T01:00:00Z");
    cr_assert_eq(cli_index_key_compare(&a, &b), 0);
    a = cli_index_key_parse("2024-01-01T00:00:00.999999999");
    b = cli_index_key_parse("2024-01-01T00:00:01");
    cr_assert_lt(cli_index_key_compare(&a, &b), 0);
    a = cli_index_key_parse("20240102");
    b = cli_index_key_parse("1e3");
    cr_assert_eq(a.kind, CLI_INDEX_NUMBER);
    cr_assert_gt(cli_index_key_compare(&a, &b), 0);
    const char *labels[] = {"",
                            "d1",
                            "2023-02-29",
                            "2024-1-02",
                            "2024-01-02T",
                            "2024-01-02T24:00",
                            "2024-01-02T10:00:00.",
                            "nan",
                            "2024-01-02T10:00:00.1234567891",
                            "2024-01-02x",
                            "inf"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        cr_assert_eq(cli_index_key_parse(labels[i]).kind, CLI_INDEX_NONE, "%s", labels[i]);
}

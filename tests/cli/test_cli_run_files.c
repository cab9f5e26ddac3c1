/*
 * apportion run (cli/cmd_run.c), its input and output files: CSV columns and bad cells,
 * the README's CSV example, output sets that stay whole on a full disk and under signals,
 * folders that cannot be written, raw and CSV input from a file, stdin or a pipe.
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

/* A run of bollinger on the input file at path, written to hold text first, that must be
 * refused: exit status 2 and nothing on stdout. The caller checks the message and frees. */
static cli_result run_on_refused_input(const char *path, const char *text) {
    write_text(path, text);
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path));
    cr_assert_eq(r.status, 2, "%s: status %d: %s", path, r.status, r.err);
    cr_assert_eq(r.out_len, 0, "%s: stdout %s", path, r.out);
    return r;
}

Test(cli, csv_input_with_a_bad_cell_names_line_and_column, .timeout = 60) {
    make_work_dir();
    char want[256];
    const char *path = work_path("in.csv");
    cli_result r = run_on_refused_input(
        path, "date,close\n2024-01-01,1\n2024-01-02,2\n2024-01-03,abc\n2024-01-04,4\n");
    snprintf(want, sizeof want,
             "apportion: %s:4:2: expected a number, got \"abc\" (byte 12 of the line)\n", path);
    cr_assert_str_eq(r.err, want);
    free_result(&r);

    /* Several columns and none named close: the message lists them. */
    r = run_on_refused_input(path, "a,b\n1,2\n");
    assert_contains(r.err, "2 columns and none is named \"close\"; choose one with --column "
                           "(the columns are: \"a\", \"b\")");
    free_result(&r);
}

Test(cli, csv_input_runs_on_the_chosen_column, .timeout = 60) {
    make_work_dir();
    char file[256];
    const char *path = work_path("prices.csv"), *out = work_path("out");
    /* 40 values 1..40 in column "Px"; a moving mean of 5 has middle[t] = t - 1. */
    char text[2048];
    size_t o = (size_t)snprintf(text, sizeof text, "date,Px\r\n");
    for (int i = 1; i <= 40; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "d%d,%d\r\n", i, i);
    write_text(path, text);
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--input", path, "--column",
                                   "px", "--param", "period=5", "--output", out, "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "cols")), 40);
    json_decref(j);
    free_result(&r);
    snprintf(file, sizeof file, "%s/middle.f64", out);
    size_t n;
    char *d = read_file_n(file, &n);
    cr_assert_eq(n, 40 * sizeof(double));
    const double *v = (const double *)(const void *)d;
    cr_assert(isnan(v[3]));
    for (int t = 4; t < 40; t++)
        cr_assert(fabs(v[t] - (double)(t - 1)) < 1e-12, "middle[%d] = %.17g", t, v[t]);
    free(d);

    /* --rows cuts the 40 values into 2 series of 20. */
    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--input", path, "--column", "Px", "--rows",
                        "2", "--param", "period=5", "--json"));
    j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "rows")), 2);
    cr_assert_eq(json_integer_value(get(j, "cols")), 20);
    json_decref(j);
    free_result(&r);
    r = run_cli(
        ARGS("run", "--kernel", "bollinger", "--input", path, "--column", "Px", "--rows", "3"));
    cr_assert_eq(r.status, 2);
    char want[256];
    snprintf(want, sizeof want, "apportion: %s: 40 values do not divide into 3 rows\n", path);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
}

/* The README's CSV example runs as written, from the root of the source tree with the sample
 * file it names: the command is read from README.md itself, so the two cannot drift apart. */
Test(cli, readme_csv_example_runs_as_written, .timeout = 60) {
    make_work_dir();
    size_t len;
    char *readme = read_all(APO_TEST_DATA_DIR "/../../README.md", &len);
    char *line = strstr(readme, "\napportion run --kernel macd --input ");
    cr_assert_not_null(line, "README.md has no 'apportion run ... --input' line");
    line++;
    *strchr(line, '\n') = '\0';
    const char *args[32];
    size_t n = 0;
    for (char *tok = strtok(line, " "); tok != NULL && n < 31; tok = strtok(NULL, " "))
        if (n > 0 || strcmp(tok, "apportion") != 0)
            args[n++] = tok;
    args[n] = NULL;

    /* A tree of the README's shape: docs/ of the sources, and room for out/. */
    char tree[128], docs[160];
    snprintf(tree, sizeof tree, "%s/tree", work);
    snprintf(docs, sizeof docs, "%s/docs", tree);
    cr_assert_eq(mkdir(tree, 0755), 0);
    cr_assert_eq(symlink(APO_TEST_DATA_DIR "/../../docs", docs), 0, "%s", strerror(errno));
    child_dir = tree;
    cli_result r = run_cli(args);
    child_dir = NULL;
    cr_assert_eq(r.status, 0, "the README example failed: %s", r.err);
    free_result(&r);
    free(readme);

    /* 260 days; MACD(12,26,9) has values from index 33 on, none before. */
    const char *names[] = {"macd", "signal", "hist"};
    for (size_t i = 0; i < 3; i++) {
        char file[256];
        snprintf(file, sizeof file, "%s/out/%s.f64", tree, names[i]);
        size_t bytes;
        char *d = read_file_n(file, &bytes);
        cr_assert_eq(bytes, 260 * sizeof(double), "%s: %zu bytes", file, bytes);
        const double *v = (const double *)(const void *)d;
        for (size_t t = 0; t < 260; t++)
            cr_assert_eq(isfinite(v[t]), t >= 33, "%s[%zu] = %g", names[i], t, v[t]);
        free(d);
    }
}

/* The names in a folder, sorted, each followed by a comma ("" when it is empty). */
static void list_names(const char *dir, char *out, size_t size) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    cr_assert(n >= 0, "scandir %s: %s", dir, strerror(errno));
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..") != 0) {
            int w = snprintf(out + o, size - o, "%s,", list[i]->d_name);
            cr_assert(w > 0 && (size_t)w < size - o);
            o += (size_t)w;
        }
        free(list[i]);
    }
    free(list);
}

/* The three bollinger files in dir, read whole. */
typedef struct band_files {
    char *data[3];
    size_t len[3];
} band_files;

static const char *const band_names[] = {"lower", "middle", "upper"};

static band_files read_bands(const char *dir, const char *ext) {
    band_files b;
    for (size_t i = 0; i < 3; i++) {
        char file[256];
        snprintf(file, sizeof file, "%s/%s.%s", dir, band_names[i], ext);
        b.data[i] = read_all(file, &b.len[i]);
    }
    return b;
}

/* The folder holds exactly the files of `old`, byte for byte, and nothing else. */
static void assert_old_set(const char *dir, const char *ext, const band_files *old) {
    char names[1024], want[128];
    list_names(dir, names, sizeof names);
    snprintf(want, sizeof want, "lower.%s,middle.%s,upper.%s,", ext, ext, ext);
    cr_assert_str_eq(names, want, "the folder holds %s", names);
    band_files now = read_bands(dir, ext);
    for (size_t i = 0; i < 3; i++) {
        cr_assert(now.len[i] == old->len[i] && memcmp(now.data[i], old->data[i], now.len[i]) == 0,
                  "%s.%s changed", band_names[i], ext);
        free(now.data[i]);
    }
}

static void free_bands(band_files *b) {
    for (size_t i = 0; i < 3; i++)
        free(b->data[i]);
}

/* A second, larger run into a folder on a small disk (a tmpfs of 120 kB) fails for lack of
 * room: raw outputs before any work (their size is reserved when the files are opened), CSV
 * outputs part-way through writing them. Either way the folder keeps exactly the old set:
 * before, the new files that fitted replaced their old ones beside an old one. */
Test(cli, output_set_on_a_full_disk_stays_whole, .timeout = 120) {
    make_work_dir();
    char out[160];
    const char *disk = work_path("disk");
    cr_assert_eq(mkdir(disk, 0755), 0);
    if (private_tmpfs(disk, "size=120k") != 0)
        cli_skip("a small disk needs a private mount namespace (root): %s", strerror(errno));
    snprintf(out, sizeof out, "%s/out", disk);
    /* f64: 3 x 32000 bytes, then 3 x 48000 more; csv: about 3 x 18.6 kB, then 3 x 37 kB. */
    const char *formats[] = {"f64", "csv"};
    const char *small[] = {"4000", "1000"}, *large[] = {"6000", "2000"};
    const char *why[] = {"--output: no room for", "No space left on device"};
    for (size_t f = 0; f < 2; f++) {
        run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--cols", small[f], "--devices", "cpu",
                             "--output", out, "--format", formats[f]));
        band_files old = read_bands(out, formats[f]);
        cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", large[f], "--devices",
                                    "cpu", "--output", out, "--format", formats[f]));
        cr_assert_eq(r.status, 1, "%s: status %d: %s", formats[f], r.status, r.err);
        assert_contains(r.err, why[f]);
        free_result(&r);
        assert_old_set(out, formats[f], &old);
        free_bands(&old);
        for (size_t i = 0; i < 3; i++) {
            char file[256];
            snprintf(file, sizeof file, "%s/%s.%s", out, band_names[i], formats[f]);
            cr_assert_eq(unlink(file), 0);
        }
    }
}

/* SIGINT while the CSV files are being written, and SIGTERM while the work runs (the files
 * are open but empty): the tool ends by the signal, its temporary files are removed, and
 * the folder keeps the old set. Before, SIGINT left a new upper.csv, a hidden temporary
 * middle.csv and no lower.csv. */
Test(cli, output_set_survives_sigint_and_sigterm, .timeout = 300) {
    make_work_dir();
    const char *out = work_path("out");
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                   "cpu", "--output", out, "--format", "csv"));
    free_result(&r);
    band_files old = read_bands(out, "csv");
    const int signals[] = {SIGINT, SIGTERM};
    const int writing[] = {1, 0};
    for (size_t k = 0; k < 2; k++) {
        pid_t pid = start_cli(NULL, ARGS("run", "--kernel", "bollinger", "--cols", "1000000",
                                         "--devices", "cpu", "--output", out, "--format", "csv"));
        /* Wait until a temporary file exists (and, for the writing case, has bytes). */
        for (int seen = 0; !seen;) {
            int wstatus;
            cr_assert_eq(waitpid(pid, &wstatus, WNOHANG), 0,
                         "the run ended before the signal could be sent");
            DIR *d = opendir(out);
            cr_assert_not_null(d);
            for (struct dirent *e; !seen && (e = readdir(d)) != NULL;) {
                if (strncmp(e->d_name, ".upper.csv.", 11) != 0)
                    continue;
                char file[512];
                struct stat st;
                snprintf(file, sizeof file, "%s/%s", out, e->d_name);
                seen = stat(file, &st) == 0 && (!writing[k] || st.st_size > 0);
            }
            closedir(d);
            if (!seen)
                nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        cr_assert_eq(kill(pid, signals[k]), 0);
        int sig = 0;
        r = finish_cli(pid, &sig);
        cr_assert_eq(sig, signals[k], "ended by signal %d, status %d: %s", sig, r.status, r.err);
        free_result(&r);
        assert_old_set(out, "csv", &old);
    }
    free_bands(&old);
}

/* A folder that cannot be written is found before the work: on a device that fails every
 * task the message is about the folder, not the failure (root cannot be refused by
 * permissions, so it gets a read-only tmpfs). */
Test(cli, output_folder_that_cannot_be_written_fails_before_the_work, .timeout = 60) {
    make_work_dir();
    char inside[160], made[160];
    const char *ro = work_path("ro");
    snprintf(inside, sizeof inside, "%s/existing", ro);
    snprintf(made, sizeof made, "%s/new", ro);
    cr_assert_eq(mkdir(ro, 0755), 0);
    const char *why = "Permission denied";
    if (geteuid() == 0) {
        if (private_tmpfs(ro, "size=64k") != 0)
            cli_skip("a read-only folder for root needs a private mount namespace: %s",
                     strerror(errno));
        cr_assert_eq(mkdir(inside, 0755), 0);
        cr_assert_eq(mount(NULL, ro, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0, "%s", strerror(errno));
        why = "Read-only file system";
    } else {
        cr_assert_eq(mkdir(inside, 0755), 0);
        cr_assert_eq(chmod(inside, 0555), 0);
        cr_assert_eq(chmod(ro, 0555), 0);
    }
    char want[512];
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                "sim:a:flaky=1", "--output", inside));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    snprintf(want, sizeof want, "apportion: --output: cannot create a file in %s: %s\n", inside,
             why);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices", "sim:a:flaky=1",
                     "--output", made));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    snprintf(want, sizeof want, "apportion: --output: cannot create directory %s: %s\n", made, why);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    char names[256];
    list_names(inside, names, sizeof names);
    cr_assert_str_eq(names, "");
    if (geteuid() != 0) {
        chmod(ro, 0755);
        chmod(inside, 0755);
    }
}

/* ---- input that used to be quietly wrong (docs/robustness.md) ------------------------ */

/* Writes n doubles to path as raw little-endian float64 (the tests run on little-endian
 * hosts, which the f64 size tests already assume). */
static void write_doubles(const char *path, const double *v, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(v, sizeof *v, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

/* Whether every byte of text is printable ASCII or a line feed. */
static int printable(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (!((unsigned char)text[i] >= 0x20 && (unsigned char)text[i] < 0x7f) && text[i] != '\n')
            return 0;
    return 1;
}

/* A CSV file read as raw float64 (which printed numbers near 2.7e227), and raw float64 read
 * as CSV (which printed raw high bytes): both refused, saying what the file looks like. */
Test(cli, input_in_the_wrong_format_is_refused_with_a_hint, .timeout = 60) {
    make_work_dir();
    const char *csv = work_path("prices.csv"), *raw = work_path("prices.data");
    write_text(csv, "date,close\n2024-01-02,100.5\n2024-01-03,101.25\n2024-01-04,99.75\n");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", csv, "--input-format",
                                "f64", "--param", "period=2"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    char want[512];
    snprintf(want, sizeof want,
             "apportion: %s: this is text (CSV?), not raw little-endian float64 values: read it "
             "as CSV (--input-format csv)\n",
             csv);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    const double v[] = {100.123456, 101.987654, 99.5, 98.25, 1e-300, -3.75};
    write_doubles(raw, v, 6);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", raw, "--param", "period=2"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "is a NUL byte: this is not CSV text (raw float64 values? name the "
                           "file .f64 or give --input-format f64)");
    cr_assert(printable(r.err, r.err_len), "raw bytes on stderr: %s", r.err);
    free_result(&r);
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--input", raw, "--input-format", "f64",
                         "--param", "period=2", "--json"));
}

/* .F64 and .BIN in capitals are raw too; - reads standard input (CSV, or raw with
 * --input-format f64), and a FIFO named .f64 reads as a file does: the same bits as the file. */
Test(cli, raw_and_csv_input_from_any_name_stdin_or_a_pipe, .timeout = 60) {
    make_work_dir();
    double v[300];
    for (size_t i = 0; i < 300; i++)
        v[i] = 100.0 + (double)(i % 17) * 0.25 - (double)(i % 5);
    const char *raw = work_path("in.f64"), *upper = work_path("IN.F64"), *csv = work_path("in.csv"),
               *fifo = work_path("pipe.f64");
    write_doubles(raw, v, 300);
    write_doubles(upper, v, 300);
    char text[300 * 32 + 8];
    size_t o = (size_t)snprintf(text, sizeof text, "x\n");
    for (size_t i = 0; i < 300; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%.17g\n", v[i]);
    write_text(csv, text);

    char out[6][128];
    const char *const *cases[5];
    for (size_t k = 0; k < 6; k++)
        snprintf(out[k], sizeof out[k], "%s/out%zu", work, k);
    cases[0] =
        ARGS("run", "--kernel", "macd", "--input", raw, "--devices", "cpu", "--output", out[0]);
    cases[1] =
        ARGS("run", "--kernel", "macd", "--input", upper, "--devices", "cpu", "--output", out[1]);
    cases[2] =
        ARGS("run", "--kernel", "macd", "--input", "-", "--devices", "cpu", "--output", out[2]);
    cases[3] = ARGS("run", "--kernel", "macd", "--input", "-", "--input-format", "f64", "--devices",
                    "cpu", "--output", out[3]);
    cases[4] =
        ARGS("run", "--kernel", "macd", "--input", csv, "--devices", "cpu", "--output", out[4]);
    const char *stdin_of[] = {NULL, NULL, csv, raw, NULL};
    for (size_t k = 0; k < 5; k++) {
        child_stdin = stdin_of[k];
        cli_result r = run_cli(cases[k]);
        child_stdin = NULL;
        cr_assert_eq(r.status, 0, "case %zu: %s", k, r.err);
        free_result(&r);
    }
    /* A FIFO: a writer process feeds it while the tool reads. */
    cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
    pid_t pid = start_cli(NULL, ARGS("run", "--kernel", "macd", "--input", fifo, "--devices", "cpu",
                                     "--output", out[5]));
    FILE *f = fopen(fifo, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(v, sizeof *v, 300, f), 300);
    fclose(f);
    cli_result r = finish_cli(pid, NULL);
    cr_assert_eq(r.status, 0, "fifo: %s", r.err);
    free_result(&r);

    char file[256];
    snprintf(file, sizeof file, "%s/macd.f64", out[0]);
    size_t n0;
    char *first = read_all(file, &n0);
    cr_assert_eq(n0, 300 * sizeof(double));
    for (size_t k = 1; k < 6; k++) {
        size_t n;
        snprintf(file, sizeof file, "%s/macd.f64", out[k]);
        char *d = read_all(file, &n);
        cr_assert(n == n0 && memcmp(d, first, n) == 0, "case %zu gave other bits", k);
        free(d);
    }
    free(first);
}

/* Common CSV exports: NA/null/empty cells with --missing-as-nan (gaps to the kernels), a
 * trailing blank line, header names with spaces around them. */
Test(cli, common_csv_exports_read_with_missing_as_nan, .timeout = 60) {
    make_work_dir();
    const char *path = work_path("export.csv");
    char text[4096];
    size_t o = (size_t)snprintf(text, sizeof text, "Date, Close \n");
    for (int i = 1; i <= 40; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "d%d,%s\n", i,
                              i == 7   ? "NA"
                              : i == 8 ? ""
                              : i == 9 ? "null"
                                       : "100");
    snprintf(text + o, sizeof text - o, "\n");
    write_text(path, text);
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--input", path, "--param", "period=5"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err,
                    ":8:2: expected a number, got \"NA\" (--missing-as-nan reads it as NaN)");
    free_result(&r);
    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--input", path, "--missing-as-nan",
                        "--param", "period=5", "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "cols")), 40);
    json_decref(j);
    free_result(&r);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--missing-as-nan"),
                    "--missing-as-nan needs --input");
}

Test(cli, raw_input_of_a_bad_size_is_a_usage_error, .timeout = 60) {
    make_work_dir();
    char want[256];
    const char *path = work_path("in.f64");
    cli_result r = run_on_refused_input(path, "0123456789");
    snprintf(want, sizeof want,
             "apportion: %s: size 10 bytes is not a multiple of 8 (raw little-endian float64 "
             "values expected; 2 trailing bytes)\n",
             path);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--input", "/nonexistent/x.f64"),
                    "apportion: /nonexistent/x.f64: cannot open: No such file");
}

Test(cli, csv_output_is_parseable_and_equals_the_raw_output, .timeout = 60) {
    make_work_dir();
    char path[256];
    const char *dcsv = work_path("csv"), *df64 = work_path("f64");
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "macd", "--cols", "300", "--seed", "9",
                                   "--devices", "cpu", "--output", dcsv, "--format", "csv"));
    free_result(&r);
    run_cli_ok_free(ARGS("run", "--kernel", "macd", "--cols", "300", "--seed", "9", "--devices",
                         "cpu", "--output", df64));
    const char *names[] = {"macd", "signal", "hist"};
    for (size_t k = 0; k < 3; k++) {
        size_t n, nraw;
        snprintf(path, sizeof path, "%s/%s.csv", dcsv, names[k]);
        char *text = read_file_n(path, &n);
        snprintf(path, sizeof path, "%s/%s.f64", df64, names[k]);
        char *raw = read_file_n(path, &nraw);
        cr_assert_eq(nraw, 300 * sizeof(double));
        /* A header line with the output's name, then one value per line. */
        char *save = NULL;
        char *line = strtok_r(text, "\n", &save);
        cr_assert_str_eq(line, names[k]);
        size_t count = 0, nan_count = 0;
        while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
            cr_assert_lt(count, 300);
            char *end = NULL;
            double v = strtod(line, &end);
            cr_assert_eq(*end, '\0', "line %zu: %s", count + 2, line);
            double want;
            memcpy(&want, raw + count * sizeof(double), sizeof want);
            if (isnan(want)) {
                cr_assert_str_eq(line, "nan");
                nan_count++;
            } else {
                cr_assert(memcmp(&v, &want, sizeof v) == 0, "%s[%zu]: %s vs %.17g", names[k], count,
                          line, want);
            }
            count++;
        }
        cr_assert_eq(count, 300);
        /* macd starts at index 25, signal and hist at 33 (docs: first valid outputs). */
        cr_assert(nan_count == 25 || nan_count == 33, "%s has %zu NaN", names[k], nan_count);
        free(text);
        free(raw);
    }
}

Test(cli, output_directory_that_is_a_file_fails, .timeout = 60) {
    make_work_dir();
    const char *path = work_path("file");
    write_text(path, "x");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                "cpu", "--output", path));
    cr_assert_eq(r.status, 1, "%s", r.err);
    assert_contains(r.err, "exists and is not a directory");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
}

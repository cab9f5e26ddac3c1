/*
 * Unit tests of the command-line tool's strict CSV reader (cli/csv.c) and of its input and
 * output helpers (cli/input.c, cli/output_files.c). Every rejection is checked with its exact line
 * and column.
 */
#include "csv.h"
#include "input.h"
#include "output_files.h"

#include "test_tmpdir.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[1024];

static unsigned csv_flags; /* of every parse below */

static int parse_n(const char *text, size_t len, const char *column, double **v, size_t *n) {
    return apo__csv_parse_column(text, len, "t.csv", column, csv_flags, v, n, err, sizeof err);
}

static int parse(const char *text, const char *column, double **v, size_t *n) {
    return parse_n(text, strlen(text), column, v, n);
}

/* Parses text, which must succeed, and checks the values exactly. */
static void expect_values(const char *text, const char *column, const double *want, size_t n) {
    double *v = NULL;
    size_t count = 0;
    int rc = parse(text, column, &v, &count);
    cr_assert_eq(rc, 0, "parse failed: %s", err);
    cr_assert_eq(count, n, "got %zu values, want %zu", count, n);
    for (size_t i = 0; i < n; i++)
        cr_assert(memcmp(&v[i], &want[i], sizeof(double)) == 0, "value %zu: got %.17g want %.17g",
                  i, v[i], want[i]);
    free(v);
}

/* Parses text, which must fail with exactly the message `want`. */
static void expect_error(const char *text, const char *column, const char *want) {
    double *v = (double *)&v;
    size_t count = 99;
    int rc = parse(text, column, &v, &count);
    cr_assert_neq(rc, 0, "parse of %s succeeded", text);
    cr_assert_null(v);
    cr_assert_eq(count, 0);
    cr_assert_str_eq(err, want);
}

Test(csv, single_column_values_are_exact, .timeout = 60) {
    const double want[] = {1.0, 2.5, -300.0, 0.1, 0.30000000000000004, 1e-300};
    expect_values("close\n1\n2.5\n-3e2\n0.1\n0.30000000000000004\n1e-300\n", NULL, want, 6);
    cr_assert(0.1 + 0.2 == want[4]);
}

Test(csv, final_newline_is_optional, .timeout = 60) {
    const double want[] = {1.0, 2.0};
    expect_values("x\n1\n2", NULL, want, 2);
    expect_values("x\n1\n2\n", NULL, want, 2);
    expect_values("x\r\n1\r\n2", NULL, want, 2);
}

Test(csv, crlf_line_ends, .timeout = 60) {
    const double want[] = {3.0, 4.0};
    expect_values("a,close\r\n1,3\r\n2,4\r\n", NULL, want, 2);
    expect_values("a,close\r\n1,3\n2,4\r\n", NULL, want, 2);
}

Test(csv, utf8_bom_is_skipped, .timeout = 60) {
    const double want[] = {7.0};
    expect_values("\xef\xbb\xbf"
                  "close\n7\n",
                  NULL, want, 1);
    /* The BOM belongs to no column name: "close" is found by exact match. */
    expect_values("\xef\xbb\xbf"
                  "close,b\n7,1\n",
                  "close", want, 1);
    /* Byte offsets count from after the mark. */
    expect_error("\xef\xbb\xbf"
                 "a,,b\n",
                 NULL, "t.csv:1:2: empty column name in the header (byte 3 of the line)");
}

Test(csv, quoted_fields_hold_commas_quotes_and_newlines, .timeout = 60) {
    const double want[] = {1.0, 2.0, 3.5};
    expect_values("name,close\n\"a, b\",1\n\"line1\nline2\",2\n\"say \"\"hi\"\"\",\"3.5\"\n", NULL,
                  want, 3);
    /* Line numbers count the line breaks inside quotes: the bad value is on line 5. */
    expect_error("name,close\n\"a, b\",1\n\"line1\nline2\",2\nx,oops\n", NULL,
                 "t.csv:5:2: expected a number, got \"oops\" (byte 3 of the line)");
}

Test(csv, quoted_header_names_and_escaped_quotes, .timeout = 60) {
    const double want[] = {1.0};
    expect_values("\"say \"\"hi\"\"\",x\n1,2\n", "say \"hi\"", want, 1);
    expect_values("\"a,b\",x\n1,2\n", "a,b", want, 1);
}

Test(csv, column_selection_rules, .timeout = 60) {
    const double one[] = {1.0}, two[] = {2.0}, three[] = {3.0};
    /* The only column, whatever its name. */
    expect_values("price\n1\n", NULL, one, 1);
    /* Else "close" in any case. */
    expect_values("date,Close,volume\n2,1,3\n", NULL, one, 1);
    expect_values("date,CLOSE\n2,1\n", NULL, one, 1);
    /* --column: exact match first, then the only case-insensitive match. */
    expect_values("A,a\n1,2\n", "a", two, 1);
    expect_values("A,a\n1,2\n", "A", one, 1);
    expect_values("date,Volume,close\n2,3,1\n", "volume", three, 1);
    expect_error("date,open\n1,2\n", NULL,
                 "t.csv: 2 columns and none is named \"close\"; choose one with --column (the "
                 "columns are: \"date\", \"open\")");
    expect_error("date,open\n1,2\n", "high",
                 "t.csv: no column named \"high\"; the columns are: \"date\", \"open\"");
    expect_error("Close,close\n1,2\n", "CLOSE",
                 "t.csv: column name \"CLOSE\" matches several columns when case is ignored: "
                 "\"Close\", \"close\"; give one of them exactly with --column");
    /* Only the columns that match are listed: the choice is between them. */
    expect_error("Date,Open,close,Volume,CLOSE\n1,2,3,4,5\n", NULL,
                 "t.csv: column name \"close\" matches several columns when case is ignored: "
                 "\"close\", \"CLOSE\"; give one of them exactly with --column");
    /* Names are compared without the spaces around them ("Date, Close" exports). */
    expect_values("date, close ,volume\n2, 1 ,3\n", NULL, one, 1);
    expect_values("date,\tPx\n2,3\n", "Px", three, 1);
    expect_error("a, a\n1,2\n", NULL,
                 "t.csv:1:2: duplicate column name \"a\" (also column 1) (byte 3 of the line)");
}

Test(csv, rejects_a_record_with_too_many_fields, .timeout = 60) {
    expect_error("a,b\n1,2\n1,2,3\n", "a",
                 "t.csv:3:3: record has more fields than the header's 2 (byte 5 of the line)");
}

Test(csv, rejects_a_record_with_too_few_fields, .timeout = 60) {
    expect_error("a,b\n1,2\n1\n", "a",
                 "t.csv:3:2: record has 1 field, the header has 2 (byte 2 of the line)");
    expect_error("a,b,c\n1,2,3\n4,5", "a",
                 "t.csv:3:3: record has 2 fields, the header has 3 (byte 4 of the line)");
}

Test(csv, rejects_an_unterminated_quote, .timeout = 60) {
    expect_error("a\n1\n\"2\n3\n", NULL,
                 "t.csv:3:1: unterminated quoted field (the file ends inside it) (byte 1 of the "
                 "line)");
    expect_error("a,b\n1,\"2", "a",
                 "t.csv:2:2: unterminated quoted field (the file ends inside it) (byte 3 of the "
                 "line)");
}

Test(csv, rejects_a_character_after_a_closing_quote, .timeout = 60) {
    expect_error("a,b\n1,\"2\"x\n", "a",
                 "t.csv:2:2: unexpected 'x' after a closing quote (expected ',' or a line end) "
                 "(byte 6 of the line)");
    expect_error("a,b\n1,\"2\" \n", "a",
                 "t.csv:2:2: unexpected ' ' after a closing quote (expected ',' or a line end) "
                 "(byte 6 of the line)");
}

Test(csv, rejects_a_quote_inside_an_unquoted_field, .timeout = 60) {
    expect_error("a\n1\n2\"3\n", NULL,
                 "t.csv:3:1: quote inside an unquoted field (quote the whole field and double "
                 "the quote) (byte 2 of the line)");
}

Test(csv, rejects_a_lone_carriage_return, .timeout = 60) {
    expect_error("a\r1\n", NULL,
                 "t.csv:1:1: carriage return not followed by a line feed (byte 2 of the line)");
}

Test(csv, rejects_an_empty_field_in_the_selected_column, .timeout = 60) {
    expect_error("a,b\n1,2\n3,\n", "b",
                 "t.csv:3:2: empty field, expected a number (--missing-as-nan reads it as NaN) "
                 "(byte 3 of the line)");
    expect_error("a,b\n1,2\n\"\",4\n", "a",
                 "t.csv:3:1: empty field, expected a number (--missing-as-nan reads it as NaN) "
                 "(byte 1 of the line)");
    /* A blank line before the last record of a one-column file is an empty field. */
    expect_error("a\n1\n\n2\n", NULL,
                 "t.csv:3:1: empty field, expected a number (--missing-as-nan reads it as NaN) "
                 "(byte 1 of the line)");
    expect_error("a\nNA\n", NULL,
                 "t.csv:2:1: expected a number, got \"NA\" (--missing-as-nan reads it as NaN) "
                 "(byte 1 of the line)");
}

/* The marks of a missing value in common exports, read as NaN when asked for. */
Test(csv, missing_values_read_as_nan_with_the_flag, .timeout = 60) {
    csv_flags = APO_CSV_MISSING_AS_NAN;
    const double want[] = {1.0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 2.0};
    double *v = NULL;
    size_t n = 0;
    const char *text =
        "d,x\n1,1\n2,\n3,\"\"\n4,NA\n5, n/a \n6,#N/A\n7,null\n8,NULL\n9,None\n10,2\n";
    cr_assert_eq(parse(text, "x", &v, &n), 0, "%s", err);
    cr_assert_eq(n, 10);
    for (size_t i = 0; i < n; i++)
        cr_assert(isnan(want[i]) ? isnan(v[i]) : v[i] == want[i], "value %zu: %g", i, v[i]);
    free(v);
    /* Anything else is still an error. */
    expect_error("x\n1\nn.a.\n", NULL,
                 "t.csv:3:1: expected a number, got \"n.a.\" (byte 1 of the line)");
    csv_flags = 0;
}

Test(csv, empty_fields_elsewhere_are_allowed, .timeout = 60) {
    const double want[] = {2.0, 4.0};
    expect_values("a,b\n,2\n3,4\n", "b", want, 2);
}

Test(csv, rejects_an_empty_line_between_records, .timeout = 60) {
    expect_error("a,b\n1,2\n\n3,4\n", "b",
                 "t.csv:3:1: empty line (the header has 2 fields) (byte 1 of the line)");
}

/* Exports and editors often end a file with a blank line or two: they end the data. */
Test(csv, blank_lines_at_the_end_are_ignored, .timeout = 60) {
    const double want[] = {2.0, 4.0};
    expect_values("a,b\n1,2\n3,4\n\n", "b", want, 2);
    expect_values("a,b\r\n1,2\r\n3,4\r\n\r\n\n", "b", want, 2);
    expect_values("b\n2\n4\n\n\n", NULL, want, 2);
    /* Only blank lines: a line of spaces is a record. */
    expect_error("a,b\n1,2\n \n", "b",
                 "t.csv:3:2: record has 1 field, the header has 2 (byte 2 of the line)");
    expect_error("a\n\n\n", NULL, "t.csv: no data rows after the header line");
}

Test(csv, rejects_a_value_that_is_not_a_number, .timeout = 60) {
    expect_error("a\n1\nabc\n", NULL,
                 "t.csv:3:1: expected a number, got \"abc\" (byte 1 of the line)");
    expect_error("a,b\n1,2\n3,4x\n", "b",
                 "t.csv:3:2: expected a number, got \"4x\" (byte 3 of the line)");
    expect_error("a\n1,5\n", NULL,
                 "t.csv:2:2: record has more fields than the header's 1 (byte 3 of the line)");
    expect_error("a\n0x\n", NULL, "t.csv:2:1: expected a number, got \"0x\" (byte 1 of the line)");
    /* Control bytes, and bytes that are not UTF-8 (binary data), are shown escaped; valid
     * UTF-8 is shown as it is. */
    expect_error("a\n1\v\n", NULL,
                 "t.csv:2:1: expected a number, got \"1\\x0b\" (byte 1 of the line)");
    expect_error("a\n\x9a\x99\xd9\xbf\n", NULL,
                 "t.csv:2:1: expected a number, got \"\\x9a\\x99\xd9\xbf\" (byte 1 of the "
                 "line)");
    expect_error("a\n\xe2\x82\xac\xe2\x82\n", NULL,
                 "t.csv:2:1: expected a number, got \"\xe2\x82\xac\\xe2\\x82\" (byte 1 of the "
                 "line)");
}

Test(csv, spaces_and_tabs_around_a_number_are_dropped, .timeout = 60) {
    const double one[] = {1.0}, half[] = {0.5, 2.0};
    expect_values("a\n 1\n", NULL, one, 1);
    expect_values("a,b\n2,1 \t\n", "b", one, 1);
    expect_values("a, b\n2, 0.5\n3,\t2\n", "b", half, 2);
    /* Other white space is not. */
    expect_error("a\n1\f\n", NULL,
                 "t.csv:2:1: expected a number, got \"1\\x0c\" (byte 1 of the line)");
    expect_error("a\n \n", NULL,
                 "t.csv:2:1: empty field, expected a number (--missing-as-nan reads it as NaN) "
                 "(byte 1 of the line)");
}

Test(csv, accepts_nan_and_infinities_in_any_case, .timeout = 60) {
    double *v = NULL;
    size_t n = 0;
    cr_assert_eq(parse("a\nnan\nNaN\nINF\n-Infinity\n+inf\n", NULL, &v, &n), 0, "%s", err);
    cr_assert_eq(n, 5);
    cr_assert(isnan(v[0]) && isnan(v[1]));
    cr_assert(isinf(v[2]) && v[2] > 0);
    cr_assert(isinf(v[3]) && v[3] < 0);
    cr_assert(isinf(v[4]) && v[4] > 0);
    free(v);
}

Test(csv, rejects_a_number_out_of_range, .timeout = 60) {
    expect_error("a\n1e999\n", NULL,
                 "t.csv:2:1: number \"1e999\" is out of the range of a double (byte 1 of the "
                 "line)");
}

Test(csv, rejects_an_empty_file, .timeout = 60) {
    expect_error("", NULL, "t.csv: empty file (a header line and at least one value are needed)");
    expect_error("\xef\xbb\xbf", NULL,
                 "t.csv: empty file (a header line and at least one value are needed)");
}

Test(csv, rejects_a_header_without_data, .timeout = 60) {
    expect_error("close\n", NULL, "t.csv: no data rows after the header line");
    expect_error("close", NULL, "t.csv: no data rows after the header line");
}

Test(csv, rejects_duplicate_and_empty_header_names, .timeout = 60) {
    expect_error("a,b,a\n1,2,3\n", "b",
                 "t.csv:1:3: duplicate column name \"a\" (also column 1) (byte 5 of the line)");
    expect_error("x,b,b,x\n1,2,3,4\n", "b",
                 "t.csv:1:3: duplicate column name \"b\" (also column 2) (byte 5 of the line)");
    expect_error("a,,b\n1,2,3\n", "a",
                 "t.csv:1:2: empty column name in the header (byte 3 of the line)");
    expect_error("\n1\n", NULL, "t.csv:1:1: empty column name in the header (byte 1 of the line)");
}

Test(csv, rejects_a_field_over_the_length_cap, .timeout = 60) {
    const size_t n = APO_CSV_MAX_FIELD + 10;
    char *text = malloc(n + 16);
    cr_assert_not_null(text);
    memcpy(text, "a\n", 2);
    memset(text + 2, '1', n);
    double *v = NULL;
    size_t count = 0;
    cr_assert_neq(parse_n(text, n + 2, NULL, &v, &count), 0);
    cr_assert_str_eq(err, "t.csv:2:1: field longer than 1048576 bytes (byte 1 of the line)");
    free(text);
}

Test(csv, buffer_need_not_be_terminated, .timeout = 60) {
    /* Only the first len bytes count: the "9" after them is never read. */
    const char text[] = "a\n1\n29";
    double *v = NULL;
    size_t n = 0;
    cr_assert_eq(parse_n(text, 5, NULL, &v, &n), 0, "%s", err);
    cr_assert_eq(n, 2);
    cr_assert(v[0] == 1.0 && v[1] == 2.0);
    free(v);
    /* A NUL byte is no part of text: the data is binary (raw float64 read as CSV). */
    cr_assert_neq(parse_n("a\n1\0002\n", 7, NULL, &v, &n), 0);
    cr_assert_str_eq(err, "t.csv: byte 4 is a NUL byte: this is not CSV text (raw float64 values? "
                          "name the file .f64 or give --input-format f64)");
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static void temp_dir(char *dir, size_t size) {
    snprintf(dir, size, "%s/apo_test_csv_XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(dir));
}

Test(csv, read_column_from_a_file, .timeout = 60) {
    char dir[64], path[128];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/in.csv", dir);
    write_file(path, "date,close\n2024-01-02,10.5\n2024-01-03,11\n", 41);
    double *v = NULL;
    size_t n = 0;
    cr_assert_eq(cli_read_input(path, CLI_FORMAT_CSV, NULL, 0, 0, &v, &n, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(n, 2);
    cr_assert(v[0] == 10.5 && v[1] == 11.0);
    free(v);
    write_file(path, "date,close\n2024-01-02,abc\n", 26);
    cr_assert_neq(cli_read_input(path, CLI_FORMAT_CSV, NULL, 0, 0, &v, &n, err, sizeof err), 0);
    char want[256];
    snprintf(want, sizeof want, "%s:2:2: expected a number, got \"abc\" (byte 12 of the line)",
             path);
    cr_assert_str_eq(err, want);
    unlink(path);
    cr_assert_neq(cli_read_input(path, CLI_FORMAT_CSV, NULL, 0, 0, &v, &n, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    cr_assert_str_eq(err, want);
    rmdir(dir);
}

Test(input, f64_size_must_be_a_multiple_of_8_and_of_rows, .timeout = 60) {
    char dir[64], path[128], want[256];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/in.f64", dir);
    const double vals[6] = {1, 2, 3, 4, 5, 6};
    write_file(path, vals, 6 * sizeof(double));
    double *v = NULL;
    size_t n = 0;
    cr_assert_eq(cli_read_f64(path, 3, &v, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 6);
    cr_assert(memcmp(v, vals, sizeof vals) == 0);
    free(v);
    cr_assert_neq(cli_read_f64(path, 4, &v, &n, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s: 6 values (48 bytes) do not divide into 4 rows", path);
    cr_assert_str_eq(err, want);
    write_file(path, vals, 12);
    cr_assert_neq(cli_read_f64(path, 0, &v, &n, err, sizeof err), 0);
    snprintf(want, sizeof want,
             "%s: size 12 bytes is not a multiple of 8 (raw little-endian float64 values "
             "expected; 4 trailing bytes)",
             path);
    cr_assert_str_eq(err, want);
    write_file(path, vals, 0);
    cr_assert_neq(cli_read_f64(path, 0, &v, &n, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s: empty file (raw little-endian float64 values expected)", path);
    cr_assert_str_eq(err, want);
    unlink(path);
    rmdir(dir);
}

Test(input, format_from_the_file_name, .timeout = 60) {
    cr_assert_eq(cli_input_format("a.f64", CLI_FORMAT_AUTO), CLI_FORMAT_F64);
    cr_assert_eq(cli_input_format("a.bin", CLI_FORMAT_AUTO), CLI_FORMAT_F64);
    cr_assert_eq(cli_input_format("a.csv", CLI_FORMAT_AUTO), CLI_FORMAT_CSV);
    cr_assert_eq(cli_input_format("f64", CLI_FORMAT_AUTO), CLI_FORMAT_CSV);
    cr_assert_eq(cli_input_format("a.f64", CLI_FORMAT_CSV), CLI_FORMAT_CSV);
}

/* The names in a folder, sorted, comma separated ("" when empty). */
static void list_dir(const char *dir, char *out, size_t size) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | tr '\\n' ,", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    pclose(p);
}

static const char *const bands[] = {"upper", "middle", "lower"};
static const size_t two_rows[] = {2, 2, 2}, three_cols[] = {3, 3, 3};

Test(input, written_csv_reads_back_exactly, .timeout = 60) {
    char dir[64], sub[128], path[256], names[256];
    temp_dir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/x/y", dir);
    const double data[6] = {NAN, 0.1, 1.0 / 3.0, -INFINITY, 1e-310, 12345678.9};
    cr_assert_eq(
        cli_output_files_open(sub, CLI_FORMAT_CSV, bands, two_rows, three_cols, 1, err, sizeof err),
        0, "%s", err);
    cr_assert_eq(cli_output_files_write(0, data, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_output_files_commit(err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s", cli_output_files_path(0));
    list_dir(sub, names, sizeof names);
    cr_assert_str_eq(names, "upper.csv,");
    double *v = NULL;
    size_t n = 0;
    /* Row 1 of the output is column upper_1 of the file. */
    cr_assert_eq(cli_read_input(path, CLI_FORMAT_CSV, "upper_1", 0, 0, &v, &n, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(n, 3);
    cr_assert(memcmp(v, data + 3, 3 * sizeof(double)) == 0);
    free(v);
    cr_assert_eq(cli_read_input(path, CLI_FORMAT_CSV, "upper_0", 0, 0, &v, &n, err, sizeof err), 0,
                 "%s", err);
    cr_assert(isnan(v[0]) && v[1] == 0.1 && v[2] == 1.0 / 3.0);
    free(v);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644);
    unlink(path);
    const char *const lower[] = {"lower"};
    cr_assert_eq(
        cli_output_files_open(sub, CLI_FORMAT_F64, lower, two_rows, three_cols, 1, err, sizeof err),
        0, "%s", err);
    cr_assert_eq(cli_output_files_write(0, data, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_output_files_commit(err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_read_f64(cli_output_files_path(0), 2, &v, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 6);
    cr_assert(memcmp(v, data, sizeof data) == 0);
    free(v);
    unlink(cli_output_files_path(0));
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/x", dir);
    rmdir(sub);
    rmdir(dir);
}

/* Until the commit the old files are untouched; an abort, even after some outputs were
 * written, leaves exactly the old set and removes the folders the set created. */
Test(input, output_set_is_replaced_whole_or_not_at_all, .timeout = 60) {
    char dir[64], sub[128], file[256], names[256];
    temp_dir(dir, sizeof dir);
    const double data[6] = {1, 2, 3, 4, 5, 6};
    for (size_t i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/%s.f64", dir, bands[i]);
        write_file(file, "old", 3);
    }
    cr_assert_eq(
        cli_output_files_open(dir, CLI_FORMAT_F64, bands, two_rows, three_cols, 3, err, sizeof err),
        0, "%s", err);
    /* The temporary files exist from the open on. */
    list_dir(dir, names, sizeof names);
    cr_assert(strncmp(names, ".lower.f64.", 11) == 0 && strstr(names, ",.middle.f64.") &&
                  strstr(names, ",.upper.f64.") && strstr(names, ",lower.f64,middle.f64,"),
              "%s", names);
    cr_assert_eq(cli_output_files_write(0, data, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_output_files_write(1, data, err, sizeof err), 0, "%s", err);
    cli_output_files_abort();
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "lower.f64,middle.f64,upper.f64,");
    for (size_t i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/%s.f64", dir, bands[i]);
        struct stat st;
        cr_assert_eq(stat(file, &st), 0);
        cr_assert_eq(st.st_size, 3, "%s was replaced", file);
    }
    /* A commit before every output is written fails the same way. */
    cr_assert_eq(
        cli_output_files_open(dir, CLI_FORMAT_F64, bands, two_rows, three_cols, 3, err, sizeof err),
        0, "%s", err);
    cr_assert_eq(cli_output_files_write(2, data, err, sizeof err), 0, "%s", err);
    cr_assert_neq(cli_output_files_commit(err, sizeof err), 0);
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "lower.f64,middle.f64,upper.f64,");
    /* All written: all replaced. */
    cr_assert_eq(
        cli_output_files_open(dir, CLI_FORMAT_F64, bands, two_rows, three_cols, 3, err, sizeof err),
        0, "%s", err);
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(cli_output_files_write(i, data, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_output_files_commit(err, sizeof err), 0, "%s", err);
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "lower.f64,middle.f64,upper.f64,");
    for (size_t i = 0; i < 3; i++) {
        struct stat st;
        cr_assert_eq(stat(cli_output_files_path(i), &st), 0);
        cr_assert_eq(st.st_size, (off_t)sizeof data);
        unlink(cli_output_files_path(i));
    }

    /* Folders created by an aborted set are removed again, the deepest first; one that was
     * there before stays. */
    snprintf(sub, sizeof sub, "%s/new/deeper/", dir);
    cr_assert_eq(
        cli_output_files_open(sub, CLI_FORMAT_CSV, bands, two_rows, three_cols, 3, err, sizeof err),
        0, "%s", err);
    cr_assert_str_eq(cli_output_files_path(0) + strlen(dir), "/new/deeper/upper.csv");
    cli_output_files_abort();
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "");
    /* A final name taken by a folder is refused at the open, before any work. */
    snprintf(sub, sizeof sub, "%s/middle.f64", dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    cr_assert_neq(
        cli_output_files_open(dir, CLI_FORMAT_F64, bands, two_rows, three_cols, 3, err, sizeof err),
        0);
    char want[256];
    snprintf(want, sizeof want, "%s exists and is not a regular file", sub);
    cr_assert_str_eq(err, want);
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "middle.f64,");
    rmdir(sub);
    rmdir(dir);
}

/* ---- several columns, the index and the group (apo__csv_parse_table) ------------------- */

static const char table_text[] = "Date,Ticker,Close,Open\n"
                                 "2024-01-02,A,1.5,2\n"
                                 "2024-01-02,B,3,4\n"
                                 " 2024-01-03 ,A,5,6\n";

Test(csv, table_reads_several_columns_with_index_and_group, .timeout = 60) {
    const char *cols[] = {"open", "Close"};
    apo_csv_request req = {
        .columns = cols, .n_columns = 2, .index_auto = 1, .group_column = "ticker"};
    apo_csv_table t;
    char err[256];
    cr_assert_eq(
        apo__csv_parse_table(table_text, strlen(table_text), "t.csv", &req, &t, err, sizeof err), 0,
        "%s", err);
    cr_assert_eq(t.n_records, 3);
    cr_assert_eq(t.n_columns, 2);
    cr_assert_str_eq(t.column_names[0], "Open");
    cr_assert_str_eq(t.column_names[1], "Close");
    const double open[] = {2, 4, 6}, close[] = {1.5, 3, 5};
    for (size_t r = 0; r < 3; r++) {
        cr_assert_eq(t.values[0][r], open[r]);
        cr_assert_eq(t.values[1][r], close[r]);
    }
    /* The first column that is not a number and not taken: Date (Ticker is the group). */
    cr_assert_str_eq(t.index_name, "Date");
    cr_assert_str_eq(t.index[2], "2024-01-03");
    cr_assert_str_eq(t.group_name, "Ticker");
    cr_assert_str_eq(t.group[1], "B");
    apo__csv_table_free(&t);
}

Test(csv, table_without_a_text_column_has_no_index, .timeout = 60) {
    const char text[] = "a,b\n1,2\n3,4\n";
    apo_csv_request req = {.index_auto = 1, .columns = (const char *const[]){"b"}, .n_columns = 1};
    apo_csv_table t;
    char err[256];
    cr_assert_eq(apo__csv_parse_table(text, strlen(text), "t.csv", &req, &t, err, sizeof err), 0,
                 "%s", err);
    cr_assert_null(t.index_name);
    cr_assert_null(t.index);
    cr_assert_eq(t.values[0][1], 4);
    apo__csv_table_free(&t);
}

Test(csv, table_refusals_name_the_cause, .timeout = 60) {
    struct {
        const char *text;
        const char *cols[2];
        size_t n;
        const char *index, *group;
        const char *want;
    } cases[] = {
        {table_text, {"Close", "Volume"}, 2, NULL, NULL, "t.csv: no column named \"Volume\""},
        {table_text, {"Close", "close"}, 2, NULL, NULL, "t.csv: column \"Close\" is listed twice"},
        {table_text, {"Close"}, 1, NULL, "Close", "cannot be both a value column and the"},
        {table_text, {"Close"}, 1, "Ticker", "Ticker", "it is the --group-by column"},
        {"t,v\nA,1\n,2\n",
         {"v"},
         1,
         NULL,
         "t",
         "t.csv:3:1: empty --group-by field (every record needs its group) (byte 1 of the line)"},
        {"d,v\nx,1\ny,z\n",
         {"v"},
         1,
         NULL,
         NULL,
         "t.csv:3:2: expected a number, got \"z\" (byte 3 of the line)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        apo_csv_request req = {.columns = cases[c].cols,
                               .n_columns = cases[c].n,
                               .index_column = cases[c].index,
                               .index_auto = 1,
                               .group_column = cases[c].group};
        apo_csv_table t;
        char err[256];
        cr_assert_eq(apo__csv_parse_table(cases[c].text, strlen(cases[c].text), "t.csv", &req, &t,
                                          err, sizeof err),
                     -1, "case %zu", c);
        cr_assert(strstr(err, cases[c].want) != NULL, "case %zu: %s", c, err);
        cr_assert_eq(t.n_records, 0);
        cr_assert_null(t.values);
    }
}

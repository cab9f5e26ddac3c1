/*
 * Fuzz target: the CSV reader of `apportion run --input` (cli/csv.h), apo__csv_parse_column()
 * on the input bytes as they are (no terminator: the reader must stay within len). Each input
 * is read three ways: with no column named (the only column, else "close"), with the column
 * "close" (exact, else the only case-insensitive match) and with the column "b".
 *
 * Checked beyond "no crash, no leak":
 * - a refusal is a message that starts with the name given and holds no control byte
 *   (one line, nothing that acts on a terminal), with no values;
 * - a success gives at least one value and at most one per line end in the input (every
 *   record follows the header's line end), and the values read back bit for bit (NaN as
 *   NaN) from a one-column CSV written with %.17g: what was read is what a user would write.
 *
 * The same bytes are read as a table with the default index and, when a column "ticker" is
 * there, grouped by it, then put in index order (cli/record_order.h): a refusal is a
 * one-line message naming the input, and an order is one of non-decreasing index keys within
 * each group (strictly increasing: equal dates in a series are refused).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "fuzz_check.h"
#include "record_order.h"

#define NAME "fuzz.csv"

static void check_read_back(const double *values, size_t count) {
    /* "x\n" and at most 26 bytes and a line end per value ("-2.2250738585072014e-308"). */
    size_t cap = 3 + count * 32;
    char *text = malloc(cap);
    FUZZ_CHECK(text != NULL, "out of memory");
    size_t len = (size_t)snprintf(text, cap, "x\n");
    for (size_t i = 0; i < count; i++)
        len += (size_t)snprintf(text + len, cap - len, "%.17g\n", values[i]);
    FUZZ_CHECK(len < cap, "read-back text overflowed");
    double *again = NULL;
    size_t n = 0;
    char err[512];
    int rc = apo__csv_parse_column(text, len, "again.csv", NULL, 0, &again, &n, err, sizeof err);
    FUZZ_CHECK(rc == 0, "values written back do not read: %s", err);
    FUZZ_CHECK(n == count, "%zu values read back as %zu", count, n);
    for (size_t i = 0; i < count; i++)
        FUZZ_CHECK((isnan(values[i]) && isnan(again[i])) ||
                       memcmp(&values[i], &again[i], sizeof values[i]) == 0,
                   "value %zu: %.17g read back as %.17g", i, values[i], again[i]);
    free(again);
    free(text);
}

static void read_column(const uint8_t *data, size_t size, const char *column, unsigned flags) {
    /* The reader must replace this with NULL or an allocation of its own. */
    static double not_set;
    double *values = &not_set;
    size_t count = 99;
    char err[1024];
    int rc = apo__csv_parse_column((const char *)data, size, NAME, column, flags, &values, &count,
                                   err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err), "message not terminated");
    if (rc != 0) {
        FUZZ_CHECK(rc == -1, "returned %d", rc);
        FUZZ_CHECK(values == NULL && count == 0, "a refusal returned values");
        FUZZ_CHECK(strncmp(err, NAME ":", strlen(NAME) + 1) == 0, "message \"%s\"", err);
        FUZZ_CHECK(fuzz_printable(err), "message holds a control byte: \"%s\"", err);
        return;
    }
    FUZZ_CHECK(rc == 0 && values != NULL && count >= 1, "success without values");
    size_t line_ends = 0;
    for (size_t i = 0; i < size; i++)
        line_ends += data[i] == '\n';
    FUZZ_CHECK(count <= line_ends, "%zu values from %zu lines", count, line_ends);
    check_read_back(values, count);
    free(values);
}

static void order_table(const uint8_t *data, size_t size, const char *group) {
    const char *cols[1] = {"close"};
    apo_csv_request req = {.columns = cols, .n_columns = 1, .index_auto = 1, .group_column = group};
    apo_csv_table t;
    char err[1024];
    if (apo__csv_parse_table((const char *)data, size, NAME, &req, &t, err, sizeof err) != 0)
        return;
    const int rc = cli_order_records(&t, NAME, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err), "message not terminated");
    if (rc != 0) {
        FUZZ_CHECK(strncmp(err, NAME, strlen(NAME)) == 0, "message \"%s\"", err);
        FUZZ_CHECK(fuzz_printable(err), "message holds a control byte: \"%s\"", err);
    } else if (t.index != NULL) {
        for (size_t r = 1; r < t.n_records; r++) {
            if (t.group != NULL && strcmp(t.group[r], t.group[r - 1]) != 0)
                continue;
            const cli_index_key a = cli_index_key_parse(t.index[r - 1]);
            const cli_index_key b = cli_index_key_parse(t.index[r]);
            if (a.kind == CLI_INDEX_NONE)
                break; /* a wide file of labels keeps the file's order */
            FUZZ_CHECK(cli_index_key_compare(&a, &b) < 0, "records %zu and %zu out of order", r - 1,
                       r);
        }
    }
    apo__csv_table_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    order_table(data, size, NULL);
    order_table(data, size, "ticker");
    read_column(data, size, NULL, 0);
    read_column(data, size, "close", 0);
    read_column(data, size, "b", 0);
    read_column(data, size, "close", APO_CSV_MISSING_AS_NAN);
    return 0;
}

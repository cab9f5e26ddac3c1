/*
 * A strict reader of one numeric column of a CSV file (RFC 4180), for `apportion run --input`.
 *
 * Rules (docs/cli.md, "CSV input"):
 * - A header line is required; its names must be non-empty and distinct.
 * - Fields may be quoted with '"'; inside quotes '""' stands for one quote, and commas and
 *   line breaks are part of the field. Nothing may follow a closing quote but a comma or the
 *   end of the line; a quote inside an unquoted field is an error.
 * - Lines end with LF or CRLF (a lone CR is an error); the final line end is optional; a
 *   leading UTF-8 byte order mark is skipped.
 * - Header names are compared without the spaces and tabs around them.
 * - Every record has as many fields as the header. Blank lines at the end of the text are
 *   ignored; a blank line before the last record is a record.
 * - Every field of the selected column is a number as strtod() reads it, over the whole
 *   field less the spaces and tabs around it: "nan" and "inf"/"infinity" in any case are
 *   accepted, a value that overflows a double is rejected. With APO_CSV_MISSING_AS_NAN,
 *   an empty field and NA, N/A, #N/A, null and None (any case) are read as NaN.
 * - A NUL byte anywhere refuses the text (a binary file, such as raw float64 values).
 * - A field is at most APO_CSV_MAX_FIELD bytes.
 *
 * Errors are reported as "NAME:LINE:COLUMN: message (byte B of the line)", where LINE is the
 * 1-based physical line (line breaks inside quoted fields count), COLUMN the 1-based field
 * number and B the 1-based byte offset within that line. Text quoted in a message shows
 * control bytes and bytes that are not valid UTF-8 as \xNN.
 *
 * This file depends only on libc, so that a fuzz target can link it alone.
 */
#ifndef APO_CLI_CSV_H
#define APO_CLI_CSV_H

#include <stddef.h>

#define APO_CSV_MAX_FIELD ((size_t)1 << 20)

/* Flags of apo__csv_parse_column(). */
#define APO_CSV_MISSING_AS_NAN 1u /* the marks of a missing value read as NaN */

/* Parses the CSV text buf[0..len) (it need not be NUL-terminated) and returns the values of
 * one column in *values (malloc'd, to be freed by the caller) and their number in *count
 * (at least 1).
 * `name` is used in messages (for example the file name); NULL gives "<input>".
 * `column` selects the column: an exact name match, else the only case-insensitive match.
 * When `column` is NULL: the only column, else the only column named "close" in any case.
 * `flags` is 0 or APO_CSV_MISSING_AS_NAN.
 * Returns 0 on success. On failure returns -1, sets *values to NULL and *count to 0, and
 * writes a one-line message to err (when err_size > 0). */
int apo__csv_parse_column(const char *buf, size_t len, const char *name, const char *column,
                          unsigned flags, double **values, size_t *count, char *err,
                          size_t err_size);

/* What apo__csv_parse_table() reads: numeric value columns (each selected as `column` is by
 * apo__csv_parse_column(); n_columns 0: the default column), and optionally two text
 * columns: the index (dates; with index_auto and no index_column, the first column not
 * otherwise taken whose field in the first record is not a number, if any) and the group
 * (one series per distinct value; an empty group field is an error). */
typedef struct apo_csv_request {
    const char *const *columns;
    size_t n_columns;
    const char *index_column;
    int index_auto;
    const char *group_column;
    unsigned flags; /* APO_CSV_* */
    /* NULL, or n_columns flags: value column j with a flag refuses a finite negative number
     * with its position, as a field that is not a number is (a volume, which is never below
     * 0: docs/kernels.md, "Negative volume"). */
    const unsigned char *non_negative;
} apo_csv_request;

/* The columns read, one entry per record of the file, in file order. */
typedef struct apo_csv_table {
    size_t n_records;
    size_t n_columns;
    char **column_names; /* header names of the value columns, in request order */
    double **values;     /* values[j][r]: value column j of record r */
    char *index_name;    /* NULL when there is no index column; then index is NULL */
    char **index;        /* index[r]: the trimmed text of the index field */
    char *group_name;    /* NULL without a group column; then group is NULL */
    char **group;
    size_t *lines; /* lines[r]: the 1-based physical line record r starts on (messages) */
} apo_csv_table;

/* Parses as apo__csv_parse_column() does, reading every column that req names. Returns 0
 * with *out filled (free it with apo__csv_table_free()), or -1 with *out empty and a
 * message in err. */
int apo__csv_parse_table(const char *buf, size_t len, const char *name, const apo_csv_request *req,
                         apo_csv_table *out, char *err, size_t err_size);
void apo__csv_table_free(apo_csv_table *t);

/* Writes the first n bytes of s into dst in double quotes, as messages quote a field: at
 * most 40 bytes of it (then "..."), quotes and backslashes escaped, control bytes and bytes
 * that are not valid UTF-8 as \xNN. dst_size must be at least 16 for anything to be written. */
void apo__csv_quote_text(char *dst, size_t dst_size, const char *s, size_t n);

#endif /* APO_CLI_CSV_H */

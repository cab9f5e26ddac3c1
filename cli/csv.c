/*
 * Strict CSV reader: see csv.h for the rules and docs/cli.md for why apportion has its own
 * (libcsv, the only packaged C library, is unmaintained since 2013 and reports no positions).
 *
 * The parser walks the buffer once, one field at a time, and keeps only the selected column.
 * Every error names the physical line, the field number and the byte within the line, so a
 * user can find the cell in an editor.
 */
#include "csv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum field_end { FIELD_SEP, FIELD_EOL, FIELD_EOF };

typedef struct csv_parser {
    const char *buf;
    size_t len;
    size_t pos;
    size_t line;       /* 1-based physical line of buf[pos] */
    size_t line_start; /* offset of that line's first byte */
    const char *name;
    unsigned flags; /* APO_CSV_* */
    char *err;
    size_t err_size;
    int failed;

    /* The field just read: its text (NUL-terminated, not counted in field_len), where it
     * starts, whether it was quoted, and where its terminator was. */
    char *field;
    size_t field_len;
    size_t field_cap;
    size_t field_line, field_byte;
    int field_quoted;
    size_t end_line, end_byte;
} csv_parser;

/* The length of the valid UTF-8 sequence of 2 to 4 bytes at s[0..n), or 0 (overlong forms,
 * surrogates and code points above U+10FFFF are not valid). */
static size_t utf8_sequence(const unsigned char *s, size_t n) {
    size_t len;
    unsigned min;
    unsigned cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, min = 0x80, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, min = 0x800, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, min = 0x10000, cp = s[0] & 0x07u;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Writes `"text"` to dst, cut after 40 bytes with "...": control bytes and bytes that are not
 * part of valid UTF-8 (a binary file read as CSV) as \xNN, so that a message never carries
 * raw bytes to a terminal. */
void apo__csv_quote_text(char *dst, size_t dst_size, const char *s, size_t n) {
    size_t o = 0;
    const size_t shown = n > 40 ? 40 : n;
    if (dst_size < 16) {
        if (dst_size > 0)
            dst[0] = '\0';
        return;
    }
    dst[o++] = '"';
    for (size_t i = 0; i < shown && o + 8 < dst_size; i++) {
        const unsigned char c = (unsigned char)s[i];
        const size_t seq = c >= 0x80 ? utf8_sequence((const unsigned char *)s + i, shown - i) : 0;
        if (c == '"' || c == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (seq > 0 && o + seq + 8 < dst_size) {
            memcpy(dst + o, s + i, seq);
            o += seq;
            i += seq - 1;
        } else if (c < 0x20 || c >= 0x7f) {
            o += (size_t)snprintf(dst + o, dst_size - o, "\\x%02x", c);
        } else {
            dst[o++] = (char)c;
        }
    }
    if (shown < n && o + 5 < dst_size) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o++] = '"';
    dst[o] = '\0';
}

static int fail_plain(csv_parser *p, const char *fmt, ...) {
    if (!p->failed && p->err_size > 0) {
        int n = snprintf(p->err, p->err_size, "%s: ", p->name);
        if (n >= 0 && (size_t)n < p->err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->err_size - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    p->failed = 1;
    return -1;
}

static int fail_at(csv_parser *p, size_t line, size_t column, size_t byte, const char *fmt, ...) {
    if (!p->failed && p->err_size > 0) {
        int n = snprintf(p->err, p->err_size, "%s:%zu:%zu: ", p->name, line, column);
        if (n >= 0 && (size_t)n < p->err_size) {
            va_list ap;
            va_start(ap, fmt);
            int m = vsnprintf(p->err + n, p->err_size - (size_t)n, fmt, ap);
            va_end(ap);
            if (m >= 0 && (size_t)n + (size_t)m < p->err_size)
                snprintf(p->err + n + m, p->err_size - (size_t)n - (size_t)m,
                         " (byte %zu of the line)", byte);
        }
    }
    p->failed = 1;
    return -1;
}

static size_t cur_byte(const csv_parser *p) { return p->pos - p->line_start + 1; }

static int append(csv_parser *p, char c, size_t column) {
    if (p->field_len >= APO_CSV_MAX_FIELD)
        return fail_at(p, p->field_line, column, p->field_byte, "field longer than %zu bytes",
                       (size_t)APO_CSV_MAX_FIELD);
    /* field_len < APO_CSV_MAX_FIELD, so the capacity stays below 2 MiB: no overflow. */
    if (p->field_len + 1 >= p->field_cap) {
        size_t cap = p->field_cap ? p->field_cap * 2 : 64;
        char *f = realloc(p->field, cap);
        if (f == NULL)
            return fail_plain(p, "out of memory");
        p->field = f;
        p->field_cap = cap;
    }
    p->field[p->field_len++] = c;
    return 0;
}

static void describe_byte(char *dst, size_t dst_size, unsigned char c) {
    if (c >= 0x20 && c < 0x7f)
        snprintf(dst, dst_size, "'%c'", c);
    else
        snprintf(dst, dst_size, "byte 0x%02x", c);
}

static void new_line(csv_parser *p) {
    p->line++;
    p->line_start = p->pos;
}

/* Consumes a line end at p->pos if there is one: returns 1 for LF or CRLF, 0 otherwise. */
static int take_eol(csv_parser *p) {
    if (p->buf[p->pos] == '\n') {
        p->pos++;
        new_line(p);
        return 1;
    }
    if (p->buf[p->pos] == '\r' && p->pos + 1 < p->len && p->buf[p->pos + 1] == '\n') {
        p->pos += 2;
        new_line(p);
        return 1;
    }
    return 0;
}

/* Reads the field starting at p->pos (field number `column`) into p->field and says what
 * ended it. Returns 0, or -1 with the error written. */
static int read_field(csv_parser *p, size_t column, enum field_end *end) {
    char what[32];
    p->field_len = 0;
    p->field_line = p->line;
    p->field_byte = cur_byte(p);
    p->field_quoted = 0;
    if (p->pos < p->len && p->buf[p->pos] == '"') {
        p->field_quoted = 1;
        p->pos++;
        for (;;) {
            if (p->pos >= p->len)
                return fail_at(p, p->field_line, column, p->field_byte,
                               "unterminated quoted field (the file ends inside it)");
            const char c = p->buf[p->pos];
            if (c == '"') {
                if (p->pos + 1 < p->len && p->buf[p->pos + 1] == '"') {
                    if (append(p, '"', column))
                        return -1;
                    p->pos += 2;
                    continue;
                }
                p->pos++;
                break;
            }
            if (append(p, c, column))
                return -1;
            p->pos++;
            if (c == '\n')
                new_line(p);
        }
        p->end_line = p->line;
        p->end_byte = cur_byte(p);
        if (p->pos >= p->len) {
            *end = FIELD_EOF;
        } else if (p->buf[p->pos] == ',') {
            p->pos++;
            *end = FIELD_SEP;
        } else if (take_eol(p)) {
            *end = FIELD_EOL;
        } else {
            describe_byte(what, sizeof what, (unsigned char)p->buf[p->pos]);
            return fail_at(p, p->line, column, cur_byte(p),
                           "unexpected %s after a closing quote (expected ',' or a line end)",
                           what);
        }
        p->field[p->field_len] = '\0';
        return 0;
    }
    for (;;) {
        if (p->pos >= p->len) {
            p->end_line = p->line;
            p->end_byte = cur_byte(p);
            *end = FIELD_EOF;
            break;
        }
        const char c = p->buf[p->pos];
        if (c == ',' || c == '\n' || c == '\r') {
            p->end_line = p->line;
            p->end_byte = cur_byte(p);
            if (c == ',') {
                p->pos++;
                *end = FIELD_SEP;
            } else if (take_eol(p)) {
                *end = FIELD_EOL;
            } else {
                return fail_at(p, p->line, column, cur_byte(p),
                               "carriage return not followed by a line feed");
            }
            break;
        }
        if (c == '"')
            return fail_at(p, p->line, column, cur_byte(p),
                           "quote inside an unquoted field (quote the whole field and "
                           "double the quote)");
        if (append(p, c, column))
            return -1;
        p->pos++;
    }
    p->field[p->field_len] = '\0';
    return 0;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Drops the spaces and tabs around the field just read. */
static void trim_field(csv_parser *p) {
    size_t start = 0, end = p->field_len;
    while (start < end && is_blank(p->field[start]))
        start++;
    while (end > start && is_blank(p->field[end - 1]))
        end--;
    memmove(p->field, p->field + start, end - start);
    p->field_len = end - start;
    p->field[p->field_len] = '\0';
}

/* A header name and where it starts. */
typedef struct header_name {
    char *name;
    size_t line, byte;
} header_name;

typedef struct sorted_name {
    const char *name;
    size_t index;
} sorted_name;

static int cmp_sorted_name(const void *a, const void *b) {
    const sorted_name *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return (x->index > y->index) - (x->index < y->index);
}

static void free_names(header_name *names, size_t n) {
    if (names == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i].name);
    free(names);
}

/* Appends ", name" for up to 12 names to dst. */
static void list_names(char *dst, size_t dst_size, const header_name *names, size_t n) {
    size_t o = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < n && i < 12; i++) {
        char q[128];
        apo__csv_quote_text(q, sizeof q, names[i].name, strlen(names[i].name));
        int w = snprintf(dst + o, dst_size - o, "%s%s", i ? ", " : "", q);
        if (w < 0 || (size_t)w >= dst_size - o)
            return;
        o += (size_t)w;
    }
    if (n > 12)
        snprintf(dst + o, dst_size - o, ", ... (%zu in all)", n);
}

static int select_column(csv_parser *p, const header_name *names, size_t n, const char *column,
                         size_t *selected) {
    char list[1024];
    char q[128];
    if (column != NULL) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(names[i].name, column) == 0) {
                *selected = i;
                return 0;
            }
        }
    } else if (n == 1) {
        *selected = 0;
        return 0;
    }
    const char *want = column != NULL ? column : "close";
    size_t found = n, matches = 0;
    header_name *matching = malloc(n * sizeof *matching);
    if (matching == NULL)
        return fail_plain(p, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *a = names[i].name, *b = want;
        while (*a != '\0' && *b != '\0' &&
               tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            if (matches == 0)
                found = i;
            matching[matches++] = names[i];
        }
    }
    if (matches == 1) {
        free(matching);
        *selected = found;
        return 0;
    }
    apo__csv_quote_text(q, sizeof q, want, strlen(want));
    if (matches > 1) {
        /* Only the columns that match: the choice is between them. */
        list_names(list, sizeof list, matching, matches);
        free(matching);
        return fail_plain(p,
                          "column name %s matches several columns when case is ignored: %s; "
                          "give one of them exactly with --column",
                          q, list);
    }
    free(matching);
    list_names(list, sizeof list, names, n);
    if (column != NULL)
        return fail_plain(p, "no column named %s; the columns are: %s", q, list);
    return fail_plain(p,
                      "%zu columns and none is named \"close\"; choose one with --column "
                      "(the columns are: %s)",
                      n, list);
}

static int read_header(csv_parser *p, header_name **names_out, size_t *n_out, enum field_end *end) {
    header_name *names = NULL;
    size_t n = 0, cap = 0;
    do {
        if (read_field(p, n + 1, end))
            goto fail;
        /* Exports write "Date, Open, Close": names are compared without the spaces around
         * them. */
        trim_field(p);
        if (p->field_len == 0) {
            fail_at(p, p->field_line, n + 1, p->field_byte, "empty column name in the header");
            goto fail;
        }
        if (n == cap) {
            if (cap > SIZE_MAX / 2 / sizeof *names) {
                fail_plain(p, "too many columns");
                goto fail;
            }
            size_t c = cap ? cap * 2 : 8;
            header_name *g = realloc(names, c * sizeof *names);
            if (g == NULL) {
                fail_plain(p, "out of memory");
                goto fail;
            }
            names = g;
            cap = c;
        }
        names[n].name = malloc(p->field_len + 1);
        if (names[n].name == NULL) {
            fail_plain(p, "out of memory");
            goto fail;
        }
        memcpy(names[n].name, p->field, p->field_len + 1);
        names[n].line = p->field_line;
        names[n].byte = p->field_byte;
        n++;
    } while (*end == FIELD_SEP);

    /* Duplicates: sort (name, index) pairs; the earliest second occurrence is reported. */
    sorted_name *sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL) {
        fail_plain(p, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        sorted[i].name = names[i].name;
        sorted[i].index = i;
    }
    qsort(sorted, n, sizeof *sorted, cmp_sorted_name);
    size_t dup = n, first = 0;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(sorted[i].name, sorted[i - 1].name) == 0 && sorted[i].index < dup &&
            (i < 2 || strcmp(sorted[i].name, sorted[i - 2].name) != 0)) {
            dup = sorted[i].index;
            first = sorted[i - 1].index;
        }
    }
    free(sorted);
    if (dup < n) {
        char q[128];
        apo__csv_quote_text(q, sizeof q, names[dup].name, strlen(names[dup].name));
        fail_at(p, names[dup].line, dup + 1, names[dup].byte,
                "duplicate column name %s (also column %zu)", q, first + 1);
        goto fail;
    }
    *names_out = names;
    *n_out = n;
    return 0;
fail:
    free_names(names, n);
    return -1;
}

/* Whether the field is one of the marks of a missing value that APO_CSV_MISSING_AS_NAN reads
 * as NaN: empty, NA, N/A, #N/A, null or None, in any case. */
static int is_missing_mark(const char *f) {
    static const char *const marks[] = {"", "na", "n/a", "#n/a", "null", "none"};
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
        const char *a = f, *b = marks[m];
        while (*a != '\0' && *b != '\0' && tolower((unsigned char)*a) == *b)
            a++, b++;
        if (*a == '\0' && *b == '\0')
            return 1;
    }
    return 0;
}

static int parse_number(csv_parser *p, size_t column, double *out) {
    char q[128];
    /* "1.5, 2" is as common in exports as spaces after the commas of the header. */
    trim_field(p);
    const char *f = p->field;
    if ((p->flags & APO_CSV_MISSING_AS_NAN) && is_missing_mark(f)) {
        *out = NAN;
        return 0;
    }
    if (p->field_len == 0)
        return fail_at(p, p->field_line, column, p->field_byte,
                       "empty field, expected a number (--missing-as-nan reads it as NaN)");
    apo__csv_quote_text(q, sizeof q, f, p->field_len);
    if (isspace((unsigned char)f[0]) || isspace((unsigned char)f[p->field_len - 1]))
        return fail_at(p, p->field_line, column, p->field_byte, "expected a number, got %s", q);
    char *endp = NULL;
    errno = 0;
    const double v = strtod(f, &endp);
    if (endp != f + p->field_len)
        return fail_at(p, p->field_line, column, p->field_byte, "expected a number, got %s%s", q,
                       !(p->flags & APO_CSV_MISSING_AS_NAN) && is_missing_mark(f)
                           ? " (--missing-as-nan reads it as NaN)"
                           : "");
    if (errno == ERANGE && isinf(v))
        return fail_at(p, p->field_line, column, p->field_byte,
                       "number %s is out of the range of a double", q);
    *out = v;
    return 0;
}

/* Refuses the finite negative value v just read into value column j (field `column`) when
 * the request says that column is never negative; -inf stays what the caller makes of a
 * non-finite value (a gap). */
static int check_non_negative(csv_parser *p, const apo_csv_request *req, size_t j, size_t column,
                              double v) {
    if (req->non_negative == NULL || !req->non_negative[j] || !(v < 0 && v > -INFINITY))
        return 0;
    char q[128];
    apo__csv_quote_text(q, sizeof q, p->field, p->field_len);
    return fail_at(p, p->field_line, column, p->field_byte,
                   "%s is negative, and a volume never is (a missing one is NaN%s)", q,
                   (p->flags & APO_CSV_MISSING_AS_NAN) ? " or empty" : "");
}

/* Whether nothing but line ends (LF or CRLF) is left: blank lines at the end of a file. */
static int only_line_ends_left(const csv_parser *p) {
    for (size_t i = p->pos; i < p->len; i++) {
        if (p->buf[i] == '\n')
            continue;
        if (p->buf[i] == '\r' && i + 1 < p->len && p->buf[i + 1] == '\n')
            continue;
        return 0;
    }
    return 1;
}

/* Whether field text (already trimmed) reads as a number, or as a missing value when the
 * flags allow them: what a data column holds, as opposed to a date or a name. */
static int field_is_numeric(const char *f, size_t len, unsigned flags) {
    if ((flags & APO_CSV_MISSING_AS_NAN) && is_missing_mark(f))
        return 1;
    if (len == 0)
        return 1; /* an empty cell says nothing about its column */
    char *endp = NULL;
    (void)strtod(f, &endp);
    return endp == f + len;
}

/* The default index column: the first column, other than the taken ones, whose field in the
 * first record is not a number. The record is read ahead and the parser put back where it
 * was, so that any error in it is reported by the main pass with its position. Returns the
 * column or n when there is none. */
static size_t probe_index_column(csv_parser *p, size_t n, const unsigned char *taken) {
    const size_t pos = p->pos, line = p->line, line_start = p->line_start;
    size_t found = n, nf = 0;
    enum field_end end = FIELD_SEP;
    while (end == FIELD_SEP && nf < n && p->pos < p->len) {
        nf++;
        if (read_field(p, nf, &end))
            break;
        trim_field(p);
        if (!taken[nf - 1] && !field_is_numeric(p->field, p->field_len, p->flags)) {
            found = nf - 1;
            break;
        }
    }
    p->failed = 0;
    if (p->err_size > 0)
        p->err[0] = '\0';
    p->pos = pos;
    p->line = line;
    p->line_start = line_start;
    return found;
}

static char *copy_text(const char *s, size_t n) {
    char *c = malloc(n + 1);
    if (c != NULL) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

void apo__csv_table_free(apo_csv_table *t) {
    if (t == NULL)
        return;
    for (size_t j = 0; j < t->n_columns; j++) {
        if (t->column_names != NULL)
            free(t->column_names[j]);
        if (t->values != NULL)
            free(t->values[j]);
    }
    free(t->column_names);
    free(t->values);
    for (size_t r = 0; r < t->n_records; r++) {
        if (t->index != NULL)
            free(t->index[r]);
        if (t->group != NULL)
            free(t->group[r]);
    }
    free(t->index);
    free(t->group);
    free(t->lines);
    free(t->index_name);
    free(t->group_name);
    memset(t, 0, sizeof *t);
}

/* Roles of a header column in the table being read. */
enum { ROLE_NONE = 0, ROLE_VALUE = 1, ROLE_INDEX = 2, ROLE_GROUP = 3 };

/* Gives the header's columns their roles (role[c], and slot[c] the value column j of a
 * ROLE_VALUE) from the request: the value columns, the --group-by column and the index
 * column, copying their names into `out`; `end` is how the header line ended. Returns 0, or
 * -1 after the failure is recorded. */
static int assign_roles(csv_parser *p, const header_name *names, size_t n_names,
                        const apo_csv_request *req, enum field_end end, unsigned char *role,
                        size_t *slot, apo_csv_table *out) {
    for (size_t j = 0; j < out->n_columns; j++) {
        size_t c = 0;
        if (select_column(p, names, n_names, req->n_columns > 0 ? req->columns[j] : NULL, &c))
            return -1;
        if (role[c] != ROLE_NONE) {
            char q[128];
            apo__csv_quote_text(q, sizeof q, names[c].name, strlen(names[c].name));
            return fail_plain(p, "column %s is listed twice in --column", q);
        }
        role[c] = ROLE_VALUE;
        slot[c] = j;
        out->column_names[j] = copy_text(names[c].name, strlen(names[c].name));
        if (out->column_names[j] == NULL)
            return fail_plain(p, "out of memory");
    }
    if (req->group_column != NULL) {
        size_t c = 0;
        if (select_column(p, names, n_names, req->group_column, &c))
            return -1;
        if (role[c] != ROLE_NONE) {
            char q[128];
            apo__csv_quote_text(q, sizeof q, names[c].name, strlen(names[c].name));
            return fail_plain(
                p, "column %s cannot be both a value column and the --group-by column", q);
        }
        role[c] = ROLE_GROUP;
        out->group_name = copy_text(names[c].name, strlen(names[c].name));
        if (out->group_name == NULL)
            return fail_plain(p, "out of memory");
    }
    if (end == FIELD_EOF || p->pos >= p->len)
        return fail_plain(p, "no data rows after the header line");
    size_t index_col = n_names;
    if (req->index_column != NULL) {
        if (select_column(p, names, n_names, req->index_column, &index_col))
            return -1;
        if (role[index_col] != ROLE_NONE) {
            char q[128];
            apo__csv_quote_text(q, sizeof q, names[index_col].name, strlen(names[index_col].name));
            return fail_plain(p, "column %s cannot be the --index-column: it is %s", q,
                              role[index_col] == ROLE_GROUP ? "the --group-by column"
                                                            : "a value column");
        }
    } else if (req->index_auto) {
        index_col = probe_index_column(p, n_names, role);
    }
    if (index_col < n_names) {
        role[index_col] = ROLE_INDEX;
        out->index_name = copy_text(names[index_col].name, strlen(names[index_col].name));
        if (out->index_name == NULL)
            return fail_plain(p, "out of memory");
    }
    return 0;
}

/* Grows the table's arrays of records (values, index, lines, groups) from *cap records to
 * twice as many (1024 at first). Returns 0, or -1 after the failure is recorded. */
static int grow_records(csv_parser *p, apo_csv_table *out, size_t *cap) {
    if (*cap > SIZE_MAX / 2 / sizeof(double))
        return fail_plain(p, "too many values");
    const size_t c = *cap ? *cap * 2 : 1024;
    for (size_t j = 0; j < out->n_columns; j++) {
        double *g = realloc(out->values[j], c * sizeof *g);
        if (g == NULL)
            return fail_plain(p, "out of memory");
        out->values[j] = g;
    }
    if (out->index_name != NULL) {
        char **g = realloc(out->index, c * sizeof *g);
        if (g == NULL)
            return fail_plain(p, "out of memory");
        out->index = g;
    }
    size_t *l = realloc(out->lines, c * sizeof *l);
    if (l == NULL)
        return fail_plain(p, "out of memory");
    out->lines = l;
    if (out->group_name != NULL) {
        char **g = realloc(out->group, c * sizeof *g);
        if (g == NULL)
            return fail_plain(p, "out of memory");
        out->group = g;
    }
    *cap = c;
    return 0;
}

/* Reads record r (room for it made) field by field into the columns of their roles. Returns
 * 0, or -1 after the failure is recorded. */
static int read_record(csv_parser *p, const apo_csv_request *req, const unsigned char *role,
                       const size_t *slot, size_t n_names, size_t r, apo_csv_table *out) {
    enum field_end end;
    size_t nf = 0;
    do {
        if (nf == n_names)
            return fail_at(p, p->line, nf + 1, cur_byte(p),
                           "record has more fields than the header's %zu", n_names);
        nf++;
        if (read_field(p, nf, &end))
            return -1;
        if (nf == 1 && end != FIELD_SEP && p->field_len == 0 && !p->field_quoted && n_names > 1)
            return fail_at(p, p->field_line, 1, p->field_byte,
                           "empty line (the header has %zu fields)", n_names);
        const int what = role[nf - 1];
        if (what == ROLE_VALUE) {
            const size_t j = slot[nf - 1];
            if (parse_number(p, nf, &out->values[j][r]) ||
                check_non_negative(p, req, j, nf, out->values[j][r]))
                return -1;
        } else if (what == ROLE_INDEX || what == ROLE_GROUP) {
            trim_field(p);
            if (what == ROLE_GROUP && p->field_len == 0)
                return fail_at(p, p->field_line, nf, p->field_byte,
                               "empty --group-by field (every record needs its group)");
            char *t = copy_text(p->field, p->field_len);
            if (t == NULL)
                return fail_plain(p, "out of memory");
            if (what == ROLE_INDEX)
                out->index[r] = t;
            else
                out->group[r] = t;
        }
    } while (end == FIELD_SEP);
    if (nf < n_names)
        return fail_at(p, p->end_line, nf + 1, p->end_byte,
                       "record has %zu field%s, the header has %zu", nf, nf == 1 ? "" : "s",
                       n_names);
    return 0;
}

int apo__csv_parse_table(const char *buf, size_t len, const char *name, const apo_csv_request *req,
                         apo_csv_table *out, char *err, size_t err_size) {
    csv_parser p;
    memset(&p, 0, sizeof p);
    p.buf = buf;
    p.len = buf != NULL ? len : 0;
    p.line = 1;
    p.name = name != NULL ? name : "<input>";
    p.flags = req != NULL ? req->flags : 0;
    p.err = err;
    p.err_size = err_size;
    if (err_size > 0)
        err[0] = '\0';
    if (out == NULL || req == NULL)
        return fail_plain(&p, "internal error: NULL argument");
    memset(out, 0, sizeof *out);

    if (p.len >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb &&
        (unsigned char)buf[2] == 0xbf) {
        p.pos = 3;
        p.line_start = 3; /* Editors do not show the mark: count bytes after it. */
    }
    if (p.pos >= p.len)
        return fail_plain(&p, "empty file (a header line and at least one value are needed)");
    /* Text has no NUL byte; raw float64 values nearly always have one. */
    const char *nul = memchr(buf + p.pos, '\0', p.len - p.pos);
    if (nul != NULL)
        return fail_plain(&p,
                          "byte %zu is a NUL byte: this is not CSV text (raw float64 values? "
                          "name the file .f64 or give --input-format f64)",
                          (size_t)(nul - buf) + 1);
    p.field_cap = 256;
    p.field = malloc(p.field_cap);
    if (p.field == NULL)
        return fail_plain(&p, "out of memory");

    header_name *names = NULL;
    size_t n_names = 0, cap = 0;
    unsigned char *role = NULL;
    size_t *slot = NULL;
    enum field_end end;
    if (read_header(&p, &names, &n_names, &end))
        goto fail;
    role = calloc(n_names, 1);
    slot = calloc(n_names, sizeof *slot);
    const size_t n_cols = req->n_columns > 0 ? req->n_columns : 1;
    out->n_columns = n_cols;
    out->column_names = calloc(n_cols, sizeof *out->column_names);
    out->values = calloc(n_cols, sizeof *out->values);
    if (role == NULL || slot == NULL || out->column_names == NULL || out->values == NULL) {
        fail_plain(&p, "out of memory");
        goto fail;
    }
    if (assign_roles(&p, names, n_names, req, end, role, slot, out))
        goto fail;

    while (p.pos < p.len) {
        if (only_line_ends_left(&p))
            break; /* blank lines at the end, as many editors and exports leave */
        if (out->n_records == cap && grow_records(&p, out, &cap))
            goto fail;
        const size_t r = out->n_records;
        out->lines[r] = p.line;
        if (out->index != NULL)
            out->index[r] = NULL;
        if (out->group != NULL)
            out->group[r] = NULL;
        out->n_records++; /* counted now, so that a failure frees its strings */
        if (read_record(&p, req, role, slot, n_names, r, out))
            goto fail;
    }
    if (out->n_records == 0) {
        fail_plain(&p, "no data rows after the header line");
        goto fail;
    }
    free_names(names, n_names);
    free(role);
    free(slot);
    free(p.field);
    return 0;
fail:
    free_names(names, n_names);
    free(role);
    free(slot);
    free(p.field);
    apo__csv_table_free(out);
    return -1;
}

int apo__csv_parse_column(const char *buf, size_t len, const char *name, const char *column,
                          unsigned flags, double **values, size_t *count, char *err,
                          size_t err_size) {
    if (values != NULL)
        *values = NULL;
    if (count != NULL)
        *count = 0;
    if (values == NULL || count == NULL) {
        if (err_size > 0)
            snprintf(err, err_size, "%s: internal error: NULL output pointer",
                     name != NULL ? name : "<input>");
        return -1;
    }
    const char *cols[1] = {column};
    apo_csv_request req = {.columns = cols, .n_columns = column != NULL ? 1 : 0, .flags = flags};
    apo_csv_table t;
    if (apo__csv_parse_table(buf, len, name, &req, &t, err, err_size) != 0)
        return -1;
    *values = t.values[0];
    *count = t.n_records;
    t.values[0] = NULL;
    apo__csv_table_free(&t);
    return 0;
}

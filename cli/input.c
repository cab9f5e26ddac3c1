/*
 * Inputs of `apportion run` (see input.h and docs/cli.md).
 */
#include "input.h"

#include "csv.h"
#include "parquet_input.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define ERR(...)                                                                                   \
    do {                                                                                           \
        if (err_size > 0)                                                                          \
            snprintf(err, err_size, __VA_ARGS__);                                                  \
    } while (0)

int cli_format_parse(const char *text, cli_format *out) {
    if (strcmp(text, "f64") == 0) {
        *out = CLI_FORMAT_F64;
        return 0;
    }
    if (strcmp(text, "csv") == 0) {
        *out = CLI_FORMAT_CSV;
        return 0;
    }
    return -1;
}

int cli_input_format_parse(const char *text, cli_format *out) {
    if (strcmp(text, "parquet") == 0) {
        *out = CLI_FORMAT_PARQUET;
        return 0;
    }
    return cli_format_parse(text, out);
}

int cli_format_is_table(cli_format format) {
    return format == CLI_FORMAT_CSV || format == CLI_FORMAT_PARQUET;
}

/* Whether s ends in suffix, whatever the case of its letters (IN.F64 is raw too). */
static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

cli_format cli_input_format(const char *path, cli_format format) {
    if (format != CLI_FORMAT_AUTO)
        return format;
    if (ends_with(path, ".f64") || ends_with(path, ".bin"))
        return CLI_FORMAT_F64;
    return ends_with(path, ".parquet") ? CLI_FORMAT_PARQUET : CLI_FORMAT_CSV;
}

/* The files are little-endian; the byte order of the host is checked at run time rather than
 * assumed, so a big-endian host swaps. */
int cli_host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

void cli_swap8(double *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char b[8], t;
        memcpy(b, &v[i], 8);
        for (int k = 0; k < 4; k++) {
            t = b[k];
            b[k] = b[7 - k];
            b[7 - k] = t;
        }
        memcpy(&v[i], b, 8);
    }
}

const char *cli_input_name(const char *path) { return strcmp(path, "-") == 0 ? "<stdin>" : path; }

/* Reads the whole of path ("-": standard input) into *buf (malloc'd, *len bytes): a regular
 * file, a pipe or a FIFO alike; a folder is refused. */
static int read_whole(const char *path, char **buf, size_t *len, char *err, size_t err_size) {
    const int from_stdin = strcmp(path, "-") == 0;
    const char *name = cli_input_name(path);
    *buf = NULL;
    *len = 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL) {
        ERR("%s: cannot open: %s", name, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        ERR("%s: is a directory", name);
        if (!from_stdin)
            fclose(f);
        return -1;
    }
    char *b = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (n == cap) {
            size_t c = cap ? cap * 2 : 65536;
            char *g = cap > SIZE_MAX / 2 ? NULL : realloc(b, c);
            if (g == NULL) {
                ERR("%s: out of memory after %zu bytes", name, n);
                rc = -1;
                break;
            }
            b = g;
            cap = c;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                ERR("%s: cannot read: %s", name, strerror(errno));
                rc = -1;
            }
            break;
        }
    }
    if (!from_stdin)
        fclose(f);
    if (rc != 0) {
        free(b);
        return -1;
    }
    *buf = b;
    *len = n;
    return 0;
}

/* The text of a table input: a CSV file as it is, a Parquet file as the CSV text that
 * parquet_input.c makes of it. */
static int read_table_text(const char *path, cli_format format, char **buf, size_t *len, char *err,
                           size_t err_size) {
    if (format == CLI_FORMAT_PARQUET)
        return cli_parquet_read_as_csv(path, cli_input_name(path), buf, len, err, err_size);
    return read_whole(path, buf, len, err, err_size);
}

/* Whether the start of the data is text (printable ASCII, tabs and line ends, with a line end
 * or a comma): what a CSV file read as raw float64 looks like. Raw doubles are nearly never
 * so: the bytes of every value would all have to be printable. */
static int looks_like_text(const char *buf, size_t len) {
    const size_t n = len < 4096 ? len : 4096;
    int separator = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)buf[i];
        if (c == '\n' || c == ',')
            separator = 1;
        else if (!(c >= 0x20 && c < 0x7f) && c != '\t' && c != '\r')
            return 0;
    }
    return separator;
}

/* Raw little-endian float64 values from buf[0..len). Takes buf over (freed or kept as the
 * values). */
static int parse_f64(const char *name, char *buf, size_t len, size_t rows, double **values,
                     size_t *count, char *err, size_t err_size) {
    if (len == 0) {
        ERR("%s: empty file (raw little-endian float64 values expected)", name);
        free(buf);
        return -1;
    }
    if (looks_like_text(buf, len)) {
        ERR("%s: this is text (CSV?), not raw little-endian float64 values: read it as CSV "
            "(--input-format csv)",
            name);
        free(buf);
        return -1;
    }
    if (len % 8 != 0) {
        ERR("%s: size %zu bytes is not a multiple of 8 (raw little-endian float64 values "
            "expected; %zu trailing bytes)",
            name, len, len % 8);
        free(buf);
        return -1;
    }
    const size_t n = len / 8;
    if (rows > 0 && n % rows != 0) {
        ERR("%s: %zu values (%zu bytes) do not divide into %zu rows", name, n, len, rows);
        free(buf);
        return -1;
    }
    /* Copied into an array of doubles rather than read through the byte buffer. */
    double *v = malloc(n * sizeof *v);
    if (v == NULL) {
        ERR("%s: out of memory for %zu values", name, n);
        free(buf);
        return -1;
    }
    memcpy(v, buf, len);
    free(buf);
    if (!cli_host_is_little_endian())
        cli_swap8(v, n);
    *values = v;
    *count = n;
    return 0;
}

int cli_read_f64(const char *path, size_t rows, double **values, size_t *count, char *err,
                 size_t err_size) {
    *values = NULL;
    *count = 0;
    char *buf;
    size_t len;
    if (read_whole(path, &buf, &len, err, err_size) != 0)
        return -1;
    return parse_f64(cli_input_name(path), buf, len, rows, values, count, err, err_size);
}

int cli_read_input(const char *path, cli_format format, const char *column, size_t rows,
                   unsigned csv_flags, double **values, size_t *count, char *err, size_t err_size) {
    *values = NULL;
    *count = 0;
    const char *name = cli_input_name(path);
    if (cli_input_format(path, format) == CLI_FORMAT_F64) {
        if (column != NULL) {
            ERR("%s: --column applies to CSV or Parquet input only", name);
            return -1;
        }
        if (csv_flags != 0) {
            ERR("%s: --missing-as-nan applies to CSV or Parquet input only", name);
            return -1;
        }
        return cli_read_f64(path, rows, values, count, err, err_size);
    }
    char *buf;
    size_t len;
    if (read_table_text(path, cli_input_format(path, format), &buf, &len, err, err_size) != 0)
        return -1;
    const int rc =
        apo__csv_parse_column(buf, len, name, column, csv_flags, values, count, err, err_size);
    free(buf);
    if (rc != 0)
        return -1;
    if (rows > 0 && *count % rows != 0) {
        ERR("%s: %zu values do not divide into %zu rows", name, *count, rows);
        free(*values);
        *values = NULL;
        *count = 0;
        return -1;
    }
    return 0;
}

int cli_read_csv_table(const char *path, cli_format format, const apo_csv_request *req,
                       apo_csv_table *table, char *err, size_t err_size) {
    memset(table, 0, sizeof *table);
    char *buf;
    size_t len;
    if (read_table_text(path, cli_input_format(path, format), &buf, &len, err, err_size) != 0)
        return -1;
    const int rc = apo__csv_parse_table(buf, len, cli_input_name(path), req, table, err, err_size);
    free(buf);
    return rc;
}

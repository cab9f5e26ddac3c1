/*
 * Inputs of `apportion run` (see input.h and docs/cli.md).
 */
#include "input.h"

#include "csv.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

cli_format cli_input_format(const char *path, cli_format format) {
    if (format != CLI_FORMAT_AUTO)
        return format;
    return ends_with(path, ".f64") || ends_with(path, ".bin") ? CLI_FORMAT_F64 : CLI_FORMAT_CSV;
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

int cli_read_f64(const char *path, size_t rows, double **values, size_t *count, char *err,
                 size_t err_size) {
    *values = NULL;
    *count = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        ERR("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        ERR("%s: cannot stat: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        ERR("%s: not a regular file", path);
        fclose(f);
        return -1;
    }
    const uint64_t size = (uint64_t)st.st_size;
    if (size == 0) {
        ERR("%s: empty file (raw little-endian float64 values expected)", path);
        fclose(f);
        return -1;
    }
    if (size % 8 != 0) {
        ERR("%s: size %llu bytes is not a multiple of 8 (raw little-endian float64 values "
            "expected; %llu trailing bytes)",
            path, (unsigned long long)size, (unsigned long long)(size % 8));
        fclose(f);
        return -1;
    }
    const uint64_t n = size / 8;
    if (rows > 0 && n % rows != 0) {
        ERR("%s: %llu values (%llu bytes) do not divide into %zu rows", path, (unsigned long long)n,
            (unsigned long long)size, rows);
        fclose(f);
        return -1;
    }
    if (n > SIZE_MAX / sizeof(double)) {
        ERR("%s: too large for this machine (%llu values)", path, (unsigned long long)n);
        fclose(f);
        return -1;
    }
    double *v = malloc((size_t)n * sizeof *v);
    if (v == NULL) {
        ERR("%s: out of memory for %llu values", path, (unsigned long long)n);
        fclose(f);
        return -1;
    }
    size_t got = fread(v, sizeof *v, (size_t)n, f);
    if (got != (size_t)n) {
        ERR("%s: cannot read: %s", path, ferror(f) ? strerror(errno) : "the file shrank");
        free(v);
        fclose(f);
        return -1;
    }
    fclose(f);
    if (!cli_host_is_little_endian())
        cli_swap8(v, (size_t)n);
    *values = v;
    *count = (size_t)n;
    return 0;
}

int cli_read_input(const char *path, cli_format format, const char *column, size_t rows,
                   double **values, size_t *count, char *err, size_t err_size) {
    if (cli_input_format(path, format) == CLI_FORMAT_F64) {
        if (column != NULL) {
            ERR("%s: --column applies to CSV input only", path);
            *values = NULL;
            *count = 0;
            return -1;
        }
        return cli_read_f64(path, rows, values, count, err, err_size);
    }
    if (apo__csv_read_column(path, column, values, count, err, err_size) != 0)
        return -1;
    if (rows > 0 && *count % rows != 0) {
        ERR("%s: %zu values do not divide into %zu rows", path, *count, rows);
        free(*values);
        *values = NULL;
        *count = 0;
        return -1;
    }
    return 0;
}

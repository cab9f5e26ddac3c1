/*
 * Inputs and outputs of `apportion run` (see input.h and docs/cli.md).
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
static int host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static void swap8(double *v, size_t n) {
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
    if (!host_is_little_endian())
        swap8(v, (size_t)n);
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

int cli_make_dirs(const char *dir, char *err, size_t err_size) {
    size_t n = strlen(dir);
    if (n == 0) {
        ERR("empty output directory name");
        return -1;
    }
    char *path = malloc(n + 1);
    if (path == NULL) {
        ERR("out of memory");
        return -1;
    }
    memcpy(path, dir, n + 1);
    /* Create each prefix that ends just before a '/', then the whole path. */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && path[i] != '/')
            continue;
        if (i < n && path[i - 1] == '/')
            continue;
        const char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            ERR("cannot create directory %s: %s", path, strerror(errno));
            free(path);
            return -1;
        }
        path[i] = saved;
    }
    free(path);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ERR("%s exists and is not a directory", dir);
        return -1;
    }
    return 0;
}

/* Writes one CSV number so that strtod() gives back the same double. */
static int put_number(FILE *f, double v) {
    if (isnan(v))
        return fputs("nan", f) < 0 ? -1 : 0;
    if (isinf(v))
        return fputs(v < 0 ? "-inf" : "inf", f) < 0 ? -1 : 0;
    return fprintf(f, "%.17g", v) < 0 ? -1 : 0;
}

/* CSV layout: one column per row of the output and one line per sample, under a header of
 * NAME (rows == 1) or NAME_0 .. NAME_{rows-1}. The file reads back with `--input`. */
static int write_csv(FILE *f, const char *name, const double *data, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; r++) {
        if (r > 0 && fputc(',', f) == EOF)
            return -1;
        if ((rows == 1 ? fprintf(f, "%s", name) : fprintf(f, "%s_%zu", name, r)) < 0)
            return -1;
    }
    if (fputc('\n', f) == EOF)
        return -1;
    for (size_t c = 0; c < cols; c++) {
        for (size_t r = 0; r < rows; r++) {
            if (r > 0 && fputc(',', f) == EOF)
                return -1;
            if (put_number(f, data[r * cols + c]) != 0)
                return -1;
        }
        if (fputc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

static int write_f64(FILE *f, const double *data, size_t n) {
    if (host_is_little_endian())
        return fwrite(data, sizeof *data, n, f) == n ? 0 : -1;
    double chunk[512];
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        memcpy(chunk, data + i, m * sizeof *chunk);
        swap8(chunk, m);
        if (fwrite(chunk, sizeof *chunk, m, f) != m)
            return -1;
    }
    return 0;
}

int cli_write_output(const char *dir, const char *name, cli_format format, const double *data,
                     size_t rows, size_t cols, char *path, size_t path_size, char *err,
                     size_t err_size) {
    const char *ext = format == CLI_FORMAT_CSV ? "csv" : "f64";
    char tmp[4096];
    int n = snprintf(path, path_size, "%s/%s.%s", dir, name, ext);
    if (n < 0 || (size_t)n >= path_size) {
        ERR("output path %s/%s.%s is too long", dir, name, ext);
        return -1;
    }
    n = snprintf(tmp, sizeof tmp, "%s/.%s.%s.XXXXXX", dir, name, ext);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        ERR("output path %s/%s.%s is too long", dir, name, ext);
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ERR("cannot create a temporary file in %s: %s", dir, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        ERR("cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    /* mkstemp() creates the file 0600; outputs are ordinary files readable by others. */
    errno = 0;
    int rc = fchmod(fd, 0644);
    if (rc == 0)
        rc = format == CLI_FORMAT_CSV ? write_csv(f, name, data, rows, cols)
                                      : write_f64(f, data, rows * cols);
    if (rc == 0)
        rc = fflush(f);
    if (rc == 0)
        rc = fsync(fd);
    const int saved = errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -1;
    if (rc != 0) {
        ERR("cannot write %s: %s", path, strerror(saved != 0 ? saved : errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        ERR("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/*
 * Inputs and outputs of `apportion run`: raw float64 and CSV files in, and the output files
 * (raw float64 or CSV) written atomically. The seeded random walk used when no file is given
 * is apo__random_walk (kernels/random_walk.h), shared with the library and the benchmarks.
 *
 * Every function here depends only on libc and POSIX (not on libapportion), so the unit tests
 * and a fuzz target can link it alone. Functions that can fail return 0 on success and -1 on
 * failure, with a one-line message in err (when err_size > 0).
 */
#ifndef APO_CLI_INPUT_H
#define APO_CLI_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef enum cli_format {
    CLI_FORMAT_AUTO = 0, /* input: from the file name (.f64 and .bin are raw, else CSV) */
    CLI_FORMAT_F64 = 1,  /* raw little-endian float64, row-major */
    CLI_FORMAT_CSV = 2
} cli_format;

/* Parses "f64" or "csv". Returns 0, or -1 for anything else. */
int cli_format_parse(const char *text, cli_format *out);

/* The format of an input file: `format` unless AUTO, else F64 for names ending in ".f64" or
 * ".bin" and CSV otherwise. */
cli_format cli_input_format(const char *path, cli_format format);

/* Reads a raw little-endian float64 file. Its size must be a non-zero multiple of 8, and of
 * 8 * rows when rows > 0. On success *values (malloc'd) holds *count values in host order. */
int cli_read_f64(const char *path, size_t rows, double **values, size_t *count, char *err,
                 size_t err_size);

/* Reads the input file in its format (column applies to CSV only). When rows > 0 the number
 * of values must be a multiple of rows. */
int cli_read_input(const char *path, cli_format format, const char *column, size_t rows,
                   double **values, size_t *count, char *err, size_t err_size);

/* Creates `dir` and its missing parents with mode 0755 (like mkdir -p). */
int cli_make_dirs(const char *dir, char *err, size_t err_size);

/* Writes one output array (rows x cols, row-major) to DIR/NAME.f64 or DIR/NAME.csv through a
 * temporary file in DIR and a rename, so that a failure never leaves a partial file. The file's
 * path is written to path (path_size bytes). CSV layout: docs/cli.md. */
int cli_write_output(const char *dir, const char *name, cli_format format, const double *data,
                     size_t rows, size_t cols, char *path, size_t path_size, char *err,
                     size_t err_size);

#endif /* APO_CLI_INPUT_H */

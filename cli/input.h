/*
 * Inputs of `apportion run`: raw float64, CSV and Parquet files. The output files are in
 * output_files.h; the seeded random walk used when no file is given is apo__random_walk
 * (kernels/common/random_walk.h), shared with the library and the benchmarks.
 *
 * Every function here depends only on libc and POSIX (not on libapportion), so the unit tests
 * and a fuzz target can link it alone. Functions that can fail return 0 on success and -1 on
 * failure, with a one-line message in err (when err_size > 0).
 */
#ifndef APO_CLI_INPUT_H
#define APO_CLI_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "csv.h"

typedef enum cli_format {
    CLI_FORMAT_AUTO = 0, /* input: from the file name (.f64 and .bin in any case are raw,
                            .parquet Parquet, else CSV; "-", standard input, is CSV) */
    CLI_FORMAT_F64 = 1,  /* raw little-endian float64, row-major */
    CLI_FORMAT_CSV = 2,
    CLI_FORMAT_PARQUET = 3 /* input only: read as CSV through pyarrow (parquet_input.h) */
} cli_format;

/* Parses "f64" or "csv" (the formats of outputs). Returns 0, or -1 for anything else. */
int cli_format_parse(const char *text, cli_format *out);

/* Parses "f64", "csv" or "parquet" (the formats of inputs). Returns 0, or -1. */
int cli_input_format_parse(const char *text, cli_format *out);

/* The format of an input file: `format` unless AUTO, else F64 for names ending in ".f64" or
 * ".bin" (in any case), PARQUET for names ending in ".parquet" (in any case) and CSV
 * otherwise. */
cli_format cli_input_format(const char *path, cli_format format);

/* Whether an input of this format (not AUTO) is a table of named columns read by the CSV
 * reader: CSV, and Parquet, which reaches the reader as CSV text. */
int cli_format_is_table(cli_format format);

/* Reads raw little-endian float64 values from path ("-": standard input; a pipe or a FIFO
 * works as a file does). Their size must be a non-zero multiple of 8, and of 8 * rows when
 * rows > 0; data that looks like text (a CSV file) is refused. On success *values (malloc'd)
 * holds *count values in host order. */
int cli_read_f64(const char *path, size_t rows, double **values, size_t *count, char *err,
                 size_t err_size);

/* Reads the input at path ("-": standard input) in its format (column and csv_flags, the
 * APO_CSV_* flags of csv.h, apply to CSV and Parquet only). When rows > 0 the number of values must
 * be a multiple of rows. */
int cli_read_input(const char *path, cli_format format, const char *column, size_t rows,
                   unsigned csv_flags, double **values, size_t *count, char *err, size_t err_size);

/* Reads the CSV or Parquet file at path ("-": standard input; `format` as for
 * cli_input_format()) into *table as apo__csv_parse_table() does (csv.h): several value
 * columns, an index column and a group column. */
int cli_read_csv_table(const char *path, cli_format format, const apo_csv_request *req,
                       apo_csv_table *table, char *err, size_t err_size);

/* The name of an input in messages: path, or "<stdin>" for "-". */
const char *cli_input_name(const char *path);

/* Whether the host stores doubles little-endian, as the raw files do; cli_swap8() reverses
 * the bytes of each of n doubles for a host that does not. */
int cli_host_is_little_endian(void);
void cli_swap8(double *v, size_t n);

#endif /* APO_CLI_INPUT_H */

/*
 * Parquet input of `apportion run` and `apportion stream` (docs/cli/run.md, "Parquet").
 *
 * Debian packages no Parquet library for C, so the tool reads Parquet through pyarrow: it
 * runs a Python interpreter (APPORTION_PYTHON, default python3) on a helper script compiled
 * into the tool, which hands back the file's table as CSV text on a pipe. The tool then reads
 * that text with its one CSV reader (csv.h), so a Parquet file's columns are chosen, checked
 * and refused exactly as a CSV file's are: the same options, the same messages.
 *
 * Depends only on libc and POSIX, as the rest of cli_csv_lib does.
 */
#ifndef APO_CLI_PARQUET_INPUT_H
#define APO_CLI_PARQUET_INPUT_H

#include <stddef.h>

/* The variable that names the interpreter, and the interpreter used when it is unset or
 * empty. */
#define CLI_PYTHON_VARIABLE "APPORTION_PYTHON"
#define CLI_PYTHON_DEFAULT "python3"

/* The Python source of the helper, as the interpreter runs it (python -c). */
extern const char cli_parquet_helper_source[];

/* Reads the Parquet file at path ("-": standard input) as CSV text: *text (malloc'd, *len
 * bytes, not NUL-terminated) is what the helper wrote, header line first, one line per row.
 * `name` is the file's name in messages. Returns 0, or -1 with a one-line message in err: no
 * interpreter, no pyarrow, a file that is missing or not Parquet. */
int cli_parquet_read_as_csv(const char *path, const char *name, char **text, size_t *len, char *err,
                            size_t err_size);

#endif /* APO_CLI_PARQUET_INPUT_H */

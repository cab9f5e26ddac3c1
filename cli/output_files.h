/*
 * The output files of `apportion run --output DIR`, written as one set: after a run either
 * every output file is new, or every file that was in DIR before is as it was (docs/cli/run.md,
 * "Output files").
 *
 * The set is opened before the work starts: DIR and its missing parents are created, and
 * one temporary file per output (DIR/.NAME.EXT.HOST-PID.XXXXXX) with, for raw outputs, its space
 * reserved, so that a folder that cannot be written, or a disk without room for the raw
 * outputs, fails before anything is computed. Each output is then written to its temporary
 * file; only when all are complete are they renamed over the old files. Every failure, and
 * SIGINT, SIGTERM and SIGHUP while the set is open, removes the temporary files and the
 * folders that the set created. What no handler can remove (kill -9, a crash) the next set
 * opened in DIR removes: temporary files of this machine whose process no longer runs.
 *
 * One set is open at a time in a process (the signal handler needs its paths in static
 * storage). Depends on libc and POSIX only. Functions that can fail return 0 on success and
 * -1 on failure, with a one-line message in err (when err_size > 0).
 */
#ifndef APO_CLI_OUTPUT_FILES_H
#define APO_CLI_OUTPUT_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "input.h"

#define CLI_OUTPUT_FILES_MAX 8

/* Opens the set of n outputs (1 to CLI_OUTPUT_FILES_MAX) in dir: output i is names[i]
 * (a plain file name) of rows[i] x cols[i] values, written in `format` (CLI_FORMAT_F64 or
 * CLI_FORMAT_CSV). A final path that exists and is not a regular file is refused here. */
int cli_output_files_open(const char *dir, cli_format format, const char *const *names,
                          const size_t *rows, const size_t *cols, size_t n, char *err,
                          size_t err_size);

/* Writes output i (rows x cols, row-major) to its temporary file, complete and synced. The
 * CSV layout is in docs/cli.md. */
int cli_output_files_write(size_t i, const double *data, char *err, size_t err_size);

/* Appends n values (row-major, continuing where the last append ended) to raw output i
 * (CLI_FORMAT_F64 only): a sweep's pieces, in set order. The append that completes the
 * output's rows x cols values syncs it; an output is written either by appends or by
 * cli_output_files_write(), not both. */
int cli_output_files_append(size_t i, const double *data, size_t n, char *err, size_t err_size);

/* One named series of an output, for cli_output_files_write_columns(): its values and,
 * when the layout has an index, one index text per value. */
typedef struct cli_output_column {
    const char *name;
    const double *values;
    size_t length;
    const char *const *index; /* length entries, or NULL when index_name is NULL */
} cli_output_column;

/* Writes output i (CSV only) as n named series (docs/cli/run.md, "Output files"): with
 * index_name, the index as the first column when shared_index (every series has the same
 * index: cols[0]'s is written), else one index column NAME_<index_name> before each series;
 * a series shorter than the longest has empty fields past its end. */
int cli_output_files_write_columns(size_t i, const cli_output_column *cols, size_t n,
                                   const char *index_name, int shared_index, char *err,
                                   size_t err_size);

/* Writes output i (CSV only) in a layout of the caller's: writer(f, ctx) writes the whole
 * file to the stream f and returns 0, or -1 when a write failed; the file is then synced
 * as any output is. */
typedef int (*cli_output_writer)(FILE *f, void *ctx);
int cli_output_files_write_with(size_t i, cli_output_writer writer, void *ctx, char *err,
                                size_t err_size);

/* One CSV field, as the outputs write them: a number with %.17g so that strtod() gives the
 * same double back (nan, inf, -inf otherwise); a text as it is, quoted (with "" for a quote)
 * when it holds a comma, a quote or a line break. Return 0, or -1 when the write failed. */
int cli_output_put_number(FILE *f, double v);
int cli_output_put_text(FILE *f, const char *t);

/* Once every output is written: renames each temporary file to DIR/NAME.EXT and syncs DIR;
 * the set is then closed. On failure the set is aborted (cli_output_files_abort()). */
int cli_output_files_commit(char *err, size_t err_size);

/* Removes the temporary files and the folders the set created (when they are empty), and
 * closes the set. Does nothing when no set is open (also after a commit). */
void cli_output_files_abort(void);

/* The final path of output i (DIR/NAME.EXT) of the open or last committed set. */
const char *cli_output_files_path(size_t i);

#endif /* APO_CLI_OUTPUT_FILES_H */

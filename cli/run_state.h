/*
 * The state of one `apportion run` (cmd_run.c), shared with the reading of its input into
 * the call's rows (run_load.c): the series of a CSV input, the one library call they form,
 * its outputs, and a sweep's pieces.
 */
#ifndef APO_CLI_RUN_STATE_H
#define APO_CLI_RUN_STATE_H

#include <apportion.h>
#include <stddef.h>

#include "csv.h"
#include "host_arrays.h"
#include "json_report.h"
#include "options.h"

/* One series of a CSV input: a column of a --column list, one group of --group-by, or the
 * one column read; its values and, with an index column, its own index texts (borrowed from
 * the table). */
typedef struct series {
    const char *name;
    size_t length;
    double *values[APO_MAX_IO]; /* one array a kernel input, in the kernel's order */
    const char **index;         /* length entries, or NULL */
} series;

/* The apo_distribute_workload() call: the series as the rows of its input. Series of
 * several lengths are a ragged call (apo_workload.row_lengths, docs/api.md "Ragged rows"):
 * cols is the longest, and each row is padded with NaN past its own length. */
typedef struct call {
    size_t rows, cols;
    size_t *lengths;            /* ragged: rows lengths; NULL when every row is cols long */
    double *inputs[APO_MAX_IO]; /* n_inputs arrays of rows x cols, row-major */
    size_t n_inputs;
    /* ragged: each row's own columns of every output (for its length), else NULL */
    size_t *own_cols[APO_MAX_IO];
    cli_host_array outputs[APO_MAX_IO];
    double *output_data[APO_MAX_IO];
    size_t out_rows[APO_MAX_IO], out_cols[APO_MAX_IO];
    apo_report report;
} call;

typedef struct run_state {
    apo_runtime *rt;
    apo_csv_table table;
    series *series; /* named series of a CSV input (n_series > 0: the named CSV layout) */
    size_t n_series;
    call call;
    cli_output_desc descs[APO_MAX_IO];
    size_t n_outputs;
    cli_run_times times;
    /* A sweep (o->n_sweep > 0): run in pieces of piece_sets sets, each one call. */
    apo_sweep sweep;
    size_t piece_sets, pieces;
    /* A scored sweep holds every set's scores in one piece but computes them in calls of
     * call_sets sets each, sized by work and whole blocks (cli_score_call_sets): each call then has
     * a deadline of its own and learns for the next, and Ctrl-C stops between them. */
    size_t call_sets;
    /* A scored run (--score): each row's name in scores.csv, the text of row numbers, the
     * file's name for a wide file's one series of several inputs, and the best lines. */
    const char **row_names;
    char *row_numbers;
    char *row_file_name;
    size_t *best, n_best;
    /* --by SCORE:AGG: each set's aggregate and series counted (scores_rank.h); best then
     * holds sets, not lines. */
    double *set_agg;
    size_t *set_counted;
    /* Series too short for the kernel, set aside from the call (run_short_series.c):
     * n_series flags, or NULL, and how many are set. */
    unsigned char *short_series;
    size_t n_short;
    /* A ranged scored run (--ranges, --walk-forward; run_ranges.c): the call's ranges and
     * each one's text as given, the lines' names (rows x ranges), and a walk-forward's
     * windows (the index of each one's train and test range). n_ranges 0: none. */
    apo_range *ranges;
    size_t n_ranges;
    char (*range_labels)[64];
    const char **line_names;
    char *line_text;
    size_t *wf_train_of, *wf_test_of, n_windows;
} run_state;

/* Reads the input that the options name (a file, or the generated walk) into s: s->call's
 * rows and inputs and, for named CSV series, s->series and s->table. `info` is the kernel's
 * (its inputs' names choose the columns). Returns CLI_EXIT_OK, or the exit status with the
 * message printed. */
int cli_run_load_input(const cli_run_options *o, const apo_kernel_info *info, run_state *s);

/* Frees what cli_run_load_input() made (the call's inputs, the series, the table). */
void cli_run_free_input(run_state *s);

/* Whether every named series has the same index texts (and so one index serves them all). */
int cli_run_index_shared(const run_state *s);

/* Sets aside, with a warning naming each, the named series too short for the kernel alone
 * (docs/cli/run.md, "Series shorter than the warm-up"), so that the call runs on the others;
 * refuses the run (exit 2, naming the first series) when every series is too short. Does
 * nothing for a scored run or series of one length. Returns CLI_EXIT_OK or the exit
 * status, with the message printed. */
int cli_run_set_aside_short(const cli_run_options *o, const apo_kernel_info *info, run_state *s);

/* After the call: the outputs of every series again, the set-aside ones NaN over their
 * own columns and the rest of their row. Returns CLI_EXIT_OK or the exit status. */
int cli_run_restore_short(const cli_run_options *o, run_state *s);

#endif /* APO_CLI_RUN_STATE_H */

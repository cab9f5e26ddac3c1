/*
 * `apportion run`: distribute one workload across the devices and print the report.
 *
 * The input is a file (raw float64, or CSV columns: several series, or one per group of a
 * long-format file) or, by default, a seeded random walk (input.h); the options are parsed
 * and checked in run_options.c before any work is done, and the library's own validation
 * (kernel, parameters, devices, ratios) is reported as a usage error too. The input becomes
 * the call's rows in run_load.c; a scored run's file and ranking are scores_output.c's.
 */
#include "cli.h"
#include "output_files.h"
#include "run_positions.h"
#include "run_ranges.h"
#include "run_ratios.h"
#include "run_state.h"
#include "scores_output.h"
#include "scores_plot.h"
#include "scores_rank.h"
#include "sweep_sets.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output names become file names: refuse anything that could leave DIR. */
static int safe_file_name(const char *name) {
    if (name == NULL || name[0] == '\0' || name[0] == '.')
        return 0;
    for (const char *c = name; *c != '\0'; c++)
        if (*c == '/' || *c == '\\')
            return 0;
    return 1;
}

static void free_state(run_state *s) {
    /* Whatever failed after the output files were opened: no temporary file is left. */
    cli_output_files_abort();
    for (size_t i = 0; i < APO_MAX_IO; i++) {
        cli_host_array_free(&s->call.outputs[i]);
        free(s->call.own_cols[i]);
    }
    cli_run_free_input(s);
    free(s->short_series);
    free(s->row_names);
    free(s->row_numbers);
    free(s->row_file_name);
    cli_run_ranges_free(s);
    free(s->best);
    free(s->set_agg);
    free(s->set_counted);
    apo_runtime_destroy(s->rt);
}

static int out_of_memory(void) {
    cli_error("out of memory");
    return CLI_EXIT_FAILURE;
}
_Static_assert(CLI_OUTPUT_FILES_MAX >= APO_MAX_IO, "every output of a kernel can be written");

/* Faults the outputs in before the timed calls, so that the devices' times are their
 * computing, not the tool's allocation (host_arrays.h). */
static void prepare_outputs(run_state *s) {
    cli_host_array *arrays[APO_MAX_IO];
    for (size_t i = 0; i < s->n_outputs; i++)
        arrays[i] = &s->call.outputs[i];
    cli_host_arrays_fault_in(arrays, s->n_outputs);
}

/* The workload of call k (inputs points at storage for its one input pointer). */
static apo_workload call_workload(const cli_run_options *o, const apo_kernel_info *info,
                                  const run_state *s, call *k, const double **inputs) {
    for (size_t i = 0; i < k->n_inputs; i++)
        inputs[i] = k->inputs[i];
    apo_workload w = {.size = sizeof(apo_workload)};
    w.kernel = o->kernel;
    w.rows = k->rows;
    w.cols = k->cols;
    w.inputs = inputs;
    w.n_inputs = k->n_inputs;
    w.outputs = k->output_data;
    w.n_outputs = info->n_outputs;
    w.params = o->given.params;
    w.n_params = o->given.n_params;
    w.seed = o->seed;
    w.split = o->split;
    w.learn = o->no_learn ? APO_SWITCH_OFF : APO_SWITCH_UNSET;
    w.sweep = o->given.n_sweep > 0 ? &s->sweep : NULL;
    w.row_lengths = k->lengths;
    w.score = o->score;
    w.ranges = s->n_ranges > 0 ? s->ranges : NULL;
    w.n_ranges = s->n_ranges;
    return w;
}

static int impossible_shape(const apo_kernel_info *info, size_t i, size_t orows, size_t ocols) {
    cli_error("output %s has an impossible shape %zu x %zu", info->output_names[i], orows, ocols);
    return CLI_EXIT_FAILURE;
}

/* Output i's shape under workload w, or the exit status when the library refuses the
 * workload or the shape cannot be held (empty, or more bytes than size_t counts). */
static int output_shape(apo_runtime *rt, const apo_workload *w, const apo_kernel_info *info,
                        size_t i, size_t *orows, size_t *ocols) {
    *orows = *ocols = 0;
    apo_status st = apo_output_shape(rt, w, i, orows, ocols);
    if (st != APO_OK)
        return cli_status_error(st, "invalid workload");
    if (*orows == 0 || *ocols == 0 || *ocols > SIZE_MAX / sizeof(double) / *orows)
        return impossible_shape(info, i, *orows, *ocols);
    return CLI_EXIT_OK;
}

/* A sweep's pieces: as many sets a call as the outputs of that many fit in --memory (or
 * the default), so that memory stays bounded however many sets there are. */
static int plan_pieces(const cli_run_options *o, const apo_kernel_info *info, run_state *s) {
    s->sweep = (apo_sweep)APO_SWEEP_INIT;
    s->sweep.grid = o->given.sweep;
    s->sweep.n_grid = o->given.n_sweep;
    s->sweep.n_sets_run = 1;
    call *k = &s->call;
    const double *inputs[APO_MAX_IO];
    apo_workload w = call_workload(o, info, s, k, inputs);
    size_t per_set = 0;
    for (size_t i = 0; i < info->n_outputs; i++) {
        size_t orows, ocols;
        int rc = output_shape(s->rt, &w, info, i, &orows, &ocols);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (orows * ocols * sizeof(double) > SIZE_MAX - per_set)
            return impossible_shape(info, i, orows, ocols);
        per_set += orows * ocols * sizeof(double);
    }
    const size_t budget = o->memory != 0 ? o->memory : cli_default_memory();
    if (per_set > budget) {
        cli_error("--memory: one parameter set's outputs take %zu bytes, more than the %zu "
                  "allowed",
                  per_set, budget);
        return CLI_EXIT_USAGE;
    }
    size_t fit = budget / per_set;
    if (o->score != NULL && fit < o->given.sweep_sets) {
        /* The best lines are ranked over every set: the scores (8 doubles a set and series)
         * are held whole, as a CSV sweep's outputs are. */
        cli_error("--memory: the scores of %zu sets take %zu bytes (%zu a set), more than the "
                  "%zu allowed",
                  o->given.sweep_sets, o->given.sweep_sets * per_set, per_set, budget);
        return CLI_EXIT_USAGE;
    }
    if (o->memory == 0 && o->format != CLI_FORMAT_CSV && o->score == NULL) {
        const size_t small = CLI_SWEEP_PIECE_BYTES / per_set;
        fit = small < 1 ? 1 : small < fit ? small : fit;
    }
    s->piece_sets = fit < o->given.sweep_sets ? fit : o->given.sweep_sets;
    s->pieces = (o->given.sweep_sets + s->piece_sets - 1) / s->piece_sets;
    s->call_sets = s->piece_sets;
    if (o->score != NULL) {
        s->call_sets = cli_score_call_sets(&o->given, k->rows * k->cols);
        s->pieces = (o->given.sweep_sets + s->call_sets - 1) / s->call_sets;
    }
    s->sweep.n_sets_run = s->piece_sets;
    s->times.sweep_sets = o->given.sweep_sets;
    s->times.sweep_pieces = s->pieces;
    return CLI_EXIT_OK;
}

/* Each ragged row's own columns of every output: those of a series of its length alone,
 * asked of the library once per distinct length (the indicators' follow the length, the
 * statistics' do not). */
static int shape_ragged_rows(const cli_run_options *o, const apo_kernel_info *info, run_state *s) {
    call *k = &s->call;
    for (size_t i = 0; i < info->n_outputs; i++) {
        k->own_cols[i] = malloc(k->rows * sizeof *k->own_cols[i]);
        if (k->own_cols[i] == NULL)
            return out_of_memory();
    }
    for (size_t r = 0; r < k->rows; r++) {
        size_t same = 0;
        while (same < r && k->lengths[same] != k->lengths[r])
            same++;
        for (size_t i = 0; i < info->n_outputs && same < r; i++)
            k->own_cols[i][r] = k->own_cols[i][same];
        if (same < r)
            continue;
        const double *inputs[APO_MAX_IO];
        apo_workload w = call_workload(o, info, s, k, inputs);
        w.rows = 1;
        w.cols = k->lengths[r];
        w.row_lengths = NULL;
        for (size_t i = 0; i < info->n_outputs; i++) {
            size_t orows = 0;
            apo_status st = apo_output_shape(s->rt, &w, i, &orows, &k->own_cols[i][r]);
            if (st != APO_OK)
                return cli_status_error(st, "invalid workload");
        }
    }
    return CLI_EXIT_OK;
}

/* The shortest series: the one whose warm-up matters. */
static size_t shortest_row(const call *k) {
    size_t shortest = k->cols;
    for (size_t r = 0; k->lengths != NULL && r < k->rows; r++)
        if (k->lengths[r] < shortest)
            shortest = k->lengths[r];
    return shortest;
}

/* Shapes and allocates the outputs of the call (of a sweep: of one piece). */
static int shape_outputs(const cli_run_options *o, const apo_kernel_info *info, run_state *s) {
    s->n_outputs = info->n_outputs;
    if (o->given.n_sweep > 0) {
        int rc = plan_pieces(o, info, s);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    call *k = &s->call;
    const double *inputs[APO_MAX_IO];
    apo_workload w = call_workload(o, info, s, k, inputs);
    for (size_t i = 0; i < info->n_outputs; i++) {
        size_t orows, ocols;
        int rc = output_shape(s->rt, &w, info, i, &orows, &ocols);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (s->n_series > 0 && orows != k->rows * (o->given.n_sweep > 0 ? s->piece_sets : 1))
            return impossible_shape(info, i, orows, ocols);
        if (o->output != NULL && o->score == NULL && !safe_file_name(info->output_names[i])) {
            cli_error("output name '%s' cannot be used as a file name", info->output_names[i]);
            return CLI_EXIT_FAILURE;
        }
        if (cli_host_array_alloc(&k->outputs[i], orows * ocols) != 0) {
            cli_error("out of memory for output %s (%zu x %zu)", info->output_names[i], orows,
                      ocols);
            return CLI_EXIT_FAILURE;
        }
        k->output_data[i] = k->outputs[i].data;
        k->out_rows[i] = orows;
        k->out_cols[i] = ocols;
        /* The report's shape: the call's (ragged rows by the longest). */
        cli_output_desc *d = &s->descs[i];
        d->name = info->output_names[i];
        d->rows = orows;
        if (o->given.n_sweep > 0)
            d->rows = orows / s->piece_sets * o->given.sweep_sets; /* the whole sweep's file */
        if (s->n_short > 0)
            d->rows = d->rows / k->rows * s->n_series; /* the set-aside series' NaN too */
        d->cols = ocols;
        d->file = NULL;
    }
    /* A scored call has one value a series whatever its length, and a series shorter than
     * the warm-up is scored as one without bars (docs/scores.md, "Scores"). */
    if (o->score != NULL)
        return CLI_EXIT_OK;
    /* After apo_output_shape(): the library has checked the parameters by now. */
    int rc = cli_run_check_macd_warmup(o, info, shortest_row(k));
    if (rc == CLI_EXIT_OK && k->lengths != NULL)
        rc = shape_ragged_rows(o, info, s);
    return rc;
}

/* Row r's own columns of output i: for its length when the rows are ragged. */
static size_t own_cols(const call *k, size_t i, size_t r) {
    return k->own_cols[i] != NULL ? k->own_cols[i][r] : k->out_cols[i];
}

/* Writes output i of the named series: one column per series, named for it (one column
 * read alone keeps the output's name), with the index when the output runs along the
 * series. */
static int write_named_output(run_state *s, size_t i, char *err, size_t err_size) {
    cli_output_column *cols = calloc(s->n_series, sizeof *cols);
    if (cols == NULL) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    int aligned = s->table.index != NULL;
    const call *k = &s->call;
    for (size_t r = 0; r < k->rows; r++) {
        const series *x = &s->series[r];
        cli_output_column *col = &cols[r];
        col->name = s->n_series == 1 && s->table.group == NULL ? s->descs[i].name : x->name;
        col->values = k->output_data[i] + r * k->out_cols[i];
        col->length = own_cols(k, i, r);
        col->index = x->index;
        if (col->length != x->length)
            aligned = 0; /* a statistic per series, not one value per bar */
    }
    const int rc =
        cli_output_files_write_columns(i, cols, s->n_series, aligned ? s->table.index_name : NULL,
                                       aligned && cli_run_index_shared(s), err, err_size);
    free(cols);
    return rc;
}

static int open_outputs(const cli_run_options *o, run_state *s) {
    if (o->output == NULL)
        return CLI_EXIT_OK;
    char err[1024];
    if (o->score != NULL) {
        /* One file, scores.csv, in the same set as outputs are written: opened before the
         * work, removed on failure and on a signal, renamed into place whole. */
        const char *names[] = {CLI_SCORES_OUTPUT_NAME, CLI_POSITIONS_OUTPUT_NAME};
        const size_t lines[] = {s->call.rows * o->given.sweep_sets, s->call.rows * s->call.cols};
        const size_t one[] = {1, 1};
        if (cli_output_files_open(o->output, CLI_FORMAT_CSV, names, lines, one,
                                  o->positions_set ? 2 : 1, err, sizeof err) != 0) {
            cli_error("--output: %s", err);
            return CLI_EXIT_FAILURE;
        }
        return CLI_EXIT_OK;
    }
    if (o->given.n_sweep > 0 && o->format == CLI_FORMAT_CSV && s->pieces > 1) {
        cli_error("--format csv writes a sweep's sets side by side, which needs them all in "
                  "memory: %zu sets take %zu pieces within --memory; raise --memory or use "
                  "--format f64",
                  o->given.sweep_sets, s->pieces);
        return CLI_EXIT_USAGE;
    }
    if (o->format != CLI_FORMAT_CSV && s->call.lengths != NULL) {
        /* Each distinct length, in order of first appearance, with its first series. */
        char lengths[512];
        size_t w = 0, n_lengths = 0;
        lengths[0] = '\0';
        for (size_t j = 0; j < s->n_series; j++) {
            size_t first = 0, count = 0;
            while (s->series[first].length != s->series[j].length)
                first++;
            if (first < j)
                continue;
            for (size_t m = j; m < s->n_series; m++)
                count += s->series[m].length == s->series[j].length;
            const int m = w < sizeof lengths
                              ? snprintf(lengths + w, sizeof lengths - w, "%s%zu (%s%s)",
                                         n_lengths ? ", " : "", s->series[j].length,
                                         s->series[j].name, count > 1 ? ", ..." : "")
                              : 0;
            if (m > 0)
                w += (size_t)m;
            n_lengths++;
        }
        cli_error("--format f64 writes rows x cols of one length, but the series have %zu "
                  "lengths: %s; use --format csv (one column per series)",
                  n_lengths, lengths);
        return CLI_EXIT_USAGE;
    }
    const char *names[APO_MAX_IO];
    size_t out_rows[APO_MAX_IO], out_cols[APO_MAX_IO];
    for (size_t i = 0; i < s->n_outputs; i++) {
        names[i] = s->descs[i].name;
        out_rows[i] = s->descs[i].rows;
        out_cols[i] = s->descs[i].cols;
    }
    if (cli_output_files_open(o->output, o->format, names, out_rows, out_cols, s->n_outputs, err,
                              sizeof err) != 0) {
        cli_error("--output: %s", err);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* Writes output i of a sweep run in one piece as CSV: one column per set and series, set
 * after set, named "name=value ..." and, with several series, the series' name first. */
static int write_sweep_csv(const cli_run_options *o, run_state *s, size_t i, char *err,
                           size_t err_size) {
    enum { NAME_CAP = 512 };
    const call *k = &s->call;
    const size_t n = o->given.sweep_sets * k->rows;
    cli_output_column *cols = calloc(n, sizeof *cols);
    char *names = calloc(n, NAME_CAP);
    if (cols == NULL || names == NULL) {
        free(cols), free(names);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    const int named = s->n_series > 0 && (s->n_series > 1 || s->table.group != NULL);
    int aligned = s->n_series > 0 && s->table.index != NULL;
    for (size_t set = 0; set < o->given.sweep_sets; set++) {
        char label[NAME_CAP - 64];
        cli_sweep_set_label(o, set, label, sizeof label);
        for (size_t r = 0; r < k->rows; r++) {
            const size_t c = set * k->rows + r;
            char *name = names + c * NAME_CAP;
            if (named)
                snprintf(name, NAME_CAP, "%.60s %s", s->series[r].name, label);
            else if (k->rows > 1)
                snprintf(name, NAME_CAP, "%.40s_%zu %s", s->descs[i].name, r, label);
            else
                snprintf(name, NAME_CAP, "%s", label);
            cols[c].name = name;
            cols[c].values = k->output_data[i] + c * k->out_cols[i];
            cols[c].length = own_cols(k, i, r);
            cols[c].index = s->n_series > 0 ? s->series[r].index : NULL;
            if (s->n_series > 0 && cols[c].length != s->series[r].length)
                aligned = 0; /* a statistic per series, not one value per bar */
        }
    }
    if (!aligned)
        for (size_t c = 0; c < n; c++)
            cols[c].index = NULL;
    const int rc =
        cli_output_files_write_columns(i, cols, n, aligned ? s->table.index_name : NULL,
                                       aligned && cli_run_index_shared(s), err, err_size);
    free(cols);
    free(names);
    return rc;
}

/* The scores of a scored run, as scores_output.h takes them. */
static cli_scores scores_of(const cli_run_options *o, const run_state *s) {
    cli_scores sc = {.o = o, .sets = o->given.sweep_sets, .rows = s->call.rows};
    for (size_t k = 0; k < APO_N_SCORES; k++)
        sc.values[k] = s->call.output_data[k];
    sc.series = s->row_names;
    /* A ranged run's lines are each series' ranges, SERIES[A:B] (run_ranges.h). */
    if (s->n_ranges > 0) {
        sc.rows = s->call.rows * s->n_ranges;
        sc.series = s->line_names;
    }
    return sc;
}

/* The name of a wide CSV file's one series when no column names it (for a kernel of several
 * inputs the series is the file's high, low and close together, and its first column's
 * name, "high", would name an input, not the series): the file's name without its folder
 * and last extension ("AAPL" for data/AAPL.csv), as a --group-by value names a ticker.
 * NULL for standard input, whose series is numbered as raw input's; *failed on no memory. */
static char *file_series_name(const char *path, int *failed) {
    *failed = 0;
    if (strcmp(path, "-") == 0)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    /* A name that is all extension (".csv") keeps it: an empty name would name nothing. */
    const size_t n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    char *name = strndup(base, n);
    *failed = name == NULL;
    return name;
}

/* Each row's name in scores.csv: its series' (a column or a group), the one CSV column read
 * alone, the file's for a wide file of several inputs, or, for generated and raw input and a
 * column cut by --rows, its row number. */
static int name_rows(const cli_run_options *o, run_state *s) {
    enum { NUMBER_CAP = 24 };
    const size_t rows = s->call.rows;
    s->row_names = calloc(rows, sizeof *s->row_names);
    s->row_numbers = calloc(rows, NUMBER_CAP);
    if (s->row_names == NULL || s->row_numbers == NULL)
        return out_of_memory();
    const int csv = s->table.n_columns > 0;
    int failed = 0;
    if (csv && s->table.group == NULL && s->call.n_inputs > 1)
        s->row_file_name = file_series_name(o->input, &failed);
    if (failed)
        return out_of_memory();
    for (size_t r = 0; r < rows; r++) {
        char *number = s->row_numbers + r * NUMBER_CAP;
        snprintf(number, NUMBER_CAP, "%zu", r);
        s->row_names[r] = s->row_file_name != NULL                         ? s->row_file_name
                          : s->call.n_inputs > 1 && s->table.group == NULL ? number
                          : s->n_series > 0                                ? s->series[r].name
                          : rows == 1 && csv ? s->table.column_names[0]
                                             : number;
    }
    return CLI_EXIT_OK;
}

/* A scored run's one file, DIR/scores.csv, committed as the outputs' set is. */
static int write_scores(const cli_run_options *o, run_state *s) {
    char err[1024];
    const double t0 = cli_now_s();
    const cli_scores sc = scores_of(o, s);
    if (cli_scores_write_file(0, &sc, err, sizeof err) != 0 ||
        (o->positions_set && cli_run_write_positions(o, s, 1, err, sizeof err) != 0)) {
        cli_error("%s (no output file was changed)", err);
        return CLI_EXIT_FAILURE;
    }
    if (cli_output_files_commit(err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_EXIT_FAILURE;
    }
    for (size_t i = 0; i < s->n_outputs; i++)
        s->descs[i].file = cli_output_files_path(0);
    s->times.write_output_ms += (cli_now_s() - t0) * 1e3;
    return CLI_EXIT_OK;
}

static int write_outputs(const cli_run_options *o, run_state *s) {
    if (o->score != NULL)
        return write_scores(o, s);
    char err[1024];
    const double t0 = cli_now_s();
    /* Every file complete before any old one gives way (a sweep's raw files were appended
     * to piece by piece). */
    for (size_t i = 0; i < s->n_outputs && o->given.n_sweep > 0 && o->format == CLI_FORMAT_CSV; i++)
        if (write_sweep_csv(o, s, i, err, sizeof err) != 0) {
            cli_error("%s (no output file was changed)", err);
            return CLI_EXIT_FAILURE;
        }
    for (size_t i = 0; i < s->n_outputs && o->given.n_sweep == 0; i++) {
        const int rc = s->n_series > 0 && o->format == CLI_FORMAT_CSV
                           ? write_named_output(s, i, err, sizeof err)
                           : cli_output_files_write(i, s->call.output_data[i], err, sizeof err);
        if (rc != 0) {
            cli_error("%s (no output file was changed)", err);
            return CLI_EXIT_FAILURE;
        }
    }
    char sets_temp[4200];
    if (o->given.n_sweep > 0) {
        const int rc = cli_sweep_write_sets_file(o, sets_temp, sizeof sets_temp);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (cli_output_files_commit(err, sizeof err) != 0) {
        if (o->given.n_sweep > 0)
            remove(sets_temp);
        cli_error("%s", err);
        return CLI_EXIT_FAILURE;
    }
    if (o->given.n_sweep > 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/sets.csv", o->output);
        if (rename(sets_temp, path) != 0) {
            remove(sets_temp);
            cli_error("cannot rename %s to %s", sets_temp, path);
            return CLI_EXIT_FAILURE;
        }
    }
    for (size_t i = 0; i < s->n_outputs; i++)
        s->descs[i].file = cli_output_files_path(i);
    s->times.write_output_ms += (cli_now_s() - t0) * 1e3;
    return CLI_EXIT_OK;
}

/* The report's "positions" object: the set and its file. */
static json_t *positions_json(const cli_run_options *o) {
    json_t *j = json_object();
    json_object_set_new(j, "set", cli_json_u64(o->positions));
    json_object_set_new(j, "file", cli_json_string(cli_output_files_path(1)));
    return j;
}

static int print_report(const cli_run_options *o, run_state *s) {
    const cli_scores sc = scores_of(o, s);
    const cli_ranked_sets rk = {s->set_agg, s->set_counted, s->best, s->n_best};
    if (o->json) {
        json_t *j = cli_report_json(&s->call.report, &s->times, s->rt, s->descs, s->n_outputs);
        if (o->score != NULL)
            json_object_set_new(j, "scores",
                                o->agg != CLI_AGG_LINES
                                    ? cli_scores_sets_json(&sc, &rk, s->descs[0].file)
                                    : cli_scores_json(&sc, s->best, s->n_best, s->descs[0].file));
        if (o->positions_set)
            json_object_set_new(j, "positions", positions_json(o));
        if (o->walk_forward != NULL)
            json_object_set_new(j, "walk_forward", cli_walk_forward_json(o, s));
        const int rc = cli_json_print(j);
        json_decref(j);
        return rc;
    }
    cli_report_print(stdout, &s->call.report, &s->times);
    if (o->score != NULL && o->agg != CLI_AGG_LINES)
        cli_scores_print_best_sets(stdout, &sc, &rk);
    else if (o->score != NULL)
        cli_scores_print_best(stdout, &sc, s->best, s->n_best);
    cli_walk_forward_print(stdout, o, s);
    if (o->positions_set)
        printf("\npositions of set %zu: %s\n", o->positions, cli_output_files_path(1));
    if (fflush(stdout) != 0) {
        cli_error("cannot write to standard output");
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* Appends the piece just run to the raw output files, so that the outputs of one piece are
 * all that a sweep holds in memory. */
static int append_piece(run_state *s, const call *k) {
    char err[1024];
    const double t0 = cli_now_s();
    for (size_t i = 0; i < s->n_outputs; i++) {
        const size_t set_rows = k->out_rows[i] / s->piece_sets;
        if (cli_output_files_append(i, k->output_data[i],
                                    s->sweep.n_sets_run * set_rows * k->out_cols[i], err,
                                    sizeof err) != 0) {
            cli_error("%s (no output file was changed)", err);
            return CLI_EXIT_FAILURE;
        }
    }
    s->times.write_output_ms += (cli_now_s() - t0) * 1e3;
    return CLI_EXIT_OK;
}

static int run(cli_run_options *o, run_state *s) {
    int rc = cli_runtime_create_learning(o->devices,
                                         o->no_learn ? APO_SWITCH_OFF : APO_SWITCH_UNSET, &s->rt);
    if (rc != CLI_EXIT_OK)
        return rc;
    apo_kernel_info info = {.size = sizeof(apo_kernel_info)};
    apo_status st = apo_kernel_get(s->rt, o->kernel, &info);
    if (st == APO_ERR_UNKNOWN_KERNEL)
        return cli_unknown_kernel_error(s->rt, o->kernel, st, "--kernel");
    if (st != APO_OK)
        return cli_status_error(st, "--kernel");
    /* From here the kernel's own spelling, whatever case --kernel gave it in (docs/cli.md):
     * the outputs' headers, the report and the messages name it as `apportion kernels` does.
     * info.name lives as long as the runtime. */
    o->kernel = info.name;
    if (info.n_outputs > APO_MAX_IO) {
        cli_error("kernel %s has %zu outputs (at most %d)", info.name, info.n_outputs, APO_MAX_IO);
        return CLI_EXIT_FAILURE;
    }
    /* A rule that is unknown or does not fit is refused before the input is read. */
    apo_kernel_info scored = info;
    if (o->score != NULL && (rc = cli_scores_kernel(s->rt, o, &scored)) != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_scores_plot_check(o)) != CLI_EXIT_OK)
        return rc;
    /* The input is read once the kernel is known: its inputs' names choose the columns. */
    double t0 = cli_now_s();
    rc = cli_run_load_input(o, &info, s);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* From here the call's outputs are the scored kernel's (its inputs are the indicator's). */
    info = scored;
    s->times.read_input_ms = (cli_now_s() - t0) * 1e3;
    /* After the input, so that a bad input's message stands alone. */
    if (!o->json)
        cli_print_runtime_warnings(s->rt);
    if ((rc = cli_run_set_aside_short(o, &info, s)) != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_run_ranges_resolve(o, s)) != CLI_EXIT_OK)
        return rc;
    rc = shape_outputs(o, &info, s);
    if (rc != CLI_EXIT_OK)
        return rc;

    double ratios[APO_MAX_DEVICES];
    size_t n_ratios = 0;
    if (o->ratios != NULL) {
        rc = cli_parse_ratios(s->rt, o->ratios, ratios, &n_ratios);
        if (rc != CLI_EXIT_OK)
            return rc;
    }

    /* The output files are opened before the work (docs/cli/run.md, "Output files"): a folder
     * that cannot be written, or a disk without room for raw outputs, costs no computing. */
    rc = open_outputs(o, s);
    if (rc != CLI_EXIT_OK)
        return rc;

    const int progress = cli_stderr_is_tty();
    t0 = cli_now_s();
    prepare_outputs(s);
    s->times.prepare_ms = (cli_now_s() - t0) * 1e3;
    call *k = &s->call;
    const size_t pieces = o->given.n_sweep > 0 ? s->pieces : 1;
    for (size_t piece = 0; piece < pieces; piece++) {
        if (o->given.n_sweep > 0) {
            s->sweep.first_set = piece * s->call_sets;
            const size_t left = o->given.sweep_sets - s->sweep.first_set;
            s->sweep.n_sets_run = left < s->call_sets ? left : s->call_sets;
        }
        /* The report shown is the first piece's; later pieces add their time. */
        apo_report later = {.size = sizeof(apo_report)};
        apo_report *report = piece == 0 ? &k->report : &later;
        const double *inputs[APO_MAX_IO];
        apo_workload w = call_workload(o, &info, s, k, inputs);
        double *scores_at[APO_MAX_IO];
        if (o->score != NULL && o->given.n_sweep > 0) {
            /* Every set's scores are held whole: this call writes its own sets' lines (a
             * set's are rows x ranges with --ranges). */
            const size_t per_set = k->rows * (s->n_ranges > 0 ? s->n_ranges : 1);
            for (size_t i = 0; i < info.n_outputs; i++)
                scores_at[i] = k->output_data[i] + s->sweep.first_set * per_set;
            w.outputs = scores_at;
        }
        if (n_ratios > 0) {
            w.ratios = ratios;
            w.n_ratios = n_ratios;
        }
        if (progress) {
            fprintf(stderr, "running %s on %zu x %zu...", o->kernel, k->rows, k->cols);
            fflush(stderr);
        }
        report->size = sizeof(apo_report);
        t0 = cli_now_s();
        st = apo_distribute_workload(s->rt, &w, report);
        s->times.compute_ms += (cli_now_s() - t0) * 1e3;
        if (progress) {
            fprintf(stderr, "\r%*s\r", 60, "");
            fflush(stderr);
        }
        if (st != APO_OK)
            return cli_status_error(st, "run failed");
        /* On stderr whatever the format, so that a script reading --json on stdout still
         * shows it to a person; --json carries it too. */
        char note[512];
        if (cli_nonfinite_warning(report, note, sizeof note))
            fprintf(stderr, "apportion: warning: %s\n", note);
        if (o->given.n_sweep > 0 && o->output != NULL && o->format == CLI_FORMAT_F64 &&
            o->score == NULL) {
            rc = append_piece(s, k);
            if (rc != CLI_EXIT_OK)
                return rc;
        }
    }

    if ((rc = cli_run_restore_short(o, s)) != CLI_EXIT_OK)
        return rc;
    if (o->score != NULL) {
        if ((rc = name_rows(o, s)) != CLI_EXIT_OK)
            return rc;
        if (s->n_ranges > 0 && (rc = cli_run_ranges_name_lines(s)) != CLI_EXIT_OK)
            return rc;
        const cli_scores sc = scores_of(o, s);
        if (o->agg != CLI_AGG_LINES) {
            long best_set;
            s->set_counted = malloc(sc.sets * sizeof *s->set_counted);
            if (s->set_counted == NULL ||
                (s->set_agg = cli_scores_set_aggregates(&sc, s->set_counted, &best_set)) == NULL ||
                (s->best = cli_scores_best_sets(&sc, s->set_agg, &s->n_best)) == NULL)
                return out_of_memory();
        } else if ((s->best = cli_scores_best(&sc, &s->n_best)) == NULL) {
            return out_of_memory();
        }
    }
    if (o->output != NULL) {
        rc = write_outputs(o, s);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (o->plot != NULL) {
        char err[1024];
        const cli_scores sc = scores_of(o, s);
        if (cli_scores_plot(&sc, err, sizeof err) != 0) {
            cli_error("%s", err);
            return CLI_EXIT_FAILURE;
        }
    }
    return print_report(o, s);
}

/* The models this run refined are written now rather than by apo_runtime_destroy(), which
 * cannot say that the write failed: a full disk under the profile folder would lose them
 * without a word. The outputs are complete by then, so a failure here is a warning that says
 * so, and the run still succeeds: the job's work is done, and a scheduled job must not fail
 * run after run for a model it can learn again (docs/cli.md, "Exit status and messages"). */
static void store_what_was_learned(apo_runtime *rt) {
    if (rt == NULL || apo_profile_save(rt) == APO_OK)
        return;
    fprintf(stderr,
            "apportion: warning: the run is complete, but what it learned could not be stored: "
            "%s; the profile files are as they were before the run (free space in the profile "
            "folder, or run with --no-learn)\n",
            apo_last_error());
}

int cli_cmd_run(int argc, char **argv) {
    cli_run_options o;
    cli_run_options_init(&o);
    int help = 0;
    int rc = cli_run_parse_options(argc, argv, &o, &help);
    if (rc == CLI_EXIT_OK && help) {
        for (const char *const *part = cli_run_help; *part != NULL; part++)
            fputs(*part, stdout);
    } else if (rc == CLI_EXIT_OK) {
        run_state s;
        memset(&s, 0, sizeof s);
        rc = run(&o, &s);
        /* With --json the warnings belong in the report; a failed run has none, so they go
         * to stderr rather than being lost. */
        if (rc != CLI_EXIT_OK && o.json)
            cli_print_runtime_warnings(s.rt);
        if (rc == CLI_EXIT_OK)
            store_what_was_learned(s.rt);
        free_state(&s);
    }
    cli_run_options_free(&o);
    return rc;
}

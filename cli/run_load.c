/*
 * The input of `apportion run` as the rows of one call (run_state.h): the generated walk, a
 * raw file, or CSV columns and groups as named series, each series one row (a ragged call
 * when their lengths differ).
 */
#include "run_state.h"

#include "cli.h"
#include "input.h"
#include "random_walk.h"
#include "record_order.h"
#include "run_inputs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROWS 1
#define DEFAULT_COLS 100000

static int out_of_memory(void) {
    cli_error("out of memory");
    return CLI_EXIT_FAILURE;
}

/* The input as one call of rows x cols, without named series (generated, raw, or one CSV
 * column cut into --rows series). */
static int single_call(run_state *s, double *data, size_t rows, size_t cols) {
    s->call.inputs[0] = data;
    s->call.n_inputs = 1;
    s->call.rows = rows;
    s->call.cols = cols;
    return CLI_EXIT_OK;
}

/* The series of the table: one per value column, or one per group in order of first
 * appearance. */
static int make_series(run_state *s, size_t n_inputs) {
    const apo_csv_table *t = &s->table;
    if (t->group == NULL) {
        /* One input: a series a column. Several: the columns are one series's inputs. */
        const size_t n = n_inputs > 1 ? 1 : t->n_columns;
        s->series = calloc(n, sizeof *s->series);
        if (s->series == NULL)
            return out_of_memory();
        for (size_t j = 0; j < n; j++) {
            series *x = &s->series[s->n_series++];
            x->name = t->column_names[j];
            x->length = t->n_records;
            for (size_t i = 0; i < n_inputs; i++) {
                const size_t c = n_inputs > 1 ? i : j;
                x->values[i] = malloc(t->n_records * sizeof(double));
                if (x->values[i] == NULL)
                    return out_of_memory();
                memcpy(x->values[i], t->values[c], t->n_records * sizeof(double));
            }
            if (t->index != NULL) {
                x->index = malloc(t->n_records * sizeof *x->index);
                if (x->index == NULL)
                    return out_of_memory();
                for (size_t r = 0; r < t->n_records; r++)
                    x->index[r] = t->index[r];
            }
        }
        return CLI_EXIT_OK;
    }
    /* Group of each record; groups are few against records, and the last one found is
     * tried first, since a long-format file keeps a ticker's records together. */
    size_t *group_of = malloc(t->n_records * sizeof *group_of);
    size_t *count = calloc(t->n_records, sizeof *count);
    const char **keys = malloc(t->n_records * sizeof *keys);
    if (group_of == NULL || count == NULL || keys == NULL) {
        free(group_of), free(count), free(keys);
        return out_of_memory();
    }
    size_t n_groups = 0, last = 0;
    for (size_t r = 0; r < t->n_records; r++) {
        size_t g = n_groups;
        if (n_groups > 0 && strcmp(keys[last], t->group[r]) == 0)
            g = last;
        for (size_t k = 0; g == n_groups && k < n_groups; k++)
            if (strcmp(keys[k], t->group[r]) == 0)
                g = k;
        if (g == n_groups)
            keys[n_groups++] = t->group[r];
        group_of[r] = g;
        count[g]++;
        last = g;
    }
    int rc = CLI_EXIT_OK;
    s->series = calloc(n_groups, sizeof *s->series);
    if (s->series == NULL)
        rc = out_of_memory();
    for (size_t g = 0; rc == CLI_EXIT_OK && g < n_groups; g++) {
        series *x = &s->series[s->n_series++];
        x->name = keys[g];
        for (size_t i = 0; i < n_inputs; i++)
            if ((x->values[i] = malloc(count[g] * sizeof(double))) == NULL)
                rc = out_of_memory();
        if (t->index != NULL)
            x->index = malloc(count[g] * sizeof *x->index);
        if (rc == CLI_EXIT_OK && t->index != NULL && x->index == NULL)
            rc = out_of_memory();
    }
    for (size_t r = 0; rc == CLI_EXIT_OK && r < t->n_records; r++) {
        series *x = &s->series[group_of[r]];
        if (x->index != NULL)
            x->index[x->length] = t->index[r];
        for (size_t i = 0; i < n_inputs; i++)
            x->values[i][x->length] = t->values[i][r];
        x->length++;
    }
    free(group_of), free(count), free(keys);
    return rc;
}

/* The series as the rows of one call, in order: rows of one length, or of several as a
 * ragged call (each row padded with NaN to the longest), so that every series is computed
 * as it would be alone (docs/api.md, "Ragged rows"). */
static int make_call(run_state *s, size_t n_inputs) {
    call *k = &s->call;
    k->n_inputs = n_inputs;
    k->rows = s->n_series;
    k->cols = 0;
    int ragged = 0;
    for (size_t j = 0; j < s->n_series; j++) {
        if (s->series[j].length > k->cols)
            k->cols = s->series[j].length;
        ragged |= s->series[j].length != s->series[0].length;
    }
    if (k->rows == 0 || k->cols > SIZE_MAX / sizeof(double) / k->rows)
        return out_of_memory();
    for (size_t i = 0; i < n_inputs; i++)
        if ((k->inputs[i] = malloc(k->rows * k->cols * sizeof(double))) == NULL)
            return out_of_memory();
    if (ragged) {
        k->lengths = malloc(k->rows * sizeof *k->lengths);
        if (k->lengths == NULL)
            return out_of_memory();
    }
    for (size_t r = 0; r < k->rows; r++) {
        const series *x = &s->series[r];
        for (size_t i = 0; i < n_inputs; i++) {
            memcpy(k->inputs[i] + r * k->cols, x->values[i], x->length * sizeof(double));
            for (size_t t = x->length; t < k->cols; t++)
                k->inputs[i][r * k->cols + t] = NAN;
        }
        if (ragged)
            k->lengths[r] = x->length;
    }
    return CLI_EXIT_OK;
}

int cli_run_load_input(const cli_run_options *o, const apo_kernel_info *info, run_state *s) {
    char err[1024];
    const int named_inputs = info->n_inputs > 1 || o->input_map != NULL;
    if (o->input == NULL && !named_inputs) {
        const size_t rows = o->rows_set ? o->rows : DEFAULT_ROWS;
        const size_t cols = o->cols_set ? o->cols : DEFAULT_COLS;
        if (cols > SIZE_MAX / sizeof(double) / rows)
            return cli_usage_error("run", "--rows %zu x --cols %zu is too large", rows, cols);
        double *data = malloc(rows * cols * sizeof *data);
        if (data == NULL) {
            cli_error("out of memory for %zu x %zu values", rows, cols);
            return CLI_EXIT_FAILURE;
        }
        apo__random_walk(data, rows, cols, o->seed);
        return single_call(s, data, rows, cols);
    }
    const int csv =
        o->input != NULL && cli_format_is_table(cli_input_format(o->input, o->input_format));
    cli_input_columns in_cols = {0};
    if (named_inputs) {
        const int rc = cli_run_input_columns(o, info, csv, &in_cols);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    const char *csv_only = o->group_by != NULL                           ? "--group-by"
                           : o->index_column != NULL                     ? "--index-column"
                           : o->column != NULL && strchr(o->column, ',') ? "a --column list"
                                                                         : NULL;
    if (!csv && csv_only != NULL) {
        cli_error("%s: %s applies to CSV or Parquet input only", o->input, csv_only);
        return CLI_EXIT_USAGE;
    }
    /* Raw input, and one CSV column cut into --rows series: the values alone, as before. */
    if (!named_inputs && (!csv || o->rows_set)) {
        if (o->rows_set && o->index_column != NULL)
            return cli_usage_error("run", "--index-column cannot be combined with --rows");
        size_t count = 0;
        double *data = NULL;
        const size_t want_rows = o->rows_set ? o->rows : 0;
        if (cli_read_input(o->input, o->input_format, o->column, want_rows,
                           o->missing_as_nan ? APO_CSV_MISSING_AS_NAN : 0, &data, &count, err,
                           sizeof err) != 0) {
            cli_error("%s", err);
            return CLI_EXIT_USAGE;
        }
        const size_t rows = o->rows_set ? o->rows : 1;
        return single_call(s, data, rows, count / rows);
    }
    char *storage = NULL;
    const char **names = NULL;
    size_t n_names = 0;
    int rc = CLI_EXIT_OK;
    /* The kernel's volume is refused negative where it is read, with its line and field, as
     * other bad cells are (docs/kernels.md, "Negative volume"). */
    unsigned char volume[CLI_INPUTS_MAX] = {0};
    if (named_inputs) {
        names = (const char **)in_cols.names;
        n_names = in_cols.n;
        for (size_t i = 0; i < n_names; i++)
            volume[i] = strcmp(info->input_names[i], "volume") == 0;
    } else if (o->column != NULL) {
        rc = cli_split_columns(o->column, &storage, &names, &n_names);
    }
    if (rc == CLI_EXIT_OK) {
        apo_csv_request req = {.columns = names,
                               .n_columns = n_names,
                               .index_column = o->index_column,
                               .index_auto = 1,
                               .group_column = o->group_by,
                               .flags = o->missing_as_nan ? APO_CSV_MISSING_AS_NAN : 0,
                               .non_negative = named_inputs ? volume : NULL};
        if (cli_read_csv_table(o->input, o->input_format, &req, &s->table, err, sizeof err) != 0) {
            cli_input_read_error(err, info, named_inputs ? &in_cols : NULL);
            rc = CLI_EXIT_USAGE;
        } else if (!o->keep_file_order &&
                   cli_order_records(&s->table, cli_input_name(o->input), err, sizeof err) != 0) {
            cli_error("%s", err);
            rc = CLI_EXIT_USAGE;
        }
    }
    free(storage);
    if (!named_inputs)
        free(names);
    cli_input_columns_free(&in_cols);
    if (rc != CLI_EXIT_OK)
        return rc;
    const size_t n_inputs = named_inputs ? info->n_inputs : 1;
    rc = make_series(s, n_inputs);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* One series without a group and without an index: the plain layout, as before. */
    if (s->n_series == 1 && s->table.group == NULL && s->table.index == NULL) {
        const size_t n = s->series[0].length;
        single_call(s, s->series[0].values[0], 1, n);
        for (size_t i = 0; i < n_inputs; i++) {
            s->call.inputs[i] = s->series[0].values[i];
            s->series[0].values[i] = NULL;
        }
        s->call.n_inputs = n_inputs;
        free(s->series);
        s->series = NULL;
        s->n_series = 0;
        return CLI_EXIT_OK;
    }
    return make_call(s, n_inputs);
}

void cli_run_free_input(run_state *s) {
    for (size_t i = 0; i < APO_MAX_IO; i++)
        free(s->call.inputs[i]);
    free(s->call.lengths);
    for (size_t j = 0; j < s->n_series; j++) {
        for (size_t i = 0; i < APO_MAX_IO; i++)
            free(s->series[j].values[i]);
        free(s->series[j].index);
    }
    free(s->series);
    apo__csv_table_free(&s->table);
}

/* The series read share one index when each has the same index texts: run_ranges.c looks a
 * range's dates up in it, and the outputs are written against it. */
int cli_run_index_shared(const run_state *s) {
    for (size_t j = 1; j < s->n_series; j++) {
        if (s->series[j].length != s->series[0].length)
            return 0;
        for (size_t r = 0; r < s->series[0].length; r++)
            if (strcmp(s->series[j].index[r], s->series[0].index[r]) != 0)
                return 0;
    }
    return 1;
}

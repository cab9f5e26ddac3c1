/* The positions of one set of a scored run; see run_positions.h. */
#include "run_positions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output_files.h"
#include "sweep_sets.h"

/* What the writer needs: the run, the set's parameters split into the indicator's (for the
 * plain call) and all (for the fold), and one series' arrays. */
typedef struct positions_job {
    const cli_run_options *o;
    run_state *s;
    apo_kernel_info ind;
    apo_param all[CLI_RUN_MAX_PARAMS], own[CLI_RUN_MAX_PARAMS];
    size_t n_all, n_own;
    size_t close; /* the kernel's input the rule trades on */
    double *outs, *pos, *ret, *eq;
    char err[512];
} positions_job;

/* Whether `name` is one of the indicator's parameters. */
static int indicator_param(const apo_kernel_info *ind, const char *name) {
    for (size_t p = 0; p < ind->n_params; p++)
        if (strcmp(ind->param_names[p], name) == 0)
            return 1;
    return 0;
}

static void add_param(positions_job *j, const char *name, double value) {
    j->all[j->n_all++] = (apo_param){name, value};
    if (indicator_param(&j->ind, name))
        j->own[j->n_own++] = (apo_param){name, value};
}

/* The indicator of the set over row r alone (its own length): a series too short for it
 * (the library refuses the call, APO_ERR_BAD_PARAM) has no values, NaN, as the scored call
 * scores it with no bar. Returns 0, or -1 with the reason in j->err. */
static int indicator_of_row(positions_job *j, size_t r, size_t len) {
    const call *k = &j->s->call;
    const double *in[APO_MAX_IO];
    double *out[APO_MAX_IO];
    for (size_t i = 0; i < k->n_inputs; i++)
        in[i] = k->inputs[i] + r * k->cols;
    for (size_t i = 0; i < j->ind.n_outputs; i++)
        out[i] = j->outs + i * k->cols;
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = j->o->kernel;
    w.rows = 1;
    w.cols = len;
    w.inputs = in, w.n_inputs = k->n_inputs;
    w.outputs = out, w.n_outputs = j->ind.n_outputs;
    w.params = j->own, w.n_params = j->n_own;
    w.seed = j->o->seed;
    w.learn = APO_SWITCH_OFF; /* a side call: the models are the scored call's to learn */
    const apo_status st = apo_distribute_workload(j->s->rt, &w, NULL);
    if (st == APO_ERR_BAD_PARAM) {
        for (size_t i = 0; i < j->ind.n_outputs; i++)
            for (size_t t = 0; t < len; t++)
                out[i][t] = NAN;
        return 0;
    }
    if (st != APO_OK) {
        snprintf(j->err, sizeof j->err, "--positions: %s: %s", apo_status_name(st),
                 apo_last_error());
        return -1;
    }
    return 0;
}

/* The lines of one series. */
static int write_row(FILE *f, positions_job *j, size_t r) {
    const call *k = &j->s->call;
    const size_t len = k->lengths != NULL ? k->lengths[r] : k->cols;
    if (indicator_of_row(j, r, len) != 0)
        return -1;
    const double *close = k->inputs[j->close] + r * k->cols;
    const double *outs[APO_MAX_IO];
    for (size_t i = 0; i < j->ind.n_outputs; i++)
        outs[i] = j->outs + i * k->cols;
    const apo_status st =
        apo_score_positions(j->o->kernel, j->o->score, close, outs, j->ind.n_outputs, len, j->all,
                            j->n_all, j->pos, j->ret, j->eq, NULL);
    if (st != APO_OK) {
        snprintf(j->err, sizeof j->err, "--positions: %s", apo_last_error());
        return -1;
    }
    const series *x = j->s->n_series > 0 ? &j->s->series[r] : NULL;
    const int indexed = x != NULL && j->s->table.index != NULL && x->index != NULL;
    for (size_t t = 0; t < len; t++) {
        if (cli_output_put_text(f, j->s->row_names[r]) != 0 || fprintf(f, ",%zu,", t) < 0)
            return -1;
        if (indexed && (cli_output_put_text(f, x->index[t]) != 0 || fputc(',', f) == EOF))
            return -1;
        if (cli_output_put_number(f, close[t]) != 0 || fprintf(f, ",%.0f,", j->pos[t]) < 0 ||
            cli_output_put_number(f, j->ret[t]) != 0 || fputc(',', f) == EOF ||
            cli_output_put_number(f, j->eq[t]) != 0 || fputc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

static int write_positions_csv(FILE *f, void *ctx) {
    positions_job *j = ctx;
    const run_state *s = j->s;
    if (fputs("series,bar,", f) < 0)
        return -1;
    if (s->n_series > 0 && s->table.index != NULL &&
        (cli_output_put_text(f, s->table.index_name) != 0 || fputc(',', f) == EOF))
        return -1;
    if (fputs("close,position,return,equity\n", f) < 0)
        return -1;
    for (size_t r = 0; r < s->call.rows; r++)
        if (write_row(f, j, r) != 0)
            return -1;
    return 0;
}

int cli_run_write_positions(const cli_run_options *o, run_state *s, size_t i, char *err,
                            size_t err_size) {
    positions_job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    j->o = o;
    j->s = s;
    j->ind = (apo_kernel_info){.size = sizeof(apo_kernel_info)};
    if (apo_kernel_get(s->rt, o->kernel, &j->ind) != APO_OK) {
        snprintf(err, err_size, "--positions: %s", apo_last_error());
        free(j);
        return -1;
    }
    /* The rule trades on the input named close, else the first (docs/scores.md, "Rules"). */
    for (size_t n = 0; n < j->ind.n_inputs; n++)
        if (strcmp(j->ind.input_names[n], "close") == 0)
            j->close = n;
    for (size_t p = 0; p < o->given.n_params; p++)
        add_param(j, o->given.params[p].name, o->given.params[p].value);
    for (size_t q = 0; q < o->given.n_sweep; q++)
        add_param(j, o->given.sweep[q].name, cli_sweep_value(o, o->positions, q));
    const size_t cols = s->call.cols;
    j->outs = malloc((j->ind.n_outputs + 3) * cols * sizeof(double));
    int rc = -1;
    if (j->outs == NULL) {
        snprintf(err, err_size, "out of memory");
    } else {
        j->pos = j->outs + j->ind.n_outputs * cols;
        j->ret = j->pos + cols;
        j->eq = j->ret + cols;
        rc = cli_output_files_write_with(i, write_positions_csv, j, err, err_size);
        /* A failure of the library's is the reason, not the write that it stopped. */
        if (rc != 0 && j->err[0] != '\0')
            snprintf(err, err_size, "%s", j->err);
    }
    free(j->outs);
    free(j);
    return rc;
}

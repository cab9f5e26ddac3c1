/*
 * `apportion run` over several named series of different lengths (--group-by tickers): a
 * series too short for the kernel's warm-up (docs/cli/run.md, "Series shorter than the
 * warm-up") is set aside with a warning that names it, the others run as one ragged call,
 * and the set-aside series come back as NaN outputs of their own length.
 *
 * What counts as too short is the library's rule, asked through the public API: a series is
 * too short when a call of that series alone is refused with APO_ERR_BAD_PARAM
 * (apo_output_shape(), the same check apo_distribute_workload() makes; with a sweep, every
 * set is checked) while a call of a very long series with the same parameters is accepted;
 * macd's warm-up is the tool's own rule (cli_run_check_macd_warmup()). Python applies the
 * same rule the same way (python/apportion/runtime.py).
 */
#include "cli.h"
#include "run_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the series that tells a refusal of the parameters from a refusal of a
 * series' length: longer than any warm-up (a period is at most 1e5), and small enough that
 * the call's bytes, a sweep's sets of them included, still fit in size_t. */
#define PROBE_COLS ((size_t)1 << 32)

/* Whether the kernel refuses a call of one series of `len` samples (writing why); any
 * status other than APO_ERR_BAD_PARAM is not about the parameters against the length and
 * is left to the call to report. */
static int refuses_alone(const cli_run_options *o, const apo_kernel_info *info, apo_runtime *rt,
                         size_t len, char *why, size_t why_size) {
    const double needed = cli_run_macd_warmup(o, info);
    if ((double)len < needed) {
        cli_run_macd_warmup_text(needed, len, why, why_size);
        return 1;
    }
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = o->given.sweep;
    sweep.n_grid = o->given.n_sweep;
    sweep.n_sets_run = 1;
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = o->kernel;
    w.rows = 1;
    w.cols = len;
    w.n_inputs = info->n_inputs;
    w.n_outputs = info->n_outputs;
    w.params = o->given.params;
    w.n_params = o->given.n_params;
    w.split = o->split;
    w.sweep = o->given.n_sweep > 0 ? &sweep : NULL;
    size_t rows, cols;
    if (apo_output_shape(rt, &w, 0, &rows, &cols) != APO_ERR_BAD_PARAM)
        return 0;
    snprintf(why, why_size, "%s", apo_last_error());
    return 1;
}

/* Refuses a run whose every series is too short, naming the first: exit 2, as a single
 * series too short is refused. */
static int all_too_short(const run_state *s, const char *why) {
    cli_error("invalid workload: every series is too short for these parameters; %s (%zu "
              "samples): %s",
              s->series[0].name, s->series[0].length, why);
    return CLI_EXIT_USAGE;
}

int cli_run_set_aside_short(const cli_run_options *o, const apo_kernel_info *info, run_state *s) {
    call *k = &s->call;
    /* Series of one length are all too short or none is: the call says which. */
    if (o->score != NULL || k->lengths == NULL)
        return CLI_EXIT_OK;
    char why[512];
    if (refuses_alone(o, info, s->rt, PROBE_COLS, why, sizeof why))
        return CLI_EXIT_OK; /* the parameters themselves: the call's own message */
    s->short_series = calloc(s->n_series, sizeof *s->short_series);
    if (s->short_series == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (size_t r = 0; r < s->n_series; r++) {
        s->short_series[r] =
            (unsigned char)refuses_alone(o, info, s->rt, s->series[r].length, why, sizeof why);
        s->n_short += s->short_series[r];
    }
    if (s->n_short == s->n_series) {
        refuses_alone(o, info, s->rt, s->series[0].length, why, sizeof why);
        return all_too_short(s, why);
    }
    size_t kept = 0;
    for (size_t r = 0; r < s->n_series; r++) {
        const series *x = &s->series[r];
        if (s->short_series[r]) {
            refuses_alone(o, info, s->rt, x->length, why, sizeof why);
            fprintf(stderr,
                    "apportion: warning: series %s (%zu samples) is too short for these "
                    "parameters, so its outputs are NaN: %s\n",
                    x->name, x->length, why);
            continue;
        }
        /* The rows kept move up in place, each to the first free row (kept <= r). */
        for (size_t i = 0; i < k->n_inputs && kept < r; i++)
            memmove(k->inputs[i] + kept * k->cols, k->inputs[i] + r * k->cols,
                    k->cols * sizeof(double));
        k->lengths[kept++] = x->length;
    }
    /* The call stays ragged, as it was: the rows kept give the bits they give together
     * with the others (bootstrap's draws are each row's own in a ragged call). */
    k->rows = kept;
    return CLI_EXIT_OK;
}

int cli_run_restore_short(const cli_run_options *o, run_state *s) {
    call *k = &s->call;
    if (s->n_short == 0)
        return CLI_EXIT_OK;
    const size_t sets = o->given.n_sweep > 0 ? s->piece_sets : 1, kept = k->rows;
    size_t first_kept = 0;
    while (s->short_series[first_kept])
        first_kept++;
    for (size_t i = 0; i < s->n_outputs; i++) {
        cli_host_array all = {0};
        const size_t stride = k->out_cols[i];
        if (cli_host_array_alloc(&all, sets * s->n_series * stride) != 0) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        /* A set-aside series' own columns: its length for an output along the series (one
         * value a bar), else the kept series' (a statistic, whatever the length). */
        const size_t own_kept = k->own_cols[i][0];
        const int per_bar = own_kept == s->series[first_kept].length;
        size_t *own = realloc(k->own_cols[i], s->n_series * sizeof *own);
        if (own == NULL) {
            cli_host_array_free(&all);
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        k->own_cols[i] = own;
        for (size_t r = s->n_series, j = kept; r-- > 0;) {
            const size_t from = s->short_series[r] ? SIZE_MAX : --j;
            for (size_t set = 0; set < sets; set++) {
                double *dst = all.data + (set * s->n_series + r) * stride;
                if (from == SIZE_MAX)
                    for (size_t c = 0; c < stride; c++)
                        dst[c] = NAN;
                else
                    memcpy(dst, k->output_data[i] + (set * kept + from) * stride,
                           stride * sizeof(double));
            }
            own[r] = from == SIZE_MAX ? (per_bar ? s->series[r].length : own_kept) : own[from];
        }
        cli_host_array_free(&k->outputs[i]);
        k->outputs[i] = all;
        k->output_data[i] = all.data;
        k->out_rows[i] = sets * s->n_series;
    }
    for (size_t r = 0; r < s->n_series; r++)
        k->lengths[r] = s->series[r].length;
    k->rows = s->n_series;
    return CLI_EXIT_OK;
}

/*
 * The scores of a scored run (see scores_output.h and docs/cli/run.md, "Scores"): the ranking
 * of its lines (the lines --min-trades keeps), DIR/scores.csv, and the best lines in the text
 * and JSON reports, with the first columns and entries that the best sets' reports share.
 */
#include "scores_output.h"

#include "cli.h"
#include "json_report.h"
#include "output_files.h"
#include "sweep_sets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The plain views' names (apo_workload.score "RULE", "RULE/compound", "RULE/log"), then the
 * view "RULE/more"'s: cli_score_index numbers them 0 .. 2 * APO_N_SCORES - 1. */
static const char *const score_names[2 * APO_N_SCORES] = {
    [APO_SCORE_TOTAL] = "total",
    [APO_SCORE_MEAN] = "mean",
    [APO_SCORE_SD] = "sd",
    [APO_SCORE_SHARPE] = "sharpe",
    [APO_SCORE_MAX_DRAWDOWN] = "max_drawdown",
    [APO_SCORE_TRADES] = "trades",
    [APO_SCORE_EXPOSURE] = "exposure",
    [APO_SCORE_BARS] = "bars",
    [APO_N_SCORES + APO_MORE_SORTINO] = "sortino",
    [APO_N_SCORES + APO_MORE_CALMAR] = "calmar",
    [APO_N_SCORES + APO_MORE_CAGR] = "cagr",
    [APO_N_SCORES + APO_MORE_WIN_RATE] = "win_rate",
    [APO_N_SCORES + APO_MORE_PROFIT_FACTOR] = "profit_factor",
    [APO_N_SCORES + APO_MORE_AVG_TRADE] = "avg_trade",
    [APO_N_SCORES + APO_MORE_TURNOVER] = "turnover",
    [APO_N_SCORES + APO_MORE_ROUND_TRIPS] = "round_trips",
};

int cli_score_view_more(const char *score) {
    const char *slash = score != NULL ? strchr(score, '/') : NULL;
    return slash != NULL && strcmp(slash + 1, "more") == 0;
}

const char *cli_score_name_of(const char *score, int k) {
    return score_names[k + (cli_score_view_more(score) ? APO_N_SCORES : 0)];
}

const char *cli_score_name(const cli_run_options *o, int k) {
    return cli_score_name_of(o->score, k);
}

int cli_score_index(const char *name) {
    for (int k = 0; k < 2 * APO_N_SCORES; k++)
        if (strcmp(score_names[k], name) == 0)
            return k;
    return -1;
}

/* A spread and a loss are better small; a return, a ratio and the counts are shown largest
 * first (the most trades and the most exposure are what a reader scans for, and reads
 * against the returns beside them). The view of more has neither. */
int cli_score_smaller_first(const cli_run_options *o, int score) {
    return !cli_score_view_more(o->score) &&
           (score == APO_SCORE_SD || score == APO_SCORE_MAX_DRAWDOWN);
}

int cli_scores_kernel(apo_runtime *rt, const cli_run_options *o, apo_kernel_info *scored) {
    char name[256];
    snprintf(name, sizeof name, "%s:%s", o->kernel, o->score);
    *scored = (apo_kernel_info){.size = sizeof(apo_kernel_info)};
    if (apo_kernel_get(rt, name, scored) == APO_OK && scored->n_outputs == APO_N_SCORES)
        return CLI_EXIT_OK;
    /* The library says why a rule is unknown or does not fit, and which rules do, where it
     * resolves a scored workload: it checks the rule before the shape and the buffers. */
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = o->kernel;
    w.score = o->score;
    w.rows = 1;
    w.cols = 1;
    size_t rows = 0, cols = 0;
    const apo_status st = apo_output_shape(rt, &w, 0, &rows, &cols);
    if (st == APO_ERR_UNKNOWN_KERNEL || st == APO_ERR_INVALID_ARGUMENT)
        return cli_status_error(st, "--score");
    cli_error("--score %s: kernel %s has no such rule", o->score, o->kernel);
    return CLI_EXIT_USAGE;
}

int cli_scores_line_kept(const cli_scores *sc, size_t line) {
    /* The view of more has no `trades`; its trades are the round trips. */
    const int trades = cli_score_view_more(sc->o->score) ? APO_MORE_ROUND_TRIPS : APO_SCORE_TRADES;
    return sc->values[trades][line] >= (double)sc->o->min_trades;
}

/* Whether index a ranks before index b by values v: NaN after every number, equal values
 * in index order. */
static int ranks_before(const double *v, int smaller_first, size_t a, size_t b) {
    const int nan_a = isnan(v[a]), nan_b = isnan(v[b]);
    if (nan_a != nan_b)
        return nan_b;
    if (!nan_a && v[a] != v[b])
        return smaller_first ? v[a] < v[b] : v[a] > v[b];
    return a < b;
}

size_t *cli_scores_top(const cli_scores *sc, const double *v, size_t count, int lines, size_t *n) {
    const size_t keep = sc->o->top < count ? sc->o->top : count;
    size_t *best = malloc((keep > 0 ? keep : 1) * sizeof *best);
    *n = 0;
    if (best == NULL || keep == 0)
        return best;
    const int smaller_first = cli_score_smaller_first(sc->o, sc->o->by);
    /* One pass keeping the best `keep` sorted (insertion): top is small against the count,
     * and an index enters only when it ranks before the last kept. Indices are visited in
     * order, so a later equal one never displaces an earlier one. */
    for (size_t i = 0; i < count; i++) {
        if (lines && !cli_scores_line_kept(sc, i)) /* --min-trades: not ranked at all */
            continue;
        if (*n == keep && !ranks_before(v, smaller_first, i, best[keep - 1]))
            continue;
        size_t at = *n < keep ? (*n)++ : keep - 1;
        while (at > 0 && ranks_before(v, smaller_first, i, best[at - 1])) {
            best[at] = best[at - 1];
            at--;
        }
        best[at] = i;
    }
    return best;
}

size_t *cli_scores_best(const cli_scores *sc, size_t *n) {
    return cli_scores_top(sc, sc->values[sc->o->by], sc->sets * sc->rows, 1, n);
}

/* The lines of scores.csv: `set`, the swept parameters, `series`, every score. */
static int write_scores_csv(FILE *f, void *ctx) {
    const cli_scores *sc = ctx;
    const cli_run_options *o = sc->o;
    if (fputs("set", f) < 0)
        return -1;
    for (size_t q = 0; q < o->given.n_sweep; q++)
        if (fputc(',', f) == EOF || cli_output_put_text(f, o->given.sweep[q].name) != 0)
            return -1;
    if (fputs(",series", f) < 0)
        return -1;
    for (int k = 0; k < APO_N_SCORES; k++)
        if (fprintf(f, ",%s", cli_score_name(sc->o, k)) < 0)
            return -1;
    if (fputc('\n', f) == EOF)
        return -1;
    for (size_t set = 0; set < sc->sets; set++) {
        /* The values as sets.csv writes them: the shortest decimal that reads back. */
        char params[2048];
        size_t w = 0;
        params[0] = '\0';
        for (size_t q = 0; q < o->given.n_sweep && w < sizeof params; q++) {
            char num[32];
            cli_format_shortest(cli_sweep_value(o, set, q), num, sizeof num);
            const int m = snprintf(params + w, sizeof params - w, ",%s", num);
            w += m > 0 ? (size_t)m : 0;
        }
        for (size_t r = 0; r < sc->rows; r++) {
            const size_t line = set * sc->rows + r;
            if (fprintf(f, "%zu%s,", set, params) < 0 || cli_output_put_text(f, sc->series[r]) != 0)
                return -1;
            for (int k = 0; k < APO_N_SCORES; k++)
                if (fputc(',', f) == EOF || cli_output_put_number(f, sc->values[k][line]) != 0)
                    return -1;
            if (fputc('\n', f) == EOF)
                return -1;
        }
    }
    return 0;
}

int cli_scores_write_file(size_t i, const cli_scores *sc, char *err, size_t err_size) {
    return cli_output_files_write_with(i, write_scores_csv, (void *)sc, err, err_size);
}

void cli_scores_print_set_head(FILE *f, const cli_run_options *o) {
    fprintf(f, "%4s %6s", "rank", "set");
    for (size_t q = 0; q < o->given.n_sweep; q++)
        fprintf(f, " %12s", o->given.sweep[q].name);
}

void cli_scores_print_set_cells(FILE *f, const cli_run_options *o, size_t rank, size_t set) {
    fprintf(f, "%4zu %6zu", rank, set);
    for (size_t q = 0; q < o->given.n_sweep; q++) {
        char num[32];
        cli_format_shortest(cli_sweep_value(o, set, q), num, sizeof num);
        fprintf(f, " %12s", num);
    }
}

json_t *cli_scores_best_entry(const cli_run_options *o, size_t rank, size_t set) {
    json_t *x = json_object();
    json_object_set_new(x, "rank", cli_json_u64(rank));
    json_object_set_new(x, "set", cli_json_u64(set));
    json_t *params = json_object();
    for (size_t q = 0; q < o->given.n_sweep; q++)
        json_object_set_new(params, o->given.sweep[q].name,
                            cli_json_number(cli_sweep_value(o, set, q)));
    json_object_set_new(x, "params", params);
    return x;
}

void cli_scores_print_best(FILE *f, const cli_scores *sc, const size_t *best, size_t n) {
    const cli_run_options *o = sc->o;
    const int by = o->by;
    fprintf(f, "\nbest %zu of %zu (set and series) by %s, %s first, NaN last", n,
            sc->sets * sc->rows, cli_score_name(o, by),
            cli_score_smaller_first(o, by) ? "smallest" : "largest");
    if (o->min_trades_set)
        fprintf(f, ", lines with fewer than %zu trades left out", o->min_trades);
    fputs(":\n", f);
    cli_scores_print_set_head(f, o);
    fprintf(f, " %-12s", "series");
    for (int k = 0; k < APO_N_SCORES; k++)
        fprintf(f, " %13s", cli_score_name(sc->o, k));
    fputc('\n', f);
    for (size_t b = 0; b < n; b++) {
        const size_t line = best[b], set = line / sc->rows, r = line % sc->rows;
        cli_scores_print_set_cells(f, o, b + 1, set);
        char name[CLI_ESCAPED_MAX];
        fprintf(f, " %-12s", cli_escape(sc->series[r], name, sizeof name));
        /* Six digits to read by; scores.csv has every bit. */
        for (int k = 0; k < APO_N_SCORES; k++)
            fprintf(f, " %13.6g", sc->values[k][line]);
        fputc('\n', f);
    }
}

json_t *cli_scores_json(const cli_scores *sc, const size_t *best, size_t n, const char *file) {
    const cli_run_options *o = sc->o;
    json_t *j = json_object();
    json_object_set_new(j, "rule", cli_json_string(o->score));
    json_object_set_new(j, "by", json_string(cli_score_name(o, o->by)));
    json_object_set_new(
        j, "order", json_string(cli_score_smaller_first(o, o->by) ? "ascending" : "descending"));
    json_object_set_new(j, "lines", cli_json_u64(sc->sets * sc->rows));
    if (o->min_trades_set)
        json_object_set_new(j, "min_trades", cli_json_u64(o->min_trades));
    json_object_set_new(j, "file", file != NULL ? cli_json_string(file) : json_null());
    json_t *top = json_array();
    for (size_t b = 0; b < n; b++) {
        const size_t line = best[b], set = line / sc->rows, r = line % sc->rows;
        json_t *x = cli_scores_best_entry(o, b + 1, set);
        json_object_set_new(x, "series", cli_json_string(sc->series[r]));
        json_t *scores = json_object();
        for (int k = 0; k < APO_N_SCORES; k++)
            json_object_set_new(scores, cli_score_name(sc->o, k),
                                cli_json_number(sc->values[k][line]));
        json_object_set_new(x, "scores", scores);
        json_array_append_new(top, x);
    }
    json_object_set_new(j, "best", top);
    return j;
}

/* Ranking sets over their series; see scores_rank.h. */
#include "scores_rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_report.h"
#include "sweep_sets.h"

int cli_scores_parse_agg(const char *text, int *agg, double *quantile, char *err, size_t err_size) {
    if (strcmp(text, "mean") == 0) {
        *agg = CLI_AGG_MEAN;
        return 0;
    }
    if (strcmp(text, "median") == 0) {
        *agg = CLI_AGG_MEDIAN;
        return 0;
    }
    double q;
    if (text[0] == 'q' && cli_parse_double(text + 1, &q) == 0) {
        if (!(q >= 0 && q <= 1)) {
            snprintf(err, err_size, "the quantile %s is outside 0 to 1", text + 1);
            return -1;
        }
        *agg = CLI_AGG_QUANTILE;
        *quantile = q;
        return 0;
    }
    snprintf(err, err_size,
             "unknown aggregate '%s' (mean, median, or qQ for the quantile Q from 0 to 1: q0.25)",
             text);
    return -1;
}

const char *cli_scores_agg_name(const cli_run_options *o, char *buf, size_t size) {
    if (o->agg == CLI_AGG_QUANTILE) {
        char num[32];
        cli_format_shortest(o->quantile, num, sizeof num);
        snprintf(buf, size, "q%s", num);
    } else {
        snprintf(buf, size, "%s", o->agg == CLI_AGG_MEDIAN ? "median" : "mean");
    }
    return buf;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The aggregate of the n finite values x (sorted here in place when it needs an order). */
static double aggregate(const cli_run_options *o, double *x, size_t n) {
    if (n == 0)
        return NAN;
    if (o->agg == CLI_AGG_MEAN || o->agg == CLI_AGG_LINES) {
        double sum = 0; /* in series order, so every run adds the same values alike */
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        return sum / (double)n;
    }
    qsort(x, n, sizeof *x, by_value);
    if (o->agg == CLI_AGG_MEDIAN)
        return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    const double h = o->quantile * (double)(n - 1);
    const size_t i = (size_t)floor(h);
    const double f = h - (double)i;
    return i + 1 < n && f > 0 ? x[i] + f * (x[i + 1] - x[i]) : x[i];
}

double *cli_scores_set_aggregates(const cli_scores *sc, size_t *counted, long *best_set) {
    double *agg = malloc((sc->sets > 0 ? sc->sets : 1) * sizeof *agg);
    double *x = malloc((sc->rows > 0 ? sc->rows : 1) * sizeof *x);
    if (agg == NULL || x == NULL) {
        free(agg), free(x);
        return NULL;
    }
    const int by = sc->o->by;
    const int smaller = cli_score_smaller_first(sc->o, by);
    *best_set = -1;
    for (size_t s = 0; s < sc->sets; s++) {
        size_t n = 0;
        for (size_t r = 0; r < sc->rows; r++) {
            const size_t line = s * sc->rows + r;
            const double v = sc->values[by][line];
            if (isfinite(v) && cli_scores_line_kept(sc, line))
                x[n++] = v;
        }
        agg[s] = aggregate(sc->o, x, n);
        if (counted != NULL)
            counted[s] = n;
        if (!isnan(agg[s]) &&
            (*best_set < 0 || (smaller ? agg[s] < agg[*best_set] : agg[s] > agg[*best_set])))
            *best_set = (long)s;
    }
    free(x);
    return agg;
}

size_t *cli_scores_best_sets(const cli_scores *sc, const double *agg, size_t *n) {
    return cli_scores_top(sc, agg, sc->sets, 0, n);
}

void cli_scores_print_best_sets(FILE *f, const cli_scores *sc, const cli_ranked_sets *rk) {
    const cli_run_options *o = sc->o;
    char agg[48], head[96];
    cli_scores_agg_name(o, agg, sizeof agg);
    snprintf(head, sizeof head, "%s:%s", cli_score_name(o, o->by), agg);
    fprintf(f, "\nbest %zu of %zu sets by %s over %zu series, %s first, NaN last", rk->n_best,
            sc->sets, head, sc->rows, cli_score_smaller_first(o, o->by) ? "smallest" : "largest");
    if (o->min_trades_set)
        fprintf(f, ", series with fewer than %zu trades left out", o->min_trades);
    fputs(":\n", f);
    cli_scores_print_set_head(f, o);
    fprintf(f, " %18s %7s\n", head, "series");
    for (size_t b = 0; b < rk->n_best; b++) {
        const size_t set = rk->best[b];
        cli_scores_print_set_cells(f, o, b + 1, set);
        fprintf(f, " %18.6g %7zu\n", rk->agg[set], rk->counted[set]);
    }
}

json_t *cli_scores_sets_json(const cli_scores *sc, const cli_ranked_sets *rk, const char *file) {
    const cli_run_options *o = sc->o;
    char agg[48];
    json_t *j = json_object();
    json_object_set_new(j, "rule", cli_json_string(o->score));
    json_object_set_new(j, "by", json_string(cli_score_name(o, o->by)));
    json_object_set_new(j, "agg", json_string(cli_scores_agg_name(o, agg, sizeof agg)));
    json_object_set_new(
        j, "order", json_string(cli_score_smaller_first(o, o->by) ? "ascending" : "descending"));
    json_object_set_new(j, "lines", cli_json_u64(sc->sets * sc->rows));
    json_object_set_new(j, "sets", cli_json_u64(sc->sets));
    if (o->min_trades_set)
        json_object_set_new(j, "min_trades", cli_json_u64(o->min_trades));
    json_object_set_new(j, "file", file != NULL ? cli_json_string(file) : json_null());
    json_t *top = json_array();
    for (size_t b = 0; b < rk->n_best; b++) {
        const size_t set = rk->best[b];
        json_t *x = cli_scores_best_entry(o, b + 1, set);
        json_object_set_new(x, "value", cli_json_number(rk->agg[set]));
        json_object_set_new(x, "series", cli_json_u64(rk->counted[set]));
        json_array_append_new(top, x);
    }
    json_object_set_new(j, "best", top);
    return j;
}

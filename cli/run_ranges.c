/*
 * A scored run's ranges and walk-forward; see run_ranges.h.
 */
#include "run_ranges.h"

#include "cli.h"
#include "json_report.h"
#include "scores_output.h"
#include "sweep_sets.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether text is a bar number (digits only). */
static int is_bar(const char *t, size_t n) {
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)t[i]))
            return 0;
    return 1;
}

/* The index every series shares, or NULL (with the reason) when dates cannot be read. */
static const char **shared_index(const run_state *s, size_t *n, const char **why) {
    *why = NULL;
    if (s->n_series == 0 || s->series[0].index == NULL) {
        *why = "the input has no index column of dates";
        return NULL;
    }
    if (!cli_run_index_shared(s)) {
        *why = "the series have different dates (a range would be other bars in each)";
        return NULL;
    }
    const char **index = s->series[0].index;
    *n = s->series[0].length;
    for (size_t t = 1; t < *n; t++)
        if (strcmp(index[t - 1], index[t]) > 0) {
            *why = "the index is not in order";
            return NULL;
        }
    return index;
}

/* Bar `text` (n bytes): a number, or the first bar of the index at or after the date (the
 * last at or before it, plus one, for an end: both ends are included). */
static int bar_of(const run_state *s, const char *text, size_t n, int end, size_t *bar) {
    if (is_bar(text, n)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < 31 ? n : 31), text);
        return cli_parse_size(buf, bar);
    }
    size_t len;
    const char *why;
    const char **index = shared_index(s, &len, &why);
    if (index == NULL) {
        cli_usage_error("run", "--ranges: '%.*s' is a date, but %s; give bar numbers", (int)n, text,
                        why);
        return -2;
    }
    size_t t = 0;
    if (!end)
        while (t < len && strncmp(index[t], text, n) < 0)
            t++;
    else
        while (t < len && strncmp(index[t], text, n) <= 0)
            t++;
    *bar = t;
    return 0;
}

/* Reads --ranges: A:B (or A..B, for dates that hold a ':') separated by commas. */
static int parse_ranges(const cli_run_options *o, run_state *s) {
    size_t cap = 1;
    for (const char *c = o->ranges; *c; c++)
        cap += *c == ',';
    s->ranges = calloc(cap, sizeof *s->ranges);
    s->range_labels = calloc(cap, sizeof *s->range_labels);
    if (s->ranges == NULL || s->range_labels == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    const char *p = o->ranges;
    for (size_t i = 0; i < cap; i++) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        const char *dots = strstr(p, "..");
        const char *colon = memchr(p, ':', len);
        const char *sep = dots != NULL && dots < p + len ? dots : colon;
        const size_t skip = sep == dots ? 2 : 1;
        if (sep == NULL || (sep == colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - p))))
            return cli_usage_error("run",
                                   "--ranges '%.*s': expected A:B (bars [A, B), or dates A..B "
                                   "with both included)",
                                   (int)len, p);
        const size_t na = (size_t)(sep - p), nb = len - na - skip;
        size_t a, b;
        int rc = bar_of(s, p, na, 0, &a);
        if (rc == 0)
            rc = bar_of(s, sep + skip, nb, !is_bar(sep + skip, nb), &b);
        if (rc == -2)
            return CLI_EXIT_USAGE;
        if (rc != 0)
            return cli_usage_error("run", "--ranges '%.*s': a bar number is too large", (int)len,
                                   p);
        s->ranges[i] = (apo_range){a, b};
        snprintf(s->range_labels[i], sizeof s->range_labels[i], "%.*s:%.*s", (int)na, p, (int)nb,
                 sep + skip);
        p += len + 1;
    }
    s->n_ranges = cap;
    return CLI_EXIT_OK;
}

/* Reads --walk-forward TRAIN:TEST[:anchored|:fixed] and makes its windows. */
static int walk_forward(const cli_run_options *o, run_state *s) {
    char train_t[32] = "", test_t[32] = "", kind[16] = "fixed";
    size_t train, test;
    const int got = sscanf(o->walk_forward, "%31[0-9]:%31[0-9]:%15s", train_t, test_t, kind);
    if (got < 2 || cli_parse_size(train_t, &train) != 0 || cli_parse_size(test_t, &test) != 0 ||
        (strcmp(kind, "anchored") != 0 && strcmp(kind, "fixed") != 0))
        return cli_usage_error("run",
                               "--walk-forward '%s': expected TRAIN:TEST bars, then :anchored "
                               "(train from bar 0) or :fixed (the default)",
                               o->walk_forward);
    enum { CAP = APO_MAX_SCORE_RANGES / 2 };
    s->ranges = calloc(2 * CAP, sizeof *s->ranges);
    s->range_labels = calloc(2 * CAP, sizeof *s->range_labels);
    s->wf_train_of = calloc(CAP, sizeof *s->wf_train_of);
    s->wf_test_of = calloc(CAP, sizeof *s->wf_test_of);
    if (s->ranges == NULL || s->range_labels == NULL || s->wf_train_of == NULL ||
        s->wf_test_of == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    apo_status st =
        apo_walk_forward(s->call.cols, train, test, strcmp(kind, "anchored") == 0, CAP, s->ranges,
                         &s->n_ranges, s->wf_train_of, s->wf_test_of, &s->n_windows);
    if (st != APO_OK)
        return cli_usage_error("run", "--walk-forward '%s': %s", o->walk_forward, apo_last_error());
    for (size_t i = 0; i < s->n_ranges; i++)
        snprintf(s->range_labels[i], sizeof s->range_labels[i], "%zu:%zu", s->ranges[i].begin,
                 s->ranges[i].end);
    return CLI_EXIT_OK;
}

int cli_run_ranges_resolve(const cli_run_options *o, run_state *s) {
    if (o->ranges != NULL)
        return parse_ranges(o, s);
    if (o->walk_forward != NULL)
        return walk_forward(o, s);
    return CLI_EXIT_OK;
}

int cli_run_ranges_name_lines(run_state *s) {
    const size_t rows = s->call.rows, n = rows * s->n_ranges;
    enum { NAME_CAP = 256 };
    s->line_names = calloc(n, sizeof *s->line_names);
    s->line_text = calloc(n, NAME_CAP);
    if (s->line_names == NULL || s->line_text == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < s->n_ranges; i++) {
            char *t = s->line_text + (r * s->n_ranges + i) * NAME_CAP;
            snprintf(t, NAME_CAP, "%s[%s]", s->row_names[r], s->range_labels[i]);
            s->line_names[r * s->n_ranges + i] = t;
        }
    return CLI_EXIT_OK;
}

/* Score k of set `set`, series r, range i. */
static double value(const run_state *s, int k, size_t set, size_t r, size_t i) {
    return s->call.output_data[k][(set * s->call.rows + r) * s->n_ranges + i];
}

/* The set whose --by score on range i of series r is best (NaN never; ties: the lower set;
 * with --min-trades, only sets with that many trades there), or SIZE_MAX when none is. */
static size_t winner(const cli_run_options *o, const run_state *s, size_t r, size_t i) {
    const int smaller = cli_score_smaller_first(o, o->by);
    /* The view of more has no `trades`; its trades are the round trips. */
    const int trades = cli_score_view_more(o->score) ? APO_MORE_ROUND_TRIPS : APO_SCORE_TRADES;
    size_t best = SIZE_MAX;
    for (size_t set = 0; set < o->given.sweep_sets; set++) {
        const double v = value(s, o->by, set, r, i);
        if (isnan(v) || value(s, trades, set, r, i) < (double)o->min_trades)
            continue;
        const double b = best == SIZE_MAX ? NAN : value(s, o->by, best, r, i);
        if (best == SIZE_MAX || (smaller ? v < b : v > b))
            best = set;
    }
    return best;
}

/* The stitched out-of-sample record of series r: the windows with a winner and, for the
 * views of the eight (the view of more has none of them), the sums of the winners' test
 * total, trades and bars. */
typedef struct wf_record {
    size_t won;
    int sums;
    double total, trades, bars;
} wf_record;

static wf_record record_of(const cli_run_options *o, const run_state *s, size_t r) {
    wf_record rec = {0, !cli_score_view_more(o->score), 0, 0, 0};
    for (size_t w = 0; w < s->n_windows; w++) {
        const size_t set = winner(o, s, r, s->wf_train_of[w]), te = s->wf_test_of[w];
        if (set == SIZE_MAX)
            continue;
        rec.won++;
        if (!rec.sums)
            continue;
        const double t = value(s, APO_SCORE_TOTAL, set, r, te);
        rec.total += isnan(t) ? 0 : t;
        rec.trades += value(s, APO_SCORE_TRADES, set, r, te);
        rec.bars += value(s, APO_SCORE_BARS, set, r, te);
    }
    return rec;
}

void cli_walk_forward_print(FILE *f, const cli_run_options *o, const run_state *s) {
    if (o->walk_forward == NULL)
        return;
    fprintf(f, "\nwalk-forward %s: %zu windows, winners by train %s, scored on their test:\n",
            o->walk_forward, s->n_windows, cli_score_name(o, o->by));
    fprintf(f, "%-12s %6s %15s %15s %6s %13s %13s\n", "series", "window", "train", "test", "set",
            "train", "test");
    for (size_t r = 0; r < s->call.rows; r++) {
        char name[CLI_ESCAPED_MAX];
        cli_escape(s->row_names[r], name, sizeof name);
        for (size_t w = 0; w < s->n_windows; w++) {
            const size_t tr = s->wf_train_of[w], te = s->wf_test_of[w];
            const size_t set = winner(o, s, r, tr);
            fprintf(f, "%-12s %6zu %15s %15s", name, w, s->range_labels[tr], s->range_labels[te]);
            if (set == SIZE_MAX)
                fprintf(f, " %6s %13s %13s\n", "-", "nan", "nan");
            else
                fprintf(f, " %6zu %13.6g %13.6g\n", set, value(s, o->by, set, r, tr),
                        value(s, o->by, set, r, te));
        }
        const wf_record rec = record_of(o, s, r);
        fprintf(f, "%-12s out-of-sample record: %zu windows", name, rec.won);
        if (rec.sums)
            fprintf(f, ", total %.6g, trades %.0f, bars %.0f", rec.total, rec.trades, rec.bars);
        fputc('\n', f);
    }
}

/* Window w of series r as the report's JSON has it. */
static json_t *window_json(const cli_run_options *o, const run_state *s, size_t r, size_t w) {
    const size_t tr = s->wf_train_of[w], te = s->wf_test_of[w];
    const size_t set = winner(o, s, r, tr);
    json_t *line = json_object(), *params = json_object(), *test = json_object();
    json_object_set_new(line, "series", cli_json_string(s->row_names[r]));
    json_object_set_new(line, "window", cli_json_u64(w));
    json_object_set_new(
        line, "train",
        json_pack("[II]", (json_int_t)s->ranges[tr].begin, (json_int_t)s->ranges[tr].end));
    json_object_set_new(
        line, "test",
        json_pack("[II]", (json_int_t)s->ranges[te].begin, (json_int_t)s->ranges[te].end));
    json_object_set_new(line, "set", set == SIZE_MAX ? json_null() : cli_json_u64(set));
    for (size_t q = 0; set != SIZE_MAX && q < o->given.n_sweep; q++)
        json_object_set_new(params, o->given.sweep[q].name,
                            cli_json_number(cli_sweep_value(o, set, q)));
    for (int k = 0; set != SIZE_MAX && k < APO_N_SCORES; k++)
        json_object_set_new(test, cli_score_name(o, k), cli_json_number(value(s, k, set, r, te)));
    json_object_set_new(line, "params", params);
    json_object_set_new(line, "train_score",
                        set == SIZE_MAX ? json_null()
                                        : cli_json_number(value(s, o->by, set, r, tr)));
    json_object_set_new(line, "test_scores", test);
    return line;
}

json_t *cli_walk_forward_json(const cli_run_options *o, const run_state *s) {
    if (o->walk_forward == NULL)
        return NULL;
    json_t *j = json_object(), *windows = json_array(), *record = json_array();
    json_object_set_new(j, "spec", cli_json_string(o->walk_forward));
    json_object_set_new(j, "by", json_string(cli_score_name(o, o->by)));
    for (size_t r = 0; r < s->call.rows; r++) {
        for (size_t w = 0; w < s->n_windows; w++)
            json_array_append_new(windows, window_json(o, s, r, w));
        const wf_record rec = record_of(o, s, r);
        json_t *line = json_object();
        json_object_set_new(line, "series", cli_json_string(s->row_names[r]));
        json_object_set_new(line, "windows", cli_json_u64(rec.won));
        if (rec.sums) {
            json_object_set_new(line, "total", cli_json_number(rec.total));
            json_object_set_new(line, "trades", cli_json_number(rec.trades));
            json_object_set_new(line, "bars", cli_json_number(rec.bars));
        }
        json_array_append_new(record, line);
    }
    json_object_set_new(j, "windows", windows);
    json_object_set_new(j, "record", record);
    return j;
}

void cli_run_ranges_free(run_state *s) {
    free(s->ranges);
    free(s->range_labels);
    free(s->line_names);
    free(s->line_text);
    free(s->wf_train_of);
    free(s->wf_test_of);
}

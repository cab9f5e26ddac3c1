/*
 * `apportion stream`: new bars fed to a stream kept in a state file (docs/cli/stream.md,
 * "apportion stream"; the library's streams are docs/streaming.md).
 *
 * One run: lock the state, read it (or start one), read the new rows, check their dates
 * against each series' last one, update the stream, write the outputs of the new bars, and
 * only then replace the state. A run killed at any point leaves the old state or the new
 * one, and the outputs of the old state's next bars or none, so running it again gives the
 * files of an uninterrupted run.
 */
#include "cli.h"
#include "le_bytes.h"
#include "options.h"
#include "output_files.h"
#include "record_order.h"
#include "run_state.h"
#include "scores_output.h"
#include "stream_state_file.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the library's state keeps the kernel's name and parameters, and where a sweep's
 * container keeps its sets' count and lengths (docs/streaming.md, "The state", "A sweep's
 * state"). */
#define STATE_KERNEL_AT 28
#define STATE_KERNEL_BYTES 32
#define STATE_PARAMS_AT 64
#define SWEEP_MAGIC "APOSWEP"
#define SWEEP_N_SETS_AT 16
#define SWEEP_LENGTHS_AT 32
/* A rule's container (docs/streaming.md, "A rule's state"): the scored kernel's name
 * "<kernel>:<rule>", the sets' count, and each set's parameters, APO_MAX_PARAMS doubles. */
#define RULE_MAGIC "APORULE"
#define RULE_SCORED_AT 24
#define RULE_N_SETS_AT 56
#define RULE_PARAMS_AT 72
/* The most outputs a stream writes: a rule's APO_LIVE_N_OUTPUTS, more than a kernel's. */
#define MAX_OUTPUTS (APO_LIVE_N_OUTPUTS > APO_MAX_IO ? APO_LIVE_N_OUTPUTS : APO_MAX_IO)
/* A set's column label, "name=value ...": room for every parameter's name and value. */
#define SET_LABEL_BYTES (APO_MAX_PARAMS * 64)

/* One series of the new rows, read by the input reader of `run` (run_load.c). */
typedef struct new_series {
    const char *name;
    size_t length;
    const double *values[APO_MAX_IO];
    const char **index; /* length texts, or NULL */
    size_t state_row;   /* the stream's series it feeds */
    size_t first;       /* rows before it are old rows skipped (--old-rows skip) */
} new_series;

typedef struct stream_job {
    apo_runtime *rt;
    apo_stream *stream;
    apo_kernel_info info;
    char kernel[STATE_KERNEL_BYTES + 1];
    /* --score, or the state's rule: the stream follows the scored kernel "<kernel>:<rule>",
     * whose parameters (`scored`) name a sweep's sets; empty without a rule. */
    char rule[STATE_KERNEL_BYTES + 1];
    apo_kernel_info scored;
    /* The outputs written a bar: the kernel's, or a rule's position, return, equity and
     * scores (docs/cli/stream.md, "Live rules"). */
    size_t n_out;
    const char *out_names[MAX_OUTPUTS];
    cli_stream_file file; /* the state as read, then as it will be written */
    int existed;
    run_state input;
    new_series *news;
    size_t n_news;
    char *numbers; /* the names "0", "1", ... of series without one */
    const char *index_name;
    /* The update: per stream series its new bars, the bars before them, and where its
     * values start in the packed arrays. */
    size_t *n_new;
    uint64_t *bars_before;
    size_t *packed_at;
    size_t total;
    double *in[APO_MAX_IO], *out[MAX_OUTPUTS];
    /* A sweep's sets (1 and no labels without one): output k holds them set after set. */
    size_t n_sets;
    char *labels; /* n_sets labels of SET_LABEL_BYTES, or NULL */
    int lock_fd;
} stream_job;

static int out_of_memory(void) {
    cli_error("out of memory");
    return CLI_EXIT_FAILURE;
}

static void free_job(stream_job *j) {
    cli_output_files_abort();
    for (size_t i = 0; i < APO_MAX_IO; i++)
        free(j->in[i]);
    for (size_t k = 0; k < MAX_OUTPUTS; k++)
        free(j->out[k]);
    free(j->n_new);
    free(j->bars_before);
    free(j->packed_at);
    free(j->news);
    free(j->numbers);
    free(j->labels);
    cli_run_free_input(&j->input);
    cli_stream_file_free(&j->file);
    apo_stream_destroy(j->stream);
    apo_runtime_destroy(j->rt);
    if (j->lock_fd >= 0)
        close(j->lock_fd);
}

/* ---- the state -------------------------------------------------------------------------- */

/* --kernel, when given, names the state's kernel, j->kernel (in any case: compared as the
 * library spells it, docs/cli.md). */
static int check_kernel_name(const cli_stream_options *o, stream_job *j) {
    apo_kernel_info given = APO_KERNEL_INFO_INIT;
    const char *name = o->kernel != NULL && apo_kernel_get(j->rt, o->kernel, &given) == APO_OK
                           ? given.name
                           : o->kernel;
    if (o->kernel != NULL && strcmp(name, j->kernel) != 0) {
        cli_error("%s is a stream of kernel %s, not %s (leave --kernel out, or start a new state)",
                  o->state, j->kernel, o->kernel);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* A rule's state: its scored kernel "<kernel>:<rule>" gives the kernel and the rule, which
 * --kernel and --score, when given, must name. */
static int read_rule_state(const cli_stream_options *o, stream_job *j) {
    char scored[STATE_KERNEL_BYTES + 1];
    memcpy(scored, j->file.stream + RULE_SCORED_AT, STATE_KERNEL_BYTES);
    scored[STATE_KERNEL_BYTES] = '\0';
    const char *colon = strchr(scored, ':');
    if (colon == NULL) {
        cli_error("%s: the rule's state names no rule (\"%s\")", o->state, scored);
        return CLI_EXIT_USAGE;
    }
    snprintf(j->kernel, sizeof j->kernel, "%.*s", (int)(colon - scored), scored);
    snprintf(j->rule, sizeof j->rule, "%s", colon + 1);
    if (o->score != NULL && strcmp(o->score, j->rule) != 0) {
        cli_error("%s is a stream of rule %s on %s, not %s (leave --score out, or start a new "
                  "state)",
                  o->state, j->rule, j->kernel, o->score);
        return CLI_EXIT_USAGE;
    }
    return check_kernel_name(o, j);
}

/* Reads the state file when it exists: the wrapper, and the kernel its stream is of. */
static int read_state(const cli_stream_options *o, stream_job *j) {
    char err[1024];
    unsigned char *buf = NULL;
    size_t len = 0;
    const int r = cli_stream_file_read(o->state, &buf, &len, err, sizeof err);
    if (r < 0) {
        cli_error("%s", err);
        return CLI_EXIT_FAILURE;
    }
    j->existed = r;
    if (r == 0)
        return CLI_EXIT_OK;
    const int bad = cli_stream_file_decode(buf, len, o->state, &j->file, err, sizeof err);
    free(buf);
    if (bad != 0) {
        cli_error("%s; nothing was computed (start again from history with a new --state, or "
                  "restore the file)",
                  err);
        return CLI_EXIT_USAGE;
    }
    /* A rule's container names its scored kernel, a sweep's first set the kernel; the library
     * checks the rest when it loads. */
    const unsigned char *first = j->file.stream;
    size_t first_len = j->file.stream_len;
    if (first_len >= RULE_SCORED_AT + STATE_KERNEL_BYTES && memcmp(first, RULE_MAGIC, 8) == 0)
        return read_rule_state(o, j);
    if (o->score != NULL) {
        cli_error("%s is a stream of an indicator, without a rule: --score %s needs a new "
                  "--state",
                  o->state, o->score);
        return CLI_EXIT_USAGE;
    }
    if (first_len >= SWEEP_LENGTHS_AT && memcmp(first, SWEEP_MAGIC, 8) == 0) {
        const uint64_t sets = apo__get_u64(first + SWEEP_N_SETS_AT);
        const size_t at = sets <= APO_MAX_SWEEP_SETS ? SWEEP_LENGTHS_AT + 8 * (size_t)sets : 0;
        first_len = at > 0 && at <= first_len ? first_len - at : 0;
        first += at;
    }
    if (first_len < STATE_KERNEL_AT + STATE_KERNEL_BYTES) {
        cli_error("%s: the library state inside is %zu bytes, too short to name its kernel",
                  o->state, j->file.stream_len);
        return CLI_EXIT_USAGE;
    }
    memcpy(j->kernel, first + STATE_KERNEL_AT, STATE_KERNEL_BYTES);
    j->kernel[STATE_KERNEL_BYTES] = '\0';
    return check_kernel_name(o, j);
}

/* The stream: loaded from the state, or a new one of --kernel over the input's series. */
static int open_stream(const cli_stream_options *o, stream_job *j) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = j->kernel;
    d.score = j->rule[0] != '\0' ? j->rule : NULL;
    d.params = o->given.params;
    d.n_params = o->given.n_params;
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = o->given.sweep;
    sweep.n_grid = o->given.n_sweep;
    d.sweep = o->given.n_sweep > 0 ? &sweep : NULL;
    apo_status st;
    if (!j->existed) {
        d.n_series = j->n_news;
        st = apo_stream_create(j->rt, &d, &j->stream);
        return st == APO_OK ? CLI_EXIT_OK : cli_status_error(st, "cannot start the stream");
    }
    /* --kernel or --param given: they must describe the state's stream exactly. */
    d.n_series = j->file.n_series;
    const int check = o->kernel != NULL || o->given.n_params > 0 || o->given.n_sweep > 0;
    st = apo_stream_load(j->rt, check ? &d : NULL, j->file.stream, j->file.stream_len, &j->stream);
    if (st != APO_OK) {
        char what[PATH_MAX + 64];
        snprintf(what, sizeof what, "%s: the state was refused", o->state);
        return cli_status_error(st, what);
    }
    return CLI_EXIT_OK;
}

/* The sweep's sets and their column labels, read from the stream's saved state: a state
 * keeps each set's parameters, not the grid they came from, so the labels are the
 * parameters whose values differ among the sets, in the kernel's order, `name=value`
 * joined by spaces as `run` names a sweep's columns; and so every run of one state names
 * its columns alike, whether the sweep was given on its command line or not. */
static int describe_sets(stream_job *j) {
    /* A loaded stream's state is in the file already; a new one's is small (no bars yet). */
    size_t len = j->file.stream_len;
    unsigned char *b = NULL;
    apo_status st = APO_OK;
    if (!j->existed) {
        st = apo_stream_save(j->stream, NULL, 0, &len);
        if (st == APO_OK && (b = malloc(len)) == NULL)
            return out_of_memory();
        if (st == APO_OK)
            st = apo_stream_save(j->stream, b, len, &len);
        if (st != APO_OK) {
            free(b);
            return cli_status_error(st, "cannot read the stream's sets");
        }
    }
    const unsigned char *state = j->existed ? j->file.stream : b;
    /* The library wrote it or loaded it, so its counts and lengths hold. A rule's sets are
     * named by the scored kernel's parameters (thresholds, cost, side), as `run` names them. */
    const int rule = j->rule[0] != '\0';
    const int sweep = !rule && len >= 8 && memcmp(state, SWEEP_MAGIC, 8) == 0;
    const apo_kernel_info *named = rule ? &j->scored : &j->info;
    j->n_sets = rule    ? (size_t)apo__get_u64(state + RULE_N_SETS_AT)
                : sweep ? (size_t)apo__get_u64(state + SWEEP_N_SETS_AT)
                        : 1;
    if (j->n_sets == 1) {
        free(b);
        return CLI_EXIT_OK;
    }
    double *values = calloc(j->n_sets * APO_MAX_PARAMS, sizeof *values);
    j->labels = calloc(j->n_sets, SET_LABEL_BYTES);
    if (values == NULL || j->labels == NULL) {
        free(values);
        free(b);
        return out_of_memory();
    }
    const unsigned char *set =
        rule ? state + RULE_PARAMS_AT : state + SWEEP_LENGTHS_AT + 8 * j->n_sets;
    for (size_t k = 0; k < j->n_sets; k++) {
        const unsigned char *at = rule ? set : set + STATE_PARAMS_AT;
        for (size_t p = 0; p < named->n_params; p++)
            values[k * APO_MAX_PARAMS + p] = apo__get_f64(at + 8 * p);
        set += rule ? 8 * APO_MAX_PARAMS : apo__get_u64(state + SWEEP_LENGTHS_AT + 8 * k);
    }
    free(b);
    for (size_t k = 0; k < j->n_sets; k++) {
        char *label = j->labels + k * SET_LABEL_BYTES;
        size_t w = 0;
        for (size_t p = 0; p < named->n_params && w < SET_LABEL_BYTES; p++) {
            int differs = 0;
            for (size_t q = 1; q < j->n_sets && !differs; q++)
                differs = memcmp(&values[q * APO_MAX_PARAMS + p], &values[p], sizeof(double));
            if (!differs)
                continue;
            char num[32];
            cli_format_shortest(values[k * APO_MAX_PARAMS + p], num, sizeof num);
            const int m = snprintf(label + w, SET_LABEL_BYTES - w, "%s%s=%s", w ? " " : "",
                                   named->param_names[p], num);
            w = m < 0 ? SET_LABEL_BYTES : w + (size_t)m;
        }
        if (w == 0) /* every set alike: they differ only by their place */
            snprintf(label, SET_LABEL_BYTES, "set=%zu", k);
    }
    free(values);
    return CLI_EXIT_OK;
}

/* ---- the new rows ----------------------------------------------------------------------- */

/* The input's options in the words of `run`, whose reader takes them (run_load.c). */
static void input_options(const cli_stream_options *o, const char *kernel, cli_run_options *r) {
    cli_run_options_init(r);
    r->kernel = kernel;
    r->input = o->input;
    r->input_format = o->input_format;
    r->input_format_set = o->input_format_set;
    r->column = o->column;
    r->index_column = o->index_column;
    r->group_by = o->group_by;
    r->input_map = o->input_map;
    r->missing_as_nan = o->missing_as_nan;
    if (o->series > 0) {
        r->rows = o->series;
        r->rows_set = 1;
    }
}

/* The new rows as named series: the reader's named series (columns, groups), or the rows of
 * its one call (raw values cut into --series, or one column without dates). */
static int read_new_rows(const cli_stream_options *o, stream_job *j) {
    const int csv = cli_format_is_table(cli_input_format(o->input, o->input_format));
    if (csv && o->series > 0)
        return cli_usage_error("stream", "--series applies to raw float64 input only (a CSV "
                                         "file's series are its columns or --group-by groups)");
    cli_run_options r;
    input_options(o, j->kernel, &r);
    int rc = cli_run_load_input(&r, &j->info, &j->input);
    cli_run_options_free(&r);
    if (rc != CLI_EXIT_OK)
        return rc;
    const run_state *in = &j->input;
    j->n_news = in->n_series > 0 ? in->n_series : in->call.rows;
    j->news = calloc(j->n_news, sizeof *j->news);
    if (j->news == NULL)
        return out_of_memory();
    j->index_name = in->table.index_name;
    if (in->n_series > 0) {
        for (size_t s = 0; s < j->n_news; s++) {
            new_series *x = &j->news[s];
            x->name = in->series[s].name;
            x->length = in->series[s].length;
            x->index = in->series[s].index;
            for (size_t i = 0; i < j->info.n_inputs; i++)
                x->values[i] = in->series[s].values[i];
        }
        return CLI_EXIT_OK;
    }
    /* One CSV series without dates keeps its column's name; raw series are numbered. */
    const size_t digits = 24;
    if ((j->numbers = malloc(j->n_news * digits)) == NULL)
        return out_of_memory();
    for (size_t s = 0; s < j->n_news; s++) {
        new_series *x = &j->news[s];
        snprintf(j->numbers + s * digits, digits, "%zu", s);
        x->name = csv ? in->table.column_names[0] : j->numbers + s * digits;
        x->length = in->call.cols;
        for (size_t i = 0; i < j->info.n_inputs; i++)
            x->values[i] = in->call.inputs[i] + s * in->call.cols;
    }
    return CLI_EXIT_OK;
}

/* Which series of the stream each new series feeds: a new state takes the input's series in
 * order; a state's series are found by name (the same position first: files usually list
 * them in one order). */
static int match_series(const cli_stream_options *o, stream_job *j) {
    if (!j->existed) {
        j->file.n_series = j->n_news;
        j->file.series = calloc(j->n_news, sizeof *j->file.series);
        if (j->file.series == NULL)
            return out_of_memory();
        for (size_t s = 0; s < j->n_news; s++) {
            j->news[s].state_row = s;
            j->file.series[s].name = strdup(j->news[s].name);
            j->file.series[s].last_text = strdup("");
            if (j->file.series[s].name == NULL || j->file.series[s].last_text == NULL)
                return out_of_memory();
        }
        return CLI_EXIT_OK;
    }
    for (size_t s = 0; s < j->n_news; s++) {
        const cli_stream_file *f = &j->file;
        size_t r =
            s < f->n_series && strcmp(f->series[s].name, j->news[s].name) == 0 ? s : SIZE_MAX;
        for (size_t k = 0; r == SIZE_MAX && k < f->n_series; k++)
            if (strcmp(f->series[k].name, j->news[s].name) == 0)
                r = k;
        if (r == SIZE_MAX) {
            cli_error("%s: series \"%s\" is not in the state %s, whose %zu series were fixed when "
                      "it started (the first is \"%s\"); start a new state to add series",
                      cli_input_name(o->input), j->news[s].name, o->state, f->n_series,
                      f->series[0].name);
            return CLI_EXIT_USAGE;
        }
        j->news[s].state_row = r;
    }
    return CLI_EXIT_OK;
}

/* The dates of one new series against its stream series' last one (--old-rows). Rows are in
 * date order (record_order.c), so the old ones are a prefix. */
static int check_dates(const cli_stream_options *o, stream_job *j, new_series *x) {
    const cli_stream_series *last = &j->file.series[x->state_row];
    if (o->old_rows == CLI_OLD_ROWS_ACCEPT || !last->has_last || x->length == 0)
        return CLI_EXIT_OK;
    const cli_index_key first = x->index != NULL ? cli_index_key_parse(x->index[0])
                                                 : (cli_index_key){.kind = CLI_INDEX_NONE};
    if (first.kind != last->last.kind) {
        cli_error("%s: series \"%s\": the state's last bar is dated \"%s\", but these rows %s; "
                  "nothing was computed (--old-rows accept feeds them without a check)",
                  cli_input_name(o->input), x->name, last->last_text,
                  first.kind == CLI_INDEX_NONE ? "have no date that orders them"
                                               : "have dates of another kind");
        return CLI_EXIT_USAGE;
    }
    size_t old = 0;
    while (old < x->length) {
        const cli_index_key k = cli_index_key_parse(x->index[old]);
        if (cli_index_key_compare(&k, &last->last) > 0)
            break;
        old++;
    }
    if (old > 0 && o->old_rows == CLI_OLD_ROWS_REFUSE) {
        cli_error("%s: series \"%s\": the date \"%s\" is not after the state's last one, "
                  "\"%s\" (%zu such rows); nothing was computed (--old-rows skip leaves such "
                  "rows out, --old-rows accept feeds them as new bars)",
                  cli_input_name(o->input), x->name, x->index[0], last->last_text, old);
        return CLI_EXIT_USAGE;
    }
    if (old > 0)
        fprintf(stderr, "apportion: series \"%s\": %zu rows not after \"%s\" left out\n", x->name,
                old, last->last_text);
    x->first = old;
    return CLI_EXIT_OK;
}

/* ---- the update ------------------------------------------------------------------------- */

static int pack_and_update(stream_job *j) {
    const size_t n = j->file.n_series;
    j->n_new = calloc(n, sizeof *j->n_new);
    j->bars_before = calloc(n, sizeof *j->bars_before);
    j->packed_at = calloc(n, sizeof *j->packed_at);
    size_t *source = malloc(n * sizeof *source);
    if (j->n_new == NULL || j->bars_before == NULL || j->packed_at == NULL || source == NULL) {
        free(source);
        return out_of_memory();
    }
    for (size_t r = 0; r < n; r++)
        source[r] = SIZE_MAX;
    for (size_t s = 0; s < j->n_news; s++) {
        source[j->news[s].state_row] = s;
        j->n_new[j->news[s].state_row] = j->news[s].length - j->news[s].first;
    }
    for (size_t r = 0; r < n; r++) {
        j->packed_at[r] = j->total;
        j->total += j->n_new[r];
        apo_stream_bars(j->stream, r, &j->bars_before[r]);
    }
    const size_t cells = j->total > 0 ? j->total : 1;
    for (size_t i = 0; i < j->info.n_inputs; i++)
        if ((j->in[i] = malloc(cells * sizeof(double))) == NULL) {
            free(source);
            return out_of_memory();
        }
    if (cells > SIZE_MAX / sizeof(double) / j->n_sets) {
        free(source);
        return out_of_memory();
    }
    for (size_t k = 0; k < j->n_out; k++)
        if ((j->out[k] = malloc(j->n_sets * cells * sizeof(double))) == NULL) {
            free(source);
            return out_of_memory();
        }
    for (size_t r = 0; r < n; r++) {
        if (source[r] == SIZE_MAX)
            continue;
        const new_series *x = &j->news[source[r]];
        for (size_t i = 0; i < j->info.n_inputs; i++)
            memcpy(j->in[i] + j->packed_at[r], x->values[i] + x->first,
                   j->n_new[r] * sizeof(double));
    }
    free(source);
    if (j->total == 0)
        return CLI_EXIT_OK;
    const apo_status st = apo_stream_update(j->stream, j->n_new, (const double *const *)j->in,
                                            (double *const *)j->out);
    return st == APO_OK ? CLI_EXIT_OK : cli_status_error(st, "the update failed");
}

/* ---- the outputs ------------------------------------------------------------------------ */

/* series,bar[,INDEX],OUTPUT...: one line per new bar, series after series. A sweep has one
 * column per output and set, each output's sets in order (`upper period=10`). */
static int write_rows(FILE *f, void *ctx) {
    const stream_job *j = ctx;
    int bad = fputs("series,bar", f) < 0;
    if (j->index_name != NULL)
        bad |= fputc(',', f) < 0 || cli_output_put_text(f, j->index_name) != 0;
    for (size_t k = 0; k < j->n_out; k++) {
        if (j->labels == NULL) {
            bad |= fprintf(f, ",%s", j->out_names[k]) < 0;
            continue;
        }
        for (size_t set = 0; set < j->n_sets; set++) {
            char name[SET_LABEL_BYTES + 64];
            snprintf(name, sizeof name, "%s %s", j->out_names[k],
                     j->labels + set * SET_LABEL_BYTES);
            bad |= fputc(',', f) < 0 || cli_output_put_text(f, name) != 0;
        }
    }
    bad |= fputc('\n', f) < 0;
    for (size_t s = 0; s < j->n_news && !bad; s++) {
        const new_series *x = &j->news[s];
        const size_t r = x->state_row;
        for (size_t b = 0; b < j->n_new[r] && !bad; b++) {
            bad |= cli_output_put_text(f, x->name) != 0;
            bad |= fprintf(f, ",%llu", (unsigned long long)(j->bars_before[r] + b)) < 0;
            if (j->index_name != NULL) {
                const char *t = x->index != NULL ? x->index[x->first + b] : NULL;
                bad |= fputc(',', f) < 0 || (t != NULL && cli_output_put_text(f, t) != 0);
            }
            for (size_t k = 0; k < j->n_out; k++)
                for (size_t set = 0; set < j->n_sets; set++)
                    bad |= fputc(',', f) < 0 ||
                           cli_output_put_number(
                               f, j->out[k][set * j->total + j->packed_at[r] + b]) != 0;
            bad |= fputc('\n', f) < 0;
        }
    }
    return bad ? -1 : 0;
}

/* --output FILE.csv: a set of one file (output_files.h), opened before the work so that a
 * folder that cannot be written costs nothing. */
static int open_output(const cli_stream_options *o) {
    if (strcmp(o->output, "-") == 0)
        return CLI_EXIT_OK;
    const size_t len = strlen(o->output);
    if (len < 5 || strcmp(o->output + len - 4, ".csv") != 0)
        return cli_usage_error("stream", "--output '%s': the name of a CSV file, ending in .csv",
                               o->output);
    char dir[PATH_MAX], name[PATH_MAX];
    const char *slash = strrchr(o->output, '/');
    snprintf(dir, sizeof dir, "%.*s",
             slash == NULL        ? 1
             : slash == o->output ? 1
                                  : (int)(slash - o->output),
             slash == NULL ? "." : o->output);
    const char *base = slash == NULL ? o->output : slash + 1;
    snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 4), base);
    if (name[0] == '\0')
        return cli_usage_error("stream", "--output '%s': the file needs a name before .csv",
                               o->output);
    char err[1024];
    const char *names[1] = {name};
    const size_t one = 1;
    if (cli_output_files_open(dir, CLI_FORMAT_CSV, names, &one, &one, 1, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

static int write_outputs(const cli_stream_options *o, stream_job *j) {
    char err[1024];
    if (strcmp(o->output, "-") == 0) {
        if (write_rows(stdout, j) != 0 || fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("cannot write the outputs to standard output; the state %s is unchanged",
                      o->state);
            return CLI_EXIT_FAILURE;
        }
        return CLI_EXIT_OK;
    }
    if (cli_output_files_write_with(0, write_rows, j, err, sizeof err) != 0 ||
        cli_output_files_commit(err, sizeof err) != 0) {
        cli_error("%s (the output and the state %s are unchanged)", err, o->state);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* The state after the update: each fed series' last date, and the library's stream. */
static int save_state(const cli_stream_options *o, stream_job *j) {
    if (j->existed && j->total == 0)
        return CLI_EXIT_OK; /* nothing moved: the file stays as it is */
    for (size_t s = 0; s < j->n_news; s++) {
        const new_series *x = &j->news[s];
        cli_stream_series *last = &j->file.series[x->state_row];
        if (x->length == x->first || x->index == NULL)
            continue;
        const cli_index_key k = cli_index_key_parse(x->index[x->length - 1]);
        if (k.kind == CLI_INDEX_NONE)
            continue;
        char *text = strdup(x->index[x->length - 1]);
        if (text == NULL)
            return out_of_memory();
        free(last->last_text);
        last->last_text = text;
        last->last = k;
        last->has_last = 1;
    }
    size_t len = 0;
    apo_status st = apo_stream_save(j->stream, NULL, 0, &len);
    unsigned char *bytes = st == APO_OK ? malloc(len) : NULL;
    if (st == APO_OK && bytes == NULL)
        return out_of_memory();
    if (st == APO_OK)
        st = apo_stream_save(j->stream, bytes, len, &len);
    if (st != APO_OK) {
        free(bytes);
        return cli_status_error(st, "cannot save the stream");
    }
    free(j->file.stream);
    j->file.stream = bytes;
    j->file.stream_len = len;
    char err[PATH_MAX + 256];
    unsigned char *buf = NULL;
    size_t buf_len = 0;
    int bad = cli_stream_file_encode(&j->file, &buf, &buf_len, err, sizeof err) != 0 ||
              cli_stream_file_replace(o->state, buf, buf_len, err, sizeof err) != 0;
    free(buf);
    if (bad) {
        cli_error("%s; the outputs were written: run the same command again to write them "
                  "once more with the state",
                  err);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* ---- the command ------------------------------------------------------------------------ */

/* The outputs a bar: the kernel's, or with a rule the position, return and running total of
 * `run --score --positions` (named as its positions.csv names them) and the rule's view's
 * scores (named as its scores.csv). An unknown rule, or one that does not fit the kernel, is
 * refused with the library's words, as `run --score` refuses it. */
static int name_outputs(const cli_stream_options *o, stream_job *j) {
    if (j->rule[0] == '\0' && o->rule_option != NULL)
        return cli_usage_error("stream", "%s needs --score RULE, or a state of a rule",
                               o->rule_option);
    if (j->rule[0] == '\0') {
        j->n_out = j->info.n_outputs;
        for (size_t k = 0; k < j->n_out; k++)
            j->out_names[k] = j->info.output_names[k];
        return CLI_EXIT_OK;
    }
    cli_run_options r;
    cli_run_options_init(&r);
    r.kernel = j->kernel;
    r.score = j->rule;
    const int rc = cli_scores_kernel(j->rt, &r, &j->scored);
    cli_run_options_free(&r);
    if (rc != CLI_EXIT_OK)
        return rc;
    j->n_out = APO_LIVE_N_OUTPUTS;
    j->out_names[APO_LIVE_POSITION] = "position";
    j->out_names[APO_LIVE_RETURN] = "return";
    j->out_names[APO_LIVE_TOTAL] = "equity";
    for (int k = 0; k < APO_N_SCORES; k++)
        j->out_names[APO_LIVE_SCORES + k] = cli_score_name_of(j->rule, k);
    return CLI_EXIT_OK;
}

static int stream(const cli_stream_options *o, stream_job *j) {
    char err[PATH_MAX + 256];
    if ((j->lock_fd = cli_stream_file_lock(o->state, err, sizeof err)) < 0) {
        cli_error("%s", err);
        return CLI_EXIT_FAILURE;
    }
    /* A stream runs on the calling thread and learns nothing: no profile is touched. */
    int rc = cli_runtime_create_learning(o->devices, APO_SWITCH_OFF, &j->rt);
    if (rc == CLI_EXIT_OK)
        rc = read_state(o, j);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!j->existed) {
        if (o->kernel == NULL)
            return cli_usage_error("stream", "%s does not exist: --kernel K starts a new stream",
                                   o->state);
        snprintf(j->kernel, sizeof j->kernel, "%s", o->kernel);
        if (o->score != NULL && strlen(o->score) >= sizeof j->rule)
            return cli_usage_error("stream", "--score '%s': no rule has so long a name", o->score);
        if (o->score != NULL)
            snprintf(j->rule, sizeof j->rule, "%s", o->score);
    }
    j->info = (apo_kernel_info)APO_KERNEL_INFO_INIT;
    apo_status st = apo_kernel_get(j->rt, j->kernel, &j->info);
    if (st == APO_ERR_UNKNOWN_KERNEL)
        return cli_unknown_kernel_error(j->rt, j->kernel, st, "--kernel");
    if (st != APO_OK)
        return cli_status_error(st, "--kernel");
    /* A new stream under the kernel's own spelling, whatever case --kernel gave it in. */
    snprintf(j->kernel, sizeof j->kernel, "%s", j->info.name);
    if ((rc = name_outputs(o, j)) != CLI_EXIT_OK || (rc = read_new_rows(o, j)) != CLI_EXIT_OK ||
        (rc = open_stream(o, j)) != CLI_EXIT_OK || (rc = describe_sets(j)) != CLI_EXIT_OK ||
        (rc = match_series(o, j)) != CLI_EXIT_OK)
        return rc;
    for (size_t s = 0; s < j->n_news; s++)
        if ((rc = check_dates(o, j, &j->news[s])) != CLI_EXIT_OK)
            return rc;
    if ((rc = open_output(o)) != CLI_EXIT_OK || (rc = pack_and_update(j)) != CLI_EXIT_OK ||
        (rc = write_outputs(o, j)) != CLI_EXIT_OK)
        return rc;
    return save_state(o, j);
}

int cli_cmd_stream(int argc, char **argv) {
    cli_stream_options o;
    cli_stream_options_init(&o);
    int help = 0;
    int rc = cli_stream_parse_options(argc, argv, &o, &help);
    if (rc == CLI_EXIT_OK && help) {
        fputs(cli_stream_help, stdout);
    } else if (rc == CLI_EXIT_OK) {
        stream_job j = {.lock_fd = -1};
        rc = stream(&o, &j);
        free_job(&j);
    }
    cli_stream_options_free(&o);
    return rc;
}

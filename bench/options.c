/*
 * options.c: the one option parser of the apo-bench-* programs and the help generated from the
 * same rows (options.h). libc and bench.h only.
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_options_usage(const bench_option_table *t, FILE *f) {
    fprintf(f, "usage: %s %s\n", bench_prog, t->usage);
    for (size_t r = 0; r < t->n_rows; r++) {
        const bench_option *o = &t->rows[r];
        int width = fprintf(f, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        /* A name longer than the column keeps two spaces before its text. */
        const char *line = o->help;
        fprintf(f, "%*s", width < t->help_column ? t->help_column - width : 2, "");
        for (;;) {
            const char *nl = strchr(line, '\n');
            int len = nl ? (int)(nl - line) : (int)strlen(line);
            fprintf(f, "%.*s\n", len, line);
            if (nl == NULL)
                break;
            line = nl + 1;
            fprintf(f, "%*s", t->help_column, "");
        }
    }
    fprintf(f, "  --help\n");
}

static const bench_option *find_row(const bench_option_table *t, const char *name) {
    for (size_t r = 0; r < t->n_rows; r++)
        if (strcmp(t->rows[r].name, name) == 0)
            return &t->rows[r];
    return NULL;
}

/* Stores a whole number in [lo, hi] as the row's type. Returns 0 or BENCH_OPT_BAD. */
static int store_number(const bench_option *o, const char *text, char *dest) {
    double d;
    if (bench_parse_count(text, o->lo, o->hi, &d) != 0)
        return BENCH_OPT_BAD;
    switch (o->kind) {
    case BENCH_OPT_DOUBLE:
        *(double *)(void *)dest = d;
        break;
    case BENCH_OPT_INT:
        *(int *)(void *)dest = (int)d;
        break;
    case BENCH_OPT_UINT:
        *(unsigned *)(void *)dest = (unsigned)d;
        break;
    default:
        *(size_t *)(void *)dest = (size_t)d;
        break;
    }
    return 0;
}

/* Reads the value of row o (which takes one) into options. */
static int store_value(const bench_option *o, const char *text, void *options) {
    char *dest = (char *)options + o->offset;
    if (o->kind == BENCH_OPT_TEXT) {
        *(const char **)(void *)dest = text;
        return 0;
    }
    if (o->kind == BENCH_OPT_CUSTOM)
        return o->parse(text, options);
    return store_number(o, text, dest);
}

/* Reads every argument after argv[*i] up to the next option through o->parse. */
static int store_each(const bench_option *o, int argc, char **argv, int *i, void *options) {
    while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) {
        int st = o->parse(argv[*i + 1], options);
        if (st == BENCH_OPT_BAD)
            fprintf(stderr, "%s: bad option or value: %s %s\n", bench_prog, o->name, argv[*i + 1]);
        if (st != 0)
            return -1;
        (*i)++;
    }
    return 0;
}

/* Reads argv[*i] (and its value, moving *i past it). Returns 0 or -1 after the message. */
static int parse_one(const bench_option_table *t, int argc, char **argv, int *i, void *options) {
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        bench_options_usage(t, stdout);
        exit(0);
    }
    const bench_option *o = find_row(t, a);
    if (o != NULL && o->kind == BENCH_OPT_FLAG) {
        *(int *)(void *)((char *)options + o->offset) = 1;
        return 0;
    }
    if (o != NULL && o->kind == BENCH_OPT_EACH)
        return store_each(o, argc, argv, i, options);
    if (v == NULL) {
        fprintf(stderr, "%s: unknown option or missing value: %s\n", bench_prog, a);
        return -1;
    }
    int st = o != NULL ? store_value(o, v, options) : BENCH_OPT_BAD;
    if (st == BENCH_OPT_BAD)
        fprintf(stderr, "%s: bad option or value: %s %s\n", bench_prog, a, v);
    if (st != 0)
        return -1;
    (*i)++;
    return 0;
}

int bench_options_parse(const bench_option_table *t, int argc, char **argv, void *options) {
    for (int i = 1; i < argc; i++)
        if (parse_one(t, argc, argv, &i, options) != 0) {
            bench_options_usage(t, stderr);
            return -1;
        }
    return 0;
}

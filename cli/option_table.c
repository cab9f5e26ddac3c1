/*
 * The one loop that reads a command's argv through its option table (option_table.h), and
 * the readers that several commands share.
 */
#include "option_table.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "param_list.h"

/* Whether `arg` is row's option: a flag exactly; an option with a value also as NAME=... */
static int matches(const cli_option *row, const char *arg) {
    if (row->kind == CLI_KIND_FLAG)
        return strcmp(arg, row->name) == 0;
    const size_t n = strlen(row->name);
    return strncmp(arg, row->name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static const cli_option *find_row(const cli_option_table *t, const char *arg) {
    for (size_t r = 0; r < t->n_rows; r++)
        if (matches(&t->rows[r], arg))
            return &t->rows[r];
    return NULL;
}

/* A whole number of a SIZE, U64 or UINT row into its field. */
static int store_whole(const cli_option *row, const char *text, void *dest) {
    uint64_t v;
    if (row->kind == CLI_KIND_SIZE) {
        size_t s;
        if (cli_parse_size(text, &s) != 0)
            return CLI_OPT_BAD;
        v = s;
    } else if (cli_parse_u64(text, &v) != 0) {
        return CLI_OPT_BAD;
    }
    if (v < row->min || v > row->max)
        return CLI_OPT_BAD;
    if (row->kind == CLI_KIND_SIZE)
        *(size_t *)dest = (size_t)v;
    else if (row->kind == CLI_KIND_U64)
        *(uint64_t *)dest = v;
    else
        *(unsigned *)dest = (unsigned)v;
    return CLI_EXIT_OK;
}

/* The value `text` of a row that takes one into its field. Returns as a reader does. */
static int store(const char *command, const cli_option *row, const char *text, void *dest) {
    switch (row->kind) {
    case CLI_KIND_TEXT:
        *(const char **)dest = text;
        return CLI_EXIT_OK;
    case CLI_KIND_DOUBLE: {
        double v;
        if (cli_parse_double(text, &v) != 0 || !(v >= row->lo && v <= row->hi))
            return CLI_OPT_BAD;
        *(double *)dest = v;
        return CLI_EXIT_OK;
    }
    case CLI_KIND_WORD:
        for (size_t w = 0; w < row->n_words; w++) {
            if (row->words[w] != NULL && strcmp(row->words[w], text) == 0) {
                *(int *)dest = (int)w;
                return CLI_EXIT_OK;
            }
        }
        return CLI_OPT_BAD;
    case CLI_KIND_READ:
        return row->read(command, text, dest);
    default:
        return store_whole(row, text, dest);
    }
}

/* The usage error of a refused value: "NAME 'VALUE': expected EXPECTED". */
static int refused(const char *command, const cli_option *row, const char *text) {
    char expected[256];
    /* The row's own format, with the bounds for the rows that print them. */
    snprintf(expected, sizeof expected, row->expected != NULL ? row->expected : "a valid value",
             row->min, row->max);
    return cli_usage_error(command, "%s '%s': expected %s", row->name, text, expected);
}

/* Reads argv[*i], row's option (and its value, moving *i past a separate one). */
static int read_row(const cli_option_table *t, const cli_option *row, int argc, char **argv, int *i,
                    char *options) {
    const char *typed = argv[*i], *v = NULL;
    if (row->kind == CLI_KIND_FLAG) {
        *(int *)(void *)(options + row->at) = 1;
        return CLI_EXIT_OK;
    }
    const int r = row->once ? cli_value_once(t->command, argc, argv, i, row->name, &v)
                            : cli_value(t->command, argc, argv, i, row->name, &v);
    if (r < 0)
        return CLI_EXIT_USAGE;
    int rc = store(t->command, row, v, options + row->at);
    if (rc == CLI_OPT_BAD)
        rc = refused(t->command, row, v);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (row->set_at != CLI_NO_FIELD)
        *(int *)(void *)(options + row->set_at) = 1;
    if (t->nonempty && v[0] == '\0')
        return cli_usage_error(t->command, "option %s needs a non-empty value", typed);
    return CLI_EXIT_OK;
}

int cli_options_read(const cli_option_table *t, int argc, char **argv, void *options, int *help) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_flag(a, "--help") || cli_flag(a, "-h")) {
            *help = 1;
            return CLI_EXIT_OK;
        }
        const cli_option *row = find_row(t, a);
        int rc;
        if (row != NULL)
            rc = read_row(t, row, argc, argv, &i, options);
        else if (a[0] == '-')
            rc = cli_usage_error(t->command, "unknown option '%s'", a);
        else if (t->positional != NULL)
            rc = t->positional(t->command, a, options);
        else
            rc = cli_usage_error(t->command, "unexpected argument '%s'", a);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}

int cli_option_read_param(const char *command, const char *value, void *dest) {
    return cli_param_list_add(dest, command, value);
}

int cli_option_read_input_format(const char *command, const char *value, void *dest) {
    (void)command;
    return cli_input_format_parse(value, dest) == 0 ? CLI_EXIT_OK : CLI_OPT_BAD;
}

/*
 * The one loop that reads a command's argv through its option table (option_table.h), the
 * readers that several commands share, and the table of the commands that take only --json
 * and --devices.
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

/* An option with a value: 0 when argv[*i] is not option `name`; 1 with *value set (from
 * "NAME=VALUE", or the next argument, *i moved past it); -1 after the usage error of a
 * missing value. */
static int take_value(const char *command, int argc, char **argv, int *i, const char *name,
                      const char **value) {
    const char *arg = argv[*i];
    const size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    /* A following option is not taken as the value: "--output --json" is a mistake. */
    if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-')) {
        cli_usage_error(command, "option %s needs a value", name);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}

/* take_value() for an option that takes one value: when it was given before in argv, the
 * usage error "option NAME is given twice" and -1 (a value never starts with "--", so an
 * earlier argument that is NAME or NAME=... is that option). */
static int take_value_once(const char *command, int argc, char **argv, int *i, const char *name,
                           const char **value) {
    const int at = *i;
    const int r = take_value(command, argc, argv, i, name, value);
    if (r <= 0)
        return r;
    const size_t n = strlen(name);
    for (int j = 1; j < at; j++) {
        if (strncmp(argv[j], name, n) == 0 && (argv[j][n] == '\0' || argv[j][n] == '=')) {
            cli_usage_error(command, "option %s is given twice (it takes one value)", name);
            return -1;
        }
    }
    return 1;
}

/* Reads argv[*i], row's option (and its value, moving *i past a separate one). */
static int read_row(const cli_option_table *t, const cli_option *row, int argc, char **argv, int *i,
                    char *options) {
    const char *typed = argv[*i], *v = NULL;
    if (row->kind == CLI_KIND_FLAG) {
        *(int *)(void *)(options + row->at) = 1;
        return CLI_EXIT_OK;
    }
    const int r = row->once ? take_value_once(t->command, argc, argv, i, row->name, &v)
                            : take_value(t->command, argc, argv, i, row->name, &v);
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
    *help = 0;
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

/* The options of a command that takes only --help, --json and --devices LIST. */
typedef struct json_devices {
    int json;
    const char *devices;
} json_devices;

static const cli_option json_devices_rows[] = {
    CLI_ROW_FLAG("--json", offsetof(json_devices, json)),
    CLI_ROW_TEXT("--devices", CLI_ONCE, offsetof(json_devices, devices)),
};

int cli_parse_json_devices(const char *command, const char *help, int argc, char **argv, int *json,
                           const char **devices) {
    const cli_option_table table = {.command = command, CLI_TABLE_ROWS(json_devices_rows)};
    json_devices o = {*json, *devices};
    int asked = 0;
    const int rc = cli_options_read(&table, argc, argv, &o, &asked);
    *json = o.json;
    *devices = o.devices;
    if (asked) {
        fputs(help, stdout);
        return CLI_EXIT_OK;
    }
    return rc != CLI_EXIT_OK ? rc : -1;
}

int cli_open_json_devices(const char *command, const char *help, int argc, char **argv, int *json,
                          apo_runtime **rt) {
    const char *devices = NULL;
    int done = cli_parse_json_devices(command, help, argc, argv, json, &devices);
    if (done >= 0)
        return done;
    int rc = cli_runtime_create(devices, rt);
    return rc != CLI_EXIT_OK ? rc : -1;
}

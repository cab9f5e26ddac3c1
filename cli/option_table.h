/*
 * The option table of the `apportion` commands (option_table.c), as settings_table.h is for
 * settings and bench/options.h for the bench programs: a command lists its options once, as
 * rows, and one loop reads its argv through them. The help texts stay the commands' own
 * hand-written strings; a row says how an option is read and what its usage error says.
 *
 * The loop, for each argument in turn (the first bad one wins):
 *   - "--help" or "-h" ends the reading (*help set);
 *   - a row's option: a flag exactly as named; an option with a value as "NAME VALUE" or
 *     "NAME=VALUE" (a separate value never starts with "--": "option NAME needs a value"),
 *     refused when a row given once was given before ("option NAME is given twice (it takes
 *     one value)"); the value read by the row's kind into its field, or refused as
 *     "NAME 'VALUE': expected EXPECTED";
 *   - another argument starting with '-': "unknown option 'ARG'";
 *   - any other: the table's positional reader, else "unexpected argument 'ARG'".
 * Every message is a usage error of the table's command (cli_usage_error()). The checks of
 * options against each other stay in the command's parser, after the loop.
 */
#ifndef APO_CLI_OPTION_TABLE_H
#define APO_CLI_OPTION_TABLE_H

#include <apportion.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cli_option_kind {
    CLI_KIND_FLAG,   /* no value: the int field becomes 1 */
    CLI_KIND_TEXT,   /* const char *: the value itself, pointing into argv */
    CLI_KIND_SIZE,   /* size_t: a decimal whole number from min to max (cli_parse_size) */
    CLI_KIND_U64,    /* uint64_t: a decimal whole number from min to max (cli_parse_u64) */
    CLI_KIND_UINT,   /* unsigned: as CLI_KIND_U64, max at most UINT_MAX */
    CLI_KIND_DOUBLE, /* double: a finite number from lo to hi (cli_parse_double) */
    CLI_KIND_WORD,   /* int: the index in words of the word given (NULL entries never match) */
    CLI_KIND_READ,   /* read by the row's reader */
} cli_option_kind;

/* A reader of a value: `command` for its messages, `dest` the row's field (the options
 * struct itself where the row's field is 0 and the reader needs more than one field; the
 * options struct for a table's positional reader). Returns CLI_EXIT_OK; CLI_OPT_BAD for the
 * row's "expected" usage error; or another exit status after printing its own message. */
typedef int (*cli_option_read_fn)(const char *command, const char *value, void *dest);
enum { CLI_OPT_BAD = -1 };

/* A row's set field when it has none. */
#define CLI_NO_FIELD ((size_t)-1)
/* Whether an option may be given once only, or again and again (the last value wins, or
 * its reader keeps each). */
#define CLI_ONCE 1
#define CLI_REPEATABLE 0
/* The least double above 0: the lo of "a number > 0". */
#define CLI_ABOVE_ZERO DBL_TRUE_MIN

typedef struct cli_option {
    const char *name; /* as typed: "--rows" */
    cli_option_kind kind;
    int once;          /* CLI_ONCE or CLI_REPEATABLE (a flag may always be repeated) */
    size_t at;         /* the field: offsetof(the command's options struct, field) */
    size_t set_at;     /* an int field that becomes 1 once the value is read, or CLI_NO_FIELD */
    uint64_t min, max; /* CLI_KIND_SIZE, _U64, _UINT: the bounds, both included */
    double lo, hi;     /* CLI_KIND_DOUBLE: the bounds, both included */
    const char *const *words; /* CLI_KIND_WORD: n_words words, indexed as the field's values */
    size_t n_words;
    cli_option_read_fn read; /* CLI_KIND_READ */
    /* What a refused value should have been: the words after "expected" in the usage error,
     * a format given min and max (uint64_t, in that order) for a row to print its bounds
     * with "%" PRIu64; NULL for a row that cannot refuse a value or whose reader says why. */
    const char *expected;
} cli_option;

#define CLI_ROW_(opt, kind_, once_, at_, set_, min_, max_, lo_, hi_, words_, n_words_, read_,      \
                 expected_)                                                                        \
    {                                                                                              \
        .name = (opt), .kind = (kind_), .once = (once_), .at = (at_), .set_at = (set_),            \
        .min = (min_), .max = (max_), .lo = (lo_), .hi = (hi_), .words = (words_),                 \
        .n_words = (n_words_), .read = (read_), .expected = (expected_)                            \
    }

/* The rows, one macro a kind: `at` and `set` are offsetof() an options struct's fields (set
 * CLI_NO_FIELD for none), `once` CLI_ONCE or CLI_REPEATABLE. */
#define CLI_ROW_FLAG(opt, at)                                                                      \
    CLI_ROW_(opt, CLI_KIND_FLAG, CLI_REPEATABLE, at, CLI_NO_FIELD, 0, 0, 0, 0, NULL, 0, NULL, NULL)
#define CLI_ROW_TEXT(opt, once, at)                                                                \
    CLI_ROW_(opt, CLI_KIND_TEXT, once, at, CLI_NO_FIELD, 0, 0, 0, 0, NULL, 0, NULL, NULL)
#define CLI_ROW_SIZE(opt, once, at, set, min, max, expected)                                       \
    CLI_ROW_(opt, CLI_KIND_SIZE, once, at, set, min, max, 0, 0, NULL, 0, NULL, expected)
#define CLI_ROW_U64(opt, once, at, set, min, max, expected)                                        \
    CLI_ROW_(opt, CLI_KIND_U64, once, at, set, min, max, 0, 0, NULL, 0, NULL, expected)
#define CLI_ROW_UINT(opt, once, at, set, min, max, expected)                                       \
    CLI_ROW_(opt, CLI_KIND_UINT, once, at, set, min, max, 0, 0, NULL, 0, NULL, expected)
#define CLI_ROW_DOUBLE(opt, once, at, set, lo, hi, expected)                                       \
    CLI_ROW_(opt, CLI_KIND_DOUBLE, once, at, set, 0, 0, lo, hi, NULL, 0, NULL, expected)
/* words: an array (its size is taken here), indexed as the int field's values. */
#define CLI_ROW_WORD(opt, once, at, words, expected)                                               \
    CLI_ROW_(opt, CLI_KIND_WORD, once, at, CLI_NO_FIELD, 0, 0, 0, 0, words,                        \
             sizeof(words) / sizeof *(words), NULL, expected)
#define CLI_ROW_READ(opt, once, at, set, read, expected)                                           \
    CLI_ROW_(opt, CLI_KIND_READ, once, at, set, 0, 0, 0, 0, NULL, 0, read, expected)

typedef struct cli_option_table {
    const char *command; /* "run": whose usage errors ("Try 'apportion run --help'.") */
    const cli_option *rows;
    size_t n_rows;
    /* An argument that is not an option, or NULL: "unexpected argument 'ARG'". */
    cli_option_read_fn positional;
    /* Every value must be non-empty: after its row's reading, an empty one is refused as
     * "option ARG needs a non-empty value", ARG as typed (`stream`). */
    int nonempty;
} cli_option_table;

/* .rows and .n_rows of a table, from an array of rows. */
#define CLI_TABLE_ROWS(array) .rows = (array), .n_rows = sizeof(array) / sizeof *(array)

/* Reads argv[1..argc-1] into `options` through t's rows, as the top of this file says.
 * Returns CLI_EXIT_OK (*help set to 1 when --help or -h ended the reading, else 0), or the
 * exit status of the first argument refused, with its message printed. */
int cli_options_read(const cli_option_table *t, int argc, char **argv, void *options, int *help);

/* The options of a command that takes only --help, --json and --devices LIST (devices, show),
 * read through a table of those two: *json set by --json, *devices by --devices. Returns -1
 * to go on, or the exit status to return (the help printed, or a usage error). */
int cli_parse_json_devices(const char *command, const char *help, int argc, char **argv, int *json,
                           const char **devices);

/* cli_parse_json_devices(), then the runtime on the devices it names (cli_runtime_create()):
 * the start of a command that takes only those options. Returns -1 with *rt set to go on,
 * or the exit status to return (help printed, a usage error, no runtime). */
int cli_open_json_devices(const char *command, const char *help, int argc, char **argv, int *json,
                          apo_runtime **rt);

/* Readers of the values that several commands take alike. */
/* --param NAME=VALUE (or a sweep) into a cli_param_list (cli_param_list_add()). */
int cli_option_read_param(const char *command, const char *value, void *dest);
/* --input-format f64, csv or parquet into a cli_format (cli_input_format_parse()). */
int cli_option_read_input_format(const char *command, const char *value, void *dest);

#endif /* APO_CLI_OPTION_TABLE_H */

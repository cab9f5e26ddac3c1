/*
 * options.h: the option table of the apo-bench-* programs (options.c). A program lists its
 * options once, as rows of a bench_option_table; the one parser reads argv through the rows
 * and the help text is generated from the same rows, so `--help` and the parsing cannot say
 * different things.
 *
 * Each row gives:
 *   name    the option as typed ("--max-size")
 *   arg     what its value is called in the help ("N", "LIST", "N N ..."); NULL for a flag
 *   kind    how the value is read and what type the destination has (below)
 *   lo, hi  the bounds of a number (whole numbers only, as bench_parse_count reads them)
 *   offset  where the value goes: offsetof(the program's options struct, field)
 *   help    the help text, lines separated by '\n' (continuations are indented to the
 *           table's help column); the default belongs in it, where the option has one
 *   parse   BENCH_OPT_CUSTOM and BENCH_OPT_EACH only: reads one value into the options
 *
 * Errors are worded as the programs always worded them: an unknown option or a value option
 * last on the line gives "PROG: unknown option or missing value: OPT", a value out of its
 * bounds or an unknown option with something after it "PROG: bad option or value: OPT VALUE",
 * both followed by the usage on stderr.
 */
#ifndef APO_BENCH_OPTIONS_H
#define APO_BENCH_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

typedef enum bench_option_kind {
    BENCH_OPT_FLAG,   /* no value: the int at offset becomes 1 */
    BENCH_OPT_TEXT,   /* const char *: the argument itself */
    BENCH_OPT_DOUBLE, /* double: a whole number in [lo, hi] */
    BENCH_OPT_INT,    /* int: a whole number in [lo, hi] */
    BENCH_OPT_UINT,   /* unsigned: a whole number in [lo, hi] */
    BENCH_OPT_SIZE,   /* size_t: a whole number in [lo, hi] */
    BENCH_OPT_CUSTOM, /* one value, read by parse */
    BENCH_OPT_EACH,   /* every following argument that does not start with "--", each read by
                         parse (none at all is accepted: the program checks the count) */
} bench_option_kind;

/* Reads `text` into the program's options. Returns 0; BENCH_OPT_BAD for the table's "bad
 * option or value" message; BENCH_OPT_REPORTED when it has printed a message of its own. */
typedef int (*bench_option_parse_fn)(const char *text, void *options);
enum { BENCH_OPT_BAD = -1, BENCH_OPT_REPORTED = -2 };

typedef struct bench_option {
    const char *name;
    const char *arg;
    bench_option_kind kind;
    double lo, hi;
    size_t offset;
    const char *help;
    bench_option_parse_fn parse;
} bench_option;

/* A row of a number, a text or a flag, stored in `field` of the program's options struct. */
#define BENCH_OPTION(options_type, name, arg, kind, lo, hi, field, help)                           \
    { name, arg, BENCH_OPT_##kind, lo, hi, offsetof(options_type, field), help, NULL }
#define BENCH_FLAG(options_type, name, field, help)                                                \
    BENCH_OPTION(options_type, name, NULL, FLAG, 0, 0, field, help)

typedef struct bench_option_table {
    const char *usage;        /* what follows "usage: PROG " on the first line of the help */
    const bench_option *rows; /* in the order the help lists them */
    size_t n_rows;
    int help_column; /* where the help text starts on each line */
} bench_option_table;

/* The help: the usage line, a line (and its continuations) per row, then "  --help". */
void bench_options_usage(const bench_option_table *t, FILE *f);

/* Reads argv[1..argc-1] into *options through the rows. `--help` and `-h` print the help on
 * stdout and exit 0. Returns 0, or -1 after the error message and the help on stderr. */
int bench_options_parse(const bench_option_table *t, int argc, char **argv, void *options);

#endif /* APO_BENCH_OPTIONS_H */

/*
 * The order of the records of a CSV table (docs/cli/run.md, "Order of records"): each series
 * is put in the order of its index (dates), whatever the order of the file's records, so
 * that a long-format file in any order gives each ticker's bars in time order, and a wide
 * file whose lines are out of order is read in time order too.
 *
 * An index orders the records when every field of it is of one kind: ISO 8601 dates or
 * timestamps (all with a zone, or all without one), or numbers. Records of equal index keep
 * their file order; two records of one series with equal index are refused, as the series
 * would have two values for one date.
 *
 * Depends only on libc and csv.h, so that the unit tests link it alone.
 */
#ifndef APO_CLI_RECORD_ORDER_H
#define APO_CLI_RECORD_ORDER_H

#include <stddef.h>

#include "csv.h"

/* What an index field says of its record's place. */
typedef enum cli_index_kind {
    CLI_INDEX_NONE = 0,   /* neither a number nor an ISO 8601 date: a label */
    CLI_INDEX_NUMBER = 1, /* a finite number as strtod() reads it (20240102, 1.5e9) */
    CLI_INDEX_LOCAL = 2,  /* an ISO 8601 date or timestamp without a zone */
    CLI_INDEX_ZONED = 3   /* an ISO 8601 timestamp with Z or an offset, compared in UTC */
} cli_index_kind;

typedef struct cli_index_key {
    cli_index_kind kind;
    double number;     /* CLI_INDEX_NUMBER */
    long long seconds; /* the times: seconds since 1970-01-01 (UTC for zoned ones) */
    long nanoseconds;  /* 0 to 999999999 */
} cli_index_key;

/* Reads one index field: YYYY-MM-DD, optionally followed by 'T' or a space and HH:MM,
 * HH:MM:SS or HH:MM:SS.F (1 to 9 digits), optionally followed by Z or an offset +HH:MM,
 * +HHMM or +HH; or a finite number. Anything else is CLI_INDEX_NONE. */
cli_index_key cli_index_key_parse(const char *text);

/* Orders the keys a and b of one kind: negative, 0 or positive. */
int cli_index_key_compare(const cli_index_key *a, const cli_index_key *b);

/* Puts the records of t in index order, in place (values, index, group and lines alike):
 * with a group column, each group's records in index order, the groups still in order of
 * first appearance; without one, all records. Returns 0, or -1 with a message in err that
 * names the file (`name`), the line and the field: an index field of another kind than
 * the first's, or two records of one series with equal index. With a group column an index
 * that orders the records is required: no index column, or one of labels, is refused too
 * (the records could be in any order); without one, an index of labels leaves the file's
 * order, which is then the series' order. */
int cli_order_records(apo_csv_table *t, const char *name, char *err, size_t err_size);

#endif /* APO_CLI_RECORD_ORDER_H */

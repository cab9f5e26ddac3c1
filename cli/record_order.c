/*
 * The order of the records of a CSV table (see record_order.h and docs/cli/run.md, "Order of
 * records"). The calendar arithmetic is kernels/common/civil_date.h's, shared with the
 * profiles' timestamps.
 */
#include "record_order.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "civil_date.h"

#define ERR(...)                                                                                   \
    do {                                                                                           \
        if (err_size > 0)                                                                          \
            snprintf(err, err_size, __VA_ARGS__);                                                  \
    } while (0)

/* An ISO 8601 date or timestamp (record_order.h); returns 0 with *k filled, or -1. */
static int parse_time(const char *s, cli_index_key *k) {
    unsigned y, mo, d, h = 0, mi = 0, sec = 0;
    if (apo__fixed_digits(s, 4, &y) || s[4] != '-' || apo__fixed_digits(s + 5, 2, &mo) ||
        s[7] != '-' || apo__fixed_digits(s + 8, 2, &d) || mo < 1 || mo > 12 || d < 1 ||
        d > apo__days_in_month(y, mo))
        return -1;
    s += 10;
    long nanos = 0;
    long offset = 0;
    int zoned = 0;
    if (*s == 'T' || *s == 't' || *s == ' ') {
        if (apo__fixed_digits(s + 1, 2, &h) || s[3] != ':' || apo__fixed_digits(s + 4, 2, &mi) ||
            h > 23 || mi > 59)
            return -1;
        s += 6;
        if (*s == ':') {
            /* 60: a leap second, counted as the first second of the next minute. */
            if (apo__fixed_digits(s + 1, 2, &sec) || sec > 60)
                return -1;
            s += 3;
            if (*s == '.' || *s == ',') {
                s++;
                int n = 0;
                for (; *s >= '0' && *s <= '9'; s++, n++) {
                    if (n == 9)
                        return -1; /* finer than nanoseconds: two times could not be told apart */
                    nanos = nanos * 10 + (*s - '0');
                }
                if (n == 0)
                    return -1;
                for (; n < 9; n++)
                    nanos *= 10;
            }
        }
        if (*s == 'Z' || *s == 'z') {
            zoned = 1;
            s++;
        } else if (*s == '+' || *s == '-') {
            unsigned oh, om = 0;
            const int sign = *s == '-' ? -1 : 1;
            if (apo__fixed_digits(s + 1, 2, &oh) || oh > 23)
                return -1;
            s += 3;
            if (*s == ':')
                s++;
            if (*s >= '0' && *s <= '9') {
                if (apo__fixed_digits(s, 2, &om) || om > 59)
                    return -1;
                s += 2;
            }
            offset = sign * (long)(oh * 3600 + om * 60);
            zoned = 1;
        }
    }
    if (*s != '\0')
        return -1;
    k->kind = zoned ? CLI_INDEX_ZONED : CLI_INDEX_LOCAL;
    k->seconds =
        apo__days_from_civil(y, mo, d) * 86400 + (long long)(h * 3600 + mi * 60 + sec) - offset;
    k->nanoseconds = nanos;
    return 0;
}

cli_index_key cli_index_key_parse(const char *text) {
    cli_index_key k;
    memset(&k, 0, sizeof k);
    if (text == NULL || text[0] == '\0')
        return k;
    if (parse_time(text, &k) == 0)
        return k;
    memset(&k, 0, sizeof k);
    char *end = NULL;
    const double v = strtod(text, &end);
    if (end != text && *end == '\0' && isfinite(v)) {
        k.kind = CLI_INDEX_NUMBER;
        k.number = v;
    }
    return k;
}

int cli_index_key_compare(const cli_index_key *a, const cli_index_key *b) {
    if (a->kind == CLI_INDEX_NUMBER)
        return (a->number > b->number) - (a->number < b->number);
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? -1 : 1;
    return (a->nanoseconds > b->nanoseconds) - (a->nanoseconds < b->nanoseconds);
}

/* A record as it is sorted: its group's rank (order of first appearance), its key, and its
 * place in the file, which breaks ties so that the sort is stable. */
typedef struct sort_item {
    size_t group;
    cli_index_key key;
    size_t record;
} sort_item;

static int compare_items(const void *pa, const void *pb) {
    const sort_item *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    const int c = cli_index_key_compare(&a->key, &b->key);
    if (c != 0)
        return c;
    return (a->record > b->record) - (a->record < b->record);
}

static const char *kind_name(cli_index_kind kind) {
    switch (kind) {
    case CLI_INDEX_NUMBER:
        return "a number";
    case CLI_INDEX_LOCAL:
        return "a date or time without a zone";
    case CLI_INDEX_ZONED:
        return "a time with a zone";
    default:
        return "neither a date nor a number";
    }
}

/* The rank of each record's group, in order of first appearance. */
static int group_ranks(const apo_csv_table *t, sort_item *items) {
    const char **keys = malloc(t->n_records * sizeof *keys);
    if (keys == NULL)
        return -1;
    size_t n = 0, last = 0;
    for (size_t r = 0; r < t->n_records; r++) {
        size_t g = n;
        /* A long-format file often keeps a group's records together: the last group found
         * is tried first. */
        if (n > 0 && strcmp(keys[last], t->group[r]) == 0)
            g = last;
        for (size_t k = 0; g == n && k < n; k++)
            if (strcmp(keys[k], t->group[r]) == 0)
                g = k;
        if (g == n)
            keys[n++] = t->group[r];
        items[r].group = g;
        last = g;
    }
    free(keys);
    return 0;
}

/* Applies the order of items to one array of n elements of `size` bytes. */
static int permute(void *array, size_t size, const sort_item *items, size_t n) {
    if (array == NULL)
        return 0;
    unsigned char *copy = malloc(n * size);
    if (copy == NULL)
        return -1;
    for (size_t r = 0; r < n; r++)
        memcpy(copy + r * size, (unsigned char *)array + items[r].record * size, size);
    memcpy(array, copy, n * size);
    free(copy);
    return 0;
}

/* A field as messages quote it (csv.h). */
static void quote(char dst[192], const char *text) {
    apo__csv_quote_text(dst, 192, text, strlen(text));
}

/* A column name as messages use it, as a noun ("ticker", "date"): at most 40 bytes, a
 * control byte shown as '?', so that a header cannot put an escape sequence into a message. */
static void noun(char dst[48], const char *name) {
    size_t n = 0;
    for (; name[n] != '\0' && n < 40; n++) {
        const unsigned char c = (unsigned char)name[n];
        dst[n] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    dst[n] = '\0';
}

static const char *const keep_hint = "or keep the file's order with --record-order file";

int cli_order_records(apo_csv_table *t, const char *name, char *err, size_t err_size) {
    if (err_size > 0)
        err[0] = '\0';
    const size_t n = t->n_records;
    char index_name[48] = "", group_name[48] = "";
    if (t->index_name != NULL)
        noun(index_name, t->index_name);
    if (t->group_name != NULL)
        noun(group_name, t->group_name);
    if (t->index == NULL) {
        if (t->group == NULL)
            return 0;
        ERR("%s: --group-by needs a date column to put each %s's records in order, and none was "
            "found: name it with --index-column (a date written as a bare number must be named), "
            "%s",
            name, group_name, keep_hint);
        return -1;
    }
    sort_item *items = calloc(n, sizeof *items);
    if (items == NULL) {
        ERR("%s: out of memory", name);
        return -1;
    }
    int rc = -1;
    if (t->group != NULL && group_ranks(t, items) != 0) {
        ERR("%s: out of memory", name);
        goto done;
    }
    for (size_t r = 0; r < n; r++) {
        items[r].record = r;
        items[r].key = cli_index_key_parse(t->index[r]);
        const cli_index_kind first = items[0].key.kind, kind = items[r].key.kind;
        if (kind == first && first != CLI_INDEX_NONE)
            continue;
        if (r == 0 && t->group == NULL) {
            rc = 0; /* a wide file whose index is a label: the file's order stands */
            goto done;
        }
        char field[192], head[192];
        quote(field, t->index[r]);
        quote(head, t->index[0]);
        if (r == 0)
            ERR("%s:%zu: the %s %s is neither an ISO 8601 date (2024-01-02, "
                "2024-01-02T09:30:00) nor a number, so it cannot put each %s's records in "
                "order: name the date column with --index-column, %s",
                name, t->lines[r], index_name, field, group_name, keep_hint);
        else
            ERR("%s:%zu: the %s %s is %s, but the first record's (%s) is %s: they cannot be "
                "put in one order: write them alike, %s",
                name, t->lines[r], index_name, field, kind_name(kind), head, kind_name(first),
                keep_hint);
        goto done;
    }
    qsort(items, n, sizeof *items, compare_items);
    for (size_t r = 1; r < n; r++) {
        const sort_item *a = &items[r - 1], *b = &items[r];
        if (a->group != b->group || cli_index_key_compare(&a->key, &b->key) != 0)
            continue;
        /* The sort is stable: a is the earlier record of the two. */
        char date[192], group[192];
        quote(date, t->index[b->record]);
        if (t->group != NULL) {
            quote(group, t->group[b->record]);
            ERR("%s:%zu: %s %s has two records for %s %s (lines %zu and %zu): keep one, %s", name,
                t->lines[b->record], group_name, group, index_name, date, t->lines[a->record],
                t->lines[b->record], keep_hint);
        } else {
            ERR("%s:%zu: two records for %s %s (lines %zu and %zu): keep one, %s", name,
                t->lines[b->record], index_name, date, t->lines[a->record], t->lines[b->record],
                keep_hint);
        }
        goto done;
    }
    int failed = 0;
    for (size_t j = 0; j < t->n_columns; j++)
        failed |= permute(t->values[j], sizeof *t->values[j], items, n);
    failed |= permute(t->index, sizeof *t->index, items, n);
    failed |= permute(t->group, sizeof *t->group, items, n);
    failed |= permute(t->lines, sizeof *t->lines, items, n);
    if (failed) {
        /* Some arrays may be permuted and others not: the table is no longer one. */
        ERR("%s: out of memory", name);
        goto done;
    }
    rc = 0;
done:
    free(items);
    return rc;
}

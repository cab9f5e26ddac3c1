/*
 * A long frame's rows grouped by a key (include/apportion_arrow.h): where the key changes,
 * that no key's rows are apart, and that a time column increases within each group. Keys
 * compare by their bytes (a dictionary's by the values they name), so that chunks with
 * different dictionaries or buffers still agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_arrow.h"
#include "base/error.h"
#include "core/arrow_types.h"

/* One key: its bytes, or a null. */
typedef struct key {
    const uint8_t *bytes;
    size_t len;
    int is_null;
} key;

/* A run's first key and row, sorted to find a key in two runs. */
typedef struct run_key {
    key k;
    size_t row;
} run_key;

/* A key column's types, parsed once rather than at every row. */
typedef struct key_reader {
    apo__arrow_type type;   /* the column's (a dictionary's indices) */
    apo__arrow_type values; /* a dictionary's values; else the column's */
    int dictionary;
} key_reader;

static int is_key_kind(const apo__arrow_type *t) {
    return t->kind == APO_ARROW_SIGNED || t->kind == APO_ARROW_UNSIGNED ||
           t->kind == APO_ARROW_BINARY || t->kind == APO_ARROW_BINARY64 ||
           t->kind == APO_ARROW_VIEW;
}

/* Whether the column is a key, filling *r: integers, dates, strings, binary, views, or a
 * dictionary of these (not of a dictionary). */
static int key_reader_init(const struct ArrowSchema *s, key_reader *r) {
    if (apo__arrow_parse_format(s->format, &r->type) != 0)
        return 0;
    r->dictionary = s->dictionary != NULL;
    if (!r->dictionary) {
        r->values = r->type;
        return is_key_kind(&r->type);
    }
    if (s->dictionary->dictionary != NULL ||
        apo__arrow_parse_format(s->dictionary->format, &r->values) != 0)
        return 0;
    return is_key_kind(&r->values);
}

/* Row i (from the start of the buffers) of a checked array of key values. */
static key value_at(const apo__arrow_type *t, const struct ArrowArray *a, int64_t i) {
    key k = {NULL, 0, !apo__arrow_valid(a->buffers[0], i)};
    if (k.is_null)
        return k;
    switch (t->kind) {
    case APO_ARROW_BINARY: {
        const int32_t *offsets = (const int32_t *)a->buffers[1];
        k.bytes = (const uint8_t *)a->buffers[2] + offsets[i];
        k.len = (size_t)(offsets[i + 1] - offsets[i]);
        return k;
    }
    case APO_ARROW_BINARY64: {
        const int64_t *offsets = (const int64_t *)a->buffers[1];
        k.bytes = (const uint8_t *)a->buffers[2] + offsets[i];
        k.len = (size_t)(offsets[i + 1] - offsets[i]);
        return k;
    }
    case APO_ARROW_VIEW: {
        const uint8_t *v = (const uint8_t *)a->buffers[1] + 16 * i;
        int32_t len, index, off;
        memcpy(&len, v, 4);
        memcpy(&index, v + 8, 4);
        memcpy(&off, v + 12, 4);
        k.len = (size_t)len;
        k.bytes = len <= 12 ? v + 4 : (const uint8_t *)a->buffers[2 + index] + off;
        return k;
    }
    default:
        k.bytes = (const uint8_t *)a->buffers[1] + i * t->width;
        k.len = (size_t)t->width;
        return k;
    }
}

/* Row i of a checked key column, a dictionary's index resolved to its value. */
static key key_at(const key_reader *r, const struct ArrowArray *a, int64_t i) {
    if (!r->dictionary)
        return value_at(&r->type, a, i);
    if (!apo__arrow_valid(a->buffers[0], i)) {
        key null_key = {NULL, 0, 1};
        return null_key;
    }
    /* checked: the index names one of the dictionary's values */
    int64_t index = apo__arrow_int_at(&r->type, a->buffers[1], i);
    return value_at(&r->values, a->dictionary, a->dictionary->offset + index);
}

static int key_compare(const key *a, const key *b) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n > 0 ? memcmp(a->bytes, b->bytes, n) : 0;
    if (c != 0)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

static int run_key_compare(const void *pa, const void *pb) {
    const run_key *a = pa, *b = pb;
    int c = key_compare(&a->k, &b->k);
    return c != 0 ? c : (a->row > b->row) - (a->row < b->row);
}

/* A key in words for a message: an integer as its number, printable bytes as text,
 * anything else in hex. */
static void key_text(const key *k, const apo__arrow_type *t, char *buf, size_t size) {
    if (t->kind == APO_ARROW_SIGNED || t->kind == APO_ARROW_UNSIGNED) {
        snprintf(buf, size, "%lld", (long long)apo__arrow_int_at(t, k->bytes, 0));
        return;
    }
    size_t n = 0, shown = k->len < 24 ? k->len : 24;
    int printable = 1;
    for (size_t i = 0; i < shown; i++)
        printable &= k->bytes[i] >= 0x20 && k->bytes[i] < 0x7f && k->bytes[i] != '"';
    n += (size_t)snprintf(buf, size, printable ? "\"" : "0x");
    for (size_t i = 0; i < shown && n + 4 < size; i++)
        n += (size_t)snprintf(buf + n, size - n, printable ? "%c" : "%02x", k->bytes[i]);
    snprintf(buf + n, size - n, "%s%s", k->len > shown ? "..." : "", printable ? "\"" : "");
}

static apo_status check_chunks(const struct ArrowSchema *schema,
                               const struct ArrowArray *const *chunks, size_t n_chunks,
                               size_t *total) {
    if (chunks == NULL && n_chunks > 0)
        return apo__fail(APO_ERR_NULL, "chunks is NULL");
    APO_CHECK(apo_arrow_schema_check(schema));
    *total = 0;
    for (size_t c = 0; c < n_chunks; c++) {
        if (chunks[c] == NULL)
            return apo__fail(APO_ERR_NULL, "chunk %zu is NULL", c);
        APO_CHECK(apo_arrow_array_check(schema, chunks[c]));
        if ((uint64_t)chunks[c]->length >= SIZE_MAX / sizeof(size_t) - *total)
            return apo__fail(APO_ERR_OVERFLOW, "Arrow column: the chunks' lengths overflow");
        *total += (size_t)chunks[c]->length;
    }
    return APO_OK;
}

/* No key in two runs: the runs' first keys sorted, two equal neighbours refused. */
static apo_status check_runs_apart(run_key *firsts, size_t n_runs, const apo__arrow_type *t,
                                   const char *name) {
    qsort(firsts, n_runs, sizeof *firsts, run_key_compare);
    for (size_t r = 1; r < n_runs; r++) {
        if (key_compare(&firsts[r - 1].k, &firsts[r].k) == 0) {
            char text[96];
            key_text(&firsts[r].k, t, text, sizeof text);
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow key column %s: key %s has rows apart (from row %zu and again "
                             "from row %zu); sort the frame by its key (and time) first",
                             name, text, firsts[r - 1].row, firsts[r].row);
        }
    }
    return APO_OK;
}

/* The first row past `from` whose fixed-width value differs from row `from`'s, or `end`. */
static int64_t next_change(const void *data, int64_t width, int64_t from, int64_t end) {
    const uint8_t *p = (const uint8_t *)data;
    if (width == 4) {
        uint32_t first, v;
        memcpy(&first, p + 4 * from, 4);
        for (int64_t i = from + 1; i < end; i++) {
            memcpy(&v, p + 4 * i, 4);
            if (v != first)
                return i;
        }
        return end;
    }
    if (width == 8) {
        uint64_t first, v;
        memcpy(&first, p + 8 * from, 8);
        for (int64_t i = from + 1; i < end; i++) {
            memcpy(&v, p + 8 * i, 8);
            if (v != first)
                return i;
        }
        return end;
    }
    for (int64_t i = from + 1; i < end; i++)
        if (memcmp(p + width * i, p + width * from, (size_t)width) != 0)
            return i;
    return end;
}

/* Doubles the room for runs (starts keeps one more, for the length). */
static apo_status grow(size_t **starts, run_key **firsts, size_t *capacity) {
    size_t more = *capacity * 2;
    size_t *s = realloc(*starts, (more + 1) * sizeof *s);
    if (s != NULL)
        *starts = s;
    run_key *f = s != NULL ? realloc(*firsts, more * sizeof *f) : NULL;
    if (f == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "Arrow key column: %zu runs", more);
    *firsts = f;
    *capacity = more;
    return APO_OK;
}

apo_status apo_arrow_key_runs(const struct ArrowSchema *schema,
                              const struct ArrowArray *const *chunks, size_t n_chunks,
                              size_t **out_starts, size_t *out_runs) {
    if (out_starts == NULL || out_runs == NULL)
        return apo__fail(APO_ERR_NULL, "out_starts or out_runs is NULL");
    size_t total;
    APO_CHECK(check_chunks(schema, chunks, n_chunks, &total));
    const char *name = schema->name != NULL && schema->name[0] ? schema->name : "(unnamed)";
    key_reader reader;
    if (!key_reader_init(schema, &reader))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow key column %s: format \"%s\" is no key; integers, dates, "
                         "strings and binary (dictionary-encoded too) are",
                         name, schema->format);
    /* Grown as runs are found: a frame of few tickers and many bars needs little. */
    size_t capacity = 64;
    size_t *starts = malloc((capacity + 1) * sizeof *starts);
    run_key *firsts = malloc(capacity * sizeof *firsts);
    if (starts == NULL || firsts == NULL) {
        free(starts);
        free(firsts);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "Arrow key column %s: %zu rows", name, total);
    }
    size_t n_runs = 0, row = 0;
    key prev = {NULL, 0, 1};
    apo_status st = APO_OK;
    for (size_t c = 0; c < n_chunks && st == APO_OK; c++) {
        const struct ArrowArray *a = chunks[c];
        const int64_t end = a->offset + a->length;
        const int same_width = !reader.dictionary && (reader.type.kind == APO_ARROW_SIGNED ||
                                                      reader.type.kind == APO_ARROW_UNSIGNED);
        const int scan = same_width && apo__arrow_null_count(a) == 0;
        for (int64_t i = a->offset; i < end;) {
            key k = key_at(&reader, a, i);
            if (k.is_null) {
                st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                               "Arrow key column %s: row %zu is null; every row needs its key",
                               name, row);
                break;
            }
            if (row == 0 || key_compare(&prev, &k) != 0) {
                if (n_runs == capacity && grow(&starts, &firsts, &capacity) != APO_OK) {
                    st = APO_ERR_OUT_OF_MEMORY;
                    break;
                }
                firsts[n_runs].k = k;
                firsts[n_runs].row = row;
                starts[n_runs++] = row;
            }
            prev = k;
            /* Integers without nulls: the rest of the run in one scan of the buffer. */
            int64_t next = scan ? next_change(a->buffers[1], reader.type.width, i, end) : i + 1;
            row += (size_t)(next - i);
            i = next;
        }
    }
    if (st == APO_OK)
        st = check_runs_apart(firsts, n_runs, &reader.values, name);
    free(firsts);
    if (st != APO_OK) {
        free(starts);
        return st;
    }
    starts[n_runs] = total;
    *out_starts = starts;
    *out_runs = n_runs;
    return APO_OK;
}

static apo_status not_increasing(const char *name, size_t row, int same) {
    return apo__fail(APO_ERR_INVALID_ARGUMENT,
                     "Arrow time column %s: row %zu is %s row %zu of its group; sort the frame by "
                     "key and time (one row a time)",
                     name, row, same ? "the same time as" : "earlier than", row - 1);
}

/* The common case, one chunk of int64 times (timestamps) without nulls: each run in one
 * pass over the buffer. */
static apo_status increasing_int64(const struct ArrowArray *a, const size_t *starts, size_t n_runs,
                                   const char *name) {
    const uint8_t *data = (const uint8_t *)a->buffers[1] + 8 * a->offset;
    for (size_t r = 0; r < n_runs; r++) {
        int64_t prev;
        memcpy(&prev, data + 8 * starts[r], 8);
        for (size_t i = starts[r] + 1; i < starts[r + 1]; i++) {
            int64_t v;
            memcpy(&v, data + 8 * i, 8);
            if (v <= prev)
                return not_increasing(name, i, v == prev);
            prev = v;
        }
    }
    return APO_OK;
}

apo_status apo_arrow_check_increasing(const struct ArrowSchema *schema,
                                      const struct ArrowArray *const *chunks, size_t n_chunks,
                                      const size_t *starts, size_t n_runs) {
    size_t total;
    APO_CHECK(check_chunks(schema, chunks, n_chunks, &total));
    const char *name = schema->name != NULL && schema->name[0] ? schema->name : "(unnamed)";
    apo__arrow_type t;
    apo__arrow_parse_format(schema->format, &t);
    if (schema->dictionary != NULL ||
        !(t.kind == APO_ARROW_SIGNED || t.kind == APO_ARROW_UNSIGNED ||
          (t.kind == APO_ARROW_FLOAT && t.width >= 4)))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow time column %s: format \"%s\" is no order; integers, dates, "
                         "timestamps and floats are",
                         name, schema->format);
    if (starts == NULL || starts[0] != 0 || starts[n_runs] != total)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow time column %s: the runs do not cover its %zu rows", name, total);
    if (n_chunks == 1 && t.kind == APO_ARROW_SIGNED && t.width == 8 &&
        apo__arrow_null_count(chunks[0]) == 0)
        return increasing_int64(chunks[0], starts, n_runs, name);
    /* Integers compare as int64 (a uint64 past INT64_MAX as itself), floats as doubles:
     * exact either way, without a long double a row. */
    const int as_u64 = t.kind == APO_ARROW_UNSIGNED && t.width == 8;
    const int as_float = t.kind == APO_ARROW_FLOAT;
    size_t row = 0, run = 0, next_start = n_runs > 0 ? starts[1] : total;
    int64_t prev_i = 0;
    uint64_t prev_u = 0;
    double prev_d = 0;
    for (size_t c = 0; c < n_chunks; c++) {
        const struct ArrowArray *a = chunks[c];
        const int has_nulls = apo__arrow_null_count(a) != 0;
        const uint8_t *data = (const uint8_t *)a->buffers[1];
        for (int64_t i = a->offset; i < a->offset + a->length; i++, row++) {
            if (has_nulls && !apo__arrow_valid(a->buffers[0], i))
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "Arrow time column %s: row %zu is null; every bar needs its time",
                                 name, row);
            int first = row == 0;
            while (row >= next_start && run < n_runs) { /* past the run's end: the next run */
                first = 1;
                run++;
                next_start = starts[run + 1];
            }
            int order; /* > 0: increasing; 0: the same time; < 0: earlier */
            if (as_float) {
                double v = apo__arrow_float_at(&t, data, i);
                order = first || v > prev_d ? 1 : v == prev_d ? 0 : -1;
                prev_d = v;
            } else if (as_u64) {
                uint64_t v;
                memcpy(&v, data + 8 * i, 8);
                order = first || v > prev_u ? 1 : v == prev_u ? 0 : -1;
                prev_u = v;
            } else {
                int64_t v = t.width == 8 ? 0 : apo__arrow_int_at(&t, data, i);
                if (t.width == 8)
                    memcpy(&v, data + 8 * i, 8);
                order = first || v > prev_i ? 1 : v == prev_i ? 0 : -1;
                prev_i = v;
            }
            if (order <= 0)
                return not_increasing(name, row, order == 0);
        }
    }
    return APO_OK;
}

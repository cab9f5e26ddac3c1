/*
 * Checking what an Arrow producer handed over before anything is read
 * (include/apportion_arrow.h): format strings, buffer and child counts, lengths and offsets,
 * offsets buffers. A producer is trusted for one thing only, which the C data interface
 * cannot carry: that each buffer is as long as length and offset say.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_arrow.h"
#include "base/error.h"
#include "core/arrow_types.h"

/* Deeper nesting than any frame holds is refused rather than followed (a cycle of
 * children would otherwise recurse forever). */
#define MAX_DEPTH 64

static const char *name_of(const struct ArrowSchema *s) {
    return s->name != NULL && s->name[0] != '\0' ? s->name : "(unnamed)";
}

/* "+w:N", "w:N": N, a positive decimal number; -1 when not one. */
static int64_t parse_count(const char *text) {
    if (*text < '0' || *text > '9')
        return -1;
    int64_t n = 0;
    for (; *text != '\0'; text++) {
        if (*text < '0' || *text > '9' || n > (INT64_MAX - 9) / 10)
            return -1;
        n = n * 10 + (*text - '0');
    }
    return n > 0 ? n : -1;
}

/* Fills t with a format's layout; 0, as the parsers return for a format they know. */
static int layout(apo__arrow_type *t, apo__arrow_kind kind, int64_t width, int64_t n_buffers,
                  int64_t n_children, int temporal) {
    t->kind = kind;
    t->width = width;
    t->n_buffers = n_buffers;
    t->n_children = n_children;
    t->temporal = temporal;
    return 0;
}

/* The temporal formats ("t..."): all stored as signed integers but the intervals. */
static int parse_temporal(const char *f, apo__arrow_type *t) {
    static const char *const four[] = {"tdD", "tts", "ttm", NULL};
    static const char *const eight[] = {"tdm", "ttu", "ttn", "tDs", "tDm", "tDu", "tDn", NULL};
    for (int i = 0; four[i] != NULL; i++)
        if (strcmp(f, four[i]) == 0)
            return layout(t, APO_ARROW_SIGNED, 4, 2, 0, 1);
    for (int i = 0; eight[i] != NULL; i++)
        if (strcmp(f, eight[i]) == 0)
            return layout(t, APO_ARROW_SIGNED, 8, 2, 0, 1);
    /* Timestamps: "ts" + unit + ":" + an optional time zone. */
    if (strncmp(f, "ts", 2) == 0 && f[2] != '\0' && strchr("smun", f[2]) != NULL && f[3] == ':')
        return layout(t, APO_ARROW_SIGNED, 8, 2, 0, 1);
    if (strcmp(f, "tiM") == 0)
        return layout(t, APO_ARROW_FIXED, 4, 2, 0, 0);
    if (strcmp(f, "tiD") == 0)
        return layout(t, APO_ARROW_FIXED, 8, 2, 0, 0);
    if (strcmp(f, "tin") == 0)
        return layout(t, APO_ARROW_FIXED, 16, 2, 0, 0);
    return -1;
}

/* "d:P,S" or "d:P,S,W" (W 32, 64, 128 or 256 bits; 128 when absent). */
static int parse_decimal(const char *f, apo__arrow_type *t) {
    int precision, scale, bits = 128, used = 0;
    if (sscanf(f, "d:%d,%d%n", &precision, &scale, &used) != 2 || precision <= 0)
        return -1;
    if (f[used] == ',') {
        int more = 0;
        if (sscanf(f + used, ",%d%n", &bits, &more) != 1 || f[used + more] != '\0')
            return -1;
    } else if (f[used] != '\0') {
        return -1;
    }
    if (bits != 32 && bits != 64 && bits != 128 && bits != 256)
        return -1;
    return layout(t, APO_ARROW_FIXED, bits / 8, 2, 0, 0);
}

int apo__arrow_parse_format(const char *f, apo__arrow_type *t) {
    static const struct {
        const char *format;
        apo__arrow_kind kind;
        int64_t width, n_buffers;
    } plain[] = {
        {"n", APO_ARROW_NULL, 0, 0},     {"b", APO_ARROW_BOOL, 0, 2},
        {"c", APO_ARROW_SIGNED, 1, 2},   {"C", APO_ARROW_UNSIGNED, 1, 2},
        {"s", APO_ARROW_SIGNED, 2, 2},   {"S", APO_ARROW_UNSIGNED, 2, 2},
        {"i", APO_ARROW_SIGNED, 4, 2},   {"I", APO_ARROW_UNSIGNED, 4, 2},
        {"l", APO_ARROW_SIGNED, 8, 2},   {"L", APO_ARROW_UNSIGNED, 8, 2},
        {"e", APO_ARROW_FLOAT, 2, 2},    {"f", APO_ARROW_FLOAT, 4, 2},
        {"g", APO_ARROW_FLOAT, 8, 2},    {"z", APO_ARROW_BINARY, 0, 3},
        {"u", APO_ARROW_BINARY, 0, 3},   {"Z", APO_ARROW_BINARY64, 0, 3},
        {"U", APO_ARROW_BINARY64, 0, 3}, {"vz", APO_ARROW_VIEW, 16, 3},
        {"vu", APO_ARROW_VIEW, 16, 3},
    };
    if (f == NULL)
        return -1;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(f, plain[i].format) == 0)
            return layout(t, plain[i].kind, plain[i].width, plain[i].n_buffers, 0, 0);
    if (f[0] == 't')
        return parse_temporal(f, t);
    if (f[0] == 'd')
        return parse_decimal(f, t);
    if (f[0] == 'w' && f[1] == ':') {
        int64_t n = parse_count(f + 2);
        return n < 0 ? -1 : layout(t, APO_ARROW_FIXED, n, 2, 0, 0);
    }
    if (strcmp(f, "+s") == 0)
        return layout(t, APO_ARROW_STRUCT, 0, 1, -1, 0);
    if (strcmp(f, "+l") == 0 || strcmp(f, "+m") == 0)
        return layout(t, APO_ARROW_LIST, 0, 2, 1, 0);
    if (strcmp(f, "+L") == 0)
        return layout(t, APO_ARROW_LIST64, 0, 2, 1, 0);
    if (strncmp(f, "+w:", 3) == 0) {
        int64_t n = parse_count(f + 3);
        return n < 0 ? -1 : layout(t, APO_ARROW_FIXED_LIST, n, 1, 1, 0);
    }
    if (strcmp(f, "+vl") == 0 || strcmp(f, "+vL") == 0)
        return layout(t, APO_ARROW_OTHER, 0, 3, 1, 0);
    if (strcmp(f, "+r") == 0)
        return layout(t, APO_ARROW_OTHER, 0, 0, 2, 0);
    if (strncmp(f, "+ud:", 4) == 0)
        return layout(t, APO_ARROW_OTHER, 0, 2, -1, 0);
    if (strncmp(f, "+us:", 4) == 0)
        return layout(t, APO_ARROW_OTHER, 0, 1, -1, 0);
    return -1;
}

static apo_status schema_check_at(const struct ArrowSchema *s, int depth) {
    if (depth > MAX_DEPTH)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow schema: nested deeper than %d levels (a cycle of children?)",
                         MAX_DEPTH);
    if (s->release == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow schema %s: already released (release is NULL)", name_of(s));
    apo__arrow_type t;
    if (apo__arrow_parse_format(s->format, &t) != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow schema %s: format \"%.40s\" is not one the Arrow C data "
                         "interface defines",
                         name_of(s), s->format != NULL ? s->format : "(NULL)");
    if (s->n_children < 0 || (t.n_children >= 0 && s->n_children != t.n_children))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow schema %s: format \"%s\" has %lld children, expected %lld",
                         name_of(s), s->format, (long long)s->n_children, (long long)t.n_children);
    if (s->n_children > 0 && s->children == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow schema %s: %lld children but children is NULL", name_of(s),
                         (long long)s->n_children);
    for (int64_t i = 0; i < s->n_children; i++) {
        if (s->children[i] == NULL)
            return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow schema %s: child %lld is NULL",
                             name_of(s), (long long)i);
        APO_CHECK(schema_check_at(s->children[i], depth + 1));
    }
    if (s->dictionary != NULL) {
        if (t.kind != APO_ARROW_SIGNED && t.kind != APO_ARROW_UNSIGNED)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow schema %s: a dictionary's indices must be integers, not "
                             "format \"%s\"",
                             name_of(s), s->format);
        APO_CHECK(schema_check_at(s->dictionary, depth + 1));
    }
    return APO_OK;
}

apo_status apo_arrow_schema_check(const struct ArrowSchema *schema) {
    if (schema == NULL)
        return apo__fail(APO_ERR_NULL, "Arrow schema is NULL");
    return schema_check_at(schema, 0);
}

int64_t apo__arrow_null_count(const struct ArrowArray *a) {
    if (a->null_count >= 0)
        return a->null_count;
    if (a->n_buffers < 1 || a->buffers[0] == NULL)
        return 0;
    int64_t nulls = 0;
    for (int64_t i = a->offset; i < a->offset + a->length; i++)
        nulls += !apo__arrow_valid(a->buffers[0], i);
    return nulls;
}

int64_t apo__arrow_int_at(const apo__arrow_type *t, const void *data, int64_t i) {
    const uint8_t *p = (const uint8_t *)data + i * t->width;
    int signed_ = t->kind == APO_ARROW_SIGNED;
    if (t->width == 1)
        return signed_ ? (int8_t)*p : *p;
    if (t->width == 2) {
        uint16_t u;
        memcpy(&u, p, 2);
        return signed_ ? (int16_t)u : (int64_t)u;
    }
    if (t->width == 4) {
        uint32_t u;
        memcpy(&u, p, 4);
        return signed_ ? (int32_t)u : (int64_t)u;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The offsets of a binary or list array (32- or 64-bit) for rows offset .. offset+length:
 * present, never negative, never decreasing. *out_end: the last one (what the data or the
 * child must hold). */
static apo_status check_offsets(const struct ArrowSchema *s, const struct ArrowArray *a, int wide,
                                int64_t *out_end) {
    *out_end = 0;
    const void *buf = a->buffers[1];
    if (buf == NULL)
        return a->length == 0 ? APO_OK
                              : apo__fail(APO_ERR_INVALID_ARGUMENT,
                                          "Arrow array %s: offsets buffer is NULL", name_of(s));
    int64_t prev = -1;
    for (int64_t i = a->offset; i <= a->offset + a->length; i++) {
        int64_t v = wide ? ((const int64_t *)buf)[i] : ((const int32_t *)buf)[i];
        if (v < 0 || v < prev)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow array %s: offset %lld at row %lld is %s", name_of(s),
                             (long long)v, (long long)(i - a->offset),
                             v < 0 ? "negative" : "below the one before it");
        prev = v;
    }
    *out_end = prev;
    if (prev > 0 && a->n_buffers > 2 && s->children == NULL && a->buffers[2] == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: data buffer is NULL",
                         name_of(s));
    return APO_OK;
}

/* Views ("vu", "vz"): an inline view (length <= 12) holds its bytes; any other names a
 * data buffer by index and an offset, which must lie inside that buffer's size (the last
 * buffer holds the data buffers' sizes). */
static apo_status check_views(const struct ArrowSchema *s, const struct ArrowArray *a) {
    int64_t n_data = a->n_buffers - 3;
    const int64_t *sizes = (const int64_t *)a->buffers[a->n_buffers - 1];
    const uint8_t *views = (const uint8_t *)a->buffers[1];
    if (a->length > 0 && views == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: views buffer is NULL",
                         name_of(s));
    if (n_data > 0 && sizes == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: the buffer of data buffer sizes is NULL", name_of(s));
    for (int64_t i = a->offset; i < a->offset + a->length; i++) {
        const uint8_t *v = views + 16 * i;
        int32_t len, index, off;
        memcpy(&len, v, 4);
        memcpy(&index, v + 8, 4);
        memcpy(&off, v + 12, 4);
        if (len < 0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow array %s: view at row %lld has a negative length", name_of(s),
                             (long long)(i - a->offset));
        if (len <= 12 || !apo__arrow_valid(a->buffers[0], i))
            continue;
        if (index < 0 || index >= n_data || off < 0 || a->buffers[2 + index] == NULL ||
            (int64_t)off + len > sizes[index])
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow array %s: view at row %lld points outside its data buffers",
                             name_of(s), (long long)(i - a->offset));
    }
    return APO_OK;
}

static apo_status array_check_at(const struct ArrowSchema *s, const struct ArrowArray *a,
                                 int depth);

/* What the buffers of each kind of value must hold; the counts are checked already. */
static apo_status check_buffers(const struct ArrowSchema *s, const struct ArrowArray *a,
                                const apo__arrow_type *t) {
    int64_t end = a->offset + a->length;
    if (t->kind != APO_ARROW_NULL && t->kind != APO_ARROW_OTHER && a->buffers[0] == NULL &&
        a->null_count > 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: null_count is %lld but the validity buffer is NULL",
                         name_of(s), (long long)a->null_count);
    switch (t->kind) {
    case APO_ARROW_BOOL:
    case APO_ARROW_SIGNED:
    case APO_ARROW_UNSIGNED:
    case APO_ARROW_FLOAT:
    case APO_ARROW_FIXED:
        if (a->length > 0 && a->buffers[1] == NULL)
            return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: data buffer is NULL",
                             name_of(s));
        if (t->width > 0 && end > INT64_MAX / t->width)
            return apo__fail(APO_ERR_OVERFLOW,
                             "Arrow array %s: offset + length = %lld values of %lld bytes "
                             "overflow",
                             name_of(s), (long long)end, (long long)t->width);
        return APO_OK;
    case APO_ARROW_BINARY:
    case APO_ARROW_BINARY64:
    case APO_ARROW_LIST:
    case APO_ARROW_LIST64: {
        int64_t last;
        APO_CHECK(check_offsets(s, a, t->kind == APO_ARROW_BINARY64 || t->kind == APO_ARROW_LIST64,
                                &last));
        if (s->n_children == 1 && a->children[0]->length < last)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow array %s: offsets reach %lld but the child has %lld values",
                             name_of(s), (long long)last, (long long)a->children[0]->length);
        return APO_OK;
    }
    case APO_ARROW_VIEW:
        return check_views(s, a);
    case APO_ARROW_STRUCT:
    case APO_ARROW_FIXED_LIST:
        for (int64_t i = 0; i < a->n_children; i++) {
            int64_t per = t->kind == APO_ARROW_FIXED_LIST ? t->width : 1;
            if (end > INT64_MAX / per || a->children[i]->length < end * per)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "Arrow array %s: child %s has %lld values, fewer than the "
                                 "%lld rows need",
                                 name_of(s), name_of(s->children[i]),
                                 (long long)a->children[i]->length, (long long)end);
        }
        return APO_OK;
    default:
        return APO_OK;
    }
}

/* A dictionary's indices must name one of its values. */
static apo_status check_indices(const struct ArrowSchema *s, const struct ArrowArray *a,
                                const apo__arrow_type *t) {
    int64_t size = a->dictionary->length;
    for (int64_t i = a->offset; i < a->offset + a->length; i++) {
        if (!apo__arrow_valid(a->buffers[0], i))
            continue;
        int64_t v = apo__arrow_int_at(t, a->buffers[1], i);
        if (v < 0 || v >= size)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "Arrow array %s: dictionary index %lld at row %lld is outside its "
                             "%lld values",
                             name_of(s), (long long)v, (long long)(i - a->offset), (long long)size);
    }
    return APO_OK;
}

static apo_status check_counts(const struct ArrowSchema *s, const struct ArrowArray *a,
                               const apo__arrow_type *t) {
    if (a->length < 0 || a->offset < 0 || a->offset > INT64_MAX - a->length)
        return apo__fail(APO_ERR_OVERFLOW,
                         "Arrow array %s: length %lld and offset %lld are negative or overflow",
                         name_of(s), (long long)a->length, (long long)a->offset);
    if (a->null_count < -1 || a->null_count > a->length)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: null_count %lld is outside -1 .. length %lld", name_of(s),
                         (long long)a->null_count, (long long)a->length);
    int views = t->kind == APO_ARROW_VIEW;
    if (views ? a->n_buffers < t->n_buffers : a->n_buffers != t->n_buffers)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: %lld buffers, format \"%s\" needs %s%lld", name_of(s),
                         (long long)a->n_buffers, s->format, views ? "at least " : "",
                         (long long)t->n_buffers);
    if (a->n_buffers > 0 && a->buffers == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: buffers is NULL", name_of(s));
    if (a->n_children != s->n_children)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: %lld children, its schema has %lld", name_of(s),
                         (long long)a->n_children, (long long)s->n_children);
    if (a->n_children > 0 && a->children == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: children is NULL", name_of(s));
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i] == NULL)
            return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: child %lld is NULL",
                             name_of(s), (long long)i);
    if ((s->dictionary == NULL) != (a->dictionary == NULL))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: the schema %s a dictionary and the array %s", name_of(s),
                         s->dictionary != NULL ? "has" : "has no",
                         a->dictionary != NULL ? "has one" : "has none");
    return APO_OK;
}

static apo_status array_check_at(const struct ArrowSchema *s, const struct ArrowArray *a,
                                 int depth) {
    if (depth > MAX_DEPTH)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array: nested deeper than %d levels",
                         MAX_DEPTH);
    if (a->release == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: already released (release is NULL)", name_of(s));
    apo__arrow_type t;
    if (apo__arrow_parse_format(s->format, &t) != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow schema %s: unknown format", name_of(s));
    APO_CHECK(check_counts(s, a, &t));
    for (int64_t i = 0; i < a->n_children; i++)
        APO_CHECK(array_check_at(s->children[i], a->children[i], depth + 1));
    if (a->dictionary != NULL)
        APO_CHECK(array_check_at(s->dictionary, a->dictionary, depth + 1));
    APO_CHECK(check_buffers(s, a, &t));
    if (a->dictionary != NULL)
        APO_CHECK(check_indices(s, a, &t));
    return APO_OK;
}

apo_status apo_arrow_array_check(const struct ArrowSchema *schema, const struct ArrowArray *array) {
    if (array == NULL)
        return apo__fail(APO_ERR_NULL, "Arrow array is NULL");
    APO_CHECK(apo_arrow_schema_check(schema));
    return array_check_at(schema, array, 0);
}

void apo_arrow_schema_release(struct ArrowSchema *schema) {
    if (schema == NULL || schema->release == NULL)
        return;
    void (*release)(struct ArrowSchema *) = schema->release;
    release(schema);
    schema->release = NULL; /* the producer should have; a second call must find nothing */
}

void apo_arrow_array_release(struct ArrowArray *array) {
    if (array == NULL || array->release == NULL)
        return;
    void (*release)(struct ArrowArray *) = array->release;
    release(array);
    array->release = NULL;
}

static void release_nothing(struct ArrowArray *view) { view->release = NULL; }

apo_status apo_arrow_struct_field(const struct ArrowSchema *schema, const struct ArrowArray *array,
                                  size_t index, struct ArrowArray *out) {
    if (out == NULL)
        return apo__fail(APO_ERR_NULL, "out is NULL");
    if (array == NULL)
        return apo__fail(APO_ERR_NULL, "Arrow array is NULL");
    APO_CHECK(apo_arrow_schema_check(schema));
    if (strcmp(schema->format, "+s") != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: format \"%s\" is no struct (\"+s\")", name_of(schema),
                         schema->format);
    if (array->release == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: already released (release is NULL)", name_of(schema));
    /* The struct's own counts and the one field: its siblings (a string column's offsets,
     * say) are not read through this view, so they are not walked at every field taken. */
    apo__arrow_type t;
    apo__arrow_parse_format(schema->format, &t);
    APO_CHECK(check_counts(schema, array, &t));
    if (index >= (size_t)array->n_children)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "Arrow array %s: field %zu of %lld fields",
                         name_of(schema), index, (long long)array->n_children);
    const struct ArrowArray *child = array->children[index];
    APO_CHECK(array_check_at(schema->children[index], child, 1));
    if (child->length < array->offset + array->length)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: child %s has %lld values, fewer than the %lld rows need",
                         name_of(schema), name_of(schema->children[index]),
                         (long long)child->length, (long long)(array->offset + array->length));
    if (apo__arrow_null_count(array) > 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow array %s: rows of the struct itself are null; a record batch "
                         "has none",
                         name_of(schema));
    *out = *array->children[index];
    out->offset += array->offset; /* checked: the child holds offset + length rows */
    out->length = array->length;
    out->null_count = out->null_count == 0 ? 0 : -1; /* counted anew over the rows in view */
    out->release = release_nothing;
    out->private_data = NULL;
    return APO_OK;
}

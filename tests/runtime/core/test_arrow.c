/*
 * include/apportion_arrow.h against arrays built here by hand, as a hostile or careless
 * producer could build them: a table of malformed schemas and arrays, each refused with a
 * message naming what is wrong; float64 read in place (the producer's own buffer), other
 * types and nulls converted; release callbacks called exactly once; a long frame's key
 * runs and its time order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_arrow.h"

static int schema_releases, array_releases;

static void count_schema_release(struct ArrowSchema *s) {
    schema_releases++;
    s->release = NULL;
}

static void count_array_release(struct ArrowArray *a) {
    array_releases++;
    a->release = NULL;
}

/* A release that forgets to mark the struct released, as a careless producer's might. */
static void forgetful_release(struct ArrowArray *a) {
    (void)a;
    array_releases++;
}

static struct ArrowSchema schema_of(const char *format, const char *name) {
    struct ArrowSchema s = {
        format, name, NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL, count_schema_release, NULL};
    return s;
}

static struct ArrowArray array_of(int64_t length, int64_t n_buffers, const void **buffers) {
    struct ArrowArray a = {length,  0,    0,    n_buffers,           0,
                           buffers, NULL, NULL, count_array_release, NULL};
    return a;
}

#define ASSERT_REFUSED(expr, status, text)                                                         \
    do {                                                                                           \
        apo_status st_ = (expr);                                                                   \
        cr_assert_eq(st_, status, "%s returned %s (%s)", #expr, apo_status_name(st_),              \
                     apo_last_error());                                                            \
        cr_assert(strstr(apo_last_error(), text) != NULL, "message \"%s\" lacks \"%s\"",           \
                  apo_last_error(), text);                                                         \
    } while (0)

static const double five[] = {1.5, -2.0, 3.25, 4.0, 5.0};

/* A struct array "batch" of `rows` rows with one float64 field "close", `child_rows` of
 * five's values. It points into itself: it stays where it was set up. */
typedef struct one_field_batch {
    struct ArrowSchema child_schema, schema;
    struct ArrowSchema *child_schemas[1];
    struct ArrowArray child, array;
    struct ArrowArray *children[1];
    const void *child_buffers[2], *buffers[1];
} one_field_batch;

static void one_field_batch_init(one_field_batch *b, int64_t rows, int64_t child_rows) {
    b->child_schema = schema_of("g", "close");
    b->child_schemas[0] = &b->child_schema;
    b->schema = schema_of("+s", "batch");
    b->schema.n_children = 1;
    b->schema.children = b->child_schemas;
    b->child_buffers[0] = NULL;
    b->child_buffers[1] = five;
    b->child = array_of(child_rows, 2, b->child_buffers);
    b->children[0] = &b->child;
    b->buffers[0] = NULL;
    b->array = array_of(rows, 1, b->buffers);
    b->array.n_children = 1;
    b->array.children = b->children;
}

Test(arrow, float64_is_read_in_place) {
    const void *buffers[] = {NULL, five};
    struct ArrowSchema s = schema_of("g", "close");
    struct ArrowArray a = array_of(4, 2, buffers);
    a.offset = 1;
    const struct ArrowArray *chunks[] = {&a};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    cr_assert_eq(apo_arrow_read_f64(&s, chunks, 1, &v), APO_OK, "%s", apo_last_error());
    cr_assert_eq(v.in_place, 1);
    cr_assert_eq(v.values, five + 1, "the producer's own buffer, past its offset");
    cr_assert_eq(v.length, 4);
    apo_arrow_values_free(&v);
    cr_assert_eq(array_releases, 0, "reading releases nothing");
}

Test(arrow, nulls_and_other_types_are_converted) {
    const uint8_t validity[] = {0x1b}; /* rows 0, 1, 3, 4 valid; row 2 null */
    const int16_t shorts[] = {7, -3, 999, 12, 0};
    const void *buffers[] = {validity, shorts};
    struct ArrowSchema s = schema_of("s", "volume");
    struct ArrowArray a = array_of(5, 2, buffers);
    a.null_count = -1; /* unknown: counted from the bitmap */
    const struct ArrowArray *chunks[] = {&a, &a};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    cr_assert_eq(apo_arrow_read_f64(&s, chunks, 2, &v), APO_OK, "%s", apo_last_error());
    cr_assert_eq(v.in_place, 0);
    cr_assert_eq(v.length, 10);
    cr_assert_eq(v.nulls, 2);
    const double want[] = {7, -3, NAN, 12, 0};
    for (size_t i = 0; i < 10; i++) {
        if (isnan(want[i % 5]))
            cr_assert(isnan(v.values[i]), "row %zu is null: NaN", i);
        else
            cr_assert_eq(v.values[i], want[i % 5], "row %zu", i);
    }
    apo_arrow_values_free(&v);
    cr_assert_null(v.values);
}

Test(arrow, half_floats_and_booleans) {
    /* 1.0, -2.5, 65504 (the largest half), a subnormal 2^-24, +inf */
    const uint16_t halves[] = {0x3c00, 0xc100, 0x7bff, 0x0001, 0x7c00};
    const void *hb[] = {NULL, halves};
    struct ArrowSchema hs = schema_of("e", "h");
    struct ArrowArray ha = array_of(5, 2, hb);
    const struct ArrowArray *hc[] = {&ha};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    cr_assert_eq(apo_arrow_read_f64(&hs, hc, 1, &v), APO_OK, "%s", apo_last_error());
    const double want[] = {1.0, -2.5, 65504.0, ldexp(1.0, -24), INFINITY};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(v.values[i], want[i], "half %d: %g", i, v.values[i]);
    apo_arrow_values_free(&v);

    const uint8_t bits[] = {0x05}; /* 1, 0, 1 */
    const void *bb[] = {NULL, bits};
    struct ArrowSchema bs = schema_of("b", "flag");
    struct ArrowArray ba = array_of(3, 2, bb);
    const struct ArrowArray *bc[] = {&ba};
    cr_assert_eq(apo_arrow_read_f64(&bs, bc, 1, &v), APO_OK, "%s", apo_last_error());
    cr_assert(v.values[0] == 1 && v.values[1] == 0 && v.values[2] == 1);
    apo_arrow_values_free(&v);
}

Test(arrow, misaligned_float64_is_copied) {
    static uint8_t raw[8 * 4 + 1];
    double src[4] = {1, 2, 3, 4};
    memcpy(raw + 1, src, sizeof src);
    const void *buffers[] = {NULL, raw + 1};
    struct ArrowSchema s = schema_of("g", "x");
    struct ArrowArray a = array_of(4, 2, buffers);
    const struct ArrowArray *chunks[] = {&a};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    cr_assert_eq(apo_arrow_read_f64(&s, chunks, 1, &v), APO_OK, "%s", apo_last_error());
    cr_assert_eq(v.in_place, 0, "an unaligned buffer is not handed to the kernels");
    cr_assert_eq(v.values[3], 4.0);
    apo_arrow_values_free(&v);
}

Test(arrow, device_arrays) {
    const void *buffers[] = {NULL, five};
    struct ArrowSchema s = schema_of("g", "x");
    struct ArrowDeviceArray d = {array_of(5, 2, buffers), 0, ARROW_DEVICE_CUDA_HOST, NULL, {0}};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    cr_assert_eq(apo_arrow_read_device_f64(&s, &d, &v), APO_OK, "%s", apo_last_error());
    cr_assert(v.pinned && v.in_place && v.values == five);
    apo_arrow_values_free(&v);
    d.device_type = ARROW_DEVICE_CUDA;
    ASSERT_REFUSED(apo_arrow_read_device_f64(&s, &d, &v), APO_ERR_INVALID_ARGUMENT,
                   "device type 2");
    d.device_type = ARROW_DEVICE_CPU;
    int event = 0;
    d.sync_event = &event;
    ASSERT_REFUSED(apo_arrow_read_device_f64(&s, &d, &v), APO_ERR_INVALID_ARGUMENT, "sync_event");
}

Test(arrow, release_is_called_exactly_once) {
    struct ArrowSchema s = schema_of("g", "x");
    const void *buffers[] = {NULL, five};
    struct ArrowArray a = array_of(5, 2, buffers);
    a.release = forgetful_release;
    schema_releases = array_releases = 0;
    apo_arrow_schema_release(&s);
    apo_arrow_schema_release(&s);
    apo_arrow_array_release(&a);
    apo_arrow_array_release(&a);
    apo_arrow_array_release(NULL);
    cr_assert_eq(schema_releases, 1);
    cr_assert_eq(array_releases, 1, "a forgetful producer's release still runs once");
    const struct ArrowArray *chunks[] = {&a};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    s.release = count_schema_release;
    ASSERT_REFUSED(apo_arrow_read_f64(&s, chunks, 1, &v), APO_ERR_INVALID_ARGUMENT,
                   "already released");
}

/* ---- The table of malformed schemas -------------------------------------------------- */

Test(arrow, malformed_schemas) {
    static const struct {
        const char *format;
        int64_t n_children;
        const char *text;
    } cases[] = {
        {NULL, 0, "(NULL)"},        {"", 0, "format \"\""},     {"x", 0, "format \"x\""},
        {"gg", 0, "format \"gg\""}, {"w:", 0, "format \"w:\""}, {"w:-4", 0, "format"},
        {"d:5", 0, "format"},       {"d:5,2,48", 0, "format"},  {"ts", 0, "format"},
        {"tsu", 0, "format"},       {"+w:0", 1, "format"},      {"g", 1, "1 children"},
        {"+l", 0, "expected 1"},    {"+l", 2, "expected 1"},    {"+s", -1, "-1 children"},
    };
    struct ArrowSchema child = schema_of("g", "c");
    struct ArrowSchema *children[] = {&child, &child};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ArrowSchema s = schema_of(cases[i].format, "bad");
        s.n_children = cases[i].n_children;
        s.children = s.n_children > 0 ? children : NULL;
        ASSERT_REFUSED(apo_arrow_schema_check(&s), APO_ERR_INVALID_ARGUMENT, cases[i].text);
    }
    struct ArrowSchema s = schema_of("+s", "batch");
    s.n_children = 2;
    ASSERT_REFUSED(apo_arrow_schema_check(&s), APO_ERR_INVALID_ARGUMENT, "children is NULL");
    struct ArrowSchema *holes[] = {&child, NULL};
    s.children = holes;
    ASSERT_REFUSED(apo_arrow_schema_check(&s), APO_ERR_INVALID_ARGUMENT, "child 1 is NULL");
    struct ArrowSchema cycle = schema_of("+l", "loop");
    struct ArrowSchema *self[] = {&cycle};
    cycle.n_children = 1;
    cycle.children = self;
    ASSERT_REFUSED(apo_arrow_schema_check(&cycle), APO_ERR_INVALID_ARGUMENT, "deeper than");
    struct ArrowSchema dict_of_float = schema_of("g", "d");
    dict_of_float.dictionary = &child;
    ASSERT_REFUSED(apo_arrow_schema_check(&dict_of_float), APO_ERR_INVALID_ARGUMENT,
                   "must be integers");
    ASSERT_REFUSED(apo_arrow_schema_check(NULL), APO_ERR_NULL, "NULL");
    /* Every well-formed format of the specification passes. */
    static const char *const good[] = {
        "n",    "b",   "c",   "C",   "s",   "S",       "i",
        "I",    "l",   "L",   "e",   "f",   "g",       "z",
        "u",    "Z",   "U",   "vz",  "vu",  "d:19,10", "d:5,2,64",
        "w:42", "tdD", "tdm", "tts", "ttn", "tss:",    "tsn:Europe/Paris",
        "tDu",  "tiM", "tin"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct ArrowSchema g = schema_of(good[i], "good");
        cr_assert_eq(apo_arrow_schema_check(&g), APO_OK, "%s: %s", good[i], apo_last_error());
    }
}

/* ---- The table of malformed arrays --------------------------------------------------- */

typedef struct bad_array {
    const char *what;
    const char *format;
    int64_t length, offset, null_count, n_buffers;
    int null_buffers; /* 1: the buffers pointer itself is NULL; 2: the data buffer is NULL */
    apo_status status;
    const char *text;
} bad_array;

Test(arrow, malformed_arrays) {
    static const bad_array cases[] = {
        {"negative length", "g", -1, 0, 0, 2, 0, APO_ERR_OVERFLOW, "negative or overflow"},
        {"negative offset", "g", 2, -1, 0, 2, 0, APO_ERR_OVERFLOW, "negative or overflow"},
        {"offset + length overflows", "g", INT64_MAX, 1, 0, 2, 0, APO_ERR_OVERFLOW, "overflow"},
        {"values overflow their bytes", "g", INT64_MAX / 4, 0, 0, 2, 0, APO_ERR_OVERFLOW,
         "overflow"},
        {"null_count below -1", "g", 2, 0, -2, 2, 0, APO_ERR_INVALID_ARGUMENT, "null_count -2"},
        {"null_count above length", "g", 2, 0, 3, 2, 0, APO_ERR_INVALID_ARGUMENT, "null_count 3"},
        {"too few buffers", "g", 2, 0, 0, 1, 0, APO_ERR_INVALID_ARGUMENT, "needs 2"},
        {"too many buffers", "g", 2, 0, 0, 3, 0, APO_ERR_INVALID_ARGUMENT, "needs 2"},
        {"strings with 2 buffers", "u", 2, 0, 0, 2, 0, APO_ERR_INVALID_ARGUMENT, "needs 3"},
        {"views with 2 buffers", "vu", 2, 0, 0, 2, 0, APO_ERR_INVALID_ARGUMENT, "at least 3"},
        {"buffers pointer NULL", "g", 2, 0, 0, 2, 1, APO_ERR_INVALID_ARGUMENT, "buffers is NULL"},
        {"data buffer NULL", "g", 2, 0, 0, 2, 2, APO_ERR_INVALID_ARGUMENT, "data buffer is NULL"},
        {"nulls without a bitmap", "g", 2, 0, 1, 2, 0, APO_ERR_INVALID_ARGUMENT,
         "validity buffer is NULL"},
    };
    static const double data[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const void *buffers[] = {NULL, cases[i].null_buffers == 2 ? NULL : data, data};
        struct ArrowSchema s = schema_of(cases[i].format, cases[i].what);
        struct ArrowArray a = array_of(cases[i].length, cases[i].n_buffers,
                                       cases[i].null_buffers == 1 ? NULL : buffers);
        a.offset = cases[i].offset;
        a.null_count = cases[i].null_count;
        apo_status st = apo_arrow_array_check(&s, &a);
        cr_assert_eq(st, cases[i].status, "%s: %s (%s)", cases[i].what, apo_status_name(st),
                     apo_last_error());
        cr_assert(strstr(apo_last_error(), cases[i].text) != NULL, "%s: \"%s\" lacks \"%s\"",
                  cases[i].what, apo_last_error(), cases[i].text);
        cr_assert(strstr(apo_last_error(), cases[i].what) != NULL, "the message names the column");
    }
}

Test(arrow, malformed_offsets_children_and_dictionaries) {
    const int32_t backwards[] = {0, 4, 2};
    const int32_t negative[] = {-1, 2, 3};
    const char text[] = "abcd";
    const void *b1[] = {NULL, backwards, text};
    const void *b2[] = {NULL, negative, text};
    struct ArrowSchema s = schema_of("u", "ticker");
    struct ArrowArray a = array_of(2, 3, b1);
    ASSERT_REFUSED(apo_arrow_array_check(&s, &a), APO_ERR_INVALID_ARGUMENT, "below the one");
    a.buffers = b2;
    ASSERT_REFUSED(apo_arrow_array_check(&s, &a), APO_ERR_INVALID_ARGUMENT, "negative");

    /* A struct whose child is shorter than its rows, or whose child array is NULL. */
    one_field_batch b;
    one_field_batch_init(&b, 5, 3);
    ASSERT_REFUSED(apo_arrow_array_check(&b.schema, &b.array), APO_ERR_INVALID_ARGUMENT,
                   "fewer than");
    b.children[0] = NULL;
    ASSERT_REFUSED(apo_arrow_array_check(&b.schema, &b.array), APO_ERR_INVALID_ARGUMENT,
                   "child 0 is NULL");
    b.children[0] = &b.child;
    b.array.n_children = 0;
    ASSERT_REFUSED(apo_arrow_array_check(&b.schema, &b.array), APO_ERR_INVALID_ARGUMENT,
                   "0 children");

    /* Dictionary indices past the dictionary's values; a dictionary on one side only. */
    const int32_t offsets[] = {0, 1, 2};
    const void *db[] = {NULL, offsets, "ab"};
    struct ArrowSchema dict_s = schema_of("u", NULL);
    struct ArrowArray dict_a = array_of(2, 3, db);
    const int8_t indices[] = {0, 1, 2};
    const void *ib[] = {NULL, indices};
    struct ArrowSchema is = schema_of("c", "ticker");
    is.dictionary = &dict_s;
    struct ArrowArray ia = array_of(3, 2, ib);
    ia.dictionary = &dict_a;
    ASSERT_REFUSED(apo_arrow_array_check(&is, &ia), APO_ERR_INVALID_ARGUMENT, "index 2 at row 2");
    ia.dictionary = NULL;
    ASSERT_REFUSED(apo_arrow_array_check(&is, &ia), APO_ERR_INVALID_ARGUMENT, "has none");

    /* A view pointing past its data buffer. */
    uint8_t views[16] = {0};
    int32_t len = 20, index = 0, off = 0;
    memcpy(views, &len, 4);
    memcpy(views + 8, &index, 4);
    memcpy(views + 12, &off, 4);
    const int64_t sizes[] = {10};
    const void *vb[] = {NULL, views, "0123456789", sizes};
    struct ArrowSchema vs = schema_of("vu", "ticker");
    struct ArrowArray va = array_of(1, 4, vb);
    ASSERT_REFUSED(apo_arrow_array_check(&vs, &va), APO_ERR_INVALID_ARGUMENT, "outside");
}

Test(arrow, types_not_read_as_numbers) {
    static const char *const refused[] = {"u", "tdD", "tsu:", "d:10,2", "+s", "n"};
    static const double data[2] = {1, 2};
    const void *buffers[] = {NULL, data, data};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        struct ArrowSchema s = schema_of(refused[i], "x");
        struct ArrowArray a = array_of(0, 2, buffers);
        const struct ArrowArray *chunks[] = {&a};
        apo_arrow_values v = APO_ARROW_VALUES_INIT;
        cr_assert_neq(apo_arrow_read_f64(&s, chunks, 1, &v), APO_OK, "%s read", refused[i]);
    }
    struct ArrowSchema s = schema_of("tdD", "date");
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    ASSERT_REFUSED(apo_arrow_read_f64(&s, NULL, 0, &v), APO_ERR_INVALID_ARGUMENT,
                   "format \"tdD\" is not read as numbers");
    v.size = 3;
    struct ArrowSchema g = schema_of("g", "x");
    ASSERT_REFUSED(apo_arrow_read_f64(&g, NULL, 0, &v), APO_ERR_INVALID_ARGUMENT,
                   "APO_ARROW_VALUES_INIT");
}

Test(arrow, struct_fields_apply_the_struct_offset) {
    one_field_batch b;
    one_field_batch_init(&b, 3, 5);
    b.array.offset = 2;
    struct ArrowArray view;
    cr_assert_eq(apo_arrow_struct_field(&b.schema, &b.array, 0, &view), APO_OK, "%s",
                 apo_last_error());
    const struct ArrowArray *chunks[] = {&view};
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    cr_assert_eq(apo_arrow_read_f64(&b.child_schema, chunks, 1, &v), APO_OK, "%s",
                 apo_last_error());
    cr_assert(v.in_place && v.values == five + 2 && v.length == 3);
    array_releases = 0;
    apo_arrow_array_release(&view);
    cr_assert_eq(array_releases, 0, "the view's release leaves the child alone");
    ASSERT_REFUSED(apo_arrow_struct_field(&b.schema, &b.array, 1, &view), APO_ERR_INVALID_ARGUMENT,
                   "field 1 of 1");
    b.array.length = 4; /* rows 2 .. 5 of a child of 5 values */
    ASSERT_REFUSED(apo_arrow_struct_field(&b.schema, &b.array, 0, &view), APO_ERR_INVALID_ARGUMENT,
                   "fewer than the 6 rows need");
    b.array.length = 3;
    b.child.n_buffers = 1;
    ASSERT_REFUSED(apo_arrow_struct_field(&b.schema, &b.array, 0, &view), APO_ERR_INVALID_ARGUMENT,
                   "needs 2");
}

/* ---- Key runs and time order -------------------------------------------------------- */

/* Strings "AA","AA","B","B","B","CCCCCCCCCCCCCC" (the last past a view's 12 inline bytes),
 * as utf8 and in two chunks. */
Test(arrow, key_runs_of_strings_across_chunks) {
    const int32_t o1[] = {0, 2, 4, 5};
    const int32_t o2[] = {0, 1, 2, 16};
    const void *b1[] = {NULL, o1, "AAAAB"};
    const void *b2[] = {NULL, o2, "BBCCCCCCCCCCCCCC"};
    struct ArrowSchema s = schema_of("u", "ticker");
    struct ArrowArray c1 = array_of(3, 3, b1), c2 = array_of(3, 3, b2);
    const struct ArrowArray *chunks[] = {&c1, &c2};
    size_t *starts = NULL, runs = 0;
    cr_assert_eq(apo_arrow_key_runs(&s, chunks, 2, &starts, &runs), APO_OK, "%s", apo_last_error());
    cr_assert_eq(runs, 3);
    size_t want[] = {0, 2, 5, 6};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(starts[i], want[i], "start %d: %zu", i, starts[i]);
    free(starts);
    /* "AA" again after "B": rows apart. */
    const int32_t o3[] = {0, 2};
    const void *b3[] = {NULL, o3, "AA"};
    struct ArrowArray c3 = array_of(1, 3, b3);
    const struct ArrowArray *apart[] = {&c1, &c3};
    ASSERT_REFUSED(apo_arrow_key_runs(&s, apart, 2, &starts, &runs), APO_ERR_INVALID_ARGUMENT,
                   "key \"AA\" has rows apart (from row 0 and again from row 3)");
}

Test(arrow, key_runs_of_dictionaries_and_views) {
    /* Two chunks whose dictionaries differ ("x","y" and "y","x"): compared by value. */
    const int32_t offsets[] = {0, 1, 2};
    const void *d1b[] = {NULL, offsets, "xy"}, *d2b[] = {NULL, offsets, "yx"};
    struct ArrowSchema ds = schema_of("u", NULL);
    struct ArrowArray d1 = array_of(2, 3, d1b), d2 = array_of(2, 3, d2b);
    const int32_t i1[] = {0, 0, 1}, i2[] = {0, 0};
    const void *c1b[] = {NULL, i1}, *c2b[] = {NULL, i2};
    struct ArrowSchema s = schema_of("i", "ticker");
    s.dictionary = &ds;
    struct ArrowArray c1 = array_of(3, 2, c1b), c2 = array_of(2, 2, c2b);
    c1.dictionary = &d1;
    c2.dictionary = &d2;
    const struct ArrowArray *chunks[] = {&c1, &c2};
    size_t *starts = NULL, runs = 0;
    cr_assert_eq(apo_arrow_key_runs(&s, chunks, 2, &starts, &runs), APO_OK, "%s", apo_last_error());
    cr_assert(runs == 2 && starts[1] == 2 && starts[2] == 5, "x x | y y y");
    free(starts);

    uint8_t views[32] = {0};
    int32_t short_len = 3, long_len = 14, zero = 0;
    memcpy(views, &short_len, 4);
    memcpy(views + 4, "abc", 3);
    memcpy(views + 16, &long_len, 4);
    memcpy(views + 20, "abcd", 4);
    memcpy(views + 24, &zero, 4);
    memcpy(views + 28, &zero, 4);
    const int64_t sizes[] = {14};
    const void *vb[] = {NULL, views, "abcdefghijklmn", sizes};
    struct ArrowSchema vs = schema_of("vu", "ticker");
    struct ArrowArray va = array_of(2, 4, vb);
    const struct ArrowArray *vc[] = {&va};
    cr_assert_eq(apo_arrow_key_runs(&vs, vc, 1, &starts, &runs), APO_OK, "%s", apo_last_error());
    cr_assert_eq(runs, 2, "\"abc\" and \"abcdefghijklmn\" differ");
    free(starts);
}

Test(arrow, null_keys_and_time_order) {
    const uint8_t validity[] = {0x05}; /* row 1 null */
    const int64_t keys[] = {1, 1, 1};
    const void *kb[] = {validity, keys};
    struct ArrowSchema ks = schema_of("l", "ticker");
    struct ArrowArray ka = array_of(3, 2, kb);
    ka.null_count = 1;
    const struct ArrowArray *kc[] = {&ka};
    size_t *starts = NULL, runs = 0;
    ASSERT_REFUSED(apo_arrow_key_runs(&ks, kc, 1, &starts, &runs), APO_ERR_INVALID_ARGUMENT,
                   "row 1 is null");
    struct ArrowSchema fs = schema_of("g", "close");
    ASSERT_REFUSED(apo_arrow_key_runs(&fs, kc, 1, &starts, &runs), APO_ERR_INVALID_ARGUMENT,
                   "is no key");

    /* Times 10, 20 | 5, 5: the second group repeats a time. */
    const int64_t times[] = {10, 20, 5, 5};
    const void *tb[] = {NULL, times};
    struct ArrowSchema ts = schema_of("tsu:UTC", "time");
    struct ArrowArray ta = array_of(4, 2, tb);
    const struct ArrowArray *tc[] = {&ta};
    size_t two_runs[] = {0, 2, 4};
    ASSERT_REFUSED(apo_arrow_check_increasing(&ts, tc, 1, two_runs, 2), APO_ERR_INVALID_ARGUMENT,
                   "row 3 is the same time as row 2");
    ta.length = 3;
    size_t shorter[] = {0, 2, 3};
    cr_assert_eq(apo_arrow_check_increasing(&ts, tc, 1, shorter, 2), APO_OK, "%s",
                 apo_last_error());
    size_t one_run[] = {0, 3};
    ASSERT_REFUSED(apo_arrow_check_increasing(&ts, tc, 1, one_run, 1), APO_ERR_INVALID_ARGUMENT,
                   "earlier than");
}

Test(arrow, key_runs_of_integers_without_nulls) {
    /* The scan that skips a run in one pass, across a chunk boundary inside a run. */
    const int32_t keys[] = {5, 5, 5, 2, 2, 9, 9, 9};
    const void *b[] = {NULL, keys};
    struct ArrowSchema s = schema_of("i", "ticker");
    struct ArrowArray c1 = array_of(4, 2, b), c2 = array_of(4, 2, b);
    c2.offset = 4;
    const struct ArrowArray *chunks[] = {&c1, &c2};
    size_t *starts = NULL, runs = 0;
    cr_assert_eq(apo_arrow_key_runs(&s, chunks, 2, &starts, &runs), APO_OK, "%s", apo_last_error());
    cr_assert_eq(runs, 3);
    const size_t want[] = {0, 3, 5, 8};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(starts[i], want[i], "start %d: %zu", i, starts[i]);
    free(starts);
    const int32_t apart[] = {5, 5, 2, 5};
    const void *ab[] = {NULL, apart};
    struct ArrowArray a = array_of(4, 2, ab);
    const struct ArrowArray *ac[] = {&a};
    ASSERT_REFUSED(apo_arrow_key_runs(&s, ac, 1, &starts, &runs), APO_ERR_INVALID_ARGUMENT,
                   "key 5 has rows apart (from row 0 and again from row 3)");
}

Test(arrow, time_order_of_other_types) {
    /* Not the int64 path: float64 times, then int32 dates with a null, in two chunks. */
    const double times[] = {1.0, 2.0, 1.5};
    const void *tb[] = {NULL, times};
    struct ArrowSchema ts = schema_of("g", "time");
    struct ArrowArray ta = array_of(3, 2, tb);
    const struct ArrowArray *tc[] = {&ta};
    size_t one_run[] = {0, 3};
    ASSERT_REFUSED(apo_arrow_check_increasing(&ts, tc, 1, one_run, 1), APO_ERR_INVALID_ARGUMENT,
                   "row 2 is earlier than row 1");
    const int32_t days[] = {19000, 19001, 18000, 18001};
    const uint8_t validity[] = {0x0b}; /* row 2 null */
    const void *db[] = {validity, days};
    struct ArrowSchema dsch = schema_of("tdD", "date");
    struct ArrowArray d1 = array_of(2, 2, db), d2 = array_of(2, 2, db);
    d2.offset = 2;
    d2.null_count = 1;
    const struct ArrowArray *dc[] = {&d1, &d2};
    size_t runs[] = {0, 2, 4};
    ASSERT_REFUSED(apo_arrow_check_increasing(&dsch, dc, 2, runs, 2), APO_ERR_INVALID_ARGUMENT,
                   "row 2 is null");
    d2.buffers = (const void *[]){NULL, days};
    d2.null_count = 0;
    cr_assert_eq(apo_arrow_check_increasing(&dsch, dc, 2, runs, 2), APO_OK,
                 "a new group may start earlier: %s", apo_last_error());
}

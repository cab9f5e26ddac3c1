/*
 * Reading an Arrow column as float64 (include/apportion_arrow.h): in place where the
 * producer's buffer already is what a workload reads, else converted into a buffer of the
 * library's own with every null as NaN.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_arrow.h"
#include "base/error.h"
#include "core/arrow_types.h"

/* IEEE half precision to double: every half is exactly a double. */
static double half_to_double(uint16_t h) {
    int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double magnitude;
    if (exponent == 0)
        magnitude = ldexp((double)mantissa, -24); /* zero and the subnormals */
    else if (exponent == 31)
        magnitude = mantissa == 0 ? INFINITY : NAN;
    else
        magnitude = ldexp((double)(mantissa | 0x400), exponent - 25);
    return sign ? -magnitude : magnitude;
}

/* Value `i` (counted from the buffer's start, the array's offset included) as a double. */
static double value_at(const apo__arrow_type *t, const void *data, int64_t i) {
    const uint8_t *p = (const uint8_t *)data;
    switch (t->kind) {
    case APO_ARROW_BOOL:
        return (p[i >> 3] >> (i & 7)) & 1;
    case APO_ARROW_FLOAT:
        if (t->width == 2) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            return half_to_double(h);
        }
        return apo__arrow_float_at(t, data, i);
    case APO_ARROW_UNSIGNED:
        /* apo__arrow_int_at gives a uint64 past INT64_MAX as negative: read as itself. */
        if (t->width == 8) {
            uint64_t v;
            memcpy(&v, p + 8 * i, 8);
            return (double)v;
        }
        return (double)apo__arrow_int_at(t, data, i);
    default: /* APO_ARROW_SIGNED */
        return (double)apo__arrow_int_at(t, data, i);
    }
}

/* The types read as values: numbers and booleans, never a date or a time (an order, which
 * a series of values would silently turn into numbers). */
static apo_status readable(const struct ArrowSchema *s, apo__arrow_type *t) {
    if (apo__arrow_parse_format(s->format, t) == 0 && s->dictionary == NULL && !t->temporal &&
        (t->kind == APO_ARROW_BOOL || t->kind == APO_ARROW_SIGNED ||
         t->kind == APO_ARROW_UNSIGNED || t->kind == APO_ARROW_FLOAT))
        return APO_OK;
    return apo__fail(APO_ERR_INVALID_ARGUMENT,
                     "Arrow column %s: format \"%s\"%s is not read as numbers; float64 (\"g\"), "
                     "float32, float16, integers and booleans are",
                     s->name != NULL && s->name[0] != '\0' ? s->name : "(unnamed)", s->format,
                     s->dictionary != NULL ? " (dictionary-encoded)" : "");
}

static int readable_in_place(const apo__arrow_type *t, const struct ArrowArray *a) {
    if (t->kind != APO_ARROW_FLOAT || t->width != 8 || apo__arrow_null_count(a) != 0)
        return 0;
    if (a->length == 0)
        return 1;
    return (uintptr_t)((const double *)a->buffers[1] + a->offset) % _Alignof(double) == 0;
}

/* apo_arrow_read_f64(), with whether the producer marked the memory pinned. */
static apo_status read_chunks(const struct ArrowSchema *schema,
                              const struct ArrowArray *const *chunks, size_t n_chunks, int pinned,
                              apo_arrow_values *out) {
    if (out == NULL)
        return apo__fail(APO_ERR_NULL, "out is NULL");
    APO_CHECK_STRUCT_SIZE(out, apo_arrow_values, APO_ARROW_VALUES_INIT);
    if (chunks == NULL && n_chunks > 0)
        return apo__fail(APO_ERR_NULL, "chunks is NULL");
    APO_CHECK(apo_arrow_schema_check(schema));
    apo__arrow_type t;
    APO_CHECK(readable(schema, &t));
    size_t total = 0, nulls = 0;
    for (size_t c = 0; c < n_chunks; c++) {
        if (chunks[c] == NULL)
            return apo__fail(APO_ERR_NULL, "chunk %zu is NULL", c);
        APO_CHECK(apo_arrow_array_check(schema, chunks[c]));
        if ((uint64_t)chunks[c]->length > SIZE_MAX / sizeof(double) - total)
            return apo__fail(APO_ERR_OVERFLOW, "Arrow column: the chunks' lengths overflow");
        total += (size_t)chunks[c]->length;
        nulls += (size_t)apo__arrow_null_count(chunks[c]);
    }
    apo_arrow_values result = APO_ARROW_VALUES_INIT;
    result.length = total;
    result.nulls = nulls;
    result.pinned = pinned;
    if (n_chunks == 1 && readable_in_place(&t, chunks[0])) {
        result.values = (const double *)chunks[0]->buffers[1] + chunks[0]->offset;
        result.in_place = 1;
        *out = result;
        return APO_OK;
    }
    double *copy = malloc(total > 0 ? total * sizeof(double) : 1);
    if (copy == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "Arrow column: %zu values", total);
    size_t k = 0;
    for (size_t c = 0; c < n_chunks; c++) {
        const struct ArrowArray *a = chunks[c];
        for (int64_t i = a->offset; i < a->offset + a->length; i++)
            copy[k++] = apo__arrow_valid(a->buffers[0], i) ? value_at(&t, a->buffers[1], i) : NAN;
    }
    result.values = copy;
    result.owned_ = copy;
    *out = result;
    return APO_OK;
}

apo_status apo_arrow_read_device_f64(const struct ArrowSchema *schema,
                                     const struct ArrowDeviceArray *array, apo_arrow_values *out) {
    if (array == NULL)
        return apo__fail(APO_ERR_NULL, "Arrow device array is NULL");
    if (out == NULL)
        return apo__fail(APO_ERR_NULL, "out is NULL");
    if (array->device_type != ARROW_DEVICE_CPU && array->device_type != ARROW_DEVICE_CUDA_HOST)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow device array: device type %d is memory the host cannot read; "
                         "ARROW_DEVICE_CPU (1) and ARROW_DEVICE_CUDA_HOST (3) are read",
                         (int)array->device_type);
    if (array->sync_event != NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "Arrow device array: a sync_event is set, which the library cannot wait "
                         "on; synchronise before handing the array over");
    const struct ArrowArray *chunk = &array->array;
    return read_chunks(schema, &chunk, 1, array->device_type == ARROW_DEVICE_CUDA_HOST, out);
}

apo_status apo_arrow_read_f64(const struct ArrowSchema *schema,
                              const struct ArrowArray *const *chunks, size_t n_chunks,
                              apo_arrow_values *out) {
    return read_chunks(schema, chunks, n_chunks, 0, out);
}

void apo_arrow_values_free(apo_arrow_values *values) {
    if (values == NULL)
        return;
    free(values->owned_);
    size_t size = values->size;
    memset(values, 0, sizeof *values);
    values->size = size;
}

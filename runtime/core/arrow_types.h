/*
 * The Arrow formats the importer knows (include/apportion_arrow.h): each format string of
 * the Arrow C data interface parsed once into what a check or a read needs (buffer and
 * child counts, value width), so that the checks and the readers cannot disagree on a type.
 */
#ifndef APO_RUNTIME_CORE_ARROW_TYPES_H
#define APO_RUNTIME_CORE_ARROW_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "apportion_arrow.h"

typedef enum apo__arrow_kind {
    APO_ARROW_NULL,       /* "n": no buffers */
    APO_ARROW_BOOL,       /* "b": bits */
    APO_ARROW_SIGNED,     /* c s i l, and the temporal types stored as signed integers */
    APO_ARROW_UNSIGNED,   /* C S I L */
    APO_ARROW_FLOAT,      /* e f g */
    APO_ARROW_FIXED,      /* other fixed-width values: decimals, fixed binary, intervals */
    APO_ARROW_BINARY,     /* z u: 32-bit offsets */
    APO_ARROW_BINARY64,   /* Z U: 64-bit offsets */
    APO_ARROW_VIEW,       /* vz vu: 16-byte views over variadic data buffers */
    APO_ARROW_STRUCT,     /* +s */
    APO_ARROW_LIST,       /* +l +m: 32-bit offsets, one child */
    APO_ARROW_LIST64,     /* +L */
    APO_ARROW_FIXED_LIST, /* +w:N */
    APO_ARROW_OTHER       /* unions, run-end encoded, list views: counts checked, never read */
} apo__arrow_kind;

typedef struct apo__arrow_type {
    apo__arrow_kind kind;
    int64_t width;      /* bytes a value (bit-packed BOOL: 0); FIXED_LIST: values a slot */
    int64_t n_buffers;  /* buffers the format calls for (VIEW: at least this many) */
    int64_t n_children; /* children it calls for; -1: any number (struct, union) */
    int temporal;       /* a date, time, timestamp or duration: an order, never a value */
} apo__arrow_type;

/* Parses `format` into *out; returns 0, or -1 for a string the specification does not
 * define (the caller names it in its message). */
int apo__arrow_parse_format(const char *format, apo__arrow_type *out);

/* Value i of a buffer of integers (signed or unsigned, 1 to 8 bytes) as int64; an unsigned
 * 64-bit value past INT64_MAX comes back negative, which every caller refuses or orders. */
int64_t apo__arrow_int_at(const apo__arrow_type *t, const void *data, int64_t i);

/* Value i of a float32 or float64 buffer as a double, exactly (float16 is the reader's
 * alone: arrow_read.c). */
static inline double apo__arrow_float_at(const apo__arrow_type *t, const void *data, int64_t i) {
    const uint8_t *p = (const uint8_t *)data;
    if (t->width == 8) {
        double d;
        memcpy(&d, p + 8 * i, 8);
        return d;
    }
    float f;
    memcpy(&f, p + 4 * i, 4);
    return f;
}

/* Bit `i` of a validity bitmap (1: valid); a NULL bitmap is all valid. */
static inline int apo__arrow_valid(const void *bitmap, int64_t i) {
    return bitmap == NULL || ((((const uint8_t *)bitmap)[i >> 3] >> (i & 7)) & 1);
}

/* The nulls among rows offset .. offset + length - 1, counted from the bitmap when the
 * producer said -1 ("unknown"). */
int64_t apo__arrow_null_count(const struct ArrowArray *array);

#endif

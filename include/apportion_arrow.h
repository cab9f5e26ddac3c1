/*
 * apportion_arrow.h: columns of Apache Arrow data (polars, pyarrow, DuckDB, any producer of
 * the Arrow C data interface) as the float64 series a workload reads (docs/api.md, "Arrow
 * columns").
 *
 * The structs below are the Arrow C data interface's public ABI, written from its
 * specification and guarded by the specification's own macros, so that a program that also
 * includes Arrow's header (or nanoarrow's) gets one definition of each. A column is read in
 * place where it can be (float64, no nulls, one chunk, 8-byte aligned): the values pointer
 * is then the producer's buffer and nothing is copied; otherwise the values are converted
 * into a buffer of the library's own, with every null as NaN, the gap every kernel knows.
 *
 * Everything a producer hands over is checked before it is read: format strings, buffer and
 * child counts, offsets and lengths (and their sums, which may overflow), null buffers and
 * children, released structs. A refusal returns APO_ERR_INVALID_ARGUMENT (APO_ERR_OVERFLOW
 * for sizes) with apo_last_error() naming the field and the column. The library never
 * calls a producer's release callback except through apo_arrow_schema_release() and
 * apo_arrow_array_release(), which call it exactly once.
 */
#ifndef APPORTION_ARROW_H
#define APPORTION_ARROW_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The Arrow C data interface (its specification's definitions, unchanged) ---------- */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

#ifndef ARROW_C_DEVICE_DATA_INTERFACE
#define ARROW_C_DEVICE_DATA_INTERFACE

typedef int32_t ArrowDeviceType;

#define ARROW_DEVICE_CPU 1
#define ARROW_DEVICE_CUDA 2
#define ARROW_DEVICE_CUDA_HOST 3
#define ARROW_DEVICE_OPENCL 4
#define ARROW_DEVICE_VULKAN 7
#define ARROW_DEVICE_METAL 8
#define ARROW_DEVICE_VPI 9
#define ARROW_DEVICE_ROCM 10
#define ARROW_DEVICE_ROCM_HOST 11
#define ARROW_DEVICE_EXT_DEV 12
#define ARROW_DEVICE_CUDA_MANAGED 13
#define ARROW_DEVICE_ONEAPI 14
#define ARROW_DEVICE_WEBGPU 15
#define ARROW_DEVICE_HEXAGON 16

struct ArrowDeviceArray {
    struct ArrowArray array;
    int64_t device_id;
    ArrowDeviceType device_type;
    void *sync_event;
    int64_t reserved[3];
};

#endif /* ARROW_C_DEVICE_DATA_INTERFACE */

/* ---- Checking what a producer handed over -------------------------------------------- */

/* Checks a schema and all it holds (children, dictionary): a live struct (release set), a
 * format string the specification defines, n_children that matches the format (0 for a
 * primitive, 1 for a list, >= 0 for a struct) with no NULL child. Nesting deeper than 64
 * levels is refused rather than followed. */
APO_EXPORT apo_status apo_arrow_schema_check(const struct ArrowSchema *schema);

/* Checks an array against its (checked) schema, recursively: a live struct, length,
 * offset and null_count in range (null_count -1, "unknown", is accepted), offset + length
 * without overflow, the buffer count the format calls for, a data buffer wherever values
 * are read and a validity buffer wherever null_count is not 0, offsets buffers that start
 * and end inside their data, children of the schema's number each long enough. */
APO_EXPORT apo_status apo_arrow_array_check(const struct ArrowSchema *schema,
                                            const struct ArrowArray *array);

/* Calls the release callback of a live schema or array once and marks it released (release
 * NULL), as the specification asks of a consumer: a second call does nothing. NULL and an
 * already released struct are no-ops. */
APO_EXPORT void apo_arrow_schema_release(struct ArrowSchema *schema);
APO_EXPORT void apo_arrow_array_release(struct ArrowArray *array);

/* A view of field `index` of a struct array (a record batch: field j is column j), with the
 * struct's offset and length applied, so that the view reads the rows the struct holds. The
 * view borrows the child's buffers: it is valid while `array` is, and its release callback
 * only marks it released. A struct with null rows of its own is refused (a record batch has
 * none). */
APO_EXPORT apo_status apo_arrow_struct_field(const struct ArrowSchema *schema,
                                             const struct ArrowArray *array, size_t index,
                                             struct ArrowArray *out);

/* ---- Reading a column ---------------------------------------------------------------- */

/* One column's values as float64. `values` points either into the producer's buffer
 * (in_place 1: its first chunk, valid while the producer's array is not released) or into
 * a buffer the library owns (in_place 0), freed by apo_arrow_values_free(). */
typedef struct apo_arrow_values {
    size_t size; /* sizeof(apo_arrow_values): initialise with APO_ARROW_VALUES_INIT */
    const double *values;
    size_t length;  /* values in the column: the chunks' lengths added */
    size_t nulls;   /* nulls read as NaN */
    int in_place;   /* 1: values is the producer's own buffer, nothing was copied */
    int pinned;     /* 1: the producer marked the memory ARROW_DEVICE_CUDA_HOST */
    double *owned_; /* the library's copy, or NULL */
} apo_arrow_values;

#define APO_ARROW_VALUES_INIT                                                                      \
    { sizeof(apo_arrow_values), NULL, 0, 0, 0, 0, NULL }

/* Reads a column of `n_chunks` arrays sharing `schema` (one for an array, several for a
 * chunked column or the batches of a stream) as float64. The schema and every chunk are
 * checked first (apo_arrow_schema_check(), apo_arrow_array_check()). Types read: float64
 * ("g"; in place when there is one chunk, no null and the values are 8-byte aligned),
 * float32 ("f"), float16 ("e"), the signed and unsigned integers ("c", "C", "s", "S", "i",
 * "I", "l", "L"; 64-bit values beyond 2^53 round to the nearest double) and booleans ("b",
 * 0 or 1); a null, whatever the type, reads as NaN. Any other type is refused, naming its
 * format. Nothing is released: the caller keeps the chunks and releases them after the
 * values are no longer read. */
APO_EXPORT apo_status apo_arrow_read_f64(const struct ArrowSchema *schema,
                                         const struct ArrowArray *const *chunks, size_t n_chunks,
                                         apo_arrow_values *out);

/* apo_arrow_read_f64() of one array from the device data interface: memory of
 * ARROW_DEVICE_CPU and ARROW_DEVICE_CUDA_HOST (page-locked host memory, out->pinned 1) is
 * read; any other device's memory (ARROW_DEVICE_CUDA and the rest) is refused, naming the
 * device type, since the host cannot read it (docs/api.md, "Arrow columns", says what the
 * GPU path does with pinned columns). A sync_event is refused too: the library has no way
 * to wait on a producer's event without the producer's device API. */
APO_EXPORT apo_status apo_arrow_read_device_f64(const struct ArrowSchema *schema,
                                                const struct ArrowDeviceArray *array,
                                                apo_arrow_values *out);

/* Frees what apo_arrow_read_f64() allocated (nothing for a column read in place) and
 * clears *values; NULL is a no-op. */
APO_EXPORT void apo_arrow_values_free(apo_arrow_values *values);

/* ---- A long frame: runs of one key ---------------------------------------------------- */

/* The rows at which a key column (a ticker) changes value, for a long frame whose rows are
 * grouped by it: *out_starts (malloc'd, freed with free()) holds *out_runs + 1 row numbers,
 * the first 0 and the last the column's length, so that run r is rows starts[r] ..
 * starts[r+1] - 1. Keys read: integers, dates and timestamps, utf8 and binary (32- and
 * 64-bit offsets, and the view types "vu"/"vz"), and dictionary-encoded columns of any of
 * these (compared by value, so that chunks with different dictionaries agree). A null key
 * is refused, and so is a key whose rows are not together (it appears in two runs), with
 * the rows of both: the frame needs sorting by the key first. An empty column has 0 runs. */
APO_EXPORT apo_status apo_arrow_key_runs(const struct ArrowSchema *schema,
                                         const struct ArrowArray *const *chunks, size_t n_chunks,
                                         size_t **out_starts, size_t *out_runs);

/* Checks that an order column (a time: integers, dates, timestamps, durations, float64)
 * strictly increases within each run of `starts` (from apo_arrow_key_runs()): a null, a
 * repeated or a decreasing value is refused with its row, so that no series is computed
 * out of its time order. */
APO_EXPORT apo_status apo_arrow_check_increasing(const struct ArrowSchema *schema,
                                                 const struct ArrowArray *const *chunks,
                                                 size_t n_chunks, const size_t *starts,
                                                 size_t n_runs);

#ifdef __cplusplus
}
#endif

#endif /* APPORTION_ARROW_H */

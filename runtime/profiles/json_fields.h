/*
 * Single fields of a profile's JSON, read strictly and written back: the readers check
 * type and range before anything is copied into the fixed-size structs, and say in `err`
 * which file and which field ("workloads.tag.devices.cpu.ratio") was wrong and what it
 * held. Shared by the two formats (multigpu_format.c, thresholds_format.c); private to
 * profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_JSON_FIELDS_H
#define APO_RUNTIME_PROFILES_JSON_FIELDS_H

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "profiles/profile_store.h"

/* jansson stores integers as long long: larger counts cannot be written, so none are read. */
#define APO_PROFILE_COUNT_MAX ((uint64_t)LLONG_MAX)
/* The size of a field's path in messages. */
#define APO_JPATH_MAX 320

/* The file being read, as messages name it, and where they go. */
typedef struct apo__field_ctx {
    const char *file;
    char *err;
    size_t err_size;
} apo__field_ctx;

/* parent + "." + key (just key at the top level), the key cut as apo__show_key does; the
 * path is cut to `size` rather than dropped. */
void apo__jpath_join(char *out, size_t size, const char *parent, const char *key);

/* What a JSON value is, for "expected X, got Y" messages: "an object", "\"text\"", "3". */
const char *apo__json_describe(const json_t *j, char *buf, size_t size);

/* Writes "<file>: <jpath>: <what>" into the context's err; returns APO_ERR_INVALID_ARGUMENT. */
apo_status apo__field_invalid(const apo__field_ctx *v, const char *jpath, const char *fmt, ...)
    APO_PRINTF_LIKE(3, 4);

/* `j` (at path `jp`) is a finite number >= 0, stored in *out. */
apo_status apo__field_nonneg(const apo__field_ctx *v, const char *jp, const json_t *j, double *out);

/* Field `name` of `obj` (whose path is `pp`), optional: a number >= 0, NaN when absent or
 * null. */
apo_status apo__get_nonneg(const apo__field_ctx *v, const json_t *obj, const char *pp,
                           const char *name, double *out);

/* A count: an integer from 0 to max. Absent gives 0 unless it is required. */
apo_status apo__get_count(const apo__field_ctx *v, const json_t *obj, const char *pp,
                          const char *name, int required, uint64_t max, uint64_t *out);

/* An optional string of fewer than dst_size bytes ("" when absent). */
apo_status apo__get_string(const apo__field_ctx *v, const json_t *obj, const char *pp,
                           const char *name, char *dst, size_t dst_size);

/* An optional `updated_at`, stored in the canonical form; ThreadX files may hold Unix
 * seconds (allow_number). */
apo_status apo__get_timestamp(const apo__field_ctx *v, const json_t *obj, const char *pp,
                              int allow_number, char dst[APO_TIMESTAMP_MAX]);

/* A key used as a tag, device id or threshold key: 1 to size-1 bytes. */
apo_status apo__check_key(const apo__field_ctx *v, const char *jp, const char *key, size_t size,
                          const char *what);

/* A value a load accepts back for an optional number: NaN (absent), or finite and >= 0. */
static inline int apo__nonneg_or_nan(double x) { return isnan(x) || (isfinite(x) && x >= 0); }

/* json_object_set_new that remembers a failure (a NULL value is out of memory) in *failed;
 * it takes `value` either way. */
void apo__put(json_t *obj, const char *key, json_t *value, int *failed);
/* A real, left out when it is NaN (unknown). */
void apo__put_real(json_t *obj, const char *key, double x, int *failed);
/* A count, capped at APO_PROFILE_COUNT_MAX. */
void apo__put_count(json_t *obj, const char *key, uint64_t n, int *failed);

#endif

/*
 * Single fields of a profile's JSON (see json_fields.h). Reading is strict: a profile is
 * outside input, possibly written by another tool, an older version or by hand, and one
 * bad field rejects the whole file, since a file that is half right is not worth the risk
 * of balancing on a half-read model. So every reader here checks before it copies, and
 * every message names the field and shows (safely cut) what it held.
 */
#include "profiles/json_fields.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profiles/text.h"
#include "profiles/timestamps.h"

void apo__jpath_join(char *out, size_t size, const char *parent, const char *key) {
    char shown[APO_KEY_SHOWN_MAX + 4];
    apo__show_key(shown, sizeof shown, key);
    /* Cut to fit: a message with a shortened path is still better than none. */
    size_t o = 0;
    const char *parts[3] = {parent, parent[0] != '\0' ? "." : "", shown};
    for (size_t i = 0; i < 3; i++)
        for (const char *c = parts[i]; *c != '\0' && o + 1 < size; c++)
            out[o++] = *c;
    out[o] = '\0';
}

const char *apo__json_describe(const json_t *j, char *buf, size_t size) {
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING: {
        char shown[APO_KEY_SHOWN_MAX + 4];
        apo__show_key(shown, sizeof shown, json_string_value(j));
        snprintf(buf, size, "\"%s\"", shown);
        return buf;
    }
    case JSON_INTEGER:
        snprintf(buf, size, "%lld", (long long)json_integer_value(j));
        return buf;
    case JSON_REAL:
        snprintf(buf, size, "%g", json_real_value(j));
        return buf;
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
        return "null";
    }
    return "an unknown value";
}

apo_status apo__field_invalid(const apo__field_ctx *v, const char *jpath, const char *fmt, ...) {
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (jpath[0] != '\0')
        apo__errf(v->err, v->err_size, "%s: %s: %s", v->file, jpath, what);
    else
        apo__errf(v->err, v->err_size, "%s: %s", v->file, what);
    return APO_ERR_INVALID_ARGUMENT;
}

apo_status apo__field_nonneg(const apo__field_ctx *v, const char *jp, const json_t *j,
                             double *out) {
    char got[80];
    double x = json_is_number(j) ? json_number_value(j) : NAN;
    if (!json_is_number(j) || !isfinite(x) || x < 0)
        return apo__field_invalid(v, jp, "expected a finite number >= 0, got %s",
                                  apo__json_describe(j, got, sizeof got));
    *out = x;
    return APO_OK;
}

apo_status apo__get_nonneg(const apo__field_ctx *v, const json_t *obj, const char *pp,
                           const char *name, double *out) {
    char jp[APO_JPATH_MAX];
    apo__jpath_join(jp, sizeof jp, pp, name);
    const json_t *j = json_object_get(obj, name);
    *out = NAN;
    if (j == NULL || json_is_null(j))
        return APO_OK;
    return apo__field_nonneg(v, jp, j, out);
}

apo_status apo__get_count(const apo__field_ctx *v, const json_t *obj, const char *pp,
                          const char *name, int required, uint64_t max, uint64_t *out) {
    char jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(jp, sizeof jp, pp, name);
    const json_t *j = json_object_get(obj, name);
    *out = 0;
    if (j == NULL) {
        if (required)
            return apo__field_invalid(v, jp, "missing; expected an integer >= 0");
        return APO_OK;
    }
    if (!json_is_integer(j) || json_integer_value(j) < 0 || (uint64_t)json_integer_value(j) > max) {
        if (max == APO_PROFILE_COUNT_MAX)
            return apo__field_invalid(v, jp, "expected an integer >= 0, got %s",
                                      apo__json_describe(j, got, sizeof got));
        return apo__field_invalid(v, jp, "expected an integer from 0 to %llu, got %s",
                                  (unsigned long long)max, apo__json_describe(j, got, sizeof got));
    }
    *out = (uint64_t)json_integer_value(j);
    return APO_OK;
}

apo_status apo__get_string(const apo__field_ctx *v, const json_t *obj, const char *pp,
                           const char *name, char *dst, size_t dst_size) {
    char jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(jp, sizeof jp, pp, name);
    const json_t *j = json_object_get(obj, name);
    dst[0] = '\0';
    if (j == NULL)
        return APO_OK;
    if (!json_is_string(j))
        return apo__field_invalid(v, jp, "expected a string, got %s",
                                  apo__json_describe(j, got, sizeof got));
    size_t len = json_string_length(j);
    if (len >= dst_size)
        return apo__field_invalid(v, jp, "expected a string of at most %zu bytes, got %zu bytes",
                                  dst_size - 1, len);
    memcpy(dst, json_string_value(j), len + 1);
    return APO_OK;
}

apo_status apo__get_timestamp(const apo__field_ctx *v, const json_t *obj, const char *pp,
                              int allow_number, char dst[APO_TIMESTAMP_MAX]) {
    char jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(jp, sizeof jp, pp, "updated_at");
    const json_t *j = json_object_get(obj, "updated_at");
    dst[0] = '\0';
    if (j == NULL || json_is_null(j))
        return APO_OK;
    double t = -1;
    if (json_is_string(j))
        t = apo__timestamp_parse(json_string_value(j));
    else if (allow_number && json_is_number(j))
        t = json_number_value(j);
    if (!(t >= 0) || t > APO_TIMESTAMP_LAST)
        return apo__field_invalid(
            v, jp, "expected an RFC 3339 timestamp such as \"2026-11-21T10:00:00Z\"%s, got %s",
            allow_number ? " or Unix seconds" : "", apo__json_describe(j, got, sizeof got));
    apo__timestamp_format(t, dst, APO_TIMESTAMP_MAX);
    return APO_OK;
}

apo_status apo__check_key(const apo__field_ctx *v, const char *jp, const char *key, size_t size,
                          const char *what) {
    size_t len = strlen(key);
    if (len == 0 || len >= size)
        return apo__field_invalid(v, jp, "expected %s of 1 to %zu bytes, got %zu bytes", what,
                                  size - 1, len);
    return APO_OK;
}

void apo__put(json_t *obj, const char *key, json_t *value, int *failed) {
    if (obj == NULL || value == NULL || json_object_set_new(obj, key, value) != 0) {
        json_decref(value);
        *failed = 1;
    }
}

void apo__put_real(json_t *obj, const char *key, double x, int *failed) {
    if (!isnan(x))
        apo__put(obj, key, json_real(x), failed);
}

void apo__put_count(json_t *obj, const char *key, uint64_t n, int *failed) {
    apo__put(obj, key,
             json_integer((json_int_t)(n > APO_PROFILE_COUNT_MAX ? APO_PROFILE_COUNT_MAX : n)),
             failed);
}

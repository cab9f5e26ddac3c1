/*
 * The keys of thresholds.json, "<function>:{'<name>': <value>, ..., 'size': <samples>}"
 * (profile_store.h; docs/profiles.md, "Keys"): one canonical text per function and set of
 * parameters, whatever order the parameters come in and whatever locale the program runs
 * under, so that the same measurement always lands on the same entry. Parsing accepts only
 * that canonical text, since a key read back is only useful if it is the one written.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profiles/profile_store.h"
#include "profiles/text.h"

static int valid_name(const char *s) {
    size_t len = 0;
    for (; s[len] != '\0'; len++) {
        unsigned char c = (unsigned char)s[len];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
        if (len + 1 >= APO_NAME_MAX)
            return 0;
    }
    return len > 0;
}

/* Integral values up to 2^53 (where every integer is a double) print as integers; others as
 * the shortest of %.15g, %.16g and %.17g that reads back to the same double. */
static void format_value(char *buf, size_t size, double v) {
    if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
        snprintf(buf, size, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    apo__format_shortest(buf, size, v);
}

apo_status apo__threshold_key(char *key, const char *function, const char *const *names,
                              const double *values, size_t n, uint64_t samples) {
    if (key == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    key[0] = '\0';
    if (function == NULL || !valid_name(function) || n > APO_MAX_PARAMS + 1 ||
        (n > 0 && (names == NULL || values == NULL)))
        return APO_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < n; i++) {
        if (names[i] == NULL || !valid_name(names[i]) || strcmp(names[i], "size") == 0 ||
            !isfinite(values[i]))
            return APO_ERR_INVALID_ARGUMENT;
        for (size_t k = 0; k < i; k++)
            if (strcmp(names[k], names[i]) == 0)
                return APO_ERR_INVALID_ARGUMENT;
    }

    /* The pairs in byte order of their names, 'size' among them; at most ten, so an
     * insertion sort. */
    const char *pair_name[APO_MAX_PARAMS + 2];
    char pair_value[APO_MAX_PARAMS + 2][40];
    size_t n_pairs = 0;
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? names[i] : "size";
        char value[40];
        if (i < n)
            format_value(value, sizeof value, values[i]);
        else
            snprintf(value, sizeof value, "%llu", (unsigned long long)samples);
        size_t k = n_pairs++;
        for (; k > 0 && strcmp(pair_name[k - 1], name) > 0; k--) {
            pair_name[k] = pair_name[k - 1];
            memcpy(pair_value[k], pair_value[k - 1], sizeof pair_value[k]);
        }
        pair_name[k] = name;
        memcpy(pair_value[k], value, sizeof value);
    }

    char out[APO_THRESHOLD_KEY_MAX];
    size_t len = 0;
    int w = snprintf(out, sizeof out, "%s:{", function);
    for (size_t i = 0; i < n_pairs && w >= 0 && (size_t)w < sizeof out - len; i++) {
        len += (size_t)w;
        w = snprintf(out + len, sizeof out - len, "%s'%s': %s", i > 0 ? ", " : "", pair_name[i],
                     pair_value[i]);
    }
    if (w < 0 || (size_t)w >= sizeof out - len)
        return APO_ERR_INVALID_ARGUMENT;
    len += (size_t)w;
    if (len + 2 > sizeof out)
        return APO_ERR_INVALID_ARGUMENT;
    out[len++] = '}';
    out[len] = '\0';
    memcpy(key, out, len + 1);
    return APO_OK;
}

apo_status apo__threshold_key_parse(const char *key, apo__threshold_key_parts *parts) {
    if (key == NULL || parts == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    memset(parts, 0, sizeof *parts);
    if (!apo__fits(key, APO_THRESHOLD_KEY_MAX))
        return APO_ERR_INVALID_ARGUMENT;
    const char *colon = strchr(key, ':');
    if (colon == NULL || colon == key || (size_t)(colon - key) >= APO_NAME_MAX)
        return APO_ERR_INVALID_ARGUMENT;
    memcpy(parts->function, key, (size_t)(colon - key));
    const char *s = colon + 1;
    if (*s++ != '{')
        return APO_ERR_INVALID_ARGUMENT;
    int have_size = 0;
    for (int first = 1;; first = 0) {
        if (!first) {
            if (*s == '}')
                break;
            if (s[0] != ',' || s[1] != ' ')
                return APO_ERR_INVALID_ARGUMENT;
            s += 2;
        }
        if (*s++ != '\'')
            return APO_ERR_INVALID_ARGUMENT;
        const char *name = s;
        while (*s != '\0' && *s != '\'')
            s++;
        size_t name_len = (size_t)(s - name);
        if (*s != '\'' || name_len == 0 || name_len >= APO_NAME_MAX || s[1] != ':' || s[2] != ' ')
            return APO_ERR_INVALID_ARGUMENT;
        s += 3;
        const char *value = s;
        while (*s != '\0' && *s != ',' && *s != '}')
            s++;
        size_t value_len = (size_t)(s - value);
        if (name_len == 4 && memcmp(name, "size", 4) == 0) {
            if (have_size || value_len == 0 || value_len > 20)
                return APO_ERR_INVALID_ARGUMENT;
            uint64_t n = 0;
            for (size_t i = 0; i < value_len; i++) {
                unsigned dgt = (unsigned)(value[i] - '0');
                if (dgt > 9 || n > (UINT64_MAX - dgt) / 10)
                    return APO_ERR_INVALID_ARGUMENT;
                n = n * 10 + dgt;
            }
            parts->samples = n;
            have_size = 1;
        } else {
            if (parts->n_params == APO_MAX_PARAMS + 1)
                return APO_ERR_INVALID_ARGUMENT;
            double x;
            if (apo__parse_c_double(value, value_len, &x) != 0)
                return APO_ERR_INVALID_ARGUMENT;
            memcpy(parts->names[parts->n_params], name, name_len);
            parts->names[parts->n_params][name_len] = '\0';
            parts->values[parts->n_params] = x;
            parts->n_params++;
        }
    }
    if (s[1] != '\0' || !have_size)
        return APO_ERR_INVALID_ARGUMENT;
    /* Whatever was read must be the canonical key of what it holds: this one comparison
     * rejects unsorted or repeated names, bad characters, and non-canonical numbers ("20.0",
     * "1e1", "-0", leading zeros) without a rule for each. */
    const char *names[APO_MAX_PARAMS + 1];
    for (size_t i = 0; i < parts->n_params; i++)
        names[i] = parts->names[i];
    char again[APO_THRESHOLD_KEY_MAX];
    if (apo__threshold_key(again, parts->function, names, parts->values, parts->n_params,
                           parts->samples) != APO_OK ||
        strcmp(again, key) != 0) {
        memset(parts, 0, sizeof *parts);
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

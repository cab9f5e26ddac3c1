/* The environment and the table's rows as data; see env.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"

/* A value is shown in a message cut to this many bytes: the environment is outside input,
 * and a 100 KB value must not drown the message that names it. */
#define SHOWN_VALUE_MAX 64
_Static_assert(APO_SHOWN_VALUE_SIZE == SHOWN_VALUE_MAX + 4, "room for the value, \"...\" and NUL");

/* The parameters are named apart from the members, which the designators name. */
#define ROW_(in_list, name, var, legacy, row_type, row_values, def, lo, hi, row_def_text, text)    \
    {.list = in_list,                                                                              \
     .field = #name,                                                                               \
     .env = var,                                                                                   \
     .legacy_env = legacy,                                                                         \
     .type = APO_SETTING_##row_type,                                                               \
     .values = row_values,                                                                         \
     .min = (double)(lo),                                                                          \
     .max = (double)(hi),                                                                          \
     .def_text = row_def_text,                                                                     \
     .about = text},
#define CONFIG_ROW_(...) ROW_(APO_SETTING_IN_CONFIG, __VA_ARGS__)
#define ENV_ROW_(...) ROW_(APO_SETTING_ENV_ONLY, __VA_ARGS__)
#define LOG_ROW_(...) ROW_(APO_SETTING_FOR_LOG, __VA_ARGS__)
const apo__setting_row apo__setting_rows[APO_SETTING_ROW_COUNT] = {
    APO_SETTINGS(CONFIG_ROW_) APO_ENV_SETTINGS(ENV_ROW_) APO_LOG_SETTINGS(LOG_ROW_)};

static const char *env_get(const char *name) {
    const char *v = getenv(name);
    return (v != NULL && v[0] != '\0') ? v : NULL;
}

int apo__env_is_set(const char *name) { return getenv(name) != NULL; }

const char *apo__env_lookup(const apo__setting_row *row, const char **name) {
    *name = row->env;
    const char *v = env_get(row->env);
    if (v == NULL && row->legacy_env != NULL) {
        *name = row->legacy_env;
        v = env_get(row->legacy_env);
    }
    return v;
}

void apo__env_show_value(const char *value, char *out, size_t size) {
    size_t o = 0, i = 0;
    for (; value[i] != '\0' && i < SHOWN_VALUE_MAX && o + 1 < size; i++) {
        unsigned char c = (unsigned char)value[i];
        /* A control character (a newline, an escape sequence) would forge log lines or
         * terminal output. */
        out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    out[o] = '\0';
    if (value[i] != '\0' && o + 4 <= size)
        memcpy(out + o, "...", 4);
}

/* A bound as people write it: whole numbers without a fraction or exponent ("86400",
 * "1000000"), others in the fewest digits that read back as the same double ("0.01"). */
static void format_bound(double v, char *out, size_t size) {
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, size, "%.0f", v);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

void apo__setting_expected(const apo__setting_row *row, char *out, size_t size) {
    char min[32], max[32];
    format_bound(row->min, min, sizeof min);
    format_bound(row->max, max, sizeof max);
    switch (row->type) {
    case APO_SETTING_INT:
    case APO_SETTING_UINT:
    case APO_SETTING_SIZE:
    case APO_SETTING_REAL:
        snprintf(out, size, "%s from %s to %s", row->values, min, max);
        break;
    case APO_SETTING_REAL_ABOVE:
        snprintf(out, size, "%s, more than %s and at most %s", row->values, min, max);
        break;
    case APO_SETTING_SWITCH:
        snprintf(out, size, "1 or 0 (on, off)");
        break;
    case APO_SETTING_USE_GPU:
        snprintf(out, size, "auto, yes or no");
        break;
    case APO_SETTING_SIM_CLOCK:
        snprintf(out, size, "wall or virtual");
        break;
    case APO_SETTING_CPU_ISA:
        snprintf(out, size, "auto, sse2, avx2 or avx512");
        break;
    default:
        snprintf(out, size, "%s", row->values);
        break;
    }
}

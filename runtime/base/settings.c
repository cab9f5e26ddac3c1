/*
 * A runtime's settings, generated from settings_table.h: each row's parsing, bounds and
 * precedence is the code of its type, below, and nothing here names a setting.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/env.h"
#include "base/parse_number.h"
#include "base/settings.h"

/* ---- The table against apo_config ------------------------------------------------------ */

/* Each row of APO_SETTINGS names a field of apo_config of its row's type... */
#define FIELD_TYPE_CHECK_(field, var, legacy, type, ...)                                           \
    _Static_assert(                                                                                \
        _Generic(((apo_config *)NULL)->field, APO_SETTING_CTYPE_##type : 1, default : 0),          \
        "apo_config." #field " does not have the type of its settings row");
APO_SETTINGS(FIELD_TYPE_CHECK_)

/* ...and the rows, after `size`, lay out a struct just like apo_config: so each field has a
 * row, in the order of the header. (A field added in the tail padding of apo_config would
 * escape the size check; the offsets below still pin every field that has a row.) */
typedef struct config_layout {
    size_t size;
    APO_SETTINGS(APO_SETTING_MEMBER)
} config_layout;
_Static_assert(sizeof(config_layout) == sizeof(apo_config),
               "apo_config has a field that no row of APO_SETTINGS names");
#define FIELD_PLACE_CHECK_(field, ...)                                                             \
    _Static_assert(offsetof(config_layout, field) == offsetof(apo_config, field),                  \
                   "APO_SETTINGS lists apo_config." #field " out of the header's order");
APO_SETTINGS(FIELD_PLACE_CHECK_)

/* Warns that the variable `name` (the row's, or its legacy name) was ignored, showing the value
 * safely, then what was expected. */
static void warn_ignored(apo__warnings *w, const apo__setting_row *row, const char *name,
                         const char *value) {
    char shown[APO_SHOWN_VALUE_SIZE], expected[128];
    apo__env_show_value(value, shown, sizeof shown);
    apo__setting_expected(row, expected, sizeof expected);
    apo__warn(w, "%s=\"%s\" ignored: expected %s", name, shown, expected);
}

/* ---- Reading a variable -------------------------------------------------------------------- */

/* Each type's parser: 0 and *out set for a valid text, else -1 and *out untouched. */

static int parse_TEXT(const char *text, const apo__setting_row *row, const char **out) {
    (void)row;
    *out = text;
    return 0;
}

static int parse_PRESENT(const char *text, const apo__setting_row *row, int *out) {
    (void)text, (void)row;
    *out = 1;
    return 0;
}

/* A whole decimal integer within the row's bounds. */
static int parse_bounded_integer(const char *text, const apo__setting_row *row, long long *out) {
    long long v;
    if (apo__parse_integer(text, &v) != 0 || v < (long long)row->min || v > (long long)row->max)
        return -1;
    *out = v;
    return 0;
}

static int parse_INT(const char *text, const apo__setting_row *row, int *out) {
    long long v;
    if (parse_bounded_integer(text, row, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_UINT(const char *text, const apo__setting_row *row, unsigned *out) {
    long long v;
    if (parse_bounded_integer(text, row, &v) != 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_SIZE(const char *text, const apo__setting_row *row, size_t *out) {
    long long v;
    if (parse_bounded_integer(text, row, &v) != 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_REAL(const char *text, const apo__setting_row *row, double *out) {
    double v;
    if (apo__parse_real(text, &v) != 0 || !(v >= row->min && v <= row->max))
        return -1;
    *out = v;
    return 0;
}

static int parse_REAL_ABOVE(const char *text, const apo__setting_row *row, double *out) {
    double v;
    if (apo__parse_real(text, &v) != 0 || !(v > row->min && v <= row->max))
        return -1;
    *out = v;
    return 0;
}

/* Word values are case-insensitive; the digits 1 and 0 stand for the yes and the no. */
static int is_word(const char *text, const char *word) { return strcasecmp(text, word) == 0; }

static int parse_SWITCH(const char *text, const apo__setting_row *row, apo_switch *out) {
    (void)row;
    if (strcmp(text, "1") == 0 || is_word(text, "on") || is_word(text, "yes") ||
        is_word(text, "true"))
        *out = APO_SWITCH_ON;
    else if (strcmp(text, "0") == 0 || is_word(text, "off") || is_word(text, "no") ||
             is_word(text, "false"))
        *out = APO_SWITCH_OFF;
    else
        return -1;
    return 0;
}

static int parse_USE_GPU(const char *text, const apo__setting_row *row, apo_use_gpu *out) {
    (void)row;
    if (is_word(text, "auto"))
        *out = APO_USE_GPU_AUTO;
    else if (is_word(text, "yes") || strcmp(text, "1") == 0)
        *out = APO_USE_GPU_YES;
    else if (is_word(text, "no") || strcmp(text, "0") == 0)
        *out = APO_USE_GPU_NO;
    else
        return -1;
    return 0;
}

static int parse_SIM_CLOCK(const char *text, const apo__setting_row *row, apo_sim_clock *out) {
    (void)row;
    if (is_word(text, "wall"))
        *out = APO_SIM_CLOCK_WALL;
    else if (is_word(text, "virtual"))
        *out = APO_SIM_CLOCK_VIRTUAL;
    else
        return -1;
    return 0;
}

/* The words of APPORTION_CPU_ISA; `auto` reads as unset (0), which the runtime resolves to
 * the fastest path the CPU has. */
static int parse_CPU_ISA(const char *text, const apo__setting_row *row, int *out) {
    static const char *const words[] = {"auto", "sse2", "avx2", "avx512"};
    _Static_assert(sizeof words / sizeof words[0] == APO_SETTING_CPU_ISA_AVX512 + 1,
                   "one word per value of APO_SETTING_CPU_ISA_*, and auto");
    (void)row;
    for (int v = 0; v <= APO_SETTING_CPU_ISA_AVX512; v++) {
        if (is_word(text, words[v])) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

#define READ_ROW_(field, var, legacy, type, ...)                                                   \
    {                                                                                              \
        const apo__setting_row *row = &apo__setting_rows[APO_SETTING_ROW_##field];                 \
        const char *name, *text = apo__env_lookup(row, &name);                                     \
        if (text != NULL && parse_##type(text, row, &env->field) != 0)                             \
            warn_ignored(w, row, name, text);                                                      \
    }

void apo__settings_read_env(apo__settings *env, apo__warnings *w) {
    memset(env, 0, sizeof *env);
    APO_SETTINGS(READ_ROW_)
    APO_ENV_SETTINGS(READ_ROW_)
}

/* ---- Checking a config field ------------------------------------------------------------- */

/* Each type's check of an apo_config field: its initializer value (zero, unset) or a valid
 * value. */

static apo_status out_of_bounds(const apo__setting_row *row, const char *shown) {
    char expected[128];
    apo__setting_expected(row, expected, sizeof expected);
    return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_config.%s is %s, expected 0 (default) or %s",
                     row->field, shown, expected);
}

static apo_status check_TEXT(const apo__setting_row *row, const char *v) {
    (void)row, (void)v;
    return APO_OK;
}

static apo_status check_integer(const apo__setting_row *row, long long v) {
    if (v == 0 || (v >= (long long)row->min && v <= (long long)row->max))
        return APO_OK;
    char shown[32];
    snprintf(shown, sizeof shown, "%lld", v);
    return out_of_bounds(row, shown);
}

static apo_status check_INT(const apo__setting_row *row, int v) { return check_integer(row, v); }

static apo_status check_UINT(const apo__setting_row *row, unsigned v) {
    return check_integer(row, v);
}

static apo_status check_SIZE(const apo__setting_row *row, size_t v) {
    /* Past LLONG_MAX is past every bound; say so without the conversion wrapping. */
    if (v > (size_t)row->max) {
        char shown[32];
        snprintf(shown, sizeof shown, "%zu", v);
        return out_of_bounds(row, shown);
    }
    return check_integer(row, (long long)v);
}

static apo_status check_real(const apo__setting_row *row, double v, int valid) {
    if (v == 0 || valid)
        return APO_OK;
    char shown[32];
    snprintf(shown, sizeof shown, "%g", v);
    return out_of_bounds(row, shown);
}

static apo_status check_REAL(const apo__setting_row *row, double v) {
    return check_real(row, v, v >= row->min && v <= row->max);
}

static apo_status check_REAL_ABOVE(const apo__setting_row *row, double v) {
    return check_real(row, v, v > row->min && v <= row->max);
}

/* An enum field holds UNSET or a value of its enum; `type_name` names the enum. */
static apo_status check_enum(const apo__setting_row *row, int v, const char *type_name) {
    if (v == 0 || (v >= (int)row->min && v <= (int)row->max))
        return APO_OK;
    return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_config.%s is %d, not an %s", row->field, v,
                     type_name);
}

static apo_status check_SWITCH(const apo__setting_row *row, apo_switch v) {
    return check_enum(row, (int)v, "apo_switch");
}

static apo_status check_USE_GPU(const apo__setting_row *row, apo_use_gpu v) {
    return check_enum(row, (int)v, "apo_use_gpu");
}

static apo_status check_SIM_CLOCK(const apo__setting_row *row, apo_sim_clock v) {
    return check_enum(row, (int)v, "apo_sim_clock");
}

/* ---- Precedence -------------------------------------------------------------------------- */

#define CHECK_ROW_(field, var, legacy, type, ...)                                                  \
    APO_CHECK(check_##type(&apo__setting_rows[APO_SETTING_ROW_##field], config->field));
/* Unset is the zero of every type, in apo_config and in what apo__settings_read_env() gives. */
#define RESOLVE_CONFIG_ROW_(field, var, legacy, type, values, def, ...)                            \
    out->field = config->field != 0 ? config->field : env.field != 0 ? env.field : (def);
#define RESOLVE_ENV_ROW_(field, var, legacy, type, values, def, ...)                               \
    out->field = env.field != 0 ? env.field : (def);

apo_status apo__settings_resolve(const apo_config *config, apo__warnings *w, apo__settings *out) {
    apo_config defaults = APO_CONFIG_INIT;
    if (config == NULL)
        config = &defaults;
    APO_CHECK_STRUCT_SIZE(config, apo_config, APO_CONFIG_INIT);
    APO_SETTINGS(CHECK_ROW_)

    apo__settings env;
    apo__settings_read_env(&env, w);
    APO_SETTINGS(RESOLVE_CONFIG_ROW_)
    APO_ENV_SETTINGS(RESOLVE_ENV_ROW_)
    return APO_OK;
}

/*
 * The environment, read in this one place: the rows of settings_table.h as data (names,
 * bounds, words for messages and docs), the lookup of a row's variable, and the one way a
 * value from outside is shown in a message. Typed parsing and precedence are in
 * settings.c; the logging variables are parsed by log.c.
 */
#ifndef APO_RUNTIME_BASE_ENV_H
#define APO_RUNTIME_BASE_ENV_H

#include <stddef.h>

#include "base/settings_table.h"

typedef enum apo__setting_type {
    APO_SETTING_TEXT,
    APO_SETTING_INT,
    APO_SETTING_UINT,
    APO_SETTING_SIZE,
    APO_SETTING_REAL,
    APO_SETTING_REAL_ABOVE,
    APO_SETTING_SWITCH,
    APO_SETTING_USE_GPU,
    APO_SETTING_SIM_CLOCK,
    APO_SETTING_CPU_ISA,
    APO_SETTING_PRESENT,
    APO_SETTING_LOG_LEVEL,
    APO_SETTING_LOG_SUBSYS
} apo__setting_type;

/* Which list of settings_table.h a row is in. */
typedef enum apo__setting_list {
    APO_SETTING_IN_CONFIG, /* APO_SETTINGS: an apo_config field and its variable */
    APO_SETTING_ENV_ONLY,  /* APO_ENV_SETTINGS */
    APO_SETTING_FOR_LOG    /* APO_LOG_SETTINGS */
} apo__setting_list;

/* A row of the table as data. */
typedef struct apo__setting_row {
    apo__setting_list list;
    const char *field;
    const char *env;
    const char *legacy_env; /* NULL: none */
    apo__setting_type type;
    const char *values;
    double min, max;
    const char *def_text;
    const char *about;
} apo__setting_row;

/* Each row's index in apo__setting_rows: APO_SETTING_ROW_<field>. */
#define APO_SETTING_ROW_INDEX(field, ...) APO_SETTING_ROW_##field,
enum apo__setting_row_index {
    APO_SETTINGS(APO_SETTING_ROW_INDEX) APO_ENV_SETTINGS(APO_SETTING_ROW_INDEX)
        APO_LOG_SETTINGS(APO_SETTING_ROW_INDEX) APO_SETTING_ROW_COUNT
};

/* Every row: APO_SETTINGS, then APO_ENV_SETTINGS, then APO_LOG_SETTINGS, each in order. */
extern const apo__setting_row apo__setting_rows[APO_SETTING_ROW_COUNT];

/* The row's variable, else its legacy name (the ThreadX name it replaces), as text; NULL when
 * neither is set or both are empty. *name is the variable the text came from. */
const char *apo__env_lookup(const apo__setting_row *row, const char **name);

/* Writes what a valid value of the row is, as a message says it after "expected": "an
 * integer from 1 to 1024", "seconds, more than 0 and at most 86400", "auto, yes or no". For
 * the types that accept any value, and the logging ones, the row's `values`. */
void apo__setting_expected(const apo__setting_row *row, char *out, size_t size);

/* Whether a variable that is no row of the table is set, even to the empty string (an empty
 * CUDA_VISIBLE_DEVICES hides every GPU). Only the CUDA backend asks, of CUDA's own
 * CUDA_VISIBLE_DEVICES, to word its "no GPU" message. */
int apo__env_is_set(const char *name);

/* The one way a value from outside is shown in a message: at most 64 bytes (then "..."),
 * control characters as '?'. `size` should be at least APO_SHOWN_VALUE_SIZE. */
#define APO_SHOWN_VALUE_SIZE 68
void apo__env_show_value(const char *value, char *out, size_t size);

#endif

/*
 * The library's settings: the apo_config fields and every environment variable it reads.
 * They are listed once, in settings_table.h; settings.c, the one file that reads the
 * environment, generates their parsing, bounds checks and precedence from that table, and
 * docs/env.md mirrors it (tests/test_settings.c checks that it does). An unparsable or
 * out-of-range variable is warned about and ignored; an out-of-range config field is an
 * error.
 */
#ifndef APO_RUNTIME_SETTINGS_H
#define APO_RUNTIME_SETTINGS_H

#include <stddef.h>

#include "apportion.h"
#include "base/settings_table.h"
#include "base/warnings.h"

/* The C type that holds each type of row. */
#define APO_SETTING_CTYPE_TEXT const char *
#define APO_SETTING_CTYPE_INT int
#define APO_SETTING_CTYPE_UINT unsigned
#define APO_SETTING_CTYPE_SIZE size_t
#define APO_SETTING_CTYPE_REAL double
#define APO_SETTING_CTYPE_REAL_ABOVE double
#define APO_SETTING_CTYPE_SWITCH apo_switch
#define APO_SETTING_CTYPE_USE_GPU apo_use_gpu
#define APO_SETTING_CTYPE_SIM_CLOCK apo_sim_clock
#define APO_SETTING_CTYPE_PRESENT int
#define APO_SETTING_CTYPE_LOG_LEVEL int       /* enum apo__log_level */
#define APO_SETTING_CTYPE_LOG_SUBSYS unsigned /* mask of enum apo__log_subsys */

/* One member per row, named as the row's field. */
#define APO_SETTING_MEMBER(field, var, legacy, type, values, def, min, max, def_text, about)       \
    APO_SETTING_CTYPE_##type field;

/* A runtime's settings, one member per row of APO_SETTINGS and APO_ENV_SETTINGS. */
typedef struct apo__settings {
    APO_SETTINGS(APO_SETTING_MEMBER)
    APO_ENV_SETTINGS(APO_SETTING_MEMBER)
} apo__settings;

/* The logging settings, one member per row of APO_LOG_SETTINGS. */
typedef struct apo__env_debug {
    APO_LOG_SETTINGS(APO_SETTING_MEMBER)
} apo__env_debug;

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

/* A row of the table as data, for messages and for the documentation check. */
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

/* Every row: APO_SETTINGS, then APO_ENV_SETTINGS, then APO_LOG_SETTINGS, each in order. */
extern const apo__setting_row apo__setting_rows[];
extern const size_t apo__setting_row_count;

/* Writes what a valid value of the row is, as a warning says it after "expected": "an
 * integer from 1 to 1024", "seconds, more than 0 and at most 86400", "auto, yes or no". For
 * the types that accept any value, the row's `values`. */
void apo__setting_expected(const apo__setting_row *row, char *out, size_t size);

/* Reads the variables of APO_SETTINGS and APO_ENV_SETTINGS into `env`: each member is the
 * variable's value, or zero (unset) when the variable is unset, empty or not valid. Each
 * value that is not valid adds a warning to `w` that names the variable, shows the value
 * through apo__env_show_value() and says what was expected. */
void apo__settings_read_env(apo__settings *env, apo__warnings *w);

/* Resolves every setting: for each, the apo_config field when it is not at its
 * APO_CONFIG_INIT value, else the variable, else the default. `config` may be NULL (all
 * defaults). The environment is read in full even for the fields the config sets, so that
 * a bad variable is still warned about. Returns APO_ERR_INVALID_ARGUMENT, before reading the
 * environment, when config->size is not sizeof(apo_config) or a field is outside its bounds
 * (the message names the field); otherwise APO_OK. */
apo_status apo__settings_resolve(const apo_config *config, apo__warnings *w, apo__settings *out);

/* Reads the logging variables. Bad values cannot be reported through a runtime (the log
 * is process-wide), so they fall back as docs/env.md says and are noted in the log itself:
 * `problem` receives the note ("" when none). */
void apo__env_read_debug(apo__env_debug *debug, char *problem, size_t problem_size);

/* The one way a value from outside is shown in a message: at most 64 bytes (then "..."),
 * control characters as '?'. `size` should be at least 68. */
void apo__env_show_value(const char *value, char *out, size_t size);

#endif

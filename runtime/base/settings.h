/*
 * A runtime's settings: the apo_config fields and the environment variables read at every
 * apo_runtime_create(). They are listed once, in settings_table.h; settings.c generates
 * their parsing, bounds checks and precedence from that table, env.c reads the variables,
 * and docs/env.md mirrors the table (tests/runtime/base/test_settings.c checks that it does). An
 * unparsable or out-of-range variable is warned about and ignored; an out-of-range config
 * field is an error.
 */
#ifndef APO_RUNTIME_BASE_SETTINGS_H
#define APO_RUNTIME_BASE_SETTINGS_H

#include "apportion.h"
#include "base/settings_table.h"
#include "base/warnings.h"

/* A runtime's settings, one member per row of APO_SETTINGS and APO_ENV_SETTINGS. */
typedef struct apo__settings {
    APO_SETTINGS(APO_SETTING_MEMBER)
    APO_ENV_SETTINGS(APO_SETTING_MEMBER)
} apo__settings;

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

#endif

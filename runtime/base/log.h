/*
 * Debug logging, off by default. APPORTION_DEBUG sets the level (WARN, INFO, TRACE),
 * APPORTION_DEBUG_SUBSYS a comma list of subsystems (INIT, ENV, DEVICE, SPLIT, RUN, ALL),
 * APPORTION_DEBUG_FILE a file to append to instead of stderr.
 */
#ifndef APO_RUNTIME_BASE_LOG_H
#define APO_RUNTIME_BASE_LOG_H

#include <stddef.h>

#include "base/error.h"
#include "base/settings_table.h"

enum apo__log_level { APO_LOG_NONE = 0, APO_LOG_WARN = 1, APO_LOG_INFO = 2, APO_LOG_TRACE = 3 };

enum apo__log_subsys {
    APO_SUBSYS_INIT = 1u << 0,
    APO_SUBSYS_ENV = 1u << 1,
    APO_SUBSYS_DEVICE = 1u << 2,
    APO_SUBSYS_SPLIT = 1u << 3,
    APO_SUBSYS_RUN = 1u << 4,
    APO_SUBSYS_ALL = 0x7fffffff
};

/* The logging settings, one member per row of APO_LOG_SETTINGS. */
typedef struct apo__log_settings {
    APO_LOG_SETTINGS(APO_SETTING_MEMBER)
} apo__log_settings;

/* Reads the logging variables. Bad values cannot be reported through a runtime (the log
 * is process-wide), so they fall back as docs/env.md says and are noted in the log itself:
 * `problem` receives the note ("" when none). */
void apo__log_read_settings(apo__log_settings *s, char *problem, size_t problem_size);

/* True when a message of this level and subsystem would be written. */
int apo__log_enabled(int level, unsigned subsys);

void apo__log(int level, unsigned subsys, const char *fmt, ...) APO_PRINTF_LIKE(3, 4);

#endif

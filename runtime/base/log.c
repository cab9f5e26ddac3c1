/*
 * Process-wide debug log. It is configured once, from the environment, on first use; a
 * library must not print unless asked, so with APPORTION_DEBUG unset nothing is written.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/env.h"
#include "base/log.h"

static int word_is(const char *text, const char *word) { return strcasecmp(text, word) == 0; }

/* The logging variables are read here, through env.c, with the words of their rows. */

/* Each logging type's reader of a set variable; a bad value writes a note to `problem`. */

static void log_read_TEXT(const char *name, const char *text, const char **out, char *problem,
                          size_t problem_size) {
    (void)name, (void)problem, (void)problem_size;
    *out = text;
}

/* A mistyped request for a log still gives one: another value means WARN. */
static void log_read_LOG_LEVEL(const char *name, const char *text, int *out, char *problem,
                               size_t problem_size) {
    if (word_is(text, "NONE"))
        *out = APO_LOG_NONE;
    else if (word_is(text, "WARN"))
        *out = APO_LOG_WARN;
    else if (word_is(text, "INFO"))
        *out = APO_LOG_INFO;
    else if (word_is(text, "TRACE"))
        *out = APO_LOG_TRACE;
    else {
        char shown[APO_SHOWN_VALUE_SIZE];
        apo__env_show_value(text, shown, sizeof shown);
        *out = APO_LOG_WARN;
        snprintf(problem, problem_size,
                 "%s=\"%s\" is not one of NONE, WARN, INFO, TRACE; using WARN", name, shown);
    }
}

static const struct {
    const char *name;
    unsigned mask;
} subsystem_names[] = {
    {"INIT", APO_SUBSYS_INIT},   {"ENV", APO_SUBSYS_ENV}, {"DEVICE", APO_SUBSYS_DEVICE},
    {"SPLIT", APO_SUBSYS_SPLIT}, {"RUN", APO_SUBSYS_RUN}, {"ALL", APO_SUBSYS_ALL},
};

/* Unknown names are skipped; a list with none known means ALL. */
static void log_read_LOG_SUBSYS(const char *name, const char *text, unsigned *out, char *problem,
                                size_t problem_size) {
    unsigned mask = 0;
    const char *p = text;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof subsystem_names / sizeof subsystem_names[0]; i++) {
            if (strlen(subsystem_names[i].name) == len &&
                strncasecmp(p, subsystem_names[i].name, len) == 0) {
                mask |= subsystem_names[i].mask;
                found = 1;
            }
        }
        if (!found) {
            char shown[APO_SHOWN_VALUE_SIZE];
            apo__env_show_value(text, shown, sizeof shown);
            snprintf(problem, problem_size,
                     "%s=\"%s\" has an unknown subsystem, skipped (known: INIT, ENV, DEVICE, "
                     "SPLIT, RUN, ALL; none known means ALL)",
                     name, shown);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    *out = mask != 0 ? mask : APO_SUBSYS_ALL;
}

#define READ_LOG_ROW_(field, var, legacy, type, values, def, ...)                                  \
    {                                                                                              \
        const char *name,                                                                          \
            *text = apo__env_lookup(&apo__setting_rows[APO_SETTING_ROW_##field], &name);           \
        debug->field = (def);                                                                      \
        if (text != NULL)                                                                          \
            log_read_##type(name, text, &debug->field, problem, problem_size);                     \
    }

void apo__log_read_settings(apo__log_settings *debug, char *problem, size_t problem_size) {
    problem[0] = '\0';
    APO_LOG_SETTINGS(READ_LOG_ROW_)
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static apo__log_settings log_settings;
static FILE *log_file;

static void log_init(void) {
    char problem[256];
    apo__log_read_settings(&log_settings, problem, sizeof problem);
    if (log_settings.level == APO_LOG_NONE)
        return;
    log_file = stderr;
    if (log_settings.file != NULL) {
        FILE *f = fopen(log_settings.file, "a");
        if (f != NULL) {
            log_file = f;
        } else {
            char shown[APO_SHOWN_VALUE_SIZE];
            apo__env_show_value(log_settings.file, shown, sizeof shown);
            fprintf(stderr, "apportion: cannot open APPORTION_DEBUG_FILE %s; logging to stderr\n",
                    shown);
        }
    }
    if (problem[0] != '\0')
        fprintf(log_file, "apportion WARN ENV %s\n", problem);
}

int apo__log_enabled(int level, unsigned subsys) {
    pthread_once(&log_once, log_init);
    return level <= log_settings.level && (subsys & log_settings.subsystems) != 0;
}

static const char *level_name(int level) {
    switch (level) {
    case APO_LOG_WARN:
        return "WARN";
    case APO_LOG_INFO:
        return "INFO";
    default:
        return "TRACE";
    }
}

void apo__log(int level, unsigned subsys, const char *fmt, ...) {
    if (!apo__log_enabled(level, subsys))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&log_mutex);
    fprintf(log_file, "apportion %lld.%06ld %s ", (long long)ts.tv_sec, ts.tv_nsec / 1000,
            level_name(level));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(log_file, fmt, ap);
    va_end(ap);
    fputc('\n', log_file);
    fflush(log_file);
    pthread_mutex_unlock(&log_mutex);
}

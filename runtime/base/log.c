/*
 * Process-wide debug log. It is configured once, from the environment, on first use; a
 * library must not print unless asked, so with APPORTION_DEBUG unset nothing is written.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "base/log.h"
#include "base/settings.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static apo__env_debug log_settings;
static FILE *log_file;

static void log_init(void) {
    char problem[256];
    apo__env_read_debug(&log_settings, problem, sizeof problem);
    if (log_settings.level == APO_LOG_NONE)
        return;
    log_file = stderr;
    if (log_settings.file != NULL) {
        FILE *f = fopen(log_settings.file, "a");
        if (f != NULL) {
            log_file = f;
        } else {
            char shown[80];
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

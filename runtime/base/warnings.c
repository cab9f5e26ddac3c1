/* Runtime warnings; see warnings.h. */
#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"
#include "base/warnings.h"

static void add(apo__warnings *w, apo_warning_kind kind, const char *fmt, va_list ap) {
    char text[APO_WARNING_LEN];
    vsnprintf(text, sizeof text, fmt, ap);
    apo__log(APO_LOG_WARN, APO_SUBSYS_INIT, "%s", text);
    if (w->count < APO_WARNINGS_MAX) {
        w->kind[w->count] = kind;
        snprintf(w->text[w->count++], APO_WARNING_LEN, "%s", text);
    } else {
        /* The summary stands for warnings of any kind, so it is a plain one. */
        w->dropped++;
        w->kind[APO_WARNINGS_MAX - 1] = APO_WARNING_PLAIN;
        snprintf(w->text[APO_WARNINGS_MAX - 1], APO_WARNING_LEN,
                 "%zu more warnings; set APPORTION_DEBUG=WARN to see them all", w->dropped + 1);
    }
}

void apo__warn(apo__warnings *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add(w, APO_WARNING_PLAIN, fmt, ap);
    va_end(ap);
}

void apo__warn_kind(apo__warnings *w, apo_warning_kind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add(w, kind, fmt, ap);
    va_end(ap);
}

/* Runtime warnings; see warnings.h. */
#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"
#include "base/warnings.h"

void apo__warn(apo__warnings *w, const char *fmt, ...) {
    char text[APO_WARNING_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    apo__log(APO_LOG_WARN, APO_SUBSYS_INIT, "%s", text);
    if (w->count < APO_WARNINGS_MAX) {
        snprintf(w->text[w->count++], APO_WARNING_LEN, "%s", text);
    } else {
        w->dropped++;
        snprintf(w->text[APO_WARNINGS_MAX - 1], APO_WARNING_LEN,
                 "%zu more warnings; set APPORTION_DEBUG=WARN to see them all", w->dropped + 1);
    }
}

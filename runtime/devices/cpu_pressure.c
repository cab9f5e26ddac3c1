/* The machine's processor pressure, read once per cpu device as it opens; see cpu_pressure.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/cpu_pressure.h"

int apo__cpu_pressure_parse(const char *text, double *avg10) {
    /* "some avg10=1.23 avg60=... total=...\nfull avg10=...": only the "some" line counts, a
     * thread waiting while others run, which is what a preempted helper is. */
    const char *line = text;
    while (line != NULL && strncmp(line, "some ", 5) != 0) {
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    if (line == NULL)
        return -1;
    const char *field = strstr(line, "avg10=");
    const char *end = strchr(line, '\n');
    if (field == NULL || (end != NULL && field > end))
        return -1;
    char *after;
    double v = strtod(field + 6, &after);
    if (after == field + 6 || !isfinite(v) || v < 0 || v > 100)
        return -1;
    *avg10 = v;
    return 0;
}

double apo__cpu_pressure_avg10(const char *path) {
    if (path == NULL)
        path = APO_CPU_PRESSURE_FILE;
    if (strcmp(path, APO_CPU_PRESSURE_OFF) == 0)
        return -1;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char text[512];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    double avg10;
    return apo__cpu_pressure_parse(text, &avg10) == 0 ? avg10 : -1;
}

/*
 * The pieces that the commands of the `apportion` tool share: messages, strict number and
 * duration parsing, the mapping of library statuses to exit statuses and runtime creation
 * (the commands read their options through option_table.c). main.c dispatches to the
 * commands; see docs/cli.md.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void verror(const char *fmt, va_list ap) {
    fputs("apportion: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *command, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
    if (command != NULL)
        fprintf(stderr, "Try 'apportion %s --help'.\n", command);
    else
        fputs("Try 'apportion --help'.\n", stderr);
    return CLI_EXIT_USAGE;
}

int cli_status_error(apo_status status, const char *what) {
    const char *detail = apo_last_error();
    if (detail != NULL && detail[0] != '\0')
        cli_error("%s: %s (%s)", what, detail, apo_status_name(status));
    else
        cli_error("%s: %s (%s)", what, apo_strerror(status), apo_status_name(status));
    switch (status) {
    case APO_ERR_UNKNOWN_KERNEL:
    case APO_ERR_BAD_PARAM:
    case APO_ERR_BAD_DEVICE_SPEC:
    case APO_ERR_INVALID_ARGUMENT:
        return CLI_EXIT_USAGE;
    default:
        return CLI_EXIT_FAILURE;
    }
}

int cli_flag(const char *arg, const char *name) { return strcmp(arg, name) == 0; }

int cli_parse_u64(const char *text, uint64_t *out) {
    if (text[0] < '0' || text[0] > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_size(const char *text, size_t *out) {
    uint64_t v;
    if (cli_parse_u64(text, &v) != 0 || v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

int cli_parse_double(const char *text, double *out) {
    if (text[0] == '\0' || text[0] == ' ' || text[0] == '\t' || text[0] == '\n')
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

void cli_format_shortest(double v, char *buf, size_t size) {
    if (v == trunc(v) && fabs(v) < 1e15) {
        snprintf(buf, size, "%.0f", v);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

int cli_parse_ratio_items(const char *command, const char *option, const char *text,
                          int (*each)(void *ctx, const char *id, double ratio), void *ctx) {
    const char *opt = option != NULL ? option : "", *sep = option != NULL ? ": " : "";
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[256];
        if (len == 0)
            return cli_usage_error(command, "%s%s'%s': empty item", opt, option ? " " : "", text);
        if (len >= sizeof item)
            return cli_usage_error(command, "%s%sitem '%.40s...' is too long", opt, sep, p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strrchr(item, '=');
        if (eq == NULL || eq == item)
            return cli_usage_error(command, "%s%sitem '%s': expected ID=RATIO", opt, sep, item);
        *eq = '\0';
        double v;
        if (cli_parse_double(eq + 1, &v) != 0 || v < 0)
            return cli_usage_error(command, "%s%s'%s' for device %s is not a finite number >= 0",
                                   opt, sep, eq + 1, item);
        int rc = each(ctx, item, v);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (comma == NULL)
            return CLI_EXIT_OK;
        p = comma + 1;
    }
}

int cli_runtime_create(const char *devices, apo_runtime **rt) {
    return cli_runtime_create_learning(devices, APO_SWITCH_UNSET, rt);
}

double cli_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_runtime_create_learning(const char *devices, apo_switch learn, apo_runtime **rt) {
    /* The tool pins its GPUs' first staging slots while it reads its input, which the
     * library by default leaves to the GPU's first task (docs/env.md,
     * APPORTION_GPU_EARLY_STAGING); a value the user set is kept. */
    (void)setenv("APPORTION_GPU_EARLY_STAGING", "on", 0);
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    config.learn = learn;
    *rt = NULL;
    apo_status st = apo_runtime_create(&config, rt);
    if (st != APO_OK)
        return cli_status_error(st, "cannot create the runtime");
    /* Under mpirun every rank runs the same command line: rank 0 runs the command and the
     * other ranks serve it until it is done (docs/cluster.md), then leave. */
    apo_cluster_info cluster = APO_CLUSTER_INFO_INIT;
    if (apo_cluster_info_get(*rt, &cluster) == APO_OK && cluster.role == APO_CLUSTER_SERVER) {
        st = apo_cluster_serve(*rt);
        int code = st == APO_OK ? CLI_EXIT_OK : cli_status_error(st, "cannot serve rank 0");
        apo_runtime_destroy(*rt);
        *rt = NULL;
        exit(code);
    }
    return CLI_EXIT_OK;
}

const char *cli_escape(const char *text, char *buf, size_t size) {
    size_t o = 0;
    if (size < 8) {
        if (size > 0)
            buf[0] = '\0';
        return buf;
    }
    for (const char *c = text; *c != '\0'; c++) {
        const unsigned char b = (unsigned char)*c;
        const size_t need = b < 0x20 || b == 0x7f ? 4 : 1;
        if (o + need + 4 > size) {
            memcpy(buf + o, "...", 4);
            return buf;
        }
        if (need == 4)
            snprintf(buf + o, size - o, "\\x%02x", b);
        else
            buf[o] = (char)b;
        o += need;
    }
    buf[o] = '\0';
    return buf;
}

int cli_stderr_is_tty(void) { return isatty(STDERR_FILENO); }

int cli_parse_duration(const char *text, double *seconds) {
    const size_t len = strlen(text);
    if (len < 2)
        return -1;
    double unit;
    switch (text[len - 1]) {
    case 's':
        unit = 1.0;
        break;
    case 'm':
        unit = 60.0;
        break;
    case 'h':
        unit = 3600.0;
        break;
    case 'd':
        unit = 86400.0;
        break;
    default:
        return -1;
    }
    char digits[32];
    if (len - 1 >= sizeof digits)
        return -1;
    memcpy(digits, text, len - 1);
    digits[len - 1] = '\0';
    uint64_t n;
    if (cli_parse_u64(digits, &n) != 0 || n == 0)
        return -1;
    *seconds = (double)n * unit;
    return 0;
}

/* "2.1" or, at 10 and above or when whole, "45": the figure of an age. */
static void format_figure(double v, const char *unit, char *out, size_t size) {
    if (v < 10.0 && floor(v * 10.0 + 0.5) != floor(v + 0.5) * 10.0)
        snprintf(out, size, "%.1f%s", v, unit);
    else
        snprintf(out, size, "%.0f%s", v, unit);
}

void cli_format_age(double seconds, char *out, size_t size) {
    if (isnan(seconds)) {
        snprintf(out, size, "unknown");
        return;
    }
    if (seconds < 0.0)
        seconds = 0.0;
    if (seconds < 60.0)
        snprintf(out, size, "%.0fs", floor(seconds));
    else if (seconds < 3600.0)
        format_figure(seconds / 60.0, "m", out, size);
    else if (seconds < 86400.0)
        format_figure(seconds / 3600.0, "h", out, size);
    else
        format_figure(seconds / 86400.0, "d", out, size);
}

/* Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one
 * substring), case ignored: a swapped pair of letters is one typo, not two. */
static size_t edit_distance(const char *a, const char *b) {
    const size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return SIZE_MAX; /* no kernel name is that long: not a typo of one */
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            const int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *cli_nearest_kernel(const apo_runtime *rt, const char *name) {
    size_t count = 0;
    if (rt == NULL || name == NULL || apo_kernel_count(rt, &count) != APO_OK)
        return NULL;
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        const char *k = NULL;
        if (apo_kernel_name(rt, i, &k) != APO_OK || k == NULL)
            continue;
        const size_t dist = edit_distance(name, k);
        const size_t longer = strlen(k) > strlen(name) ? strlen(k) : strlen(name);
        const size_t allowed = longer / 3 > 1 ? longer / 3 : 1;
        if (dist <= allowed && dist < best_d) {
            best = k;
            best_d = dist;
        }
    }
    return best;
}

int cli_unknown_kernel_error(const apo_runtime *rt, const char *name, apo_status status,
                             const char *what) {
    const int rc = cli_status_error(status, what);
    const char *near = cli_nearest_kernel(rt, name);
    if (near != NULL) {
        char q[CLI_ESCAPED_MAX];
        fprintf(stderr, "apportion: did you mean \"%s\"?\n", cli_escape(near, q, sizeof q));
    }
    return rc;
}

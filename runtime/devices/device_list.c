/* Parser of the device list; see device_list.h. Every rejection names what was wrong. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/settings.h"
#include "devices/device_list.h"
#include "devices/replay.h"

#define APO_DEVICE_ITEM_MAX 256

typedef struct parse_ctx {
    size_t item_no;
    const char *item;
    char *err;
    size_t err_size;
} parse_ctx;

static apo_status reject(parse_ctx *ctx, const char *fmt, ...) APO_PRINTF_LIKE(2, 3);

/* The item and the reason are echoed in a message, which goes to a terminal or a log: control
 * bytes are written as \xNN, so that a raw escape or line break from the variable cannot act
 * there or hide what was wrong ("sim\x06" would show as a valid "sim"). Both are cut (with
 * "...") so that the reason always fits in the 256 bytes the runtime keeps, however long or
 * full of control bytes the item was. */
#define ITEM_SHOWN_MAX 48
#define REASON_SHOWN_MAX 160

/* Writes at most `max` bytes of `text` so escaped, then "..." if it was cut; out must hold
 * max + 4 bytes. A cut never splits an escape or a UTF-8 sequence. */
static void copy_shown(char *out, const char *text, size_t max) {
    size_t o = 0;
    const unsigned char *c = (const unsigned char *)text;
    for (; *c != '\0'; c++) {
        int control = *c < 0x20 || *c == 0x7f;
        if (o + (control ? 4 : 1) > max)
            break;
        if (control)
            o += (size_t)snprintf(out + o, 5, "\\x%02x", *c);
        else
            out[o++] = (char)*c;
    }
    if (*c != '\0') {
        if ((*c & 0xc0) == 0x80) {
            while (o > 0 && ((unsigned char)out[o - 1] & 0xc0) == 0x80)
                o--;
            if (o > 0 && (unsigned char)out[o - 1] >= 0xc0)
                o--;
        }
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

static apo_status reject(parse_ctx *ctx, const char *fmt, ...) {
    char reason[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    char item_shown[ITEM_SHOWN_MAX + 4], reason_shown[REASON_SHOWN_MAX + 4];
    copy_shown(item_shown, ctx->item, ITEM_SHOWN_MAX);
    copy_shown(reason_shown, reason, REASON_SHOWN_MAX);
    snprintf(ctx->err, ctx->err_size, "device list item %zu \"%s\": %s", ctx->item_no, item_shown,
             reason_shown);
    return APO_ERR_BAD_DEVICE_SPEC;
}

/* A whole decimal unsigned integer in [lo, hi]. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* A positive finite rate with an optional k, M or G suffix. */
static int parse_rate(const char *s, double *out) {
    /* strtod() would skip leading white space, which the grammar has no place for. */
    if (isspace((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0)
        return -1;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M')
        v *= 1e6, end++;
    else if (*end == 'G')
        v *= 1e9, end++;
    if (*end != '\0' || !isfinite(v) || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

/* A non-negative duration: a number followed by ns, us, ms or s ("0" alone is allowed).
 * Capped at one hour, far beyond any latency worth modelling. */
static int parse_duration(const char *s, double *out) {
    if (isspace((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !isfinite(v) || v < 0)
        return -1;
    double scale;
    if (strcmp(end, "ns") == 0)
        scale = 1e-9;
    else if (strcmp(end, "us") == 0)
        scale = 1e-6;
    else if (strcmp(end, "ms") == 0)
        scale = 1e-3;
    else if (strcmp(end, "s") == 0)
        scale = 1.0;
    else if (*end == '\0' && v == 0)
        scale = 0.0;
    else
        return -1;
    if (v * scale > 3600.0)
        return -1;
    *out = v * scale;
    return 0;
}

/* A probability: a finite number from 0 to 1. */
/* A plain number from lo to hi. */
static int parse_real_in(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || *end != '\0' || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int parse_probability(const char *s, double *out) { return parse_real_in(s, 0, 1, out); }

static int valid_sim_name(const char *name) {
    size_t len = strlen(name);
    if (len == 0 || len >= APO_SIM_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c) && c != '_' && c != '-' && c != '.')
            return 0;
    }
    return 1;
}

static apo_status parse_cpu(parse_ctx *ctx, char *opts, apo__device_spec *spec) {
    spec->kind = APO_SPEC_CPU;
    if (opts == NULL)
        return APO_OK;
    if (strncmp(opts, "threads=", 8) != 0)
        return reject(ctx, "unknown cpu option \"%s\" (expected threads=N)", opts);
    uint64_t n;
    if (parse_u64(opts + 8, 1, APO_CPU_THREADS_MAX, &n) != 0)
        return reject(ctx, "threads must be an integer from 1 to %d, got \"%s\"",
                      APO_CPU_THREADS_MAX, opts + 8);
    spec->threads = (int)n;
    return APO_OK;
}

static apo_status parse_cuda(parse_ctx *ctx, char *opts, apo__device_spec *spec) {
    if (opts == NULL) {
        spec->kind = APO_SPEC_CUDA_ALL;
        return APO_OK;
    }
    if (strncmp(opts, "GPU-", 4) == 0) {
        const char *hex = opts + 4;
        size_t len = strlen(hex);
        if (len == 0 || len >= sizeof spec->uuid_prefix)
            return reject(ctx, "a GPU UUID prefix needs 1 to 63 characters after GPU-");
        for (size_t i = 0; i < len; i++) {
            if (!isxdigit((unsigned char)hex[i]) && hex[i] != '-')
                return reject(ctx, "a GPU UUID holds hex digits and dashes, got \"%s\"", hex);
            spec->uuid_prefix[i] = (char)tolower((unsigned char)hex[i]);
        }
        spec->uuid_prefix[len] = '\0';
        spec->kind = APO_SPEC_CUDA_UUID;
        return APO_OK;
    }
    uint64_t n;
    if (parse_u64(opts, 0, 1023, &n) != 0)
        return reject(ctx, "expected cuda:N (an ordinal from 0) or cuda:GPU-<uuid>, got \"%s\"",
                      opts);
    spec->kind = APO_SPEC_CUDA_ORDINAL;
    spec->ordinal = (int)n;
    return APO_OK;
}

static apo_status parse_sim(parse_ctx *ctx, char *opts, apo__device_spec *spec) {
    spec->kind = APO_SPEC_SIM;
    spec->sim_rate = APO_SIM_DEFAULT_RATE;
    if (opts == NULL)
        return reject(ctx, "a sim device needs a name: sim:NAME[:rate=R][:latency=D]");
    char *next = strchr(opts, ':');
    if (next != NULL)
        *next++ = '\0';
    if (!valid_sim_name(opts))
        return reject(ctx,
                      "sim name \"%s\" must be 1 to 47 characters of letters, digits, '_', '-' "
                      "or '.'",
                      opts);
    snprintf(spec->sim_name, sizeof spec->sim_name, "%s", opts);

    int seen_rate = 0, seen_latency = 0, seen_fail = 0, seen_slow_after = 0, seen_slow_rate = 0;
    int seen_flaky = 0, seen_seed = 0, seen_hang = 0, seen_replay = 0, seen_cold = 0;
    spec->sim_cold = 1;
    while (next != NULL) {
        char *opt = next;
        next = strchr(opt, ':');
        if (next != NULL)
            *next++ = '\0';
        char *eq = strchr(opt, '=');
        if (eq == NULL)
            return reject(ctx, "sim option \"%s\" needs a value (key=value)", opt);
        *eq = '\0';
        const char *value = eq + 1;
        if (strcmp(opt, "rate") == 0) {
            if (seen_rate++)
                return reject(ctx, "rate given twice");
            if (parse_rate(value, &spec->sim_rate) != 0)
                return reject(ctx,
                              "rate must be a positive number of elements per second (suffix "
                              "k, M or G allowed), got \"%s\"",
                              value);
        } else if (strcmp(opt, "latency") == 0) {
            if (seen_latency++)
                return reject(ctx, "latency given twice");
            if (parse_duration(value, &spec->sim_latency_s) != 0)
                return reject(ctx,
                              "latency must be a duration such as 50us, 2ms or 0.1s (at most "
                              "1 hour), got \"%s\"",
                              value);
        } else if (strcmp(opt, "fail_after") == 0) {
            if (seen_fail++)
                return reject(ctx, "fail_after given twice");
            if (parse_u64(value, 1, UINT64_MAX, &spec->sim_fail_after) != 0)
                return reject(ctx, "fail_after must be an integer of at least 1, got \"%s\"",
                              value);
        } else if (strcmp(opt, "slow_after") == 0) {
            if (seen_slow_after++)
                return reject(ctx, "slow_after given twice");
            if (parse_u64(value, 1, UINT64_MAX, &spec->sim_slow_after) != 0)
                return reject(ctx, "slow_after must be an integer of at least 1, got \"%s\"",
                              value);
        } else if (strcmp(opt, "slow_rate") == 0) {
            if (seen_slow_rate++)
                return reject(ctx, "slow_rate given twice");
            if (parse_rate(value, &spec->sim_slow_rate) != 0)
                return reject(ctx,
                              "slow_rate must be a positive number of elements per second "
                              "(suffix k, M or G allowed), got \"%s\"",
                              value);
        } else if (strcmp(opt, "flaky") == 0) {
            if (seen_flaky++)
                return reject(ctx, "flaky given twice");
            if (parse_probability(value, &spec->sim_flaky) != 0)
                return reject(ctx, "flaky must be a probability from 0 to 1, got \"%s\"", value);
        } else if (strcmp(opt, "seed") == 0) {
            if (seen_seed++)
                return reject(ctx, "seed given twice");
            if (parse_u64(value, 0, UINT64_MAX, &spec->sim_seed) != 0)
                return reject(ctx, "seed must be an integer from 0 to 2^64-1, got \"%s\"", value);
        } else if (strcmp(opt, "hang_after") == 0) {
            if (seen_hang++)
                return reject(ctx, "hang_after given twice");
            if (parse_u64(value, 1, UINT64_MAX, &spec->sim_hang_after) != 0)
                return reject(ctx, "hang_after must be an integer of at least 1, got \"%s\"",
                              value);
        } else if (strcmp(opt, "cold") == 0) {
            if (seen_cold++)
                return reject(ctx, "cold given twice");
            if (parse_real_in(value, 1, 1000, &spec->sim_cold) != 0)
                return reject(ctx, "cold must be a factor from 1 to 1000, got \"%s\"", value);
        } else if (strcmp(opt, "replay") == 0) {
            if (seen_replay++)
                return reject(ctx, "replay given twice");
            if (apo__replay_find(value) == NULL)
                return reject(ctx, "replay=%s names no measured device (known: %s)", value,
                              apo__replay_names());
            snprintf(spec->sim_replay, sizeof spec->sim_replay, "%s", value);
        } else {
            return reject(ctx,
                          "unknown sim option \"%s\" (known: rate, latency, fail_after, "
                          "slow_after, slow_rate, flaky, seed, hang_after, replay, cold)",
                          opt);
        }
    }
    if (seen_replay && (seen_rate || seen_latency || seen_slow_after))
        return reject(ctx,
                      "replay=%s times the device from its measured figures: rate, latency "
                      "and slow_after do not go with it",
                      spec->sim_replay);
    if (seen_slow_after != seen_slow_rate)
        return reject(ctx, "slow_after and slow_rate go together");
    if (seen_seed && !seen_flaky)
        return reject(ctx, "seed only keys the flaky draws: give flaky=P with it");
    return APO_OK;
}

static apo_status parse_item(parse_ctx *ctx, char *item, apo__device_spec *spec) {
    memset(spec, 0, sizeof *spec);
    char *opts = strchr(item, ':');
    if (opts != NULL)
        *opts++ = '\0';
    if (strcmp(item, "auto") == 0) {
        if (opts != NULL)
            return reject(ctx, "auto takes no options");
        spec->kind = APO_SPEC_AUTO;
        return APO_OK;
    }
    if (strcmp(item, "cpu") == 0)
        return parse_cpu(ctx, opts, spec);
    if (strcmp(item, "cuda") == 0)
        return parse_cuda(ctx, opts, spec);
    if (strcmp(item, "sim") == 0)
        return parse_sim(ctx, opts, spec);
    return reject(ctx, "unknown device kind \"%s\" (expected auto, cuda, cpu or sim)", item);
}

/* Two entries that would open the same device are a mistake worth stopping for. */
static int same_device(const apo__device_spec *a, const apo__device_spec *b) {
    int a_cpu = a->kind == APO_SPEC_CPU || a->kind == APO_SPEC_AUTO;
    int b_cpu = b->kind == APO_SPEC_CPU || b->kind == APO_SPEC_AUTO;
    if (a_cpu && b_cpu)
        return 1;
    if (a->kind == APO_SPEC_SIM && b->kind == APO_SPEC_SIM)
        return strcmp(a->sim_name, b->sim_name) == 0;
    if (a->kind == APO_SPEC_CUDA_ORDINAL && b->kind == APO_SPEC_CUDA_ORDINAL)
        return a->ordinal == b->ordinal;
    if (a->kind == APO_SPEC_CUDA_UUID && b->kind == APO_SPEC_CUDA_UUID)
        return strcmp(a->uuid_prefix, b->uuid_prefix) == 0;
    return 0;
}

apo_status apo__parse_device_list(const char *text, apo__device_spec *specs, size_t max,
                                  size_t *count, char *err, size_t err_size) {
    *count = 0;
    if (text == NULL || text[0] == '\0') {
        snprintf(err, err_size, "the device list is empty (use auto, or e.g. cpu,sim:a)");
        return APO_ERR_BAD_DEVICE_SPEC;
    }
    const char *p = text;
    size_t item_no = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        item_no++;
        char item[APO_DEVICE_ITEM_MAX];
        char shown[APO_DEVICE_ITEM_MAX];
        if (len >= sizeof item) {
            snprintf(err, err_size, "device list item %zu is longer than %d characters", item_no,
                     APO_DEVICE_ITEM_MAX - 1);
            return APO_ERR_BAD_DEVICE_SPEC;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        memcpy(shown, item, len + 1);
        parse_ctx ctx = {item_no, shown, err, err_size};
        if (len == 0)
            return reject(&ctx, "empty item (two commas in a row, or a comma at an end)");
        if (*count == max)
            return reject(&ctx, "too many devices (at most %zu)", max);
        apo_status st = parse_item(&ctx, item, &specs[*count]);
        if (st != APO_OK)
            return st;
        for (size_t i = 0; i < *count; i++) {
            if (same_device(&specs[i], &specs[*count]))
                return reject(&ctx, "names a device already listed as item %zu", i + 1);
        }
        (*count)++;
        p += len;
        if (*p == '\0')
            break;
        p++; /* the comma */
    }
    return APO_OK;
}

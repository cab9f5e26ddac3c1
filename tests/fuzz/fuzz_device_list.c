/*
 * Fuzz target: the device list of APPORTION_DEVICES, apo_config.devices and --devices, as
 * apo__parse_device_list() reads it (runtime/devices/device_list.h, docs/env.md). The input is one
 * C string, up to its first NUL, as the environment would give it.
 *
 * Checked beyond "no crash, no leak":
 * - a refusal is APO_ERR_BAD_DEVICE_SPEC with a message that names the item, holds no
 *   control byte (it goes to a terminal or a log, whatever the variable held) and fits,
 *   reason included, in the runtime's 256 bytes however long the item;
 * - a list that parses has one spec per comma-separated item (1 to max), each within its
 *   documented bounds (ordinal 0-1023, a lower-case hex UUID prefix, 1 to
 *   APO_CPU_THREADS_MAX threads, a sim name of 1 to 47 letters, digits, '_', '-' or '.', a
 *   positive finite rate, a latency of 0 to 1 hour, slow_after and slow_rate together), and
 *   no device twice;
 * - the limit on the number of devices is applied alone: parsed again with a limit of 2, the
 *   list gives the same specs when it has at most 2 items and "too many devices" otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/settings.h"
#include "devices/device_list.h"
#include "fuzz_check.h"

#define SMALL_MAX 2
/* What the runtime keeps of a message (runtime.c, open_devices). */
#define MESSAGE_SIZE 256

static void check_spec(const apo__device_spec *s, size_t i) {
    switch (s->kind) {
    case APO_SPEC_AUTO:
    case APO_SPEC_CUDA_ALL:
        break;
    case APO_SPEC_CUDA_ORDINAL:
        FUZZ_CHECK(s->ordinal >= 0 && s->ordinal <= 1023, "item %zu: ordinal %d", i, s->ordinal);
        break;
    case APO_SPEC_CUDA_UUID: {
        FUZZ_CHECK(fuzz_terminated(s->uuid_prefix, sizeof s->uuid_prefix), "item %zu: uuid", i);
        FUZZ_CHECK(s->uuid_prefix[0] != '\0', "item %zu: empty uuid prefix", i);
        for (const char *c = s->uuid_prefix; *c != '\0'; c++)
            FUZZ_CHECK((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || *c == '-',
                       "item %zu: uuid prefix \"%s\"", i, s->uuid_prefix);
        break;
    }
    case APO_SPEC_CPU:
        FUZZ_CHECK(s->threads >= 0 && s->threads <= APO_CPU_THREADS_MAX, "item %zu: %d threads", i,
                   s->threads);
        break;
    case APO_SPEC_SIM: {
        FUZZ_CHECK(fuzz_terminated(s->sim_name, sizeof s->sim_name), "item %zu: sim name", i);
        size_t len = strlen(s->sim_name);
        FUZZ_CHECK(len >= 1 && len < APO_SIM_NAME_MAX, "item %zu: sim name of %zu bytes", i, len);
        for (const char *c = s->sim_name; *c != '\0'; c++)
            FUZZ_CHECK((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
                           (*c >= 'A' && *c <= 'Z') || *c == '_' || *c == '-' || *c == '.',
                       "item %zu: sim name \"%s\"", i, s->sim_name);
        FUZZ_CHECK(isfinite(s->sim_rate) && s->sim_rate > 0, "item %zu: rate %g", i, s->sim_rate);
        FUZZ_CHECK(isfinite(s->sim_latency_s) && s->sim_latency_s >= 0 &&
                       s->sim_latency_s <= 3600.0,
                   "item %zu: latency %g s", i, s->sim_latency_s);
        FUZZ_CHECK((s->sim_slow_after == 0) == (s->sim_slow_rate == 0),
                   "item %zu: slow_after %llu without slow_rate %g or the reverse", i,
                   (unsigned long long)s->sim_slow_after, s->sim_slow_rate);
        FUZZ_CHECK(s->sim_slow_rate == 0 || (isfinite(s->sim_slow_rate) && s->sim_slow_rate > 0),
                   "item %zu: slow_rate %g", i, s->sim_slow_rate);
        break;
    }
    default:
        FUZZ_CHECK(0, "item %zu: kind %d", i, (int)s->kind);
    }
}

/* Whether two specs would open the same device, decided here from the grammar: at most one
 * host entry (cpu or auto), and no repeated sim name, ordinal or UUID prefix. */
static int duplicate(const apo__device_spec *a, const apo__device_spec *b) {
    int a_host = a->kind == APO_SPEC_CPU || a->kind == APO_SPEC_AUTO;
    int b_host = b->kind == APO_SPEC_CPU || b->kind == APO_SPEC_AUTO;
    if (a_host || b_host)
        return a_host && b_host;
    if (a->kind != b->kind)
        return 0;
    if (a->kind == APO_SPEC_SIM)
        return strcmp(a->sim_name, b->sim_name) == 0;
    if (a->kind == APO_SPEC_CUDA_ORDINAL)
        return a->ordinal == b->ordinal;
    if (a->kind == APO_SPEC_CUDA_UUID)
        return strcmp(a->uuid_prefix, b->uuid_prefix) == 0;
    return 0;
}

/* The count after a refusal is unspecified (device_list.h; the runtime ignores it). The
 * message must name the item and, in the runtime's 256 bytes, still give the reason. */
static void check_refusal(const char *text, const char *err) {
    FUZZ_CHECK(strncmp(err, "device list item ", 17) == 0 ||
                   (text[0] == '\0' && strncmp(err, "the device list is empty", 24) == 0),
               "message does not name the item: \"%s\"", err);
    FUZZ_CHECK(strlen(err) + 1 < MESSAGE_SIZE, "message cut: \"%s\"", err);
    FUZZ_CHECK(fuzz_printable(err), "message holds a control byte: \"%s\"", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_string(data, size);
    apo__device_spec specs[APO_MAX_DEVICES];
    size_t count = 99;
    char err[MESSAGE_SIZE] = "";
    apo_status st = apo__parse_device_list(text, specs, APO_MAX_DEVICES, &count, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err), "message not terminated");

    apo__device_spec small[SMALL_MAX];
    size_t small_count = 99;
    char small_err[MESSAGE_SIZE] = "";
    apo_status small_st =
        apo__parse_device_list(text, small, SMALL_MAX, &small_count, small_err, sizeof small_err);

    if (st != APO_OK) {
        FUZZ_CHECK(st == APO_ERR_BAD_DEVICE_SPEC, "status %d", st);
        check_refusal(text, err);
        /* A list refused for its content is refused under any limit. */
        FUZZ_CHECK(small_st == APO_ERR_BAD_DEVICE_SPEC, "refused with %d devices, not with %d",
                   APO_MAX_DEVICES, SMALL_MAX);
        free(text);
        return 0;
    }
    size_t items = 1;
    for (const char *c = text; *c != '\0'; c++)
        items += *c == ',';
    FUZZ_CHECK(count == items, "%zu specs for %zu items", count, items);
    FUZZ_CHECK(count >= 1 && count <= APO_MAX_DEVICES, "%zu specs", count);
    for (size_t i = 0; i < count; i++) {
        check_spec(&specs[i], i + 1);
        for (size_t k = 0; k < i; k++)
            FUZZ_CHECK(!duplicate(&specs[k], &specs[i]), "items %zu and %zu are one device", k + 1,
                       i + 1);
    }
    if (count <= SMALL_MAX) {
        FUZZ_CHECK(small_st == APO_OK && small_count == count, "refused under a limit it fits");
        FUZZ_CHECK(memcmp(small, specs, count * sizeof specs[0]) == 0, "different specs");
    } else {
        FUZZ_CHECK(small_st == APO_ERR_BAD_DEVICE_SPEC && strstr(small_err, "too many devices"),
                   "%zu devices under a limit of %d: \"%s\"", count, SMALL_MAX, small_err);
        check_refusal(text, small_err);
    }
    free(text);
    return 0;
}

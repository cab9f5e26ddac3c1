/*
 * Fuzz target: thresholds.json, as apo__thresholds_parse() reads it (apo__thresholds_load()
 * runs the same code once it has read the file), then what the runtime does with what it
 * read: each key goes through apo__threshold_key_parse() (apo_should_use_gpu() does that for
 * every stored entry), and the entries are merged into themselves by apo__thresholds_add()
 * (what a profiling run does to the file it read).
 *
 * Checked beyond "no crash, no leak":
 * - an error: APO_ERR_INVALID_ARGUMENT (or out of memory), a message that starts
 *   with the file's name and holds no control byte, and no entries;
 * - entries sorted by distinct keys of 1 to APO_THRESHOLD_KEY_MAX-1 bytes of UTF-8, averages
 *   NaN (never measured) or finite and >= 0, cpu_samples and gpu_samples at most samples
 *   and 0 for a side without a time, counts that jansson can write back;
 * - a key that parses has a valid function name, at most APO_MAX_PARAMS + 1 distinct,
 *   sorted, valid parameter names other than 'size', finite values, and holds its size;
 * - merging the file into itself keeps every key, keeps each average (to rounding: the
 *   running mean of two equal halves), and keeps the counts consistent.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_profile.h"
#include "profiles/profile_store.h"

#define NAME "fuzz/thresholds.json"
#define COUNT_LIMIT ((uint64_t)INT64_MAX)

static void check_entry(const apo__thresholds *t, size_t i) {
    const apo__threshold *e = &t->entries[i];
    FUZZ_CHECK(fuzz_terminated(e->key, sizeof e->key), "key %zu not terminated", i);
    FUZZ_CHECK(e->key[0] != '\0' && fuzz_utf8(e->key), "key %zu empty or not UTF-8", i);
    if (i > 0)
        FUZZ_CHECK(strcmp(t->entries[i - 1].key, e->key) < 0, "keys not sorted and distinct");
    const double avg[2] = {e->cpu_ms_avg, e->gpu_ms_avg};
    const uint64_t side[2] = {e->cpu_samples, e->gpu_samples};
    for (int s = 0; s < 2; s++) {
        FUZZ_CHECK(isnan(avg[s]) || (isfinite(avg[s]) && avg[s] >= 0), "%s: average %g", e->key,
                   avg[s]);
        FUZZ_CHECK(side[s] <= e->samples, "%s: side count %" PRIu64 " > samples %" PRIu64, e->key,
                   side[s], e->samples);
        FUZZ_CHECK(!isnan(avg[s]) || side[s] == 0, "%s: count %" PRIu64 " without a time", e->key,
                   side[s]);
    }
    FUZZ_CHECK(e->samples <= COUNT_LIMIT, "%s: samples", e->key);
    FUZZ_CHECK(e->simulated == 0 || e->simulated == 1, "%s: simulated %d", e->key, e->simulated);
}

static void check_key_parse(const char *key) {
    apo__threshold_key_parts parts;
    if (apo__threshold_key_parse(key, &parts) != APO_OK)
        return;
    fuzz_check_key_parts(key, &parts);
}

/* The file merged into a copy of itself (every key already there). */
static void check_self_merge(const apo__thresholds *t) {
    apo__thresholds merged = {.n = t->n};
    merged.entries = malloc((t->n > 0 ? t->n : 1) * sizeof *merged.entries);
    FUZZ_CHECK(merged.entries != NULL, "out of memory");
    if (t->n > 0)
        memcpy(merged.entries, t->entries, t->n * sizeof *t->entries);
    FUZZ_CHECK(apo__thresholds_add(&merged, t->entries, t->n) == APO_OK, "merge failed");
    FUZZ_CHECK(merged.n == t->n, "merging the file into itself made %zu entries of %zu", merged.n,
               t->n);
    for (size_t i = 0; i < t->n; i++) {
        const apo__threshold *a = &t->entries[i], *m = &merged.entries[i];
        FUZZ_CHECK(strcmp(a->key, m->key) == 0, "merge reordered %s", a->key);
        check_entry(&merged, i);
        const double before[2] = {a->cpu_ms_avg, a->gpu_ms_avg};
        const double after[2] = {m->cpu_ms_avg, m->gpu_ms_avg};
        for (int s = 0; s < 2; s++) {
            FUZZ_CHECK(isnan(before[s]) == isnan(after[s]), "%s: side %d measured %d -> %d", a->key,
                       s, !isnan(before[s]), !isnan(after[s]));
            if (!isnan(before[s]))
                FUZZ_CHECK(fabs(after[s] - before[s]) <= 1e-12 * before[s] ||
                               (before[s] < 1e-300 && after[s] < 1e-300),
                           "%s: side %d average %.17g became %.17g", a->key, s, before[s],
                           after[s]);
        }
        FUZZ_CHECK(m->samples >= a->samples, "%s: samples went down", a->key);
    }
    apo__thresholds_free(&merged);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    apo__thresholds t;
    char err[512];
    apo_status st = apo__thresholds_parse(NAME, (const char *)data, size, &t, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err), "message not terminated");
    if (st != APO_OK) {
        fuzz_check_profile_refusal(st, err, NAME);
        FUZZ_CHECK(t.n == 0 && t.entries == NULL, "failed parse left entries");
        return 0;
    }
    FUZZ_CHECK(err[0] == '\0', "success with a message: \"%s\"", err);
    FUZZ_CHECK(fuzz_terminated(t.updated_at, sizeof t.updated_at), "updated_at");
    if (t.updated_at[0] != '\0')
        FUZZ_CHECK(apo__timestamp_parse(t.updated_at) >= 0, "updated_at \"%s\"", t.updated_at);
    FUZZ_CHECK(t.n == 0 || t.entries != NULL, "entries missing");
    for (size_t i = 0; i < t.n; i++) {
        check_entry(&t, i);
        check_key_parse(t.entries[i].key);
    }
    check_self_merge(&t);
    apo__thresholds_free(&t);
    return 0;
}

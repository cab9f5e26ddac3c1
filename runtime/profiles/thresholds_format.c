/*
 * thresholds.json (docs/profiles.md): per threshold key, the average CPU and GPU times
 * measured, read strictly into apo__thresholds and written back. ThreadX's shape (no
 * "format", one `samples` count, `updated_at` possibly in Unix seconds) is read too, its
 * single count taken for each side that has a time; it is never written.
 */
#include "profiles/thresholds_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/json_fields.h"
#include "profiles/text.h"

int apo__threshold_cmp(const void *a, const void *b) {
    return strcmp(((const apo__threshold *)a)->key, ((const apo__threshold *)b)->key);
}

/* The cpu_samples and gpu_samples of an entry whose times and `samples` are read. */
static apo_status side_counts_from_json(const apo__field_ctx *v, const char *ep, const json_t *j,
                                        int threadx, apo__threshold *t) {
    char jp[APO_JPATH_MAX];
    static const char *const side_names[2] = {"cpu", "gpu"};
    const double avg[2] = {t->cpu_ms_avg, t->gpu_ms_avg};
    uint64_t *count[2] = {&t->cpu_samples, &t->gpu_samples};
    for (int s = 0; s < 2; s++) {
        char name[16];
        snprintf(name, sizeof name, "%s_samples", side_names[s]);
        const json_t *c = threadx ? NULL : json_object_get(j, name);
        if (c == NULL) {
            /* ThreadX kept one count: every measurement timed the sides it has a time for. */
            *count[s] = isnan(avg[s]) ? 0 : t->samples;
            continue;
        }
        APO_CHECK(apo__get_count(v, j, ep, name, 0, APO_PROFILE_COUNT_MAX, count[s]));
        apo__jpath_join(jp, sizeof jp, ep, name);
        if (*count[s] > t->samples)
            return apo__field_invalid(v, jp, "expected at most samples (%llu), got %llu",
                                      (unsigned long long)t->samples,
                                      (unsigned long long)*count[s]);
        if (isnan(avg[s]) && *count[s] != 0)
            return apo__field_invalid(v, jp, "expected 0 since %s_ms_avg is absent, got %llu",
                                      side_names[s], (unsigned long long)*count[s]);
    }
    return APO_OK;
}

static apo_status threshold_from_json(const apo__field_ctx *v, const char *key, const json_t *j,
                                      int threadx, apo__threshold *t) {
    char ep[APO_JPATH_MAX], jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(ep, sizeof ep, "entries", key);
    APO_CHECK(apo__check_key(v, ep, key, APO_THRESHOLD_KEY_MAX, "a key"));
    if (!json_is_object(j))
        return apo__field_invalid(v, ep,
                                  "expected an object (cpu_ms_avg, gpu_ms_avg, samples), got %s",
                                  apo__json_describe(j, got, sizeof got));
    memset(t, 0, sizeof *t);
    snprintf(t->key, sizeof t->key, "%s", key);
    APO_CHECK(apo__get_nonneg(v, j, ep, "cpu_ms_avg", &t->cpu_ms_avg));
    APO_CHECK(apo__get_nonneg(v, j, ep, "gpu_ms_avg", &t->gpu_ms_avg));
    APO_CHECK(apo__get_count(v, j, ep, "samples", 1, APO_PROFILE_COUNT_MAX, &t->samples));
    APO_CHECK(side_counts_from_json(v, ep, j, threadx, t));
    const json_t *simulated = threadx ? NULL : json_object_get(j, "simulated");
    if (simulated != NULL) {
        apo__jpath_join(jp, sizeof jp, ep, "simulated");
        if (!json_is_boolean(simulated))
            return apo__field_invalid(v, jp, "expected true or false, got %s",
                                      apo__json_describe(simulated, got, sizeof got));
        t->simulated = json_is_true(simulated);
    }
    return APO_OK;
}

static apo_status thresholds_from_json(const apo__field_ctx *v, const json_t *root, void *out) {
    apo__thresholds *t = out;
    char got[80];
    if (!json_is_object(root))
        return apo__field_invalid(v, "", "expected a JSON object at the top level, got %s",
                                  apo__json_describe(root, got, sizeof got));
    const json_t *format = json_object_get(root, "format");
    const json_t *entries = json_object_get(root, "entries");
    int threadx = format == NULL;
    if (format == NULL && entries == NULL)
        return apo__field_invalid(v, "",
                                  "unknown format: no \"format\" field, and not ThreadX's "
                                  "{\"updated_at\", \"entries\"} shape either");
    if (format != NULL &&
        (!json_is_string(format) || strcmp(json_string_value(format), APO_THRESHOLDS_FORMAT) != 0))
        return apo__field_invalid(v, "format", "unknown format %s; expected \"%s\"",
                                  apo__json_describe(format, got, sizeof got),
                                  APO_THRESHOLDS_FORMAT);
    APO_CHECK(apo__get_timestamp(v, root, "", threadx, t->updated_at));
    if (!json_is_object(entries))
        return apo__field_invalid(v, "entries", "expected an object of key to timings, got %s",
                                  entries == NULL ? "nothing"
                                                  : apo__json_describe(entries, got, sizeof got));
    size_t n = json_object_size(entries);
    if (n > APO_THRESHOLD_ENTRIES_MAX)
        return apo__field_invalid(v, "entries", "%zu entries; at most %d are read", n,
                                  APO_THRESHOLD_ENTRIES_MAX);
    t->entries = calloc(n > 0 ? n : 1, sizeof *t->entries);
    if (t->entries == NULL) {
        apo__errf(v->err, v->err_size, "%s: out of memory for %zu entries", v->file, n);
        return APO_ERR_OUT_OF_MEMORY;
    }
    const char *key;
    const json_t *e;
    json_object_foreach((json_t *)entries, key, e) {
        APO_CHECK(threshold_from_json(v, key, e, threadx, &t->entries[t->n]));
        t->n++;
    }
    qsort(t->entries, t->n, sizeof t->entries[0], apo__threshold_cmp);
    return APO_OK;
}

static void thresholds_release(void *t) { apo__thresholds_free(t); }

const apo__profile_format apo__thresholds_format = {
    .default_name = "thresholds.json",
    .size = sizeof(apo__thresholds),
    .from_json = thresholds_from_json,
    .release = thresholds_release,
};

apo_status apo__thresholds_parse(const char *name, const char *text, size_t len,
                                 apo__thresholds *out, char *err, size_t err_size) {
    return apo__profile_parse(&apo__thresholds_format, name, text, len, out, err, err_size);
}

apo_status apo__thresholds_load(const char *path, apo__thresholds *out, int *missing, char *err,
                                size_t err_size) {
    return apo__profile_load(&apo__thresholds_format, path, out, missing, err, err_size);
}

void apo__thresholds_free(apo__thresholds *t) {
    if (t == NULL)
        return;
    free(t->entries);
    memset(t, 0, sizeof *t);
}

json_t *apo__thresholds_to_json(const apo__thresholds *t) {
    int failed = 0;
    json_t *root = json_object(), *entries = json_object();
    apo__put(root, "format", json_string(APO_THRESHOLDS_FORMAT), &failed);
    apo__put(root, "updated_at", json_string(t->updated_at), &failed);
    for (size_t i = 0; i < t->n && !failed; i++) {
        const apo__threshold *e = &t->entries[i];
        json_t *ej = json_object();
        apo__put_real(ej, "cpu_ms_avg", e->cpu_ms_avg, &failed);
        apo__put_real(ej, "gpu_ms_avg", e->gpu_ms_avg, &failed);
        apo__put_count(ej, "samples", e->samples, &failed);
        apo__put_count(ej, "cpu_samples", e->cpu_samples, &failed);
        apo__put_count(ej, "gpu_samples", e->gpu_samples, &failed);
        if (e->simulated)
            apo__put(ej, "simulated", json_true(), &failed);
        apo__put(entries, e->key, ej, &failed);
    }
    apo__put(root, "entries", entries, &failed);
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/*
 * Merging measurements into thresholds.json (profile_store.h): running averages weighted
 * by counts, done under the file's lock (file_update.h) so that no process's measurements
 * are lost when several merge at once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/file_update.h"
#include "profiles/json_fields.h"
#include "profiles/text.h"
#include "profiles/thresholds_format.h"
#include "profiles/timestamps.h"

/* One side's count in an add: its own count, else `samples` when it has a time (the ThreadX
 * rule), and nothing when its time is NaN. */
static uint64_t add_count(double avg, uint64_t side, uint64_t samples) {
    if (isnan(avg))
        return 0;
    return side != 0 ? side : samples;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
    return (a > APO_PROFILE_COUNT_MAX || b > APO_PROFILE_COUNT_MAX - a) ? APO_PROFILE_COUNT_MAX
                                                                        : a + b;
}

/* avg = (avg * n + add * m) / (n + m), with a never-measured side taking the add as is. */
static void merge_side(double *avg, uint64_t *n, double add, uint64_t m) {
    if (m == 0)
        return;
    double nn = (double)*n, mm = (double)m;
    if (*n == 0 || isnan(*avg)) {
        *avg = add;
    } else {
        double mean = (*avg * nn + add * mm) / (nn + mm);
        /* Only the products can overflow (both times are finite and >= 0, so the mean is in
         * range): this form of the same mean cannot. */
        if (!isfinite(mean))
            mean = *avg + (add - *avg) * (mm / (nn + mm));
        *avg = mean;
    }
    *n = sat_add(*n, m);
}

apo_status apo__thresholds_add(apo__thresholds *t, const apo__threshold *adds, size_t n_adds) {
    size_t cap = t->n + n_adds;
    apo__threshold *list = realloc(t->entries, (cap > 0 ? cap : 1) * sizeof *list);
    if (list == NULL)
        return APO_ERR_OUT_OF_MEMORY;
    t->entries = list;
    /* The entries are sorted and searched by bisection; keys new in this merge are few and
     * looked up linearly after them. */
    size_t n_sorted = t->n;
    for (size_t i = 0; i < n_adds; i++) {
        const apo__threshold *a = &adds[i];
        apo__threshold *e = bsearch(a, t->entries, n_sorted, sizeof *e, apo__threshold_cmp);
        for (size_t k = n_sorted; e == NULL && k < t->n; k++)
            if (strcmp(t->entries[k].key, a->key) == 0)
                e = &t->entries[k];
        if (e == NULL) {
            e = &t->entries[t->n++];
            memset(e, 0, sizeof *e);
            snprintf(e->key, sizeof e->key, "%s", a->key);
            e->cpu_ms_avg = NAN;
            e->gpu_ms_avg = NAN;
        }
        merge_side(&e->cpu_ms_avg, &e->cpu_samples, a->cpu_ms_avg,
                   add_count(a->cpu_ms_avg, a->cpu_samples, a->samples));
        merge_side(&e->gpu_ms_avg, &e->gpu_samples, a->gpu_ms_avg,
                   add_count(a->gpu_ms_avg, a->gpu_samples, a->samples));
        e->samples = sat_add(e->samples, a->samples);
        e->simulated |= a->simulated && !isnan(a->gpu_ms_avg);
        /* A file must keep cpu_samples <= samples to be read back. */
        if (e->samples < e->cpu_samples)
            e->samples = e->cpu_samples;
        if (e->samples < e->gpu_samples)
            e->samples = e->gpu_samples;
    }
    qsort(t->entries, t->n, sizeof t->entries[0], apo__threshold_cmp);
    return APO_OK;
}

apo_status apo__thresholds_merge(const char *path, const apo__threshold *adds, size_t n_adds,
                                 apo__thresholds *merged, char *err, size_t err_size) {
    apo__errf(err, err_size, "%s", "");
    if (merged != NULL)
        memset(merged, 0, sizeof *merged);
    if (path == NULL || (n_adds > 0 && adds == NULL)) {
        apo__errf(err, err_size, "apo__thresholds_merge: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n_adds; i++) {
        const apo__threshold *a = &adds[i];
        if (!apo__fits(a->key, sizeof a->key) || a->key[0] == '\0' || !apo__utf8_valid(a->key) ||
            !apo__nonneg_or_nan(a->cpu_ms_avg) || !apo__nonneg_or_nan(a->gpu_ms_avg)) {
            apo__errf(err, err_size,
                      "merge: add %zu: the key must be 1 to %d bytes of UTF-8 and the times "
                      "finite and >= 0 (or NaN when not measured)",
                      i, APO_THRESHOLD_KEY_MAX - 1);
            return APO_ERR_INVALID_ARGUMENT;
        }
    }
    apo__thresholds t;
    apo__locked_file lf;
    apo_status st;
    APO_CHECK_GOTO(apo__lock_and_read(path, &apo__thresholds_format, &t, &lf, err, err_size), st,
                   fail);
    if (apo__thresholds_add(&t, adds, n_adds) != APO_OK) {
        apo__errf(err, err_size, "%s: out of memory", path);
        st = APO_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    apo__timestamp_format(apo__wall_clock_now(), t.updated_at, sizeof t.updated_at);
    APO_CHECK_GOTO(apo__write_and_unlock(apo__thresholds_to_json(&t), t.n,
                                         APO_THRESHOLD_ENTRIES_MAX, "entries", &lf, err, err_size),
                   st, fail);
    if (merged != NULL)
        *merged = t;
    else
        apo__thresholds_free(&t);
    return APO_OK;
fail:
    apo__thresholds_free(&t);
    apo__unlock(&lf);
    return st;
}

/*
 * Fuzz target: multigpu.json, as apo__multigpu_parse() reads it (apo__multigpu_load() runs
 * the same code once it has read the file).
 *
 * Every input must give one of two things, checked here beyond "no crash, no leak":
 * - an error: APO_ERR_INVALID_ARGUMENT (or out of memory), a message that starts
 *   with the file's name and holds no control byte, and an empty profile;
 * - a profile that keeps what profile_store.h and docs/profiles.md promise: workloads
 *   sorted by distinct non-empty tags, each with 1 to APO_MAX_DEVICES devices sorted by
 *   distinct ids, ratios, latencies and costs NaN (absent) or finite and >= 0, ratios that
 *   sum to a positive finite value, counts that jansson can write back, every string
 *   terminated and valid UTF-8 (so that a rewrite cannot fail), timestamps canonical, and
 *   each tag found again by apo__multigpu_find().
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_profile.h"
#include "profiles/profile_store.h"

#define NAME "fuzz/multigpu.json"
/* What a count may be: jansson stores integers as long long. */
#define COUNT_LIMIT ((uint64_t)INT64_MAX)

static void check_number(double x, const char *what, const char *where) {
    FUZZ_CHECK(isnan(x) || (isfinite(x) && x >= 0), "%s of %s is %g", what, where, x);
}

static void check_timestamp(const char *ts, const char *where) {
    FUZZ_CHECK(fuzz_terminated(ts, APO_TIMESTAMP_MAX), "updated_at of %s not terminated", where);
    if (ts[0] == '\0')
        return;
    /* Stored in the canonical form, so that it formats back to itself. */
    double t = apo__timestamp_parse(ts);
    FUZZ_CHECK(t >= 0, "updated_at of %s \"%s\" does not parse back", where, ts);
    char again[APO_TIMESTAMP_MAX];
    apo__timestamp_format(t, again, sizeof again);
    FUZZ_CHECK(strcmp(again, ts) == 0, "updated_at of %s \"%s\" is not canonical (\"%s\")", where,
               ts, again);
}

static void check_workload(const apo__multigpu *p, size_t index) {
    const apo__stored_workload *w = &p->workloads[index];
    FUZZ_CHECK(fuzz_terminated(w->tag, sizeof w->tag), "tag %zu not terminated", index);
    FUZZ_CHECK(w->tag[0] != '\0' && fuzz_utf8(w->tag), "tag %zu empty or not UTF-8", index);
    if (index > 0)
        FUZZ_CHECK(strcmp(p->workloads[index - 1].tag, w->tag) < 0,
                   "tags not sorted and distinct at %zu", index);
    FUZZ_CHECK(apo__multigpu_find(p, w->tag) == w, "tag %s not found again", w->tag);
    check_timestamp(w->updated_at, w->tag);
    FUZZ_CHECK(w->sample_size <= COUNT_LIMIT, "sample_size of %s", w->tag);
    FUZZ_CHECK((unsigned)w->origin <= APO_ORIGIN_THREADX, "origin of %s is %d", w->tag,
               (int)w->origin);
    FUZZ_CHECK(w->n_devices >= 1 && w->n_devices <= APO_MAX_DEVICES, "%s has %zu devices", w->tag,
               w->n_devices);
    double sum = 0;
    for (size_t i = 0; i < w->n_devices; i++) {
        const apo__stored_device *d = &w->devices[i];
        FUZZ_CHECK(fuzz_terminated(d->id, sizeof d->id), "%s: device %zu id", w->tag, i);
        FUZZ_CHECK(fuzz_terminated(d->label, sizeof d->label), "%s: device %zu label", w->tag, i);
        FUZZ_CHECK(fuzz_terminated(d->config, sizeof d->config), "%s: device %zu config", w->tag,
                   i);
        FUZZ_CHECK(d->id[0] != '\0' && fuzz_utf8(d->id) && fuzz_utf8(d->label) &&
                       fuzz_utf8(d->config),
                   "%s: device %zu id empty, or id, label or config not UTF-8", w->tag, i);
        if (i > 0)
            FUZZ_CHECK(strcmp(w->devices[i - 1].id, d->id) < 0,
                       "%s: device ids not sorted and distinct at %zu", w->tag, i);
        check_number(d->ratio, "ratio", d->id);
        check_number(d->latency_ms, "latency_ms", d->id);
        check_number(d->ms_per_melem, "ms_per_melem", d->id);
        FUZZ_CHECK(d->samples <= COUNT_LIMIT, "%s: samples of %s", w->tag, d->id);
        /* Online refinement's state: a bounded window of valid observations. */
        const apo__stored_online *o = &d->online;
        FUZZ_CHECK(o->n_recent <= APO_STORED_RECENT_MAX, "%s: %u observations of %s", w->tag,
                   o->n_recent, d->id);
        for (unsigned k = 0; k < o->n_recent; k++)
            FUZZ_CHECK(o->recent_elements[k] > 0 && isfinite(o->recent_elements[k]) &&
                           o->recent_ms[k] >= 0 && isfinite(o->recent_ms[k]),
                       "%s: observation %u of %s", w->tag, k, d->id);
        check_number(o->prior_latency_ms, "prior latency_ms", d->id);
        check_number(o->prior_ms_per_melem, "prior ms_per_melem", d->id);
        check_number(o->known_latency_ms, "known_latency_ms", d->id);
        FUZZ_CHECK(o->off_run >= -APO_STORED_OFF_RUN_MAX && o->off_run <= APO_STORED_OFF_RUN_MAX,
                   "%s: off_run %d of %s", w->tag, o->off_run, d->id);
        if (!isnan(d->ratio))
            sum += d->ratio;
    }
    FUZZ_CHECK(isfinite(sum) && sum > 0, "%s: ratios sum to %g", w->tag, sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    apo__multigpu p;
    char err[512];
    apo_status st = apo__multigpu_parse(NAME, (const char *)data, size, &p, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err), "message not terminated");
    if (st != APO_OK) {
        fuzz_check_profile_refusal(st, err, NAME);
        FUZZ_CHECK(p.n_workloads == 0 && p.workloads == NULL, "failed parse left a profile");
        return 0;
    }
    FUZZ_CHECK(err[0] == '\0', "success with a message: \"%s\"", err);
    FUZZ_CHECK(fuzz_terminated(p.host, sizeof p.host) && fuzz_utf8(p.host), "host");
    FUZZ_CHECK(fuzz_terminated(p.library_version, sizeof p.library_version) &&
                   fuzz_utf8(p.library_version),
               "library_version");
    check_timestamp(p.updated_at, "the file");
    FUZZ_CHECK(p.n_workloads == 0 || p.workloads != NULL, "workloads missing");
    /* A ThreadX file is one workload of ratios only. */
    if (p.threadx)
        FUZZ_CHECK(p.n_workloads == 1 && p.workloads[0].origin == APO_ORIGIN_THREADX,
                   "ThreadX shape read as %zu workloads", p.n_workloads);
    for (size_t i = 0; i < p.n_workloads; i++)
        check_workload(&p, i);
    FUZZ_CHECK(apo__multigpu_find(&p, "") == NULL, "the empty tag was found");
    apo__multigpu_free(&p);
    FUZZ_CHECK(p.n_workloads == 0 && p.workloads == NULL, "free left a profile");
    return 0;
}

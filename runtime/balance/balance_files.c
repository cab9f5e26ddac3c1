/*
 * The balancing state's life and its profile files: loading multigpu.json and
 * thresholds.json into the state at creation, the writer thread, and storing what the state
 * learnt, was profiled with or was forced to; see balance_files.h and docs/scheduling.md.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "balance/balance_files.h"
#include "balance/solver.h"
#include "balance/stored_model.h"
#include "base/clock.h"
#include "base/log.h"

/* ---- matching stored entries to this runtime's devices --------------------------------- */

/* The stored device of an entry that is runtime device `d`: by id, or (ThreadX files) by
 * the "cuda:N" ordinal among this runtime's GPUs. */
static const apo__stored_device *stored_device(const apo__balance *b, const apo__stored_workload *e,
                                               size_t d) {
    const apo_device_info *dev = b->info[d];
    for (size_t i = 0; i < e->n_devices; i++)
        if (strcmp(e->devices[i].id, dev->id) == 0)
            return &e->devices[i];
    if (dev->kind == APO_DEVICE_CUDA) {
        size_t ordinal = 0;
        for (size_t i = 0; i < d; i++)
            ordinal += b->info[i]->kind == APO_DEVICE_CUDA;
        char name[32];
        snprintf(name, sizeof name, "cuda:%zu", ordinal);
        for (size_t i = 0; i < e->n_devices; i++)
            if (strcmp(e->devices[i].id, name) == 0)
                return &e->devices[i];
    }
    return NULL;
}

/* What becomes of the model stored for a device. */
typedef enum model_use {
    MODEL_NONE = 0,      /* none stored */
    MODEL_USED,          /* stored for this device as it is now */
    MODEL_NO_CONFIG,     /* stored without a configuration (older files): unknown, not used */
    MODEL_OTHER_CONFIG,  /* stored for another configuration of the device: not used */
    MODEL_OTHER_THREADS, /* stored by this cpu on another thread count: scaled to this one */
    MODEL_IMPLAUSIBLE    /* outside the plausible bounds: not used */
} model_use;

/* Why device `d`'s stored model is not used, short enough for a stale_reason. */
static void refusal_reason(const apo__balance *b, size_t d, model_use use, char *reason,
                           size_t reason_size) {
    const char *id = b->info[d]->id;
    if (use == MODEL_NO_CONFIG)
        snprintf(reason, reason_size, "the model of %s has no device configuration (older file)",
                 id);
    else if (use == MODEL_OTHER_THREADS)
        snprintf(reason, reason_size, "the model of %s was stored on another thread count", id);
    else if (use == MODEL_OTHER_CONFIG)
        snprintf(reason, reason_size, "the configuration of %s changed since its model was stored",
                 id);
    else
        snprintf(reason, reason_size, "the stored model of %s is implausible", id);
}

static model_use stored_model_use(const apo__balance *b, size_t d, const apo__stored_device *s) {
    if (s == NULL || !isfinite(s->latency_ms) || !isfinite(s->ms_per_melem))
        return MODEL_NONE;
    if (s->config[0] == '\0')
        return MODEL_NO_CONFIG;
    if (strcmp(s->config, b->info[d]->config) != 0)
        return MODEL_OTHER_CONFIG;
    return apo__stored_model_plausible(s->latency_ms, s->ms_per_melem) ? MODEL_USED
                                                                       : MODEL_IMPLAUSIBLE;
}

/* The thread count that a cpu's configuration key begins with ("threads=N,..."), and in
 * `rest` the key after it; 0 when the key does not begin so. */
static int key_threads(const char *config, const char **rest) {
    int n = 0, used = 0;
    if (sscanf(config, "threads=%d%n", &n, &used) != 1 || n <= 0 ||
        (config[used] != ',' && config[used] != '\0'))
        return 0;
    *rest = config + used;
    return n;
}

/* A model that this cpu stored on another thread count: a process of `--devices cpu` runs it
 * on every core, a process with GPUs on what their staging threads leave, and the two take
 * turns writing the same entry. The rest of the key (vector path, processor) is the same, so
 * this is the device's own evidence, a far better start than another device's model (a cpu
 * that borrowed a GPU's model was once planned 18 times too fast and ran a scored sweep alone
 * where the GPU alone took a third of the time: docs/perf-log/2026-11-26-h200-third-visit.md).
 * The cost is scaled by the thread counts (stored over now) and refined by the calls, as a
 * borrowed model is; where one of the two counts is the cpu's every-core count, the line
 * measured on it is taken as it is: a model stored on every core is this cpu's alone model,
 * and the alone line stored beside GPUs is the model of a cpu on every core. Returns 1 when
 * it set device d's models in ts. */
static int scaled_thread_model(const apo__balance *b, size_t d, const apo__stored_device *s,
                               apo__tag_state *ts) {
    const char *rest_now = NULL, *rest_stored = NULL;
    const int now = key_threads(b->info[d]->config, &rest_now);
    const int stored = key_threads(s->config, &rest_stored);
    const int alone = b->threads_alone[d];
    if (alone <= 0 || now == 0 || stored == 0 || strcmp(rest_now, rest_stored) != 0 ||
        !apo__stored_model_plausible(s->latency_ms, s->ms_per_melem))
        return 0;
    apo__model stored_alone;
    apo__stored_line_get(&stored_alone, &s->alone);
    if (now == alone && stored_alone.valid)
        apo__model_from_stored(&ts->models[d], stored_alone.latency_s * 1e3,
                               stored_alone.cost_s * 1e9, 1);
    else
        apo__model_from_stored(&ts->models[d], s->latency_ms,
                               s->ms_per_melem * (double)stored / (double)now, 1);
    if (alone > now && stored == alone)
        apo__model_from_stored(&ts->alone_models[d], s->latency_ms, s->ms_per_melem, 1);
    else if (alone > now && stored_alone.valid)
        ts->alone_models[d] = stored_alone;
    return ts->models[d].valid;
}

/* Builds the tag state of a stored entry; `uses` (optional) receives what became of each
 * device's stored model. Returns 0, or -1 with `reason` when the entry does not fit this
 * runtime's devices (stale). A model that is not used leaves its device to borrow one, as
 * a device that has not worked yet does (complete_models()). */
static int state_from_entry(const apo__balance *b, const apo__stored_workload *e,
                            apo__tag_state *ts, model_use *uses, char *reason, size_t reason_size) {
    model_use local[APO_MAX_DEVICES];
    if (uses == NULL)
        uses = local;
    memset(ts, 0, sizeof *ts);
    for (size_t d = 0; d < b->n_devices; d++)
        uses[d] = MODEL_NONE;
    snprintf(ts->tag, sizeof ts->tag, "%s", e->tag);
    ts->sample_size = e->sample_size;
    ts->runs = e->runs;
    ts->calls_since_probe = e->calls_since_probe;
    if (e->origin == APO_ORIGIN_FORCED || e->origin == APO_ORIGIN_THREADX) {
        double sum = 0;
        for (size_t d = 0; d < b->n_devices; d++) {
            const apo__stored_device *s = stored_device(b, e, d);
            ts->ratios[d] = s != NULL && isfinite(s->ratio) && s->ratio > 0 ? s->ratio : 0.0;
            sum += ts->ratios[d];
        }
        if (!(sum > 0)) {
            snprintf(reason, reason_size, "its ratios name none of this runtime's devices");
            return -1;
        }
        ts->has_ratios = 1;
        ts->forced = e->origin == APO_ORIGIN_FORCED;
    }
    if (e->origin != APO_ORIGIN_THREADX) {
        /* Every device of this runtime must be in a model entry; one listed without a model
         * (it has not worked yet: online refinement stored it so) borrows one, see
         * complete_models(). A device the entry does not know means the machine changed. */
        size_t with_model = 0, refused = SIZE_MAX;
        for (size_t d = 0; d < b->n_devices; d++) {
            const apo__stored_device *s = stored_device(b, e, d);
            if (s == NULL && e->origin != APO_ORIGIN_FORCED) {
                snprintf(reason, reason_size, "device %s is not in it", b->info[d]->id);
                return -1;
            }
            model_use use = uses[d] = stored_model_use(b, d, s);
            if (use == MODEL_USED) {
                apo__stored_model_get(&ts->models[d], s);
                ts->idle_calls[d] = s->idle_calls;
                /* What the configurations learnt (configurations.h), for the same device
                 * configuration only, as its model. */
                apo__stored_line_get(&ts->alone_models[d], &s->alone);
                apo__stored_line_get(&ts->cold_models[d], &s->cold);
                apo__stored_line_get(&ts->configs[1 + d], &s->measured_alone);
            } else if (use == MODEL_OTHER_CONFIG && scaled_thread_model(b, d, s, ts)) {
                uses[d] = MODEL_OTHER_THREADS;
            } else if (use != MODEL_NONE && refused == SIZE_MAX)
                refused = d;
            with_model += ts->models[d].valid;
        }
        if (with_model == 0 && !ts->has_ratios) {
            if (refused != SIZE_MAX)
                refusal_reason(b, refused, uses[refused], reason, reason_size);
            else
                snprintf(reason, reason_size, "it has no model for any of this runtime's devices");
            return -1;
        }
        ts->from_profile = with_model > 0 && e->origin != APO_ORIGIN_ONLINE;
        apo__stored_line_get(&ts->configs[0], &e->measured_split);
        ts->refined = with_model > 0 && e->origin == APO_ORIGIN_ONLINE;
    }
    return 0;
}
/* ---- life cycle ----------------------------------------------------------------------- */

static void *writer_main(void *arg);

/* The stored models a load leaves unused, for one warning of each kind per runtime. */
typedef struct refusals {
    size_t changed[APO_MAX_DEVICES];                 /* entries with device d's old config */
    char old_config[APO_MAX_DEVICES][APO_LABEL_MAX]; /* the first one met */
    size_t rescaled[APO_MAX_DEVICES]; /* entries of cpu d stored on another thread count */
    int old_threads[APO_MAX_DEVICES]; /* the first one met */
    size_t unconfigured, implausible;
    char first_unconfigured[APO_WARNING_LEN], first_implausible[APO_WARNING_LEN];
} refusals;

static void note_refusals(const apo__balance *b, const apo__stored_workload *e,
                          const model_use *uses, refusals *r) {
    for (size_t d = 0; d < b->n_devices; d++) {
        const apo__stored_device *s = stored_device(b, e, d);
        if (uses[d] == MODEL_OTHER_CONFIG && r->changed[d]++ == 0)
            snprintf(r->old_config[d], sizeof r->old_config[d], "%s", s->config);
        const char *rest;
        if (uses[d] == MODEL_OTHER_THREADS && r->rescaled[d]++ == 0)
            r->old_threads[d] = key_threads(s->config, &rest);
        if (uses[d] == MODEL_NO_CONFIG && r->unconfigured++ == 0)
            snprintf(r->first_unconfigured, sizeof r->first_unconfigured, "workload %s, device %s",
                     e->tag, s->id);
        if (uses[d] == MODEL_IMPLAUSIBLE && r->implausible++ == 0)
            snprintf(r->first_implausible, sizeof r->first_implausible,
                     "workload %s, device %s: latency_ms %g, ms_per_melem %g", e->tag, s->id,
                     s->latency_ms, s->ms_per_melem);
    }
}

static void warn_refusals(const apo__balance *b, const refusals *r, apo__warnings *w) {
    char changed[1024] = "";
    size_t used = 0;
    for (size_t d = 0; d < b->n_devices; d++) {
        if (r->changed[d] == 0)
            continue;
        int n = snprintf(changed + used, sizeof changed - used, "%s%s: %s -> %s (%zu workload%s)",
                         used ? "; " : "", b->info[d]->id, r->old_config[d], b->info[d]->config,
                         r->changed[d], r->changed[d] == 1 ? "" : "s");
        used = n < 0 || used + (size_t)n >= sizeof changed ? sizeof changed - 1 : used + (size_t)n;
    }
    /* The reasons come first: a long key may cut the message at the warning's length. */
    if (used > 0)
        apo__warn(w,
                  "stored models not used, the device's configuration changed since they were "
                  "measured (it borrows the other devices' models until it is refined or "
                  "re-profiled): %s",
                  changed);
    for (size_t d = 0; d < b->n_devices; d++) {
        const char *rest;
        if (r->rescaled[d] > 0)
            apo__warn(w,
                      "stored models of %s measured on %d thread%s are scaled to its %d until "
                      "the calls refine them (%zu workload%s)",
                      b->info[d]->id, r->old_threads[d], r->old_threads[d] == 1 ? "" : "s",
                      key_threads(b->info[d]->config, &rest), r->rescaled[d],
                      r->rescaled[d] == 1 ? "" : "s");
    }
    if (r->unconfigured > 0)
        apo__warn(w,
                  "%zu stored model(s) not used: stored without a device configuration (by an "
                  "older version), so which configuration they describe is unknown; refinement "
                  "or 'apportion profile' stores them again; first: %s",
                  r->unconfigured, r->first_unconfigured);
    if (r->implausible > 0)
        apo__warn(w,
                  "%zu stored model(s) refused as implausible (latency_ms must be in [0, %g], "
                  "ms_per_melem in [%g, %g]); the device borrows the others' models; first: %s",
                  r->implausible, APO_LATENCY_MS_MAX, APO_MS_PER_MELEM_MIN, APO_MS_PER_MELEM_MAX,
                  r->first_implausible);
}

static void load_files(apo__balance *b, apo__warnings *w) {
    apo_profile_files *f = &b->files;
    int missing = 0;
    char err[APO_LABEL_MAX * 2];
    apo_status st = apo__multigpu_load(f->multigpu_path, &b->store, &missing, err, sizeof err);
    if (st != APO_OK) {
        f->multigpu_state = APO_PROFILE_IGNORED;
        snprintf(f->multigpu_message, sizeof f->multigpu_message, "%s", err);
        apo__warn(w, "profile ignored: %s", err);
    } else if (missing) {
        f->multigpu_state = APO_PROFILE_MISSING;
    } else if (b->store.host[0] != '\0' && strcmp(b->store.host, b->host) != 0) {
        /* A home folder shared between machines must not balance one with another's. */
        f->multigpu_state = APO_PROFILE_IGNORED;
        snprintf(f->multigpu_message, sizeof f->multigpu_message,
                 "%.140s was written on host \"%.40s\", this is \"%.40s\"", f->multigpu_path,
                 b->store.host, b->host);
        apo__warn(w, "profile ignored: %s", f->multigpu_message);
        apo__multigpu_free(&b->store);
    } else {
        f->multigpu_state = APO_PROFILE_LOADED;
        f->multigpu_threadx = b->store.threadx;
        snprintf(f->updated_at, sizeof f->updated_at, "%s", b->store.updated_at);
    }

    char stale[APO_WARNING_LEN] = "";
    size_t n_stale = 0;
    refusals *r = calloc(1, sizeof *r); /* NULL: the same load, without those warnings */
    for (size_t i = 0; i < b->store.n_workloads; i++) {
        apo__tag_state ts;
        model_use uses[APO_MAX_DEVICES];
        char reason[APO_LABEL_MAX];
        int fits = state_from_entry(b, &b->store.workloads[i], &ts, uses, reason, sizeof reason);
        if (r != NULL)
            note_refusals(b, &b->store.workloads[i], uses, r);
        if (fits != 0) {
            if (n_stale++ == 0)
                snprintf(stale, sizeof stale, "%s (%s)", b->store.workloads[i].tag, reason);
            continue;
        }
        apo__tag_state *slot = apo__balance_get_tag(b, ts.tag);
        if (slot != NULL)
            *slot = ts;
    }
    if (n_stale > 0)
        apo__warn(w,
                  "%zu workload(s) in %s do not match this runtime's devices and are ignored "
                  "(stale), first: %s; re-profile with 'apportion profile'",
                  n_stale, f->multigpu_path, stale);
    if (r != NULL)
        warn_refusals(b, r, w);
    free(r);

    st = apo__thresholds_load(f->thresholds_path, &b->thresholds, &missing, err, sizeof err);
    if (st != APO_OK) {
        f->thresholds_state = APO_PROFILE_IGNORED;
        snprintf(f->thresholds_message, sizeof f->thresholds_message, "%s", err);
        apo__warn(w, "thresholds ignored: %s", err);
    } else {
        f->thresholds_state = missing ? APO_PROFILE_MISSING : APO_PROFILE_LOADED;
        snprintf(f->thresholds_updated_at, sizeof f->thresholds_updated_at, "%s",
                 b->thresholds.updated_at);
    }
}

void apo__balance_init(apo__balance *b, const apo_device_info *const *devices, size_t n_devices,
                       const apo__balance_settings *s, apo__warnings *w) {
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->mutex, NULL);
    pthread_mutex_init(&b->write_mutex, NULL);
    pthread_cond_init(&b->wake, NULL);
    for (size_t d = 0; d < n_devices; d++) {
        b->info[d] = devices[d];
        b->threads_alone[d] = s->threads_alone[d];
    }
    b->n_devices = n_devices;
    b->learn = s->learn;
    b->persist_interval_s = s->persist_interval_s;
    b->last_persist = apo__now();
    b->files.size = sizeof b->files;
    if (gethostname(b->host, sizeof b->host) != 0)
        snprintf(b->host, sizeof b->host, "unknown");
    b->host[sizeof b->host - 1] = '\0';
    snprintf(b->files.host, sizeof b->files.host, "%s", b->host);

    b->profiles_on = s->profiles_on;
    if (b->profiles_on) {
        char err[APO_LABEL_MAX];
        if (apo__profile_paths(&s->location, b->files.multigpu_path, b->files.thresholds_path, err,
                               sizeof err) != APO_OK) {
            apo__warn(w, "profiles off: %s", err);
            b->profiles_on = 0;
        }
    }
    if (!b->profiles_on) {
        b->files.multigpu_state = b->files.thresholds_state = APO_PROFILE_OFF;
        if (s->off_reason != NULL) {
            snprintf(b->files.multigpu_message, sizeof b->files.multigpu_message, "%s",
                     s->off_reason);
            snprintf(b->files.thresholds_message, sizeof b->files.thresholds_message, "%s",
                     s->off_reason);
        }
        return;
    }
    load_files(b, w);
    /* Refined models reach the file from a thread of their own, so that no call waits for
     * the disk (or for another process's lock on the file). */
    if (b->learn) {
        int e = pthread_create(&b->writer, NULL, writer_main, b);
        b->writer_started = e == 0;
        if (e != 0)
            apo__warn(w,
                      "refined models are stored only at apo_runtime_destroy() and "
                      "apo_profile_save(): cannot start the writer thread (error %d)",
                      e);
    }
}

void apo__balance_destroy(apo__balance *b) {
    if (b->writer_started) {
        pthread_mutex_lock(&b->mutex);
        b->writer_stop = 1;
        pthread_cond_signal(&b->wake);
        pthread_mutex_unlock(&b->mutex);
        pthread_join(b->writer, NULL);
    }
    if (b->learn && apo__balance_save(b) != APO_OK)
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "refined models not stored: %s", apo_last_error());
    apo__multigpu_free(&b->store);
    apo__thresholds_free(&b->thresholds);
    free(b->tags);
    pthread_cond_destroy(&b->wake);
    pthread_mutex_destroy(&b->write_mutex);
    pthread_mutex_destroy(&b->mutex);
}
/* ---- storing ---------------------------------------------------------------------------- */

/* The stored entry of a tag state: the devices of the stored entry `old` (NULL: none) that
 * this runtime does not have are kept, so that a run on a subset of the machine loses no
 * other model. */
static void entry_from_old(const apo__balance *b, const apo__tag_state *ts,
                           const apo__stored_workload *old, apo__stored_workload *e) {
    if (old != NULL && old->origin != APO_ORIGIN_THREADX)
        *e = *old;
    else
        memset(e, 0, sizeof *e);
    snprintf(e->tag, sizeof e->tag, "%s", ts->tag);
    e->origin = ts->forced    ? APO_ORIGIN_FORCED
                : ts->refined ? APO_ORIGIN_ONLINE
                              : APO_ORIGIN_PROFILE;
    e->sample_size = ts->sample_size;
    e->runs = ts->runs;
    e->calls_since_probe = ts->calls_since_probe;
    apo__stored_line_put(&e->measured_split, &ts->configs[0]);
    apo__timestamp_format((double)time(NULL), e->updated_at, sizeof e->updated_at);

    for (size_t d = 0; d < b->n_devices; d++) {
        const apo_device_info *dev = b->info[d];
        size_t i = 0;
        while (i < e->n_devices && strcmp(e->devices[i].id, dev->id) != 0)
            i++;
        if (i == e->n_devices) {
            if (e->n_devices == APO_MAX_DEVICES)
                continue;
            e->n_devices++;
        }
        apo__stored_device *s = &e->devices[i];
        memset(s, 0, sizeof *s);
        snprintf(s->id, sizeof s->id, "%s", dev->id);
        snprintf(s->label, sizeof s->label, "%s", dev->label);
        snprintf(s->config, sizeof s->config, "%s", dev->config);
        apo__stored_model_put(s, &ts->models[d]);
        apo__stored_line_put(&s->alone, &ts->alone_models[d]);
        apo__stored_line_put(&s->cold, &ts->cold_models[d]);
        apo__stored_line_put(&s->measured_alone, &ts->configs[1 + d]);
        s->idle_calls = ts->idle_calls[d];
        s->ratio = ts->forced ? ts->ratios[d] : NAN;
    }
    if (ts->forced) {
        /* Devices of the entry that this runtime does not have get none. */
        for (size_t i = 0; i < e->n_devices; i++)
            if (isnan(e->devices[i].ratio))
                e->devices[i].ratio = 0;
        return;
    }
    /* The ratios are the solved shares at the sample size over every device of the entry
     * that has a model. */
    apo__model models[APO_MAX_DEVICES];
    int usable[APO_MAX_DEVICES];
    double shares[APO_MAX_DEVICES], makespan;
    for (size_t i = 0; i < e->n_devices; i++) {
        apo__model_from_stored(&models[i], e->devices[i].latency_ms, e->devices[i].ms_per_melem, 0);
        usable[i] = 1;
    }
    int solved =
        e->sample_size > 0 && apo__solve_split(models, usable, e->n_devices, (double)e->sample_size,
                                               shares, &makespan) == APO_OK;
    for (size_t i = 0; i < e->n_devices; i++)
        e->devices[i].ratio = solved ? shares[i] : NAN;
}

/* The entry of a tag state over the runtime's in-memory store. */
static void entry_from_state(const apo__balance *b, const apo__tag_state *ts,
                             apo__stored_workload *e) {
    entry_from_old(b, ts, apo__multigpu_find(&b->store, ts->tag), e);
}

/* The copies of the tags being written, for rebase_entries(). */
typedef struct rebase_tags {
    const apo__balance *b;
    const apo__tag_state *states;
} rebase_tags;

/* Under the file's lock: each entry again, over the file's entry as it is now rather than
 * as this runtime last read it, so that the devices another process (with another device
 * set) wrote into the entry meanwhile are kept. */
static void rebase_entries(const apo__multigpu *current, apo__stored_workload *updates, size_t n,
                           void *ctx) {
    const rebase_tags *r = ctx;
    for (size_t i = 0; i < n; i++)
        entry_from_old(r->b, &r->states[i], apo__multigpu_find(current, r->states[i].tag),
                       &updates[i]);
}

/* Replaces (or adds) an entry of the in-memory store, keeping it sorted by tag. */
static apo_status store_put(apo__multigpu *store, const apo__stored_workload *e) {
    size_t i = 0;
    while (i < store->n_workloads && strcmp(store->workloads[i].tag, e->tag) < 0)
        i++;
    if (i < store->n_workloads && strcmp(store->workloads[i].tag, e->tag) == 0) {
        store->workloads[i] = *e;
        return APO_OK;
    }
    apo__stored_workload *grown =
        realloc(store->workloads, (store->n_workloads + 1) * sizeof *grown);
    if (grown == NULL)
        return APO_ERR_OUT_OF_MEMORY;
    store->workloads = grown;
    memmove(&grown[i + 1], &grown[i], (store->n_workloads - i) * sizeof *grown);
    grown[i] = *e;
    store->n_workloads++;
    return APO_OK;
}

static void store_remove(apo__multigpu *store, const char *tag) {
    for (size_t i = 0; i < store->n_workloads; i++)
        if (strcmp(store->workloads[i].tag, tag) == 0) {
            memmove(&store->workloads[i], &store->workloads[i + 1],
                    (store->n_workloads - i - 1) * sizeof store->workloads[0]);
            store->n_workloads--;
            return;
        }
}

/* Has the tag anything to store? */
static int state_has_content(const apo__balance *b, const apo__tag_state *ts) {
    if (ts->forced)
        return 1;
    for (size_t d = 0; d < b->n_devices; d++)
        if (ts->models[d].valid)
            return 1;
    return 0;
}

/* Writes copies of tags taken under the mutex (profiles on) and mirrors them into the
 * in-memory store; `removed` tags are taken out of the file. Called with write_mutex held
 * and the mutex not: the mutex is taken only around the in-memory steps, never while the
 * file is locked, read or written. A tag changed since its copy was taken stays dirty. */
static apo_status write_states(apo__balance *b, const apo__tag_state *states, size_t n,
                               const char *const *removed, size_t n_removed) {
    apo__stored_workload *entries = n ? calloc(n, sizeof *entries) : NULL;
    if (n > 0 && entries == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "cannot store the profile: out of memory");
    pthread_mutex_lock(&b->mutex);
    for (size_t i = 0; i < n; i++)
        entry_from_state(b, &states[i], &entries[i]);
    pthread_mutex_unlock(&b->mutex);

    apo_status st = APO_OK;
    char err[APO_LABEL_MAX * 2] = "";
    apo__multigpu merged;
    memset(&merged, 0, sizeof merged);
    if (b->profiles_on) {
        rebase_tags ctx = {b, states};
        st =
            apo__multigpu_update_rebased(b->files.multigpu_path, b->host, entries, n, removed,
                                         n_removed, rebase_entries, &ctx, &merged, err, sizeof err);
    }

    pthread_mutex_lock(&b->mutex);
    if (b->profiles_on && st == APO_OK) {
        apo__multigpu_free(&b->store);
        b->store = merged;
    } else {
        /* In memory only (profiles off, or the write failed): the runtime still knows. */
        for (size_t i = 0; i < n; i++)
            store_put(&b->store, &entries[i]);
        for (size_t i = 0; i < n_removed; i++)
            store_remove(&b->store, removed[i]);
    }
    for (size_t i = 0; i < n && st == APO_OK; i++) {
        apo__tag_state *ts = apo__balance_find_tag(b, states[i].tag);
        if (ts != NULL && ts->version == states[i].version)
            ts->dirty = 0;
    }
    b->last_persist = apo__now();
    pthread_mutex_unlock(&b->mutex);
    free(entries);
    if (st != APO_OK)
        return apo__fail(st, "%s", err);
    if (err[0] != '\0')
        apo__log(APO_LOG_WARN, APO_SUBSYS_INIT, "%s", err);
    return APO_OK;
}

/* Writes every dirty tag, from copies taken under the mutex. Called with write_mutex held
 * and the mutex not. */
static apo_status save_dirty(apo__balance *b) {
    pthread_mutex_lock(&b->mutex);
    apo__tag_state *states = malloc((b->n_tags + 1) * sizeof *states);
    size_t n = 0;
    for (size_t i = 0; states != NULL && i < b->n_tags; i++)
        if (b->tags[i].dirty && state_has_content(b, &b->tags[i]))
            states[n++] = b->tags[i];
    pthread_mutex_unlock(&b->mutex);
    if (states == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "cannot store the profile: out of memory");
    apo_status st = n > 0 ? write_states(b, states, n, NULL, 0) : APO_OK;
    free(states);
    return st;
}

/* The writer thread: waits for a call to ask for a write (apo__balance_observe()), then
 * writes with no lock of the runtime held, until apo__balance_destroy() stops it. */
static void *writer_main(void *arg) {
    apo__balance *b = arg;
    pthread_mutex_lock(&b->mutex);
    for (;;) {
        while (!b->persist_requested && !b->writer_stop)
            pthread_cond_wait(&b->wake, &b->mutex);
        if (b->writer_stop)
            break;
        b->persist_requested = 0;
        pthread_mutex_unlock(&b->mutex);
        pthread_mutex_lock(&b->write_mutex);
        apo_status st = save_dirty(b);
        pthread_mutex_unlock(&b->write_mutex);
        if (st != APO_OK)
            apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "refined models not stored: %s",
                     apo_last_error());
        pthread_mutex_lock(&b->mutex);
    }
    pthread_mutex_unlock(&b->mutex);
    return NULL;
}

void apo__balance_sync_store(apo__balance *b) {
    for (size_t i = 0; i < b->n_tags; i++) {
        if (!b->tags[i].dirty || !state_has_content(b, &b->tags[i]))
            continue;
        apo__stored_workload e;
        entry_from_state(b, &b->tags[i], &e);
        store_put(&b->store, &e);
    }
}

int apo__balance_entry_fits(const apo__balance *b, const apo__stored_workload *e, char *reason,
                            size_t reason_size) {
    apo__tag_state ts;
    model_use uses[APO_MAX_DEVICES];
    if (state_from_entry(b, e, &ts, uses, reason, reason_size) != 0)
        return 0;
    /* A model left unused needs profiling again as much as a missing device does. */
    for (size_t d = 0; d < b->n_devices; d++) {
        if (uses[d] != MODEL_NONE && uses[d] != MODEL_USED) {
            refusal_reason(b, d, uses[d], reason, reason_size);
            return 0;
        }
    }
    return 1;
}

apo_status apo__balance_save(apo__balance *b) {
    pthread_mutex_lock(&b->write_mutex);
    apo_status st = save_dirty(b);
    pthread_mutex_unlock(&b->write_mutex);
    return st;
}

/* ---- profiles, thresholds and forced ratios, stored at once ------------------------------- */

/* Merges timings into thresholds.json (profiles on) and into the runtime's copy; called
 * with the write lock held. A failed write leaves them in memory only (the runtime still
 * knows) and returns the write's status with its message. */
static apo_status store_thresholds(apo__balance *b, const apo__threshold *adds, size_t n_adds) {
    apo_status st = APO_OK;
    char err[APO_LABEL_MAX * 2] = "";
    apo__thresholds merged;
    memset(&merged, 0, sizeof merged);
    if (b->profiles_on)
        st =
            apo__thresholds_merge(b->files.thresholds_path, adds, n_adds, &merged, err, sizeof err);
    pthread_mutex_lock(&b->mutex);
    if (b->profiles_on && st == APO_OK) {
        apo__thresholds_free(&b->thresholds);
        b->thresholds = merged;
    } else {
        /* In memory only (profiles off, or the write failed): the runtime still knows. */
        apo__thresholds_add(&b->thresholds, adds, n_adds);
    }
    pthread_mutex_unlock(&b->mutex);
    return st == APO_OK ? APO_OK : apo__fail(st, "%s", err);
}

apo_status apo__balance_add_thresholds(apo__balance *b, const apo__threshold *adds, size_t n_adds) {
    pthread_mutex_lock(&b->write_mutex);
    apo_status st = store_thresholds(b, adds, n_adds);
    pthread_mutex_unlock(&b->write_mutex);
    return st;
}

apo_status apo__balance_apply_profile(apo__balance *b, const char *tag, const char *function,
                                      const char *const *param_names, const double *param_values,
                                      size_t n_params, const apo__model *models,
                                      uint64_t sample_size, unsigned runs, const uint64_t *sizes,
                                      size_t n_sizes, const double *medians_ms, int *written) {
    *written = 0;
    /* The write lock first, so that no other write comes between the change and its
     * write; the mutex only for the change, so that calls never wait for the disk. */
    pthread_mutex_lock(&b->write_mutex);
    pthread_mutex_lock(&b->mutex);
    apo__tag_state *ts = apo__balance_get_tag(b, tag);
    if (ts == NULL) {
        pthread_mutex_unlock(&b->mutex);
        pthread_mutex_unlock(&b->write_mutex);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "cannot keep models for tag \"%s\"", tag);
    }
    uint64_t version = ts->version;
    memset(ts, 0, sizeof *ts);
    snprintf(ts->tag, sizeof ts->tag, "%s", tag);
    for (size_t d = 0; d < b->n_devices; d++)
        ts->models[d] = models[d];
    ts->from_profile = 1;
    ts->sample_size = sample_size;
    ts->runs = runs;
    ts->dirty = 1;
    ts->version = version + 1;
    apo__tag_state copy = *ts;
    pthread_mutex_unlock(&b->mutex);
    apo_status st = write_states(b, &copy, 1, NULL, 0);

    /* thresholds.json: per size, the CPU's median and the fastest other device's. */
    apo__threshold *adds = calloc(n_sizes, sizeof *adds);
    if (adds == NULL) {
        pthread_mutex_unlock(&b->write_mutex);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "cannot store the thresholds: out of memory");
    }
    size_t n_adds = 0;
    for (size_t s = 0; s < n_sizes; s++) {
        apo__threshold *a = &adds[n_adds];
        a->cpu_ms_avg = a->gpu_ms_avg = NAN;
        for (size_t d = 0; d < b->n_devices; d++) {
            double t = medians_ms[d * n_sizes + s];
            if (isnan(t))
                continue;
            if (b->info[d]->kind == APO_DEVICE_CPU) {
                a->cpu_ms_avg = t;
            } else if (isnan(a->gpu_ms_avg) || t < a->gpu_ms_avg) {
                a->gpu_ms_avg = t;
                a->simulated = b->info[d]->kind == APO_DEVICE_SIM;
            }
        }
        if (apo__threshold_key(a->key, function, param_names, param_values, n_params, sizes[s]) !=
            APO_OK)
            continue;
        a->samples = 1;
        a->cpu_samples = !isnan(a->cpu_ms_avg);
        a->gpu_samples = !isnan(a->gpu_ms_avg);
        n_adds++;
    }
    apo_status st2 = store_thresholds(b, adds, n_adds);
    pthread_mutex_unlock(&b->write_mutex);
    free(adds);
    *written = b->profiles_on && st == APO_OK && st2 == APO_OK;
    return st != APO_OK ? st : st2;
}

apo_status apo__balance_force(apo__balance *b, const char *tag, const double *ratios, size_t n) {
    pthread_mutex_lock(&b->write_mutex);
    pthread_mutex_lock(&b->mutex);
    apo__tag_state *ts = n > 0 ? apo__balance_get_tag(b, tag) : apo__balance_find_tag(b, tag);
    apo__tag_state copy;
    memset(&copy, 0, sizeof copy);
    const char *removed[1] = {tag};
    int write = 0, remove = 0; /* write the copy, or take the tag out of the file */
    if (n > 0 && ts == NULL) {
        pthread_mutex_unlock(&b->mutex);
        pthread_mutex_unlock(&b->write_mutex);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "cannot keep ratios for tag \"%s\"", tag);
    } else if (n > 0) {
        for (size_t d = 0; d < b->n_devices; d++)
            ts->ratios[d] = ratios[d];
        ts->forced = ts->has_ratios = 1;
        write = 1;
    } else if (ts != NULL && ts->forced) {
        ts->forced = ts->has_ratios = 0;
        write = state_has_content(b, ts);
        remove = !write;
    } else if (apo__multigpu_find(&b->store, tag) != NULL) {
        /* Forced ratios stored for other devices: clearing takes them out of the file. */
        remove = apo__multigpu_find(&b->store, tag)->origin == APO_ORIGIN_FORCED;
    }
    if (ts != NULL && (write || remove)) {
        ts->dirty = 1;
        ts->version++;
        copy = *ts;
    }
    pthread_mutex_unlock(&b->mutex);
    apo_status st = write    ? write_states(b, &copy, 1, NULL, 0)
                    : remove ? write_states(b, NULL, 0, removed, 1)
                             : APO_OK;
    pthread_mutex_unlock(&b->write_mutex);
    return st;
}

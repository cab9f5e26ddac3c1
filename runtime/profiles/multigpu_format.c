/*
 * multigpu.json (docs/profiles.md): the per-workload device ratios and cost models, read
 * strictly into apo__multigpu and written back. Besides the apportion shape
 * ("format": "apportion.multigpu/1", workloads keyed by tag, devices keyed by id), a
 * ThreadX file ({"updated_at", "workload_tag", "ratios"}: one workload, ratios only) is
 * read, so that a user moving from ThreadX keeps their tuned ratios; it is never written.
 */
#include "profiles/multigpu_format.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/json_fields.h"
#include "profiles/text.h"

int apo__device_cmp(const void *a, const void *b) {
    return strcmp(((const apo__stored_device *)a)->id, ((const apo__stored_device *)b)->id);
}

int apo__workload_cmp(const void *a, const void *b) {
    return strcmp(((const apo__stored_workload *)a)->tag, ((const apo__stored_workload *)b)->tag);
}

static void device_init(apo__stored_device *d, const char *id) {
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "%s", id);
    d->ratio = NAN;
    d->latency_ms = NAN;
    d->ms_per_melem = NAN;
    d->online.prior_latency_ms = d->online.prior_ms_per_melem = NAN;
    d->online.known_latency_ms = NAN;
    d->alone = d->cold = d->measured_alone = APO_STORED_LINE_NONE;
}

/* An optional stored line ("alone", "measured_alone", "measured_split"): an object of
 * latency_ms, ms_per_melem and samples. */
static apo_status line_from_json(const apo__field_ctx *v, const char *path, const json_t *j,
                                 const char *key, apo__stored_line *line) {
    char jp[APO_JPATH_MAX], got[80];
    *line = APO_STORED_LINE_NONE;
    const json_t *o = json_object_get(j, key);
    if (o == NULL)
        return APO_OK;
    apo__jpath_join(jp, sizeof jp, path, key);
    if (!json_is_object(o))
        return apo__field_invalid(v, jp,
                                  "expected an object (latency_ms, ms_per_melem, samples), "
                                  "got %s",
                                  apo__json_describe(o, got, sizeof got));
    APO_CHECK(apo__get_nonneg(v, o, jp, "latency_ms", &line->latency_ms));
    APO_CHECK(apo__get_nonneg(v, o, jp, "ms_per_melem", &line->ms_per_melem));
    APO_CHECK(apo__get_count(v, o, jp, "samples", 0, APO_PROFILE_COUNT_MAX, &line->samples));
    APO_CHECK(apo__get_nonneg(v, o, jp, "elements_min", &line->elements_min));
    APO_CHECK(apo__get_nonneg(v, o, jp, "elements_max", &line->elements_max));
    return APO_OK;
}

/* Writes a stored line under `key` when it holds one. */
static void line_to_json(json_t *j, const char *key, const apo__stored_line *line, int *failed) {
    if (!isfinite(line->latency_ms) || !isfinite(line->ms_per_melem))
        return;
    json_t *o = json_object();
    apo__put_real(o, "latency_ms", line->latency_ms, failed);
    apo__put_real(o, "ms_per_melem", line->ms_per_melem, failed);
    apo__put_count(o, "samples", line->samples, failed);
    if (isfinite(line->elements_min) && isfinite(line->elements_max)) {
        apo__put_real(o, "elements_min", line->elements_min, failed);
        apo__put_real(o, "elements_max", line->elements_max, failed);
    }
    apo__put(j, key, o, failed);
}

/* The names of apo__entry_origin in the files, in its order. */
static const char *const origin_names[] = {"profile", "online", "forced", "threadx"};

/* ThreadX's device names as apportion's ids (docs/profiles.md, "The ThreadX shape"): "CPU"
 * (any case) is "cpu", and "GPU0", "GPU_1", "gpu:2", "cuda3" the GPU of that ordinal,
 * "cuda:N", which the runtime matches to its Nth GPU. Other names are kept as they are. */
static void threadx_device_id(const char *name, char *id, size_t id_size) {
    static const char *const gpu_prefixes[] = {"GPU", "gpu", "cuda"};
    snprintf(id, id_size, "%s", name);
    if (strlen(name) == 3 && (name[0] | 0x20) == 'c' && (name[1] | 0x20) == 'p' &&
        (name[2] | 0x20) == 'u') {
        snprintf(id, id_size, "cpu");
        return;
    }
    for (size_t i = 0; i < sizeof gpu_prefixes / sizeof gpu_prefixes[0]; i++) {
        const size_t n = strlen(gpu_prefixes[i]);
        if (strncmp(name, gpu_prefixes[i], n) != 0)
            continue;
        const char *digits = name + n + (name[n] == ':' || name[n] == '_');
        size_t k = 0;
        while (digits[k] >= '0' && digits[k] <= '9')
            k++;
        if (k > 0 && k <= 4 && digits[k] == '\0')
            snprintf(id, id_size, "cuda:%s", digits);
        return;
    }
}

/* Reads a `ratios` object into the workload: a device listed in `devices` keeps its own
 * ratio when it has one, any other id becomes a ratios-only device. ThreadX's entries name
 * devices in its own way, read as apportion's ids. */
static apo_status read_ratios(const apo__field_ctx *v, const char *wp, const json_t *ratios,
                              apo__stored_workload *w) {
    char rp[APO_JPATH_MAX], jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(rp, sizeof rp, wp, "ratios");
    if (!json_is_object(ratios))
        return apo__field_invalid(v, rp, "expected an object of device id to ratio, got %s",
                                  apo__json_describe(ratios, got, sizeof got));
    const char *name;
    const json_t *r;
    json_object_foreach((json_t *)ratios, name, r) {
        apo__jpath_join(jp, sizeof jp, rp, name);
        apo_status st = apo__check_key(v, jp, name, APO_ID_MAX, "a device id");
        char id[APO_ID_MAX];
        if (w->origin == APO_ORIGIN_THREADX)
            threadx_device_id(name, id, sizeof id);
        else
            snprintf(id, sizeof id, "%s", name);
        double x = 0;
        if (st == APO_OK)
            st = apo__field_nonneg(v, jp, r, &x);
        if (st != APO_OK)
            return st;
        apo__stored_device *d = NULL;
        for (size_t i = 0; i < w->n_devices; i++)
            if (strcmp(w->devices[i].id, id) == 0)
                d = &w->devices[i];
        if (d == NULL) {
            if (w->n_devices == APO_MAX_DEVICES)
                return apo__field_invalid(v, rp, "more than %d devices", APO_MAX_DEVICES);
            d = &w->devices[w->n_devices++];
            device_init(d, id);
        }
        if (isnan(d->ratio))
            d->ratio = x;
    }
    return APO_OK;
}

/* The ratios an entry holds must sum to a positive finite value, or it splits nothing. */
static apo_status check_ratio_sum(const apo__field_ctx *v, const char *wp,
                                  const apo__stored_workload *w) {
    double sum = 0;
    for (size_t i = 0; i < w->n_devices; i++)
        if (!isnan(w->devices[i].ratio))
            sum += w->devices[i].ratio;
    if (!(sum > 0) || !isfinite(sum))
        return apo__field_invalid(
            v, wp, "the device ratios sum to %g; expected a positive finite sum", sum);
    return APO_OK;
}

/* A device's "online" object: {"recent": [[elements, ms], ...] (oldest first, at most
 * APO_STORED_RECENT_MAX), "prior": {"latency_ms", "ms_per_melem"} (optional),
 * "known_latency_ms" (optional), "off_run" (optional integer)}. */
static apo_status online_from_json(const apo__field_ctx *v, const char *dp, const json_t *j,
                                   apo__stored_online *o) {
    char jp[APO_JPATH_MAX], ip[APO_JPATH_MAX], got[80];
    apo__jpath_join(jp, sizeof jp, dp, "online");
    if (!json_is_object(j))
        return apo__field_invalid(
            v, jp, "expected an object (recent, prior, known_latency_ms, off_run), got %s",
            apo__json_describe(j, got, sizeof got));
    const json_t *recent = json_object_get(j, "recent");
    apo__jpath_join(ip, sizeof ip, jp, "recent");
    if (!json_is_array(recent) || json_array_size(recent) > APO_STORED_RECENT_MAX)
        return apo__field_invalid(
            v, ip, "expected an array of at most %d [elements, ms] pairs, got %s",
            APO_STORED_RECENT_MAX, apo__json_describe(recent, got, sizeof got));
    for (size_t i = 0; i < json_array_size(recent); i++) {
        const json_t *pair = json_array_get(recent, i);
        double n = json_is_array(pair) && json_array_size(pair) == 2
                       ? json_number_value(json_array_get(pair, 0))
                       : NAN;
        double ms = json_is_array(pair) && json_array_size(pair) == 2
                        ? json_number_value(json_array_get(pair, 1))
                        : NAN;
        if (!json_is_array(pair) || json_array_size(pair) != 2 ||
            !json_is_number(json_array_get(pair, 0)) || !json_is_number(json_array_get(pair, 1)) ||
            !(n > 0) || !isfinite(n) || !(ms >= 0) || !isfinite(ms))
            return apo__field_invalid(v, ip,
                                      "item %zu: expected [elements > 0, ms >= 0], finite, got %s",
                                      i, apo__json_describe(pair, got, sizeof got));
        o->recent_elements[i] = n;
        o->recent_ms[i] = ms;
    }
    o->n_recent = (unsigned)json_array_size(recent);
    const json_t *prior = json_object_get(j, "prior");
    if (prior != NULL) {
        apo__jpath_join(ip, sizeof ip, jp, "prior");
        if (!json_is_object(prior))
            return apo__field_invalid(v, ip,
                                      "expected an object (latency_ms, ms_per_melem), got %s",
                                      apo__json_describe(prior, got, sizeof got));
        APO_CHECK(apo__get_nonneg(v, prior, ip, "latency_ms", &o->prior_latency_ms));
        APO_CHECK(apo__get_nonneg(v, prior, ip, "ms_per_melem", &o->prior_ms_per_melem));
    }
    APO_CHECK(apo__get_nonneg(v, j, jp, "known_latency_ms", &o->known_latency_ms));
    const json_t *run = json_object_get(j, "off_run");
    if (run != NULL) {
        apo__jpath_join(ip, sizeof ip, jp, "off_run");
        if (!json_is_integer(run) || json_integer_value(run) < -APO_STORED_OFF_RUN_MAX ||
            json_integer_value(run) > APO_STORED_OFF_RUN_MAX)
            return apo__field_invalid(v, ip, "expected an integer from %d to %d, got %s",
                                      -APO_STORED_OFF_RUN_MAX, APO_STORED_OFF_RUN_MAX,
                                      apo__json_describe(run, got, sizeof got));
        o->off_run = (int)json_integer_value(run);
    }
    return APO_OK;
}

/* The "online" object of a device, when it has observations to keep. */
static void online_to_json(json_t *dj, const apo__stored_online *o, int *failed) {
    if (o->n_recent == 0)
        return;
    json_t *oj = json_object(), *recent = json_array();
    for (unsigned i = 0; i < o->n_recent && i < APO_STORED_RECENT_MAX; i++) {
        json_t *pair = json_array();
        if (pair == NULL || json_array_append_new(pair, json_real(o->recent_elements[i])) != 0 ||
            json_array_append_new(pair, json_real(o->recent_ms[i])) != 0 ||
            json_array_append_new(recent, pair) != 0)
            *failed = 1;
    }
    apo__put(oj, "recent", recent, failed);
    if (isfinite(o->prior_latency_ms) && isfinite(o->prior_ms_per_melem)) {
        json_t *prior = json_object();
        apo__put_real(prior, "latency_ms", o->prior_latency_ms, failed);
        apo__put_real(prior, "ms_per_melem", o->prior_ms_per_melem, failed);
        apo__put(oj, "prior", prior, failed);
    }
    apo__put_real(oj, "known_latency_ms", o->known_latency_ms, failed);
    apo__put(oj, "off_run", json_integer(o->off_run), failed);
    apo__put(dj, "online", oj, failed);
}

static apo_status device_from_json(const apo__field_ctx *v, const char *dp, const char *id,
                                   const json_t *j, apo__stored_device *d) {
    char jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(jp, sizeof jp, dp, id);
    APO_CHECK(apo__check_key(v, jp, id, APO_ID_MAX, "a device id"));
    if (!json_is_object(j))
        return apo__field_invalid(v, jp,
                                  "expected an object (label, config, ratio, latency_ms, "
                                  "ms_per_melem, samples, idle_calls, online), got "
                                  "%s",
                                  apo__json_describe(j, got, sizeof got));
    device_init(d, id);
    APO_CHECK(apo__get_string(v, j, jp, "label", d->label, sizeof d->label));
    APO_CHECK(apo__get_string(v, j, jp, "config", d->config, sizeof d->config));
    APO_CHECK(apo__get_nonneg(v, j, jp, "ratio", &d->ratio));
    APO_CHECK(apo__get_nonneg(v, j, jp, "latency_ms", &d->latency_ms));
    APO_CHECK(apo__get_nonneg(v, j, jp, "ms_per_melem", &d->ms_per_melem));
    APO_CHECK(apo__get_count(v, j, jp, "samples", 0, APO_PROFILE_COUNT_MAX, &d->samples));
    uint64_t idle;
    APO_CHECK(apo__get_count(v, j, jp, "idle_calls", 0, UINT_MAX, &idle));
    d->idle_calls = (unsigned)idle;
    const json_t *online = json_object_get(j, "online");
    if (online != NULL)
        APO_CHECK(online_from_json(v, jp, online, &d->online));
    APO_CHECK(line_from_json(v, jp, j, "alone", &d->alone));
    APO_CHECK(line_from_json(v, jp, j, "cold", &d->cold));
    APO_CHECK(line_from_json(v, jp, j, "measured_alone", &d->measured_alone));
    return APO_OK;
}

/* An entry's "source", the origin of its models; "profile" when absent. */
static apo_status origin_from_json(const apo__field_ctx *v, const char *wp, const json_t *j,
                                   apo__entry_origin *origin) {
    char jp[APO_JPATH_MAX], got[80];
    const json_t *source = json_object_get(j, "source");
    *origin = APO_ORIGIN_PROFILE;
    if (source == NULL)
        return APO_OK;
    apo__jpath_join(jp, sizeof jp, wp, "source");
    int found = 0;
    for (size_t i = 0; json_is_string(source) && i < 4; i++) {
        if (strcmp(json_string_value(source), origin_names[i]) == 0) {
            *origin = (apo__entry_origin)i;
            found = 1;
        }
    }
    if (!found)
        return apo__field_invalid(v, jp,
                                  "expected \"profile\", \"online\", \"forced\" or \"threadx\", "
                                  "got %s",
                                  apo__json_describe(source, got, sizeof got));
    return APO_OK;
}

static apo_status workload_from_json(const apo__field_ctx *v, const char *tag, const json_t *j,
                                     apo__stored_workload *w) {
    char wp[APO_JPATH_MAX], jp[APO_JPATH_MAX], got[80];
    apo__jpath_join(wp, sizeof wp, "workloads", tag);
    APO_CHECK(apo__check_key(v, wp, tag, APO_TAG_MAX, "a workload tag"));
    if (!json_is_object(j))
        return apo__field_invalid(v, wp, "expected an object, got %s",
                                  apo__json_describe(j, got, sizeof got));
    memset(w, 0, sizeof *w);
    snprintf(w->tag, sizeof w->tag, "%s", tag);
    uint64_t runs, since_probe;
    APO_CHECK(apo__get_timestamp(v, j, wp, 0, w->updated_at));
    APO_CHECK(apo__get_count(v, j, wp, "sample_size", 0, APO_PROFILE_COUNT_MAX, &w->sample_size));
    APO_CHECK(apo__get_count(v, j, wp, "runs", 0, UINT_MAX, &runs));
    w->runs = (unsigned)runs;
    APO_CHECK(apo__get_count(v, j, wp, "calls_since_probe", 0, UINT_MAX, &since_probe));
    w->calls_since_probe = (unsigned)since_probe;
    APO_CHECK(origin_from_json(v, wp, j, &w->origin));
    APO_CHECK(line_from_json(v, wp, j, "measured_split", &w->measured_split));

    const json_t *devices = json_object_get(j, "devices");
    const json_t *ratios = json_object_get(j, "ratios");
    if (devices == NULL && ratios == NULL)
        return apo__field_invalid(v, wp,
                                  "no \"devices\" and no \"ratios\"; expected at least one device");
    if (devices != NULL) {
        apo__jpath_join(jp, sizeof jp, wp, "devices");
        if (!json_is_object(devices))
            return apo__field_invalid(v, jp, "expected an object of device id to device, got %s",
                                      apo__json_describe(devices, got, sizeof got));
        if (json_object_size(devices) > APO_MAX_DEVICES)
            return apo__field_invalid(v, jp, "%zu devices; at most %d are supported",
                                      json_object_size(devices), APO_MAX_DEVICES);
        const char *id;
        const json_t *d;
        json_object_foreach((json_t *)devices, id, d) {
            APO_CHECK(device_from_json(v, jp, id, d, &w->devices[w->n_devices]));
            w->n_devices++;
        }
    }
    if (ratios != NULL)
        APO_CHECK(read_ratios(v, wp, ratios, w));
    APO_CHECK(check_ratio_sum(v, wp, w));
    qsort(w->devices, w->n_devices, sizeof w->devices[0], apo__device_cmp);
    return APO_OK;
}

/* ThreadX's {"updated_at", "workload_tag", "ratios"}: one entry, ratios only. */
static apo_status threadx_multigpu_from_json(const apo__field_ctx *v, const json_t *root,
                                             apo__multigpu *p) {
    char got[80];
    p->threadx = 1;
    APO_CHECK(apo__get_timestamp(v, root, "", 1, p->updated_at));
    const json_t *tag = json_object_get(root, "workload_tag");
    if (!json_is_string(tag))
        return apo__field_invalid(v, "workload_tag", "expected a string, got %s",
                                  apo__json_describe(tag, got, sizeof got));
    APO_CHECK(
        apo__check_key(v, "workload_tag", json_string_value(tag), APO_TAG_MAX, "a workload tag"));
    p->workloads = calloc(1, sizeof *p->workloads);
    if (p->workloads == NULL) {
        apo__errf(v->err, v->err_size, "%s: out of memory", v->file);
        return APO_ERR_OUT_OF_MEMORY;
    }
    p->n_workloads = 1;
    apo__stored_workload *w = &p->workloads[0];
    snprintf(w->tag, sizeof w->tag, "%s", json_string_value(tag));
    snprintf(w->updated_at, sizeof w->updated_at, "%s", p->updated_at);
    w->origin = APO_ORIGIN_THREADX;
    w->measured_split = APO_STORED_LINE_NONE;
    APO_CHECK(read_ratios(v, "", json_object_get(root, "ratios"), w));
    APO_CHECK(check_ratio_sum(v, "ratios", w));
    qsort(w->devices, w->n_devices, sizeof w->devices[0], apo__device_cmp);
    return APO_OK;
}

static apo_status multigpu_from_json(const apo__field_ctx *v, const json_t *root, void *out) {
    apo__multigpu *p = out;
    char got[80];
    if (!json_is_object(root))
        return apo__field_invalid(v, "", "expected a JSON object at the top level, got %s",
                                  apo__json_describe(root, got, sizeof got));
    const json_t *format = json_object_get(root, "format");
    if (format == NULL) {
        if (json_object_get(root, "workload_tag") != NULL &&
            json_object_get(root, "ratios") != NULL)
            return threadx_multigpu_from_json(v, root, p);
        return apo__field_invalid(v, "",
                                  "unknown format: no \"format\" field, and not ThreadX's "
                                  "{\"updated_at\", \"workload_tag\", \"ratios\"} shape either");
    }
    if (!json_is_string(format) || strcmp(json_string_value(format), APO_MULTIGPU_FORMAT) != 0)
        return apo__field_invalid(v, "format", "unknown format %s; expected \"%s\"",
                                  apo__json_describe(format, got, sizeof got), APO_MULTIGPU_FORMAT);
    APO_CHECK(apo__get_string(v, root, "", "host", p->host, sizeof p->host));
    APO_CHECK(apo__get_string(v, root, "", "library_version", p->library_version,
                              sizeof p->library_version));
    APO_CHECK(apo__get_timestamp(v, root, "", 0, p->updated_at));
    const json_t *workloads = json_object_get(root, "workloads");
    if (!json_is_object(workloads))
        return apo__field_invalid(
            v, "workloads", "expected an object of tag to workload, got %s",
            workloads == NULL ? "nothing" : apo__json_describe(workloads, got, sizeof got));
    size_t n = json_object_size(workloads);
    if (n > APO_WORKLOADS_MAX)
        return apo__field_invalid(v, "workloads", "%zu workloads; at most %d are read", n,
                                  APO_WORKLOADS_MAX);
    p->workloads = calloc(n > 0 ? n : 1, sizeof *p->workloads);
    if (p->workloads == NULL) {
        apo__errf(v->err, v->err_size, "%s: out of memory for %zu workloads", v->file, n);
        return APO_ERR_OUT_OF_MEMORY;
    }
    const char *tag;
    const json_t *w;
    json_object_foreach((json_t *)workloads, tag, w) {
        APO_CHECK(workload_from_json(v, tag, w, &p->workloads[p->n_workloads]));
        p->n_workloads++;
    }
    qsort(p->workloads, p->n_workloads, sizeof p->workloads[0], apo__workload_cmp);
    return APO_OK;
}

static void multigpu_release(void *p) { apo__multigpu_free(p); }

const apo__profile_format apo__multigpu_format = {
    .default_name = "multigpu.json",
    .size = sizeof(apo__multigpu),
    .from_json = multigpu_from_json,
    .release = multigpu_release,
};

apo_status apo__multigpu_parse(const char *name, const char *text, size_t len, apo__multigpu *out,
                               char *err, size_t err_size) {
    return apo__profile_parse(&apo__multigpu_format, name, text, len, out, err, err_size);
}

apo_status apo__multigpu_load(const char *path, apo__multigpu *out, int *missing, char *err,
                              size_t err_size) {
    return apo__profile_load(&apo__multigpu_format, path, out, missing, err, err_size);
}

void apo__multigpu_free(apo__multigpu *p) {
    if (p == NULL)
        return;
    free(p->workloads);
    memset(p, 0, sizeof *p);
}

const apo__stored_workload *apo__multigpu_find(const apo__multigpu *p, const char *tag) {
    if (p == NULL || tag == NULL || p->n_workloads == 0)
        return NULL;
    apo__stored_workload probe;
    snprintf(probe.tag, sizeof probe.tag, "%s", tag);
    if (strcmp(probe.tag, tag) != 0)
        return NULL; /* longer than any stored tag */
    return bsearch(&probe, p->workloads, p->n_workloads, sizeof p->workloads[0], apo__workload_cmp);
}

json_t *apo__multigpu_to_json(const apo__multigpu *p) {
    int failed = 0;
    json_t *root = json_object(), *workloads = json_object();
    apo__put(root, "format", json_string(APO_MULTIGPU_FORMAT), &failed);
    apo__put(root, "updated_at", json_string(p->updated_at), &failed);
    apo__put(root, "host", json_string(p->host), &failed);
    apo__put(root, "library_version", json_string(p->library_version), &failed);
    for (size_t i = 0; i < p->n_workloads && !failed; i++) {
        const apo__stored_workload *w = &p->workloads[i];
        json_t *wj = json_object(), *devices = json_object(), *ratios = json_object();
        if (w->updated_at[0] != '\0')
            apo__put(wj, "updated_at", json_string(w->updated_at), &failed);
        apo__put_count(wj, "sample_size", w->sample_size, &failed);
        apo__put_count(wj, "runs", w->runs, &failed);
        apo__put(wj, "source", json_string(origin_names[w->origin]), &failed);
        /* Exploration's counters, so that they add up over one-call processes (the CLI);
         * written only when not 0, as a file without them reads. */
        if (w->calls_since_probe > 0)
            apo__put_count(wj, "calls_since_probe", w->calls_since_probe, &failed);
        line_to_json(wj, "measured_split", &w->measured_split, &failed);
        for (size_t d = 0; d < w->n_devices; d++) {
            const apo__stored_device *dev = &w->devices[d];
            json_t *dj = json_object();
            apo__put(dj, "label", json_string(dev->label), &failed);
            if (dev->config[0] != '\0')
                apo__put(dj, "config", json_string(dev->config), &failed);
            apo__put_real(dj, "ratio", dev->ratio, &failed);
            apo__put_real(dj, "latency_ms", dev->latency_ms, &failed);
            apo__put_real(dj, "ms_per_melem", dev->ms_per_melem, &failed);
            apo__put_count(dj, "samples", dev->samples, &failed);
            if (dev->idle_calls > 0)
                apo__put_count(dj, "idle_calls", dev->idle_calls, &failed);
            online_to_json(dj, &dev->online, &failed);
            line_to_json(dj, "alone", &dev->alone, &failed);
            line_to_json(dj, "cold", &dev->cold, &failed);
            line_to_json(dj, "measured_alone", &dev->measured_alone, &failed);
            apo__put(devices, dev->id, dj, &failed);
            apo__put_real(ratios, dev->id, dev->ratio, &failed);
        }
        apo__put(wj, "devices", devices, &failed);
        apo__put(wj, "ratios", ratios, &failed);
        apo__put(workloads, w->tag, wj, &failed);
    }
    apo__put(root, "workloads", workloads, &failed);
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/*
 * Profiling and the public face of the balancing state: apo_profile_auto_balance() runs
 * each device alone at several sizes and fits its model; apo_should_use_gpu() answers from
 * thresholds.json; apo_set_ratios(), apo_profile_save() and the queries behind
 * `apportion show`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance/balance_files.h"
#include "balance/solver.h"
#include "base/log.h"
#include "catalog/params.h"
#include "catalog/reentry_guard.h"
#include "core/plan.h"
#include "core/runtime.h"
#include "core/sweep.h"
#include "random_walk.h"

#define APO_PROFILE_DEFAULT_SAMPLES 1000000u
#define APO_PROFILE_DEFAULT_RUNS 5u
#define APO_PROFILE_RUNS_MAX 1000u
#define APO_PROFILE_SIZES_MAX 32u

const char *apo_profile_state_name(apo_profile_state state) {
    switch (state) {
    case APO_PROFILE_OFF:
        return "off";
    case APO_PROFILE_MISSING:
        return "missing";
    case APO_PROFILE_LOADED:
        return "loaded";
    case APO_PROFILE_IGNORED:
        return "ignored";
    }
    return "unknown";
}

static apo_status check_tag(const char *tag, const char *what) {
    if (tag == NULL)
        return apo__fail(APO_ERR_NULL, "%s: tag is NULL", what);
    size_t len = strlen(tag);
    if (len == 0 || len >= APO_TAG_MAX)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: the tag must be 1 to %d characters", what,
                         APO_TAG_MAX - 1);
    return apo__check_tag_text(tag, what);
}

/* ---- profiling ---------------------------------------------------------------------------- */

typedef struct profile_job {
    const apo_profile_options *opt;
    const apo__kernel *kernel;
    uint64_t sizes[APO_PROFILE_SIZES_MAX];
    size_t n_sizes;
    unsigned runs;
    double *inputs[APO_MAX_IO], *outputs[APO_MAX_IO];
} profile_job;

static apo_status resolve_profile(apo_runtime *rt, const apo_profile_options *opt,
                                  profile_job *job) {
    APO_CHECK_STRUCT_SIZE(opt, apo_profile_options, APO_PROFILE_OPTIONS_INIT);
    apo_status st = check_tag(opt->tag, "apo_profile_auto_balance");
    if (st != APO_OK)
        return st;
    const char *name = opt->kernel != NULL ? opt->kernel : opt->tag;
    job->kernel = apo__registry_find(&rt->registry, name);
    if (job->kernel == NULL)
        return apo__fail(APO_ERR_UNKNOWN_KERNEL, "apo_profile_auto_balance: no kernel \"%s\"",
                         name);
    job->runs = opt->runs != 0 ? opt->runs : APO_PROFILE_DEFAULT_RUNS;
    if (job->runs > APO_PROFILE_RUNS_MAX)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "runs is %u, at most %u", job->runs,
                         APO_PROFILE_RUNS_MAX);
    if (opt->n_sizes > 0) {
        if (opt->sizes == NULL)
            return apo__fail(APO_ERR_NULL, "n_sizes is %zu but sizes is NULL", opt->n_sizes);
        if (opt->n_sizes > APO_PROFILE_SIZES_MAX)
            return apo__fail(APO_ERR_INVALID_ARGUMENT, "%zu sizes, at most %u", opt->n_sizes,
                             APO_PROFILE_SIZES_MAX);
        job->n_sizes = opt->n_sizes;
        memcpy(job->sizes, opt->sizes, opt->n_sizes * sizeof opt->sizes[0]);
    } else {
        uint64_t s = opt->sample_size != 0 ? opt->sample_size : APO_PROFILE_DEFAULT_SAMPLES;
        job->sizes[0] = s / 16 > 0 ? s / 16 : 1;
        job->sizes[1] = s / 4 > 0 ? s / 4 : 1;
        job->sizes[2] = s;
        job->n_sizes = 3;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < job->n_sizes; i++) {
        if (job->sizes[i] == 0 || job->sizes[i] > SIZE_MAX / sizeof(double))
            return apo__fail(APO_ERR_INVALID_ARGUMENT, "size %zu is %llu samples", i,
                             (unsigned long long)job->sizes[i]);
        size_t j = 0;
        while (j < i && job->sizes[j] != job->sizes[i])
            j++;
        distinct += j == i;
    }
    if (distinct < 2)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "profiling needs two or more distinct sizes to tell latency from cost; "
                         "got %zu",
                         distinct);
    return APO_OK;
}

static uint64_t largest_size(const profile_job *job) {
    uint64_t m = 0;
    for (size_t i = 0; i < job->n_sizes; i++)
        m = job->sizes[i] > m ? job->sizes[i] : m;
    return m;
}

static void free_buffers(profile_job *job) {
    for (size_t i = 0; i < APO_MAX_IO; i++) {
        free(job->inputs[i]);
        free(job->outputs[i]);
    }
}

/* Inputs for the largest size (smaller sizes use a prefix) and outputs to match. */
static apo_status alloc_buffers(apo_runtime *rt, profile_job *job, apo_workload *w) {
    uint64_t cols = largest_size(job);
    w->cols = (size_t)cols;
    for (size_t i = 0; i < job->kernel->n_inputs; i++) {
        job->inputs[i] = malloc((size_t)cols * sizeof(double));
        if (job->inputs[i] == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "profiling: no memory for %llu samples",
                             (unsigned long long)cols);
        /* The default input of `apportion run`: the indicators see prices of a realistic
         * shape, and their speed does not depend on the values. */
        apo__random_walk(job->inputs[i], 1, (size_t)cols, job->opt->seed + i);
        /* A volume is never negative (the catalog refuses one: volume_inputs.h), while a walk
         * of 1e5 steps of up to 1 from 100 goes below 0 in most seeds: its distance from 0. */
        if (strcmp(job->kernel->input_names[i], "volume") == 0)
            for (uint64_t c = 0; c < cols; c++)
                job->inputs[i][c] = fabs(job->inputs[i][c]);
    }
    for (size_t i = 0; i < job->kernel->n_outputs; i++) {
        size_t rows, out_cols;
        apo_status st = apo_output_shape(rt, w, i, &rows, &out_cols);
        if (st != APO_OK)
            return st;
        job->outputs[i] = malloc(rows * out_cols * sizeof(double));
        if (job->outputs[i] == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "profiling: no memory for output %zu", i);
    }
    return APO_OK;
}

/* The elements a profiling run of device d counts: a GPU whose model is per full wave (a
 * scored kernel) and that ran fewer tiles than a wave counts the wave's worth, since that is
 * what its time paid for (balance/configurations.h). */
static double profiled_elements(const apo_runtime *rt, const profile_job *job, size_t d,
                                const apo_device_report *r) {
    const double wave = apo__device_wave_tiles(&rt->devices[d], job->kernel->scoring != NULL);
    if (wave > 0 && r->tiles > 0 && (double)r->tiles < wave)
        return (double)r->elements * wave / (double)r->tiles;
    return (double)r->elements;
}

/* Runs every device alone at every size; writes n and t per run into ns/ts (device-major)
 * and the elements of each size. A cpu beside GPUs is profiled with the threads it keeps
 * beside them, the configuration its model describes (core/plan.c). */
static apo_status measure(apo_runtime *rt, profile_job *job, apo_workload *w, double *ns,
                          double *ts, uint64_t *elements_at) {
    size_t n_dev = rt->n_devices;
    size_t total = n_dev * job->n_sizes * (job->runs + 1), done = 0;
    double ratios[APO_MAX_DEVICES];
    w->ratios = ratios;
    w->n_ratios = n_dev;
    for (size_t d = 0; d < n_dev; d++) {
        /* A quarantined device takes no work, so its one-hot runs would time the others. */
        if (apo__fault_quarantined(&rt->faults, d))
            return apo__fail(APO_ERR_DEVICE_LOST, "%s is quarantined (it %s); nothing was stored",
                             rt->devices[d].info.id, rt->faults.health[d].reason);
        for (size_t i = 0; i < n_dev; i++)
            ratios[i] = i == d ? 1.0 : 0.0;
        for (size_t s = 0; s < job->n_sizes; s++) {
            w->cols = (size_t)job->sizes[s];
            char what[APO_ID_MAX + 48];
            snprintf(what, sizeof what, "%s @ %llu", rt->devices[d].info.id,
                     (unsigned long long)job->sizes[s]);
            /* Run 0 warms the caches and the page tables up and is not timed. */
            for (unsigned r = 0; r <= job->runs; r++) {
                apo_report report = APO_REPORT_INIT;
                /* Host arrays, the cpu on the threads its model is for. */
                const apo__placement beside = {-1, -1, NULL, 0, 1};
                apo_status st = apo__distribute_placed(rt, w, &beside, &report, 0);
                if (st != APO_OK)
                    return st;
                if (report.devices[d].failed)
                    return apo__fail(APO_ERR_DEVICE_LOST,
                                     "%s failed while profiled (%s); nothing was stored",
                                     rt->devices[d].info.id, report.devices[d].failure);
                if (r > 0) {
                    size_t k = (d * job->n_sizes + s) * job->runs + (r - 1);
                    ns[k] = profiled_elements(rt, job, d, &report.devices[d]);
                    ts[k] = report.devices[d].wall_ms / 1e3;
                }
                elements_at[s] = report.elements;
                if (job->opt->progress != NULL)
                    job->opt->progress(job->opt->progress_user, ++done, total, what);
            }
        }
    }
    return APO_OK;
}

/* The median of a size's runs, from a copy (the runs stay in order for the fit). */
static double median_of(const double *v, size_t n) {
    double tmp[APO_PROFILE_RUNS_MAX];
    memcpy(tmp, v, n * sizeof *v);
    return apo__median(tmp, n);
}

static apo_status fit_and_apply(apo_runtime *rt, profile_job *job, const double *ns,
                                const double *ts, const uint64_t *elements_at,
                                apo_profile_result *result) {
    size_t n_dev = rt->n_devices;
    size_t per_dev = job->n_sizes * job->runs;
    apo__model models[APO_MAX_DEVICES];
    uint64_t dropped[APO_MAX_DEVICES];
    double *medians_ms = malloc(n_dev * job->n_sizes * sizeof *medians_ms);
    if (medians_ms == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "profiling: out of memory");
    for (size_t d = 0; d < n_dev; d++) {
        char err[400];
        apo_status st = apo__model_fit(ns + d * per_dev, ts + d * per_dev, per_dev, &models[d],
                                       &dropped[d], err, sizeof err);
        /* A GPU that ran less than a wave at every size costs the same wave each time: its
         * sizes do not spread, and its model is the wave's time over the wave's elements. */
        if (st != APO_OK &&
            apo__device_wave_tiles(&rt->devices[d], job->kernel->scoring != NULL) > 0) {
            double cost[APO_PROFILE_RUNS_MAX * APO_PROFILE_SIZES_MAX];
            for (size_t k = 0; k < per_dev; k++)
                cost[k] = ts[d * per_dev + k] / ns[d * per_dev + k];
            models[d] =
                (apo__model){.valid = 1, .cost_s = apo__median(cost, per_dev), .samples = per_dev};
            dropped[d] = 0;
            st = models[d].cost_s > 0 ? APO_OK : st;
        }
        if (st != APO_OK) {
            free(medians_ms);
            return apo__fail(st, "profiling %s: %s", rt->devices[d].info.id, err);
        }
        for (size_t s = 0; s < job->n_sizes; s++)
            medians_ms[d * job->n_sizes + s] =
                median_of(ts + d * per_dev + s * job->runs, job->runs) * 1e3;
    }

    /* The sample size is the largest size, counted in elements of work as the models are. */
    size_t largest = 0;
    for (size_t s = 1; s < job->n_sizes; s++)
        largest = job->sizes[s] > job->sizes[largest] ? s : largest;
    uint64_t sample_elements = elements_at[largest];

    const apo__kernel *k = job->kernel;
    double values[APO_MAX_PARAMS];
    apo_status st = apo__resolve_params(k, job->opt->params, job->opt->n_params, values);
    const char *names[APO_MAX_PARAMS];
    for (size_t i = 0; i < k->n_params; i++)
        names[i] = k->params[i].name;
    int written = 0;
    if (st == APO_OK)
        st = apo__balance_apply_profile(&rt->balance, job->opt->tag, k->name, names, values,
                                        k->n_params, models, sample_elements, job->runs, job->sizes,
                                        job->n_sizes, medians_ms, &written);
    free(medians_ms);

    if (result != NULL) {
        int usable[APO_MAX_DEVICES];
        double shares[APO_MAX_DEVICES], makespan = NAN;
        for (size_t d = 0; d < n_dev; d++)
            usable[d] = 1;
        apo__solve_split(models, usable, n_dev, (double)sample_elements, shares, &makespan);
        snprintf(result->tag, sizeof result->tag, "%s", job->opt->tag);
        result->sample_size = sample_elements;
        result->runs = job->runs;
        result->predicted_ms = makespan * 1e3;
        result->written = written;
        result->n_devices = n_dev;
        for (size_t d = 0; d < n_dev; d++) {
            apo_device_model *m = &result->devices[d];
            memset(m, 0, sizeof *m);
            snprintf(m->id, sizeof m->id, "%s", rt->devices[d].info.id);
            snprintf(m->label, sizeof m->label, "%s", rt->devices[d].info.label);
            m->valid = 1;
            m->latency_ms = models[d].latency_s * 1e3;
            m->ms_per_melem = models[d].cost_s * 1e9;
            m->ratio = shares[d];
            m->samples = models[d].samples;
            m->dropped = dropped[d];
        }
    }
    return st;
}

/* One configuration at the largest size, end to end: a warm-up, then job->runs timed calls
 * whose makespans go into the tag's measured configuration `config` (0: the split at
 * `ratios`, 1 + d: device d alone, as a call of it would run: a cpu on every core). */
static apo_status time_configuration(apo_runtime *rt, const profile_job *job, apo_workload *w,
                                     const double *ratios, int config) {
    w->ratios = ratios;
    w->n_ratios = rt->n_devices;
    for (unsigned r = 0; r <= job->runs; r++) {
        apo_report report = APO_REPORT_INIT;
        apo_status st = apo__distribute(rt, w, &report, 0);
        if (st != APO_OK)
            return st;
        if (report.failovers > 0)
            return apo__fail(APO_ERR_DEVICE_LOST, "a device failed while configurations were "
                                                  "timed; the models are stored, not the timings");
        if (r > 0)
            apo__balance_observe_configuration(&rt->balance, job->opt->tag, config,
                                               (double)report.elements, report.makespan_ms / 1e3);
    }
    return APO_OK;
}

/* Measures the configurations a call of the largest size can run (docs/scheduling.md,
 * "Configurations and the guard"): the split the new models give, and each device alone,
 * end to end, so that the guard has measurements of its own from the profile on. Nothing to
 * do for one device. */
static apo_status measure_configurations(apo_runtime *rt, profile_job *job, apo_workload *w) {
    const size_t n = rt->n_devices;
    if (n < 2)
        return APO_OK;
    w->cols = (size_t)largest_size(job);
    w->ratios = NULL;
    w->n_ratios = 0;
    apo__call call;
    apo_status st = apo__resolve_call(rt, w, &call, 0);
    if (st != APO_OK)
        return st;
    double min[APO_MAX_DEVICES], ratios[APO_MAX_DEVICES];
    apo__shape shape;
    apo__call_shape(rt, &call, 0, call.tiles, min, &shape);
    apo__sweep_release(&call);
    int usable[APO_MAX_DEVICES];
    for (size_t d = 0; d < n; d++)
        usable[d] = 1;
    if (apo__balance_split_shares(&rt->balance, job->opt->tag, usable, &shape, ratios) > 1 &&
        (st = time_configuration(rt, job, w, ratios, 0)) != APO_OK)
        return st;
    for (size_t d = 0; d < n && st == APO_OK; d++) {
        for (size_t i = 0; i < n; i++)
            ratios[i] = i == d ? 1.0 : 0.0;
        st = time_configuration(rt, job, w, ratios, 1 + (int)d);
    }
    w->ratios = NULL;
    w->n_ratios = 0;
    /* Stored beside the models (profiles on; a failed write is the warning a call's is). */
    if (st == APO_OK && apo__balance_save(&rt->balance) != APO_OK)
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "configurations timed, not stored: %s",
                 apo_last_error());
    return st;
}

apo_status apo_profile_auto_balance(apo_runtime *rt, const apo_profile_options *opt,
                                    apo_profile_result *result) {
    if (rt == NULL || opt == NULL)
        return apo__fail(APO_ERR_NULL, "apo_profile_auto_balance: NULL argument");
    if (result != NULL)
        APO_CHECK_STRUCT_SIZE(result, apo_profile_result, APO_PROFILE_RESULT_INIT);
    /* Refused at once, as every call it makes would be (core/distribute.c). */
    if (apo__inside_kernel_of(rt))
        return apo__refuse_reentry("apo_profile_auto_balance", "it");
    profile_job job;
    memset(&job, 0, sizeof job);
    job.opt = opt;
    apo_status st = resolve_profile(rt, opt, &job);
    if (st != APO_OK)
        return st;

    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = job.kernel->name;
    w.tag = opt->tag;
    w.rows = 1;
    w.params = opt->params;
    w.n_params = opt->n_params;
    w.seed = opt->seed;
    w.n_inputs = job.kernel->n_inputs;
    w.n_outputs = job.kernel->n_outputs;
    w.inputs = (const double *const *)job.inputs;
    w.outputs = (double *const *)job.outputs;

    size_t count = rt->n_devices * job.n_sizes * job.runs;
    double *ns = malloc(2 * count * sizeof *ns);
    uint64_t elements_at[APO_PROFILE_SIZES_MAX] = {0};
    st = ns == NULL ? apo__fail(APO_ERR_OUT_OF_MEMORY, "profiling: out of memory")
                    : alloc_buffers(rt, &job, &w);
    if (st == APO_OK)
        st = measure(rt, &job, &w, ns, ns + count, elements_at);
    if (st == APO_OK)
        st = fit_and_apply(rt, &job, ns, ns + count, elements_at, result);
    if (st == APO_OK)
        st = measure_configurations(rt, &job, &w);
    free(ns);
    free_buffers(&job);
    return st;
}

/* ---- the CPU-or-GPU decision -------------------------------------------------------------- */

typedef struct size_point {
    double samples, cpu_ms, gpu_ms;
} size_point;

static int by_samples(const void *a, const void *b) {
    const size_point *x = a, *y = b;
    return (x->samples > y->samples) - (x->samples < y->samples);
}

/* The line through two points, as a model in milliseconds per sample; the intercept is
 * clamped at 0 and a slope that is not positive (a flat, latency-bound range) becomes a
 * negligible one, so the solver has a valid model. */
static apo__model local_line(double n1, double t1, double n2, double t2) {
    apo__model m = {.valid = 1};
    m.cost_s = (t2 - t1) / (n2 - n1);
    if (!(m.cost_s > 0))
        m.cost_s = 1e-12;
    m.latency_s = fmax(0.0, t1 - m.cost_s * n1);
    return m;
}

apo_status apo_should_use_gpu(apo_runtime *rt, const char *function, const apo_param *params,
                              size_t n_params, uint64_t samples, int *use_gpu) {
    if (rt == NULL || function == NULL || use_gpu == NULL)
        return apo__fail(APO_ERR_NULL, "apo_should_use_gpu: NULL argument");
    *use_gpu = 0;
    const apo__kernel *k = apo__registry_find(&rt->registry, function);
    if (k == NULL)
        return apo__fail(APO_ERR_UNKNOWN_KERNEL, "apo_should_use_gpu: no kernel \"%s\"", function);
    double values[APO_MAX_PARAMS];
    apo_status st = apo__resolve_params(k, params, n_params, values);
    if (st != APO_OK)
        return st;

    apo__balance *b = &rt->balance;
    pthread_mutex_lock(&b->mutex);
    size_point *points = malloc((b->thresholds.n + 1) * sizeof *points);
    size_t n = 0;
    for (size_t i = 0; points != NULL && i < b->thresholds.n; i++) {
        const apo__threshold *e = &b->thresholds.entries[i];
        apo__threshold_key_parts parts;
        if (apo__threshold_key_parse(e->key, &parts) != APO_OK ||
            strcmp(parts.function, k->name) != 0 || parts.n_params != k->n_params)
            continue;
        int same = 1;
        for (size_t p = 0; p < k->n_params && same; p++) {
            size_t q = 0;
            while (q < parts.n_params && !apo__param_named(k, p, parts.names[q]))
                q++;
            same = q < parts.n_params && parts.values[q] == values[p];
        }
        if (same && isfinite(e->cpu_ms_avg) && isfinite(e->gpu_ms_avg))
            points[n++] = (size_point){(double)parts.samples, e->cpu_ms_avg, e->gpu_ms_avg};
    }
    pthread_mutex_unlock(&b->mutex);
    if (points == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_should_use_gpu: out of memory");
    if (n < 2) {
        free(points);
        return apo__fail(APO_ERR_NOT_FOUND,
                         "thresholds.json has CPU and GPU timings of %s with these parameters "
                         "at %zu size(s); two or more are needed (run 'apportion profile' on a "
                         "machine with a GPU)",
                         k->name, n);
    }
    qsort(points, n, sizeof *points, by_samples);
    /* The segment around the size: the pair that brackets it, else the nearest pair. */
    size_t j = 0;
    while (j + 2 < n && points[j + 1].samples < (double)samples)
        j++;
    const size_point *p = &points[j], *q = &points[j + 1];
    apo__model models[2] = {local_line(p->samples, p->cpu_ms, q->samples, q->cpu_ms),
                            local_line(p->samples, p->gpu_ms, q->samples, q->gpu_ms)};
    free(points);
    int usable[2] = {1, 1};
    double shares[2], makespan;
    st = apo__solve_split(models, usable, 2, (double)samples, shares, &makespan);
    if (st != APO_OK)
        return apo__fail(APO_ERR_INTERNAL, "apo_should_use_gpu: the solver found no device");
    *use_gpu = shares[1] > 0;
    return APO_OK;
}

/* ---- forced ratios and saving --------------------------------------------------------------- */

/* The runtime device an id names: its own id, or cuda:N for the Nth GPU. */
static size_t device_by_id(const apo_runtime *rt, const char *id) {
    for (size_t d = 0; d < rt->n_devices; d++)
        if (strcmp(rt->devices[d].info.id, id) == 0)
            return d;
    unsigned ordinal;
    char tail;
    if (sscanf(id, "cuda:%u%c", &ordinal, &tail) == 1) {
        size_t seen = 0;
        for (size_t d = 0; d < rt->n_devices; d++)
            if (rt->devices[d].info.kind == APO_DEVICE_CUDA && seen++ == ordinal)
                return d;
    }
    return SIZE_MAX;
}

apo_status apo_set_ratios(apo_runtime *rt, const char *tag, const char *const *ids,
                          const double *ratios, size_t n) {
    if (rt == NULL)
        return apo__fail(APO_ERR_NULL, "apo_set_ratios: rt is NULL");
    apo_status st = check_tag(tag, "apo_set_ratios");
    if (st != APO_OK)
        return st;
    if (n == 0)
        return apo__balance_force(&rt->balance, tag, NULL, 0);
    if (ids == NULL || ratios == NULL)
        return apo__fail(APO_ERR_NULL, "apo_set_ratios: ids or ratios is NULL");
    double by_device[APO_MAX_DEVICES] = {0};
    int named[APO_MAX_DEVICES] = {0};
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] == NULL)
            return apo__fail(APO_ERR_NULL, "apo_set_ratios: id %zu is NULL", i);
        size_t d = device_by_id(rt, ids[i]);
        if (d == SIZE_MAX)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_set_ratios: \"%s\" is not a device of this runtime (see "
                             "'apportion devices')",
                             ids[i]);
        if (named[d]++)
            return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_set_ratios: %s is named twice",
                             rt->devices[d].info.id);
        if (!isfinite(ratios[i]) || ratios[i] < 0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_set_ratios: the ratio of %s is %g; ratios must be finite "
                             "and >= 0",
                             ids[i], ratios[i]);
        by_device[d] = ratios[i];
        sum += ratios[i];
    }
    if (isinf(sum))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_set_ratios: the ratios sum to inf (beyond the largest double); "
                         "scale them down");
    if (!(sum > 0))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_set_ratios: the ratios sum to %g; at least one must be positive",
                         sum);
    return apo__balance_force(&rt->balance, tag, by_device, rt->n_devices);
}

apo_status apo_profile_save(apo_runtime *rt) {
    if (rt == NULL)
        return apo__fail(APO_ERR_NULL, "apo_profile_save: rt is NULL");
    return apo__balance_save(&rt->balance);
}

/* ---- queries -------------------------------------------------------------------------------- */

apo_status apo_profile_files_get(const apo_runtime *rt, apo_profile_files *files) {
    if (rt == NULL || files == NULL)
        return apo__fail(APO_ERR_NULL, "apo_profile_files_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(files, apo_profile_files, APO_PROFILE_FILES_INIT);
    *files = rt->balance.files; /* set once at creation: no lock needed */
    return APO_OK;
}

apo_status apo_profile_entry_count(apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_profile_entry_count: NULL argument");
    pthread_mutex_lock(&rt->balance.mutex);
    apo__balance_sync_store(&rt->balance);
    *count = rt->balance.store.n_workloads;
    pthread_mutex_unlock(&rt->balance.mutex);
    return APO_OK;
}

static void fill_entry(const apo__balance *b, const apo__stored_workload *e,
                       apo_profile_entry *out) {
    size_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    snprintf(out->tag, sizeof out->tag, "%s", e->tag);
    out->source = e->origin == APO_ORIGIN_FORCED   ? APO_RATIOS_EXPLICIT
                  : e->origin == APO_ORIGIN_ONLINE ? APO_RATIOS_ONLINE
                                                   : APO_RATIOS_PROFILE;
    snprintf(out->updated_at, sizeof out->updated_at, "%s", e->updated_at);
    double t = apo__timestamp_parse(e->updated_at);
    out->age_s = t >= 0 ? (double)time(NULL) - t : NAN;
    out->sample_size = e->sample_size;
    out->runs = e->runs;
    out->stale = !apo__balance_entry_fits(b, e, out->stale_reason, sizeof out->stale_reason);
    out->n_devices = e->n_devices;
    for (size_t i = 0; i < e->n_devices; i++) {
        const apo__stored_device *s = &e->devices[i];
        apo_device_model *m = &out->devices[i];
        snprintf(m->id, sizeof m->id, "%s", s->id);
        snprintf(m->label, sizeof m->label, "%s", s->label);
        m->valid = isfinite(s->latency_ms) && isfinite(s->ms_per_melem);
        m->latency_ms = s->latency_ms;
        m->ms_per_melem = s->ms_per_melem;
        m->ratio = s->ratio;
        m->samples = s->samples;
    }
}

apo_status apo_profile_entry_get(apo_runtime *rt, size_t index, apo_profile_entry *entry) {
    if (rt == NULL || entry == NULL)
        return apo__fail(APO_ERR_NULL, "apo_profile_entry_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(entry, apo_profile_entry, APO_PROFILE_ENTRY_INIT);
    apo__balance *b = &rt->balance;
    pthread_mutex_lock(&b->mutex);
    apo__balance_sync_store(b);
    apo_status st = APO_OK;
    if (index >= b->store.n_workloads)
        st = apo__fail(APO_ERR_NOT_FOUND, "apo_profile_entry_get: index %zu, only %zu entries",
                       index, b->store.n_workloads);
    else
        fill_entry(b, &b->store.workloads[index], entry);
    pthread_mutex_unlock(&b->mutex);
    return st;
}

apo_status apo_threshold_count(apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_threshold_count: NULL argument");
    pthread_mutex_lock(&rt->balance.mutex);
    *count = rt->balance.thresholds.n;
    pthread_mutex_unlock(&rt->balance.mutex);
    return APO_OK;
}

apo_status apo_threshold_get(apo_runtime *rt, size_t index, apo_threshold_info *info) {
    if (rt == NULL || info == NULL)
        return apo__fail(APO_ERR_NULL, "apo_threshold_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(info, apo_threshold_info, APO_THRESHOLD_INFO_INIT);
    apo__balance *b = &rt->balance;
    pthread_mutex_lock(&b->mutex);
    apo_status st = APO_OK;
    if (index >= b->thresholds.n) {
        st = apo__fail(APO_ERR_NOT_FOUND, "apo_threshold_get: index %zu, only %zu entries", index,
                       b->thresholds.n);
    } else {
        const apo__threshold *e = &b->thresholds.entries[index];
        snprintf(info->key, sizeof info->key, "%s", e->key);
        info->cpu_ms_avg = e->cpu_ms_avg;
        info->gpu_ms_avg = e->gpu_ms_avg;
        info->samples = e->samples;
        info->simulated = e->simulated;
    }
    pthread_mutex_unlock(&b->mutex);
    return st;
}

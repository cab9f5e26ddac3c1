/* The public calls on streams (apportion.h, "Streams"): the registry's kernel found and the
 * arguments checked here, where the runtime is seen; the stream itself is streaming/'s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/params.h"
#include "catalog/registry.h"
#include "catalog/scored_kernels.h"
#include "catalog/volume_inputs.h"
#include "core/runtime.h"
#include "core/stream_devices.h"
#include "core/sweep.h"
#include "streaming/state_format.h"
#include "streaming/stream.h"
#include "streaming/stream_copy.h"
#include "streaming/stream_journal.h"
#include "streaming/stream_revise.h"
#include "streaming/stream_rule.h"

/* The registry's lookup, its reason prefixed with the call's name. */
static apo_status find_kernel(apo_runtime *rt, const char *name, const char *call,
                              const apo__kernel **k) {
    apo_status st = apo__registry_lookup(&rt->registry, name, k);
    if (st != APO_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", apo_last_error());
        return apo__fail(st, "%s: %s", call, why);
    }
    return APO_OK;
}

/* The scored kernel "<kernel>:<score>" of a rule's stream (docs/streaming.md, "Live rules"):
 * a built-in rule's, or a user's rule registered on the runtime, as a scored call finds it. */
static apo_status rule_kernel(apo_runtime *rt, const char *const *names, const char *call,
                              const apo__kernel **k);

/* The kernel and resolved parameters of a description. */
static apo_status resolve_desc(apo_runtime *rt, const apo_stream_desc *desc, const char *call,
                               const apo__kernel **kernel, double *params) {
    APO_CHECK_STRUCT_SIZE(desc, apo_stream_desc, APO_STREAM_DESC_INIT);
    if (desc->kernel == NULL)
        return apo__fail(APO_ERR_NULL, "%s: desc->kernel is NULL", call);
    if (desc->n_series < 1 || desc->n_series > APO_STREAM_MAX_SERIES)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: n_series is %zu, not 1 to %zu", call,
                         desc->n_series, APO_STREAM_MAX_SERIES);
    const apo__kernel *k = NULL;
    if (desc->score != NULL)
        APO_CHECK(rule_kernel(rt, (const char *const[]){desc->kernel, desc->score}, call, &k));
    else
        APO_CHECK(find_kernel(rt, desc->kernel, call, &k));
    memset(params, 0, APO_MAX_PARAMS * sizeof *params);
    APO_CHECK(apo__resolve_params(k, desc->params, desc->n_params, params));
    if (desc->score != NULL && k->validate != NULL && desc->sweep == NULL) {
        char err[256];
        const apo_status st = k->validate(k, params, 1, 1, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "%s: %s", call, err);
    }
    *kernel = k;
    return APO_OK;
}

static apo_status rule_kernel(apo_runtime *rt, const char *const *names, const char *call,
                              const apo__kernel **k) {
    char name[2 * APO_NAME_MAX + 2];
    snprintf(name, sizeof name, "%s:%s", names[0], names[1]);
    APO_CHECK(find_kernel(rt, name, call, k));
    if ((*k)->scoring == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: %s is not a rule", call, name);
    return APO_OK;
}

/* A large series length, for the sets' own checks: a stream's series have no length yet. */
#define APO_STREAM_ANY_COLS ((size_t)1 << 40)

/* The resolved parameters of the sets desc->sweep runs, each checked as a sweep's set is
 * (core/sweep.h), the reason prefixed with the call's name. */
static apo_status sweep_params(const apo__kernel *k, const apo_stream_desc *desc, const char *call,
                               size_t *n_sets, double **params) {
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = k->name;
    w.rows = 1;
    w.cols = APO_STREAM_ANY_COLS;
    w.params = desc->params;
    w.n_params = desc->n_params;
    w.sweep = desc->sweep;
    apo_status st = apo__sweep_set_params(&w, k, n_sets, params);
    if (st != APO_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", apo_last_error());
        return apo__fail(st, "%s: %s", call, why);
    }
    return APO_OK;
}

/* Hands the stream (and a sweep's every set) the runtime whose devices take its large
 * updates, how large they must be, and the vector path of the runtime's host devices. */
static void attach_devices(apo_runtime *rt, const apo_stream_desc *desc, apo_stream *s) {
    /* 0 (the default) hands large updates over only where the runtime has a device besides
     * the cpu: with the cpu alone, the calling thread computes them about as fast
     * (docs/perf-log/2026-11-23-stream-updates.md, "Stream updates") without the batch call's
     * copies and fresh buffers. */
    const size_t bars = desc != NULL && desc->device_bars != 0 ? desc->device_bars
                        : apo__stream_runtime_has_others(rt)   ? APO_STREAM_DEVICE_BARS_DEFAULT
                                                               : SIZE_MAX;
    if (s->rule != NULL) { /* its bars go through the indicator's stream */
        attach_devices(rt, desc, s->rule->inner);
        s->rt = rt;
        return;
    }
    for (size_t j = 0; j <= s->n_sets; j++) {
        apo_stream *one = j < s->n_sets ? s->sets[j] : s;
        one->rt = rt;
        one->device_bars = bars;
        one->cpu_isa = rt->host_isa;
        one->cpu_isa_named = rt->host_isa_named;
        one->batch = apo__stream_on_devices;
    }
}

/* The indicator's stream of a rule's sets (n_sets x APO_MAX_PARAMS scored-kernel parameters):
 * each set's own parameters, the indicator's first, as a stream of it alone. */
static apo_status rule_inner(const apo__kernel *k, const double *set_params, size_t n_sets,
                             const apo_stream_desc *desc, apo_stream **inner) {
    const apo__kernel *ind = k->scoring->indicator;
    apo_stream **sets = calloc(n_sets, sizeof *sets);
    apo_status st = sets == NULL ? apo__fail(APO_ERR_OUT_OF_MEMORY,
                                             "apo_stream_create: no memory for %zu sets", n_sets)
                                 : APO_OK;
    for (size_t j = 0; j < n_sets && st == APO_OK; j++) {
        double p[APO_MAX_PARAMS] = {0};
        memcpy(p, set_params + j * APO_MAX_PARAMS, ind->n_params * sizeof *p);
        st = apo__stream_check_kernel(ind, p);
        if (st == APO_OK)
            st = apo__stream_new(ind, p, desc->n_series, desc->seed, desc->revise_bars, &sets[j]);
    }
    if (st != APO_OK) {
        apo__stream_free_sets(sets, n_sets);
        return st;
    }
    if (n_sets == 1) {
        *inner = sets[0];
        free(sets);
        return APO_OK;
    }
    return apo__stream_sweep_of(sets, n_sets, inner);
}

/* A rule's stream (desc->score): its scored kernel k and, without a sweep, its resolved
 * parameters. */
static apo_status create_rule(const apo__kernel *k, const apo_stream_desc *desc,
                              const double *params, apo_stream **out) {
    APO_CHECK(apo__stream_check_revise(desc->revise_bars, "apo_stream_create"));
    size_t n_sets = 1;
    double *set_params = NULL;
    if (desc->sweep != NULL)
        APO_CHECK(sweep_params(k, desc, "apo_stream_create", &n_sets, &set_params));
    const double *p = desc->sweep != NULL ? set_params : params;
    apo_stream *inner = NULL;
    apo_status st = rule_inner(k, p, n_sets, desc, &inner);
    if (st == APO_OK)
        st = apo__stream_rule_new(k, p, n_sets, desc->revise_bars, inner, out);
    free(set_params);
    return st;
}

static apo_status create(apo_runtime *rt, const apo_stream_desc *desc, apo_stream **out) {
    const apo__kernel *k = NULL;
    double params[APO_MAX_PARAMS];
    APO_CHECK(resolve_desc(rt, desc, "apo_stream_create", &k, params));
    if (desc->score != NULL)
        return create_rule(k, desc, params, out);
    APO_CHECK(apo__stream_check_kernel(k, params));
    APO_CHECK(apo__stream_check_revise(desc->revise_bars, "apo_stream_create"));
    if (desc->sweep == NULL)
        return apo__stream_new(k, params, desc->n_series, desc->seed, desc->revise_bars, out);
    size_t n_sets = 0;
    double *set_params = NULL;
    APO_CHECK(sweep_params(k, desc, "apo_stream_create", &n_sets, &set_params));
    /* A stream of one set per set run, each as apo_stream_create would make it alone. */
    apo_stream **sets = calloc(n_sets, sizeof *sets);
    apo_status st = sets == NULL ? apo__fail(APO_ERR_OUT_OF_MEMORY,
                                             "apo_stream_create: no memory for %zu sets", n_sets)
                                 : APO_OK;
    for (size_t j = 0; j < n_sets && st == APO_OK; j++) {
        st = apo__stream_check_kernel(k, set_params + j * APO_MAX_PARAMS);
        if (st == APO_OK)
            st = apo__stream_new(k, set_params + j * APO_MAX_PARAMS, desc->n_series, desc->seed,
                                 desc->revise_bars, &sets[j]);
    }
    free(set_params);
    if (st != APO_OK) {
        apo__stream_free_sets(sets, n_sets);
        return st;
    }
    return apo__stream_sweep_of(sets, n_sets, out);
}

apo_status apo_stream_create(apo_runtime *rt, const apo_stream_desc *desc, apo_stream **out) {
    if (rt == NULL || desc == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_create: NULL argument");
    *out = NULL;
    APO_CHECK(create(rt, desc, out));
    attach_devices(rt, desc, *out);
    return APO_OK;
}

/* The checks of an update's arguments (apo_stream_update, apo_stream_peek, named `call`),
 * *total the new bars of all series; nothing is changed by them. */
static apo_status check_update(const apo_stream *s, const size_t *n_new,
                               const double *const *inputs, double *const *outputs,
                               const char *call, size_t *total) {
    if (s == NULL || n_new == NULL)
        return apo__fail(APO_ERR_NULL, "%s: NULL argument", call);
    if (s->broken)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "%s: an earlier update failed part way, so the series may disagree on "
                         "where they are; load a saved state or start again",
                         call);
    *total = 0;
    for (size_t r = 0; r < s->n_series; r++) {
        if (n_new[r] > SIZE_MAX / sizeof(double) - *total)
            return apo__fail(APO_ERR_OVERFLOW, "%s: the new bars overflow size_t", call);
        *total += n_new[r];
    }
    if (*total == 0)
        return APO_OK;
    if (inputs == NULL || outputs == NULL)
        return apo__fail(APO_ERR_NULL, "%s: %zu new bars but %s is NULL", call, *total,
                         inputs == NULL ? "inputs" : "outputs");
    const apo__kernel *k = s->kernel;
    for (size_t i = 0; i < k->n_inputs; i++)
        if (inputs[i] == NULL)
            return apo__fail(APO_ERR_NULL, "%s: input %zu (%s) is NULL", call, i,
                             k->input_names[i]);
    /* A rule's stream writes its outputs but the position where they are given (its output 0,
     * APO_LIVE_POSITION, not its scored kernel's first score). */
    for (size_t o = 0; o < (s->rule != NULL ? 1 : k->n_outputs); o++)
        if (outputs[o] == NULL)
            return apo__fail(APO_ERR_NULL, "%s: output %zu (%s) is NULL", call, o,
                             s->rule != NULL ? "position" : k->output_names[o]);
    return apo__check_volumes(k, inputs, s->n_series, 0, n_new, 0, call, "series");
}

/* An update, or with `peek` its outputs with the stream left as it was: a rule's stream
 * through its fold, any other through its kernel. */
static apo_status feed_call(apo_stream *s, const size_t *n_new, const double *const *inputs,
                            double *const *outputs, int peek, const char *call) {
    size_t total = 0;
    APO_CHECK(check_update(s, n_new, inputs, outputs, call, &total));
    if (total == 0)
        return APO_OK;
    if (s->rule != NULL)
        return apo__stream_rule_feed(s, n_new, total, inputs, outputs, peek);
    return apo__stream_feed(s, n_new, total, inputs, outputs, peek);
}

apo_status apo_stream_update(apo_stream *s, const size_t *n_new, const double *const *inputs,
                             double *const *outputs) {
    return feed_call(s, n_new, inputs, outputs, 0, "apo_stream_update");
}

apo_status apo_stream_peek(apo_stream *s, const size_t *n_new, const double *const *inputs,
                           double *const *outputs) {
    return feed_call(s, n_new, inputs, outputs, 1, "apo_stream_peek");
}

apo_status apo_stream_revise(apo_stream *s, const size_t *k, const double *const *inputs,
                             double *const *outputs) {
    size_t total = 0;
    APO_CHECK(check_update(s, k, inputs, outputs, "apo_stream_revise", &total));
    if (total == 0)
        return APO_OK;
    if (s->rule != NULL)
        return apo__stream_rule_revise(s, k, total, inputs, outputs);
    return apo__stream_revise(s, k, total, inputs, outputs);
}

apo_status apo_stream_resume_needs(apo_runtime *rt, const apo_stream_desc *desc, uint64_t bars,
                                   size_t *needed) {
    if (rt == NULL || desc == NULL || needed == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_resume_needs: NULL argument");
    apo_stream *s = NULL;
    APO_CHECK(create(rt, desc, &s));
    /* A rule's stream needs its indicator's bars: its folds begin after them. */
    const apo_stream *ind = apo__stream_fed(s);
    apo_status st = APO_OK;
    if (apo__stream_carry_len(ind->kernel) > 0)
        st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                       "apo_stream_resume_needs: %s carries its running sum from the series' "
                       "first bar, which no window of bars holds; a stream of it cannot resume",
                       ind->kernel->name);
    else
        *needed = apo__stream_resume_needs(ind, bars);
    apo__stream_rule_destroy(s);
    return st;
}

apo_status apo_stream_resume(apo_runtime *rt, const apo_stream_desc *desc, const uint64_t *first,
                             const size_t *n_bars, const double *const *inputs, apo_stream **out) {
    if (rt == NULL || desc == NULL || first == NULL || n_bars == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_resume: NULL argument");
    *out = NULL;
    apo_stream *s = NULL;
    APO_CHECK(create(rt, desc, &s));
    /* The given bars are checked as an update's would be (NULL arrays, negative volumes),
     * outputs aside: a resume writes none. */
    size_t total = 0;
    double *none[APO_MAX_IO] = {0};
    double dummy = 0.0;
    for (size_t o = 0; o < s->kernel->n_outputs; o++)
        none[o] = &dummy;
    apo_status st = check_update(s, n_bars, inputs, none, "apo_stream_resume", &total);
    /* A rule's stream: its indicator's stream resumed, then each fold begun, flat, at the bar
     * after the history (docs/streaming.md, "Live rules": the batch's range from there). */
    if (st == APO_OK)
        st = apo__stream_resume_fill(apo__stream_fed(s), first, n_bars, inputs);
    if (st == APO_OK && s->rule != NULL)
        apo__stream_rule_begin_at_history(s);
    if (st != APO_OK) {
        apo__stream_rule_destroy(s);
        return st;
    }
    attach_devices(rt, desc, s);
    *out = s;
    return APO_OK;
}

apo_status apo_stream_fork(const apo_stream *s, apo_stream **out) {
    if (s == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_fork: NULL argument");
    *out = NULL;
    if (s->broken)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_fork: an earlier update failed part way; the state is not "
                         "one a stream can go on from");
    if (s->rule != NULL)
        return apo__stream_rule_copy(s, out);
    return apo__stream_copy(s, out);
}

apo_status apo_stream_bars(const apo_stream *s, size_t series, uint64_t *bars) {
    if (s == NULL || bars == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_bars: NULL argument");
    if (series >= s->n_series)
        return apo__fail(APO_ERR_NOT_FOUND, "apo_stream_bars: series %zu of %zu", series,
                         s->n_series);
    const apo_stream *one = apo__stream_fed(s);
    *bars = apo__stream_set(one, 0)->series[series].n;
    return APO_OK;
}

apo_status apo_stream_save(const apo_stream *s, void *buf, size_t cap, size_t *needed) {
    if (s == NULL || needed == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_save: NULL argument");
    if (s->broken)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_save: an earlier update failed in the kernel; the state "
                         "is not one a stream can go on from");
    *needed = s->rule != NULL ? apo__stream_rule_state_len(s) : apo__stream_state_len(s);
    if (buf == NULL)
        return APO_OK;
    if (cap < *needed)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_save: the state needs %zu bytes, the buffer holds %zu",
                         *needed, cap);
    if (s->rule != NULL)
        apo__stream_rule_state_write(s, buf);
    else
        apo__stream_state_write(s, buf);
    return APO_OK;
}

/* Whether a loaded state (of one set) is of kernel k with `params` and the series, seed and
 * revise_bars of `expect`; fails saying how it is not. */
static apo_status check_head(const apo__kernel *k, const double *params,
                             const apo_stream_desc *expect, const apo__stream_head *head) {
    if (strcmp(k->name, head->kernel) != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the state is of kernel %s, not %s", head->kernel,
                         k->name);
    for (size_t p = 0; p < k->n_params; p++)
        if (p >= head->n_params || params[p] != head->params[p])
            return apo__fail(
                APO_ERR_INVALID_ARGUMENT, "apo_stream_load: the state's %s has %s = %g, not %g",
                k->name, k->params[p].name, p < head->n_params ? head->params[p] : 0.0, params[p]);
    if (head->n_series != expect->n_series)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the state has %llu series, not %zu",
                         (unsigned long long)head->n_series, expect->n_series);
    if (head->seed != expect->seed)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the state's seed is %llu, not %llu",
                         (unsigned long long)head->seed, (unsigned long long)expect->seed);
    if (head->revise != expect->revise_bars)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the state keeps %llu bars for revises, not %zu "
                         "(revise_bars)",
                         (unsigned long long)head->revise, expect->revise_bars);
    return APO_OK;
}

/* Whether a loaded state of one set is the stream `expect` describes. */
static apo_status check_expected(apo_runtime *rt, const apo_stream_desc *expect,
                                 const apo__stream_head *head) {
    const apo__kernel *k = NULL;
    double params[APO_MAX_PARAMS];
    APO_CHECK(resolve_desc(rt, expect, "apo_stream_load", &k, params));
    if (expect->sweep != NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the state is of one parameter set, not of a sweep");
    return check_head(k, params, expect, head);
}

/* The sets of a sweep's state (docs/streaming.md, "Sweeps"): every set read and checked,
 * against `expect`'s sets when given, before any is built. */
static apo_status load_sweep(apo_runtime *rt, const apo_stream_desc *expect, const void *buf,
                             size_t len, apo_stream **out) {
    const unsigned char *b = buf;
    size_t n = 0, *off = NULL;
    APO_CHECK(apo__stream_sweep_state_read(buf, len, &n, &off));
    apo__stream_head *heads = malloc(n * sizeof *heads);
    apo_stream **sets = calloc(n, sizeof *sets);
    double *want = NULL;
    apo_status st =
        heads == NULL || sets == NULL
            ? apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_load: no memory for %zu sets", n)
            : APO_OK;
    for (size_t j = 0; j < n && st == APO_OK; j++) {
        st = apo__stream_state_read(b + off[j], off[j + 1] - off[j], &heads[j]);
        if (st == APO_OK &&
            (strcmp(heads[j].kernel, heads[0].kernel) != 0 ||
             heads[j].n_series != heads[0].n_series || heads[j].seed != heads[0].seed))
            st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                           "apo_stream_load: the sweep's set %zu is not of set 0's kernel, "
                           "series and seed",
                           j);
    }
    const apo__kernel *k = NULL;
    if (st == APO_OK && expect != NULL) {
        double params[APO_MAX_PARAMS];
        size_t n_want = 0;
        st = resolve_desc(rt, expect, "apo_stream_load", &k, params);
        if (st == APO_OK && expect->sweep == NULL)
            st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                           "apo_stream_load: the state is of a sweep of %zu sets, not of one set",
                           n);
        if (st == APO_OK)
            st = sweep_params(k, expect, "apo_stream_load", &n_want, &want);
        if (st == APO_OK && n_want != n)
            st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                           "apo_stream_load: the state's sweep has %zu sets, not %zu", n, n_want);
        for (size_t j = 0; j < n && st == APO_OK; j++)
            st = check_head(k, want + j * APO_MAX_PARAMS, expect, &heads[j]);
    }
    if (st == APO_OK)
        st = find_kernel(rt, heads[0].kernel, "apo_stream_load", &k);
    for (size_t j = 0; j < n && st == APO_OK; j++)
        st = apo__stream_state_restore(&heads[j], b + off[j], k, &sets[j]);
    free(want);
    free(heads);
    free(off);
    if (st != APO_OK) {
        apo__stream_free_sets(sets, n);
        return st;
    }
    return apo__stream_sweep_of(sets, n, out);
}

static apo_status load_rule(apo_runtime *rt, const apo_stream_desc *expect, const void *buf,
                            size_t len, apo_stream **out);

static apo_status load(apo_runtime *rt, const apo_stream_desc *expect, const void *buf, size_t len,
                       apo_stream **out) {
    if (apo__stream_rule_state_is(buf, len))
        return load_rule(rt, expect, buf, len, out);
    if (apo__stream_state_is_sweep(buf, len))
        return load_sweep(rt, expect, buf, len, out);
    apo__stream_head head;
    APO_CHECK(apo__stream_state_read(buf, len, &head));
    if (expect != NULL)
        APO_CHECK(check_expected(rt, expect, &head));
    const apo__kernel *k = NULL;
    APO_CHECK(find_kernel(rt, head.kernel, "apo_stream_load", &k));
    return apo__stream_state_restore(&head, buf, k, out);
}

/* Whether set j's scored-kernel parameters (of a rule's state) are within k's bounds and
 * checks, as a stream created with them would have been. */
static apo_status check_rule_params(const apo__kernel *k, const double *params, size_t j) {
    apo_param named[APO_MAX_PARAMS];
    double resolved[APO_MAX_PARAMS];
    for (size_t p = 0; p < k->n_params; p++)
        named[p] = (apo_param){k->params[p].name, params[p]};
    apo_status st = apo__resolve_params(k, named, k->n_params, resolved);
    char err[256] = "";
    if (st == APO_OK && k->validate != NULL)
        st = k->validate(k, resolved, 1, 1, err, sizeof err);
    if (st != APO_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", err[0] ? err : apo_last_error());
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_stream_load: the rule's set %zu: %s", j,
                         why);
    }
    return APO_OK;
}

/* Whether a rule's state (its scored kernel k, sets' parameters in h) is the stream expect
 * describes, and its indicator's stream the one its sets need. */
static apo_status check_rule(apo_runtime *rt, const apo_stream_desc *expect, const apo__kernel *k,
                             const apo__stream_rule_head *h, const apo_stream *inner) {
    const apo__kernel *ind = k->scoring->indicator;
    const size_t inner_sets = inner->n_sets > 0 ? inner->n_sets : 1;
    if (inner->rule != NULL || inner->kernel != ind || inner->n_series != h->n_series ||
        inner_sets != h->n_sets)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule's indicator state is not of %s, %zu series "
                         "and %zu sets",
                         ind->name, h->n_series, h->n_sets);
    const size_t inner_revise = apo__stream_set(inner, 0)->revise;
    if (inner_revise != h->revise || (h->revise > 0 && h->slot != apo__stream_rule_slot(k)))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the rule keeps %zu bars of %zu doubles for revises, "
                         "its indicator state %zu bars of %s's %zu outputs",
                         h->revise, h->slot, inner_revise, ind->name, ind->n_outputs);
    for (size_t j = 0; j < h->n_sets; j++) {
        APO_CHECK(check_rule_params(k, h->params + j * APO_MAX_PARAMS, j));
        const apo_stream *one = apo__stream_set(inner, j);
        for (size_t p = 0; p < ind->n_params; p++)
            if (one->params[p] != h->params[j * APO_MAX_PARAMS + p])
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "apo_stream_load: the rule's set %zu and its indicator state "
                                 "differ in %s",
                                 j, ind->params[p].name);
    }
    for (size_t r = 0; h->origin != NULL && r < h->n_series; r++)
        if (h->origin[r] > apo__stream_set(inner, 0)->series[r].n)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_load: the rule's fold of series %zu begins at bar %llu, "
                             "after its indicator state's %llu bars",
                             r, (unsigned long long)h->origin[r],
                             (unsigned long long)apo__stream_set(inner, 0)->series[r].n);
    if (expect == NULL)
        return APO_OK;
    if (expect->score == NULL)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_load: the state is of the rule %s, but expect names none",
                         k->name);
    const apo__kernel *want = NULL;
    double params[APO_MAX_PARAMS];
    APO_CHECK(resolve_desc(rt, expect, "apo_stream_load", &want, params));
    size_t n_want = 1;
    double *sets = NULL;
    if (expect->sweep != NULL)
        APO_CHECK(sweep_params(want, expect, "apo_stream_load", &n_want, &sets));
    const double *wp = sets != NULL ? sets : params;
    apo_status st = APO_OK;
    if (want != k)
        st = apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_stream_load: the state is of %s, not %s",
                       k->name, want->name);
    else if (expect->revise_bars != h->revise)
        st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                       "apo_stream_load: the state keeps %zu bars for revises, not %zu "
                       "(revise_bars)",
                       h->revise, expect->revise_bars);
    else if (n_want != h->n_sets || expect->n_series != h->n_series || expect->seed != inner->seed)
        st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                       "apo_stream_load: the state has %zu sets, %zu series and seed %llu; expect "
                       "%zu, %zu and %llu",
                       h->n_sets, h->n_series, (unsigned long long)inner->seed, n_want,
                       expect->n_series, (unsigned long long)expect->seed);
    for (size_t j = 0; j < n_want && st == APO_OK; j++)
        for (size_t p = 0; p < k->n_params && st == APO_OK; p++)
            if (wp[j * APO_MAX_PARAMS + p] != h->params[j * APO_MAX_PARAMS + p])
                st = apo__fail(APO_ERR_INVALID_ARGUMENT,
                               "apo_stream_load: the state's set %zu has %s = %g, not %g", j,
                               k->params[p].name, h->params[j * APO_MAX_PARAMS + p],
                               wp[j * APO_MAX_PARAMS + p]);
    free(sets);
    return st;
}

/* A rule's state (docs/streaming.md, "A rule's state"): the container and its indicator's
 * state checked whole, and against expect, before the stream is built. */
static apo_status load_rule(apo_runtime *rt, const apo_stream_desc *expect, const void *buf,
                            size_t len, apo_stream **out) {
    apo__stream_rule_head h;
    APO_CHECK(apo__stream_rule_state_read(buf, len, &h));
    const apo__kernel *k = NULL;
    apo_stream *inner = NULL;
    const char *colon = strchr(h.scored, ':');
    char ind_name[APO_NAME_MAX];
    snprintf(ind_name, sizeof ind_name, "%.*s", colon != NULL ? (int)(colon - h.scored) : 0,
             h.scored);
    apo_status st =
        colon == NULL
            ? apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_stream_load: %s names no rule", h.scored)
            : rule_kernel(rt, (const char *const[]){ind_name, colon + 1}, "apo_stream_load", &k);
    if (st == APO_OK)
        st = load(rt, NULL, (const unsigned char *)buf + h.inner_at, h.inner_len, &inner);
    if (st == APO_OK)
        st = check_rule(rt, expect, k, &h, inner);
    if (st == APO_OK && k->scoring->user_fn != NULL)
        st = apo__stream_rule_check_kept(buf, &h);
    if (st == APO_OK) {
        st = apo__stream_rule_new(k, h.params, h.n_sets, h.revise, inner, out);
        inner = NULL; /* taken, also on failure */
    }
    if (st == APO_OK)
        apo__stream_rule_state_restore(*out, buf, &h);
    apo__stream_rule_destroy(inner);
    free(h.params);
    free(h.origin);
    return st;
}

apo_status apo_stream_load(apo_runtime *rt, const apo_stream_desc *expect, const void *buf,
                           size_t len, apo_stream **out) {
    if (rt == NULL || buf == NULL || out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_stream_load: NULL argument");
    *out = NULL;
    APO_CHECK(load(rt, expect, buf, len, out));
    attach_devices(rt, expect, *out);
    return APO_OK;
}

void apo_stream_destroy(apo_stream *s) { apo__stream_rule_destroy(s); }

/*
 * Balancing state of a runtime: its tags, which models and ratios apply to a call, and how
 * calls refine them; see balance_state.h and docs/scheduling.md. The state's life and its
 * profile files are balance_files.c.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance/balance_state.h"
#include "balance/solver.h"
#include "base/clock.h"

/* Tags a runtime keeps models for; calls with further tags run equal and do not learn. */
#define APO_TAGS_MAX 4096

/* ---- the tags ---------------------------------------------------------------------------- */

apo__tag_state *apo__balance_find_tag(apo__balance *b, const char *tag) {
    for (size_t i = 0; i < b->n_tags; i++)
        if (strcmp(b->tags[i].tag, tag) == 0)
            return &b->tags[i];
    return NULL;
}

apo__tag_state *apo__balance_get_tag(apo__balance *b, const char *tag) {
    apo__tag_state *ts = apo__balance_find_tag(b, tag);
    if (ts != NULL)
        return ts;
    if (b->n_tags == APO_TAGS_MAX)
        return NULL;
    if (b->n_tags == b->cap_tags) {
        size_t cap = b->cap_tags ? 2 * b->cap_tags : 8;
        apo__tag_state *grown = realloc(b->tags, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        b->tags = grown;
        b->cap_tags = cap;
    }
    ts = &b->tags[b->n_tags++];
    memset(ts, 0, sizeof *ts);
    snprintf(ts->tag, sizeof ts->tag, "%s", tag);
    return ts;
}

/* ---- shares ----------------------------------------------------------------------------- */

/* Models for every device: a device without one yet (it has not worked) borrows the
 * median cost of those that have, so that it gets work and is measured. Returns how many
 * devices had their own model. */
static size_t complete_models(const apo__balance *b, const apo__tag_state *ts, apo__model *models) {
    double costs[APO_MAX_DEVICES];
    size_t known = 0;
    for (size_t d = 0; d < b->n_devices; d++) {
        models[d] = ts->models[d];
        if (ts->models[d].valid)
            costs[known++] = ts->models[d].cost_s;
    }
    if (known == 0 || known == b->n_devices)
        return known;
    for (size_t i = 1; i < known; i++) /* insertion sort: at most 64 values */
        for (size_t j = i; j > 0 && costs[j - 1] > costs[j]; j--) {
            double t = costs[j];
            costs[j] = costs[j - 1];
            costs[j - 1] = t;
        }
    double median = costs[known / 2];
    for (size_t d = 0; d < b->n_devices; d++)
        if (!models[d].valid)
            models[d] = (apo__model){.valid = 1, .latency_s = 0, .cost_s = median, .borrowed = 1};
    return known;
}

static void normalised(const double *ratios, size_t n, double *shares) {
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += ratios[i];
    for (size_t i = 0; i < n; i++)
        shares[i] = ratios[i] / sum;
}

/* The models a call shaped as `shape` is planned with: complete_models(), except that a
 * device on its cold start (shape->cold) takes its cold model where it has one beside its
 * warm model and the cold one predicts the call slower: cold starts are slower, and a cold
 * model that is faster says the warm one is stale, which the cold observations correct
 * (apo__balance_observe). Returns complete_models()'s count. */
static size_t planned_models(const apo__balance *b, const apo__tag_state *ts,
                             const apo__shape *shape, apo__model *models) {
    const size_t known = complete_models(b, ts, models);
    for (size_t d = 0; d < b->n_devices; d++)
        if (shape->cold[d] && ts->cold_models[d].valid && ts->models[d].valid &&
            apo__model_predict(&ts->cold_models[d], shape->elements) >
                apo__model_predict(&ts->models[d], shape->elements))
            models[d] = ts->cold_models[d];
    return known;
}

/* Marks the devices a due probe may be for; see apo__balance_shares(). */
static void mark_probes(const apo__balance *b, const apo__tag_state *ts, const int *usable,
                        const apo__shape *shape, const apo__config_choice *chosen,
                        const double *shares, unsigned *probe) {
    if (ts->calls_since_probe < APO_PROBE_EVERY)
        return;
    /* A device that runs alone s times faster than beside the others (a cpu on every core)
     * loses that to any probe of another device: such a probe is made only for a device that
     * could win. Beside it the lone device takes s times its time T, so a split with device d
     * (G alone) beats T only where 1 / (s T) + 1 / G > 1 / T, G < T s / (s - 1); with slack
     * for a model that is off. */
    size_t lone = b->n_devices, given = 0; /* the guard's device alone, or the split's only one */
    for (size_t d = 0; d < b->n_devices; d++)
        if (shares[d] > 0) {
            lone = d;
            given++;
        }
    double probe_limit = INFINITY;
    if (given == 1 && shape->alone_speedup[lone] > 1) {
        const double sp = shape->alone_speedup[lone];
        probe_limit = APO_PROBE_MODEL_SLACK * chosen->predicted_s * sp / (sp - 1);
    }
    for (size_t d = 0; d < b->n_devices; d++)
        if (usable[d] && ts->models[d].valid && chosen->alone_s[d] <= probe_limit)
            probe[d] = ts->idle_calls[d] < UINT_MAX ? ts->idle_calls[d] + 1 : UINT_MAX;
}

void apo__balance_shares(apo__balance *b, const char *tag, const int *usable,
                         const apo__shape *shape, int explore, double *shares, unsigned *probe,
                         apo_ratio_source *source, double *predicted_s,
                         apo__config_choice *choice) {
    pthread_mutex_lock(&b->mutex);
    *predicted_s = NAN;
    apo__config_choice chosen;
    chosen.alone = chosen.unmeasured_alone = -1;
    chosen.config_probe = 0;
    chosen.predicted_s = chosen.split_s = NAN;
    explore = explore && b->learn;
    if (probe != NULL)
        memset(probe, 0, b->n_devices * sizeof *probe);
    /* A learning call is counted before its tag has anything: observing it adds the tag. */
    apo__tag_state *ts = explore ? apo__balance_get_tag(b, tag) : apo__balance_find_tag(b, tag);
    if (ts != NULL && explore && ts->calls_since_probe < UINT_MAX)
        ts->calls_since_probe++;
    apo__model models[APO_MAX_DEVICES];
    if (ts != NULL && ts->forced) {
        normalised(ts->ratios, b->n_devices, shares);
        *source = APO_RATIOS_EXPLICIT;
    } else if (ts != NULL && planned_models(b, ts, shape, models) > 0 &&
               apo__choose_configuration(models, ts->alone_models, ts->configs, ts->config_age,
                                         usable, b->n_devices, shape, shares, &chosen) == APO_OK) {
        *predicted_s = chosen.predicted_s;
        *source = ts->from_profile && !ts->refined ? APO_RATIOS_PROFILE : APO_RATIOS_ONLINE;
        if (explore && ts->calls_since_probe >= APO_PROBE_EVERY && chosen.unmeasured_alone >= 0) {
            /* A configuration probe: this call runs the best device alone, so that the guard
             * can set its measured makespan against the split's (configurations.h). */
            const size_t d = (size_t)chosen.unmeasured_alone;
            for (size_t i = 0; i < b->n_devices; i++)
                shares[i] = i == d ? 1.0 : 0.0;
            chosen.alone = (int)d;
            chosen.config_probe = 1;
            chosen.predicted_s = *predicted_s = chosen.alone_s[d];
            ts->calls_since_probe = 0;
        } else if (explore) {
            mark_probes(b, ts, usable, shape, &chosen, shares, probe);
        }
    } else if (ts != NULL && ts->has_ratios) {
        normalised(ts->ratios, b->n_devices, shares);
        *source = APO_RATIOS_PROFILE;
    } else {
        for (size_t d = 0; d < b->n_devices; d++)
            shares[d] = 1.0 / (double)b->n_devices;
        *source = APO_RATIOS_EQUAL;
    }
    if (choice != NULL)
        *choice = chosen;
    pthread_mutex_unlock(&b->mutex);
}

void apo__balance_observe_configuration(apo__balance *b, const char *tag, int config,
                                        double elements, double makespan_s) {
    if (config < 0 || config >= (int)APO_CONFIGS || !(elements > 0) || !(makespan_s > 0))
        return;
    pthread_mutex_lock(&b->mutex);
    apo__tag_state *ts = apo__balance_find_tag(b, tag);
    if (ts != NULL) {
        apo__model_observe(&ts->configs[config], elements, makespan_s);
        ts->config_age[config] = 0;
        ts->dirty = 1;
        ts->version++;
    }
    pthread_mutex_unlock(&b->mutex);
}

size_t apo__balance_split_shares(apo__balance *b, const char *tag, const int *usable,
                                 const apo__shape *shape, double *shares) {
    size_t given = 0;
    pthread_mutex_lock(&b->mutex);
    const apo__tag_state *ts = apo__balance_find_tag(b, tag);
    apo__model models[APO_MAX_DEVICES];
    if (ts != NULL && complete_models(b, ts, models) > 0 &&
        !isnan(apo__split_configuration(models, usable, b->n_devices, shape, shares)))
        for (size_t d = 0; d < b->n_devices; d++)
            given += shares[d] > 0;
    pthread_mutex_unlock(&b->mutex);
    return given;
}

void apo__balance_probed(apo__balance *b, const char *tag) {
    pthread_mutex_lock(&b->mutex);
    apo__tag_state *ts = apo__balance_find_tag(b, tag);
    if (ts != NULL)
        ts->calls_since_probe = 0;
    pthread_mutex_unlock(&b->mutex);
}

double apo__balance_predict(apo__balance *b, const char *tag, size_t d, double elements) {
    double predicted = NAN;
    pthread_mutex_lock(&b->mutex);
    const apo__tag_state *ts = apo__balance_find_tag(b, tag);
    apo__model models[APO_MAX_DEVICES];
    if (ts != NULL && d < b->n_devices && complete_models(b, ts, models) > 0 && models[d].valid)
        predicted = apo__model_predict(&models[d], elements);
    pthread_mutex_unlock(&b->mutex);
    return predicted;
}

/* ---- learning ----------------------------------------------------------------------------- */

/* Whether an observation of a cold start (n elements in t seconds) is to be left out of
 * model m: m knows better, and t is slower than it predicts, but not grossly (a device that
 * became that much slower is believed, apo__balance_observe()). */
static int cold_start_left_out(const apo__model *m, double n, double t) {
    if (!m->valid)
        return 0;
    const double predicted = apo__model_predict(m, n);
    return t > predicted && t < APO_MODEL_GROSS_FACTOR * predicted;
}

void apo__balance_observe(apo__balance *b, const char *tag, const apo__call_outcome_times *o) {
    if (!b->learn)
        return;
    pthread_mutex_lock(&b->mutex);
    apo__tag_state *ts = apo__balance_get_tag(b, tag);
    if (ts != NULL) {
        const double total_elements = o->total_elements;
        for (size_t d = 0; d < b->n_devices; d++) {
            if (o->elements[d] > 0 && !o->failed[d]) {
                const double n = (double)o->elements[d];
                const int alone = o->alone != NULL && o->alone[d];
                apo__model *m = alone ? &ts->alone_models[d] : &ts->models[d];
                /* A cold start is the cold model's; the warm one keeps warm speed. */
                const int first = o->cold != NULL && o->cold[d];
                if (first)
                    apo__model_observe(&ts->cold_models[d], n, o->busy_s[d]);
                const int cold = first && cold_start_left_out(m, n, o->busy_s[d]);
                if (!cold && (alone || ts->idle_calls[d] < APO_GAP_CALLS))
                    apo__model_observe(m, n, o->busy_s[d]);
                else if (!cold)
                    apo__model_observe_after_gap(m, n, o->busy_s[d]);
                ts->idle_calls[d] = 0;
            } else if (ts->idle_calls[d] < UINT_MAX) {
                ts->idle_calls[d]++;
            }
        }
        int any_cold = 0;
        for (size_t d = 0; d < b->n_devices && o->cold != NULL; d++)
            any_cold |= o->cold[d] && o->elements[d] > 0;
        for (size_t c = 0; c < 1 + b->n_devices; c++)
            ts->config_age[c] += ts->config_age[c] < UINT_MAX;
        if (o->config >= 0 && o->config < (int)APO_CONFIGS)
            ts->config_age[o->config] = 0;
        if (o->config >= 0 && o->config < (int)APO_CONFIGS && o->makespan_s > 0 &&
            !(any_cold &&
              cold_start_left_out(&ts->configs[o->config], total_elements, o->makespan_s)))
            apo__model_observe(&ts->configs[o->config], total_elements, o->makespan_s);
        ts->refined = 1;
        ts->dirty = 1;
        ts->version++;
        /* Stored ratios are the shares at the sample size: for models learnt without a
         * profile, the size of the first call. */
        if (ts->sample_size == 0)
            ts->sample_size = (uint64_t)total_elements;
        /* The writer thread writes; the call only wakes it, and the interval counts from
         * this request, so that calls made while a write waits for the file's lock do not
         * queue another. The clock is read only when a write could be asked for. */
        if (b->writer_started && !b->persist_requested) {
            double now = apo__now();
            if (now - b->last_persist >= b->persist_interval_s) {
                b->persist_requested = 1;
                b->last_persist = now;
                pthread_cond_signal(&b->wake);
            }
        }
    }
    pthread_mutex_unlock(&b->mutex);
}

/* A device's cost model and its stored form; see stored_model.h. */
#include <math.h>
#include <string.h>

#include "balance/stored_model.h"

int apo__stored_model_plausible(double latency_ms, double ms_per_melem) {
    return latency_ms >= 0 && latency_ms <= APO_LATENCY_MS_MAX &&
           ms_per_melem >= APO_MS_PER_MELEM_MIN && ms_per_melem <= APO_MS_PER_MELEM_MAX;
}

void apo__stored_model_get(apo__model *m, const apo__stored_device *s) {
    apo__model_from_stored(m, s->latency_ms, s->ms_per_melem, s->samples);
    const apo__stored_online *o = &s->online;
    double t[APO_STORED_RECENT_MAX];
    for (unsigned i = 0; i < o->n_recent; i++)
        t[i] = o->recent_ms[i] / 1e3;
    apo__model_restore(m, o->recent_elements, t, o->n_recent, o->prior_latency_ms / 1e3,
                       o->prior_ms_per_melem / 1e9, o->known_latency_ms / 1e3, o->off_run);
}

/* The online state of a model, to store beside it. */
static void online_of(const apo__model *m, apo__stored_online *o) {
    _Static_assert(APO_MODEL_WINDOW <= APO_STORED_RECENT_MAX,
                   "a stored device keeps the whole window");
    double n[APO_MODEL_WINDOW], t[APO_MODEL_WINDOW];
    o->n_recent = apo__model_window(m, n, t);
    for (unsigned i = 0; i < o->n_recent; i++) {
        o->recent_elements[i] = n[i];
        o->recent_ms[i] = t[i] * 1e3;
    }
    o->prior_latency_ms = m->has_prior ? m->prior_latency_s * 1e3 : NAN;
    o->prior_ms_per_melem = m->has_prior ? m->prior_cost_s * 1e9 : NAN;
    o->known_latency_ms = o->n_recent > 0 ? m->known_latency_s * 1e3 : NAN;
    o->off_run = m->off_run;
}

void apo__stored_model_put(apo__stored_device *s, const apo__model *m) {
    int keep = m->valid && apo__stored_model_plausible(m->latency_s * 1e3, m->cost_s * 1e9);
    s->latency_ms = keep ? m->latency_s * 1e3 : NAN;
    s->ms_per_melem = keep ? m->cost_s * 1e9 : NAN;
    s->samples = m->samples;
    if (keep)
        online_of(m, &s->online);
    else
        s->online = (apo__stored_online){
            .prior_latency_ms = NAN, .prior_ms_per_melem = NAN, .known_latency_ms = NAN};
}

void apo__stored_line_get(apo__model *m, const apo__stored_line *line) {
    memset(m, 0, sizeof *m);
    if (!apo__stored_model_plausible(line->latency_ms, line->ms_per_melem))
        return;
    apo__model_from_stored(m, line->latency_ms, line->ms_per_melem, line->samples);
    /* The sizes it was measured at come back as its window's observations, on the line:
     * what says where it stands (balance/configurations.c). */
    const double lo = line->elements_min, hi = line->elements_max;
    if (!(lo > 0 && hi >= lo && isfinite(hi)))
        return;
    const double n[2] = {lo, hi};
    const double t[2] = {apo__model_predict(m, lo), apo__model_predict(m, hi)};
    apo__model_restore(m, n, t, hi > lo ? 2 : 1, NAN, NAN, NAN, 0);
}

void apo__stored_line_put(apo__stored_line *line, const apo__model *m) {
    *line = APO_STORED_LINE_NONE;
    if (!m->valid || !apo__stored_model_plausible(m->latency_s * 1e3, m->cost_s * 1e9))
        return;
    line->latency_ms = m->latency_s * 1e3;
    line->ms_per_melem = m->cost_s * 1e9;
    line->samples = m->samples;
    double n[APO_MODEL_WINDOW], t[APO_MODEL_WINDOW];
    const unsigned count = apo__model_window(m, n, t);
    for (unsigned i = 0; i < count; i++) {
        line->elements_min = i == 0 || n[i] < line->elements_min ? n[i] : line->elements_min;
        line->elements_max = i == 0 || n[i] > line->elements_max ? n[i] : line->elements_max;
    }
}

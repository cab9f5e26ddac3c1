/*
 * What a call's run teaches the balance models (call_learning.h): each device's busy time for
 * the elements it computed, the configuration that ran, and which devices are warm now.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

#include "catalog/call_span.h"
#include "core/call_learning.h"
#include "devices/replay.h"

/* Online refinement: each device's measured busy time for the elements it computed, in a
 * run of `total` elements of `tag`, less the time it spent faulting in the caller's fresh
 * output pages: that depends on the caller's buffers, not on the device, and a model that
 * learnt it would predict every later call on warm buffers too slow (docs/scheduling.md,
 * "What a device's time includes"). */
void apo__observe_run(apo_runtime *rt, const char *tag, double total, const apo__run_state *s,
                      const apo__plan *p, double makespan_s) {
    uint64_t elements[APO_MAX_DEVICES];
    double busy[APO_MAX_DEVICES];
    int failed[APO_MAX_DEVICES], alone[APO_MAX_DEVICES], cold[APO_MAX_DEVICES];
    size_t worked = 0, last = 0, failures = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        const apo__device_tally *t = &s->tally[i];
        const apo__device *dev = &rt->devices[i];
        /* A GPU whose model is per full wave counts a share of fewer tiles than a wave as the
         * wave it costs (balance/configurations.h). */
        const double wave = apo__wave_tiles(rt, s->call, i);
        elements[i] = t->elements;
        if (wave > 0 && t->tiles > 0 && (double)t->tiles < wave)
            elements[i] = (uint64_t)((double)t->elements * wave / (double)t->tiles);
        busy[i] = t->wall_s > t->touch_s ? t->wall_s - t->touch_s : 0.0;
        failed[i] = t->failed;
        alone[i] = apo__device_is_host_like(dev) && dev->threads_alone != dev->info.threads &&
                   dev->call_threads == dev->threads_alone;
        failures += (size_t)t->failed;
        cold[i] = t->elements > 0 && !atomic_load_explicit(&dev->warm, memory_order_relaxed);
        if (t->elements > 0) {
            worked++;
            last = i;
        }
    }
    /* The configuration that ran, where the models chose it and it ran as planned: one device
     * with all the work is that device alone. */
    int config = -1;
    const int from_models = p != NULL && !p->probed && !isnan(p->choice.predicted_s);
    if (from_models && failures == 0 && worked > 0)
        config = worked == 1 ? 1 + (int)last : 0;
    const apo__call_outcome_times o = {
        .total_elements = total,
        .elements = elements,
        .busy_s = busy,
        .failed = failed,
        .alone = alone,
        .cold = cold,
        .config = config,
        .makespan_s = makespan_s,
    };
    apo__balance_observe(&rt->balance, tag, &o);
    for (size_t i = 0; i < rt->n_devices; i++)
        if (s->tally[i].elements > 0)
            atomic_store_explicit(&rt->devices[i].warm, 1, memory_order_relaxed);
}

/* The run's tag was checked when the call began (apo__distribute_placed). */
void apo__learn_from_call(apo_runtime *rt, const apo__run_state *s, const apo__plan *p,
                          double makespan_s) {
    if (s->tag != NULL)
        apo__observe_run(rt, s->tag, (double)apo__tiles_elements(s->call, 0, s->call->tiles), s, p,
                         makespan_s);
}

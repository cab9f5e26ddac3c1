/* The fault policy: deadlines and quarantine; see faults.h. */
#include <math.h>
#include <stdio.h>

#include "core/faults.h"

double apo__fault_deadline_s(const apo__fault_settings *s, double predicted_s) {
    double deadline = s->deadline_floor_s;
    if (isfinite(predicted_s) && predicted_s > 0 && s->deadline_factor * predicted_s > deadline)
        deadline = s->deadline_factor * predicted_s;
    return deadline;
}

int apo__fault_quarantined(const apo__faults *f, size_t d) {
    return atomic_load(&f->health[d].quarantined);
}

static void quarantine(apo__device_health *h) { atomic_store(&h->quarantined, 1); }

int apo__fault_record(apo__faults *f, size_t d, apo__call_outcome outcome, double deadline_s) {
    apo__device_health *h = &f->health[d];
    if (apo__fault_quarantined(f, d))
        return 0;
    switch (outcome) {
    case APO_OUTCOME_NO_WORK:
        return 0;
    case APO_OUTCOME_OK:
        h->failed_in_a_row = 0;
        return 0;
    case APO_OUTCOME_MISSED_DEADLINE:
        snprintf(h->reason, sizeof h->reason,
                 "missed its deadline of %.1f ms in call %llu and was abandoned", deadline_s * 1e3,
                 (unsigned long long)f->calls);
        quarantine(h);
        return 1;
    case APO_OUTCOME_FAILED:
        h->failed_in_a_row++;
        if (h->failed_in_a_row < f->settings.quarantine_after)
            return 0;
        snprintf(h->reason, sizeof h->reason,
                 "failed in %u of its calls in a row, the last being call %llu", h->failed_in_a_row,
                 (unsigned long long)f->calls);
        quarantine(h);
        return 1;
    }
    return 0;
}

/*
 * The runtime's balancing state: per workload tag, a cost model per device (from a profile,
 * refined by calls) and forced ratios. core/ asks it for a call's shares and tells it what
 * each device measured (core/call_learning.c). Its life, the profile files it is loaded from and
 * stored to, and the models and ratios that are stored at once (core/profiling.c fits and applies
 * new models) are balance_files.h. Everything here is guarded by its own mutex, since queries may
 * come from any thread while a call runs.
 */
#ifndef APO_RUNTIME_BALANCE_BALANCE_STATE_H
#define APO_RUNTIME_BALANCE_BALANCE_STATE_H

#include <pthread.h>

#include "balance/configurations.h"
#include "balance/model.h"
#include "base/warnings.h"
#include "profiles/profile_store.h"

typedef struct apo__tag_state {
    char tag[APO_TAG_MAX];
    apo__model models[APO_MAX_DEVICES]; /* in device order */
    int from_profile;                   /* models came from a profile (else from calls) */
    int refined;                        /* calls have refined them since */
    int has_ratios;                     /* fixed ratios instead of models */
    int forced;                         /* ...set by apo_set_ratios (else ThreadX ratios) */
    double ratios[APO_MAX_DEVICES];
    int dirty;            /* changed since it was last written */
    uint64_t version;     /* counts its changes: a write of an older copy leaves it dirty */
    uint64_t sample_size; /* elements the stored ratios are for (profiled, else the first
                             call's) */
    unsigned runs;
    /* Exploration: learning calls of the tag since the last probe, and since each device
     * last had work (an observation after APO_GAP_CALLS of them is fresh evidence). */
    unsigned calls_since_probe;
    unsigned idle_calls[APO_MAX_DEVICES];
    /* Kept in memory only (docs/scheduling.md, "Configurations and the guard"): each
     * device's model when it ran alone and differently from beside the others (a cpu on
     * every core), and the measured makespans of the configurations the tag's calls ran. */
    apo__model alone_models[APO_MAX_DEVICES];
    apo__model configs[APO_CONFIGS];
    /* Each device's first calls in a runtime (cold starts), apart from its warm model: what a
     * program that makes one call per process is planned with (apo__balance_observe). */
    apo__model cold_models[APO_MAX_DEVICES];
    unsigned config_age[APO_CONFIGS]; /* learning calls since each was last measured */
} apo__tag_state;

typedef struct apo__balance {
    pthread_mutex_t mutex;
    /* Writes of the profile files, one at a time and in order. Taken before `mutex` and
     * never while holding it: the disk is never waited for under `mutex`, which the calls
     * take for their shares (docs/scheduling.md, "Persistence"). */
    pthread_mutex_t write_mutex;
    /* The writer thread (profiles and learning on): calls only wake it to persist. */
    pthread_t writer;
    pthread_cond_t wake;
    int writer_started, writer_stop, persist_requested;
    const apo_device_info *info[APO_MAX_DEVICES]; /* the devices' identities, in order */
    int threads_alone[APO_MAX_DEVICES];           /* apo__balance_settings' */
    size_t n_devices;
    apo__tag_state *tags;
    size_t n_tags, cap_tags;

    int profiles_on, learn;
    double persist_interval_s, last_persist;
    char host[APO_LABEL_MAX];
    apo_profile_files files;
    apo__multigpu store;        /* multigpu.json as last read or written, plus this runtime's
                                   unsaved changes once synced */
    apo__thresholds thresholds; /* thresholds.json as last read or merged */
} apo__balance;

/* The state of `tag`, or NULL; call with the mutex held. */
apo__tag_state *apo__balance_find_tag(apo__balance *b, const char *tag);

/* The state of `tag`, added empty when it has none; NULL when the table is full or memory is
 * out. Call with the mutex held. */
apo__tag_state *apo__balance_get_tag(apo__balance *b, const char *tag);

/* Exploration (docs/scheduling.md): a device that the models leave without work is
 * probed in at most one learning call of a tag in APO_PROBE_EVERY, with at most
 * APO_PROBE_FRACTION of the call's elements over all probed devices, at least one whole
 * tile each (core/plan.c rounds). A device that had no work in APO_GAP_CALLS learning calls
 * of the tag is observed as after a gap (apo__model_observe_after_gap). */
#define APO_PROBE_EVERY 10
#define APO_PROBE_FRACTION 0.02
/* Where the call runs a device alone that is faster alone than beside the others (a cpu on
 * every core), a probe of another device, however small its share, takes that away: a GPU
 * probed on 2% of a pageable bollinger over 1e8 samples took the cpu down to the threads the
 * GPU's staging leaves, and the call from 33 ms to 70 on the H200 machine
 * (docs/perf-log/2026-11-26-h200-third-visit.md). Such a probe is made only for a device
 * that could win a split by its model, with this much slack for a model that is off
 * (balance_state.c, mark_probes()). */
#define APO_PROBE_MODEL_SLACK 1.5
#define APO_GAP_CALLS 5

/* The shares of a call of `tag` shaped as `shape` says: forced ratios, else models (the
 * configuration the models predict fastest, and the split inside it:
 * apo__choose_configuration), else fixed ratios from a ThreadX profile, else equal.
 * Devices with usable[i] 0 (quarantined) are left out of the solver; the caller zeroes their
 * other shares. Writes the shares in device order, the source, the predicted makespan (NaN
 * without models) and, when `choice` is not NULL, the configuration (its `alone` is -1 and
 * its times NaN unless the models chose).
 * With `explore` (a call that learns, learning on) the call is counted for the tag, and
 * when a probe is due and the models gave the shares, probe[i] is set for each usable
 * device with a model of its own: the learning calls since it last had work, plus one. The
 * caller probes those of them that its rounding gives no tile, the larger first, and then
 * calls apo__balance_probed(). Otherwise, and for every other device, probe[i] is 0.
 * `probe` may be NULL without `explore`. */
void apo__balance_shares(apo__balance *b, const char *tag, const int *usable,
                         const apo__shape *shape, int explore, double *shares, unsigned *probe,
                         apo_ratio_source *source, double *predicted_s, apo__config_choice *choice);

/* Says that this call of `tag` probes: the next probe is APO_PROBE_EVERY calls away. */
void apo__balance_probed(apo__balance *b, const char *tag);

/* Device `d`'s predicted busy time for `elements` elements of `tag`: its own model, else
 * the one the solver lends it (the median cost of the others), else NaN. */
double apo__balance_predict(apo__balance *b, const char *tag, size_t d, double elements);

/* What one call measured, for apo__balance_observe(). */
typedef struct apo__call_outcome_times {
    double total_elements;
    const uint64_t *elements; /* each device's, wave-normalised where its model is per wave */
    const double *busy_s;
    const int *failed;
    const int *alone; /* device d ran alone and unlike beside the others (a cpu on every
                         core): its alone model learns, not its model (NULL: none did) */
    const int *cold;  /* device d's first call with work in this runtime (NULL: none) */
    int config;       /* the configuration that ran (0: the split, 1 + d: device d alone),
                         -1: none to learn (a probe, forced ratios) */
    double makespan_s;
} apo__call_outcome_times;

/* Folds one call's measurements in (learn on): elements[i] computed in busy_s[i]; devices
 * with no elements or failed[i] are skipped (and count the call as one without work); the
 * configuration's makespan is folded into its measured model. A cold start (a device's first
 * call in the runtime: thread teams, caches and pages of a new process) goes into the
 * device's cold model, and into its warm model only when it is faster than the warm model
 * predicts or slower by APO_MODEL_GROSS_FACTOR or more (the device changed): the warm model
 * keeps warm speed, and a program that makes one call per process teaches the cold one
 * (docs/scheduling.md, "Cold starts"). When the persist interval has passed it wakes the
 * writer thread, which stores the refined models: this never touches the disk. */
void apo__balance_observe(apo__balance *b, const char *tag, const apo__call_outcome_times *o);

/* Folds one end-to-end makespan of a configuration of `tag` (config as in
 * apo__call_outcome_times) at `elements` into its measured model, as a learning call that ran
 * it would: what `apportion profile` measures after the devices alone (core/profiling.c). */
void apo__balance_observe_configuration(apo__balance *b, const char *tag, int config,
                                        double elements, double makespan_s);

/* The split's shares of a call of `tag` shaped as `shape` over the usable devices, the
 * guard aside (apo__solve_split_min over the models, re-solved for the bus where it is
 * known). Returns the devices given a share; 0 when the tag has no models. */
size_t apo__balance_split_shares(apo__balance *b, const char *tag, const int *usable,
                                 const apo__shape *shape, double *shares);

#endif

/*
 * The balancing state's life and its profile files (balance_state.h has the state): setting
 * it up from multigpu.json and thresholds.json, the writer thread that stores refined models
 * without holding up a call, and the writes of profiled models, thresholds and forced
 * ratios, made at once. core/runtime.c creates and destroys it; core/profiling.c applies,
 * forces, saves and shows.
 */
#ifndef APO_RUNTIME_BALANCE_BALANCE_FILES_H
#define APO_RUNTIME_BALANCE_BALANCE_FILES_H

#include "balance/balance_state.h"

/* Settings resolved by runtime.c (config, then environment, then defaults). */
typedef struct apo__balance_settings {
    int profiles_on, learn;
    double persist_interval_s;
    apo__profile_location location;
    const char *off_reason; /* why profiles are off though asked for (files' messages), or NULL */
    /* Each host-like device's threads when it runs alone (every core), 0 for the others: a
     * model stored by a cpu of another thread count is scaled to this one (balance_files.c). */
    int threads_alone[APO_MAX_DEVICES];
} apo__balance_settings;

/* Sets up the state for the devices whose identities `devices` points to (they must outlive
 * it) and, profiles on, loads both files. Files that cannot be used are
 * reported through `w` and ignored: this cannot fail. */
void apo__balance_init(apo__balance *b, const apo_device_info *const *devices, size_t n_devices,
                       const apo__balance_settings *s, apo__warnings *w);

/* Stops the writer thread, writes unsaved refinements (profiles on; this waits for the
 * file's lock, up to 30 s) and frees everything. */
void apo__balance_destroy(apo__balance *b);

/* Replaces the tag's models with profiled ones and stores them with the timings, at once
 * (without holding the mutex while it writes, so calls are not held up).
 * `medians_ms[d * n_sizes + s]` is device d's median time at sizes[s] (NaN: not run). */
apo_status apo__balance_apply_profile(apo__balance *b, const char *tag, const char *function,
                                      const char *const *param_names, const double *param_values,
                                      size_t n_params, const apo__model *models,
                                      uint64_t sample_size, unsigned runs, const uint64_t *sizes,
                                      size_t n_sizes, const double *medians_ms, int *written);

/* Merges measured timings into thresholds.json (profiles on; a failed write keeps them in
 * memory and returns APO_ERR_IO) and into what apo_should_use_gpu() reads
 * (apo_threshold_record()). */
apo_status apo__balance_add_thresholds(apo__balance *b, const apo__threshold *adds, size_t n_adds);

/* Forces (n > 0) or clears (n == 0) a tag's ratios, in device order, and stores them. */
apo_status apo__balance_force(apo__balance *b, const char *tag, const double *ratios, size_t n);

/* Mirrors unsaved tags into the in-memory store (without writing), so that queries show
 * what the runtime knows. Call with the mutex held. */
void apo__balance_sync_store(apo__balance *b);

/* Whether a stored entry fits this runtime's devices (each is in it, with a model stored
 * for the same device configuration that is within the plausible bounds); when not, why. */
int apo__balance_entry_fits(const apo__balance *b, const apo__stored_workload *e, char *reason,
                            size_t reason_size);

/* Writes every unsaved tag now (profiles on), without holding the mutex while it writes. */
apo_status apo__balance_save(apo__balance *b);

#endif

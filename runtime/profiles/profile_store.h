/*
 * The profile files on disk: where they are, how they are read (both the apportion and
 * the older ThreadX shapes), and how they are updated (read-modify-write under an
 * advisory lock, written to a temporary file in the same folder, fsynced and renamed, so
 * that concurrent writers lose nothing and readers never see a torn file).
 *
 * Everything here is plain data and files: no runtime, no devices. A file that cannot be
 * used is reported through `err` and never crashes or damages anything.
 */
#ifndef APO_RUNTIME_PROFILES_PROFILE_STORE_H
#define APO_RUNTIME_PROFILES_PROFILE_STORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "apportion.h"

#define APO_MULTIGPU_FORMAT "apportion.multigpu/1"
#define APO_THRESHOLDS_FORMAT "apportion.thresholds/1"
/* Files larger than this are refused as hostile rather than parsed. */
#define APO_PROFILE_FILE_MAX (16u << 20)
/* And so are files of more JSON values than this (counted as the ':' and ',' outside
 * strings, an upper bound): the parser allocates some 40 bytes per value, so 16 MiB of
 * "0," would take over 300 MB, while a thresholds.json at its 65536-entry limit has about
 * 720000. A file that would exceed it is not written either. */
#define APO_PROFILE_VALUES_MAX 1000000u
#define APO_TIMESTAMP_MAX 40
#define APO_THRESHOLD_KEY_MAX 256

/* ---- locations ------------------------------------------------------------------------ */

/* The inputs of path resolution, as read from the environment (env.c) or the config. */
typedef struct apo__profile_location {
    const char *multigpu_path;   /* config, else APPORTION_MULTIGPU_PROFILE_PATH, else
                                    THREADX_MULTIGPU_PROFILE_PATH, or NULL */
    const char *thresholds_path; /* config, else APPORTION_THRESHOLD_PATH, else
                                    THREADX_GPU_THRESHOLD_PATH, or NULL */
    const char *profile_dir;     /* APPORTION_PROFILE_DIR or NULL */
    const char *xdg_state_home;  /* XDG_STATE_HOME or NULL */
    const char *home;            /* HOME or NULL */
} apo__profile_location;

/* Resolves both paths (docs/profiles.md, "Where the files are"): an explicit path wins, then
 * profile_dir/NAME.json, then xdg_state_home/apportion/NAME.json, then
 * home/.local/state/apportion/NAME.json. Returns APO_ERR_NOT_FOUND (err says which) when no rule
 * applies (no HOME either), or APO_ERR_INVALID_ARGUMENT for a path that does not fit in
 * APO_PATH_MAX. */
apo_status apo__profile_paths(const apo__profile_location *loc, char *multigpu, char *thresholds,
                              char *err, size_t err_size);

/* Creates the folder of `path` and its parents (mode 0700) when missing. */
apo_status apo__profile_make_dir(const char *path, char *err, size_t err_size);

/* ---- multigpu.json -------------------------------------------------------------------- */

typedef enum apo__entry_origin {
    APO_ORIGIN_PROFILE = 0, /* apo_profile_auto_balance() */
    APO_ORIGIN_ONLINE = 1,  /* refined by calls */
    APO_ORIGIN_FORCED = 2,  /* apo_set_ratios(): ratios override the models */
    APO_ORIGIN_THREADX = 3  /* read from the older ThreadX shape: ratios only */
} apo__entry_origin;

/* Observations of online refinement a stored device keeps (balance/model.h's window). */
#define APO_STORED_RECENT_MAX 8
/* Bound on a stored run of disagreeing calls (a run that long has restarted the window). */
#define APO_STORED_OFF_RUN_MAX 8

/* Online refinement's state beside a stored model, so that the evidence of separate
 * processes adds up (docs/profiles.md, "online"): the last observations, oldest first, the
 * prior while it still votes, the latency kept while sizes do not spread, and the signed
 * run of consecutive observations off the prediction. */
typedef struct apo__stored_online {
    unsigned n_recent; /* 0: none stored; the model alone is the next runtime's prior */
    double recent_elements[APO_STORED_RECENT_MAX];
    double recent_ms[APO_STORED_RECENT_MAX];
    double prior_latency_ms, prior_ms_per_melem; /* NaN: no prior votes any more */
    double known_latency_ms;                     /* NaN when absent */
    int off_run;
} apo__stored_online;

/* A line stored beside a device's model (docs/profiles.md, "Configurations"): a latency and
 * a cost, NaN when absent, and the observations behind it. */
typedef struct apo__stored_line {
    double latency_ms, ms_per_melem;
    uint64_t samples;
    /* The call sizes it was measured at, smallest and largest (NaN when absent): a line
     * stands only near them (balance/configurations.c). */
    double elements_min, elements_max;
} apo__stored_line;

/* No stored line. */
#define APO_STORED_LINE_NONE ((apo__stored_line){NAN, NAN, 0, NAN, NAN})

typedef struct apo__stored_device {
    char id[APO_ID_MAX];
    char label[APO_LABEL_MAX];
    char config[APO_LABEL_MAX]; /* apo_device_info.config when stored, "" when absent */
    double ratio;               /* NaN when absent */
    double latency_ms;          /* NaN when absent */
    double ms_per_melem;        /* NaN when absent */
    uint64_t samples;
    apo__stored_online online;
    unsigned idle_calls;    /* learning calls of the tag since it last had work (exploration) */
    apo__stored_line alone; /* its model when it ran alone, unlike beside the others */
    apo__stored_line cold;  /* its first calls in a runtime (cold starts) */
    apo__stored_line measured_alone; /* the measured makespans of the tag's calls it ran alone */
} apo__stored_device;

typedef struct apo__stored_workload {
    char tag[APO_TAG_MAX];
    char updated_at[APO_TIMESTAMP_MAX]; /* RFC 3339 UTC, "" when absent */
    uint64_t sample_size;               /* 0 when absent */
    unsigned runs;
    apo__entry_origin origin;
    unsigned calls_since_probe; /* learning calls since the last probe (exploration) */
    size_t n_devices;
    apo__stored_device devices[APO_MAX_DEVICES];
    apo__stored_line measured_split; /* the measured makespans of its calls split over devices */
} apo__stored_workload;

typedef struct apo__multigpu {
    char host[APO_LABEL_MAX];
    char library_version[32];
    char updated_at[APO_TIMESTAMP_MAX];
    int threadx; /* read from the ThreadX shape */
    size_t n_workloads;
    apo__stored_workload *workloads; /* sorted by tag; malloc'ed */
} apo__multigpu;

/* Reads a multigpu.json. A missing file gives APO_OK with *missing = 1 and an empty
 * profile. Otherwise APO_ERR_IO (unreadable, too large), APO_ERR_INVALID_ARGUMENT (not
 * JSON, unknown format, a field of the wrong type or out of range: NaN, negative, ratios
 * that do not sum to a positive finite value): err says what and where, *out is empty. */
apo_status apo__multigpu_load(const char *path, apo__multigpu *out, int *missing, char *err,
                              size_t err_size);
void apo__multigpu_free(apo__multigpu *p);

/* Parses a multigpu.json held in memory, text[0..len) (not necessarily NUL-terminated), with
 * the checks of apo__multigpu_load (which uses the same code once it has read the file);
 * `name` stands for the file in messages (NULL: "multigpu.json"). Returns APO_OK, or
 * APO_ERR_INVALID_ARGUMENT (not JSON, over APO_PROFILE_FILE_MAX bytes, unknown format, a
 * field of the wrong type or out of range: err says what and where, *out is empty) or
 * APO_ERR_OUT_OF_MEMORY. */
apo_status apo__multigpu_parse(const char *name, const char *text, size_t len, apo__multigpu *out,
                               char *err, size_t err_size);

/* Under the lock: reads the current file (missing: starts empty; unusable: keeps it aside
 * as PATH.corrupt and starts empty, saying so in err while still returning APO_OK),
 * replaces the entries whose tag is in `updates` (whole entries) and removes those whose
 * tag is in `removals`, sets host, library_version and updated_at, and writes atomically.
 * On success `merged` (optional) receives the file as written. Returns APO_ERR_IO (err:
 * which file and why; the old file is untouched; also when the lock is not had within
 * 30 s), APO_ERR_INVALID_ARGUMENT (an update that would not read back: a NaN or negative
 * ratio, a device twice, a name too long; nothing is touched), APO_ERR_OUT_OF_MEMORY. */
apo_status apo__multigpu_update(const char *path, const char *host,
                                const apo__stored_workload *updates, size_t n_updates,
                                const char *const *removals, size_t n_removals,
                                apo__multigpu *merged, char *err, size_t err_size);

/* Called under the lock of apo__multigpu_update_rebased() with the file as it is now (empty
 * when missing or set aside), to rewrite the `n` updates from it before they are applied:
 * an update computed from an older read would otherwise drop what other writers added
 * since (a read-modify-write must read under the lock). */
typedef void (*apo__multigpu_rebase_fn)(const apo__multigpu *current, apo__stored_workload *updates,
                                        size_t n, void *ctx);

/* apo__multigpu_update() with `rebase` (optional) applied to a copy of the updates under
 * the lock; the rebased updates are checked again (APO_ERR_INVALID_ARGUMENT, nothing
 * written, when one would not read back). */
apo_status apo__multigpu_update_rebased(const char *path, const char *host,
                                        const apo__stored_workload *updates, size_t n_updates,
                                        const char *const *removals, size_t n_removals,
                                        apo__multigpu_rebase_fn rebase, void *rebase_ctx,
                                        apo__multigpu *merged, char *err, size_t err_size);

/* Finds the entry of a tag, or NULL. */
const apo__stored_workload *apo__multigpu_find(const apo__multigpu *p, const char *tag);

/* ---- thresholds.json ------------------------------------------------------------------ */

typedef struct apo__threshold {
    char key[APO_THRESHOLD_KEY_MAX];
    double cpu_ms_avg;    /* NaN when never measured */
    double gpu_ms_avg;    /* NaN when never measured */
    uint64_t samples;     /* measurements merged into the entry */
    uint64_t cpu_samples; /* of which had a CPU time */
    uint64_t gpu_samples; /* of which had a GPU time */
    int simulated;        /* some GPU time came from a sim device standing in for a GPU */
} apo__threshold;

typedef struct apo__thresholds {
    char updated_at[APO_TIMESTAMP_MAX];
    size_t n;
    apo__threshold *entries; /* sorted by key; malloc'ed */
} apo__thresholds;

/* Reads a thresholds.json (apportion's or ThreadX's shape: ThreadX has no cpu_samples and
 * gpu_samples; both are then taken as `samples` where the time is present). Same results
 * as apo__multigpu_load. */
apo_status apo__thresholds_load(const char *path, apo__thresholds *out, int *missing, char *err,
                                size_t err_size);
void apo__thresholds_free(apo__thresholds *t);

/* Parses a thresholds.json held in memory, as apo__multigpu_parse does a multigpu.json
 * (NULL name: "thresholds.json"); same results. */
apo_status apo__thresholds_parse(const char *name, const char *text, size_t len,
                                 apo__thresholds *out, char *err, size_t err_size);

/* Under the lock: reads the current file and merges `adds` into it as running averages
 * weighted by counts (avg = (avg * n + add_avg * m) / (n + m) for each side, samples add
 * up), then writes atomically. An unusable file is kept aside as for multigpu. Returns
 * the same statuses as apo__multigpu_update. */
apo_status apo__thresholds_merge(const char *path, const apo__threshold *adds, size_t n_adds,
                                 apo__thresholds *merged, char *err, size_t err_size);

/* Merges `adds` into `t` in memory, by the same rule as apo__thresholds_merge (which uses
 * it under its lock); `t` stays sorted by key. Returns APO_ERR_OUT_OF_MEMORY (t unchanged
 * apart from its capacity). */
apo_status apo__thresholds_add(apo__thresholds *t, const apo__threshold *adds, size_t n_adds);

/* The canonical key "<function>:{'<name>': <value>, ..., 'size': <samples>}", names sorted
 * (byte order) with 'size' among them; integral values print without a decimal point,
 * others as the shortest "%.{15,16,17}g" that reads back exactly. Returns APO_OK or
 * APO_ERR_INVALID_ARGUMENT when it does not fit in APO_THRESHOLD_KEY_MAX. */
apo_status apo__threshold_key(char *key, const char *function, const char *const *names,
                              const double *values, size_t n, uint64_t samples);

/* Parses a canonical key back: the function, up to APO_MAX_PARAMS + 1 (name, value)
 * pairs without 'size', and the size. Returns APO_ERR_INVALID_ARGUMENT for anything
 * else (including a ThreadX key without 'size'). */
typedef struct apo__threshold_key_parts {
    char function[APO_NAME_MAX];
    size_t n_params;
    char names[APO_MAX_PARAMS + 1][APO_NAME_MAX];
    double values[APO_MAX_PARAMS + 1];
    uint64_t samples;
} apo__threshold_key_parts;

apo_status apo__threshold_key_parse(const char *key, apo__threshold_key_parts *parts);

/* ---- time ----------------------------------------------------------------------------- */

/* Formats `t` (Unix seconds) as "YYYY-MM-DDTHH:MM:SSZ". */
void apo__timestamp_format(double t, char *out, size_t out_size);
/* Parses that form and the ISO 8601 forms ThreadX writes to Unix seconds: 'T' or a space
 * between date and time, seconds optional, any fraction of a second, and a zone (Z,
 * +HH:MM, +HHMM, +HH) or none, which is the local time of the process's zone (Python's
 * datetime.now().isoformat()). Returns -1 when it does not parse. */
double apo__timestamp_parse(const char *text);

#endif

/*
 * Every environment variable the library reads is read in env.c, so that the full set,
 * with bounds, is in one place (docs/env.md mirrors it). An unparsable value is warned
 * about and ignored.
 */
#ifndef APO_RUNTIME_ENV_H
#define APO_RUNTIME_ENV_H

#include "apportion.h"
#include "base/warnings.h"

/* Bounds of the cpu device's thread count, wherever it comes from. */
#define APO_CPU_THREADS_MAX 1024

typedef struct apo__env {
    const char *devices;     /* APPORTION_DEVICES, NULL when unset */
    int cpu_threads;         /* APPORTION_CPU_THREADS, 0 when unset or ignored */
    apo_use_gpu use_gpu;     /* APPORTION_USE_GPU, UNSET when unset or ignored */
    apo_sim_clock sim_clock; /* APPORTION_SIM_CLOCK, UNSET when unset or ignored */
    /* Profile locations (NULL when unset); the ThreadX names stand in for the apportion
     * ones when those are unset. */
    const char *multigpu_path; /* APPORTION_MULTIGPU_PROFILE_PATH, THREADX_MULTIGPU_PROFILE_PATH */
    const char *thresholds_path; /* APPORTION_THRESHOLD_PATH, THREADX_GPU_THRESHOLD_PATH */
    const char *profile_dir;     /* APPORTION_PROFILE_DIR */
    const char *xdg_state_home;  /* XDG_STATE_HOME */
    const char *home;            /* HOME */
    apo_switch profiles;         /* APPORTION_PROFILES, UNSET when unset or ignored */
    apo_switch learn;            /* APPORTION_LEARN, UNSET when unset or ignored */
    double persist_interval_s;   /* APPORTION_PERSIST_INTERVAL, 0 when unset or ignored */
    size_t gpu_memory_mb;        /* APPORTION_GPU_MEMORY_MB, 0 when unset or ignored */
    apo_switch nccl;             /* APPORTION_NCCL, UNSET when unset or ignored */
    int cuda_device_order_set;   /* CUDA_DEVICE_ORDER is set: cudart's order is the user's */
    apo_switch mpi;              /* APPORTION_MPI, UNSET when unset or ignored */
    int mpi_launched;            /* an MPI launcher started this process (OMPI_COMM_WORLD_SIZE,
                                    PMIX_RANK or PMI_SIZE is set) */
    double mpi_timeout_s;        /* APPORTION_MPI_TIMEOUT, 0 when unset or ignored */
    double deadline_factor;      /* APPORTION_DEADLINE_FACTOR, 0 when unset or ignored */
    double deadline_floor_s;     /* APPORTION_DEADLINE_FLOOR, 0 when unset or ignored */
    unsigned quarantine_after;   /* APPORTION_QUARANTINE_AFTER, 0 when unset or ignored */
} apo__env;

/* Bounds of the time a rank may take to answer, in seconds, wherever it comes from. */
#define APO_MPI_TIMEOUT_MIN 0.01
#define APO_MPI_TIMEOUT_MAX 86400.0

/* Bounds of the per-GPU staging budget, in MiB, wherever it comes from. */
#define APO_GPU_MEMORY_MB_MIN 4
#define APO_GPU_MEMORY_MB_MAX (1024 * 1024)

/* Bounds of the persist interval, in seconds, wherever it comes from. */
#define APO_PERSIST_INTERVAL_MAX 86400.0

/* Reads the runtime's variables; each bad value adds a warning to `w`. */
void apo__env_read(apo__env *env, apo__warnings *w);

typedef struct apo__env_debug {
    int level;           /* enum apo__log_level */
    unsigned subsystems; /* mask of enum apo__log_subsys */
    const char *file;    /* NULL: stderr */
} apo__env_debug;

/* Reads the logging variables. Bad values cannot be reported through a runtime (the log
 * is process-wide), so they fall back to the default and are noted in the log itself:
 * `problem` receives the note ("" when none). */
void apo__env_read_debug(apo__env_debug *debug, char *problem, size_t problem_size);

/* Writes `value` for a message: at most 64 bytes (then "..."), control characters as '?'.
 * `size` should be at least 68. */
void apo__env_show_value(const char *value, char *out, size_t size);

#endif

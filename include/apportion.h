/*
 * apportion: split array computations across every device of a machine in proportion to
 * each device's speed, and merge the partial results so that they are bitwise identical
 * however the work was split.
 *
 * This is the only public header. It is plain C11 and includes no CUDA header.
 *
 * Conventions:
 * - Every call returns an apo_status; results come back through out-pointers.
 * - On failure, apo_last_error() holds a detailed message for the calling thread.
 * - Public structs are versioned by their leading `size` field: initialise them with the
 *   matching APO_*_INIT macro, which sets it to sizeof the struct you compiled against.
 *   Before 1.0 a minor version may change a layout (0.2 did): rebuild against the header
 *   of the library you run with (docs/api.md, "Layout changes").
 *
 * Thread safety:
 * - Distinct runtimes are independent.
 * - One runtime may be used from several threads at once: apo_distribute_workload() calls
 *   on the same runtime are serialised by the runtime (one call runs at a time; the others
 *   wait), and the query functions are safe to call at any time.
 * - apo_kernel_register() may be called at any time; a kernel cannot be unregistered.
 * - apo_last_error() is per thread.
 * - apo_runtime_destroy() must not race with any other call on the same runtime.
 * - A user kernel must not call back into the runtime running it: apo_distribute_workload()
 *   and apo_profile_auto_balance() then fail with APO_ERR_INVALID_ARGUMENT rather than wait
 *   for themselves, and apo_runtime_destroy() does nothing (docs/api.md, "Thread safety").
 */
#ifndef APPORTION_H
#define APPORTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define APO_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define APO_EXPORT __attribute__((visibility("default")))
#else
#define APO_EXPORT
#endif

#define APO_VERSION_MAJOR 0
#define APO_VERSION_MINOR 2
#define APO_VERSION_PATCH 0
#define APO_VERSION_STRING "0.2.0"

/* Returns the library's version string ("MAJOR.MINOR.PATCH"). */
APO_EXPORT const char *apo_version(void);

/* ---------------------------------------------------------------------------------------
 * Status codes: one table, so that codes and messages cannot drift apart.
 * X(NAME, value, message)
 * ------------------------------------------------------------------------------------- */
#define APO_STATUS_MAP(X)                                                                          \
    X(OK, 0, "success")                                                                            \
    X(ERR_NULL, 1, "a required pointer argument is NULL")                                          \
    X(ERR_INVALID_ARGUMENT, 2, "invalid argument")                                                 \
    X(ERR_OVERFLOW, 3, "sizes overflow")                                                           \
    X(ERR_OUT_OF_MEMORY, 4, "out of memory")                                                       \
    X(ERR_UNKNOWN_KERNEL, 5, "unknown kernel")                                                     \
    X(ERR_BAD_PARAM, 6, "bad kernel parameter")                                                    \
    X(ERR_BAD_DEVICE_SPEC, 7, "bad device specification")                                          \
    X(ERR_NO_DEVICE, 8, "no usable device")                                                        \
    X(ERR_GPU_REQUIRED, 9, "a GPU is required but none is usable")                                 \
    X(ERR_ALL_DEVICES_FAILED, 10, "every device failed")                                           \
    X(ERR_DEVICE_LOST, 11, "a device failed")                                                      \
    X(ERR_KERNEL_FAILED, 12, "the kernel reported a failure")                                      \
    X(ERR_ALREADY_EXISTS, 13, "already exists")                                                    \
    X(ERR_NOT_FOUND, 14, "not found")                                                              \
    X(ERR_IO, 15, "input/output error")                                                            \
    X(ERR_INTERNAL, 16, "internal error")

typedef enum apo_status {
#define APO_STATUS_ENUM_(name, value, message) APO_##name = value,
    APO_STATUS_MAP(APO_STATUS_ENUM_)
#undef APO_STATUS_ENUM_
} apo_status;

/* Returns a static message for a status, ending with a hint to call apo_last_error(), or
 * "unknown status" for a value outside the table. Never NULL. */
APO_EXPORT const char *apo_strerror(apo_status status);

/* Returns the symbolic name of a status ("APO_ERR_NULL"), or "APO_UNKNOWN". Never NULL. */
APO_EXPORT const char *apo_status_name(apo_status status);

/* Returns the detailed message of the last failed call made by this thread, or "" when
 * none has failed. The text stays valid until this thread's next apportion call. */
APO_EXPORT const char *apo_last_error(void);

/* ---------------------------------------------------------------------------------------
 * Runtime
 * ------------------------------------------------------------------------------------- */
typedef struct apo_runtime apo_runtime;

typedef enum apo_use_gpu {
    APO_USE_GPU_UNSET = 0, /* take APPORTION_USE_GPU, else AUTO */
    APO_USE_GPU_AUTO = 1,  /* GPUs when usable, else the CPU with one warning */
    APO_USE_GPU_YES = 2,   /* a missing or unusable GPU is an error */
    APO_USE_GPU_NO = 3     /* keep to the CPU (and sim devices) */
} apo_use_gpu;

typedef enum apo_sim_clock {
    APO_SIM_CLOCK_UNSET = 0,  /* take APPORTION_SIM_CLOCK, else WALL */
    APO_SIM_CLOCK_WALL = 1,   /* sim devices wait out their modelled time */
    APO_SIM_CLOCK_VIRTUAL = 2 /* modelled time is reported without waiting */
} apo_sim_clock;

/* An on/off setting that can also be left to the environment. */
typedef enum apo_switch {
    APO_SWITCH_UNSET = 0, /* take the environment variable, else the default */
    APO_SWITCH_ON = 1,
    APO_SWITCH_OFF = 2
} apo_switch;

/* Runtime configuration. Each field left at its initializer value is taken from the
 * environment (docs/env.md), else from the default. */
typedef struct apo_config {
    size_t size;             /* sizeof(apo_config); set by APO_CONFIG_INIT */
    const char *devices;     /* device list as in APPORTION_DEVICES; NULL: env, else "auto" */
    int cpu_threads;         /* threads of the cpu device; 0: env, else OpenMP's default */
    apo_use_gpu use_gpu;     /* see apo_use_gpu */
    apo_sim_clock sim_clock; /* see apo_sim_clock */
    /* Profiles (docs/profiles.md). NULL paths: APPORTION_MULTIGPU_PROFILE_PATH and
     * APPORTION_THRESHOLD_PATH, then THREADX_*, then APPORTION_PROFILE_DIR, then
     * $XDG_STATE_HOME/apportion/ (default ~/.local/state/apportion/). */
    const char *multigpu_path;
    const char *thresholds_path;
    apo_switch profiles;       /* read and write the profile files; UNSET: APPORTION_PROFILES,
                                  else ON. OFF: models live in memory only */
    apo_switch learn;          /* online refinement; UNSET: APPORTION_LEARN, else ON */
    double persist_interval_s; /* least time between two writes of refined models;
                                  0: APPORTION_PERSIST_INTERVAL, else 60 */
    size_t gpu_memory_mb;      /* device memory each GPU may use for staging, in MiB;
                                  0: APPORTION_GPU_MEMORY_MB, else half its free memory, at most
                                  4096 (docs/cuda.md) */
    apo_switch nccl;           /* gather multi-GPU outputs with NCCL when it can be loaded;
                                  UNSET: APPORTION_NCCL, else ON. OFF: peer copies */
    apo_switch mpi;            /* join an MPI job (docs/cluster.md); UNSET: APPORTION_MPI, else
                                  ON when started by mpirun. OFF: this process alone */
    double mpi_timeout_s;      /* how long a rank may take to answer; 0: APPORTION_MPI_TIMEOUT,
                                  else 60 */
    /* Faults (docs/design.md#faults). A device's task that has not finished
     * max(deadline_floor_s, deadline_factor x its predicted time) after it was handed over
     * is abandoned, its tiles are redone elsewhere, and the device is quarantined. */
    double deadline_factor;    /* 1 to 1e6; 0: APPORTION_DEADLINE_FACTOR, else 10 */
    double deadline_floor_s;   /* 0.001 to 604800 s; 0: APPORTION_DEADLINE_FLOOR, else 60 */
    unsigned quarantine_after; /* a device that fails in this many calls with work in a row
                                  is quarantined; 1 to 1000000; 0: APPORTION_QUARANTINE_AFTER,
                                  else 3 */
} apo_config;

#define APO_CONFIG_INIT                                                                            \
    {                                                                                              \
        .size = sizeof(apo_config), .devices = NULL, .cpu_threads = 0,                             \
        .use_gpu = APO_USE_GPU_UNSET, .sim_clock = APO_SIM_CLOCK_UNSET, .multigpu_path = NULL,     \
        .thresholds_path = NULL, .profiles = APO_SWITCH_UNSET, .learn = APO_SWITCH_UNSET,          \
        .persist_interval_s = 0, .gpu_memory_mb = 0, .nccl = APO_SWITCH_UNSET,                     \
        .mpi = APO_SWITCH_UNSET, .mpi_timeout_s = 0, .deadline_factor = 0, .deadline_floor_s = 0,  \
        .quarantine_after = 0                                                                      \
    }

/* Creates a runtime: reads the configuration, discovers and opens the devices and starts
 * one persistent worker thread per device. `config` may be NULL (all defaults).
 * Returns APO_ERR_NULL when out is NULL, APO_ERR_INVALID_ARGUMENT for a config whose size
 * is unknown or a field out of range, APO_ERR_BAD_DEVICE_SPEC for a device list that does
 * not parse (the message names the item and the reason), APO_ERR_GPU_REQUIRED when
 * use_gpu is YES and no GPU is usable, APO_ERR_OUT_OF_MEMORY, APO_ERR_INTERNAL when a
 * thread primitive cannot be set up. A list that selects no usable device (only GPU items,
 * no GPU) is not an error: the cpu carries on, with a warning. On failure *out is NULL. */
APO_EXPORT apo_status apo_runtime_create(const apo_config *config, apo_runtime **out);

/* Stops the worker threads and frees the runtime. Accepts NULL. A worker still inside a
 * task abandoned at its deadline is woken (sim devices) and given a short grace; one that
 * stays stuck (a driver that never returns) is detached and the runtime's memory is kept
 * alive for it on purpose, with a WARN log line, rather than hanging here. Refined models
 * not yet stored are written first (profiles and learning on), which waits for the lock of
 * multigpu.json, up to 30 s, while another process holds it. */
APO_EXPORT void apo_runtime_destroy(apo_runtime *rt);

/* Warnings gathered while the runtime was created (an ignored environment value, why no
 * GPU is used, ...). Each is reported once, here; the library never prints.
 * Returns APO_ERR_NULL or APO_ERR_NOT_FOUND for an index past the end. */
APO_EXPORT apo_status apo_runtime_warning_count(const apo_runtime *rt, size_t *count);
APO_EXPORT apo_status apo_runtime_warning(const apo_runtime *rt, size_t index,
                                          const char **message);

/* What a creation warning is about, for a caller that shows some warnings and not others:
 * the command line keeps APO_WARNING_NO_GPU_HERE off stderr (docs/api.md, "Warnings"). */
typedef enum apo_warning_kind {
    APO_WARNING_PLAIN = 0,      /* every other warning: an ignored setting, a GPU that failed */
    APO_WARNING_NO_GPU_HERE = 1 /* "no GPU in use" where the device list asked for GPUs only
                                 * through `auto` and the machine has none to offer (a build
                                 * without CUDA, no NVIDIA driver): a fact, not a fault */
} apo_warning_kind;

/* The kind of warning `index`. Returns APO_ERR_NULL, or APO_ERR_NOT_FOUND for an index past
 * the end. */
APO_EXPORT apo_status apo_runtime_warning_kind(const apo_runtime *rt, size_t index,
                                               apo_warning_kind *kind);

/* ---------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------- */
typedef enum apo_device_kind {
    APO_DEVICE_CPU = 0,
    APO_DEVICE_CUDA = 1,
    APO_DEVICE_SIM = 2,
    APO_DEVICE_RANK = 3 /* another MPI rank's devices, seen from rank 0 (docs/cluster.md) */
} apo_device_kind;

/* Returns "cpu", "cuda", "sim" or "rank" (never NULL). */
APO_EXPORT const char *apo_device_kind_name(apo_device_kind kind);

#define APO_ID_MAX 64
#define APO_LABEL_MAX 128
#define APO_MAX_DEVICES 64

typedef struct apo_device_info {
    size_t size; /* sizeof(apo_device_info); set by APO_DEVICE_INFO_INIT */
    /* Every device */
    char id[APO_ID_MAX];       /* "cpu", "sim:NAME", the GPU's UUID or "rank:N@HOST" */
    char label[APO_LABEL_MAX]; /* human-readable ("cpu (2 threads)") */
    apo_device_kind kind;
    int threads;                 /* cpu: OpenMP threads; sim: 1; cuda: host threads that drive
                                    it (its worker and its staging-copy helpers, docs/cuda.md) */
    uint64_t memory_total_bytes; /* host memory for cpu and sim, device memory for cuda */
    uint64_t memory_free_bytes;
    /* cuda only, else 0 or "" */
    int compute_capability_major;
    int compute_capability_minor;
    int multiprocessors;
    int copy_engines;
    char pci_bus_id[16]; /* "dddd:bb:dd.0" */
    /* sim only, else 0 */
    double sim_rate;         /* modelled elements per second */
    double sim_latency_s;    /* modelled fixed latency, paid once per call */
    uint64_t sim_slow_after; /* from its Nth call with work on, it runs at sim_slow_rate
                                (0: never) */
    double sim_slow_rate;
    uint64_t sim_fail_after; /* fails from this task on (0: never) */
    uint64_t sim_hang_after; /* from this task on, a task never answers (0: never) */
    double sim_flaky;        /* probability that a task fails (0: never) */
    uint64_t sim_seed;       /* the seed of its flaky draws */
    /* rank only, else 0 or "" */
    int mpi_rank;             /* the MPI rank in MPI_COMM_WORLD */
    char host[APO_LABEL_MAX]; /* the host it runs on */
    size_t rank_devices;      /* how many local devices it serves with */
    /* Every device: what its speed depends on beyond its id ("threads=16,isa=avx2,model=...",
     * "rate=1e+08,latency=5e-05,clock=virtual", "budget_mb=4096,cc=9.0,sms=132", or a rank's
     * device list). A stored model is used only by a device of the same id and config
     * (docs/profiles.md, "Device configurations"). */
    char config[APO_LABEL_MAX];
} apo_device_info;

#define APO_DEVICE_INFO_INIT                                                                       \
    { .size = sizeof(apo_device_info) }

/* Number of devices the runtime uses, in device order. */
APO_EXPORT apo_status apo_device_count(const apo_runtime *rt, size_t *count);

/* Describes device `index`. `info->size` must be set (APO_DEVICE_INFO_INIT).
 * Returns APO_ERR_NULL, APO_ERR_NOT_FOUND for an index past the end,
 * APO_ERR_INVALID_ARGUMENT for an unknown info->size. */
APO_EXPORT apo_status apo_device_get(const apo_runtime *rt, size_t index, apo_device_info *info);

/* GPUs found and usable (0 when none, or built without CUDA). */
APO_EXPORT apo_status apo_gpu_count(const apo_runtime *rt, size_t *count);

/* ---------------------------------------------------------------------------------------
 * Kernels
 * ------------------------------------------------------------------------------------- */

/* What a kernel's CPU function is asked to compute: the samples [begin, end) of one row,
 * where begin is a tile boundary. The function may read inputs from begin - halo on (never
 * before index 0) and writes outputs only inside [begin, end). */
typedef struct apo_kernel_call {
    size_t rows, cols;           /* shape of the whole workload */
    size_t row;                  /* the row to compute */
    size_t begin, end;           /* sample range within the row */
    const double *const *inputs; /* n_inputs arrays of rows*cols, row-major */
    double *const *outputs;      /* n_outputs arrays of rows*cols, row-major */
    size_t n_inputs, n_outputs;
    const double *params; /* values in the descriptor's parameter order */
    size_t n_params;
    uint64_t seed;
} apo_kernel_call;

/* A kernel's CPU implementation. Returns APO_OK, or any other status to fail the call with
 * APO_ERR_KERNEL_FAILED (the returned status's name is in apo_last_error()). Called concurrently
 * for different tiles: it must not keep shared mutable state. */
typedef apo_status (*apo_cpu_kernel_fn)(const apo_kernel_call *call, void *user);

/* A kernel's CUDA launcher (stream last, as a cudaStream_t passed through void *). It
 * enqueues the work of [begin, end) of one row (several whole tiles) on the stream and
 * returns APO_OK once launched. In the call, inputs and outputs are device pointers that
 * index like the host arrays (element (r, t) at [r * cols + t]); only the samples from
 * begin - halo of the row's range and the outputs inside it are there. It must compute the
 * same bits as the cpu function does tile by tile (docs/cuda.md). */
typedef apo_status (*apo_cuda_kernel_fn)(const apo_kernel_call *call, void *user, void *stream);

#define APO_NAME_MAX 32
#define APO_MAX_IO 8
#define APO_MAX_PARAMS 8

/* A user kernel: every output has the input's shape (rows x cols), and the sample at
 * position t of an output depends on inputs at positions t-halo .. t of the same row. */
typedef struct apo_kernel_desc {
    size_t size;                     /* sizeof(apo_kernel_desc); set by APO_KERNEL_DESC_INIT */
    const char *name;                /* [A-Za-z0-9_]+, at most APO_NAME_MAX-1 characters */
    size_t n_inputs;                 /* 1 .. APO_MAX_IO */
    size_t n_outputs;                /* 1 .. APO_MAX_IO */
    const char *const *input_names;  /* n_inputs names, or NULL for "in0", "in1", ... (0.2) */
    const char *const *output_names; /* n_outputs names, or NULL for "out0", "out1", ... */
    size_t n_params;                 /* 0 .. APO_MAX_PARAMS */
    const char *const *param_names;  /* n_params names */
    const double *param_defaults;    /* n_params values */
    size_t halo;                     /* earlier samples a tile needs */
    size_t tile;                     /* tile length along time; 0: 4096 */
    apo_cpu_kernel_fn cpu;           /* required */
    apo_cuda_kernel_fn cuda;         /* optional, NULL */
    void *user;                      /* passed to cpu and cuda */
} apo_kernel_desc;

#define APO_KERNEL_DESC_INIT                                                                       \
    { .size = sizeof(apo_kernel_desc) }

/* Registers a user kernel under desc->name. The descriptor is copied (names included).
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (the message says which field),
 * APO_ERR_ALREADY_EXISTS when the name is taken (built-ins included). */
APO_EXPORT apo_status apo_kernel_register(apo_runtime *rt, const apo_kernel_desc *desc);

/* Describes a kernel, built-in or registered: its name, inputs, outputs, parameters with
 * their bounds, and its halo. The returned pointers stay valid for the runtime's life. */
typedef struct apo_kernel_info {
    size_t size; /* sizeof(apo_kernel_info); set by APO_KERNEL_INFO_INIT */
    const char *name;
    int builtin;
    size_t n_inputs, n_outputs, n_params;
    /* The inputs' names, in the order of apo_workload.inputs ("close"; "high", "low",
     * "close"; ...): the CLI and Python map columns to inputs by them. New in 0.2. */
    const char *input_names[APO_MAX_IO];
    const char *output_names[APO_MAX_IO];
    const char *param_names[APO_MAX_PARAMS];
    double param_defaults[APO_MAX_PARAMS];
    /* Each parameter's accepted range, inclusive (-HUGE_VAL and HUGE_VAL: none), and whether
     * it must be a whole number. The kernel may check more (bollinger's period against the
     * series' length). New in 0.2. */
    double param_min[APO_MAX_PARAMS], param_max[APO_MAX_PARAMS];
    int param_integer[APO_MAX_PARAMS];
    /* The halo: input samples before a tile's first position that the tile reads, at the
     * default parameters; `halo_rule` says in words how it follows the parameters. With
     * halo_whole_row, every tile reads its whole row (halo is then 0). New in 0.2. */
    size_t halo;
    int halo_whole_row;
    const char *halo_rule;
} apo_kernel_info;

#define APO_KERNEL_INFO_INIT                                                                       \
    { .size = sizeof(apo_kernel_info) }

/* Returns APO_ERR_NULL, APO_ERR_UNKNOWN_KERNEL. */
APO_EXPORT apo_status apo_kernel_get(const apo_runtime *rt, const char *name,
                                     apo_kernel_info *info);
/* Number of kernels (built-ins first, then registered ones) and the name of each. */
APO_EXPORT apo_status apo_kernel_count(const apo_runtime *rt, size_t *count);
APO_EXPORT apo_status apo_kernel_name(const apo_runtime *rt, size_t index, const char **name);

/* ---------------------------------------------------------------------------------------
 * Workloads
 * ------------------------------------------------------------------------------------- */
typedef enum apo_split {
    APO_SPLIT_AUTO = 0, /* the runtime chooses (docs/design.md) */
    APO_SPLIT_ROWS = 1, /* each row whole on one device */
    APO_SPLIT_TIME = 2  /* rows cut into tiles along time */
} apo_split;

/* Returns "auto", "rows" or "time". */
APO_EXPORT const char *apo_split_name(apo_split split);

typedef struct apo_param {
    const char *name;
    double value;
} apo_param;

/* A parameter swept over a list of values (apo_sweep, grid form). */
typedef struct apo_sweep_param {
    const char *name;     /* a parameter of the kernel, not also in apo_workload.params */
    const double *values; /* n_values values, each checked as the kernel checks the parameter */
    size_t n_values;      /* at least 1 */
} apo_sweep_param;

/* At most this many sets in a sweep (docs/api.md, "Sweeps"). */
#define APO_MAX_SWEEP_SETS 65536

/* Several parameter sets evaluated in one call (docs/api.md, "Sweeps"). Either the grid
 * form (grid, n_grid: the cross product of the values, the first parameter varying slowest)
 * or the list form (names, n_names, values, n_sets: set s is values[s * n_names ..]), not
 * both. Parameters not swept come from apo_workload.params or their defaults. The call runs
 * sets [first_set, first_set + n_sets_run) (n_sets_run 0: every set from first_set on), and
 * output k holds them set-major: sets x rows x out_cols. */
typedef struct apo_sweep {
    size_t size; /* sizeof(apo_sweep); set by APO_SWEEP_INIT */
    /* Grid form */
    const apo_sweep_param *grid;
    size_t n_grid;
    /* List form */
    const char *const *names;
    size_t n_names;
    const double *values; /* n_sets x n_names, set-major */
    size_t n_sets;
    /* The sets this call runs */
    size_t first_set;
    size_t n_sets_run; /* 0: every set from first_set on */
} apo_sweep;

#define APO_SWEEP_INIT                                                                             \
    { .size = sizeof(apo_sweep) }

/* Bars [begin, end) of a series: a range a scored call scores on its own (docs/scores.md,
 * "Ranges"). New in 0.2. */
typedef struct apo_range {
    size_t begin, end;
} apo_range;

/* At most this many ranges in one scored call (apo_workload.ranges). */
#define APO_MAX_SCORE_RANGES 1024

typedef struct apo_workload {
    size_t size;                 /* sizeof(apo_workload); set by APO_WORKLOAD_INIT */
    const char *kernel;          /* kernel name */
    size_t rows, cols;           /* rows independent series of cols samples, row-major */
    const double *const *inputs; /* n_inputs host arrays of rows*cols */
    size_t n_inputs;
    double *const *outputs; /* n_outputs host arrays, shaped by apo_output_shape() */
    size_t n_outputs;
    const apo_param *params; /* named parameters; unnamed ones take their defaults */
    size_t n_params;
    uint64_t seed;          /* keys every random draw by its global index */
    const char *tag;        /* workload tag for profiles (1-63 bytes, no control character);
                               NULL: the kernel name */
    apo_split split;        /* APO_SPLIT_AUTO unless forced */
    const double *ratios;   /* optional shares in device order (n_ratios == devices) */
    size_t n_ratios;        /* 0: no explicit ratios */
    apo_switch learn;       /* online refinement from this call: UNSET, the runtime's setting
                               (apo_config.learn, APPORTION_LEARN); OFF, this call refines no
                               model; ON, it learns if the runtime does */
    const apo_sweep *sweep; /* several parameter sets in one call; NULL: one set, the params */
    /* Series of different lengths (docs/api.md, "Ragged rows"): row r is its first
     * row_lengths[r] samples (1 .. cols; the rows keep their stride of cols), computed
     * exactly as a call with that series alone; outputs past a row's own length are NaN.
     * NULL: every row is cols long. */
    const size_t *row_lengths;
    /* A rule that turns the kernel's outputs into positions, scored per series (docs/api.md,
     * "Scores"): "bands_revert" or "bands_zone" on bollinger, "macd_cross" on macd,
     * "<ind>_zone" and "<ind>_revert" on rsi, stochf, willr, cci, mfi, cmo, "stoch_cross",
     * "stochf_cross", "price_cross" on the moving averages (docs/scores.md, "Rules"). The
     * call then stores no indicator output: its outputs are the APO_N_SCORES scores, each
     * (sets run x rows) x 1, and its parameters include the rule's thresholds `lower` and
     * `upper` (zone and revert rules), `cost` (default 0), `periods_per_year` (default
     * 252) and `side` (built-in rules: 0 both, the default; 1 long-only; -1 short-only),
     * which a sweep may vary too. A built-in rule's name may end in a view: "/compound" and
     * "/log" (total and max_drawdown of the compounded equity), "/more" (the APO_N_MORE
     * scores: docs/scores.md, "More statistics and compounding"). NULL: no scoring. New in
     * 0.2. */
    const char *score;
    /* A scored call's ranges (docs/scores.md, "Ranges"): n_ranges ranges of bars, sorted by
     * begin and then end, none twice, each 0 <= begin < end <= cols (they may overlap). Each
     * set's scores are then given on every range, in one pass over the data, each range's
     * bitwise those of scoring that range alone: the indicator over the whole history, the
     * positions and scores from the range's first bar. Each score output is then
     * (sets run x rows) x n_ranges. NULL (n_ranges 0): the whole series, one column. New in
     * 0.2. */
    const apo_range *ranges;
    size_t n_ranges;
} apo_workload;

#define APO_WORKLOAD_INIT                                                                          \
    { .size = sizeof(apo_workload) }

/* A user's rule (docs/scores.md, "User rules"): the position at one bar with a finite
 * close, from `inputs` (the kernel's inputs at the bar, in its input order), `outputs` (its
 * outputs at the bar, in its output order; NaN where not yet defined) and `prev`, the
 * position of the bar before (0 before the first). Returns -1 (short), 0 (flat) or +1
 * (long); any other value fails the call with APO_ERR_KERNEL_FAILED. It is called from
 * several threads at once (different series and sets of one call), so it must not keep
 * shared mutable state without its own synchronisation. New in 0.2. */
typedef int (*apo_rule_fn)(const double *inputs, const double *outputs, int prev, void *user);

typedef struct apo_rule_desc {
    size_t size;        /* sizeof(apo_rule_desc); set by APO_RULE_DESC_INIT */
    const char *name;   /* [A-Za-z0-9_]+, at most APO_NAME_MAX-1 characters */
    const char *kernel; /* the indicator it reads: a built-in with per-bar outputs */
    apo_rule_fn fn;     /* required */
    void *user;         /* passed to fn */
} apo_rule_desc;

#define APO_RULE_DESC_INIT                                                                         \
    { .size = sizeof(apo_rule_desc) }

/* Registers a user rule: apo_workload.score = desc->name on desc->kernel then scores with
 * it (the scored kernel "<kernel>:<name>" of this runtime), with the scores of a built-in
 * rule. The descriptor is copied (names included); fn and user must outlive the runtime.
 * Host devices (cpu, simulated) run it; ranks and GPUs take no share of its calls. Returns
 * APO_ERR_NULL, APO_ERR_UNKNOWN_KERNEL (no such kernel), APO_ERR_INVALID_ARGUMENT (a bad
 * name or size, a NULL fn, a kernel that cannot be scored, a full table),
 * APO_ERR_ALREADY_EXISTS (a built-in rule's name, or one registered for that kernel). New in
 * 0.2. */
APO_EXPORT apo_status apo_rule_register(apo_runtime *rt, const apo_rule_desc *desc);

/* Shape of output `index` of a workload (after parameter validation): rows x out_cols.
 * The indicators' outputs are rows x cols; reductions give rows x 1; bootstrap's `means`
 * is rows x replicates. With a sweep, *out_rows is the sets run times rows (set-major). With
 * row_lengths the shape is the same, for cols samples a row (each row's own outputs first,
 * then NaN). Returns the
 * same errors as apo_distribute_workload()'s validation of the kernel, shape and parameters
 * (buffers are not looked at), and APO_ERR_NOT_FOUND for an index past the kernel's outputs. */
APO_EXPORT apo_status apo_output_shape(const apo_runtime *rt, const apo_workload *w, size_t index,
                                       size_t *out_rows, size_t *out_cols);

/* The scores of a scored call (apo_workload.score), in the order of its outputs: the sum of
 * the bars' returns, their mean and population standard deviation, the annualised Sharpe
 * ratio, the largest fall of the running sum from its peak, the changes of position, the
 * share of bars held long or short, and the bars scored (docs/scores.md, "Scores"). */
enum {
    APO_SCORE_TOTAL = 0,
    APO_SCORE_MEAN = 1,
    APO_SCORE_SD = 2,
    APO_SCORE_SHARPE = 3,
    APO_SCORE_MAX_DRAWDOWN = 4,
    APO_SCORE_TRADES = 5,
    APO_SCORE_EXPOSURE = 6,
    APO_SCORE_BARS = 7,
    APO_N_SCORES = 8
};

/* The outputs of a scored call whose rule names the view "/more" (apo_workload.score =
 * "bands_revert/more"), in order: the annualised Sortino ratio, the Calmar ratio, the
 * compounded annual growth, the trades' share that won, their profit factor and mean return,
 * the units of position traded a year, and the trades (docs/kernels.md, "More statistics and
 * compounding"). */
enum {
    APO_MORE_SORTINO = 0,
    APO_MORE_CALMAR = 1,
    APO_MORE_CAGR = 2,
    APO_MORE_WIN_RATE = 3,
    APO_MORE_PROFIT_FACTOR = 4,
    APO_MORE_AVG_TRADE = 5,
    APO_MORE_TURNOVER = 6,
    APO_MORE_ROUND_TRIPS = 7,
    APO_N_MORE = 8
};

/* Scores one series whose indicator outputs are already in memory, as a scored call would:
 * n bars of `close` and the kernel's outputs (outputs[k] holds output k of `kernel`, n
 * values), with `rule`, `cost` (0 .. 1) and `periods_per_year` (> 0); writes APO_N_SCORES
 * values. The same bars are folded in the same order as in a scored call, so the scores are
 * bitwise those of apo_distribute_workload() with apo_workload.score. A rule with
 * thresholds (rsi_zone) takes its defaults here; apo_score_outputs_with() takes others. Returns
 * APO_ERR_NULL, APO_ERR_UNKNOWN_KERNEL (an unknown rule or kernel), APO_ERR_INVALID_ARGUMENT (a
 * rule that does not fit the kernel, n_outputs not the kernel's), APO_ERR_BAD_PARAM (cost or
 * periods_per_year out of range). New in 0.2. */
APO_EXPORT apo_status apo_score_outputs(const char *kernel, const char *rule, const double *close,
                                        const double *const *outputs, size_t n_outputs, size_t n,
                                        double cost, double periods_per_year, double *scores);

/* apo_score_outputs() for a rule with thresholds of its own (rsi_zone's lower and upper):
 * `params` names the scored call's parameters, checked as a scored call checks them (the
 * rule's thresholds, lower below upper, cost, periods_per_year; those not named take their
 * defaults; the indicator's own are accepted and change nothing, its outputs being given).
 * apo_score_outputs() is this call with the thresholds at their defaults. Returns the errors
 * of apo_score_outputs(); APO_ERR_BAD_PARAM names the parameter. New in 0.2. */
APO_EXPORT apo_status apo_score_outputs_with(const char *kernel, const char *rule,
                                             const double *close, const double *const *outputs,
                                             size_t n_outputs, size_t n, const apo_param *params,
                                             size_t n_params, double *scores);

/* The windows of a walk-forward over `cols` bars (docs/scores.md, "Walk-forward"): window i
 * tests on [e, min(e + test, cols)), e = train + i * test, while e < cols, and trains on
 * [e - train, e) (fixed) or [0, e) (anchored != 0). Writes the windows' distinct ranges into
 * ranges[0 .. *n_ranges) sorted as apo_workload.ranges takes them, and for window i the
 * index of its train range (train_of[i]) and of its test range (test_of[i]); at most
 * `capacity` windows (ranges holds 2 * capacity). Returns APO_ERR_NULL, and
 * APO_ERR_INVALID_ARGUMENT (train or test 0, train >= cols: no test bar; more windows than
 * `capacity` or than APO_MAX_SCORE_RANGES / 2, the message saying how many). New in 0.2. */
APO_EXPORT apo_status apo_walk_forward(size_t cols, size_t train, size_t test, int anchored,
                                       size_t capacity, apo_range *ranges, size_t *n_ranges,
                                       size_t *train_of, size_t *test_of, size_t *n_windows);

/* apo_score_outputs_with(), also writing bar by bar what the fold folds (docs/scores.md, "The
 * positions of one set"): position[t], the rule's position after bar t (-1, 0 or +1);
 * returns[t], the bar's return (NaN at a bar that is not scored); equity[t], the view's
 * running total after it (0 before the first scored bar: the sum of the returns, the
 * compounded equity less 1 for "/compound" and "/more", its logarithm for "/log"), whose
 * value at the last scored bar is the `total` score bit for bit. Each array holds n values
 * or is NULL (not written); scores (APO_N_SCORES values, or NULL) are those of
 * apo_score_outputs_with(), so bitwise those of a scored call of the set. Returns the errors
 * of apo_score_outputs_with(). New in 0.2. */
APO_EXPORT apo_status apo_score_positions(const char *kernel, const char *rule, const double *close,
                                          const double *const *outputs, size_t n_outputs, size_t n,
                                          const apo_param *params, size_t n_params,
                                          double *position, double *returns, double *equity,
                                          double *scores);

typedef enum apo_ratio_source {
    APO_RATIOS_EQUAL = 0,    /* no ratios known: equal shares */
    APO_RATIOS_EXPLICIT = 1, /* the caller's ratios */
    APO_RATIOS_PROFILE = 2,  /* a stored profile */
    APO_RATIOS_ONLINE = 3    /* models refined by earlier calls */
} apo_ratio_source;

/* Returns "equal", "explicit", "profile" or "online". */
APO_EXPORT const char *apo_ratio_source_name(apo_ratio_source source);

typedef struct apo_device_report {
    /* The device */
    char id[APO_ID_MAX];
    char label[APO_LABEL_MAX];
    apo_device_kind kind;
    int simulated; /* a sim device, a rank with one, or a GPU of the simulated CUDA runtime */
    /* Its work */
    double share;        /* its normalised ratio: the planned fraction before rounding to whole
                            tiles (`elements` says what it computed) */
    uint64_t elements;   /* elements it actually computed (failover included) */
    uint64_t tiles;      /* tiles it actually computed */
    uint64_t chunks;     /* pieces its work was staged in (GPUs: bounded by the memory budget;
                            cpu and sim: tasks) */
    int threads_offered; /* the cpu device: the most threads any of its tasks in this call
                            offered its tiles to: its thread count, or 1 when the calling
                            thread computed them alone (a task under 32,768 elements, or one
                            while the device keeps its helper threads out after a task that
                            waited for a preempted helper; docs/scheduling.md); 0 for other
                            devices and a cpu device without work */
    /* Its time */
    double wall_ms;                   /* busy time on the host clock. For cpu and sim devices it is
                                         first_touch + h2d + kernel + d2h; a GPU overlaps its phases,
                                         so its wall time may be less than their sum */
    double h2d_ms, kernel_ms, d2h_ms; /* GPUs: summed from CUDA events */
    double host_copy_ms;              /* GPUs: host copies between the caller's arrays and pinned
                                         staging memory, on the host clock; else 0 */
    double first_touch_ms;            /* cpu and sim: the first write into each page of the caller's
                                         output elements it computed, before its tiles (page faults of
                                         fresh arrays); part of wall_ms, not of kernel_ms, nor of what
                                         online refinement learns (wall_ms less this); else 0 */
    double overlap;    /* GPUs: (host_copy + h2d + kernel + d2h) / the time at least one of them was
                          running, from their intervals: 1 when nothing overlapped; 0 when not
                          measured (cpu, sim, rank) */
    double wait_ms;    /* idle time within the makespan */
    double throughput; /* elements per second while busy */
    /* Its faults */
    int failed;                  /* it failed during the call */
    int deadline_missed;         /* it did not finish a task within its deadline: the task was
                                    abandoned (failed is also set) */
    double deadline_ms;          /* the longest deadline it was given in this call (0: no work) */
    char failure[APO_LABEL_MAX]; /* why, when failed */
    uint64_t elements_moved_out; /* elements it was given (planned or taken over) but did not
                                    compute, because it failed: they went to others */
    uint64_t elements_moved_in;  /* elements it computed on behalf of failed devices */
    int quarantined;             /* it gets no work for the rest of the runtime's life */
    char quarantine_reason[APO_LABEL_MAX]; /* why, when quarantined, else "" */
    /* Why the models gave it no share of this call, when they chose (docs/scheduling.md,
     * "Configurations and the guard"), e.g. "sim:cpu16 alone is faster: 52.3 ms against
     * 93.1 ms for the split (host memory bound)"; else "". New in 0.2. */
    char no_share_reason[APO_LABEL_MAX];
} apo_device_report;

/* How the outputs that GPUs computed for another GPU got there (apportion_cuda.h). */
typedef enum apo_gather {
    APO_GATHER_NONE = 0, /* nothing to gather: outputs in host memory, or written in place */
    APO_GATHER_PEER = 1, /* CUDA peer copies */
    APO_GATHER_NCCL = 2  /* one grouped NCCL send and receive after the phase */
} apo_gather;

/* Returns "none", "peer" or "nccl". */
APO_EXPORT const char *apo_gather_name(apo_gather gather);

typedef struct apo_report {
    size_t size; /* sizeof(apo_report); set by APO_REPORT_INIT */
    /* The workload */
    char kernel[APO_NAME_MAX];
    size_t rows, cols;
    uint64_t seed;
    uint64_t elements; /* elements in the workload (across the sets run) */
    size_t sets;       /* parameter sets run (1 without a sweep) */
    size_t first_set;  /* the sweep's index of the first set run (0 without a sweep) */
    size_t sweep_sets; /* sets in the whole sweep (1 without a sweep) */
    /* The plan */
    apo_split split_axis; /* the axis used (never AUTO) */
    apo_ratio_source ratio_source;
    size_t tile;    /* tile length along the tiled axis (of the first set run) */
    uint64_t tiles; /* tiles in the grid */
    /* The run */
    double makespan_ms;        /* first dispatch to last merge */
    double balance_efficiency; /* ideal makespan from measured rates / actual, 0..1 */
    int simulated;             /* any device simulated */
    int virtual_clock;         /* sim times are modelled, not waited */
    apo_gather gather;         /* how GPU outputs reached the destination GPU */
    double gather_ms;          /* time of the gather after the phase (NCCL or its fallback) */
    /* The faults */
    size_t failovers;        /* devices that failed during the call */
    size_t deadlines_missed; /* devices that missed a deadline during the call */
    size_t quarantined;      /* devices quarantined, during this call or before */
    /* The outputs */
    uint64_t nonfinite_outputs; /* output values that are not finite although every input
                                   sample defining them is: an overflow for inputs beyond
                                   the range the kernel computes through (docs/kernels.md,
                                   "Range"). bollinger and macd with host arrays; else 0 */
    /* Per device, in device order: entries 0 .. n_devices - 1 */
    size_t n_devices;
    apo_device_report devices[APO_MAX_DEVICES];
} apo_report;

#define APO_REPORT_INIT                                                                            \
    { .size = sizeof(apo_report) }

/* Splits the workload across the runtime's devices, runs it, and merges the partial
 * results in tile order. The outputs are bitwise identical whatever the device set and
 * ratios (docs/determinism.md). `report` may be NULL; when given, report->size must be set.
 * A device that fails mid-call, or misses its deadline, has its unfinished tiles redone by
 * the others; the report says which failed and what moved. A device that keeps failing is
 * quarantined for the runtime's life (apo_config.quarantine_after).
 * A late task never touches the caller's arrays once the call has moved on.
 * Returns APO_ERR_NULL (rt, w, w->kernel, an input or an output array NULL, params or
 * ratios NULL with a nonzero count, a parameter with a NULL name), APO_ERR_INVALID_ARGUMENT
 * (zero rows or cols, wrong number of inputs, outputs or ratios, bad ratios, unknown
 * struct size, an output array that overlaps an input or another output (no kernel works in
 * place), called from inside a user kernel that rt is running), APO_ERR_OVERFLOW
 * (rows*cols*8 does not fit in size_t),
 * APO_ERR_UNKNOWN_KERNEL, APO_ERR_BAD_PARAM (unknown name, out of range, not an integer
 * where one is needed; for a sweep, the message names the set; with row_lengths, a row the
 * kernel refuses alone, named; a row length of 0 or past cols is APO_ERR_INVALID_ARGUMENT),
 * APO_ERR_KERNEL_FAILED (a
 * user kernel failed),
 * APO_ERR_ALL_DEVICES_FAILED (no device survived, or every device that could run it is
 * quarantined; outputs are then incomplete),
 * APO_ERR_OUT_OF_MEMORY. */
APO_EXPORT apo_status apo_distribute_workload(apo_runtime *rt, const apo_workload *w,
                                              apo_report *report);

/* ---------------------------------------------------------------------------------------
 * Streams (docs/streaming.md): a workload fed a few new bars at a time, whose outputs,
 * update after update, are bit for bit those of one apo_distribute_workload() call over the
 * whole history, however the history was cut into updates.
 * ------------------------------------------------------------------------------------- */
typedef struct apo_stream apo_stream;

/* What a stream computes: a kernel with per-bar outputs, its parameters, and how many
 * series it follows. No data: the bars come with the updates. New in 0.2. */
typedef struct apo_stream_desc {
    size_t size;             /* sizeof(apo_stream_desc); set by APO_STREAM_DESC_INIT */
    const char *kernel;      /* kernel name, built-in or registered */
    size_t n_series;         /* independent series (1 .. APO_STREAM_MAX_SERIES) */
    const apo_param *params; /* named parameters; unnamed ones take their defaults */
    size_t n_params;
    uint64_t seed; /* passed to user kernels, as apo_workload.seed */
    /* Several parameter sets, as apo_workload.sweep gives them (grid or list, first_set and
     * n_sets_run included; the swept parameters not also in params): every update then
     * computes each set run, and each set's outputs are bit for bit those of a stream of
     * that set alone (docs/streaming.md, "Sweeps"). NULL: one set, the params. */
    const apo_sweep *sweep;
    /* An update whose series with a whole tile or more of new bars bring at least this many
     * new bars together hands those series to the runtime's devices as one batch call, split
     * by measured speed (docs/streaming.md, "Large updates"); smaller updates run on the
     * calling thread. 0: 1 << 20 where the runtime has a device besides the cpu, else never
     * (the calling thread is about as fast as the cpu device there); SIZE_MAX: never. Not part of
     * the saved state: a load takes expect's, else the default. New in 0.2. */
    size_t device_bars;
    /* Bars each series keeps so that apo_stream_revise() may replace up to this many of its
     * last bars (docs/streaming.md, "Revise"): its kept window then reaches back to the start
     * of bar n - revise_bars's tile, less the halo. 0 (the default): no revise. At most
     * 2^24 (a kernel that carries its run, obv, ad, sar, ..., keeps its last K bars and its
     * state K bars back). Part of
     * the saved state. New in 0.3. */
    size_t revise_bars;
    /* A rule, as apo_workload.score names it ("rsi_zone", "bands_revert/more"; a built-in
     * rule, or a user's registered on the runtime with apo_rule_register()): the stream then
     * follows the scored kernel "<kernel>:<score>", its params and sweep naming that kernel's
     * (the indicator's, then the rule's lower and upper, cost, periods_per_year, side), and
     * its outputs are the APO_LIVE_N_OUTPUTS below, bar by bar: the positions and scores the
     * batch scored call and apo_score_positions() give over the history so far
     * (docs/streaming.md, "Live rules"). Such a stream updates, peeks, forks, saves, loads,
     * joins groups, resumes (its folds then begin, flat, at the bar after the history: the
     * batch's range from there) and, with revise_bars, revises. A user's rule is asked
     * at every new bar before anything moves (a return other than -1, 0 or 1 refuses the
     * update, or a group's, or a revise: APO_ERR_KERNEL_FAILED).
     * NULL: the kernel's own outputs. New in 0.3. */
    const char *score;
} apo_stream_desc;

/* The outputs of a rule's stream (apo_stream_desc.score), per bar: the position after the
 * bar (-1, 0, +1), its return (NaN at a bar that is not scored), the view's running total
 * after it (apo_score_positions()'s three), then the APO_N_SCORES scores (or the view's, for
 * "/more") of the history up to the bar. Any but the position may be NULL: not written. */
enum {
    APO_LIVE_POSITION = 0,
    APO_LIVE_RETURN = 1,
    APO_LIVE_TOTAL = 2,
    APO_LIVE_SCORES = 3,
    APO_LIVE_N_OUTPUTS = 3 + APO_N_SCORES
};

#define APO_STREAM_DESC_INIT                                                                       \
    { .size = sizeof(apo_stream_desc) }

/* At most this many series in one stream. */
#define APO_STREAM_MAX_SERIES ((size_t)1 << 24)

/* Creates a stream of desc->n_series empty series. The kernel must have per-bar outputs:
 * the reductions (returns_stats, bootstrap) are refused with APO_ERR_INVALID_ARGUMENT. The
 * stream refers to rt's kernel, so rt must outlive it. Returns APO_ERR_NULL,
 * APO_ERR_INVALID_ARGUMENT, APO_ERR_UNKNOWN_KERNEL, APO_ERR_BAD_PARAM,
 * APO_ERR_OUT_OF_MEMORY. */
APO_EXPORT apo_status apo_stream_create(apo_runtime *rt, const apo_stream_desc *desc,
                                        apo_stream **out);

/* Appends n_new[r] bars to each series r (any count, 0 included) and writes the outputs of
 * exactly those bars. Input i is inputs[i], the new bars packed series after series (series
 * 0's n_new[0] bars, then series 1's, ...); output k is outputs[k], packed the same way, and
 * for a sweep the sets' packed outputs one after another (sets run x the new bars).
 * With no new bar at all, inputs and outputs may be NULL. Runs on the calling thread. An
 * update is all or nothing: on a bad argument, APO_ERR_OUT_OF_MEMORY or APO_ERR_KERNEL_FAILED
 * (a user kernel failed) nothing changed, the saved state byte for byte. Only a large update
 * handed to the devices (desc->device_bars) that fails after some series were fed leaves the
 * stream refusing every later update and save. Returns APO_ERR_NULL,
 * APO_ERR_INVALID_ARGUMENT, APO_ERR_OVERFLOW, APO_ERR_OUT_OF_MEMORY, APO_ERR_KERNEL_FAILED. */
APO_EXPORT apo_status apo_stream_update(apo_stream *s, const size_t *n_new,
                                        const double *const *inputs, double *const *outputs);

/* The outputs that apo_stream_update() with these arguments would give, bit for bit, written
 * to outputs, without committing the bars: afterwards the stream is as it was, its saved
 * state byte for byte (docs/streaming.md, "Peek"). For provisional bars (the bar still
 * forming): peek at them as often as they change, update with them once final. Runs on the
 * calling thread, large updates included. Returns what apo_stream_update() returns; on any
 * failure, too, the stream is as it was. New in 0.3. */
APO_EXPORT apo_status apo_stream_peek(apo_stream *s, const size_t *n_new,
                                      const double *const *inputs, double *const *outputs);

/* Replaces the last k[r] bars of each series r (0 included) with the packed inputs (as an
 * update takes them, k[r] bars a series) and writes the corrected outputs of those bars,
 * packed the same way: bit for bit what a stream fed the corrected bars from the start gives
 * there, and so the batch's over the corrected history (docs/streaming.md, "Revise"). The
 * series keep their bar counts. k[r] may be at most desc->revise_bars and the series' bars;
 * a larger one is APO_ERR_INVALID_ARGUMENT. Runs on the calling thread. All or nothing, as an
 * update: on any failure the stream is as it was, its saved state byte for byte. Returns
 * APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT, APO_ERR_OVERFLOW, APO_ERR_OUT_OF_MEMORY,
 * APO_ERR_KERNEL_FAILED. New in 0.3. */
APO_EXPORT apo_status apo_stream_revise(apo_stream *s, const size_t *k, const double *const *inputs,
                                        double *const *outputs);

/* The bars a series whose history is `bars` long must be given for apo_stream_resume(): the
 * last *needed bars of it (the current tile's, the halo before it, and revise_bars' tiles;
 * docs/streaming.md, "Resume from a window"). Refused as apo_stream_create() refuses desc, and
 * for obv and ad (APO_ERR_INVALID_ARGUMENT), whose running sums no window holds. Returns
 * APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT, APO_ERR_UNKNOWN_KERNEL, APO_ERR_BAD_PARAM,
 * APO_ERR_OUT_OF_MEMORY. New in 0.3. */
APO_EXPORT apo_status apo_stream_resume_needs(apo_runtime *rt, const apo_stream_desc *desc,
                                              uint64_t bars, size_t *needed);

/* A stream of desc that goes on from histories of which it is given only the last bars:
 * series r's n_bars[r] bars, packed series after series in inputs[i] as an update takes them,
 * the first of them at position first[r] of its history (so the series has first[r] +
 * n_bars[r] bars). Its updates then give, bit for bit, what a stream fed the whole histories
 * gives (docs/streaming.md, "Resume from a window"); a rule's stream's folds begin, flat, at
 * series r's bar first[r] + n_bars[r], so its scores are the batch scored call's over the range
 * from there ("Live rules"). Each series must be given at least the
 * bars apo_stream_resume_needs() names for its length (more are fine: the older ones are not
 * read); fewer, obv and ad, or what apo_stream_create() refuses is refused, nothing made.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT, APO_ERR_UNKNOWN_KERNEL, APO_ERR_BAD_PARAM,
 * APO_ERR_OVERFLOW, APO_ERR_OUT_OF_MEMORY. New in 0.3. */
APO_EXPORT apo_status apo_stream_resume(apo_runtime *rt, const apo_stream_desc *desc,
                                        const uint64_t *first, const size_t *n_bars,
                                        const double *const *inputs, apo_stream **out);

/* An independent copy of s (docs/streaming.md, "Fork"): the same series, kept bars and running
 * state, to be fed apart from s (another scenario, a what-if), each giving the bits of its
 * own bars; destroy it with apo_stream_destroy(). It refers to s's runtime, which must
 * outlive it too. Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (s's last update failed part
 * way), APO_ERR_OUT_OF_MEMORY. New in 0.3. */
APO_EXPORT apo_status apo_stream_fork(const apo_stream *s, apo_stream **out);

/* The bars series `series` has been fed so far. Returns APO_ERR_NULL, APO_ERR_NOT_FOUND. */
APO_EXPORT apo_status apo_stream_bars(const apo_stream *s, size_t series, uint64_t *bars);

/* Writes the stream's state (docs/streaming.md, "The state") into buf, *needed its length in
 * bytes. buf NULL: only *needed is set. A cap below *needed is APO_ERR_INVALID_ARGUMENT with
 * *needed set and buf untouched. */
APO_EXPORT apo_status apo_stream_save(const apo_stream *s, void *buf, size_t cap, size_t *needed);

/* Makes a stream from a saved state, to go on exactly where the saved one was. With expect
 * (NULL: none), the state must be of its kernel, parameters (every set run, for a sweep),
 * series count and seed. A state
 * that is truncated, corrupt (checksum), of another format or library version, of a kernel rt
 * does not have (APO_ERR_UNKNOWN_KERNEL) or that differs from expect is refused whole, the
 * message saying why: APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT, APO_ERR_UNKNOWN_KERNEL,
 * APO_ERR_OUT_OF_MEMORY. */
APO_EXPORT apo_status apo_stream_load(apo_runtime *rt, const apo_stream_desc *expect,
                                      const void *buf, size_t len, apo_stream **out);

/* Frees a stream; NULL is a no-op. */
APO_EXPORT void apo_stream_destroy(apo_stream *s);

/* Streams fed together (docs/streaming.md, "Groups"): several streams of the same series
 * count (other kernels, other parameters), each update bringing every input once, by name,
 * and moving every stream or none. The group refers to its streams, which it does not own:
 * they must outlive it, and while it is used no other call may feed them. New in 0.3. */
typedef struct apo_stream_group apo_stream_group;

/* One input of a group update: its name and its new bars, packed series after series as
 * apo_stream_update() takes an input. */
typedef struct apo_named_input {
    const char *name;
    const double *bars;
} apo_named_input;

/* A group of n_streams streams (1 .. APO_STREAM_GROUP_MAX) of the same series count, each
 * appearing once. bind NULL: every stream reads each of its kernel's inputs under the
 * input's own name (apo_kernel_get(): "close", "high", ...); else bind[j] NULL does that for
 * stream j, and bind[j][i] names the group input that feeds input i of stream j's kernel
 * (correl's x and y from "close" and "high"). A rule's stream (apo_stream_desc.score) is a
 * member as any other (new in 0.3). The names are copied. Returns APO_ERR_NULL,
 * APO_ERR_INVALID_ARGUMENT (a count, a series count that differs, a stream twice, an empty
 * name), APO_ERR_OUT_OF_MEMORY. */
APO_EXPORT apo_status apo_stream_group_create(apo_stream *const *streams, size_t n_streams,
                                              const char *const *const *bind,
                                              apo_stream_group **out);

/* At most this many streams in one group. */
#define APO_STREAM_GROUP_MAX 4096

/* Appends n_new[r] bars to series r of every stream of the group and writes their outputs:
 * inputs[0 .. n_inputs) are the new bars by name (each name once; names no stream reads are
 * allowed), outputs[j] stream j's outputs as apo_stream_update() takes them. All or nothing:
 * every stream's arguments are checked and every allocation made before any stream moves,
 * and where a stream may fail part way (a user kernel, a large update handed to the
 * devices) every stream is journaled and put back, and a user's rule is asked at every bar
 * before any stream moves, so that on any failure every stream, its saved state byte for
 * byte, is as it was. Returns APO_ERR_NULL,
 * APO_ERR_INVALID_ARGUMENT (an input missing or named twice, a negative volume, a stream
 * left refusing), APO_ERR_OVERFLOW, APO_ERR_OUT_OF_MEMORY, APO_ERR_KERNEL_FAILED, and a
 * large update's failure on the devices. */
APO_EXPORT apo_status apo_stream_group_update(apo_stream_group *g, const size_t *n_new,
                                              const apo_named_input *inputs, size_t n_inputs,
                                              double *const *const *outputs);

/* What apo_stream_group_update() with these arguments would write, bit for bit, without
 * committing the bars: afterwards every stream is as it was (apo_stream_peek()). Returns
 * what apo_stream_group_update() returns. */
APO_EXPORT apo_status apo_stream_group_peek(apo_stream_group *g, const size_t *n_new,
                                            const apo_named_input *inputs, size_t n_inputs,
                                            double *const *const *outputs);

/* Frees a group, not its streams; NULL is a no-op. */
APO_EXPORT void apo_stream_group_destroy(apo_stream_group *g);

/* ---------------------------------------------------------------------------------------
 * Balancing and profiles (docs/scheduling.md, docs/profiles.md)
 *
 * Each workload tag has, per device, a cost model t(n) = latency + n * cost for n elements
 * of work. A call's shares are those that minimise the predicted makespan; a device that
 * would not shorten it gets none. Models come from apo_profile_auto_balance() (stored in
 * multigpu.json) and are refined by every call (online refinement). Explicit ratios, from
 * the workload or from apo_set_ratios(), override the models.
 * ------------------------------------------------------------------------------------- */
#define APO_TAG_MAX 64

/* Progress of a long operation: `done` of `total` steps; `what` names the current one. */
typedef void (*apo_progress_fn)(void *user, size_t done, size_t total, const char *what);

typedef struct apo_profile_options {
    size_t size;             /* sizeof(apo_profile_options); set by APO_PROFILE_OPTIONS_INIT */
    const char *tag;         /* workload tag whose models are profiled (required) */
    const char *kernel;      /* kernel to run; NULL: the kernel named by the tag */
    const apo_param *params; /* the kernel's parameters, as in apo_workload */
    size_t n_params;
    uint64_t sample_size;  /* samples of the largest size (one series); 0: 1000000 */
    const uint64_t *sizes; /* sizes to run, at least two distinct; NULL: sample_size / 16,
                              sample_size / 4 and sample_size */
    size_t n_sizes;
    unsigned runs;            /* timed runs per device and size, after one warm-up; 0: 5 */
    uint64_t seed;            /* seed of the generated sample input */
    apo_progress_fn progress; /* optional */
    void *progress_user;
} apo_profile_options;

#define APO_PROFILE_OPTIONS_INIT                                                                   \
    { .size = sizeof(apo_profile_options) }

/* One device's model for one workload tag. */
typedef struct apo_device_model {
    char id[APO_ID_MAX];
    char label[APO_LABEL_MAX];
    int valid;           /* a model is known (latency_ms and ms_per_melem are meaningful) */
    double latency_ms;   /* fixed time per call */
    double ms_per_melem; /* time per million elements */
    double ratio;        /* share at the profile's sample size (NaN when unknown) */
    uint64_t samples;    /* observations behind the model */
    uint64_t dropped;    /* profiling runs dropped as outliers */
} apo_device_model;

typedef struct apo_profile_result {
    size_t size; /* sizeof(apo_profile_result); set by APO_PROFILE_RESULT_INIT */
    char tag[APO_TAG_MAX];
    uint64_t sample_size;
    unsigned runs;
    double predicted_ms; /* predicted makespan at sample_size with the solved split */
    int written;         /* both profile files were updated */
    size_t n_devices;
    apo_device_model devices[APO_MAX_DEVICES]; /* in device order */
} apo_profile_result;

#define APO_PROFILE_RESULT_INIT                                                                    \
    { .size = sizeof(apo_profile_result) }

/* Runs each device alone on a generated sample of the workload at every size, `runs` times
 * each after a warm-up, drops outlying runs, fits each device's model, solves the shares at
 * sample_size, applies the models to this runtime, and (profiles on) writes multigpu.json
 * and merges the timings into thresholds.json. `result` may be NULL.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (bad options, fewer than two distinct
 * sizes, a size below one tile's worth is fine), APO_ERR_UNKNOWN_KERNEL, APO_ERR_BAD_PARAM,
 * APO_ERR_ALL_DEVICES_FAILED or APO_ERR_DEVICE_LOST (a device failed while profiled: nothing
 * is stored), APO_ERR_OUT_OF_MEMORY, APO_ERR_IO (profiled and applied in memory, but a
 * file could not be written: the message says which and why; the old file is intact). */
APO_EXPORT apo_status apo_profile_auto_balance(apo_runtime *rt, const apo_profile_options *opt,
                                               apo_profile_result *result);

/* What a call would do now, without running it: the ratio source, the axis, each device's
 * share and elements after rounding to tiles, and the predicted makespan. The workload's
 * buffers are not looked at (they may be NULL).
 * Returns the validation errors of apo_distribute_workload(). */
typedef struct apo_plan_info {
    size_t size; /* sizeof(apo_plan_info); set by APO_PLAN_INFO_INIT */
    apo_ratio_source ratio_source;
    apo_split split_axis;
    double predicted_ms; /* NaN when some share has no model */
    uint64_t elements;   /* across the sets run */
    size_t sets;         /* parameter sets run (1 without a sweep) */
    size_t first_set;    /* the sweep's index of the first set run (0 without a sweep) */
    size_t sweep_sets;   /* sets in the whole sweep (1 without a sweep) */
    size_t n_devices;
    double shares[APO_MAX_DEVICES];
    uint64_t device_elements[APO_MAX_DEVICES];
} apo_plan_info;

#define APO_PLAN_INFO_INIT                                                                         \
    { .size = sizeof(apo_plan_info) }

APO_EXPORT apo_status apo_plan_workload(apo_runtime *rt, const apo_workload *w,
                                        apo_plan_info *plan);

/* The CPU-or-GPU decision for `function` (a kernel name) with `params` (unnamed ones take
 * their defaults) on `samples` samples, from thresholds.json: the CPU and GPU times are
 * interpolated between the stored sizes (the nearest two segments beyond them), each side's
 * local line is taken as its model, and *use_gpu is 1 when the split solver would give the
 * GPU side a share, i.e. when the GPU's fixed time is below the CPU's predicted time.
 * Returns APO_ERR_NULL, APO_ERR_UNKNOWN_KERNEL, APO_ERR_BAD_PARAM, APO_ERR_NOT_FOUND when
 * thresholds.json has no CPU and GPU timings for these parameters (*use_gpu is then 0). */
APO_EXPORT apo_status apo_should_use_gpu(apo_runtime *rt, const char *function,
                                         const apo_param *params, size_t n_params, uint64_t samples,
                                         int *use_gpu);

/* Forces the shares of a workload tag: `ids` are device ids of this runtime (or cuda:N),
 * devices not named get none. n == 0 clears forced ratios. Applied to this runtime and,
 * profiles on, stored in multigpu.json. Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT
 * (unknown device, a device named twice, a ratio negative or not finite, all zero, a tag
 * with a control character),
 * APO_ERR_IO (applied in memory, not stored). */
APO_EXPORT apo_status apo_set_ratios(apo_runtime *rt, const char *tag, const char *const *ids,
                                     const double *ratios, size_t n);

/* Writes the models refined since the last write now, instead of at the next interval or
 * at apo_runtime_destroy(). Returns APO_OK (also when there is nothing to write or profiles
 * are off), APO_ERR_NULL, APO_ERR_IO. */
APO_EXPORT apo_status apo_profile_save(apo_runtime *rt);

typedef enum apo_profile_state {
    APO_PROFILE_OFF = 0,     /* profiles are off for this runtime */
    APO_PROFILE_MISSING = 1, /* no file yet */
    APO_PROFILE_LOADED = 2,  /* read and in use */
    APO_PROFILE_IGNORED = 3  /* unreadable, corrupt, unknown format or for another host:
                                ignored (the message says why) */
} apo_profile_state;

/* Returns "off", "missing", "loaded" or "ignored". */
APO_EXPORT const char *apo_profile_state_name(apo_profile_state state);

#define APO_PATH_MAX 4096

typedef struct apo_profile_files {
    size_t size; /* sizeof(apo_profile_files); set by APO_PROFILE_FILES_INIT */
    /* multigpu.json */
    char multigpu_path[APO_PATH_MAX];
    apo_profile_state multigpu_state;
    char multigpu_message[APO_LABEL_MAX * 2]; /* why ignored, else "" */
    int multigpu_threadx;                     /* the file has ThreadX's older shape */
    char host[APO_LABEL_MAX];                 /* the host that wrote it (this one) */
    char updated_at[40];                      /* when it was written, "" when unknown */
    /* thresholds.json */
    char thresholds_path[APO_PATH_MAX];
    apo_profile_state thresholds_state;
    char thresholds_message[APO_LABEL_MAX * 2]; /* why ignored, else "" */
    char thresholds_updated_at[40];             /* when it was written, "" when unknown */
} apo_profile_files;

#define APO_PROFILE_FILES_INIT                                                                     \
    { .size = sizeof(apo_profile_files) }

/* The profile files this runtime uses and what became of them when it was created. */
APO_EXPORT apo_status apo_profile_files_get(const apo_runtime *rt, apo_profile_files *files);

/* A stored workload entry of multigpu.json as this runtime knows it (loaded, then updated
 * by profiling, apo_set_ratios() and online refinement). */
typedef struct apo_profile_entry {
    size_t size; /* sizeof(apo_profile_entry); set by APO_PROFILE_ENTRY_INIT */
    char tag[APO_TAG_MAX];
    apo_ratio_source source; /* PROFILE, ONLINE (refined by calls) or EXPLICIT (forced) */
    char updated_at[40];
    double age_s; /* seconds since updated_at, NaN when unknown */
    uint64_t sample_size;
    unsigned runs;
    int stale; /* its devices (or their configurations) do not match this runtime's */
    char stale_reason[APO_LABEL_MAX];
    size_t n_devices;
    apo_device_model devices[APO_MAX_DEVICES];
} apo_profile_entry;

#define APO_PROFILE_ENTRY_INIT                                                                     \
    { .size = sizeof(apo_profile_entry) }

/* Number of stored workload entries, sorted by tag, and entry `index`.
 * Returns APO_ERR_NULL, APO_ERR_NOT_FOUND past the end, APO_ERR_INVALID_ARGUMENT for an
 * unknown entry->size. */
APO_EXPORT apo_status apo_profile_entry_count(apo_runtime *rt, size_t *count);
APO_EXPORT apo_status apo_profile_entry_get(apo_runtime *rt, size_t index,
                                            apo_profile_entry *entry);

/* One entry of thresholds.json: `key` is "<function>:<params>" with the canonical, sorted
 * params string; a time is NaN when that side was never measured. */
typedef struct apo_threshold_info {
    size_t size; /* sizeof(apo_threshold_info); set by APO_THRESHOLD_INFO_INIT */
    char key[256];
    double cpu_ms_avg, gpu_ms_avg;
    uint64_t samples;
    int simulated; /* some GPU time came from a sim device standing in for a GPU */
} apo_threshold_info;

#define APO_THRESHOLD_INFO_INIT                                                                    \
    { .size = sizeof(apo_threshold_info) }

APO_EXPORT apo_status apo_threshold_count(apo_runtime *rt, size_t *count);
APO_EXPORT apo_status apo_threshold_get(apo_runtime *rt, size_t index, apo_threshold_info *info);

/* Adds one measurement to thresholds.json for `function` with `params` on `samples` samples
 * (a series' length): a CPU time, a GPU time or both, in milliseconds (NaN: that side was not
 * measured). It is merged into the entry as profiling's timings are (docs/profiles.md,
 * "Merging"), applied to this runtime (apo_should_use_gpu() sees it) and, profiles on,
 * written to the file. When `function` names a kernel of this runtime, its parameters are
 * checked and completed with their defaults, as apo_should_use_gpu() looks them up; any
 * other name ([A-Za-z0-9_], 1-31 characters) is stored with the parameters given.
 * Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT (both times NaN, a time negative or
 * infinite, a name outside the alphabet, a parameter named twice or named `size`, a value
 * not finite, a key over 255 bytes), APO_ERR_BAD_PARAM (a kernel's parameter refused),
 * APO_ERR_OUT_OF_MEMORY, APO_ERR_IO (applied in memory, not stored: the message says why). */
APO_EXPORT apo_status apo_threshold_record(apo_runtime *rt, const char *function,
                                           const apo_param *params, size_t n_params,
                                           uint64_t samples, double cpu_ms, double gpu_ms);

/* ---------------------------------------------------------------------------------------
 * Several machines over MPI (docs/cluster.md)
 *
 * Started under mpirun, every process creates its runtime as usual. On rank 0 (the
 * coordinator) each other rank that joined is one more device, "rank:N@HOST", whose share
 * that rank computes on its own devices; the outputs are the same bits as on one machine.
 * Every other rank (a server) registers the kernels it needs and calls apo_cluster_serve(),
 * which returns once rank 0 destroys its runtime.
 * ------------------------------------------------------------------------------------- */
typedef enum apo_cluster_role {
    APO_CLUSTER_NONE = 0,        /* not in an MPI job (or built without MPI) */
    APO_CLUSTER_COORDINATOR = 1, /* rank 0: holds the data, other ranks are its devices */
    APO_CLUSTER_SERVER = 2       /* rank > 0: computes rank 0's tasks in apo_cluster_serve() */
} apo_cluster_role;

typedef struct apo_cluster_info {
    size_t size;        /* sizeof(apo_cluster_info); set by APO_CLUSTER_INFO_INIT */
    int built_with_mpi; /* the library was built with MPI support */
    apo_cluster_role role;
    int rank;      /* this process's rank in MPI_COMM_WORLD (0 when NONE) */
    int ranks;     /* processes in the job (1 when NONE) */
    size_t joined; /* coordinator: ranks that answered and are devices */
    char host[APO_LABEL_MAX];
} apo_cluster_info;

#define APO_CLUSTER_INFO_INIT                                                                      \
    { .size = sizeof(apo_cluster_info) }

/* Where this runtime stands in an MPI job. Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT
 * for an unknown info->size. */
APO_EXPORT apo_status apo_cluster_info_get(const apo_runtime *rt, apo_cluster_info *info);

/* On a server rank: computes the tasks rank 0 sends, on this runtime's devices, until rank 0
 * destroys its runtime; then returns APO_OK. Returns APO_ERR_NULL, APO_ERR_INVALID_ARGUMENT
 * when this runtime is not a server (rank 0, or not in an MPI job), APO_ERR_IO when MPI
 * itself fails. */
APO_EXPORT apo_status apo_cluster_serve(apo_runtime *rt);

#ifdef __cplusplus
}
#endif

#endif /* APPORTION_H */

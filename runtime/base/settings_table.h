/*
 * Every setting the library reads, once. Each row of these lists gives:
 *
 *   field    the apo_config field (APO_SETTINGS) or the name of the resolved setting
 *   var      the environment variable
 *   legacy   an older name read when `var` is unset (the ThreadX names), else NULL
 *   type     how the text is parsed and what C type holds it (APO_SETTING_CTYPE_*, below)
 *   values   numbers: the noun before the bounds ("seconds" gives "seconds from 1 to 2");
 *            other types: the accepted values as docs/env.md shows them
 *   def      the value when neither the config nor the environment sets it
 *   min, max numbers: the bounds, for the config field and the variable alike; enums and
 *            switches: the first and last valid value; the other types: 0, unused
 *   def_text the default as docs/env.md shows it
 *   about    one line for docs/env.md: what the setting does
 *
 * From these, base/env.c reads the variables and words the messages, base/settings.c
 * generates the parsing, the bounds checks and the precedence (the apo_config field when it
 * is not at its APO_CONFIG_INIT value, else the variable when it is set, non-empty and
 * valid, else `def`), base/log.c parses the logging variables, and
 * tests/runtime/base/test_settings.c checks that the table in docs/env.md says the same.
 * "Unset" is the zero of every type (NULL, 0, UNSET), as in APO_CONFIG_INIT.
 *
 * Types: TEXT (any non-empty text), INT, UINT, SIZE (whole decimal numbers within [min, max]),
 * REAL (a decimal number within [min, max]), REAL_ABOVE (within (min, max]), SWITCH (on/off
 * words), USE_GPU, SIM_CLOCK, CPU_ISA (their words), PRESENT (1 when the variable is set at all),
 * LOG_LEVEL, LOG_SUBSYS (the logging variables' words). Numbers follow base/parse_number.h.
 *
 * This header includes nothing of runtime/: the log reads its own rows, so the table must
 * sit below base/log.h.
 */
#ifndef APO_RUNTIME_BASE_SETTINGS_TABLE_H
#define APO_RUNTIME_BASE_SETTINGS_TABLE_H

#include <stddef.h>

#include "apportion.h"

/* The cpu device's thread count, wherever it comes from (a `cpu:threads=N` item too). */
#define APO_CPU_THREADS_MAX 1024

#define APO_SWITCH_WORDS "`1` (`on`, `yes`, `true`), `0` (`off`, `no`, `false`)"

/* The settings of apo_config, in the order of its fields (settings.c checks that they are
 * its fields, in its order, with its types, and all of them). Read at every
 * apo_runtime_create(); a bad value is warned about and ignored. */
#define APO_SETTINGS(X)                                                                            \
    X(devices, "APPORTION_DEVICES", NULL, TEXT, "a device list ([below](#device-list))", "auto",   \
      0, 0, "`auto`",                                                                              \
      "the devices a runtime uses; a list that does not parse fails `apo_runtime_create()` "       \
      "with `APO_ERR_BAD_DEVICE_SPEC`")                                                            \
    X(cpu_threads, "APPORTION_CPU_THREADS", NULL, INT, "an integer", 0, 1, APO_CPU_THREADS_MAX,    \
      "OpenMP's default", "threads of the cpu device; a `cpu:threads=N` item beats it")            \
    X(use_gpu, "APPORTION_USE_GPU", NULL, USE_GPU, "`auto`, `yes` (or `1`), `no` (or `0`)",        \
      APO_USE_GPU_AUTO, APO_USE_GPU_AUTO, APO_USE_GPU_NO, "`auto`",                                \
      "whether GPUs are looked for and required ([No GPU](#no-gpu))")                              \
    X(sim_clock, "APPORTION_SIM_CLOCK", NULL, SIM_CLOCK, "`wall`, `virtual`", APO_SIM_CLOCK_WALL,  \
      APO_SIM_CLOCK_WALL, APO_SIM_CLOCK_VIRTUAL, "`wall`",                                         \
      "whether sim devices wait out their modelled time ([Sim devices](#sim-devices))")            \
    X(multigpu_path, "APPORTION_MULTIGPU_PROFILE_PATH", "THREADX_MULTIGPU_PROFILE_PATH", TEXT,     \
      "a file path", NULL, 0, 0, "see [Profiles](#profiles)",                                      \
      "the multi-GPU profile file; an unusable file is warned about and ignored")                  \
    X(thresholds_path, "APPORTION_THRESHOLD_PATH", "THREADX_GPU_THRESHOLD_PATH", TEXT,             \
      "a file path", NULL, 0, 0, "see [Profiles](#profiles)",                                      \
      "the GPU thresholds profile file; as above")                                                 \
    X(profiles, "APPORTION_PROFILES", NULL, SWITCH, APO_SWITCH_WORDS, APO_SWITCH_ON,               \
      APO_SWITCH_ON, APO_SWITCH_OFF, "on", "read and write the profile files")                     \
    X(learn, "APPORTION_LEARN", NULL, SWITCH, APO_SWITCH_WORDS, APO_SWITCH_ON, APO_SWITCH_ON,      \
      APO_SWITCH_OFF, "on", "refine the models online, from the calls")                            \
    X(persist_interval_s, "APPORTION_PERSIST_INTERVAL", NULL, REAL_ABOVE, "seconds", 60.0, 0.0,    \
      86400.0, "`60`", "least time between two writes of refined models")                          \
    X(gpu_memory_mb, "APPORTION_GPU_MEMORY_MB", NULL, SIZE, "MiB", 0, 4, 1024 * 1024,              \
      "half the GPU's free memory, at most 4096",                                                  \
      "device memory each GPU may use for staging ([cuda.md](cuda.md))")                           \
    X(nccl, "APPORTION_NCCL", NULL, SWITCH, APO_SWITCH_WORDS, APO_SWITCH_ON, APO_SWITCH_ON,        \
      APO_SWITCH_OFF, "on",                                                                        \
      "gather multi-GPU outputs with NCCL when it can be loaded ([cuda.md](cuda.md))")             \
    X(mpi, "APPORTION_MPI", NULL, SWITCH, APO_SWITCH_WORDS, APO_SWITCH_UNSET, APO_SWITCH_ON,       \
      APO_SWITCH_OFF, "join when an MPI launcher started the process",                             \
      "join the MPI job ([cluster.md](cluster.md))")                                               \
    X(mpi_timeout_s, "APPORTION_MPI_TIMEOUT", NULL, REAL, "seconds", 60.0, 0.01, 86400.0, "`60`",  \
      "how long a rank may take to answer before it counts as lost")                               \
    X(deadline_factor, "APPORTION_DEADLINE_FACTOR", NULL, REAL, "a number", 10.0, 1.0, 1e6,        \
      "`10`",                                                                                      \
      "a job's deadline is this times its predicted time ([below](#deadlines-and-quarantine))")    \
    X(deadline_floor_s, "APPORTION_DEADLINE_FLOOR", NULL, REAL, "seconds", 60.0, 0.001, 604800.0,  \
      "`60`", "the least deadline; the largest, a week, turns deadlines off in effect")            \
    X(quarantine_after, "APPORTION_QUARANTINE_AFTER", NULL, UINT, "an integer", 3, 1, 1000000,     \
      "`3`", "failed calls in a row that quarantine a device")

/* APPORTION_CPU_ISA's values, which are those of the kernels' apo__cpu_isa
 * (kernels/common/cpu_isa.h, which this header may not include): `auto` reads as unset. */
#define APO_SETTING_CPU_ISA_SSE2 1
#define APO_SETTING_CPU_ISA_AVX512 3

/* Variables with no apo_config field, read at every apo_runtime_create(); any value is
 * accepted, except where the row's type has words of its own (CPU_ISA). */
#define APO_ENV_SETTINGS(X)                                                                        \
    X(cpu_isa, "APPORTION_CPU_ISA", NULL, CPU_ISA, "`auto`, `sse2`, `avx2`, `avx512`", 0,          \
      APO_SETTING_CPU_ISA_SSE2, APO_SETTING_CPU_ISA_AVX512,                                        \
      "`auto`: the fastest this CPU has, kernel by kernel",                                        \
      "the vector path of the CPU kernels "                                                        \
      "([kernels-vector-paths.md](kernels-vector-paths.md#vector-paths)): `auto` takes "           \
      "the widest, except for the kernels measured faster on avx2 on the AMD CPUs with AVX-512 "   \
      "(Zen 4, which halves 512-bit operations, and Zen 5: a list for each) and on Intel's (a "    \
      "list, and the rounds of lanes of rows of at most four tiles); a named path runs "           \
      "every kernel on it; one the CPU lacks is warned about and the fastest it has is used "      \
      "(`avx2` counts as present only with FMA beside it: the path is built with `-mfma`)")        \
    X(cuda_kernels, "APPORTION_CUDA_KERNELS", NULL, TEXT, "`staged`, `simple`, `split`", NULL, 0,  \
      0, "`staged`",                                                                               \
      "the CUDA kernels of the built-in kernels: warps staging tiles through shared memory, or "   \
      "one thread per tile ([cuda.md](cuda.md#staged-kernels)), or `split`: `staged` with "        \
      "bollinger's sliding chains in one warp of a block and its roots and stores in another "     \
      "([cuda.md](cuda.md#bollinger-in-pairs-of-warps)); `staged` also cuts the tiles of "         \
      "the recurrences with a warm-up and of the built-in macd into pieces, `simple` keeps a "     \
      "thread a tile for them too "                                                                \
      "([cuda.md](cuda.md#lone-tiles-cut-into-pieces-the-recurrences-with-a-warm-up)) and folds "  \
      "a scored launch's lone set in registers, `simple` keeps the array of folds "                \
      "([cuda.md](cuda.md#scored-sweeps-on-a-gpu)); the bits never change; another value is "      \
      "warned about and `staged` is used")                                                         \
    X(cuda_blocks_per_sm, "APPORTION_CUDA_BLOCKS_PER_SM", NULL, INT, "an integer", 1, 1, 64,       \
      "`1`",                                                                                       \
      "the most 256-thread blocks of an anchored catalog kernel that a GPU's multiprocessor runs " \
      "at once, by the grid's size; 8 or more: as many as fit "                                    \
      "([cuda.md](cuda.md#the-anchored-kernels-a-thread-per-block-between-anchors)); the bits "    \
      "never change")                                                                              \
    X(gpu_early_staging, "APPORTION_GPU_EARLY_STAGING", NULL, SWITCH, APO_SWITCH_WORDS,            \
      APO_SWITCH_OFF, APO_SWITCH_ON, APO_SWITCH_OFF, "off; on in the `apportion` tool",            \
      "pin each GPU's first staging slots when the runtime is created rather than at the GPU's "   \
      "first task ([cuda.md](cuda.md#staging-slots-sized-to-the-need)): the tool overlaps it "     \
      "with reading its input; a library process that may never use its GPU pins nothing")         \
    X(cpu_pressure_file, "APPORTION_CPU_PRESSURE_FILE", NULL, TEXT, "a file path, or `off`", NULL, \
      0, 0, "`/proc/pressure/cpu`",                                                                \
      "where the runtime reads the machine's processor pressure when it opens a cpu device "       \
      "([scheduling.md](scheduling.md#a-machine-busy-from-the-start)); `off`: never read, as on "  \
      "a kernel without it")                                                                       \
    X(profile_dir, "APPORTION_PROFILE_DIR", NULL, TEXT, "a folder", NULL, 0, 0,                    \
      "see [Profiles](#profiles)", "the folder of both profile files")                             \
    X(xdg_state_home, "XDG_STATE_HOME", NULL, TEXT, "a folder", NULL, 0, 0,                        \
      "`$HOME/.local/state`", "the default profile folder's parent")                               \
    X(home, "HOME", NULL, TEXT, "a folder", NULL, 0, 0, "unset",                                   \
      "the home folder, where `.local/state` is")                                                  \
    X(cuda_device_order, "CUDA_DEVICE_ORDER", NULL, PRESENT, "CUDA's own", 0, 0, 0,                \
      "unset: apportion numbers GPUs by PCI bus id",                                               \
      "when set, apportion keeps CUDA's numbering of the GPUs")                                    \
    X(ompi_comm_world_size, "OMPI_COMM_WORLD_SIZE", NULL, PRESENT, "set by Open MPI's `mpirun`",   \
      0, 0, 0, "unset", "an MPI launcher started the process ([cluster.md](cluster.md))")          \
    X(pmix_rank, "PMIX_RANK", NULL, PRESENT, "set by PMIx launchers (`srun`, `prterun`)", 0, 0, 0, \
      "unset", "as above")                                                                         \
    X(pmi_size, "PMI_SIZE", NULL, PRESENT, "set by MPICH's Hydra", 0, 0, 0, "unset", "as above")

/* The logging variables, read once per process when the library first has something to log
 * (base/log.c, which alone expands this list: the defaults are base/log.h's). A bad value
 * cannot be a runtime's warning: it is noted in the log itself. */
#define APO_LOG_SETTINGS(X)                                                                        \
    X(level, "APPORTION_DEBUG", NULL, LOG_LEVEL, "`NONE`, `WARN`, `INFO`, `TRACE`", APO_LOG_NONE,  \
      0, 0, "`NONE` (no log)",                                                                     \
      "the most detailed level logged; another value logs at `WARN`, with a note in the log")      \
    X(subsystems, "APPORTION_DEBUG_SUBSYS", NULL, LOG_SUBSYS,                                      \
      "comma list of `INIT`, `ENV`, `DEVICE`, `SPLIT`, `RUN`, `ALL`", APO_SUBSYS_ALL, 0, 0,        \
      "`ALL`", "the subsystems logged; unknown names are skipped, with a note in the log")         \
    X(file, "APPORTION_DEBUG_FILE", NULL, TEXT, "a file path", NULL, 0, 0, "standard error",       \
      "the file the log is appended to; one that cannot be opened leaves the log on standard "     \
      "error, with a line saying so")

/* The C type that holds each type of row. */
#define APO_SETTING_CTYPE_TEXT const char *
#define APO_SETTING_CTYPE_INT int
#define APO_SETTING_CTYPE_UINT unsigned
#define APO_SETTING_CTYPE_SIZE size_t
#define APO_SETTING_CTYPE_REAL double
#define APO_SETTING_CTYPE_REAL_ABOVE double
#define APO_SETTING_CTYPE_SWITCH apo_switch
#define APO_SETTING_CTYPE_USE_GPU apo_use_gpu
#define APO_SETTING_CTYPE_SIM_CLOCK apo_sim_clock
#define APO_SETTING_CTYPE_CPU_ISA int /* apo__cpu_isa, 0 for auto */
#define APO_SETTING_CTYPE_PRESENT int
#define APO_SETTING_CTYPE_LOG_LEVEL int       /* enum apo__log_level */
#define APO_SETTING_CTYPE_LOG_SUBSYS unsigned /* mask of enum apo__log_subsys */

/* One struct member per row, named as the row's field. */
#define APO_SETTING_MEMBER(field, var, legacy, type, values, def, min, max, def_text, about)       \
    APO_SETTING_CTYPE_##type field;

#endif

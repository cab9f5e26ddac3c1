/* The library's environment variables, each parsed strictly; see env.h. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/settings.h"
#include "core/faults.h"

/* A value is shown in a warning cut to this many bytes: the environment is outside input, and
 * a 100 KB value must not drown the message that names it. */
#define SHOWN_VALUE_MAX 64

static const char *env_get(const char *name) {
    const char *v = getenv(name);
    return (v != NULL && v[0] != '\0') ? v : NULL;
}

void apo__env_show_value(const char *value, char *out, size_t size) {
    size_t o = 0, i = 0;
    for (; value[i] != '\0' && i < SHOWN_VALUE_MAX && o + 1 < size; i++) {
        unsigned char c = (unsigned char)value[i];
        /* A control character (a newline, an escape sequence) would forge log lines or
         * terminal output. */
        out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    out[o] = '\0';
    if (value[i] != '\0' && o + 4 <= size)
        memcpy(out + o, "...", 4);
}

/* Warns that `name`'s value was ignored, showing the value safely, then why. */
static void warn_ignored(apo__warnings *w, const char *name, const char *value,
                         const char *expected) {
    char shown[SHOWN_VALUE_MAX + 4];
    apo__env_show_value(value, shown, sizeof shown);
    apo__warn(w, "%s=\"%s\" ignored: expected %s", name, shown, expected);
}

/* Parses a whole decimal integer within [lo, hi]; returns 0 on success. strtol would skip
 * leading white space; it is refused like trailing white space. */
static int parse_int(const char *text, long lo, long hi, long *out) {
    char *end;
    if (isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Reads an on/off variable: 1, on, yes, true or 0, off, no, false. */
static apo_switch read_switch(const char *name, apo__warnings *w) {
    const char *v = env_get(name);
    if (v == NULL)
        return APO_SWITCH_UNSET;
    if (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0 ||
        strcasecmp(v, "true") == 0)
        return APO_SWITCH_ON;
    if (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0 ||
        strcasecmp(v, "false") == 0)
        return APO_SWITCH_OFF;
    warn_ignored(w, name, v, "1 or 0 (on, off)");
    return APO_SWITCH_UNSET;
}

/* The apportion name, else the ThreadX name it replaces. */
static const char *env_get_or_threadx(const char *name, const char *threadx_name) {
    const char *v = env_get(name);
    return v != NULL ? v : env_get(threadx_name);
}

static void read_profile_env(apo__env *env, apo__warnings *w) {
    env->multigpu_path =
        env_get_or_threadx("APPORTION_MULTIGPU_PROFILE_PATH", "THREADX_MULTIGPU_PROFILE_PATH");
    env->thresholds_path =
        env_get_or_threadx("APPORTION_THRESHOLD_PATH", "THREADX_GPU_THRESHOLD_PATH");
    env->profile_dir = env_get("APPORTION_PROFILE_DIR");
    env->xdg_state_home = env_get("XDG_STATE_HOME");
    env->home = env_get("HOME");
    env->profiles = read_switch("APPORTION_PROFILES", w);
    env->learn = read_switch("APPORTION_LEARN", w);
    env->nccl = read_switch("APPORTION_NCCL", w);

    const char *interval = env_get("APPORTION_PERSIST_INTERVAL");
    if (interval != NULL) {
        char *end;
        errno = 0;
        double v = strtod(interval, &end);
        if (!isspace((unsigned char)interval[0]) && errno == 0 && end != interval && *end == '\0' &&
            v > 0 && v <= APO_PERSIST_INTERVAL_MAX) {
            env->persist_interval_s = v;
        } else {
            char expected[64];
            snprintf(expected, sizeof expected, "seconds, more than 0 and at most %.0f",
                     APO_PERSIST_INTERVAL_MAX);
            warn_ignored(w, "APPORTION_PERSIST_INTERVAL", interval, expected);
        }
    }
}

static void read_cuda_env(apo__env *env, apo__warnings *w) {
    const char *mb = env_get("APPORTION_GPU_MEMORY_MB");
    long n;
    if (mb != NULL) {
        char expected[64];
        snprintf(expected, sizeof expected, "MiB from %d to %d", APO_GPU_MEMORY_MB_MIN,
                 APO_GPU_MEMORY_MB_MAX);
        if (parse_int(mb, APO_GPU_MEMORY_MB_MIN, APO_GPU_MEMORY_MB_MAX, &n) == 0)
            env->gpu_memory_mb = (size_t)n;
        else
            warn_ignored(w, "APPORTION_GPU_MEMORY_MB", mb, expected);
    }
    /* CUDA's own variable: when the user set it, cudart's numbering is theirs to choose;
     * otherwise apportion numbers GPUs by PCI bus id (docs/cuda.md). */
    env->cuda_device_order_set = env_get("CUDA_DEVICE_ORDER") != NULL;
}

/* A number within [lo, hi]; returns 0 on success. */
static int parse_bounded_double(const char *text, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* The MPI job (docs/cluster.md): whether a launcher started this process, and how long a
 * rank may take to answer. */
static void read_mpi_env(apo__env *env, apo__warnings *w) {
    env->mpi = read_switch("APPORTION_MPI", w);
    /* Open MPI's mpirun, PMIx launchers (srun, prterun) and MPICH's Hydra each set one. */
    env->mpi_launched = env_get("OMPI_COMM_WORLD_SIZE") != NULL || env_get("PMIX_RANK") != NULL ||
                        env_get("PMI_SIZE") != NULL;
    const char *timeout = env_get("APPORTION_MPI_TIMEOUT");
    if (timeout != NULL && parse_bounded_double(timeout, APO_MPI_TIMEOUT_MIN, APO_MPI_TIMEOUT_MAX,
                                                &env->mpi_timeout_s) != 0)
        apo__warn(w, "APPORTION_MPI_TIMEOUT=\"%s\" ignored: expected seconds from %g to %.0f",
                  timeout, APO_MPI_TIMEOUT_MIN, APO_MPI_TIMEOUT_MAX);
}

/* Deadlines and quarantine (faults.h has the bounds and the rule). */
static void read_fault_env(apo__env *env, apo__warnings *w) {
    const char *factor = env_get("APPORTION_DEADLINE_FACTOR");
    if (factor != NULL && parse_bounded_double(factor, APO_DEADLINE_FACTOR_MIN,
                                               APO_DEADLINE_FACTOR_MAX, &env->deadline_factor) != 0)
        apo__warn(w, "APPORTION_DEADLINE_FACTOR=\"%s\" ignored: expected a number from %g to %g",
                  factor, APO_DEADLINE_FACTOR_MIN, APO_DEADLINE_FACTOR_MAX);
    const char *floor_s = env_get("APPORTION_DEADLINE_FLOOR");
    if (floor_s != NULL &&
        parse_bounded_double(floor_s, APO_DEADLINE_FLOOR_MIN_S, APO_DEADLINE_FLOOR_MAX_S,
                             &env->deadline_floor_s) != 0)
        apo__warn(w, "APPORTION_DEADLINE_FLOOR=\"%s\" ignored: expected seconds from %g to %.0f",
                  floor_s, APO_DEADLINE_FLOOR_MIN_S, APO_DEADLINE_FLOOR_MAX_S);
    const char *after = env_get("APPORTION_QUARANTINE_AFTER");
    long n;
    if (after != NULL) {
        if (parse_int(after, 1, APO_QUARANTINE_AFTER_MAX, &n) == 0)
            env->quarantine_after = (unsigned)n;
        else
            apo__warn(w,
                      "APPORTION_QUARANTINE_AFTER=\"%s\" ignored: expected an integer from 1 "
                      "to %d",
                      after, APO_QUARANTINE_AFTER_MAX);
    }
}

void apo__env_read(apo__env *env, apo__warnings *w) {
    memset(env, 0, sizeof *env);

    env->devices = env_get("APPORTION_DEVICES");

    const char *threads = env_get("APPORTION_CPU_THREADS");
    long n;
    if (threads != NULL) {
        char expected[64];
        snprintf(expected, sizeof expected, "an integer from 1 to %d", APO_CPU_THREADS_MAX);
        if (parse_int(threads, 1, APO_CPU_THREADS_MAX, &n) == 0)
            env->cpu_threads = (int)n;
        else
            warn_ignored(w, "APPORTION_CPU_THREADS", threads, expected);
    }

    const char *use_gpu = env_get("APPORTION_USE_GPU");
    if (use_gpu != NULL) {
        if (strcasecmp(use_gpu, "auto") == 0)
            env->use_gpu = APO_USE_GPU_AUTO;
        else if (strcasecmp(use_gpu, "yes") == 0 || strcmp(use_gpu, "1") == 0)
            env->use_gpu = APO_USE_GPU_YES;
        else if (strcasecmp(use_gpu, "no") == 0 || strcmp(use_gpu, "0") == 0)
            env->use_gpu = APO_USE_GPU_NO;
        else
            warn_ignored(w, "APPORTION_USE_GPU", use_gpu, "auto, yes or no");
    }

    const char *clock = env_get("APPORTION_SIM_CLOCK");
    if (clock != NULL) {
        if (strcasecmp(clock, "wall") == 0)
            env->sim_clock = APO_SIM_CLOCK_WALL;
        else if (strcasecmp(clock, "virtual") == 0)
            env->sim_clock = APO_SIM_CLOCK_VIRTUAL;
        else
            warn_ignored(w, "APPORTION_SIM_CLOCK", clock, "wall or virtual");
    }
    read_profile_env(env, w);
    read_cuda_env(env, w);
    read_mpi_env(env, w);
    read_fault_env(env, w);
}

static const struct {
    const char *name;
    unsigned mask;
} subsystem_names[] = {
    {"INIT", APO_SUBSYS_INIT},   {"ENV", APO_SUBSYS_ENV}, {"DEVICE", APO_SUBSYS_DEVICE},
    {"SPLIT", APO_SUBSYS_SPLIT}, {"RUN", APO_SUBSYS_RUN}, {"ALL", APO_SUBSYS_ALL},
};

static unsigned parse_subsystems(const char *text, char *problem, size_t problem_size) {
    unsigned mask = 0;
    const char *p = text;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof subsystem_names / sizeof subsystem_names[0]; i++) {
            if (strlen(subsystem_names[i].name) == len &&
                strncasecmp(p, subsystem_names[i].name, len) == 0) {
                mask |= subsystem_names[i].mask;
                found = 1;
            }
        }
        if (!found) {
            char shown[SHOWN_VALUE_MAX + 4];
            apo__env_show_value(text, shown, sizeof shown);
            snprintf(problem, problem_size,
                     "APPORTION_DEBUG_SUBSYS=\"%s\" has an unknown subsystem, skipped (known: "
                     "INIT, ENV, DEVICE, SPLIT, RUN, ALL; none known means ALL)",
                     shown);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return mask != 0 ? mask : APO_SUBSYS_ALL;
}

void apo__env_read_debug(apo__env_debug *debug, char *problem, size_t problem_size) {
    problem[0] = '\0';
    debug->level = APO_LOG_NONE;
    debug->subsystems = APO_SUBSYS_ALL;
    debug->file = env_get("APPORTION_DEBUG_FILE");

    const char *level = env_get("APPORTION_DEBUG");
    if (level != NULL) {
        if (strcasecmp(level, "WARN") == 0)
            debug->level = APO_LOG_WARN;
        else if (strcasecmp(level, "INFO") == 0)
            debug->level = APO_LOG_INFO;
        else if (strcasecmp(level, "TRACE") == 0)
            debug->level = APO_LOG_TRACE;
        else if (strcasecmp(level, "NONE") != 0) {
            char shown[SHOWN_VALUE_MAX + 4];
            apo__env_show_value(level, shown, sizeof shown);
            debug->level = APO_LOG_WARN;
            snprintf(problem, problem_size,
                     "APPORTION_DEBUG=\"%s\" is not one of NONE, WARN, INFO, TRACE; using WARN",
                     shown);
        }
    }
    const char *subsys = env_get("APPORTION_DEBUG_SUBSYS");
    if (subsys != NULL)
        debug->subsystems = parse_subsystems(subsys, problem, problem_size);
}

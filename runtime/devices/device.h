/*
 * Devices and the backend interface. A backend runs a contiguous run of whole tiles of a
 * call on one device and says how long each phase took; everything else (splitting,
 * threads, failover, merging, reports) is the runtime's and the same for every backend.
 * The cpu (cpu_device.h), sim (sim_device.h), CUDA (cuda/) and rank (rank/) devices each
 * implement the three operations; their headers say how each is opened.
 */
#ifndef APO_RUNTIME_DEVICES_DEVICE_H
#define APO_RUNTIME_DEVICES_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "apportion.h"
#include "base/clock.h"
#include "base/warnings.h"
#include "catalog/kernel.h"
#include "devices/task_guard.h"

typedef struct apo__device apo__device;

/* Phase durations of one task, in seconds. Sim devices report modelled times here. A
 * backend whose phases overlap (CUDA) also sets wall_s, the task's time on the host clock;
 * 0 means the phases ran one after the other (wall = their sum). `chunks` counts the pieces
 * the task was staged in (0: one). A backend that times its phases as intervals (CUDA) adds
 * host_copy_s, its host-side staging copies, and busy_s, the length of the union of every
 * phase interval (host copies, h2d, kernel, d2h): the sum of the phases over busy_s is the
 * overlap achieved (0: not measured). touch_s is the host devices' first-touch pass over
 * the caller's output pages (host_tiles.h), kept out of kernel_s; it is part of the task's
 * time all the same (docs/scheduling.md, "What a device's time includes"). */
typedef struct apo__task_time {
    double h2d_s, kernel_s, d2h_s;
    double wall_s;
    uint64_t chunks;
    double host_copy_s, busy_s;
    double touch_s;
    int threads_offered; /* the cpu device: the threads its tiles were offered to; else 0 */
    /* In, not out: a clock reading taken just before the task began (the job's hand-over's,
     * for its first task), 0 when there is none. A device may start its task's clock from
     * it instead of reading the clock again (the cpu device does, docs/scheduling.md). */
    double started;
} apo__task_time;

/* What a device's `run` takes of a sweep's pieces at once (apo__backend_ops.runs_shared). */
enum { APO_RUNS_SHARED_NONE = 0, APO_RUNS_SHARED_PASS = 1, APO_RUNS_SHARED_SETS = 2 };

typedef struct apo__backend_ops {
    /* Computes tiles [first, end) of `call`. Returns APO_OK; APO_ERR_DEVICE_LOST when the
     * device failed (its tiles are then redone elsewhere: it must not have written
     * partial garbage anywhere that a retry does not overwrite); any other status fails
     * the call (for example a user kernel's failure). `task_index` counts the tasks of
     * this call on this device from 0. Every access to the call (the apo__call itself,
     * its inputs, outputs and partials) must lie between apo__task_enter_call() and
     * apo__task_leave_call(), below: the runtime may abandon the task at its deadline. */
    apo_status (*run)(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                      uint64_t task_index, apo__task_time *time);
    /* Number of tasks a run of `tiles` tiles is cut into (at least 1): more tasks let a
     * failing device lose less work, fewer cost less overhead. */
    uint64_t (*task_count)(const apo__device *dev, uint64_t tiles);
    /* Releases the backend's state. */
    void (*close)(apo__device *dev);
    /* Whether `run` takes a call of several sweep pieces (apo__call.shared), and which:
     * APO_RUNS_SHARED_PASS, pieces that share a pass (the cpu, whose tiles run here and
     * compute a pass once for its sets); APO_RUNS_SHARED_SETS, consecutive pieces whatever
     * their passes (a GPU, which ships the inputs once for all the sets and scores them in
     * one launch, devices/cuda/cuda_pipeline.c and kernels/scores/scored.cu: a launch per
     * pass would give it one thread per series, too few to fill it); APO_RUNS_SHARED_NONE,
     * a device that ships one set's call elsewhere. */
    int runs_shared;
} apo__backend_ops;

struct apo__device {
    apo_device_info info;
    const apo__backend_ops *ops;
    int virtual_clock;  /* sim with APPORTION_SIM_CLOCK=virtual: times are modelled */
    uint64_t tasks_run; /* tasks started over the runtime's life (sim fail_after) */
    uint64_t calls_run; /* calls in which it had work, over the runtime's life (slow_after) */
    int simulated;      /* a rank whose devices include sim ones, or a GPU of the simulated
                           CUDA runtime (-Dsimulated_gpus): its reports say so */
    int cpu_isa;        /* cpu and sim: the vector path of host tiles (apo__cpu_isa, never
                           AUTO; kernels/common/cpu_isa.h), set when the runtime opens them */
    int cpu_isa_named;  /* APPORTION_CPU_ISA named cpu_isa: every kernel runs on it; else
                           cpu_isa is the widest path and a kernel may take a narrower one
                           that runs faster on this CPU (kernel.h, path) */
    /* cpu and sim: scratch that the host-tile threads keep from call to call, one buffer per
     * thread (host_tiles.c; a device runs one task at a time); freed by
     * apo__host_tiles_release() when the device closes. */
    struct {
        double **buf;
        size_t *len;
        int threads;
    } host_scratch;
    /* cpu: the threads that compute its tiles beside the one that runs its task, started on
     * the first task that shares its tiles (host_team.h); stopped when the device closes. */
    struct apo__host_team *host_team;
    /* cpu: the machine's processor pressure when the runtime opened it (cpu_pressure.h; -1:
     * unknown or not read), from which its team's rule starts (team_rule.h). */
    double cpu_pressure;
    /* cpu and a replayed host: the threads of this call (0: info.threads), chosen by the
     * plan (core/plan.c, "Configurations"): every core when no GPU has work in the call,
     * else what the GPUs' staging threads leave; threads_alone is that every-core count
     * (info.threads when the user fixed the count). */
    int call_threads;
    int threads_alone;
    /* sim with replay= (replay.h): the measured device it replays, its modelled time and
     * elements for the phase of the call that runs now, and the staging memory pinned so
     * far (a replayed GPU). */
    const struct apo__replay_row *replay;
    double replay_phase_s;
    uint64_t replay_phase_elements;
    struct apo__replay_staging *replay_staging; /* a replayed GPU's, owned by the device */
    double sim_cold; /* sim: its first call with work takes this many times longer */
    /* Every device: it has had work in a learning call of this runtime. Until then a call is
     * its process's first on it, a cold start (balance_state.h, apo__balance_observe).
     * Atomic: apo_plan_workload() reads it without the call lock that calls write it under. */
    atomic_int warm;
    void *state; /* backend-private */
    apo__task_guard guard;
};

#endif

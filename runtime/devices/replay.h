/*
 * Replayed devices: sim devices whose modelled time follows the figures measured on a real
 * machine (replay_figures.c), so that the balancer can be tested in CI against the GPU
 * and host it met, without either (docs/scheduling.md, "A replayed H100").
 *
 * A replayed device computes its tiles with the CPU implementation, as every sim device
 * does, so the bits stay checked; only its time is modelled. The model knows what a plain
 * `sim:` rate cannot:
 * - a GPU's kernels run by waves of chains (one chain per tile, or per set and series of a
 *   scored call) of serial steps, so one series of a recurrence takes as long as a
 *   thousand; host-resident arrays go through staging copies, PCIe in each direction and
 *   pinned slots pinned once per runtime; device-resident arrays skip all of that;
 * - a host computes at a measured rate per thread, with all its cores when it runs alone
 *   and with what the GPUs' staging threads leave beside them;
 * - every byte either moves through host memory draws on one shared bus: the devices of a
 *   machine that run in the same phase of a call divide its bandwidth (max-min fair), so
 *   the pageable GPU path (three host bytes per byte staged) and the cpu's own tiles slow
 *   each other down as they did on the measured machine.
 */
#ifndef APO_RUNTIME_DEVICES_REPLAY_H
#define APO_RUNTIME_DEVICES_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"
#include "devices/staging_policy.h"

typedef struct apo__device apo__device;

typedef enum apo__replay_role { APO_REPLAY_GPU, APO_REPLAY_HOST } apo__replay_role;

/* A kernel's speed on a replayed device. GPU: seconds per serial step of one chain, and the
 * chains that run at once before the next wave starts (for "scored", 0: as many as a scored
 * launch's scratch holds, apo__scored_gpu_chains). Host: positions (samples, or
 * set-bars of a scored call) per second and thread. name NULL ends a list; "*" is the
 * default for kernels without a row of their own, "scored" the default for scored calls. */
typedef struct apo__replay_speed {
    const char *name;
    double step_s;     /* GPU */
    double chains;     /* GPU */
    double per_thread; /* host */
} apo__replay_speed;

/* One replayed device: the figures of one device of one measured machine. Every device
 * replaying a row of the same `machine` shares that machine's host memory bus. */
typedef struct apo__replay_row {
    const char *name;    /* what `sim:NAME:replay=` names */
    const char *machine; /* the machine it was measured on */
    const char *source;  /* where the figures come from (docs/PERF.md section, date) */
    apo__replay_role role;
    double bus_bytes_s; /* the machine's host memory bandwidth, shared */
    double latency_s;   /* fixed cost of a call on the device */
    /* GPU */
    int sms;
    int staging_threads;        /* host threads that copy between pageable and pinned memory */
    double copy_bytes_s_thread; /* bytes one staging thread copies per second */
    double h2d_bytes_s, d2h_bytes_s, both_bytes_s;
    double launch_s;      /* per chunk: a launch and its synchronisation */
    double pin_s_per_mib; /* pinning the staging slots */
    /* host */
    int cores;
    const apo__replay_speed *speeds;
} apo__replay_row;

/* Every row, and how many (replay_figures.c). */
const apo__replay_row *apo__replay_rows(size_t *n);

/* The row named `name`, or NULL. */
const apo__replay_row *apo__replay_find(const char *name);

/* The rows' names, comma-separated, for messages. */
const char *apo__replay_names(void);

/* A replayed GPU's staging memory over the runtime's life, on the device's own virtual clock
 * (the sum of its phases): what devices/staging_policy.h has it pin, slot by slot from its
 * first task on, and when each slot of the current size is ready. */
typedef struct apo__replay_staging {
    double now;                   /* the device's virtual time: its phases so far */
    int started;                  /* the stager started (at the first task) */
    double slot_bytes;            /* the pinned size in use */
    double ready[APO_CUDA_SLOTS]; /* when each slot of that size is pinned */
    double grow_bytes;            /* a larger set asked for (0: none), ready at grow_ready */
    double grow_ready;
} apo__replay_staging;

/* What one replayed device runs in one phase of a call. */
typedef struct apo__replay_job {
    double positions;           /* samples computed (set-bars of a scored call) */
    double chains;              /* serial chains: tiles, or sets x series of a scored call */
    double steps;               /* serial steps of one chain (its longest), warm-up included */
    double in_bytes, out_bytes; /* host bytes the job reads and writes */
    int resident;               /* the arrays are in GPU memory */
    int scored;
    double scored_scratch; /* doubles of scratch a scored chain needs (its pass's window) */
} apo__replay_job;

/* The job of tiles [first, end) of `call` (first < end). */
void apo__replay_job_of(const apo__call *call, uint64_t first, uint64_t end, apo__replay_job *job);

/* The time `row` takes for `job` with nothing else drawing on the bus (free_s, latency and
 * the wait for pinned staging included), and the host bytes it moves through host memory
 * (bus_bytes). `threads` is the host's thread count for this call (ignored for a GPU);
 * `staging` a GPU's pinned staging, advanced to the job's end (ignored for a host). */
void apo__replay_demand(const apo__replay_row *row, const char *kernel, const apo__replay_job *job,
                        int threads, apo__replay_staging *staging, double *free_s,
                        double *bus_bytes);

/* Shares a bus of `bus_bytes_s` among n jobs that start together, each needing free_s[i]
 * seconds alone and moving bus_bytes[i] bytes at no more than bus_bytes[i] / free_s[i]: at
 * every moment the bandwidth is divided max-min fairly among the jobs still moving bytes.
 * Writes each job's finishing time. */
void apo__replay_share_bus(double bus_bytes_s, size_t n, const double *free_s,
                           const double *bus_bytes, double *finish_s);

/* Whether the device is a GPU (cuda) or replays one, and whether it is a cpu or replays a
 * host: what the plan's configurations (core/plan.c) tell apart. */
int apo__device_is_gpu_like(const apo__device *dev);
int apo__device_is_host_like(const apo__device *dev);

/* The bytes device `dev` would move through host memory for tiles [first, end) of `call`,
 * when it replays a measured device (else 0), and its machine's bus bandwidth into *bus
 * (left alone when it does not replay one). */
double apo__replay_host_bytes(const apo__device *dev, const apo__call *call, uint64_t first,
                              uint64_t end, double *bus);

/* For one phase of `call` (device i runs tiles [first[i], end[i]) where has_job[i]), sets
 * each replayed device's modelled time for its part of the phase (apo__device.replay_phase_s),
 * the devices of one machine sharing its bus. Devices that are not replayed are left alone. */
void apo__replay_phase(apo__device *devices, size_t n, const apo__call *call, const uint64_t *first,
                       const uint64_t *end, const int *has_job);

#endif

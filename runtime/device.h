/*
 * Devices and the backend interface. A backend runs a contiguous run of whole tiles of a
 * call on one device and says how long each phase took; everything else (splitting,
 * threads, failover, merging, reports) is the runtime's and the same for every backend.
 * The CUDA backend of a later issue implements the same three operations.
 */
#ifndef APO_RUNTIME_DEVICE_H
#define APO_RUNTIME_DEVICE_H

#include <stdint.h>

#include "apportion.h"
#include "kernel.h"
#include "warnings.h"

typedef struct apo__device apo__device;

/* Phase durations of one task, in seconds. Sim devices report modelled times here. A
 * backend whose phases overlap (CUDA) also sets wall_s, the task's time on the host clock;
 * 0 means the phases ran one after the other (wall = their sum). `chunks` counts the pieces
 * the task was staged in (0: one). */
typedef struct apo__task_time {
    double h2d_s, kernel_s, d2h_s;
    double wall_s;
    uint64_t chunks;
} apo__task_time;

typedef struct apo__backend_ops {
    /* Computes tiles [first, end) of `call`. Returns APO_OK; APO_ERR_DEVICE_LOST when the
     * device failed (its tiles are then redone elsewhere: it must not have written
     * partial garbage anywhere that a retry does not overwrite); any other status fails
     * the call (for example a user kernel's failure). `task_index` counts the tasks of
     * this call on this device from 0. */
    apo_status (*run)(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                      uint64_t task_index, apo__task_time *time);
    /* Number of tasks a run of `tiles` tiles is cut into (at least 1): more tasks let a
     * failing device lose less work, fewer cost less overhead. */
    uint64_t (*task_count)(const apo__device *dev, uint64_t tiles);
    /* Releases the backend's state. */
    void (*close)(apo__device *dev);
} apo__backend_ops;

struct apo__device {
    apo_device_info info;
    const apo__backend_ops *ops;
    int virtual_clock;  /* sim with APPORTION_SIM_CLOCK=virtual: times are modelled */
    uint64_t tasks_run; /* tasks started over the runtime's life (sim fail_after) */
    uint64_t calls_run; /* calls in which it had work, over the runtime's life (slow_after) */
    int simulated;      /* a rank whose devices include sim ones: its reports say so */
    void *state;        /* backend-private */
};

/* Opens the cpu device with `threads` OpenMP threads (0: OpenMP's default). */
apo_status apo__cpu_device_open(apo__device *dev, int threads);

/* Opens a sim device; see SPEC "Devices". */
typedef struct apo__device_spec apo__device_spec;
apo_status apo__sim_device_open(apo__device *dev, const apo__device_spec *spec, int virtual_clock);

/* CUDA discovery. Writes up to `max` opened GPU devices and returns how many; when there
 * are none, writes why into `reason` (no driver, no device, built without CUDA, ...). A
 * GPU that is found but fails its first calls is left out with a warning in `w`.
 */
typedef struct apo__cuda_options {
    size_t memory_mb; /* staging budget per GPU in MiB (0: the default, docs/cuda.md) */
    int pci_order;    /* number GPUs by PCI bus id (CUDA_DEVICE_ORDER unset) */
} apo__cuda_options;

size_t apo__cuda_discover(apo__device *devs, size_t max, const apo__cuda_options *opts,
                          apo__warnings *w, char *reason, size_t reason_size);

/* Can `dev` run `kernel` (a GPU needs the kernel's CUDA implementation)? */
int apo__device_can_run(const apo__device *dev, const apo__kernel *kernel);

/* Runs tiles [first, end) of a call on the host with `threads` OpenMP threads (1: on the
 * calling thread alone). Shared by the cpu and sim backends. */
apo_status apo__run_tiles_on_host(const apo__call *call, uint64_t first, uint64_t end, int threads);

/* Host memory, for the cpu and sim devices' info. */
void apo__host_memory(uint64_t *total_bytes, uint64_t *free_bytes);

/* Monotonic clock in seconds. */
double apo__now(void);

#endif

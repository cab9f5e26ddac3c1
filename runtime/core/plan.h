/*
 * Planning a call (plan.c): from a workload to the call the devices run and to the tiles
 * each device is given. distribute.c runs the plan; apo_plan_workload() only shows it.
 */
#ifndef APO_RUNTIME_CORE_PLAN_H
#define APO_RUNTIME_CORE_PLAN_H

#include <stdint.h>

#include "catalog/kernel.h"
#include "core/runtime.h"

typedef struct apo__plan {
    double weights[APO_MAX_DEVICES]; /* normalised shares */
    apo_ratio_source source;
    double predicted_s; /* predicted makespan, NaN without models */
    apo_split axis;
    uint64_t first[APO_MAX_DEVICES], end[APO_MAX_DEVICES]; /* planned tiles */
    /* The configuration the models chose (alone -1 and NaN times without models), and
     * whether exploration added probes to it (its makespan then measures no configuration). */
    apo__config_choice choice;
    int probed;
    /* The GPUs were left out because a GPU runs each row of the call as one serial chain and
     * a device that is no GPU takes it (apo__keep_gpus_out). */
    int gpus_out;
} apo__plan;

/* Everything about a workload that does not depend on the devices: shapes, parameters,
 * the tile grid, and with `check_buffers` the arrays. Leaves call->partials NULL. */
apo_status apo__resolve_call(apo_runtime *rt, const apo_workload *w, apo__call *call,
                             int check_buffers);

/* The workload's tag (its kernel's name when it has none), checked: 1 to APO_TAG_MAX-1
 * bytes, no control character. */
apo_status apo__workload_tag(const apo_workload *w, const apo__call *call, const char **tag);

/* APO_ERR_INVALID_ARGUMENT when a workload tag holds a control character (what: the caller,
 * for the message), else APO_OK: tags are stored in the profile and printed by tools. */
apo_status apo__check_tag_text(const char *tag, const char *what);

/* Whether device i takes part in `call`: it can run the kernel where the arrays are, and it
 * is not quarantined. */
int apo__device_takes_part(const apo_runtime *rt, const apo__call *call, size_t i);

/* Whether the GPUs stay out of `call` (docs/scheduling.md, "One serial chain per row"): a GPU
 * runs each of its rows as one serial chain (apo__call_serial_rows), and a device that is no
 * GPU (a cpu, a rank, a sim) takes part. */
int apo__gpus_stay_out(const apo_runtime *rt, const apo__call *call);

/* The devices the models may give a share, into usable[0 .. rt->n_devices): those not
 * quarantined, and no GPU when `gpus_out`. */
void apo__usable_devices(const apo_runtime *rt, int gpus_out, int *usable);

/* With `gpus_out`, takes the GPUs' shares of plan p away (its other devices share equally
 * where the shares left them nothing) and sets p->gpus_out; explicit ratios (the workload's,
 * or a tag's forced ones) are the user's choice and are kept. */
void apo__keep_gpus_out(const apo_runtime *rt, const apo__call *call, int gpus_out, apo__plan *p);

/* Zeroes the shares of devices that cannot take part and renormalises the rest; when the
 * plan gave everything to such devices, the others share equally. Fails when no device
 * can take part. */
apo_status apo__keep_capable_devices(const apo_runtime *rt, const apo__call *call, apo__plan *p);

/* The fewest elements worth giving each device for `tiles` tiles of `elements` elements
 * of `call`, into min[0 .. rt->n_devices): for a GPU, one wave of tiles over its SMs
 * (apo__gpu_wave_tiles: a smaller share leaves SMs idle, and its fixed cost buys nothing
 * the cpu could not do), at the call's mean elements per tile; 0 for other devices. */
void apo__min_elements(const apo_runtime *rt, double elements, uint64_t tiles, double *min);

/* What the models need to know of tiles [first, end) of `call` on the runtime's devices
 * (balance/configurations.h); `min` (room for every device) holds its min_elements. */
void apo__call_shape(const apo_runtime *rt, const apo__call *call, uint64_t first, uint64_t end,
                     double *min, apo__shape *shape);

/* Whether device i's model of `call` is per full wave (a GPU, or a replayed one, on a scored
 * call or on device-resident arrays), and its tiles in one wave (0 when not). */
double apo__wave_tiles(const apo_runtime *rt, const apo__call *call, size_t i);

/* A device's tiles in one wave when its model is per wave on a call whose time is its
 * kernels' (`kernel_bound`), else 0. */
double apo__device_wave_tiles(const apo__device *dev, int kernel_bound);

/* The split of `call` on the runtime's devices: shares, axis and each device's tiles. With
 * `explore` (a call that learns) a device that the models leave without a tile may be given
 * a probe (docs/scheduling.md, "Exploration"). */
apo_status apo__plan_call(apo_runtime *rt, const apo_workload *w, const apo__call *call,
                          apo__plan *p, int explore);

#endif

/*
 * Configurations: which devices run a call, and how, before the split inside them
 * (docs/scheduling.md, "Configurations and the guard").
 *
 * A call can run split over the runtime's devices (the solver's shares), or on one device
 * alone. The two are not the same devices: a cpu beside GPUs keeps only the threads the GPUs'
 * staging copies leave it, and runs on every core alone; and devices that run together draw
 * on one host memory bus, which a device timed alone never meets. So each configuration has
 * its own predicted makespan:
 * - the split: the solver's over the devices' models (each device as it runs beside the
 *   others), then, where the host bus is known, re-solved so that the bytes every device
 *   moves through host memory fit the bus in that time;
 * - a device alone: its alone model when it has one (a cpu timed on every core), else its
 *   model sped up by its alone speedup (threads alone over threads beside), and never faster
 *   than the bus lets its bytes move;
 * and where a configuration's makespans have been measured (the median of its last calls),
 * the measurement stands instead of the prediction. The call runs the configuration with the
 * smallest: no split runs whose makespan is above the best single configuration's (the
 * guard), and a split that measured slower than a device alone is demoted.
 *
 * GPUs on calls whose time is their kernels' (scored calls, device-resident arrays) are
 * modelled per full wave: their models' costs are what an element costs with every SM busy,
 * and a share of less than a wave costs a whole wave (apo__shape.wave_elements).
 */
#ifndef APO_RUNTIME_BALANCE_CONFIGURATIONS_H
#define APO_RUNTIME_BALANCE_CONFIGURATIONS_H

#include <stddef.h>

#include "balance/model.h"

/* What the models need to know of one call beyond its tag (core/plan.c fills it). */
typedef struct apo__shape {
    double elements; /* the call's elements of work */
    /* The fewest elements worth giving device d (a GPU's wave: apo__solve_split_min), NULL
     * for none. */
    const double *min_elements;
    /* Device d's elements in one full wave when it is modelled per wave (0: it is not): its
     * time for a share below that is the wave's. */
    double wave_elements[APO_MAX_DEVICES];
    /* Device d's speedup alone over beside the others (a cpu's threads alone over those it
     * keeps beside GPUs); 1 for the rest. */
    double alone_speedup[APO_MAX_DEVICES];
    /* Bytes device d moves through host memory per element of work, and the host memory's
     * bandwidth: 0 where unknown (then the bus is not modelled). */
    double host_bytes[APO_MAX_DEVICES];
    double bus_bytes_s;
    /* Device d has had no work in a learning call of this runtime: the call is its cold
     * start, planned with its cold model where it has one (balance_state.h). */
    int cold[APO_MAX_DEVICES];
} apo__shape;

/* The configuration a call runs, and what each was predicted to take. */
typedef struct apo__config_choice {
    int alone;          /* -1: the split; else the index of the device that runs alone */
    double predicted_s; /* the chosen configuration's */
    double split_s;     /* the split's (INFINITY when no device is usable) */
    double alone_s[APO_MAX_DEVICES]; /* each device alone (INFINITY where not usable) */
    int bus_bound;                   /* the split was re-solved for the host bus */
    /* The best device alone by prediction that has not been measured alone, when the split
     * runs on several devices and a device alone is not just its part of the split (a cpu on
     * every core, a GPU per wave, a host bus): a configuration probe measures it (-1: none). */
    int unmeasured_alone;
    int config_probe; /* this call measures that device alone (balance_state.c) */
} apo__config_choice;

/* A split must be predicted faster than the best device alone by more than this fraction
 * to run: below it the models cannot tell the two apart (a GPU whose time is a wave whatever
 * its share predicts the split and itself alone alike), and the split pays what they do not
 * see: the second device's hand-overs and its draw on the host, the GPU's share cut into more
 * launches. On the second H100 machine a scored sweep split 0.89 / 0.11 took 1.28 times the
 * GPU alone (docs/perf-log/2026-11-26-h100-second-run.md). Measured makespans, where both
 * exist, decide without it. */
#define APO_SPLIT_MIN_GAIN 0.05

/* The measured makespans of a tag's configurations: [0] the split, [1 + d] device d alone
 * (apo__model lines over the calls' elements; an invalid one has not been measured). */
#define APO_CONFIGS (1 + APO_MAX_DEVICES)

/* A configuration's measurement stands for this many learning calls of its tag after it was
 * last measured: a split measured slow and then never run again would otherwise keep its
 * devices out after they changed (a throttled rank given its speed back); past it, the
 * predictions decide again, and a split they choose is measured anew. */
#define APO_CONFIG_STALE_CALLS 20

/* Chooses the configuration of a call and writes its shares (one-hot for a device alone).
 * models[d] is device d beside the others, alone_models[d] device d alone (invalid: derive
 * it), measured[] as above (NULL: none) and measured_age[] the learning calls since each was
 * last measured (NULL: all fresh). Returns APO_ERR_NO_DEVICE when no device is usable with a
 * model. */
apo_status apo__choose_configuration(const apo__model *models, const apo__model *alone_models,
                                     const apo__model *measured, const unsigned *measured_age,
                                     const int *usable, size_t n, const apo__shape *shape,
                                     double *shares, apo__config_choice *choice);

/* The split alone (the guard aside): the solver's shares, re-solved for the bus where it is
 * known; returns its predicted makespan, or NaN when no device is usable with a model. */
double apo__split_configuration(const apo__model *models, const int *usable, size_t n,
                                const apo__shape *shape, double *shares);

#endif

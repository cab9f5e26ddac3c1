/*
 * Built without MPI: no process joins a job. A runtime asked to join (apo_config.mpi,
 * APPORTION_MPI) or started by an MPI launcher says once that it runs alone.
 */
#include "base/error.h"
#include "cluster/cluster.h"

apo__cluster *apo__cluster_join(const apo__cluster_settings *s, apo__device_set *set,
                                apo_status open_status) {
    (void)open_status;
    if (s->mpi == APO_SWITCH_ON || (s->mpi == APO_SWITCH_UNSET && s->launched))
        apo__warn(set->warnings, "libapportion was built without MPI (meson -Dmpi): this "
                                 "process runs alone, on its own devices");
    return NULL;
}

void apo__cluster_leave(apo__cluster *c, apo__device *devices, size_t n_devices) {
    (void)c, (void)devices, (void)n_devices;
}

void apo__cluster_test_hook(void (*before_reply)(uint64_t task_no)) { (void)before_reply; }

void apo__cluster_info_fill(const apo__cluster *c, apo_cluster_info *info) {
    (void)c;
    info->ranks = 1;
}

apo_status apo__cluster_serve(const apo__cluster *c, apo__registry *reg, apo__range_runner run,
                              void *ctx) {
    (void)c, (void)reg, (void)run, (void)ctx;
    return apo__fail(APO_ERR_INVALID_ARGUMENT,
                     "apo_cluster_serve: libapportion was built without MPI; nothing to serve");
}

/*
 * Built without MPI: no process joins a job. A runtime asked to join (apo_config.mpi,
 * APPORTION_MPI) or started by an MPI launcher says once that it runs alone.
 */
#include <string.h>

#include "base/error.h"
#include "cluster/cluster.h"
#include "core/runtime.h"

void apo__cluster_join(apo_runtime *rt, const apo__cluster_settings *s, apo_status open_status) {
    (void)open_status;
    if (s->mpi == APO_SWITCH_ON || (s->mpi == APO_SWITCH_UNSET && s->launched))
        apo__warn(&rt->warnings, "libapportion was built without MPI (meson -Dmpi): this "
                                 "process runs alone, on its own devices");
}

void apo__cluster_leave(apo_runtime *rt) { (void)rt; }

void apo__cluster_test_hook(void (*before_reply)(uint64_t task_no)) { (void)before_reply; }

apo_status apo_cluster_info_get(const apo_runtime *rt, apo_cluster_info *info) {
    if (rt == NULL || info == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cluster_info_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(info, apo_cluster_info, APO_CLUSTER_INFO_INIT);
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    info->ranks = 1;
    return APO_OK;
}

apo_status apo_cluster_serve(apo_runtime *rt) {
    if (rt == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cluster_serve: rt is NULL");
    return apo__fail(APO_ERR_INVALID_ARGUMENT,
                     "apo_cluster_serve: libapportion was built without MPI; nothing to serve");
}

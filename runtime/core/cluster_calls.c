/* The public calls on a runtime's MPI job (apportion.h, "Clusters"): the cluster's face. */
#include <string.h>

#include "base/error.h"
#include "cluster/cluster.h"
#include "core/distribute_range.h"
#include "core/runtime.h"

apo_status apo_cluster_info_get(const apo_runtime *rt, apo_cluster_info *info) {
    if (rt == NULL || info == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cluster_info_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(info, apo_cluster_info, APO_CLUSTER_INFO_INIT);
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    apo__cluster_info_fill(rt->cluster, info);
    return APO_OK;
}

static apo_status run_range(void *ctx, const apo__call *call, const char *tag, uint64_t first,
                            uint64_t end, apo__range_result *result) {
    return apo__distribute_range(ctx, call, tag, first, end, result);
}

apo_status apo_cluster_serve(apo_runtime *rt) {
    if (rt == NULL)
        return apo__fail(APO_ERR_NULL, "apo_cluster_serve: rt is NULL");
    const apo__cluster *c = rt->cluster;
#ifdef APO_HAVE_MPI
    if (c == NULL || c->role != APO_CLUSTER_SERVER)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_cluster_serve: this runtime is not a serving rank (%s): only ranks "
                         "above 0 of an MPI job serve",
                         c == NULL ? "it joined no MPI job" : "it is rank 0, the coordinator");
#endif
    return apo__cluster_serve(c, &rt->registry, run_range, rt);
}

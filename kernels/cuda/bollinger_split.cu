/*
 * bollinger_split.cu: bollinger's staged kernel as pairs of warps, a chain warp and a finish
 * warp per group of 32 tiles (bollinger_split.h).
 *
 * What: apo__cuda_bollinger_split computes a chunk view (kernels_cuda.h) as
 * apo__cuda_bollinger does. bollinger.cu's launcher calls it when the process runs the staged
 * variant with pairs (APPORTION_CUDA_KERNELS=split, docs/env.md; staged.cu keeps the choice,
 * set at GPU discovery by apo__cuda_bollinger_split_set), and runs the one-warp staged kernel where
 * it answers APO_CUDA_NOT_STAGED (a period above 32).
 *
 * Launch shape: blocks of two warps (64 threads), one group of 32 work items a block,
 * ceil(items / 32) blocks up to 65535 with a grid-stride loop over the groups,
 * apo__bollinger_split_bytes() of dynamic shared memory (at most 48 KiB, no opt-in).
 *
 * Determinism: the chain runs each tile's body over consecutive segments as the staged kernel
 * does, and the finish takes the bands from the mean and variance by the CPU's own function
 * (bollinger_split.h); tests/kernels/cuda/test_cuda_staging.c runs this code on the host, and
 * tests/simt on host threads, against the CPU bit for bit. Compiled with -fmad=false.
 */
#define APO_STAGED_ACCESS 1

#include <cuda_runtime.h>

#include "bollinger_split.h"
#include "kernels_cuda.h"

extern __shared__ double apo__stage_shared[];

static __global__ void apo__bollinger_split_kernel(apo__cuda_view v, size_t tiles, size_t period,
                                                   double nbdev_up, double nbdev_dn,
                                                   apo__stage_geom g) {
    apo__stage_warp w;
    apo__stage_warp_init(&w, apo__stage_shared, &g);
    const size_t groups = (v.rows * tiles + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    for (size_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        apo__bollinger_split_pair(&w, &v, tiles, grp, period, nbdev_up, nbdev_dn);
    }
}

extern "C" int apo__cuda_bollinger_split(const apo__cuda_view *v, size_t period, double nbdev_up,
                                         double nbdev_dn, void *stream) {
    apo__stage_geom g;
    if (!apo__bollinger_split_geom(&g, period)) {
        return APO_CUDA_NOT_STAGED;
    }
    const size_t tiles = apo__chunk_tiles(v);
    apo__bollinger_split_kernel<<<apo__stage_grid(v->rows * tiles), APO_SPLIT_THREADS,
                                  apo__bollinger_split_bytes(&g),
                                  static_cast<cudaStream_t>(stream)>>>(*v, tiles, period, nbdev_up,
                                                                       nbdev_dn, g);
    return (int)cudaGetLastError();
}

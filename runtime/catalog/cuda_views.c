/* Row-uniform views of a GPU chunk; see cuda_views.h. */
#include <assert.h>
#include <string.h>

#include "catalog.h"
#include "catalog/cuda_views.h"

_Static_assert(APO_CUDA_VIEW_MAX_OUT >= APO_CAT_MAX_OUT, "a view carries every catalog output");

/* A view of rows [row0, row0 + rows), positions [begin, end), whose first tile is linear
 * tile `g0` of the call. */
static apo__cuda_view make_view(const apo__call *call, const apo__cuda_chunk *chunk, size_t row0,
                                size_t rows, size_t begin, size_t end, uint64_t g0) {
    const apo__kernel *k = call->kernel;
    apo__cuda_view v;
    memset(&v, 0, sizeof v);
    v.x = chunk->in[0];
    for (size_t i = 0; i < APO_CUDA_VIEW_MAX_OUT && i < k->n_outputs; i++)
        v.out[i] = chunk->out[i];
    v.partials = chunk->partials != NULL
                     ? chunk->partials + (size_t)(g0 - chunk->first) * k->partial_len
                     : NULL;
    v.cols = call->cols;
    v.out_cols = k->output_cols(k, call->params, call->cols, 0);
    v.row0 = row0;
    v.rows = rows;
    v.begin = begin;
    v.end = end;
    v.tile = call->tile;
    return v;
}

size_t apo__cuda_views(const apo__call *call, const apo__cuda_chunk *chunk,
                       apo__cuda_view views[3]) {
    assert(chunk->first < chunk->end && chunk->end <= call->tiles);
    const uint64_t tpr = call->tiles_per_row;
    const size_t tile = call->tile, len = call->axis_len;
    size_t ra = (size_t)(chunk->first / tpr), rb = (size_t)((chunk->end - 1) / tpr);
    size_t ja = (size_t)(chunk->first % tpr), jb = (size_t)((chunk->end - 1) % tpr);
    size_t end_b = (jb + 1) * tile < len ? (jb + 1) * tile : len;
    if (ra == rb) {
        views[0] = make_view(call, chunk, ra, 1, ja * tile, end_b, chunk->first);
        return 1;
    }
    size_t n = 0;
    size_t whole_from = ra, whole_to = rb + 1;
    if (ja != 0) {
        views[n++] = make_view(call, chunk, ra, 1, ja * tile, len, chunk->first);
        whole_from = ra + 1;
    }
    if (jb != tpr - 1)
        whole_to = rb;
    if (whole_to > whole_from)
        views[n++] = make_view(call, chunk, whole_from, whole_to - whole_from, 0, len,
                               (uint64_t)whole_from * tpr);
    if (jb != tpr - 1)
        views[n++] = make_view(call, chunk, rb, 1, 0, end_b, (uint64_t)rb * tpr);
    return n;
}

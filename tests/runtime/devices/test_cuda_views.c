/*
 * The GPU chunk views (runtime/catalog/cuda_views.c): a chunk is any contiguous run of tiles, and
 * its row-uniform views must cover each of its tiles exactly once, in tile order, with the
 * partials of each view at the right offset. Pure C: runs without a GPU.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "catalog/cuda_views.h"
#include "catalog/kernel.h"

/* The call of a built-in kernel with `rows` rows whose tiled axis is `len` long. */
static apo__call make_call(const char *kernel, size_t rows, size_t len) {
    const apo__kernel *k = NULL;
    for (size_t i = 0; i < apo__builtin_kernel_count(); i++)
        if (strcmp(apo__builtin_kernel(i)->name, kernel) == 0)
            k = apo__builtin_kernel(i);
    cr_assert_not_null(k);
    apo__call call;
    memset(&call, 0, sizeof call);
    call.kernel = k;
    call.rows = rows;
    call.cols = len;
    for (size_t i = 0; i < k->n_params; i++)
        call.params[i] = k->params[i].def;
    call.axis_len = k->axis_len(k, call.params, len);
    call.tile = k->tile_len(k, call.params);
    call.tiles_per_row = (call.axis_len + call.tile - 1) / call.tile;
    call.tiles = (uint64_t)rows * call.tiles_per_row;
    return call;
}

/* Checks the views of every chunk [first, end) of the call. */
static void check_all_chunks(const apo__call *call) {
    static double partials[1 << 16];
    for (uint64_t first = 0; first < call->tiles; first++) {
        for (uint64_t end = first + 1; end <= call->tiles; end++) {
            apo__cuda_chunk chunk;
            memset(&chunk, 0, sizeof chunk);
            chunk.first = first;
            chunk.end = end;
            chunk.partials = call->kernel->partial_len ? partials : NULL;
            apo__cuda_view v[3];
            size_t n = apo__cuda_views(call, &chunk, v);
            cr_assert(n >= 1 && n <= 3, "chunk [%llu, %llu): %zu views", (unsigned long long)first,
                      (unsigned long long)end, n);
            uint64_t next = first; /* the tile the next view must start with */
            for (size_t i = 0; i < n; i++) {
                cr_assert(v[i].rows >= 1 && v[i].begin < v[i].end && v[i].end <= call->axis_len);
                cr_assert_eq(v[i].begin % call->tile, 0, "views start on a tile boundary");
                cr_assert(v[i].rows == 1 || (v[i].begin == 0 && v[i].end == call->axis_len),
                          "a view of several rows covers them whole");
                uint64_t g0 = (uint64_t)v[i].row0 * call->tiles_per_row + v[i].begin / call->tile;
                cr_assert_eq(g0, next, "chunk [%llu, %llu) view %zu starts at tile %llu, not %llu",
                             (unsigned long long)first, (unsigned long long)end, i,
                             (unsigned long long)g0, (unsigned long long)next);
                if (chunk.partials != NULL)
                    cr_assert_eq(v[i].partials,
                                 partials + (size_t)(g0 - first) * call->kernel->partial_len);
                uint64_t per_row = (v[i].end - v[i].begin + call->tile - 1) / call->tile;
                cr_assert(v[i].end == call->axis_len || v[i].end % call->tile == 0);
                next = g0 + per_row * v[i].rows;
            }
            cr_assert_eq(next, end, "chunk [%llu, %llu): views end at tile %llu",
                         (unsigned long long)first, (unsigned long long)end,
                         (unsigned long long)next);
        }
    }
}

Test(cuda_views, one_row_of_several_tiles) {
    apo__call call = make_call("bollinger", 1, 10 * 4096 + 1);
    check_all_chunks(&call);
}

Test(cuda_views, rows_with_a_short_last_tile) {
    apo__call call = make_call("bollinger", 5, 3 * 4096 + 17);
    check_all_chunks(&call);
}

Test(cuda_views, rows_of_exactly_whole_tiles) {
    apo__call call = make_call("returns_stats", 4, 3 * 8192);
    check_all_chunks(&call);
}

Test(cuda_views, rows_of_one_tile_each) {
    apo__call call = make_call("macd", 7, 1000);
    check_all_chunks(&call);
}

Test(cuda_views, bootstrap_tiles_replicates) {
    apo__call call = make_call("bootstrap", 3, 100); /* 1000 replicates: 125 tiles a row */
    cr_assert_eq(call.tiles_per_row, 125);
    check_all_chunks(&call);
}

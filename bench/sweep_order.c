/*
 * sweep_order.c: the tile-order experiment of apo-bench-kernels' sweep section (declared in
 * sweeps.h; the decision it supports is in docs/kernels.md, "Sweeps: what is shared").
 *
 * A device runs a sweep's tiles set by set (set-major). The alternative would run the
 * tiles of every set over the same input span back to back (position-major), so that the
 * span is read from memory once and from a near cache for the other sets. This measures
 * both orders directly on the kernels' group functions (kernels/dispatch/kernels.h, as overhead.c
 * does for its baseline), on one thread, with groups of one vector's lanes of tiles, the
 * sweeps of sweeps.c and distinct output blocks per set: `rounds` rounds, each running both
 * orders (which one first alternates), and the medians. Both orders must write the same
 * bits; a value that differs counts as wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kernels.h"
#include "sweeps.h"

#define ORDER_MAX_LANES 8

/* A group of tiles of one set, computed in one call of the group function. */
typedef struct tile_group {
    size_t set;
    size_t pos; /* the input position of its first tile: row * cols + begin */
    apo__tile_span tiles[ORDER_MAX_LANES];
    size_t n;
} tile_group;

static int by_position(const void *a, const void *b) {
    const tile_group *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return (x->set > y->set) - (x->set < y->set);
}

static size_t tile_len(const bench_order_sweep *sw, size_t s) {
    const double *p = sw->params + s * 3;
    return sw->is_macd ? apo__macd_tile_len((size_t)p[0], (size_t)p[1], (size_t)p[2])
                       : apo__bollinger_tile_len((size_t)p[0]);
}

static void run_groups(const bench_order_sweep *sw, const double *x, const tile_group *g,
                       size_t n_groups, double *const *out, apo__cpu_isa isa) {
    const size_t block = sw->rows * sw->cols;
    for (size_t i = 0; i < n_groups; i++) {
        const double *p = sw->params + g[i].set * 3;
        double *a = out[0] + g[i].set * block, *b = out[1] + g[i].set * block,
               *c = out[2] + g[i].set * block;
        if (sw->is_macd)
            apo__cpu_macd_tiles(x, sw->rows, sw->cols, g[i].tiles, g[i].n, (size_t)p[0],
                                (size_t)p[1], (size_t)p[2], a, b, c, isa);
        else
            apo__cpu_bollinger_tiles(x, sw->rows, sw->cols, g[i].tiles, g[i].n, (size_t)p[0], p[1],
                                     p[2], a, b, c, isa);
    }
}

int bench_sweep_order(const bench_order_sweep *sw, const double *x, int rounds,
                      bench_order_result *res) {
    memset(res, 0, sizeof *res);
    const apo__cpu_isa isa = apo__cpu_isa_best();
    size_t lanes = apo__cpu_isa_lanes(isa);
    lanes = lanes > ORDER_MAX_LANES ? ORDER_MAX_LANES : lanes;
    const size_t block = sw->rows * sw->cols;
    size_t n_groups = 0;
    for (size_t s = 0; s < sw->sets; s++) {
        const size_t tiles = sw->rows * ((sw->cols + tile_len(sw, s) - 1) / tile_len(sw, s));
        n_groups += (tiles + lanes - 1) / lanes;
    }
    tile_group *set_major = malloc(n_groups * sizeof *set_major);
    tile_group *pos_major = malloc(n_groups * sizeof *pos_major);
    double *times[2] = {malloc((size_t)rounds * sizeof(double)),
                        malloc((size_t)rounds * sizeof(double))};
    double *out[2][3] = {{0}};
    int ok = set_major != NULL && pos_major != NULL && times[0] != NULL && times[1] != NULL;
    for (int o = 0; o < 2 && ok; o++)
        for (int k = 0; k < 3 && ok; k++)
            ok = (out[o][k] = calloc(sw->sets * block, sizeof(double))) != NULL;
    if (ok) {
        size_t at = 0;
        for (size_t s = 0; s < sw->sets; s++) {
            const size_t len = tile_len(sw, s), per_row = (sw->cols + len - 1) / len;
            const size_t tiles = sw->rows * per_row;
            for (size_t t0 = 0; t0 < tiles; t0 += lanes) {
                tile_group *g = &set_major[at++];
                g->set = s;
                g->n = 0;
                for (size_t t = t0; t < t0 + lanes && t < tiles; t++) {
                    const size_t row = t / per_row, begin = t % per_row * len;
                    g->tiles[g->n++] = (apo__tile_span){
                        row, begin, begin + len < sw->cols ? begin + len : sw->cols};
                }
                g->pos = g->tiles[0].row * sw->cols + g->tiles[0].begin;
            }
        }
        memcpy(pos_major, set_major, n_groups * sizeof *pos_major);
        qsort(pos_major, n_groups, sizeof *pos_major, by_position);
        for (int r = 0; r < rounds; r++)
            for (int k = 0; k < 2; k++) {
                const int which = (r + k) % 2; /* 0: set-major, 1: position-major */
                const double t0 = bench_now();
                run_groups(sw, x, which == 0 ? set_major : pos_major, n_groups, out[which], isa);
                times[which][r] = bench_now() - t0;
            }
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < sw->sets * block; i++)
                res->wrong += memcmp(&out[0][k][i], &out[1][k][i], sizeof(double)) != 0;
        res->set_major_ms = bench_median(times[0], (size_t)rounds) * 1e3;
        res->position_major_ms = bench_median(times[1], (size_t)rounds) * 1e3;
        res->lanes = lanes;
    }
    free(set_major);
    free(pos_major);
    free(times[0]);
    free(times[1]);
    for (int o = 0; o < 2; o++)
        for (int k = 0; k < 3; k++)
            free(out[o][k]);
    return ok ? 0 : -1;
}

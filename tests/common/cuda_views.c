/*
 * cuda_views.c: see cuda_views.h.
 */
#include "cuda_views.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "lone_tile_cut.h"
#include "random_walk.h"

size_t cuda_chunk_views(size_t rows, size_t len, size_t tile, apo__cuda_view *out) {
    size_t n = 0;
    apo__cuda_view v;
    memset(&v, 0, sizeof v);
    v.tile = tile;
    v.rows = rows;
    v.end = len;
    out[n++] = v;
    const size_t tiles = (len + tile - 1) / tile;
    if (tiles < 3)
        return n;
    const size_t a = tile, b = (tiles - 1) * tile;
    if (rows == 1) {
        v.begin = a;
        v.end = b;
        out[n++] = v;
        return n;
    }
    /* The first row from a, the whole rows between, the last row up to b. */
    v.rows = 1;
    v.begin = a;
    out[n++] = v;
    if (rows > 2) {
        v.row0 = 1;
        v.rows = rows - 2;
        v.begin = 0;
        out[n++] = v;
    }
    v.row0 = rows - 1;
    v.rows = 1;
    v.begin = 0;
    v.end = b;
    out[n++] = v;
    return n;
}

double *cuda_poisoned(size_t n, double poison) {
    double *p = malloc((n ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = poison;
    return p;
}

double *cuda_input_for_view(const double *x, size_t rows, size_t cols, const apo__cuda_view *v,
                            size_t halo, double poison) {
    double *y = cuda_poisoned(rows * cols, poison);
    for (size_t r = v->row0; r < v->row0 + v->rows; r++) {
        const size_t lo = halo == SIZE_MAX ? 0 : (v->begin > halo ? v->begin - halo : 0);
        const size_t hi = halo == SIZE_MAX ? cols : v->end;
        memcpy(y + r * cols + lo, x + r * cols + lo, (hi - lo) * sizeof *y);
    }
    return y;
}

double *cuda_macd_cut_mismatches(size_t tile, size_t h, size_t most) {
    const size_t cols = 3 * tile;
    double *x = malloc(cols * sizeof *x);
    cr_assert_not_null(x);
    apo__random_walk(x, 1, cols, 77);
    const size_t pieces = apo__cut_pieces_most(tile, h, most, 2);
    for (size_t b = 0; b < cols; b += 2 * tile) {
        double spike = 1e300;
        for (size_t j = 1; j < pieces; j++, spike *= 1e-4)
            x[apo__cut_span(b, b + tile, h, pieces, j).begin - h - 1] = spike;
    }
    const size_t fourth = apo__cut_span(2 * tile, 3 * tile, h, pieces, 3).begin;
    for (size_t i = fourth - h; i < fourth; i++)
        x[i] = NAN;
    const apo__tile_span first = apo__cut_span(tile, 2 * tile, h, pieces, 0);
    for (size_t i = first.begin - h; i < first.end; i++)
        x[i] = NAN;
    return x;
}

void cuda_macd_cut_case_init(cuda_macd_cut_case *c, size_t tile, size_t most, double poison) {
    const size_t h = apo__macd_warmup(12, 26, 9);
    c->cols = 3 * tile;
    c->x = cuda_macd_cut_mismatches(tile, h, most);
    for (int o = 0; o < 3; o++) {
        c->want[o] = cuda_poisoned(c->cols, poison);
        c->got[o] = cuda_poisoned(c->cols, poison);
    }
    for (size_t b = 0; b < c->cols; b += tile)
        apo__cpu_macd_tile(c->x, c->cols, b, b + tile, 12, 26, 9, c->want[0], c->want[1],
                           c->want[2]);
    memset(&c->v, 0, sizeof c->v);
    c->v.x = c->x;
    c->v.cols = c->v.out_cols = c->cols;
    c->v.rows = 1;
    c->v.end = c->cols;
    c->v.tile = tile;
    for (int o = 0; o < 3; o++)
        c->v.out[o] = c->got[o];
}

void cuda_macd_cut_case_free(cuda_macd_cut_case *c) {
    for (int o = 0; o < 3; o++) {
        free(c->want[o]);
        free(c->got[o]);
    }
    free(c->x);
}

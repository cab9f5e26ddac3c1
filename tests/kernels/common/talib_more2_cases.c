/*
 * talib_more2_cases.c: see talib_more2_cases.h.
 */
#include "talib_more2_cases.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void io_of(apo__cat_io *io, const more2_case *c, const series *s, double *const *out) {
    memset(io, 0, sizeof *io);
    for (size_t i = 0; i < s->n_in; i++)
        io->in[i] = s->in[i];
    for (size_t o = 0; o < c->n_out; o++)
        io->out[o] = out[o];
    for (size_t i = 0; i < APO_CAT_MAX_PAR; i++)
        io->p[i] = c->p[i];
    io->h = apo__catalog_halo(c->id, io->p);
    io->tile = apo__catalog_tile_len(c->id, io->p);
}

/* The kernel over tiles of len bars, backwards (forwards when forwards is set). */
static void run_tiles(const more2_case *c, const series *s, double *const *out, size_t len,
                      int forwards) {
    apo__cat_io io;
    io_of(&io, c, s, out);
    const size_t tiles = (s->n + len - 1) / len;
    for (size_t k = 0; k < tiles; k++) {
        const size_t j = forwards ? k : tiles - 1 - k;
        const size_t b = j * len, e = b + len < s->n ? b + len : s->n;
        apo__cpu_catalog_tile(c->id, &io, b, e);
    }
}

static void alloc_outputs(double **o, size_t count, size_t n) {
    for (size_t k = 0; k < count; k++) {
        o[k] = alloc_doubles(n);
        for (size_t t = 0; t < n; t++)
            o[k][t] = -12345.678;
    }
}

static void free_outputs(double **o, size_t count) {
    for (size_t k = 0; k < count; k++)
        free(o[k]);
}

/* One case on one walk: returns the worst error relative to the scale. */
static double check_one(const more2_case *c, size_t ci, const series *s, int gaps) {
    double *got[APO_CAT_MAX_OUT], *want[APO_CAT_MAX_OUT], *scale[APO_CAT_MAX_OUT];
    alloc_outputs(got, APO_CAT_MAX_OUT, s->n);
    alloc_outputs(want, APO_CAT_MAX_OUT, s->n);
    alloc_outputs(scale, APO_CAT_MAX_OUT, s->n);
    /* A whole-row kernel's tiles are long; the others run on several short ones too. */
    const size_t grid = apo__catalog_tile_len(c->id, c->p);
    const size_t len = s->n > 1000 ? grid : (grid < 96 ? grid : 96);
    run_tiles(c, s, got, len, 0);
    c->ref(s->in, s->n, c->p, want, scale);
    double worst = 0;
    for (size_t o = 0; o < c->n_out; o++) {
        char what[128];
        snprintf(what, sizeof what, "case %zu n %zu gaps %d output %zu", ci, s->n, gaps, o);
        const double w =
            compare_with_reference(c->name, what, got[o], want[o], scale[o], s->n, 1e-12, 1);
        worst = w > worst ? w : worst;
    }
    free_outputs(got, APO_CAT_MAX_OUT);
    free_outputs(want, APO_CAT_MAX_OUT);
    free_outputs(scale, APO_CAT_MAX_OUT);
    return worst;
}

void more2_check_against_references(const more2_case *cases, size_t n) {
    const size_t lengths[] = {1, 3, 31, 500, 3001};
    for (size_t ci = 0; ci < n; ci++) {
        const more2_case *c = &cases[ci];
        double worst = 0;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            for (int gaps = 0; gaps < 2; gaps++) {
                series s;
                series_make(&s, 100 * ci + 10 * li + gaps, lengths[li], c->cols, 100.0, 0.5, gaps);
                const double w = check_one(c, ci, &s, gaps);
                worst = w > worst ? w : worst;
                series_free(&s);
            }
        }
        fprintf(stderr, "talib_more2 %s (%g, %g, %g, %g, %g): worst error %.2g of the scale\n",
                c->name, c->p[0], c->p[1], c->p[2], c->p[3], c->p[4], worst);
    }
}

void more2_check_grid_sets_the_bits(const more2_case *cases, size_t n) {
    for (size_t ci = 0; ci < n; ci++) {
        const more2_case *c = &cases[ci];
        const size_t len = apo__catalog_tile_len(c->id, c->p);
        /* Whole-row kernels' tiles are 65536 bars: three tiles of a shorter grid say the same
         * at a fraction of the cost. */
        const size_t tile = len > 4096 ? 4096 : len;
        series s;
        series_make(&s, 31 + ci, 2 * tile + 333, c->cols, 100.0, 0.5, 1);
        double *a[APO_CAT_MAX_OUT], *b[APO_CAT_MAX_OUT];
        alloc_outputs(a, APO_CAT_MAX_OUT, s.n);
        alloc_outputs(b, APO_CAT_MAX_OUT, s.n);
        run_tiles(c, &s, a, tile, 0);
        run_tiles(c, &s, b, tile, 1);
        for (size_t o = 0; o < c->n_out; o++)
            cr_assert(memcmp(a[o], b[o], s.n * sizeof(double)) == 0, "%s case %zu output %zu",
                      c->name, ci, o);
        free_outputs(a, APO_CAT_MAX_OUT);
        free_outputs(b, APO_CAT_MAX_OUT);
        series_free(&s);
    }
}

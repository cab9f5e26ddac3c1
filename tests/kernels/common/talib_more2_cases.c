/*
 * talib_more2_cases.c: see talib_more2_cases.h.
 */
#include "talib_more2_cases.h"

#include <criterion/criterion.h>

#include <math.h>
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

void more2_run_tiles(const more2_case *c, const series *s, double *const *out, size_t len,
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

void more2_case_series(series *s, const more2_case *c, uint64_t seed, size_t n, int gaps) {
    series_make(s, seed, n, c->cols, 100.0, 0.5, gaps);
    if (c->id == APO_CAT_MAVP)
        for (size_t t = 0; t < n; t++)
            s->col[4][t] = 15.0 + (s->col[4][t] - s->col[4][0]) * 0.5;
}

/* A reference's infinity (bollinger's middle over infinities of one sign) is one the relative
 * error cannot take: the kernel's must be that infinity, and both then leave the comparison. */
static void set_aside_infinities(const more2_case *c, size_t ci, double *got, double *want,
                                 size_t n) {
    for (size_t t = 0; t < n; t++)
        if (isinf(want[t])) {
            cr_assert_eq(got[t], want[t], "%s case %zu t %zu", c->name, ci, t);
            got[t] = want[t] = NAN;
        }
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
    more2_run_tiles(c, s, got, len, 0);
    c->ref(s->in, s->n, c->p, want, scale);
    double worst = 0;
    for (size_t o = 0; o < c->n_out; o++) {
        set_aside_infinities(c, ci, got[o], want[o], s->n);
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

/* The stderr line of a case: "<label> <name> (<p0>, <p1>, ...): worst error <w> of the scale". */
static void print_worst(const more2_options *opt, const more2_case *c, double worst) {
    char params[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < opt->params_shown && used < sizeof params; i++)
        used +=
            (size_t)snprintf(params + used, sizeof params - used, i == 0 ? "%g" : ", %g", c->p[i]);
    fprintf(stderr, "%s %s (%s): worst error %.2g of the scale\n", opt->label, c->name, params,
            worst);
}

void more2_check_against_references_as(const more2_case *cases, size_t n,
                                       const more2_options *opt) {
    const size_t lengths[] = {1, 3, 31, 500, opt->longest};
    for (size_t ci = 0; ci < n; ci++) {
        const more2_case *c = &cases[ci];
        double worst = 0;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            for (int gaps = 0; gaps < 2; gaps++) {
                series s;
                more2_case_series(&s, c, 100 * ci + 10 * li + gaps, lengths[li], gaps);
                if (!opt->past_lookback_only || s.n > apo__catalog_lookback(c->id, c->p)) {
                    const double w = check_one(c, ci, &s, gaps);
                    worst = w > worst ? w : worst;
                }
                series_free(&s);
            }
        }
        print_worst(opt, c, worst);
    }
}

void more2_check_against_references(const more2_case *cases, size_t n) {
    const more2_options group2 = {"talib_more2", 3001, 5, 0};
    more2_check_against_references_as(cases, n, &group2);
}

void more2_check_grid_sets_the_bits_within(const more2_case *cases, size_t n, size_t longest) {
    for (size_t ci = 0; ci < n; ci++) {
        const more2_case *c = &cases[ci];
        const size_t len = apo__catalog_tile_len(c->id, c->p);
        const size_t tile = len > longest ? longest : len;
        series s;
        more2_case_series(&s, c, 31 + ci, 2 * tile + 333, 1);
        double *a[APO_CAT_MAX_OUT], *b[APO_CAT_MAX_OUT];
        alloc_outputs(a, APO_CAT_MAX_OUT, s.n);
        alloc_outputs(b, APO_CAT_MAX_OUT, s.n);
        more2_run_tiles(c, &s, a, tile, 0);
        more2_run_tiles(c, &s, b, tile, 1);
        for (size_t o = 0; o < c->n_out; o++)
            cr_assert(memcmp(a[o], b[o], s.n * sizeof(double)) == 0, "%s case %zu output %zu",
                      c->name, ci, o);
        free_outputs(a, APO_CAT_MAX_OUT);
        free_outputs(b, APO_CAT_MAX_OUT);
        series_free(&s);
    }
}

void more2_check_grid_sets_the_bits(const more2_case *cases, size_t n) {
    /* Whole-row kernels' tiles are 65536 bars: three tiles of a shorter grid say the same at a
     * fraction of the cost. */
    more2_check_grid_sets_the_bits_within(cases, n, 4096);
}

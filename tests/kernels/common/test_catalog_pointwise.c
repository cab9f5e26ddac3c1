/*
 * test_catalog_pointwise.c: the position-independent catalog kernels
 * (apo__catalog_position_independent, catalog.h), which a GPU computes with a thread per
 * position rather than per tile (kernels/common/catalog_launch.h, docs/cuda.md, "The
 * position-independent kernels"), and the walk that deals the positions to the threads
 * (apo__chunk_walk, cuda_chunk.h).
 *
 * The property the launch rests on: every such kernel's family body (the function the GPU
 * thread calls), run over a range in pieces of 1 and of odd lengths, in ascending and in
 * descending order, writes the bits of one CPU call over the whole range at every position of
 * it, and nothing outside it; at its defaults and at its parameters' lower bounds, on seeded
 * inputs with NaNs, infinities, signed zeros and values inside and outside [-1, 1] mixed in.
 * The check itself fails for sma, whose tile slides a sum from its start. The GPU's own run of
 * the CUDA source is tests/simt/test_catalog_simt.c's.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_family_tile.h"
#include "cuda_chunk.h"
#include "splitmix64.h"

/* Positions each case runs past the kernel's halo. */
#define TAIL 411

/* The next draw of a seeded sequence, in [0, 1). */
static double uniform(uint64_t *state) {
    return (double)(apo__splitmix64_mix(*state += APO__SPLITMIX64_GAMMA) >> 11) * 0x1.0p-53;
}

/* Input k of n samples, in stretches of 64 bars of four kinds in turn: a walk near 100 (prices,
 * volumes, periods), values in [-1.25, 1.25] (the inverse trigonometry's domain and past it),
 * and each of those with about one sample in eight a NaN, an infinity of either sign or a zero of
 * either sign. The clean stretches hold whole windows of the longest default periods (30), so
 * that the windowed kernels' outputs are numbers there, not the NaN of a gap. */
static double *make_input(size_t n, uint64_t seed) {
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    uint64_t s = seed;
    double walk = 90.0 + 20.0 * uniform(&s);
    for (size_t t = 0; t < n; t++) {
        const size_t kind = (t / 64 + seed) % 4;
        walk += uniform(&s) - 0.5;
        x[t] = kind % 2 ? 2.5 * uniform(&s) - 1.25 : walk;
        const double u = kind >= 2 ? uniform(&s) : 1.0;
        if (u < 0.04)
            x[t] = NAN;
        else if (u < 0.06)
            x[t] = INFINITY;
        else if (u < 0.08)
            x[t] = -INFINITY;
        else if (u < 0.1)
            x[t] = 0.0;
        else if (u < 0.12)
            x[t] = -0.0;
    }
    return x;
}

typedef struct case_io {
    size_t n;
    double *in[APO_CAT_MAX_IN];
    apo__cat_io io;
} case_io;

static void case_make(case_io *c, apo__cat_id id, const double *p, size_t n_params, uint64_t seed) {
    memset(c, 0, sizeof *c);
    for (size_t k = 0; k < n_params; k++)
        c->io.p[k] = p[k];
    c->io.h = apo__catalog_halo(id, c->io.p);
    c->n = c->io.h + TAIL;
    for (size_t k = 0; k < shapes[id].n_in; k++) {
        c->in[k] = make_input(c->n, seed + 977 * k);
        c->io.in[k] = c->in[k];
    }
}

static void case_free(case_io *c) {
    for (int k = 0; k < APO_CAT_MAX_IN; k++)
        free(c->in[k]);
}

/* Positions of [0, n) where got's outputs differ from want's. */
static size_t count_wrong(apo__cat_id id, double *const *got, double *const *want, size_t n,
                          const char *what) {
    size_t wrong = 0;
    for (size_t o = 0; o < shapes[id].n_out; o++)
        for (size_t t = 0; t < n; t++)
            if (!same_bits(got[o][t], want[o][t]) && wrong++ == 0)
                fprintf(stderr, "kernel %d %s: output %zu at %zu is %.17g, whole %.17g\n", (int)id,
                        what, o, t, got[o][t], want[o][t]);
    return wrong;
}

/* Kernel id on c's inputs over [b, e): one CPU call, then the family's body in pieces of each
 * length, ascending and descending, each into fresh poisoned outputs. Returns the positions that
 * differ. */
static size_t check_range(apo__cat_id id, case_io *c, size_t b, size_t e) {
    static const size_t pieces[] = {1, 3, 7, 13, 97};
    double *want[APO_CAT_MAX_OUT] = {NULL}, *got[APO_CAT_MAX_OUT] = {NULL};
    apo__cat_io whole = c->io, split = c->io;
    for (size_t o = 0; o < shapes[id].n_out; o++) {
        want[o] = whole.out[o] = poisoned(c->n);
        got[o] = split.out[o] = poisoned(c->n);
    }
    apo__cpu_catalog_tile(id, &whole, b, e);
    /* The whole call writes [b, e) alone, so poison outside it is what the pieces must leave. */
    size_t wrong = 0;
    for (size_t o = 0; o < shapes[id].n_out; o++)
        for (size_t t = 0; t < c->n; t++)
            if ((t < b || t >= e) && !same_bits(want[o][t], poison()))
                wrong++;
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++)
        for (int descending = 0; descending < 2; descending++) {
            for (size_t o = 0; o < shapes[id].n_out; o++)
                for (size_t t = 0; t < c->n; t++)
                    got[o][t] = poison();
            const size_t count = (e - b + pieces[k] - 1) / pieces[k];
            for (size_t q = 0; q < count; q++) {
                const size_t from = b + (descending ? count - 1 - q : q) * pieces[k];
                family_tile(id, &split, from, from + pieces[k] < e ? from + pieces[k] : e);
            }
            char what[128];
            snprintf(what, sizeof what, "[%zu, %zu) in pieces of %zu%s", b, e, pieces[k],
                     descending ? ", last first" : "");
            wrong += count_wrong(id, got, want, c->n, what);
        }
    for (size_t o = 0; o < shapes[id].n_out; o++) {
        free(want[o]);
        free(got[o]);
    }
    return wrong;
}

/* Kernel id at parameters p: a range from 0 (the NaN lead in it) and one inside the row. */
static size_t check_kernel(apo__cat_id id, const double *p, uint64_t seed) {
    case_io c;
    case_make(&c, id, p, shapes[id].n_params, seed);
    size_t wrong = check_range(id, &c, 0, c.n);
    wrong += check_range(id, &c, c.n / 3, c.n - 5);
    case_free(&c);
    return wrong;
}

/* Parameter set `which` of kernel id: 0 the defaults, 1 every parameter at its lower bound. */
static void params_of(apo__cat_id id, int which, double *p) {
    memset(p, 0, APO_CAT_MAX_PAR * sizeof *p);
    for (size_t k = 0; k < shapes[id].n_params; k++)
        p[k] = which == 0 ? shapes[id].params[k].def : shapes[id].params[k].min;
}

Test(catalog_pointwise, every_position_independent_kernel_gives_its_bits_in_pieces,
     .timeout = 300) {
    cr_assert_eq(sizeof shapes / sizeof shapes[0], (size_t)APO_CAT_COUNT);
    size_t marked = 0;
    for (int i = 0; i < APO_CAT_COUNT; i++) {
        const apo__cat_id id = (apo__cat_id)i;
        if (!apo__catalog_position_independent(id))
            continue;
        marked++;
        for (int which = 0; which < 2; which++) {
            double p[APO_CAT_MAX_PAR];
            params_of(id, which, p);
            const size_t wrong = check_kernel(id, p, 0x51u + 7u * (uint64_t)i + (uint64_t)which);
            cr_expect_eq(wrong, 0, "kernel %d at its %s: %zu outputs differ from the whole range",
                         i, which == 0 ? "defaults" : "lower bounds", wrong);
        }
    }
    /* The element-wise transforms and operators, the price transforms, the momentum
     * differences and the candles at least: a table that lost the mark would test nothing. */
    cr_expect(marked >= 100, "only %zu kernels are marked position-independent", marked);
    const apo__cat_id expected[] = {APO_CAT_ADD,  APO_CAT_ACOS,     APO_CAT_MOM,     APO_CAT_ROC,
                                    APO_CAT_ROCP, APO_CAT_ROCR,     APO_CAT_ROCR100, APO_CAT_TRANGE,
                                    APO_CAT_BOP,  APO_CAT_MEDPRICE, APO_CAT_MARKETFI};
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
        cr_expect(apo__catalog_position_independent(expected[k]), "kernel %d is not marked",
                  (int)expected[k]);
}

/* The check can fail: sma and wma slide their window's sums from the tile's start, and rsi
 * seeds Wilder's averages at its warm-up's start, so a piece that starts elsewhere rounds
 * differently. None of them is marked. (Many unmarked kernels pass it: the windows that restart
 * at anchors or sum exactly, and recurrences that forget their seed to the last bit; their
 * bodies are a start and a slide, which a thread per position would repeat at every position.) */
Test(catalog_pointwise, the_check_tells_kernels_whose_bits_depend_on_the_tile_start,
     .timeout = 120) {
    const apo__cat_id unmarked[] = {APO_CAT_SMA, APO_CAT_WMA, APO_CAT_RSI};
    for (size_t k = 0; k < sizeof unmarked / sizeof unmarked[0]; k++) {
        const apo__cat_id id = unmarked[k];
        cr_expect(!apo__catalog_position_independent(id), "kernel %d is marked", (int)id);
        double p[APO_CAT_MAX_PAR];
        params_of(id, 0, p);
        cr_expect(check_kernel(id, p, 0x5eedu + k) > 0, "kernel %d gave its bits in pieces",
                  (int)id);
    }
}

/* The walk deals every (row, position) of a view to exactly one thread, whatever the grid:
 * strides below a row, of whole rows, and of rows and a part. */
Test(catalog_pointwise, the_walk_takes_every_position_of_the_view_once, .timeout = 60) {
    static const size_t rows_of[] = {1, 3, 40};
    static const size_t begins[] = {0, 5, 4096};
    static const size_t lengths[] = {1, 37, 256, 1000};
    static const size_t threads_of[] = {1, 32, 256, 1000, 4096};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t l = 0; l < 4; l++)
                for (size_t g = 0; g < 5; g++) {
                    const apo__cuda_view v = {.row0 = 2,
                                              .rows = rows_of[a],
                                              .begin = begins[b],
                                              .end = begins[b] + lengths[l]};
                    const size_t items = v.rows * lengths[l];
                    unsigned char *seen = calloc(items, 1);
                    cr_assert_not_null(seen);
                    for (size_t first = 0; first < threads_of[g]; first++)
                        for (apo__chunk_walk w = apo__chunk_walk_from(&v, first, threads_of[g]);
                             w.row < v.rows; apo__chunk_walk_next(&w)) {
                            cr_assert_lt(w.at, lengths[l]);
                            seen[w.row * lengths[l] + w.at]++;
                        }
                    for (size_t i = 0; i < items; i++)
                        cr_assert_eq(seen[i], 1,
                                     "rows %zu, length %zu, %zu threads: item %zu taken %d times",
                                     v.rows, lengths[l], threads_of[g], i, seen[i]);
                    free(seen);
                }
}

/*
 * test_catalog_anchored.c: the anchored catalog kernels, which a GPU computes with a thread per
 * block between anchors rather than per tile (kernels/common/catalog_launch.h, docs/cuda.md
 * "The anchored kernels"), their spacing (averages_anchors.h, statistics_anchors.h), and the
 * mapping that deals the blocks to the threads (anchor_blocks.h).
 *
 * The property the launch rests on: for every kernel with a spacing A at its parameters, the
 * family's body (the function the GPU thread calls) run block by block over a tile, the tile cut
 * at the multiples of A, in ascending and in descending order, writes the bits of one CPU call
 * over the whole tile at every position of it. Checked at periods on both sides of each body's
 * changes of spacing and of design (64, 65, 128, 129, 256, 257, APO_PLAIN_MAX and past it, ...),
 * on a clean walk, on one with NaN and infinity runs placed before, across, at and after
 * anchors, and on one with a jump and a flat stretch across an anchor; over a tile from
 * position 0 (the NaN lead in it) and one that starts between anchors. The check fails for ema
 * and rsi cut at 64, which seed their recurrences at their tile's warm-up. The GPU's own run of
 * the CUDA source is tests/simt/test_catalog_simt.c's.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor_blocks.h"
#include "averages_anchors.h"
#include "catalog_family_tile.h"
#include "splitmix64.h"
#include "statistics_anchors.h"

/* The spacing the family's launcher reads (the function its .cu names). */
static size_t spacing_of(apo__cat_id id, const double *p) {
    switch (apo__catalog_family(id)) {
    case APO__CAT_FAMILY_averages:
        return apo__averages_anchor_spacing((int)id, p);
    case APO__CAT_FAMILY_statistics:
        return apo__statistics_anchor_spacing((int)id, p);
    default:
        return 0;
    }
}

static double uniform(uint64_t *state) {
    return (double)(apo__splitmix64_mix(*state += APO__SPLITMIX64_GAMMA) >> 11) * 0x1.0p-53;
}

/* The kinds of data: a clean walk; the walk with non-finite runs around anchors; the walk with
 * a jump and a flat stretch across an anchor. */
enum { CLEAN, GAPS, JUMP_FLAT, DATA_KINDS };
static const char *const data_names[] = {"clean", "gaps", "jump and flat"};

/* Samples [from, to) of x set to v, clipped to n. */
static void fill(double *x, size_t n, size_t from, size_t to, double v) {
    for (size_t t = from; t < to && t < n; t++)
        x[t] = v;
}

/* Input k of n samples of kind `kind`, the tile starting at b with anchors A apart: a walk near
 * 100, and for GAPS (in input k only where k is the gap's turn, so that a pair's gaps fall in
 * either series) a run of NaN ending just before the first anchor past b, a run across the
 * second, an infinity at the third and a run just after the fourth, and one run inside the
 * window before b; for JUMP_FLAT a jump of 1e6 before the second anchor and a flat stretch of a
 * window and a half across the third. */
static double *make_input(size_t n, size_t k, size_t n_in, int kind, size_t b, size_t A, size_t p,
                          uint64_t seed) {
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    uint64_t s = seed + 977 * k;
    double walk = 90.0 + 20.0 * uniform(&s);
    for (size_t t = 0; t < n; t++) {
        walk += uniform(&s) - 0.5;
        x[t] = walk;
    }
    const size_t a1 = (b / A + 1) * A, a2 = a1 + A, a3 = a2 + A, a4 = a3 + A;
    if (kind == GAPS) {
        if (k % n_in == 0) {
            fill(x, n, a1 - 3, a1, NAN);
            fill(x, n, a3, a3 + 1, INFINITY);
            if (b > 2)
                fill(x, n, b - 2, b - 1, NAN);
        }
        if (k % n_in == n_in - 1) {
            fill(x, n, a2 - 2, a2 + 2, NAN);
            fill(x, n, a4 + 1, a4 + 4, -INFINITY);
        }
    } else if (kind == JUMP_FLAT && k == 0) {
        for (size_t t = a2 - A / 3; t < n; t++)
            x[t] += 1e6;
        const size_t flat = a3 > p / 2 + 1 ? a3 - p / 2 - 1 : 0;
        fill(x, n, flat, a3 + p, x[flat]);
    }
    return x;
}

/* Kernel id at parameters p on inputs `in` of n samples: one CPU call over [b, e), then the
 * family's body on each block of [b, e) cut at the multiples of A, ascending and descending,
 * into fresh poisoned outputs. Returns the positions of [0, n) that differ. */
static size_t check_tile(apo__cat_id id, const apo__cat_io *io0, size_t n, size_t b, size_t e,
                         size_t A, const char *what) {
    double *want[APO_CAT_MAX_OUT] = {NULL}, *got[APO_CAT_MAX_OUT] = {NULL};
    apo__cat_io whole = *io0, split = *io0;
    for (size_t o = 0; o < shapes[id].n_out; o++) {
        want[o] = whole.out[o] = poisoned(n);
        got[o] = split.out[o] = poisoned(n);
    }
    apo__cpu_catalog_tile(id, &whole, b, e);
    size_t *cuts = malloc(((e - b) / A + 3) * sizeof *cuts);
    cr_assert_not_null(cuts);
    size_t n_cuts = 0;
    cuts[n_cuts++] = b;
    for (size_t a = (b / A + 1) * A; a < e; a += A)
        cuts[n_cuts++] = a;
    cuts[n_cuts] = e;
    size_t wrong = 0;
    for (int descending = 0; descending < 2; descending++) {
        for (size_t o = 0; o < shapes[id].n_out; o++)
            for (size_t t = 0; t < n; t++)
                got[o][t] = poison();
        for (size_t q = 0; q < n_cuts; q++) {
            const size_t j = descending ? n_cuts - 1 - q : q;
            family_tile(id, &split, cuts[j], cuts[j + 1]);
        }
        for (size_t o = 0; o < shapes[id].n_out; o++)
            for (size_t t = 0; t < n; t++)
                if (!same_bits(got[o][t], want[o][t]) && wrong++ == 0)
                    fprintf(stderr,
                            "kernel %d %s, [%zu, %zu) in blocks of %zu%s: output %zu at %zu is "
                            "%.17g, whole %.17g\n",
                            (int)id, what, b, e, A, descending ? ", last first" : "", o, t,
                            got[o][t], want[o][t]);
    }
    for (size_t o = 0; o < shapes[id].n_out; o++) {
        free(want[o]);
        free(got[o]);
    }
    free(cuts);
    return wrong;
}

/* Kernel id at parameters p cut at A, on every kind of data, over a tile from 0 and one from
 * between two anchors. Returns the positions that differ. */
static size_t check_kernel(apo__cat_id id, const double *p, size_t A, uint64_t seed) {
    size_t wrong = 0;
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t k = 0; k < shapes[id].n_params; k++)
        io.p[k] = p[k];
    io.h = apo__catalog_halo(id, io.p);
    /* The second tile starts a third of a block past an anchor, its halo (and a block's first
     * window) before it; each tile spans four anchors and a part. */
    const size_t b2 = ((io.h + (size_t)p[0] + 2 * A) / A) * A + A / 3 + 1;
    const size_t n = b2 + 4 * A + A / 2 + 7;
    for (int kind = 0; kind < DATA_KINDS; kind++)
        for (int second = 0; second < 2; second++) {
            const size_t b = second ? b2 : 0, e = n - 3;
            double *in[APO_CAT_MAX_IN] = {NULL};
            for (size_t k = 0; k < shapes[id].n_in; k++)
                io.in[k] = in[k] =
                    make_input(n, k, shapes[id].n_in, kind, b, A, (size_t)p[0], seed + kind);
            char what[96];
            snprintf(what, sizeof what, "period %g, %s data", p[0], data_names[kind]);
            wrong += check_tile(id, &io, n, b, e, A, what);
            for (size_t k = 0; k < shapes[id].n_in; k++)
                free(in[k]);
        }
    return wrong;
}

/* Periods on both sides of every body's change of spacing or of design. */
static const size_t periods[] = {1,   2,   5,   11,  12,   14,   24,   25,   30,   32,  33,
                                 39,  40,  47,  48,  63,   64,   65,   128,  129,  159, 160,
                                 256, 257, 512, 513, 1024, 1025, 2048, 2049, 4096, 4097};

/* The kernel's parameters at its defaults with the period (the first parameter) at `period`, and
 * parameter 1 at `second` where `second` >= 0 (ma's matype). */
static int params_at(apo__cat_id id, size_t period, double second, double *p) {
    memset(p, 0, APO_CAT_MAX_PAR * sizeof *p);
    for (size_t k = 0; k < shapes[id].n_params; k++)
        p[k] = shapes[id].params[k].def;
    if ((double)period < shapes[id].params[0].min || (double)period > shapes[id].params[0].max)
        return 0;
    p[0] = (double)period;
    if (second >= 0)
        p[1] = second;
    return 1;
}

Test(catalog_anchored, every_anchored_kernel_gives_the_tile_bits_block_by_block, .timeout = 300) {
    cr_assert_eq(sizeof shapes / sizeof shapes[0], (size_t)APO_CAT_COUNT);
    size_t checked = 0, kernels = 0;
    for (int i = 0; i < APO_CAT_COUNT; i++) {
        const apo__cat_id id = (apo__cat_id)i;
        /* ma at each matype its spacing names; every other kernel at its own parameters. */
        const int is_ma = id == APO_CAT_MA;
        int anchored = 0;
        for (int matype = is_ma ? 0 : -1; matype < (is_ma ? APO_MA_TYPES : 0); matype++)
            for (size_t k = 0; k < sizeof periods / sizeof periods[0]; k++) {
                double p[APO_CAT_MAX_PAR];
                if (!params_at(id, periods[k], matype, p))
                    continue;
                const size_t A = spacing_of(id, p);
                if (A == 0)
                    continue;
                cr_expect(!apo__catalog_position_independent(id) && !apo__catalog_whole_row(id),
                          "kernel %d has a spacing but takes another launch", i);
                anchored = 1;
                checked++;
                const size_t wrong = check_kernel(id, p, A, 0xa7u + 31u * (uint64_t)i + k);
                cr_expect_eq(wrong, 0,
                             "kernel %d at period %zu (parameter 1 %g), blocks of %zu: %zu "
                             "outputs differ from the whole tile",
                             i, periods[k], p[1], A, wrong);
            }
        kernels += (size_t)anchored;
    }
    /* sma, wma, ma, var, stddev, the five linearreg kernels, correl and beta. */
    cr_expect_eq(kernels, 12, "%zu kernels have anchors", kernels);
    cr_expect(checked > 150, "only %zu cases checked", checked);
}

/* The spacings the bodies' docs give (docs/kernels.md; window_plain.h, var_blocks.h,
 * correl_tile.h, beta_tile.h, linearreg_plain.h), written out here: a spacing function that
 * drifted from its body's rule would be caught by the check above only where the bits differ. */
Test(catalog_anchored, the_spacings_are_the_bodies, .timeout = 60) {
    static const struct {
        apo__cat_id id;
        double period, second;
        size_t spacing;
    } cases[] = {
        {APO_CAT_SMA, 2, 0, 64},
        {APO_CAT_SMA, 64, 0, 64},
        {APO_CAT_SMA, 65, 0, 128},
        {APO_CAT_WMA, 128, 0, 128},
        {APO_CAT_WMA, 129, 0, 256},
        {APO_CAT_SMA, 256, 0, 256},
        {APO_CAT_SMA, 257, 0, 512},
        {APO_CAT_WMA, 4096, 0, 512},
        {APO_CAT_SMA, 4097, 0, 0},
        {APO_CAT_WMA, 4097, 0, 0},
        {APO_CAT_MA, 30, 0, 64},
        {APO_CAT_MA, 300, 2, 512},
        {APO_CAT_MA, 30, 1, 0},
        {APO_CAT_MA, 1, 0, 0},
        {APO_CAT_VAR, 5, 1, 32},
        {APO_CAT_STDDEV, 159, 1, 32},
        {APO_CAT_VAR, 160, 1, 64},
        {APO_CAT_STDDEV, 1024, 1, 64},
        {APO_CAT_VAR, 1025, 1, 0},
        {APO_CAT_CORREL, 30, 0, 16},
        {APO_CAT_CORREL, 48, 0, 32},
        {APO_CAT_CORREL, 160, 0, 64},
        {APO_CAT_CORREL, 1025, 0, 0},
        {APO_CAT_BETA, 5, 0, 64},
        {APO_CAT_BETA, 512, 0, 64},
        {APO_CAT_BETA, 513, 0, 0},
        {APO_CAT_LINEARREG, 14, 0, 32},
        {APO_CAT_TSF, 39, 0, 32},
        {APO_CAT_LINEARREG_SLOPE, 40, 0, 64},
        {APO_CAT_LINEARREG_ANGLE, 2048, 0, 64},
        {APO_CAT_LINEARREG_INTERCEPT, 2049, 0, 0},
        {APO_CAT_EMA, 30, 0, 0},
        {APO_CAT_RSI, 14, 0, 0},
        {APO_CAT_ZSCORE, 20, 0, 0},
        {APO_CAT_BBANDS, 20, 2, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double p[APO_CAT_MAX_PAR] = {cases[k].period, cases[k].second};
        const size_t got = spacing_of(cases[k].id, p);
        cr_expect_eq(got, cases[k].spacing, "kernel %d at period %g, %g: spacing %zu, not %zu",
                     (int)cases[k].id, cases[k].period, cases[k].second, got, cases[k].spacing);
    }
}

/* The check can fail: rsi seeds Wilder's averages at its tile's warm-up origin, so a block cut at
 * 64 rounds differently from the tile; sma, wma and linearreg cut at 48 (not their anchors) start
 * blocks with a direct sum where the tile slides. (The double-double slides past APO_PLAIN_MAX,
 * and ema, whose warm-up forgets its seed, pass it on these data, but nothing guarantees their
 * bits on every series: they have no spacing.) */
Test(catalog_anchored, the_check_tells_kernels_cut_elsewhere_than_at_anchors, .timeout = 60) {
    static const struct {
        apo__cat_id id;
        size_t period, cut;
    } wrong_cuts[] = {{APO_CAT_RSI, 14, 64},
                      {APO_CAT_SMA, 30, 48},
                      {APO_CAT_WMA, 30, 48},
                      {APO_CAT_LINEARREG, 100, 48}};
    for (size_t k = 0; k < sizeof wrong_cuts / sizeof wrong_cuts[0]; k++) {
        const apo__cat_id id = wrong_cuts[k].id;
        double p[APO_CAT_MAX_PAR];
        cr_assert(params_at(id, wrong_cuts[k].period, -1, p));
        cr_expect_neq(spacing_of(id, p), wrong_cuts[k].cut, "kernel %d is anchored there", (int)id);
        cr_expect(check_kernel(id, p, wrong_cuts[k].cut, 0x5eedu + k) > 0,
                  "kernel %d gave its bits in blocks of %zu", (int)id, wrong_cuts[k].cut);
    }
}

/* The mapping deals every (row, position) of a view to exactly one item, each a block that
 * starts at its tile's start or at an anchor and crosses neither an anchor nor a tile's end, and
 * consecutive items of a tile are consecutive blocks: at tile lengths that are multiples of the
 * spacing and not, views from a tile's start and from inside one, rows one and several. */
Test(catalog_anchored, the_mapping_cuts_each_tile_at_the_anchors_once, .timeout = 60) {
    static const size_t tiles_of[] = {4096, 1000, 64, 100};
    static const size_t spacings[] = {16, 32, 64, 512};
    static const size_t begins[] = {0, 5, 1000};
    static const size_t lengths[] = {1, 63, 700, 5000};
    for (size_t a = 0; a < 4; a++)
        for (size_t s = 0; s < 4; s++)
            for (size_t b = 0; b < 3; b++)
                for (size_t l = 0; l < 4; l++) {
                    const apo__cuda_view v = {.row0 = 3,
                                              .rows = 2,
                                              .tile = tiles_of[a],
                                              .begin = begins[b],
                                              .end = begins[b] + lengths[l]};
                    const size_t A = spacings[s], n = lengths[l];
                    const size_t tiles = apo__chunk_tiles(&v), slots = apo__anchor_slots(v.tile, A);
                    unsigned char *seen = calloc(v.rows * n, 1);
                    cr_assert_not_null(seen);
                    size_t last_end = 0;
                    for (size_t i = 0; i < v.rows * tiles * slots; i++) {
                        const apo__chunk_item it = apo__anchor_block_of(&v, tiles, slots, A, i);
                        if (it.begin == it.end)
                            continue;
                        cr_assert_lt(it.begin, it.end);
                        cr_assert(it.row >= v.row0 && it.row < v.row0 + v.rows);
                        cr_assert(it.begin >= v.begin && it.end <= v.end);
                        cr_assert(it.begin % A == 0 || it.begin % v.tile == 0 ||
                                      it.begin == v.begin,
                                  "block [%zu, %zu) starts at neither an anchor nor a tile",
                                  it.begin, it.end);
                        cr_assert_eq((it.end - 1) / A, it.begin / A, "[%zu, %zu) crosses an anchor",
                                     it.begin, it.end);
                        cr_assert_eq((it.end - 1) / v.tile, it.begin / v.tile,
                                     "[%zu, %zu) crosses a tile", it.begin, it.end);
                        if (i % slots != 0)
                            cr_assert_eq(it.begin, last_end, "slot %zu does not follow on", i);
                        last_end = it.end;
                        for (size_t t = it.begin; t < it.end; t++)
                            seen[(it.row - v.row0) * n + t - v.begin]++;
                    }
                    for (size_t i = 0; i < v.rows * n; i++)
                        cr_assert_eq(seen[i], 1,
                                     "tile %zu, spacing %zu, view [%zu, %zu): item %zu taken %d "
                                     "times",
                                     v.tile, A, v.begin, v.end, i, seen[i]);
                    free(seen);
                }
}

/*
 * test_statistics.c: the catalog's rolling statistics (kernels/statistics/: var and stddev,
 * correl, beta, linearreg, linearreg_slope, linearreg_intercept, tsf, linearreg_angle and
 * avgdev; max, min and zscore are checked with every kernel of their table,
 * common/test_catalog_kernels.c and common/test_catalog_more.c, and max and min on samples full
 * of ties there too) against independent long-double references
 * (catalog_reference.c): a narrow band far from zero, each design's switch (direct windows,
 * blocks, plain slides) and its fallback after a jump, short windows bar by bar, constant
 * windows, every vector path and every bar giving the same bits, and linearreg's slide within
 * its bound. The costliest cases (streams' pieces at every switch of the blocks) are the slow
 * suite's, in test_statistics_slow.c; catalog_fixtures.c holds the table and helpers.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beta_tile.h"
#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "correl_tile.h"
#include "cpu_isa.h"
#include "linearreg_tile.h"
#include "var_tile.h"

/* Prices far from zero with a tiny spread: the running sums of x and x^2 that TA-Lib uses
 * lose the variance here; neither the direct evaluation of short windows (shifted by their
 * newest sample) nor the blocks of longer ones (shifted near their mean) do. */
Test(catalog, variance_of_a_narrow_band_far_from_zero) {
    const ref_kernel *k = kernel_of(APO_CAT_VAR);
    const double periods[] = {20, 40, 200};
    for (size_t i = 0; i < 3; i++) {
        series s;
        series_make(&s, 99, 30000, 1, 1e6, 1e-4, 0);
        const double p[4] = {periods[i], 1, 0, 0};
        const double w = check_against_reference(k, &s, p, 1e-12, "narrow band at 1e6");
        fprintf(stderr,
                "catalog var at 1e6 with step 1e-4, period %g: worst error %.2g of the scale\n",
                periods[i], w);
        series_free(&s);
    }
}

/* The periods on either side of the switch from direct evaluation to sliding sums
 * (var_tile.h, APO_VAR_DIRECT_MAX; pair_direct.h, APO_PAIR_DIRECT_MAX, the same), and the
 * shortest, against the reference, with gaps. */
Test(catalog, variance_at_the_design_switch) {
    const double periods[] = {1, 2, 5, APO_VAR_DIRECT_MAX, APO_VAR_DIRECT_MAX + 1};
    const apo__cat_id ids[] = {APO_CAT_VAR, APO_CAT_STDDEV, APO_CAT_BETA, APO_CAT_CORREL};
    cr_assert_eq(APO_VAR_DIRECT_MAX, APO_PAIR_DIRECT_MAX);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const ref_kernel *k = kernel_of(ids[i]);
            if (periods[pi] < (double)k->min_period)
                continue;
            series s;
            series_make(&s, 31 + pi, 5003, k->n_in, 100.0, 0.5, 1);
            const double p[4] = {periods[pi], k->def[0], 0, 0};
            char what[64];
            snprintf(what, sizeof what, "period %g with gaps", periods[pi]);
            check_against_reference(k, &s, p, 1e-12, what);
            series_free(&s);
        }
}

/* A short window's value is a function of its samples alone, whether its bar is computed in
 * a vector lane, in the scalar loop of a block's tail or alone: one call over the series and
 * one call per bar agree bitwise (NaN included), for every bar; var, stddev, beta, correl. */
Test(catalog, short_windows_bar_by_bar_equal_the_whole_series) {
    const size_t n = 1000;
    const double periods[] = {1, 2, 5, 17, APO_VAR_DIRECT_MAX};
    double *whole = alloc_doubles(n), *single = alloc_doubles(n);
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++)
        for (int which = 0; which < 4; which++) {
            const apo__cat_id ids[] = {APO_CAT_VAR, APO_CAT_STDDEV, APO_CAT_BETA, APO_CAT_CORREL};
            const apo__cat_id id = ids[which];
            const ref_kernel *k = kernel_of(id);
            series s;
            series_make(&s, 71 + pi, n, k->n_in, 100.0, 0.5, 1);
            /* A zero price before an infinity and before a NaN: their returns are 0 by
             * TA-Lib's rule, yet the windows holding them are NaN. */
            s.close[400] = 0.0;
            s.close[401] = INFINITY;
            s.close[700] = 0.0;
            s.close[701] = NAN;
            apo__cat_io io;
            memset(&io, 0, sizeof io);
            io.in[0] = s.in[0];
            io.in[1] = s.in[1];
            io.p[0] = periods[pi];
            io.p[1] = 2.5;
            io.out[0] = whole;
            apo__cpu_catalog_tile(id, &io, 0, n);
            io.out[0] = single;
            for (size_t t = 0; t < n; t++)
                apo__cpu_catalog_tile(id, &io, t, t + 1);
            for (size_t t = 0; t < n; t++)
                cr_assert(memcmp(&whole[t], &single[t], sizeof(double)) == 0,
                          "%s period %g: t %zu whole %.17g single %.17g", k->name, periods[pi], t,
                          whole[t], single[t]);
            /* The windows holding bar 401: p samples (var, stddev) or p + 1 (beta). */
            const size_t reach = (size_t)periods[pi] + (id == APO_CAT_BETA);
            for (size_t t = 401; t < 401 + reach; t++)
                cr_assert(isnan(whole[t]), "%s period %g: t %zu %g", k->name, periods[pi], t,
                          whole[t]);
            series_free(&s);
        }
    free(whole);
    free(single);
}

/* A constant window gives a variance of exactly 0, never a rounding residue, on both designs
 * (direct for short windows, sliding sums for long ones; var_tile.h). */
Test(catalog, constant_windows_have_zero_variance) {
    const size_t n = 9000;
    double *x = alloc_doubles(n), *var = alloc_doubles(n), *sd = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        x[t] = t < 3000 ? 0.1 : t < 6000 ? 100.0 + (double)(t % 7) : 0.3;
    const size_t periods[] = {20, APO_VAR_DIRECT_MAX + 8};
    for (size_t pi = 0; pi < 2; pi++) {
        const size_t p = periods[pi];
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        io.in[0] = x;
        io.p[0] = (double)p;
        io.p[1] = 2;
        io.out[0] = var;
        apo__cpu_catalog_tile(APO_CAT_VAR, &io, 0, n);
        io.out[0] = sd;
        apo__cpu_catalog_tile(APO_CAT_STDDEV, &io, 0, n);
        for (size_t t = p - 1; t < 3000; t++) {
            cr_assert_eq(var[t], 0.0, "p %zu t %zu var %g", p, t, var[t]);
            cr_assert_eq(sd[t], 0.0);
        }
        cr_assert_gt(var[3000 + p], 0.0);
        for (size_t t = 6000 + p - 1; t < n; t++)
            cr_assert_eq(var[t], 0.0, "p %zu t %zu var %g", p, t, var[t]);
    }
    free(x);
    free(var);
    free(sd);
}

/* x jumps by 5000, then holds nearly still (steps of 1e-6) for a stretch, and comes back: the
 * blocks whose first window holds the jump slide sums of squares near p 5000^2 into windows
 * whose variance is near 1e-12, so the slid centred sums keep no digit; the bound
 * (correl_tile.h, shifted_blocks.h, apo__shifted_bounds) must send those bars to their own windows.
 * y a walk. Periods on both sides of the blocks' limits, with gaps. */
static void jump_then_flat(series *s) {
    for (size_t t = 2000; t < 2600; t++)
        s->close[t] = 5100.0 + 1e-6 * (double)((t * 7919) % 113);
    /* A constant stretch too: r is 0 exactly there. */
    for (size_t t = 2600; t < 3300; t++)
        s->close[t] = 5100.0;
}

/* correl's and beta's blocks after the jump (x's returns: one huge, then tiny, then 0): the
 * reference, to 1e-12 of each kernel's scale. */
static void pair_after_a_jump(apo__cat_id id, const double *periods, size_t count) {
    const ref_kernel *k = kernel_of(id);
    for (size_t pi = 0; pi < count; pi++) {
        series s;
        series_make(&s, 57 + pi, 6007, k->n_in, 100.0, 0.5, 1);
        jump_then_flat(&s);
        const double p[4] = {periods[pi], 0, 0, 0};
        char what[64];
        snprintf(what, sizeof what, "jump then flat, period %g", periods[pi]);
        const double w = check_against_reference(k, &s, p, 1e-12, what);
        fprintf(stderr, "catalog %s after a jump, period %g: worst error %.2g\n", k->name,
                periods[pi], w);
        series_free(&s);
    }
}

Test(catalog, correl_after_a_jump_falls_back_to_its_windows) {
    const double periods[] = {5,
                              APO_CORREL_DIRECT_MAX + 1,
                              30,
                              100,
                              513,
                              APO_CORREL_BLOCKS_MAX,
                              APO_CORREL_BLOCKS_MAX + 1};
    pair_after_a_jump(APO_CAT_CORREL, periods, sizeof periods / sizeof periods[0]);
}

Test(catalog, beta_after_a_jump_falls_back_to_its_windows) {
    const double periods[] = {5,   APO_PAIR_DIRECT_MAX + 1, 47,
                              200, APO_BETA_BLOCKS_MAX,     APO_BETA_BLOCKS_MAX + 1};
    pair_after_a_jump(APO_CAT_BETA, periods, sizeof periods / sizeof periods[0]);
}

/* var's and stddev's blocks (var_blocks.h) after the same jump: the bars whose slid sums kept
 * no digit take their own windows, and a constant window is 0 exactly. Periods at each
 * switch of the blocks' length and on both sides of the blocks' limits. */
Test(catalog, variance_after_a_jump_falls_back_to_its_windows) {
    const double periods[] = {APO_VAR_DIRECT_MAX, APO_VAR_DIRECT_MAX + 1, 40, 159, 160, 200,
                              APO_VAR_BLOCKS_MAX, APO_VAR_BLOCKS_MAX + 1};
    const apo__cat_id ids[] = {APO_CAT_VAR, APO_CAT_STDDEV};
    for (size_t i = 0; i < 2; i++)
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            const ref_kernel *k = kernel_of(ids[i]);
            series s;
            series_make(&s, 67 + pi, 6007, k->n_in, 100.0, 0.5, 1);
            jump_then_flat(&s);
            const double p[4] = {periods[pi], k->def[0], 0, 0};
            char what[64];
            snprintf(what, sizeof what, "jump then flat, period %g", periods[pi]);
            const double w = check_against_reference(k, &s, p, 1e-12, what);
            fprintf(stderr, "catalog %s after a jump, period %g: worst error %.2g\n", k->name,
                    periods[pi], w);
            /* The constant stretch's windows (jump_then_flat): exactly 0. */
            double *out = alloc_doubles(s.n);
            run_grid(k->id, &s, p, out, 0);
            for (size_t t = 2600 + (size_t)periods[pi] - 1; t < 3300; t++)
                cr_assert(out[t] == 0.0, "%s(%g): t %zu %g", k->name, periods[pi], t, out[t]);
            free(out);
            series_free(&s);
        }
}

/* Kernel id at period (p1 its second parameter) over series s: every vector path gives sse2's
 * bits, and so does a stream updated one bar at a time from its state
 * (apo__cpu_catalog_resume); where by_position (a kernel whose every output is a function of
 * its data and index), so do tiles of one bar each. */
static void check_series_paths_and_bars(apo__cat_id id, const series *s, double period, double p1,
                                        int by_position) {
    const size_t n = s->n;
    double *want = alloc_doubles(n), *got = alloc_doubles(n);
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < 3; i++)
        io.in[i] = s->in[i];
    io.p[0] = period;
    io.p[1] = p1;
    io.out[0] = want;
    apo__cpu_catalog_tile_on(id, &io, 0, n, APO_CPU_ISA_SSE2);
    for (int isa = APO_CPU_ISA_AVX2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        io.out[0] = got;
        apo__cpu_catalog_tile_on(id, &io, 0, n, isa);
        for (size_t t = 0; t < n; t++)
            cr_assert(memcmp(&want[t], &got[t], sizeof(double)) == 0,
                      "kernel %d, period %g, path %s: t %zu got %.17g sse2 %.17g", (int)id, period,
                      apo__cpu_isa_name((apo__cpu_isa)isa), t, got[t], want[t]);
    }
    io.out[0] = got;
    void *state = calloc(1, apo__catalog_resume_size(id));
    cr_assert_not_null(state);
    for (size_t t = 0; t < n; t++)
        apo__cpu_catalog_resume(id, &io, state, t == 0, 0, t + 1);
    free(state);
    for (size_t t = 0; t < n; t++)
        cr_assert(memcmp(&want[t], &got[t], sizeof(double)) == 0,
                  "kernel %d, period %g, a stream bar by bar: t %zu got %.17g whole %.17g", (int)id,
                  period, t, got[t], want[t]);
    if (by_position) {
        for (size_t t = 0; t < n; t++)
            apo__cpu_catalog_tile(id, &io, t, t + 1);
        for (size_t t = 0; t < n; t++)
            cr_assert(memcmp(&want[t], &got[t], sizeof(double)) == 0,
                      "kernel %d, period %g, tiles of one bar: t %zu got %.17g whole %.17g",
                      (int)id, period, t, got[t], want[t]);
    }
    free(want);
    free(got);
}

/* For the kernels whose blocks sum their first window in vector lanes and form their outputs
 * several at a time, correl (correl_tile.h), var and stddev (var_blocks.h: four blocks side by
 * side on the CPU, one where a tile or a stream piece holds no more):
 * check_series_paths_and_bars over a walk of pairs with gaps and a jump to a nearly flat
 * stretch, at each period; nbdev 2.5 (stddev's; correl and var read no second parameter).
 * Periods evaluated directly and in blocks of each length, the partial sums' head empty and
 * not. */
static void check_paths_and_bars(apo__cat_id id, const double *periods, size_t count) {
    for (size_t pi = 0; pi < count; pi++) {
        series s;
        series_make(&s, 13 + pi, 3001, 4, 100.0, 0.5, 1);
        for (size_t t = 1500; t < 1900; t++)
            s.close[t] = 400.0 + 1e-5 * (double)(t % 17);
        check_series_paths_and_bars(id, &s, periods[pi], 2.5, 1);
        series_free(&s);
    }
}

Test(catalog, correl_every_path_and_every_bar_give_the_same_bits) {
    const double periods[] = {
        2,   7,  APO_CORREL_DIRECT_MAX, APO_CORREL_DIRECT_MAX + 1, 16, 17, 30, 47, 48, 100, 159,
        160, 300};
    check_paths_and_bars(APO_CAT_CORREL, periods, sizeof periods / sizeof periods[0]);
}

Test(catalog, variance_every_path_and_every_bar_give_the_same_bits) {
    const double periods[] = {APO_VAR_DIRECT_MAX + 1, 40, 100, 159, 160, 333, APO_VAR_BLOCKS_MAX};
    check_paths_and_bars(APO_CAT_VAR, periods, sizeof periods / sizeof periods[0]);
    check_paths_and_bars(APO_CAT_STDDEV, periods, sizeof periods / sizeof periods[0]);
}

/* linearreg's middle periods (linearreg_plain.h) sum each anchor's window in vector lanes of
 * every width and slide four blocks side by side: each path gives the bits of sse2's, and one
 * bar at a time (the per-bar step) gives the whole series' bits. Periods on both sides of each
 * limit, a jump to a far level, and gaps. */
Test(catalog, linearreg_every_path_and_every_bar_give_the_same_bits) {
    const double periods[] = {APO_LINEARREG_DIRECT_MAX + 1,
                              31,
                              APO_LINREG_ANCHOR_WIDE_MIN - 1,
                              APO_LINREG_ANCHOR_WIDE_MIN,
                              50,
                              129,
                              200,
                              APO_LINREG_PLAIN_MAX};
    const apo__cat_id ids[] = {APO_CAT_LINEARREG_SLOPE, APO_CAT_LINEARREG,
                               APO_CAT_LINEARREG_INTERCEPT, APO_CAT_TSF, APO_CAT_LINEARREG_ANGLE};
    for (size_t ii = 0; ii < sizeof ids / sizeof ids[0]; ii++)
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
            series s;
            series_make(&s, 17 + pi, 4001, 1, 100.0, 0.5, 1);
            for (size_t t = 2500; t < 2900; t++)
                s.close[t] = 4e5 + 1e-3 * (double)(t % 23);
            check_series_paths_and_bars(ids[ii], &s, periods[pi], 0.0, 0);
            series_free(&s);
        }
}

/* The line's outputs on a straight line y = 3 + 2 t (every weighted sum exact, but not every
 * reciprocal): linearreg_intercept is the window's first sample, tsf the next bar's, at every
 * design (each window's sum, plain slides, double-doubles); and avgdev worked by hand: 1 for
 * (1, 2, 3, 4), exactly 0 for a constant window far from zero. */
Test(catalog, line_and_average_deviation_worked_examples) {
    const size_t n = 6000;
    double *x = alloc_doubles(n), *out = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        x[t] = 3.0 + 2.0 * (double)t;
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = out;
    const double periods[] = {2, 14, 30, 200, 2100};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        const size_t p = (size_t)periods[pi];
        io.p[0] = periods[pi];
        io.h = apo__catalog_halo(APO_CAT_TSF, io.p);
        apo__cpu_catalog_tile(APO_CAT_TSF, &io, 0, n);
        for (size_t t = p - 1; t < n; t++)
            cr_assert(fabs(out[t] - (x[t] + 2.0)) <= 1e-12 * x[t], "tsf(%zu) t %zu: %.17g", p, t,
                      out[t]);
        apo__cpu_catalog_tile(APO_CAT_LINEARREG_INTERCEPT, &io, 0, n);
        for (size_t t = p - 1; t < n; t++)
            cr_assert(fabs(out[t] - x[t + 1 - p]) <= 1e-12 * x[t], "intercept(%zu) t %zu: %.17g", p,
                      t, out[t]);
    }
    const double ramp[] = {1, 2, 3, 4, 7e6, 7e6, 7e6, 7e6};
    io.in[0] = ramp;
    io.p[0] = 4;
    apo__cpu_catalog_tile(APO_CAT_AVGDEV, &io, 0, 8);
    cr_assert(isnan(out[2]) && out[3] == 1.0 && out[7] == 0.0, "%g %g %g", out[2], out[3], out[7]);
    free(x);
    free(out);
}

/* The first-order bound of linearreg_plain.h (apo__linreg_plain_bound, for the worst spread a
 * shift by one of the windows' samples allows) keeps a margin of 4 to the contract's 1e-12 at
 * every period slid plain with its anchors' spacing; one anchor more apart, it does not at the
 * narrow anchors' end. And the slide's measured errors, against the long-double reference, on
 * walks at levels 100 and 1e6 (the shift keeps the level's digits out of the sums: the second
 * walk's errors stay as small as the first's), with gaps, at the periods on both sides of the
 * limits. */
Test(catalog, linearreg_plain_slide_within_its_bound, .timeout = 300) {
    for (size_t p = APO_LINEARREG_DIRECT_MAX + 1; p <= APO_LINREG_PLAIN_MAX; p++)
        cr_assert(apo__linreg_plain_bound(p, apo__linreg_anchor(p) - 1) <= 2.5e-13,
                  "period %zu: bound %g", p, apo__linreg_plain_bound(p, apo__linreg_anchor(p) - 1));
    cr_assert(apo__linreg_plain_bound(APO_LINREG_ANCHOR_WIDE_MIN - 1, APO_LINREG_ANCHOR - 1) >
              2.5e-13);
    const size_t periods[] = {APO_LINEARREG_DIRECT_MAX + 1,
                              APO_LINREG_ANCHOR_WIDE_MIN - 1,
                              APO_LINREG_ANCHOR_WIDE_MIN,
                              50,
                              129,
                              200,
                              1024,
                              APO_LINREG_PLAIN_MAX};
    const double levels[] = {100.0, 1e6};
    for (int value = 0; value < 2; value++) {
        const ref_kernel *k = kernel_of(value ? APO_CAT_LINEARREG : APO_CAT_LINEARREG_SLOPE);
        for (size_t li = 0; li < 2; li++) {
            double worst = 0;
            for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
                series s;
                series_make(&s, 31 + pi, 20011, 1, levels[li], 0.5, 1);
                const double p[4] = {(double)periods[pi], 0, 0, 0};
                char what[64];
                snprintf(what, sizeof what, "level %g period %zu", levels[li], periods[pi]);
                const double w = check_against_reference(k, &s, p, 1e-12, what);
                worst = w > worst ? w : worst;
                series_free(&s);
            }
            fprintf(stderr, "catalog %s slid plain, walk at %g: worst error %.2g of the scale\n",
                    k->name, levels[li], worst);
            /* Measured: at level 100 5.5e-15 (slope) and 2.3e-15; at 1e6 3.6e-20 and 1.2e-16,
             * where unshifted sums (c = 0) give 1.7e-14 and 6.8e-15. */
            const double within = li == 0 ? 1e-13 : 1e-15;
            cr_expect(worst < within, "%s at level %g: worst %g", k->name, levels[li], worst);
        }
    }
}

/*
 * The cycle family (kernels/cycles/) and mama (kernels/averages/, on the same transform): TA-Lib's
 * Hilbert-transform indicators and MAMA against the
 * long-double reference written from the definition (tests/common/catalog_reference_cycles.c),
 * with and without gaps; their tiles bit for bit whatever the grid (whole-row kernels); and
 * their streams' carried state fed in pieces, bit for bit the batch; and the period's clamps
 * against TA-Lib's comparisons. One table of kernels,
 * every check over each row.
 */
#include "averages_tiles.h"
#include "catalog_reference_cycles.h"
#include "cycles_tiles.h"
#include "random_walk.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel, its reference and how its error is scaled: by the largest magnitude of its
 * reference's outputs (tol of that), or exactly (the trend mode's 0 and 1). */
typedef struct ht_case {
    const char *name;
    apo__cat_id id;
    int kind; /* ht_tile.h's APO__HT_*, or MAMA */
    ref_ht_kind ref;
    int n_out;
    double tol;
    size_t lookback;
    double p[2]; /* mama's fastlimit and slowlimit */
} ht_case;

/* mama's rows: an average of the same transform (kernels/averages/mama_tile.h), tested here
 * beside the indicators it shares the transform and the reference with; not a kind of
 * ht_tile.h, with a body, a reference and a carry of its own. */
#define MAMA (-1)

static const ht_case cases[] = {
    {"ht_dcperiod", APO_CAT_HT_DCPERIOD, APO__HT_DCPERIOD, REF_HT_DCPERIOD, 1, 1e-12, 32, {0}},
    {"ht_dcphase", APO_CAT_HT_DCPHASE, APO__HT_DCPHASE, REF_HT_DCPHASE, 1, 1e-11, 63, {0}},
    {"ht_phasor", APO_CAT_HT_PHASOR, APO__HT_PHASOR, REF_HT_PHASOR, 2, 1e-11, 32, {0}},
    {"ht_sine", APO_CAT_HT_SINE, APO__HT_SINE, REF_HT_SINE, 2, 1e-11, 63, {0}},
    {"ht_trendmode", APO_CAT_HT_TRENDMODE, APO__HT_TRENDMODE, REF_HT_TRENDMODE, 1, 0.0, 63, {0}},
    {"ht_trendline", APO_CAT_HT_TRENDLINE, APO__HT_TRENDLINE, REF_HT_TRENDLINE, 1, 1e-13, 63, {0}},
    {"mama", APO_CAT_MAMA, MAMA, 0, 2, 1e-13, 32, {0.5, 0.05}},
    {"mama (0.9, 0.2)", APO_CAT_MAMA, MAMA, 0, 2, 1e-13, 32, {0.9, 0.2}},
    {"mama (0.2, 0.6)", APO_CAT_MAMA, MAMA, 0, 2, 1e-13, 32, {0.2, 0.6}},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* A walk of n bars from 100 (seeded), with a gap every `gap_every` bars when it is not 0 and
 * a leading gap, so that the clean bars' count and the bars' index differ. */
static double *series(size_t n, uint64_t seed, size_t gap_every) {
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    apo__random_walk(x, 1, n, seed);
    if (gap_every > 0) {
        x[0] = NAN;
        for (size_t t = gap_every; t < n; t += gap_every)
            x[t] = t % 2 ? INFINITY : NAN;
    }
    return x;
}

static apo__cat_io io_of(const ht_case *c, const double *x, double *const *out) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = out[0];
    io.out[1] = out[1];
    io.p[0] = c->p[0];
    io.p[1] = c->p[1];
    return io;
}

static void run_tile(const ht_case *c, const double *x, double *const *out, size_t begin,
                     size_t end) {
    const apo__cat_io io = io_of(c, x, out);
    if (c->kind == MAMA)
        apo__averages_tile((int)c->id, &io, begin, end);
    else
        apo__cycles_tile((int)c->id, &io, begin, end);
}

static void reference(const ht_case *c, const double *x, size_t n, double *const *out) {
    if (c->kind == MAMA)
        apo__ref_cat_mama(x, n, c->p[0], c->p[1], out);
    else
        apo__ref_cat_ht(c->ref, x, n, out);
}

/* A stream's piece [begin, stop) from the carried state. */
static void carry(const ht_case *c, const apo__cat_io *io, double *state, size_t begin,
                  size_t stop) {
    if (c->kind == MAMA)
        apo__mama_carry(io, state, begin, stop);
    else
        apo__ht_carry(io, state, begin, stop, c->kind);
}

/* The largest error of the kernel against its reference over the series, in units of the
 * reference's largest magnitude; the NaNs must sit at the same bars. */
static double worst_error(const ht_case *c, const double *x, size_t n) {
    double *got[2], *want[2];
    for (int k = 0; k < 2; k++) {
        got[k] = calloc(n, sizeof(double));
        want[k] = calloc(n, sizeof(double));
    }
    run_tile(c, x, got, 0, n);
    reference(c, x, n, want);
    double worst = 0.0;
    for (int k = 0; k < c->n_out; k++) {
        double scale = 0.0;
        for (size_t t = 0; t < n; t++)
            if (!isnan(want[k][t]) && fabs(want[k][t]) > scale)
                scale = fabs(want[k][t]);
        for (size_t t = 0; t < n; t++) {
            cr_assert(isnan(got[k][t]) == isnan(want[k][t]), "%s output %d at %zu: %g against %g",
                      c->name, k, t, got[k][t], want[k][t]);
            if (isnan(want[k][t]))
                continue;
            const double e = fabs(got[k][t] - want[k][t]) / scale;
            if (e > worst)
                worst = e;
        }
    }
    for (int k = 0; k < 2; k++) {
        free(got[k]);
        free(want[k]);
    }
    return worst;
}

Test(cycles, match_the_long_double_reference, .timeout = 120) {
    for (size_t i = 0; i < N_CASES; i++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            const size_t gap_every = seed == 1 ? 0 : 97 * seed;
            double *x = series(2500, seed, gap_every);
            const double e = worst_error(&cases[i], x, 2500);
            fprintf(stderr, "%s, seed %llu: %.3g\n", cases[i].name, (unsigned long long)seed, e);
            cr_assert(e <= cases[i].tol, "%s, seed %llu: %.3g of its scale", cases[i].name,
                      (unsigned long long)seed, e);
            free(x);
        }
}

Test(cycles, nan_lead_is_talibs_lookback, .timeout = 60) {
    double x[200], a[200], b[200];
    apo__random_walk(x, 1, 200, 9);
    double *out[2] = {a, b};
    for (size_t i = 0; i < N_CASES; i++) {
        run_tile(&cases[i], x, out, 0, 200);
        const size_t lookback = cases[i].lookback;
        cr_assert(isnan(a[lookback - 1]) && !isnan(a[lookback]), "%s", cases[i].name);
    }
}

/* Runs the kernel over [0, n) whole and in the tiles of several grids, and in a stream's pieces
 * from a carried state: all bit for bit the same. */
Test(cycles, tiles_and_streams_give_the_whole_rows_bits, .timeout = 120) {
    const size_t n = 3000;
    double *x = series(n, 5, 131);
    const size_t grids[] = {97, 1000, 2999};
    for (size_t i = 0; i < N_CASES; i++) {
        const ht_case *c = &cases[i];
        double *whole[2], *got[2];
        for (int k = 0; k < 2; k++) {
            whole[k] = calloc(n, sizeof(double));
            got[k] = calloc(n, sizeof(double));
        }
        run_tile(c, x, whole, 0, n);
        for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
            for (size_t b = 0; b < n; b += grids[g])
                run_tile(c, x, got, b, b + grids[g] < n ? b + grids[g] : n);
            for (int k = 0; k < cases[i].n_out; k++)
                cr_assert(memcmp(whole[k], got[k], n * sizeof(double)) == 0, "%s, tiles of %zu",
                          cases[i].name, grids[g]);
        }
        /* A stream: pieces of 1, 2, 3, ... bars, each from the state the last one left. */
        double state[APO_MAMA_CARRY > APO_HT_CARRY ? APO_MAMA_CARRY : APO_HT_CARRY];
        memset(state, 0, sizeof state);
        const apo__cat_io io = io_of(c, x, got);
        for (int k = 0; k < 2; k++)
            memset(got[k], 0, n * sizeof(double));
        for (size_t b = 0, len = 1; b < n; b += len, len++) {
            const size_t e = b + len < n ? b + len : n;
            carry(c, &io, state, b, e);
        }
        for (int k = 0; k < cases[i].n_out; k++)
            cr_assert(memcmp(whole[k], got[k], n * sizeof(double)) == 0, "%s, streamed",
                      cases[i].name);
        for (int k = 0; k < 2; k++) {
            free(whole[k]);
            free(got[k]);
        }
    }
    free(x);
}

/* The period's clamps (hilbert.h's apo__ht_period, x86's min and max) against TA-Lib's `if`s
 * written out, over discriminators and last periods at and across every limit, zeros of both
 * signs, infinities and NaN: bit for bit (any NaN for a NaN). */
Test(cycles, the_period_clamps_are_talibs_comparisons) {
    static const double parts[] = {-2.0, -1.0, -1e-3, -0.0, 0.0,      1e-3,
                                   0.3,  1.0,  2.0,   40.0, INFINITY, NAN};
    static const double lasts[] = {4.0, 6.0, 7.5, 20.0, 33.0, 50.0, 60.0, INFINITY, NAN};
    const size_t np = sizeof parts / sizeof parts[0], nl = sizeof lasts / sizeof lasts[0];
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < np; j++)
            for (size_t k = 0; k < nl; k++) {
                const double re = parts[i], im = parts[j], last = lasts[k];
                double period = last;
                if (im != 0.0 && re != 0.0)
                    period = 2.0 * APO_TRIG_PI_HI / apo__atan(im / re);
                if (period > 1.5 * last)
                    period = 1.5 * last;
                if (period < 0.67 * last)
                    period = 0.67 * last;
                if (period < 6.0)
                    period = 6.0;
                else if (period > 50.0)
                    period = 50.0;
                const double want = 0.2 * period + 0.8 * last, got = apo__ht_period(re, im, last);
                cr_assert((isnan(want) && isnan(got)) || apo__bits_of(want) == apo__bits_of(got),
                          "re %g im %g last %g: got %.17g want %.17g", re, im, last, got, want);
            }
}

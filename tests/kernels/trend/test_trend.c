/*
 * test_trend.c: the catalog's trend indicators (kernels/trend/: trange, atr, natr, aroon, sar,
 * sarext; plus_di, minus_di and adx are test_trend_dmi.c's): trange's vector loop on every path
 * with ties and gaps, against the long-double reference (catalog_reference.c); sar's and
 * sarext's first bars and gaps worked by hand, and their selects against TA-Lib's comparisons
 * bit for bit with ties, zeros and overflow (their references, any cut of a row and their
 * shape are the whole-row kernels' cases, volume/test_catalog_cumulative.c); adr worked by hand.
 * Every kernel of the
 * catalog is also checked by the cases of common/test_catalog_kernels.c and its slow
 * counterpart (against its reference over lengths 1 to 1e5, at its upper bound, in any tile
 * order, reading only its halo); there too atr's first tile against TA-Lib's recursion and
 * aroon on samples full of ties.
 */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "cpu_isa.h"

/* The reference's values at every bar of one run of trange, and the bits of the run whose
 * output starts a line (first, filled at offset 0), at every other offset. */
typedef struct trange_want {
    const double *want;
    double *first;
} trange_want;

static void check_trange(const path_run *run, size_t n, void *ctx) {
    const trange_want *w = ctx;
    const double *want = w->want, *got = run->got;
    const char *isa = apo__cpu_isa_name((apo__cpu_isa)run->isa);
    if (run->offset == 0)
        memcpy(w->first, got, n * sizeof(double));
    for (size_t t = 0; t < n; t++) {
        cr_assert(isnan(want[t]) ? isnan(got[t]) : got[t] == want[t],
                  "trange on %s in pieces of %zu, output at double %zu of a line, "
                  "at %zu: got %.17g want %.17g",
                  isa, run->piece, run->offset, t, got[t], want[t]);
        cr_assert(apo__bits_of(got[t]) == apo__bits_of(w->first[t]),
                  "trange on %s in pieces of %zu at %zu: the output at double %zu "
                  "of a line has other bits than at the line's start",
                  isa, run->piece, t, run->offset);
    }
}

/* trange's vector loop (trange_tile.h) on every path, against the reference: samples drawn
 * from a few values, so that the three candidates tie and cross in every lane, with a
 * non-finite sample at every lane offset in each input, and the row cut into pieces of odd
 * lengths so that each lane count's remainder runs too. The output starts at each of the
 * eight doubles of a 64-byte line (a long span's bars before a line take the scalar
 * function), with the bits of the output at the line's start. */
Test(catalog, trange_on_every_path_with_ties_and_gaps) {
    const size_t n = 4001;
    const double values[] = {-2.0, -1.0, -0.0, 0.0, 1.0, 3.5};
    series s;
    series_of_ties(&s, 777, n, values, sizeof values / sizeof values[0]);
    /* Gaps at positions 1000 + 17 k, k < 24: each input, each offset modulo 8. */
    for (size_t k = 0; k < 24; k++) {
        double *row = k % 3 == 0 ? s.high : k % 3 == 1 ? s.low : s.close;
        row[1000 + 17 * k] = k % 2 == 0 ? NAN : -INFINITY;
    }
    double *want = alloc_doubles(n), *scale = alloc_doubles(n);
    double *first = alloc_doubles(n);
    apo__ref_cat_trange(s.in, n, NULL, want, scale);
    static const size_t pieces[] = {1, 3, 5, 7, 1100, 4001};
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < 3; i++)
        io.in[i] = s.in[i];
    io.h = 1;
    trange_want w = {want, first};
    tiles_on_every_path(APO_CAT_TRANGE, &io, n, pieces, sizeof pieces / sizeof pieces[0],
                        check_trange, &w);
    free(first);
    free(want);
    free(scale);
    series_free(&s);
}

/* The io of a kernel of the high and the low (in[0], in[1]) into out, its first parameter p0. */
static apo__cat_io high_low_io(double *high, double *low, double *out, double p0) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = high;
    io.in[1] = low;
    io.out[0] = out;
    io.p[0] = p0;
    return io;
}

/* Kernel id over bars [0, e) cut at b, a tile [0, b) (when b > 0) then [b, e) (when b < e),
 * into an output first set to -1: bars 0 to e - 1 must be want's (NaN where want is). */
static void check_cut(apo__cat_id id, const apo__cat_io *io, const double *want, size_t b, size_t e,
                      const char *name) {
    double *out = io->out[0];
    for (size_t t = 0; t < e; t++)
        out[t] = -1;
    if (b > 0)
        apo__cpu_catalog_tile(id, io, 0, b);
    if (b < e)
        apo__cpu_catalog_tile(id, io, b, e);
    for (size_t t = 0; t < e; t++)
        cr_assert(out[t] == want[t] || (isnan(want[t]) && isnan(out[t])),
                  "%s [0, %zu) then [%zu, %zu), t %zu: %.17g", name, b, b, e, t, out[t]);
}

/* SAR's first bars worked by hand from TA-Lib's definition: the one-bar minus DM picks the
 * side (an equal rise and fall is long: the minus DM is 0), a gap bar is taken out, and every
 * cut into two tiles gives the same values; sarext negates a short position's stop. */
Test(catalog, sar_first_bars_and_gaps_worked_by_hand) {
    /* Long (the low rose): stop low[0] = 9, extreme high[1] = 11; bar 1 outputs 9 and steps
     * to 9 + 0.02 (11 - 9) = 9.04; bar 3 outputs it, takes the new high 12 (af 0.04). The
     * gap bar 2 is not a bar before. */
    double high[] = {10, 11, NAN, 12}, low[] = {9, 9.5, 9.6, 10.5}, out[4];
    const double want[] = {NAN, 9, NAN, 9.0 + 0.02 * (11.0 - 9.0)};
    apo__cat_io io = high_low_io(high, low, out, 0.02);
    io.p[1] = 0.2;
    for (size_t b = 0; b < 4; b++)
        for (size_t e = b + 1; e <= 4; e++)
            check_cut(APO_CAT_SAR, &io, want, b, e, "sar");
    /* Short (the low fell by 1, the high fell): stop high[0] = 10; sarext shows -10. An
     * equal rise and fall (both 1) is long, the minus DM being 0: stop low[0] = 9, which bar
     * 1's low 8 reaches at once, so bar 1 reverses to short and shows the extreme point,
     * high[1] = 11 (sarext: -11); a short start would have shown 10. (TA-Lib 0.8.1 gives these
     * values.) */
    double sh[] = {10, 9.8}, sl[] = {9, 8}, th[] = {10, 11}, tl[] = {9, 8};
    const struct {
        apo__cat_id id;
        double *h, *l, want;
    } cases[] = {{APO_CAT_SAR, sh, sl, 10},
                 {APO_CAT_SAREXT, sh, sl, -10},
                 {APO_CAT_SAR, th, tl, 11},
                 {APO_CAT_SAREXT, th, tl, -11}};
    const double ext[8] = {0, 0, 0.02, 0.02, 0.2, 0.02, 0.02, 0.2};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        io.in[0] = cases[c].h;
        io.in[1] = cases[c].l;
        for (size_t i = 0; i < 8; i++)
            io.p[i] = cases[c].id == APO_CAT_SAREXT ? ext[i] : i == 0 ? 0.02 : i == 1 ? 0.2 : 0;
        apo__cpu_catalog_tile(cases[c].id, &io, 0, 2);
        cr_assert(isnan(out[0]) && out[1] == cases[c].want, "case %zu: %g", c, out[1]);
    }
}

/* SAR's rule as TA-Lib's source writes it, each clamp and each new extreme an `if`, all bars
 * finite: the reference of the kernel's selects (sar_tile.h), bit for bit. k: [0] long,
 * [1] short; init and step already capped at max. */
typedef struct sar_rule {
    double init[2], step[2], max[2], offset;
    int negate_short;
} sar_rule;

static void sar_by_comparisons(const double *high, const double *low, size_t n, const sar_rule *k,
                               double *out) {
    out[0] = NAN;
    const double down = low[0] - low[1], up = high[1] - high[0];
    int is_long = !(down > 0.0 && up < down);
    double sar = is_long ? low[0] : high[0], ep = is_long ? high[1] : low[1];
    double af[2] = {k->init[0], k->init[1]}, ph = high[1], pl = low[1];
    for (size_t t = 1; t < n; t++) {
        const double h = high[t], l = low[t];
        double o;
        if (is_long && l <= sar) {
            is_long = 0;
            sar = ep;
            if (sar < ph)
                sar = ph;
            if (sar < h)
                sar = h;
            if (k->offset != 0.0)
                sar += sar * k->offset;
            o = k->negate_short ? 0.0 - sar : sar;
            af[1] = k->init[1];
            ep = l;
            sar = fma(af[1], ep - sar, sar);
            if (sar < ph)
                sar = ph;
            if (sar < h)
                sar = h;
        } else if (is_long) {
            o = sar;
            if (h > ep) {
                ep = h;
                af[0] += k->step[0];
                if (af[0] > k->max[0])
                    af[0] = k->max[0];
            }
            sar = fma(af[0], ep - sar, sar);
            if (sar > pl)
                sar = pl;
            if (sar > l)
                sar = l;
        } else if (h >= sar) {
            is_long = 1;
            sar = ep;
            if (sar > pl)
                sar = pl;
            if (sar > l)
                sar = l;
            if (k->offset != 0.0)
                sar -= sar * k->offset;
            o = sar;
            af[0] = k->init[0];
            ep = h;
            sar = fma(af[0], ep - sar, sar);
            if (sar > pl)
                sar = pl;
            if (sar > l)
                sar = l;
        } else {
            o = k->negate_short ? 0.0 - sar : sar;
            if (l < ep) {
                ep = l;
                af[1] += k->step[1];
                if (af[1] > k->max[1])
                    af[1] = k->max[1];
            }
            sar = fma(af[1], ep - sar, sar);
            if (sar < ph)
                sar = ph;
            if (sar < h)
                sar = h;
        }
        out[t] = isnan(o) ? (double)NAN : o;
        ph = h;
        pl = l;
    }
}

static void check_sar_bits(const path_run *run, size_t n, void *ctx) {
    const double *want = ctx;
    for (size_t t = 0; t < n; t++)
        cr_assert(apo__bits_of(run->got[t]) == apo__bits_of(want[t]),
                  "on %s in pieces of %zu, bar %zu: got %.17g (%016llx) want %.17g (%016llx)",
                  apo__cpu_isa_name((apo__cpu_isa)run->isa), run->piece, t, run->got[t],
                  (unsigned long long)apo__bits_of(run->got[t]), want[t],
                  (unsigned long long)apo__bits_of(want[t]));
}

/* sar's and sarext's clamps and new extremes are selects (x86's min and max, the clamp to the
 * bars' extreme taken first), which must give the bits of TA-Lib's comparisons in every case:
 * bars drawn from a few values, so that highs, lows, stops and extreme points tie, zeros of
 * both signs meet, and stops stepped past DBL_MAX become infinite and then NaN; on every
 * path, whole and in pieces. */
Test(catalog, sar_selects_give_talib_comparisons_with_ties_zeros_and_overflow) {
    const size_t n = 4001;
    const double values[] = {-DBL_MAX, -2.0, -1.0, -0.0, 0.0, 1.0, 3.5, DBL_MAX};
    series s;
    series_of_ties(&s, 4242, n, values, sizeof values / sizeof values[0]);
    double *want = alloc_doubles(n);
    static const size_t pieces[] = {1, 9, 4001};
    const sar_rule rules[] = {{{0.02, 0.02}, {0.02, 0.02}, {0.2, 0.2}, 0.0, 0},
                              {{0.02, 0.03}, {0.02, 0.025}, {0.2, 0.25}, 0.01, 1}};
    const double params[][8] = {{0.02, 0.2}, {0.0, 0.01, 0.02, 0.02, 0.2, 0.03, 0.025, 0.25}};
    const apo__cat_id ids[] = {APO_CAT_SAR, APO_CAT_SAREXT};
    for (size_t r = 0; r < 2; r++) {
        sar_by_comparisons(s.high, s.low, n, &rules[r], want);
        apo__cat_io io = high_low_io(s.high, s.low, NULL, 0.0);
        memcpy(io.p, params[r], sizeof params[r]);
        io.h = apo__catalog_halo(ids[r], io.p);
        tiles_on_every_path(ids[r], &io, n, pieces, sizeof pieces / sizeof pieces[0],
                            check_sar_bits, want);
    }
    free(want);
    series_free(&s);
}

/* adr by hand (its reference, over lengths 1 to 1e5, is the later kernels' table,
 * common/test_catalog_more*.c): the mean of high - low over 2 bars, a window holding a gap NaN,
 * the window after it evaluated afresh; the same for every cut into two tiles. */
Test(catalog, adr_worked_by_hand) {
    double high[] = {3, 5, 4, NAN, 6, 7}, low[] = {1, 2, 3, 1, 5, 4}, out[6];
    const double want[] = {NAN, 2.5, 2, NAN, NAN, 2};
    apo__cat_io io = high_low_io(high, low, out, 2);
    io.h = apo__catalog_halo(APO_CAT_ADR, io.p);
    cr_assert_eq(io.h, 1);
    for (size_t b = 0; b <= 6; b++)
        check_cut(APO_CAT_ADR, &io, want, b, 6, "adr");
}

/*
 * test_catalog_lanes.c: the catalog recurrences whose tiles of a row run side by side in
 * vector lanes (kernels/common/catalog_lanes.h: rsi, cmo, atr, natr, plus_di, minus_di, adx,
 * dx, plus_dm, minus_dm, rma, and adxr with its ring of ADX; zlema's EMA of its de-lagged
 * series; the EMA chains dema, tema, trix, t3, tsi, efi; kernels/volume/adosc_lanes.h: adosc, whose
 * rounds take a short row's tiles from its first; bbands at matype 0, bollinger's rounds,
 * kernels/averages/bollinger_lanes.h; macdfix's lone tile, macd's cut,
 * kernels/oscillators/macd_lanes.h; massi's and cvi's rounds, kernels/trend/massi_tile.h and
 * cvi_tile.h) give every tile, on every vector path this CPU supports, bitwise the outputs of that
 * tile computed alone by the scalar body (apo__cpu_catalog_tile, whose accuracy against the
 * long-double references test_catalog_kernels_slow.c and test_catalog_more_slow.c check).
 *
 * The rows reach every way out of the lock-step: a clean walk; gaps (NaN, infinities, in
 * one input or all) in a tile's warm-up, in its outputs, at a tile's first bar and in a run
 * longer than the period; a last tile of one bar and one shorter than the warm-up; rounds
 * with fewer tiles than lanes, and the tiles handed in an order that pairs tile 0 with the
 * others; for the Wilder recurrences, finite bars above half the largest double. Periods 1
 * (atr's least), 2 and 14. Each input row ends at a page that may not be read, so a lane that
 * read past the row would fault.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS beside POSIX */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "catalog_dispatch.h"
#include "catalog_reference.h"
#include "cpu_isa.h"

static const apo__cat_id kernels[] = {APO_CAT_RSI,     APO_CAT_CMO,      APO_CAT_ATR,  APO_CAT_NATR,
                                      APO_CAT_PLUS_DI, APO_CAT_MINUS_DI, APO_CAT_ADX,  APO_CAT_DX,
                                      APO_CAT_PLUS_DM, APO_CAT_MINUS_DM, APO_CAT_ADXR, APO_CAT_RMA,
                                      APO_CAT_DEMA,    APO_CAT_TEMA,     APO_CAT_TRIX, APO_CAT_T3,
                                      APO_CAT_TSI,     APO_CAT_EFI,      APO_CAT_ZLEMA};

enum { HIGH, LOW, CLOSE, VOLUME, N_COLUMNS };

/* Row variants: where the gaps go. HUGE_BARS, for the Wilder recurrences only: a stretch of
 * finite bars above half the largest double (dmi_lanes.h's quick gap test fails there and
 * its exact test finds no gap). */
enum {
    CLEAN,
    GAPS_IN_CLOSE,
    GAPS_IN_HIGH_AND_LOW,
    LONG_GAP,
    FLAT,
    N_VARIANTS,
    HUGE_BARS = N_VARIANTS
};

/* Sets row[t] where t lies in the row (a short row has no tile 2). */
static void put(double *row, size_t n, size_t t, double v) {
    if (t < n)
        row[t] = v;
}

static void plant_gaps(double *col[N_COLUMNS], int variant, size_t len, size_t halo, size_t n) {
    switch (variant) {
    case GAPS_IN_CLOSE:
        put(col[CLOSE], n, len / 3, NAN);          /* tile 0's outputs */
        put(col[VOLUME], n, len / 2, INFINITY);    /* tile 0's outputs (adosc) */
        put(col[CLOSE], n, len + len / 2, NAN);    /* tile 1's outputs */
        put(col[CLOSE], n, 2 * len - halo, NAN);   /* tile 2's warm-up origin */
        put(col[CLOSE], n, 3 * len - 5, INFINITY); /* tile 3's warm-up */
        put(col[CLOSE], n, 4 * len, -INFINITY);    /* tile 4's first bar */
        put(col[CLOSE], n, n - 2, NAN);            /* the last tile */
        break;
    case GAPS_IN_HIGH_AND_LOW:
        put(col[HIGH], n, len / 5, -INFINITY);     /* tile 0's outputs */
        put(col[HIGH], n, 2 * len + 3, INFINITY);  /* tile 2's outputs */
        put(col[LOW], n, 2 * len - 1, NAN);        /* tile 2's warm-up */
        put(col[HIGH], n, 5 * len, NAN);           /* tile 5's first bar */
        put(col[LOW], n, 3 * len - halo + 3, NAN); /* tile 3's seeds, the round stopping in them */
        break;
    case LONG_GAP:
        for (size_t t = 3 * len - 40; t < 3 * len + 40; t++)
            put(col[t % 2 ? CLOSE : HIGH], n, t, NAN); /* across tiles 2 and 3, longer than p */
        break;
    case FLAT:
        /* Constant bars from before a tile's warm-up origin to past its seeds: no movement,
         * so DX is undefined and RSI's g + l is 0; tile 2's bars have no range either (the
         * sums of TR are 0), tile 3's a constant one. */
        for (size_t t = 2 * len - halo - 5; t < 2 * len - halo + 200; t++) {
            put(col[HIGH], n, t, 100.0);
            put(col[LOW], n, t, 100.0);
            put(col[CLOSE], n, t, 100.0);
            put(col[HIGH], n, t + len, 101.0);
            put(col[LOW], n, t + len, 99.0);
            put(col[CLOSE], n, t + len, 100.0);
        }
        break;
    case HUGE_BARS:
        /* From tile 2's warm-up into its outputs: twice such a sample overflows, their
         * differences (below 2^1002) do not, and the sums of the true range stay finite. */
        for (size_t t = 2 * len - halo / 2; t < 2 * len + 150; t++) {
            const double close = 0x1.1p1023 + (double)(t % 7) * 0x1p1000;
            put(col[HIGH], n, t, close + 0x1p1001);
            put(col[LOW], n, t, close - 0x1p1001);
            put(col[CLOSE], n, t, close);
        }
        break;
    default:
        break;
    }
}

/* A row of n doubles that ends where a page no access is allowed to begins, so that a lane
 * reading past the row's last bar faults: catalog_lanes.h lets a lane whose tile has ended read
 * on only while the round's last tile's end bounds its reads (apo__cat_lanes.hold), and a row
 * of plain heap memory would let a read past it go unseen. Freed by guarded_free. */
static double *guarded_row(size_t n) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = n * sizeof(double);
    const size_t data_pages = (bytes + page - 1) / page;
    unsigned char *map = mmap(NULL, (data_pages + 1) * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(map != MAP_FAILED);
    cr_assert(mprotect(map + data_pages * page, page, PROT_NONE) == 0);
    return (double *)(map + data_pages * page - bytes);
}

static void guarded_free(double *row, size_t n) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = n * sizeof(double);
    const size_t data_pages = (bytes + page - 1) / page;
    munmap((unsigned char *)row + bytes - data_pages * page, (data_pages + 1) * page);
}

/* Checks kernel id at parameters par, its first n_out outputs, on a row of n_tiles tiles, the last
 * last_len bars long (0: a whole tile), variant `variant`, on every path. */
static void check_row_outputs(apo__cat_id id, const double *par, size_t n_out, size_t n_tiles,
                              size_t last_len, int variant) {
    enum { MAX_OUT = 3 };
    cr_assert(n_out >= 1 && n_out <= MAX_OUT);
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    memcpy(io.p, par, sizeof io.p);
    io.h = apo__catalog_halo(id, io.p);
    const size_t len = apo__catalog_tile_len(id, io.p);
    const size_t n = (n_tiles - 1) * len + (last_len != 0 ? last_len : len);
    double *col[N_COLUMNS];
    for (size_t c = 0; c < N_COLUMNS; c++)
        col[c] = guarded_row(n);
    double *want[MAX_OUT], *got[MAX_OUT];
    for (size_t o = 0; o < n_out; o++) {
        want[o] = malloc(n * sizeof(double));
        got[o] = malloc(n * sizeof(double));
        cr_assert(want[o] && got[o]);
    }
    cr_assert(col[HIGH] && col[LOW] && col[CLOSE] && col[VOLUME]);
    apo__ref_ohlcv(5 + (uint64_t)variant, n, 100.0, 0.5, NULL, col[HIGH], col[LOW], col[CLOSE],
                   col[VOLUME]);
    plant_gaps(col, variant, len, io.h, n);
    const int one_input = id == APO_CAT_RSI || id == APO_CAT_CMO || id == APO_CAT_DEMA ||
                          id == APO_CAT_TEMA || id == APO_CAT_TRIX || id == APO_CAT_T3 ||
                          id == APO_CAT_TSI || id == APO_CAT_BBANDS || id == APO_CAT_MACDFIX ||
                          id == APO_CAT_ZLEMA;
    for (size_t c = 0; c < N_COLUMNS; c++)
        io.in[c] = one_input ? col[CLOSE] : col[c];
    if (id == APO_CAT_EFI) { /* close, volume */
        io.in[0] = col[CLOSE];
        io.in[1] = col[VOLUME];
    }

    apo__tile_span spans[64];
    cr_assert(n_tiles <= 64);
    for (size_t k = 0; k < n_tiles; k++)
        spans[k] = (apo__tile_span){0, k * len, k + 1 < n_tiles ? (k + 1) * len : n};
    for (size_t o = 0; o < n_out; o++) {
        io.out[o] = want[o];
        for (size_t t = 0; t < n; t++)
            want[o][t] = -7.0;
    }
    for (size_t k = 0; k < n_tiles; k++)
        apo__cpu_catalog_tile(id, &io, spans[k].begin, spans[k].end);

    /* The tiles in order, and reversed (tile 0 then shares a round with the last ones). */
    apo__tile_span reversed[64];
    for (size_t k = 0; k < n_tiles; k++)
        reversed[k] = spans[n_tiles - 1 - k];
    for (size_t o = 0; o < n_out; o++)
        io.out[o] = got[o];
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (int order = 0; order < 2; order++) {
            for (size_t o = 0; o < n_out; o++)
                for (size_t t = 0; t < n; t++)
                    got[o][t] = -7.0;
            apo__cpu_catalog_tiles_on(id, &io, order ? reversed : spans, n_tiles, isa);
            for (size_t o = 0; o < n_out; o++) {
                size_t first_diff = n;
                for (size_t t = 0; t < n && first_diff == n; t++)
                    if (memcmp(&want[o][t], &got[o][t], sizeof(double)) != 0)
                        first_diff = t;
                cr_assert_eq(first_diff, n,
                             "kernel %d p %g %g, %zu tiles (last %zu), variant %d, path %s, order "
                             "%d, output %zu: first difference at %zu (%.17g, want %.17g)",
                             (int)id, par[0], par[1], n_tiles, last_len, variant,
                             apo__cpu_isa_name((apo__cpu_isa)isa), order, o, first_diff,
                             got[o][first_diff < n ? first_diff : 0],
                             want[o][first_diff < n ? first_diff : 0]);
            }
        }
    }
    for (size_t c = 0; c < N_COLUMNS; c++)
        guarded_free(col[c], n);
    for (size_t o = 0; o < n_out; o++) {
        free(want[o]);
        free(got[o]);
    }
}

/* check_row_outputs for a kernel of one output. */
static void check_row(apo__cat_id id, const double *par, size_t n_tiles, size_t last_len,
                      int variant) {
    check_row_outputs(id, par, 1, n_tiles, last_len, variant);
}

/* The rows every round is checked on, kernel id at parameters par. */
static void check_rows(apo__cat_id id, const double *par) {
    const size_t halo = apo__catalog_halo(id, par);
    for (int variant = 0; variant <= HUGE_BARS; variant++) {
        /* 11 tiles: rounds of 8, 4 and 2 lanes with a short one left over. */
        check_row(id, par, 11, 1, variant);
        check_row(id, par, 6, halo / 2 + 1, variant);
    }
    /* A lone tile (the scalar body through tiles_on), and one left over after rounds of 4
     * (avx2) or 8 (avx512). */
    check_row(id, par, 1, 0, GAPS_IN_HIGH_AND_LOW);
    check_row(id, par, 1, 0, GAPS_IN_CLOSE);
    check_row(id, par, 9, 300, CLEAN);
    /* Fewer tiles than lanes. */
    check_row(id, par, 3, 777, CLEAN);
    check_row(id, par, 2, 50, CLEAN);
}

Test(catalog_lanes, every_tile_has_the_bits_of_its_scalar_body, .timeout = 300) {
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        const apo__cat_id id = kernels[ki];
        const int atr_like = id == APO_CAT_ATR || id == APO_CAT_NATR;
        static const double periods[] = {1, 2, 14};
        for (size_t pi = atr_like ? 0 : 1; pi < 3; pi++) {
            /* t3's vfactor, tsi's secondperiod: TA-Lib's defaults. */
            const double second = id == APO_CAT_T3 ? 0.7 : id == APO_CAT_TSI ? 13.0 : 0.0;
            const double par[APO_CAT_MAX_PAR] = {periods[pi], second};
            check_rows(id, par);
        }
    }
}

/* adosc's rounds take a row of at most one round of tiles from its first bar (its lanes park
 * as their tiles end, so unequal tiles go on together); the reversed order, and the rows of
 * more tiles, take the tiles two at a time (adosc_pairs.h: each side takes the next tile
 * when its own ends, or when a gap sends it to its tile loop), and check that path too. */
Test(catalog_lanes, adosc_tiles_have_the_bits_of_their_scalar_body, .timeout = 300) {
    static const double periods[][2] = {{3, 10}, {2, 2}, {10, 3}, {12, 26}};
    /* Rows of `tiles` tiles, the last `last` bars long (0: whole; HALF_HALO: half the halo
     * and one), in every variant; then the 1e4-bar row of the benchmark and one past a
     * round. */
    enum { HALF_HALO = -1 };
    static const struct {
        size_t tiles;
        long last;
        int variants;
    } rows[] = {{2, 1, N_VARIANTS}, {3, HALF_HALO, N_VARIANTS},
                {4, 0, N_VARIANTS}, {8, 777, N_VARIANTS},
                {3, 1808, 1},       {5, 50, 1},
                {11, 1, N_VARIANTS}};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        double par[APO_CAT_MAX_PAR] = {periods[pi][0], periods[pi][1]};
        const size_t halo = apo__catalog_halo(APO_CAT_ADOSC, par);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            const size_t last = rows[r].last == HALF_HALO ? halo / 2 + 1 : (size_t)rows[r].last;
            for (int variant = 0; variant < rows[r].variants; variant++)
                check_row(APO_CAT_ADOSC, par, rows[r].tiles, last, variant);
        }
    }
}

/* bbands at matype 0 takes bollinger's rounds of lanes (catalog_dispatch.c), its three outputs
 * each tile's scalar body's (bollinger's); at another matype its tiles go one by one. Periods 2
 * and 20 (tiles of 4096 bars), and 300 (tiles of 16 p), widths of either sign. */
Test(catalog_lanes, bbands_tiles_have_the_bits_of_their_scalar_body, .timeout = 300) {
    static const double params[][4] = {
        {20, 2, 2, 0}, {2, 1.5, -0.5, 0}, {300, 2, 3, 0}, {20, 2, 2, 1}};
    for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
        double par[APO_CAT_MAX_PAR] = {params[pi][0], params[pi][1], params[pi][2], params[pi][3]};
        for (int variant = 0; variant < N_VARIANTS; variant++)
            check_row_outputs(APO_CAT_BBANDS, par, 3, 11, 1, variant);
        check_row_outputs(APO_CAT_BBANDS, par, 3, 3, 1808, CLEAN);
        check_row_outputs(APO_CAT_BBANDS, par, 3, 2, 50, GAPS_IN_CLOSE);
        check_row_outputs(APO_CAT_BBANDS, par, 3, 1, 0, GAPS_IN_CLOSE);
    }
}

/* macdfix's lone tile takes macd's cut into pieces checked bit for bit, at its fixed rates
 * (apo__cpu_macdfix_tiles), its rows of several tiles their scalar bodies: its three outputs
 * each tile's scalar body's, whether the pieces stand or are computed again (gaps in a piece's
 * warm-up). */
Test(catalog_lanes, macdfix_tiles_have_the_bits_of_their_scalar_body, .timeout = 300) {
    static const double signals[] = {9, 2, 40};
    for (size_t si = 0; si < sizeof signals / sizeof signals[0]; si++) {
        double par[APO_CAT_MAX_PAR] = {signals[si]};
        const size_t halo = apo__catalog_halo(APO_CAT_MACDFIX, par);
        for (int variant = 0; variant < N_VARIANTS; variant++) {
            check_row_outputs(APO_CAT_MACDFIX, par, 3, 6, halo / 2 + 1, variant);
            check_row_outputs(APO_CAT_MACDFIX, par, 3, 1, 0, variant);
        }
        check_row_outputs(APO_CAT_MACDFIX, par, 3, 11, 1, CLEAN);
        check_row_outputs(APO_CAT_MACDFIX, par, 3, 2, 50, GAPS_IN_CLOSE);
    }
}

/* massi's rounds (massi_tile.h, apo__massi_round): lanes whose folds of the window's sum fall
 * at different steps (a row's first tile starts at bar 0, the others at begin - halo), the
 * flat market's ratio of 1 (FLAT: both EMAs exactly 0), ranges near the largest double, and the
 * ways back to the tiles one by one: a gap anywhere in a round, and a window longer than the
 * round's ring (300 > APO_MASSI_LANE_RING). */
Test(catalog_lanes, massi_tiles_have_the_bits_of_their_scalar_body, .timeout = 300) {
    static const double params[][2] = {{9, 25}, {2, 2}, {14, 256}, {30, 10}, {5, 300}};
    for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
        const double par[APO_CAT_MAX_PAR] = {params[pi][0], params[pi][1]};
        check_rows(APO_CAT_MASSI, par);
    }
}

/* cvi's rounds (cvi_tile.h, apo__cvi_round): two EMAs a lane, the second r bars behind and
 * starting at step r, so a gap stops the lock-step both where a lane meets it and r bars after;
 * the flat market's E of exactly 0 (the quotient's guard), ranges near the largest double, a
 * rocperiod longer than the period and one of a bar. */
Test(catalog_lanes, cvi_tiles_have_the_bits_of_their_scalar_body, .timeout = 300) {
    static const double params[][2] = {{10, 10}, {2, 1}, {14, 300}, {30, 5}};
    for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
        double par[APO_CAT_MAX_PAR] = {params[pi][0], params[pi][1]};
        check_rows(APO_CAT_CVI, par);
    }
}

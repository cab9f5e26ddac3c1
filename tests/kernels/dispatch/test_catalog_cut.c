/*
 * test_catalog_cut.c: a lone tile of a Wilder recurrence (rsi, cmo, atr, natr, plus_di,
 * minus_di, adx, dx, plus_dm, minus_dm, rma), zlema's or efi's EMA or an EMA chain (dema, tema,
 * t3, tsi; trix's stays whole) cut into pieces that run side by side in vector lanes
 * (apo__cpu_catalog_cut_tile, kernels/dispatch/catalog_split.h) gives, on every vector path this
 * CPU supports, bitwise the outputs of the same tile computed serially by the scalar body
 * (apo__cpu_catalog_tile, whose accuracy against independent references test_catalog_kernels_slow.c
 * checks).
 *
 * Each piece after the first starts from its own warm-up and is kept only when its run where
 * its outputs start continues as the run the piece before it ends with; otherwise it is
 * computed again serially. The inputs reach both ways: walks of every flavour of the
 * vector-path tests, where the pieces' runs almost always agree (and on a plain walk must,
 * or the cut would never pay: that also fails if the counts that grow with every bar, or
 * atr's spent seed sum, were compared); a huge move before the second piece's warm-up,
 * which the whole tile remembers and the pieces do not, so every later piece is computed
 * again; gaps across a cut's whole warm-up, so that a piece's seeds are not done by its
 * start. Tiles at a row's start and further in (a warm-up before the first piece too).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "catalog_dispatch.h"
#include "cpu_isa.h"
#include "cpu_isa_inputs.h"

static const apo__cat_id kernels[] = {
    APO_CAT_RSI,  APO_CAT_CMO, APO_CAT_ATR,     APO_CAT_NATR,     APO_CAT_PLUS_DI, APO_CAT_MINUS_DI,
    APO_CAT_ADX,  APO_CAT_DX,  APO_CAT_PLUS_DM, APO_CAT_MINUS_DM, APO_CAT_RMA,     APO_CAT_DEMA,
    APO_CAT_TEMA, APO_CAT_T3,  APO_CAT_TSI,     APO_CAT_ZLEMA,    APO_CAT_EFI};
#define N_KERNELS (sizeof kernels / sizeof kernels[0])

/* The bars of a close row: high and low spread about it (a spread that varies, 0 at some
 * bars), so that the true range and the directional moves take every branch. */
typedef struct bars {
    double *high, *low, *close;
} bars;

static bars bars_of(double *close, size_t n) {
    bars b = {malloc(n * sizeof(double)), malloc(n * sizeof(double)), close};
    cr_assert(b.high != NULL && b.low != NULL);
    for (size_t t = 0; t < n; t++) {
        const double spread = (double)((t * 7919) % 13) * 0.05;
        b.high[t] = close[t] + spread;
        b.low[t] = close[t] - spread * 0.5;
    }
    return b;
}

static void bars_free(bars *b) {
    free(b->high);
    free(b->low);
    free(b->close);
}

static apo__cat_io io_of(apo__cat_id id, const bars *b, double p, double *out) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    if (id == APO_CAT_RSI || id == APO_CAT_CMO || id == APO_CAT_DEMA || id == APO_CAT_TEMA ||
        id == APO_CAT_ZLEMA || id == APO_CAT_T3 || id == APO_CAT_TSI) {
        io.in[0] = b->close;
    } else if (id == APO_CAT_EFI) {
        /* close and a volume: the lows, positive and moving (the huge move is a high's, so
         * its force stays finite and every later piece must be computed again) */
        io.in[0] = b->close;
        io.in[1] = b->low;
    } else {
        io.in[0] = b->high;
        io.in[1] = b->low;
        io.in[2] = b->close;
    }
    io.p[0] = p;
    /* t3's vfactor, tsi's secondperiod: TA-Lib's defaults. */
    io.p[1] = id == APO_CAT_T3 ? 0.7 : id == APO_CAT_TSI ? 13.0 : 0.0;
    io.h = apo__catalog_halo(id, io.p);
    io.out[0] = out;
    return io;
}

/* Runs tile [begin, end) both ways, compares every output bit for bit (the whole row: the
 * cut must write nothing outside the tile) and returns the pieces computed again, or
 * (size_t)-1 when the tile was not cut. */
static size_t check_tile(apo__cat_id id, const bars *b, size_t n, size_t begin, size_t end,
                         double p, apo__cpu_isa isa, const char *what) {
    double *want = poisoned(n), *got = poisoned(n);
    apo__cat_io io = io_of(id, b, p, want);
    apo__cpu_catalog_tile(id, &io, begin, end);
    io.out[0] = got;
    const size_t redone = apo__cpu_catalog_cut_tile(id, &io, begin, end, isa);
    const size_t at = first_difference(want, got, n);
    cr_assert_eq(at, n,
                 "%s: path %d, kernel %d, period %g, tile [%zu, %zu): output differs at %zu "
                 "(%a against %a), %zd pieces redone",
                 what, (int)isa, (int)id, p, begin, end, at, at < n ? got[at] : 0.0,
                 at < n ? want[at] : 0.0, (ssize_t)redone);
    free(want);
    free(got);
    return redone;
}

Test(catalog_cut, flavours_on_every_path) {
    const size_t n = 24000;
    static const double periods[] = {14, 50, 2, 5};
    /* A row's start, a tile further in, a short one (never cut) and a long one. */
    static const size_t tiles[][2] = {{0, 10000}, {12345, 22345}, {100, 900}, {0, 24000}};
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (int f = 0; f < FLAVOURS; f++) {
            bars b = bars_of(make_input((enum flavour)f, 1, n, 31 + (uint64_t)f), n);
            for (size_t k = 0; k < N_KERNELS; k++)
                for (size_t s = 0; s < sizeof periods / sizeof periods[0]; s++)
                    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
                        check_tile(kernels[k], &b, n, tiles[t][0], tiles[t][1], periods[s],
                                   (apo__cpu_isa)isa, flavour_names[f]);
            bars_free(&b);
        }
    }
}

Test(catalog_cut, plain_walk_keeps_every_piece) {
    /* On a walk the pieces' runs agree with the whole tile's: the cut does pay. */
    const size_t n = 10000;
    bars b = bars_of(make_input(PLAIN, 1, n, 5), n);
    size_t cut = 0;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t k = 0; k < N_KERNELS; k++)
            for (double p = 14; p <= 50; p += 36) {
                const size_t redone =
                    check_tile(kernels[k], &b, n, 0, n, p, (apo__cpu_isa)isa, "plain");
                cr_assert(redone == 0 || redone == (size_t)-1,
                          "path %d, kernel %d, period %g: %zu pieces computed again", isa,
                          (int)kernels[k], p, redone);
                cut += redone == 0;
            }
    }
    /* avx2's and avx512's pieces pay at periods 14 and 50 for all but adx at 50, whose
     * warm-up is twice as long (apo__cut_pieces). */
    if (apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        cr_assert_geq(cut, 2 * (N_KERNELS - 1), "the tiles were cut %zu times", cut);
    bars_free(&b);
}

Test(catalog_cut, huge_move_redoes_every_later_piece) {
    /* A close of 1e200 at index 50 (and back): the whole tile's averages carry the move
     * (times (p - 1) / p a bar, far above the walk's scale at every cut), while the pieces
     * after the first start their warm-ups after it. */
    const size_t n = 10000;
    bars b = bars_of(make_input(PLAIN, 1, n, 9), n);
    b.close[50] = b.high[50] = 1e200;
    size_t cut = 0;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t k = 0; k < N_KERNELS; k++) {
            const size_t redone =
                check_tile(kernels[k], &b, n, 0, n, 50, (apo__cpu_isa)isa, "huge");
            /* The move is a high's: minus_dm reads the lows alone, so its pieces agree. */
            if (redone == (size_t)-1 || kernels[k] == APO_CAT_MINUS_DM)
                continue;
            cr_assert_eq(redone, apo__cpu_isa_lanes((apo__cpu_isa)isa) - 1,
                         "path %d, kernel %d: %zu pieces computed again", isa, (int)kernels[k],
                         redone);
            cut++;
        }
    }
    if (apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        cr_assert_gt(cut, 0, "no path cut the tile");
    bars_free(&b);
}

Test(catalog_cut, gaps_over_a_warm_up) {
    /* NaN closes over the middle third: a cut in it has no finite change in its warm-up, so
     * its piece's seeds are not done by its start, and the lock-step stops at the gap. */
    const size_t n = 10000;
    size_t cut = 0;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        bars b = bars_of(make_input(PLAIN, 1, n, 11), n);
        for (size_t t = n / 3; t < 2 * n / 3; t++)
            b.close[t] = b.high[t] = b.low[t] = NAN;
        for (size_t k = 0; k < N_KERNELS; k++) {
            const size_t redone =
                check_tile(kernels[k], &b, n, 0, n, 14, (apo__cpu_isa)isa, "middle gap");
            if (redone == (size_t)-1)
                continue;
            cr_assert_gt(redone, 0, "path %d, kernel %d: no piece computed again", isa,
                         (int)kernels[k]);
            cut++;
        }
        bars_free(&b);
    }
    if (apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        cr_assert_gt(cut, 0, "no path cut the tile");
}

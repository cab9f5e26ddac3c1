/*
 * test_macd_split.c: a lone macd tile cut into pieces that run side by side in vector lanes
 * (apo__cpu_macd_split_tile, kernels/dispatch/lanes_dispatch.c) gives, on every vector path
 * this CPU supports, bitwise the outputs of the same tile computed serially by the scalar
 * body (apo__cpu_macd_tile, whose accuracy against the long-double reference test_kernels.c
 * checks).
 *
 * Each piece after the first starts from its own warm-up and is kept only when its states
 * where its outputs start are the bits that the piece before it ends with; otherwise it is
 * computed again serially. The inputs reach both ways: walks of every flavour of the
 * vector-path tests, where the pieces' states almost always agree (and on a plain walk with
 * the default parameters must, or the cut would never pay); a huge sample before the second
 * piece's warm-up, which the whole tile remembers and the pieces do not, so every piece
 * after the first is computed again; gaps across a cut's whole warm-up, so that a piece's
 * seeds are not done by its start; gaps over the first piece, whose seeds are not done
 * within it. Tiles at a row's start and further in (a warm-up before the first piece too),
 * output arrays at every offset from a vector's alignment, and parameter sets with long
 * and short warm-ups (1/1/1 has none).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa.h"
#include "cpu_isa_inputs.h"
#include "macd.h"

typedef struct periods {
    size_t fast, slow, signal;
} periods;

static const periods period_sets[] = {{12, 26, 9}, {2, 3, 1}, {5, 35, 1}, {1, 1, 1}, {3, 10, 16}};
#define N_PERIOD_SETS (sizeof period_sets / sizeof period_sets[0])

/* Runs tile [begin, end) of x (n samples) both ways with outputs `shift` doubles past a
 * 64-byte boundary, compares every output bit for bit (the whole row: the split must write
 * nothing outside the tile) and returns the pieces computed again. */
static size_t check_tile(const double *x, size_t n, size_t begin, size_t end, const periods *p,
                         apo__cpu_isa isa, size_t shift, const char *what) {
    double *want[3], *got[3];
    for (int o = 0; o < 3; o++) {
        want[o] = poisoned(n + 8);
        got[o] = poisoned(n + 8);
    }
    /* poisoned() is malloc's alignment (16 bytes): shift from the vector's boundary. */
    double *w[3], *g[3];
    for (int o = 0; o < 3; o++) {
        const size_t lead = (8 - ((uintptr_t)want[o] / sizeof(double)) % 8) % 8;
        const size_t lead_g = (8 - ((uintptr_t)got[o] / sizeof(double)) % 8) % 8;
        w[o] = want[o] + (lead + shift) % 8;
        g[o] = got[o] + (lead_g + shift) % 8;
    }
    apo__cpu_macd_tile(x, n, begin, end, p->fast, p->slow, p->signal, w[0], w[1], w[2]);
    const size_t redone =
        apo__cpu_macd_split_tile(x, begin, end, p->fast, p->slow, p->signal, g[0], g[1], g[2], isa);
    for (int o = 0; o < 3; o++) {
        const size_t at = first_difference(w[o], g[o], n);
        cr_assert_eq(at, n,
                     "%s: path %d, macd %zu/%zu/%zu, tile [%zu, %zu), shift %zu: output %d "
                     "differs at %zu (%a against %a)",
                     what, (int)isa, p->fast, p->slow, p->signal, begin, end, shift, o, at,
                     at < n ? g[o][at] : 0.0, at < n ? w[o][at] : 0.0);
    }
    for (int o = 0; o < 3; o++) {
        free(want[o]);
        free(got[o]);
    }
    return redone;
}

/* The pieces the tile is cut into on `isa`. */
static size_t pieces_of(size_t begin, size_t end, const periods *p, apo__cpu_isa isa) {
    return apo__macd_split_pieces(end - begin, apo__macd_warmup(p->fast, p->slow, p->signal),
                                  apo__cpu_isa_lanes(isa));
}

Test(macd_split, flavours_on_every_path) {
    const size_t n = 30000;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (int f = 0; f < FLAVOURS; f++) {
            double *x = make_input((enum flavour)f, 1, n, 77 + (uint64_t)f);
            for (size_t s = 0; s < N_PERIOD_SETS; s++) {
                /* A row's start, a tile further in, short ones (1/1/1, with no warm-up,
                 * would cut the shortest if pieces could be empty) and a tile's longest. */
                const size_t tiles[][2] = {{0, 10000}, {12345, 22345}, {100, 1900},
                                           {0, 16384}, {7, 12},        {300, 811}};
                for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
                    check_tile(x, n, tiles[t][0], tiles[t][1], &period_sets[s], (apo__cpu_isa)isa,
                               (t + s + (size_t)f) % 8, flavour_names[f]);
            }
            free(x);
        }
    }
}

Test(macd_split, plain_walk_keeps_every_piece) {
    /* On a walk the pieces' states agree with the whole tile's: the cut does pay. */
    const size_t n = 10000;
    double *x = make_input(PLAIN, 1, n, 5);
    size_t cut = 0;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        cut += pieces_of(0, n, &period_sets[0], (apo__cpu_isa)isa) > 1;
        for (size_t shift = 0; shift < 8; shift++)
            cr_assert_eq(check_tile(x, n, 0, n, &period_sets[0], (apo__cpu_isa)isa, shift, "plain"),
                         0, "path %d: a piece was computed again on a plain walk", isa);
    }
    /* sse2's 2 pieces never pay for a warm-up (apo__macd_split_pieces); avx2's 4 do here. */
    if (apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        cr_assert_gt(cut, 0, "no path cut the tile");
    free(x);
}

Test(macd_split, huge_sample_redoes_every_later_piece) {
    /* A sample of 1e300 at index 50: the whole tile's EMAs carry it (times (1 - k) per
     * sample, far above the walk's scale for thousands of samples), while the pieces after
     * the first start their warm-ups after it. */
    const size_t n = 10000;
    const periods *p = &period_sets[1]; /* 2/3/1: a short warm-up */
    double *x = make_input(PLAIN, 1, n, 9);
    x[50] = 1e300;
    size_t cut = 0;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        const size_t pieces = pieces_of(0, n, &period_sets[0], (apo__cpu_isa)isa);
        const size_t pieces_short = pieces_of(0, n, p, (apo__cpu_isa)isa);
        /* The slow EMA of 12/26/9 forgets 1e300 by a factor (1 - 2/27) a sample: still
         * about 1e6, against a walk near 100, at the last cut (index 8852 at most). */
        cr_assert_eq(check_tile(x, n, 0, n, &period_sets[0], (apo__cpu_isa)isa, 3, "huge"),
                     pieces > 1 ? pieces - 1 : 0, "path %d", isa);
        /* 2/3/1 forgets it within a few hundred samples: the later pieces agree again (on
         * the paths that cut it: two pieces never pay for a warm-up). */
        const size_t redone = check_tile(x, n, 0, n, p, (apo__cpu_isa)isa, 5, "huge, 2/3/1");
        if (pieces_short > 1)
            cr_assert_lt(redone, pieces_short - 1, "path %d", isa);
        else
            cr_assert_eq(redone, 0, "path %d", isa);
        cut += pieces > 1;
    }
    if (apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        cr_assert_gt(cut, 0, "no path cut the tile");
    free(x);
}

Test(macd_split, gaps_over_a_warm_up_or_the_first_piece) {
    const size_t n = 10000;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_AVX512; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t s = 0; s < N_PERIOD_SETS; s++) {
            const periods *p = &period_sets[s];
            const size_t pieces = pieces_of(0, n, p, (apo__cpu_isa)isa);
            /* NaN over the middle third: a cut in it has no finite sample in its warm-up,
             * so its piece's seeds are not done by its start. */
            double *x = make_input(PLAIN, 1, n, 11 + s);
            for (size_t t = n / 3; t < 2 * n / 3; t++)
                x[t] = NAN;
            const size_t redone = check_tile(x, n, 0, n, p, (apo__cpu_isa)isa, s, "middle gap");
            if (pieces > 1)
                cr_assert_gt(redone, 0, "path %d, set %zu: no piece computed again", isa, s);
            /* NaN over the first 6000 samples: the first piece's seeds are not done in it. */
            for (size_t t = 0; t < 6000; t++)
                x[t] = NAN;
            const size_t redone_all = check_tile(x, n, 0, n, p, (apo__cpu_isa)isa, s, "head gap");
            cr_assert_eq(redone_all, pieces > 1 ? pieces - 1 : 0, "path %d, set %zu", isa, s);
            free(x);
        }
    }
}

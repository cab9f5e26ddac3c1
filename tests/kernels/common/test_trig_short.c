/*
 * The short route of atan (kernels/common/trig.h, apo__trig_atan01_short and
 * apo__trig_atan_above1_short), which the CPU's avx2 and avx512 paths take for a scalar atan
 * below 2^60 in magnitude: where it decides, the bits of the double-double route; where it does
 * not, apo__atan takes that route. The route exists only where the build has FMA, so this file
 * is compiled as the avx2 path is (-mavx2 -mfma, tests/kernels/meson.build) and skips on a CPU
 * without them. The kernels that take it (the Hilbert transform's period and mama's phase, so
 * ht_dcperiod, ht_phasor, ht_trendline, mama and the phase's kernels) are also compared path
 * against path with sse2's bits by catalog_simt's every_vector_path_gives_the_bits_of_sse2.
 * The route in vector lanes (trig_tv.h, apo__atan_cells_tv: the atan kernel's lanes where they
 * share a cell) is compared with apo__atan lane by lane.
 */
#include "splitmix64.h"
#include "tile_vec.h"
#include "trig.h"
#include "trig_tv.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef APO_TRIG_FMA
#error "test_trig_short.c is compiled with -mfma: the short route exists only there"
#endif

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The double-double route's atan of 2^-27 <= ax <= 2^60, rounded: what apo__atan returned before
 * the short route, and returns where it is undecided. */
static double long_route(double ax) {
    return ax <= 1.0 ? apo__trig_atan01_long(ax) : apo__trig_atan_above1_long(ax);
}

/* The short route of ax's side of one. */
static double short_route(double ax, int *decided) {
    return ax <= 1.0 ? apo__trig_atan01_short(ax, decided)
                     : apo__trig_atan_above1_short(ax, decided);
}

/* Sample i of the sweep, in [2^-27, 2^60]: uniform in [0, 1], the 64 doubles either side of a
 * table cell's edge k/32 (where k changes, and at 1/32 the cubic term weighs most against the
 * result), log-uniform magnitudes down to 2^-27, the doubles next to 1; half of them above one
 * as below. */
static double sample(uint64_t i) {
    const uint64_t bits = apo__splitmix64(2026, i);
    const double u = (double)(bits >> 11) * 0x1p-53;
    double x;
    switch (i % 4) {
    case 0:
        x = u;
        break;
    case 1: {
        x = (double)(bits % 33) / 32.0;
        for (int step = (int)((bits >> 6) % 129) - 64; step != 0; step += step > 0 ? -1 : 1)
            x = nextafter(x, step > 0 ? 2.0 : 0.0);
        break;
    }
    case 2:
        x = ldexp(0.5 + 0.5 * u, -(int)((bits >> 3) % 27));
        break;
    default:
        x = 1.0 - (double)(bits % 4096) * 0x1p-53;
        break;
    }
    x = fmin(fmax(x, 0x1p-27), 1.0);
    /* Every other sample above one: its inverse (a cell edge's neighbours become 32/k's), up
     * to 2^27, and log-uniform magnitudes to 2^60. */
    if ((bits >> 1) & 1)
        x = (bits >> 2) & 7 ? 1.0 / x : ldexp(1.0 + u, 1 + (int)((bits >> 5) % 59));
    return x == 1.0 ? nextafter(1.0, 2.0) : x;
}

/* The cells' polynomials against glibc's atanl (64-bit long double): for every cell and 4,097
 * offsets h across it, atan c + b0 h + a_2 h^2 + ... + a_13 h^13 with the table's doubles,
 * summed in long double, lies within 2^-61 of atan(c + h) - atan c relative to atan(c + h),
 * inside the short route's budget (trig.h, APO_TRIG_ATAN_SHORT_BOUND; the worst is 2^-62.9):
 * a coefficient up to a_8 off by a part in a thousand, or a_12 left out, fails it. */
Test(trig_short, cells_are_atans_taylor_polynomials) {
    enum { STEPS = 4096 };
    size_t worse = 0;
    long double worst = 0.0L;
    for (int k = 0; k <= 16; k++) {
        const long double c = (long double)k / 16.0L;
        const double *a = apo__trig_atan_cells[k];
        for (int i = 0; i <= STEPS; i++) {
            const long double h = (long double)(i - STEPS / 2) / (STEPS / 2) / 32.0L;
            if (c + h <= 0.0L || c + h > 1.0L)
                continue;
            long double tail = 0.0L;
            for (int m = APO_TRIG_ATAN_CELL_TERMS - 1; m >= 2; m--)
                tail = (tail + a[m]) * h;
            const long double poly = ((long double)a[0] + a[1] + tail) * h;
            const long double want = atanl(c + h) - atanl(c);
            const long double rel = fabsl(poly - want) / atanl(c + h);
            worst = rel > worst ? rel : worst;
            worse += rel > 0x1p-61L;
        }
    }
    cr_expect_eq(worse, 0, "%zu offsets off by more than 2^-61, the worst 2^%.1f", worse,
                 (double)log2l(worst));
}

Test(trig_short, gives_the_double_double_routes_bits, .timeout = 120) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        cr_skip_test("this CPU has no AVX2 and FMA, which the short route's build asks for");
    enum { SAMPLES = 2000000 };
    size_t decided = 0, differ = 0, atan_differ = 0;
    double first = 0.0, first_atan = 0.0;
    for (uint64_t i = 0; i < SAMPLES; i++) {
        const double x = sample(i), want = long_route(x);
        int d = 0;
        const double got = short_route(x, &d);
        if (d) {
            decided++;
            if (!same_bits(got, want) && differ++ == 0)
                first = x;
        }
        if (!(same_bits(apo__atan(x), want) && same_bits(apo__atan(-x), -want)) &&
            atan_differ++ == 0)
            first_atan = x;
    }
    cr_expect_eq(differ, 0, "%zu decided roundings differ, the first at %a", differ, first);
    cr_expect_eq(atan_differ, 0, "apo__atan differs from the long route %zu times, first at %a",
                 atan_differ, first_atan);
    /* Both routes ran: the bound leaves about 4.4% of arguments below one undecided, 2.1% above. */
    cr_expect(decided > SAMPLES * 9 / 10 && decided < SAMPLES, "decided %zu of %d", decided,
              SAMPLES);
}

/* Lane l of vector i for apo__atan_cells_tv: its route where the lanes share a side and a cell
 * (a sample and the doubles after it; prices, whose inverses are in cell 0), apo__atan_tv where
 * they do not (four samples apart), and now and then a lane that leaves the route at once (0,
 * -0, 1, a tiny or huge value, an infinity, NaN). */
static double lane_sample(uint64_t i, int l) {
    const uint64_t bits = apo__splitmix64(2027, i);
    static const double odd[] = {0.0, -0.0, 1.0, -1.0, 0x1p-28, 0x1p61, INFINITY, -INFINITY, NAN};
    if (l == 1 && bits % 16 == 0)
        return odd[(bits >> 4) % (sizeof odd / sizeof odd[0])];
    double x;
    switch ((bits >> 8) % 3) {
    case 0:
        x = sample(4 * i + (uint64_t)l);
        break;
    case 1:
        x = sample(i);
        for (int k = 0; k < l; k++)
            x = nextafter(x, 1e300);
        break;
    default:
        x = 32.0 + (double)((bits >> 12) % 4000000) * 0.001 + l;
        break;
    }
    return (bits >> 2) & 1 ? -x : x;
}

Test(trig_short, lanes_of_one_cell_give_apo_atans_bits, .timeout = 120) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        cr_skip_test("this CPU has no AVX2 and FMA, which the lanes' build asks for");
    enum { VECTORS = 500000 };
    size_t differ = 0;
    double first = 0.0;
    for (uint64_t i = 0; i < VECTORS; i++) {
        apo_tv x;
        for (int l = 0; l < APO_TILE_LANES; l++)
            x[l] = lane_sample(i, l);
        const apo_tv got = apo__atan_cells_tv(x);
        for (int l = 0; l < APO_TILE_LANES; l++)
            if (!same_bits(got[l], apo__atan(x[l])) && differ++ == 0)
                first = x[l];
    }
    cr_expect_eq(differ, 0, "%zu lanes differ from apo__atan, the first at %a", differ, first);
}

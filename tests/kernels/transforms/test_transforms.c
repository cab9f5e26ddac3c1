/*
 * test_transforms.c: the transforms family's own cases (kernels/transforms/): the element-wise
 * gap rule and the values without one (ln and log10 of 0 are -inf, of a negative number NaN,
 * sqrt of a negative number NaN, a quotient by 0 an infinity, exp's overflow an infinity, ceil
 * and floor C99's signed zeros), the price transforms in TA-Lib's order of operations (its
 * bits), and sum and minmax at their lookbacks. The table-driven checks of every kernel
 * (references, tile grids, halos) run the family through catalog_more_fixtures.c:
 * avgprice, medprice, typprice, wclprice, add, sub, mult, div, sum, minmax, ceil, floor, sqrt,
 * exp, ln, log10, sinh, cosh, tanh, acos, asin, atan, cos, sin, tan, maxindex, minindex,
 * minmaxindex (whose TA-Lib fixture is test_index.c's); cumsum, a running total, through the
 * whole-row table (volume/test_catalog_cumulative.c), and here by hand and bit for bit TA-Lib's
 * plain sum. The math transforms whose vector paths run branchless forms (exp_log.h, trig_tv.h)
 * or blocks of their own (tanh) give sse2's bits on every path, on every kind of double.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_more_fixtures.h"
#include "cpu_isa.h"
#include "splitmix64.h"

#define N 8

/* Runs kernel id over one tile of N bars of the given inputs into out (two outputs). */
static void run(apo__cat_id id, const double *const *in, size_t n_in, double p0, double *out0,
                double *out1) {
    const double p[3] = {p0};
    run_one_tile(id, in, n_in, p, out0, out1, N);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(transforms, values_without_a_gap_and_the_gap_rule) {
    const double x[N] = {0.0, -1.0, 4.0, INFINITY, NAN, -0.5, 1000.0, 2.5};
    const double *in[] = {x};
    double out[N], spare[N];
    const double nan = NAN;
    run(APO_CAT_LN, in, 1, 0, out, spare);
    cr_assert_eq(out[0], -INFINITY);
    cr_assert(same_bits(out[1], nan), "ln(-1) is the NAN constant");
    cr_assert(same_bits(out[3], nan) && same_bits(out[4], nan), "gaps give NaN");
    run(APO_CAT_LOG10, in, 1, 0, out, spare);
    cr_assert_eq(out[0], -INFINITY);
    cr_assert_eq(out[6], 3.0);
    run(APO_CAT_SQRT, in, 1, 0, out, spare);
    cr_assert(same_bits(out[1], nan), "sqrt(-1) is the NAN constant");
    cr_assert_eq(out[2], 2.0);
    run(APO_CAT_EXP, in, 1, 0, out, spare);
    cr_assert_eq(out[0], 1.0);
    cr_assert_eq(out[6], INFINITY, "exp(1000) overflows to an infinity, a value");
    cr_assert(same_bits(out[3], nan), "exp of a gap (inf) is NaN, the catalog's rule");
    run(APO_CAT_CEIL, in, 1, 0, out, spare);
    cr_assert(same_bits(out[5], -0.0), "ceil(-0.5) is -0");
    cr_assert_eq(out[7], 3.0);
    run(APO_CAT_FLOOR, in, 1, 0, out, spare);
    cr_assert_eq(out[5], -1.0);
    cr_assert_eq(out[7], 2.0);
    run(APO_CAT_SINH, in, 1, 0, out, spare);
    cr_assert(same_bits(out[0], 0.0));
    run(APO_CAT_COSH, in, 1, 0, out, spare);
    cr_assert_eq(out[0], 1.0);
    run(APO_CAT_TANH, in, 1, 0, out, spare);
    cr_assert_eq(out[6], 1.0);
    const double y[N] = {0.0, 0.0, 2.0, 1.0, 1.0, 1.0, 1e308, 1.0};
    const double *xy[] = {x, y};
    run(APO_CAT_DIV, xy, 2, 0, out, spare);
    cr_assert(same_bits(out[0], nan), "0 / 0 is the NAN constant");
    cr_assert_eq(out[1], -INFINITY);
    cr_assert_eq(out[2], 2.0);
    run(APO_CAT_MULT, xy, 2, 0, out, spare);
    cr_assert_eq(out[6], INFINITY);
    run(APO_CAT_SUB, xy, 2, 0, out, spare);
    cr_assert_eq(out[2], 2.0);
    run(APO_CAT_ADD, xy, 2, 0, out, spare);
    cr_assert(same_bits(out[4], nan));
}

/* TA-Lib's operation order, so its bits: (h + l + c + o) / 4, (h + l) / 2, (h + l + c) / 3,
 * (h + l + 2c) / 4. */
Test(transforms, price_transforms_in_talibs_order) {
    const double o[N] = {0.1, 1e16, 3.3, 7.0, 0.7, 1.1, 2.2, NAN};
    const double h[N] = {0.2, 1.0, 3.7, 9.1, 0.9, 1.3, 2.9, 1.0};
    const double l[N] = {0.05, -1e16, 3.1, 6.5, 0.3, 0.9, 2.0, 1.0};
    const double c[N] = {0.15, 3.0, 3.5, 8.2, 0.8, 1.2, 2.5, 1.0};
    double out[N], spare[N];
    const double *ohlc[] = {o, h, l, c}, *hl[] = {h, l}, *hlc[] = {h, l, c};
    run(APO_CAT_AVGPRICE, ohlc, 4, 0, out, spare);
    for (size_t t = 0; t + 1 < N; t++)
        cr_assert(same_bits(out[t], (h[t] + l[t] + c[t] + o[t]) / 4), "avgprice t %zu", t);
    cr_assert(isnan(out[N - 1]), "a gap in the open");
    run(APO_CAT_MEDPRICE, hl, 2, 0, out, spare);
    run(APO_CAT_TYPPRICE, hlc, 3, 0, spare, spare);
    for (size_t t = 0; t < N; t++) {
        cr_assert(same_bits(out[t], (h[t] + l[t]) / 2), "medprice t %zu", t);
        cr_assert(same_bits(spare[t], (h[t] + l[t] + c[t]) / 3), "typprice t %zu", t);
    }
    run(APO_CAT_WCLPRICE, hlc, 3, 0, out, spare);
    for (size_t t = 0; t < N; t++)
        cr_assert(same_bits(out[t], (h[t] + l[t] + c[t] * 2) / 4), "wclprice t %zu", t);
}

/* sum and minmax: NaN before timeperiod - 1, then the window's values; minmax's outputs in
 * TA-Lib's order, min then max. */
Test(transforms, sum_and_minmax_at_their_lookback) {
    const double x[N] = {3, 1, 4, 1, 5, 9, 2, 6};
    const double *in[] = {x};
    double a[N], b[N];
    run(APO_CAT_SUM, in, 1, 3, a, b);
    cr_assert(isnan(a[0]) && isnan(a[1]));
    cr_assert_eq(a[2], 8.0);
    cr_assert_eq(a[7], 17.0);
    run(APO_CAT_MINMAX, in, 1, 3, a, b);
    cr_assert(isnan(a[1]) && isnan(b[1]));
    cr_assert_eq(a[2], 1.0);
    cr_assert_eq(b[2], 4.0);
    cr_assert_eq(a[7], 2.0);
    cr_assert_eq(b[7], 9.0);
}

/* The trigonometric transforms at their edges: odd and even bit for bit, the domain of asin
 * and acos (NaN outside [-1, 1], a value without a gap), sin, cos and tan NaN beyond trig.h's
 * bound 2^20 (libm gives a value there), atan of a large sample pi/2 rounded, and the gap rule. */
Test(transforms, trig_edges_and_the_gap_rule) {
    const double x[N] = {0.0, -0.0, 1.0, -1.0, 1.0000000000000002, 0x1p21, 1e300, INFINITY};
    const double *in[] = {x};
    double out[N], spare[N];
    const double nan = NAN;
    run(APO_CAT_SIN, in, 1, 0, out, spare);
    cr_assert(same_bits(out[0], 0.0) && same_bits(out[1], -0.0), "sin keeps the sign of zero");
    cr_assert(same_bits(out[2], -out[3]), "sin is odd");
    cr_assert(same_bits(out[5], nan), "sin beyond 2^20 is the NAN constant");
    cr_assert(same_bits(out[7], nan), "sin of a gap (inf) is NaN");
    run(APO_CAT_COS, in, 1, 0, out, spare);
    cr_assert_eq(out[0], 1.0);
    cr_assert(same_bits(out[2], out[3]), "cos is even");
    cr_assert(same_bits(out[6], nan));
    run(APO_CAT_TAN, in, 1, 0, out, spare);
    cr_assert(same_bits(out[1], -0.0));
    cr_assert(same_bits(out[5], nan));
    run(APO_CAT_ASIN, in, 1, 0, out, spare);
    cr_assert(same_bits(out[1], -0.0));
    cr_assert(same_bits(out[2], -out[3]), "asin is odd");
    cr_assert_eq(out[2], 0x1.921fb54442d18p+0, "asin(1) is pi/2 rounded");
    cr_assert(same_bits(out[4], nan), "asin just past 1 has no value");
    run(APO_CAT_ACOS, in, 1, 0, out, spare);
    cr_assert_eq(out[2], 0.0);
    cr_assert_eq(out[3], 0x1.921fb54442d18p+1, "acos(-1) is pi rounded");
    cr_assert(same_bits(out[4], nan));
    run(APO_CAT_ATAN, in, 1, 0, out, spare);
    cr_assert(same_bits(out[1], -0.0));
    cr_assert_eq(out[6], 0x1.921fb54442d18p+0, "atan(1e300) is pi/2 rounded");
    cr_assert(same_bits(out[7], nan), "atan of a gap (inf) is NaN, not pi/2");
}

/* cumsum: TA-Lib's running total in plain double, bit for bit (its roundings: 0.1 + 0.2, and
 * 1 lost beside 1e16), a gap
 * bar NaN and taken out of the total, and the same bits in every tile of a cut row. */
Test(transforms, cumsum_is_talibs_running_total) {
    const double x[N] = {0.1, 0.2, NAN, 0.3, -INFINITY, 1e16, 1.0, -1e16};
    const double *in[] = {x};
    double out[N], spare[N], cut[N];
    run(APO_CAT_CUMSUM, in, 1, 0, out, spare);
    double sum = 0.0;
    for (size_t t = 0; t < N; t++) {
        if (!isfinite(x[t])) {
            cr_assert(isnan(out[t]), "t %zu: a gap gives NaN", t);
            continue;
        }
        sum += x[t];
        cr_assert(same_bits(out[t], sum), "t %zu: %.17g, the plain sum %.17g", t, out[t], sum);
    }
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = cut;
    apo__cpu_catalog_tile(APO_CAT_CUMSUM, &io, 5, N);
    apo__cpu_catalog_tile(APO_CAT_CUMSUM, &io, 0, 5);
    cr_assert(memcmp(out, cut, sizeof out) == 0, "a tile from bar 5 runs the total from bar 0");
}

/* cumsum over several of the CPU's blocks of 256 bars, which a clean block adds without the
 * per-bar tests: against the plain loop of the definition, bit for bit, with a gap inside the
 * third block, samples that overflow the sum to inf in the last, and tiles that begin inside a
 * block, whose outputs before `begin` stay unwritten. */
#define CUMSUM_BARS 1000
Test(transforms, cumsum_blocks_are_the_running_total) {
    static double x[CUMSUM_BARS], want[CUMSUM_BARS], out[CUMSUM_BARS];
    for (size_t t = 0; t < CUMSUM_BARS; t++)
        x[t] = (double)(apo__splitmix64(52, t) >> 11) * 0x1p-53 - 0.37;
    x[600] = NAN;
    x[601] = INFINITY;
    x[900] = 1.7e308;
    x[901] = 1.7e308;
    double sum = 0.0;
    for (size_t t = 0; t < CUMSUM_BARS; t++) {
        if (!isfinite(x[t])) {
            want[t] = NAN;
            continue;
        }
        sum += x[t];
        want[t] = sum;
    }
    cr_assert(isinf(want[CUMSUM_BARS - 1]), "the reference overflows");
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = out;
    const size_t begins[] = {0, 1, 255, 256, 300, 600, 899, 999};
    for (size_t b = 0; b < sizeof begins / sizeof *begins; b++) {
        for (size_t t = 0; t < CUMSUM_BARS; t++)
            out[t] = -7.0;
        apo__cpu_catalog_tile(APO_CAT_CUMSUM, &io, begins[b], CUMSUM_BARS);
        for (size_t t = 0; t < CUMSUM_BARS; t++)
            cr_assert(
                t < begins[b] ? out[t] == -7.0
                              : same_bits(out[t], want[t]) || (isnan(out[t]) && isnan(want[t])),
                "begin %zu, t %zu: %.17g, the plain sum %.17g", begins[b], t, out[t], want[t]);
    }
}

/* The math transforms on every vector path against sse2's (the branching forms, a GPU's too),
 * bit for bit: exp, ln, log10, sinh, cosh and tanh run exp_log.h's branchless forms on avx2 and
 * avx512, tanh in blocks of 64 of which those whose samples all saturate (|x| >= 22) skip the
 * arithmetic, and the trigonometric ones trig_tv.h's lanes. The row: blocks of saturated
 * negatives and positives (one with infinities, one with a NaN), samples across every arm,
 * small ones and signed zeros, near the overflows, prices, doubles of any bits, and a tail
 * shorter than a block; whole and cut at odd places, so blocks start anywhere. */
Test(transforms, math_transforms_give_sse2s_bits_on_every_path) {
    enum { ROW = 64 * 9 + 37 };
    double x[ROW];
    for (size_t i = 0; i < ROW; i++) {
        const uint64_t r = apo__splitmix64(0x7a9b, (uint64_t)i);
        const double u = (double)(r >> 11) * 0x1p-53;
        switch (i / 64) {
        case 0:
            x[i] = -22.0 - 50.0 * u;
            break;
        case 1:
            x[i] = i % 17 == 3 ? (i % 2 ? INFINITY : -INFINITY) : 22.0 + 700.0 * u;
            break;
        case 2:
            x[i] = i % 29 == 5 ? NAN : 22.0 + u;
            break;
        case 3:
            x[i] = (u - 0.5) * 60.0;
            break;
        case 4:
            x[i] = (u - 0.5) * 3.0 * ldexp(1.0, -(int)(r % 40));
            break;
        case 5:
            x[i] = (r & 1 ? -1.0 : 1.0) * (700.0 + 50.0 * u);
            break;
        case 6:
            x[i] = 90.0 + 20.0 * u;
            break;
        default:
            memcpy(&x[i], &r, sizeof x[i]);
            break;
        }
    }
    const double edges[] = {
        0.0, -0.0, 22.0, -22.0, 0x1p-28, -0x1p-28, 1.0, -1.0, 0x1.633ce8fb9f87ep+9};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        x[64 * 4 + e] = edges[e];
    static const apo__cat_id ids[] = {APO_CAT_EXP,  APO_CAT_LN,   APO_CAT_LOG10, APO_CAT_SINH,
                                      APO_CAT_COSH, APO_CAT_TANH, APO_CAT_ATAN,  APO_CAT_SIN,
                                      APO_CAT_COS,  APO_CAT_TAN,  APO_CAT_ASIN,  APO_CAT_ACOS};
    static const size_t cuts[] = {0, 5, 70, 200, 201, 450, ROW};
    double want[ROW], got[ROW];
    size_t compared = 0;
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        io.in[0] = x;
        io.out[0] = want;
        apo__cpu_catalog_tile_on(ids[k], &io, 0, ROW, APO_CPU_ISA_SSE2);
        for (int isa = APO_CPU_ISA_AVX2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            for (int cut = 0; cut < 2; cut++) {
                memset(got, 0x5a, sizeof got);
                io.out[0] = got;
                for (size_t c = 0; c + 1 < sizeof cuts / sizeof cuts[0]; c++)
                    if (cut)
                        apo__cpu_catalog_tile_on(ids[k], &io, cuts[c], cuts[c + 1], isa);
                if (!cut)
                    apo__cpu_catalog_tile_on(ids[k], &io, 0, ROW, isa);
                for (size_t t = 0; t < ROW; t++)
                    cr_assert(same_bits(got[t], want[t]),
                              "kernel %d on %s%s: t %zu x %a got %a sse2 %a", (int)ids[k],
                              apo__cpu_isa_name((apo__cpu_isa)isa), cut ? ", cut" : "", t, x[t],
                              got[t], want[t]);
                compared++;
            }
        }
    }
    /* A CPU without avx2 checks nothing here; the x86-64 machines of the CI have it. */
    cr_assert(compared > 0 || !apo__cpu_isa_supported(APO_CPU_ISA_AVX2));
}

/* The definition of a closed body's output (elementwise.h): TA-Lib's expression where every
 * input is finite (an overflow keeps its infinity, a result without a value is the NAN
 * constant), else the NAN constant. Evaluated here bar by bar in plain C. */
static double closed_definition(apo__cat_id id, const double *const *in, size_t t) {
    const double a = in[0][t], b = in[1][t], c = in[2] != NULL ? in[2][t] : 0.0,
                 d = in[3] != NULL ? in[3][t] : 0.0;
    const size_t n = id == APO_CAT_AVGPRICE                             ? 4
                     : id == APO_CAT_TYPPRICE || id == APO_CAT_WCLPRICE ? 3
                                                                        : 2;
    int finite = isfinite(a) && isfinite(b);
    finite = finite && (n < 3 || isfinite(c)) && (n < 4 || isfinite(d));
    double v;
    switch (id) {
    case APO_CAT_ADD:
        v = a + b;
        break;
    case APO_CAT_SUB:
        v = a - b;
        break;
    case APO_CAT_MULT:
        v = a * b;
        break;
    case APO_CAT_MEDPRICE:
        v = (a + b) / 2.0;
        break;
    case APO_CAT_TYPPRICE:
        v = (a + b + c) / 3.0;
        break;
    case APO_CAT_WCLPRICE:
        v = (a + b + c * 2.0) / 4.0;
        break;
    default: /* avgprice: open, high, low, close as o, h, l, c */
        v = (b + c + d + a) / 4.0;
        break;
    }
    return finite && !isnan(v) ? v : (double)NAN;
}

/* add, sub, mult and the price transforms store a vector of bars whose values are all finite
 * as computed, and take any other vector bar by bar (elementwise.h, "A closed body"). On every
 * path, whole and cut at odd places (so vectors start anywhere), each output is the definition
 * above: over prices, with gaps (NaN, +inf, -inf) alone and in runs, pairs of finite samples
 * whose sums and products overflow, signed zeros and doubles of any bits. */
Test(transforms, closed_bodies_are_their_definition_on_every_path) {
    enum { ROW = 64 * 6 + 29 };
    double x[4][ROW];
    for (size_t k = 0; k < 4; k++)
        for (size_t i = 0; i < ROW; i++) {
            const uint64_t r = apo__splitmix64(0xc105ed + k, (uint64_t)i);
            const double u = (double)(r >> 11) * 0x1p-53;
            switch (i / 64) {
            case 0:
                x[k][i] = 90.0 + 20.0 * u;
                break;
            case 1: /* gaps here and there, in every input */
                x[k][i] = r % 13 == 0   ? NAN
                          : r % 13 == 1 ? INFINITY
                          : r % 13 == 2 ? -INFINITY
                                        : 100.0 * u;
                break;
            case 2: /* overflows of finite inputs, and infinities that meet */
                x[k][i] = (r & 1 ? -1.0 : 1.0) * (r % 7 == 0 ? INFINITY : 0x1.fp1023 * u);
                break;
            case 3: /* zeros of both signs beside infinities: 0 * inf, -0 + -0 */
                x[k][i] = r % 5 == 0 ? (r & 2 ? INFINITY : -INFINITY) : r & 1 ? -0.0 : 0.0;
                break;
            case 4: /* a run of gaps in one input only */
                x[k][i] = k == 1 && i % 64 >= 10 && i % 64 < 30 ? NAN : 50.0 - u;
                break;
            default:
                memcpy(&x[k][i], &r, sizeof x[k][i]);
                break;
            }
        }
    static const apo__cat_id ids[] = {APO_CAT_ADD,      APO_CAT_SUB,      APO_CAT_MULT,
                                      APO_CAT_MEDPRICE, APO_CAT_TYPPRICE, APO_CAT_WCLPRICE,
                                      APO_CAT_AVGPRICE};
    static const size_t cuts[] = {0, 3, 67, 129, 130, 257, ROW};
    double got[ROW];
    size_t compared = 0;
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        const size_t n_in = ids[k] == APO_CAT_AVGPRICE                                 ? 4
                            : ids[k] == APO_CAT_TYPPRICE || ids[k] == APO_CAT_WCLPRICE ? 3
                                                                                       : 2;
        for (size_t i = 0; i < n_in; i++)
            io.in[i] = x[i];
        io.out[0] = got;
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            for (int cut = 0; cut < 2; cut++) {
                memset(got, 0x5a, sizeof got);
                if (cut)
                    for (size_t c = 0; c + 1 < sizeof cuts / sizeof cuts[0]; c++)
                        apo__cpu_catalog_tile_on(ids[k], &io, cuts[c], cuts[c + 1], isa);
                else
                    apo__cpu_catalog_tile_on(ids[k], &io, 0, ROW, isa);
                for (size_t t = 0; t < ROW; t++) {
                    const double want = closed_definition(ids[k], io.in, t);
                    cr_assert(same_bits(got[t], want), "kernel %d on %s%s: t %zu got %a want %a",
                              (int)ids[k], apo__cpu_isa_name((apo__cpu_isa)isa), cut ? ", cut" : "",
                              t, got[t], want);
                }
                compared++;
            }
        }
    }
    /* sse2 at least, whole and cut, for each of the seven. */
    cr_assert(compared >= 7 * 2, "%zu comparisons", compared);
}

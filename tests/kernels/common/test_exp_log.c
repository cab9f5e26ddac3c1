/*
 * test_exp_log.c: kernels/common/exp_log.h, the exp, log, log10, expm1, sinh, cosh and tanh
 * that tile bodies share with CUDA, against long double (expl, logl, ...): their special
 * values (zeros, subnormals, the overflow and underflow thresholds, infinities, NaN, negative
 * arguments of log) exactly, and within 2 ulps on a few thousand seeded arguments a function
 * and range; the branchless exp, log and log10 that vectorised loops run (and their block forms)
 * give the branching forms' bits on every kind of double. The dense sweeps are
 * test_exp_log_slow.c's.
 */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "exp_log.h"
#include "exp_log_fixtures.h"
#include "splitmix64.h"

/* The accuracy the functions promise (docs/kernels/transforms.md, "Math operators and transforms").
 */
#define EXP_LOG_MAX_ULPS 2.0

/* Special arguments with C99's results: each function at each argument matches its long
 * double reference rounded to double, exactly where that is an infinity, a zero or NaN. */
Test(exp_log, special_values) {
    const double xs[] = {0.0,
                         -0.0,
                         DBL_MIN,
                         0x1p-1074,
                         0x1.fffffffffffffp-1023,
                         -0x1p-1074,
                         1.0,
                         -1.0,
                         0x1p-28,
                         0x1p-30,
                         0x1.62e42fefa39efp+9,
                         0x1.62e42fefa39f0p+9,
                         -0x1.74910d52d3051p+9,
                         -0x1.74910d52d3053p+9,
                         -745.0,
                         -708.5,
                         22.0,
                         710.4,
                         0x1.633ce8fb9f87dp+9,
                         0x1.633ce8fb9f87ep+9,
                         711.0,
                         DBL_MAX,
                         -DBL_MAX,
                         INFINITY,
                         -INFINITY,
                         NAN};
    for (size_t f = 0; f < n_exp_log_fns; f++)
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            const double got = exp_log_fns[f].fn(xs[i]);
            const long double want = exp_log_fns[f].ref((long double)xs[i]);
            const double u = exp_log_ulps(got, want);
            cr_assert(u <= EXP_LOG_MAX_ULPS, "%s(%a) = %a, want %La (%g ulps)", exp_log_fns[f].name,
                      xs[i], got, want, u);
            /* Results that are infinities, zeros or NaN are exactly C99's. */
            const double rounded = (double)want;
            if (isnan(rounded))
                cr_assert(isnan(got), "%s(%a) = %a, want NaN", exp_log_fns[f].name, xs[i], got);
            else if (isinf(rounded) || rounded == 0.0)
                cr_assert(got == rounded, "%s(%a) = %a, want %a", exp_log_fns[f].name, xs[i], got,
                          rounded);
        }
    cr_assert(apo__log(-1.0) != apo__log(-1.0), "log of a negative number is NaN");
    cr_assert_eq(apo__log(0.0), -INFINITY);
    cr_assert_eq(apo__log10(0x1p-1074), apo__log10(0x1p-1074)); /* finite */
    cr_assert_eq(apo__exp(-INFINITY), 0.0);
    cr_assert_eq(apo__log(1.0), 0.0);
    cr_assert_eq(apo__log10(1000.0), 3.0);
    cr_assert_eq(apo__exp(0.0), 1.0);
}

/* A few thousand points a function over its whole range, both signs where it has them, and
 * the neighbourhood of 0 (and of 1 for the logarithms) where cancellation would show. */
Test(exp_log, within_two_ulps_on_seeded_arguments) {
    const struct {
        const char *name;
        int lo_exp, hi_exp, both_signs;
    } ranges[] = {
        {"exp", -60, 9, 1},
        {"expm1", -60, 9, 1},
        {"log", -1074, 1023, 0},
        {"log10", -1074, 1023, 0},
        {"sinh", -40, 9, 1},
        {"cosh", -40, 9, 1},
        {"tanh", -40, 5, 1},
        {"exp_select", -60, 9, 1},
        {"log_select", -1074, 1023, 0},
        {"log10_select", -1074, 1023, 0},
        {"sinh_select", -40, 9, 1},
        {"cosh_select", -40, 9, 1},
        {"tanh_select", -40, 5, 1},
    };
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        const exp_log_fn *f = exp_log_fn_named(ranges[r].name);
        cr_assert_not_null(f);
        double at = 0.0;
        const double w = exp_log_sweep(f, 11 + r, 4000, ranges[r].lo_exp, ranges[r].hi_exp,
                                       ranges[r].both_signs, &at);
        cr_assert(w <= EXP_LOG_MAX_ULPS, "%s: %g ulps at %a", f->name, w, at);
    }
    const struct {
        const char *name;
        double lo, hi;
    } lines[] = {{"exp", -745.2, 709.8},
                 {"log", 0.5, 2.0},
                 {"log10", 0.5, 2.0},
                 {"sinh", -711.0, 711.0},
                 {"cosh", -711.0, 711.0},
                 {"tanh", -3.0, 3.0},
                 {"exp_select", -745.2, 709.8},
                 {"log_select", 0.5, 2.0},
                 {"log10_select", 0.5, 2.0},
                 {"sinh_select", -711.0, 711.0},
                 {"cosh_select", -711.0, 711.0},
                 {"tanh_select", -3.0, 3.0}};
    for (size_t r = 0; r < sizeof lines / sizeof lines[0]; r++) {
        const exp_log_fn *f = exp_log_fn_named(lines[r].name);
        double at = 0.0;
        const double w = exp_log_sweep_linear(f, 77 + r, 4000, lines[r].lo, lines[r].hi, &at);
        cr_assert(w <= EXP_LOG_MAX_ULPS, "%s: %g ulps at %a", f->name, w, at);
    }
}

/* Each branchless form at x against its branching form, bit for bit. */
static void assert_same_bits(double x) {
    const struct {
        const char *name;
        double branching, branchless;
    } pairs[] = {{"exp", apo__exp(x), apo__exp_select(x)},
                 {"log", apo__log(x), apo__log_select(x)},
                 {"log10", apo__log10(x), apo__log10_select(x)},
                 {"sinh", apo__sinh(x), apo__sinh_select(x)},
                 {"cosh", apo__cosh(x), apo__cosh_select(x)},
                 {"tanh", apo__tanh(x), apo__tanh_select(x)}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        cr_assert(memcmp(&pairs[i].branching, &pairs[i].branchless, sizeof(double)) == 0,
                  "%s(%a): %a, branchless %a", pairs[i].name, x, pairs[i].branching,
                  pairs[i].branchless);
}

/* The block forms over a block of arguments against the branching forms at each, bit for bit:
 * apo__exp_block against apo__exp, apo__log_block against apo__log and apo__log10,
 * apo__sinh_block (cosh, tanh) against apo__sinh (apo__cosh, apo__tanh). */
_Static_assert(APO_EXP_BLOCK == APO_LOG_BLOCK, "one block of arguments serves both");
static void assert_block_bits(const double *x) {
    enum { FNS = 6 };
    static const char *const names[FNS] = {"exp", "log", "log10", "sinh", "cosh", "tanh"};
    double got[FNS][APO_EXP_BLOCK];
    apo__exp_block(x, got[0]);
    apo__log_block(x, got[1], 0);
    apo__log_block(x, got[2], 1);
    apo__sinh_block(x, got[3]);
    apo__cosh_block(x, got[4]);
    apo__tanh_block(x, got[5]);
    for (int i = 0; i < APO_EXP_BLOCK; i++) {
        const double want[FNS] = {apo__exp(x[i]),  apo__log(x[i]),  apo__log10(x[i]),
                                  apo__sinh(x[i]), apo__cosh(x[i]), apo__tanh(x[i])};
        for (int f = 0; f < FNS; f++)
            cr_assert(memcmp(&want[f], &got[f][i], sizeof(double)) == 0, "%s(%a): %a, block %a",
                      names[f], x[i], want[f], got[f][i]);
    }
}

/* The branchless forms (apo__exp_select, ..., apo__tanh_select) and the block forms
 * (apo__exp_block, ..., apo__tanh_block) give the branching forms' bits (a GPU runs the branching
 * forms, the avx2 and avx512 paths the others: the same outputs everywhere): on doubles of any bits
 * (NaNs, infinities, subnormals among them), on each function's range and past its thresholds, near
 * 1, and on the neighbours of the special values. */
Test(exp_log, the_branchless_forms_give_the_branching_forms_bits) {
    const double specials[] = {0.0, -0.0, DBL_MIN, 0x1p-1074, -1.0, 1.0, DBL_MAX, INFINITY,
                               -INFINITY, NAN, 0x1.62e42fefa39efp+9, -0x1.74910d52d3052p+9, -708.4,
                               0x1.6a09e667f3bcdp+0, 0x1.fffffffffffffp-1023, 22.0,
                               /* the arms' edges of sinh, cosh and tanh */
                               0x1p-28, 0.5 * 0x1.62e42feep-1, 0x1.633ce8fb9f87ep+9,
                               -0x1.633ce8fb9f87ep+9, -22.0, 11.0, -0x1p-28};
    size_t compared = 0, blocks = 0;
    double block[APO_EXP_BLOCK];
    for (int kind = 0; kind < 6; kind++)
        for (int i = 0; i < 20000; i++) {
            const uint64_t r = apo__splitmix64(0x5eed + (uint64_t)kind, (uint64_t)i);
            const double u = (double)(r >> 11) * 0x1p-53;
            double x;
            if (kind == 0)
                memcpy(&x, &r, sizeof x);
            else if (kind == 1)
                x = (u - 0.5) * 1500.0;
            else if (kind == 2)
                x = ldexp(u + 0.5, (int)(r % 2200) - 1100);
            else if (kind == 3)
                x = 1.0 + (u - 0.5) * 1e-6;
            else if (kind == 4)
                x = -ldexp(u + 0.5, (int)(r % 2200) - 1100);
            else
                x = nextafter(specials[r % (sizeof specials / sizeof specials[0])],
                              (r >> 40) & 1 ? INFINITY : -INFINITY);
            assert_same_bits(x);
            block[compared % APO_EXP_BLOCK] = x;
            if (++compared % APO_EXP_BLOCK == 0) {
                assert_block_bits(block);
                blocks++;
            }
        }
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        assert_same_bits(specials[i]);
        block[i % APO_EXP_BLOCK] = specials[i];
    }
    assert_block_bits(block); /* the specials, then the last kind's neighbours of them */
    cr_assert_eq(compared, 120000);
    cr_assert_eq(blocks, 120000 / APO_EXP_BLOCK);
}

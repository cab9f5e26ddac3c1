/*
 * exp_log_fixtures.c: see exp_log_fixtures.h.
 */
#include "exp_log_fixtures.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "exp_log.h"
#include "splitmix64.h"

static double call_exp(double x) { return apo__exp(x); }
static double call_expm1(double x) { return apo__expm1(x); }
static double call_log(double x) { return apo__log(x); }
static double call_log10(double x) { return apo__log10(x); }
static double call_sinh(double x) { return apo__sinh(x); }
static double call_cosh(double x) { return apo__cosh(x); }
static double call_tanh(double x) { return apo__tanh(x); }
static double call_exp_select(double x) { return apo__exp_select(x); }
static double call_log_select(double x) { return apo__log_select(x); }
static double call_log10_select(double x) { return apo__log10_select(x); }
static double call_sinh_select(double x) { return apo__sinh_select(x); }
static double call_cosh_select(double x) { return apo__cosh_select(x); }
static double call_tanh_select(double x) { return apo__tanh_select(x); }

const exp_log_fn exp_log_fns[] = {
    {"exp", call_exp, expl},
    {"expm1", call_expm1, expm1l},
    {"log", call_log, logl},
    {"log10", call_log10, log10l},
    {"sinh", call_sinh, sinhl},
    {"cosh", call_cosh, coshl},
    {"tanh", call_tanh, tanhl},
    /* The branchless forms of the vectorised loops: the same promise, and the bits of the
     * branching forms (test_exp_log.c checks that). */
    {"exp_select", call_exp_select, expl},
    {"log_select", call_log_select, logl},
    {"log10_select", call_log10_select, log10l},
    {"sinh_select", call_sinh_select, sinhl},
    {"cosh_select", call_cosh_select, coshl},
    {"tanh_select", call_tanh_select, tanhl},
};
const size_t n_exp_log_fns = sizeof exp_log_fns / sizeof exp_log_fns[0];

const exp_log_fn *exp_log_fn_named(const char *name) {
    for (size_t i = 0; i < n_exp_log_fns; i++)
        if (strcmp(exp_log_fns[i].name, name) == 0)
            return &exp_log_fns[i];
    return NULL;
}

double exp_log_ulps(double got, long double want) {
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got) ? 0.0 : INFINITY;
    /* A result past DBL_MAX by half its unit or more rounds to an infinity; an infinity
     * given for a smaller one is measured as 2^1024. */
    const long double unit_max = ldexpl(1.0L, 1023 - 52);
    if (isinf(got) || isinf(want)) {
        if ((long double)got == want)
            return 0.0;
        if (!isinf(got) || !signbit(got) != !signbit(want))
            return INFINITY;
        const long double over = fabsl(want) - (long double)DBL_MAX;
        return over >= unit_max / 2 ? 0.0 : (double)((unit_max - over) / unit_max);
    }
    const long double a = fabsl(want);
    int e;
    frexpl(a, &e); /* a in [2^(e-1), 2^e) */
    int unit_exp = e - 1 - 52;
    if (unit_exp < -1074)
        unit_exp = -1074;
    return (double)(fabsl((long double)got - want) / ldexpl(1.0L, unit_exp));
}

/* A double from the counter i of seed: a uniform exponent in [lo_exp, hi_exp] and random
 * bits below it. */
static double sweep_point(uint64_t seed, size_t i, int lo_exp, int hi_exp, int both_signs) {
    const uint64_t bits = apo__splitmix64(seed, i);
    const int span = hi_exp - lo_exp + 1;
    const int e = lo_exp + (int)((bits >> 53) % (uint64_t)span);
    const double m = 1.0 + (double)(bits & ((1ULL << 52) - 1)) * 0x1p-52;
    const double x = ldexp(m, e);
    return both_signs && ((bits >> 52) & 1) ? -x : x;
}

double exp_log_sweep(const exp_log_fn *f, uint64_t seed, size_t n, int lo_exp, int hi_exp,
                     int both_signs, double *at) {
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double x = sweep_point(seed, i, lo_exp, hi_exp, both_signs);
        const double u = exp_log_ulps(f->fn(x), f->ref((long double)x));
        if (u > worst || isnan(u)) {
            worst = u;
            *at = x;
        }
    }
    return worst;
}

double exp_log_sweep_linear(const exp_log_fn *f, uint64_t seed, size_t n, double lo, double hi,
                            double *at) {
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double u01 = (double)(apo__splitmix64(seed, i) >> 11) * 0x1p-53;
        const double x = lo + (hi - lo) * u01;
        const double u = exp_log_ulps(f->fn(x), f->ref((long double)x));
        if (u > worst || isnan(u)) {
            worst = u;
            *at = x;
        }
    }
    return worst;
}

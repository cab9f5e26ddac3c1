/*
 * exp_log_fixtures.h: what the tests of kernels/common/exp_log.h share (test_exp_log.c, the
 * unit suite's few ten-thousand points, and test_exp_log_slow.c, the dense sweeps): each
 * function beside its long-double reference from libm (expl, logl, ...), an error in units
 * of the last place of the double result, and seeded sweeps of arguments.
 */
#ifndef APO_TEST_EXP_LOG_FIXTURES_H
#define APO_TEST_EXP_LOG_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* A function of exp_log.h and its reference. */
typedef struct exp_log_fn {
    const char *name;
    double (*fn)(double);
    long double (*ref)(long double);
} exp_log_fn;

extern const exp_log_fn exp_log_fns[];
extern const size_t n_exp_log_fns;

/* The distance of got from want in units of the last place of a double at want (the
 * subnormals' unit below DBL_MIN); 0 when both are the same infinity, NaN or zero, and
 * INFINITY when one is non-finite and the other is not (or is another). */
double exp_log_ulps(double got, long double want);

/* The worst ulps of f over n arguments of magnitude 2^lo_exp to 2^hi_exp (the exponents
 * uniform, the bits below them random, both signs when `both_signs`), from seed; *at gets the
 * worst argument. */
double exp_log_sweep(const exp_log_fn *f, uint64_t seed, size_t n, int lo_exp, int hi_exp,
                     int both_signs, double *at);

/* The worst ulps of f over n arguments uniform in [lo, hi], from seed. */
double exp_log_sweep_linear(const exp_log_fn *f, uint64_t seed, size_t n, double lo, double hi,
                            double *at);

/* The function of exp_log_fns called name. */
const exp_log_fn *exp_log_fn_named(const char *name);

#endif

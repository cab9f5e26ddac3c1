/*
 * test_exp_log_slow.c: the dense sweeps of kernels/common/exp_log.h (the slow suite; the
 * special values and a few thousand points are test_exp_log.c's): a million seeded arguments a
 * function and range against long double, within 2 ulps. The worst measured is printed on
 * stderr; docs/kernels.md quotes it.
 */
#include <criterion/criterion.h>

#include <stdio.h>

#include "exp_log_fixtures.h"

Test(exp_log, within_two_ulps_on_dense_sweeps, .timeout = 900) {
    const struct {
        const char *name;
        int lo_exp, hi_exp, both_signs;
        double lo, hi;
    } sweeps[] = {
        {"exp", -80, 9, 1, -745.2, 709.8},         {"expm1", -80, 9, 1, -50.0, 709.8},
        {"log", -1074, 1023, 0, 0.25, 4.0},        {"log10", -1074, 1023, 0, 0.25, 4.0},
        {"sinh", -80, 9, 1, -711.0, 711.0},        {"cosh", -80, 9, 1, -711.0, 711.0},
        {"tanh", -80, 5, 1, -25.0, 25.0},          {"exp_select", -80, 9, 1, -745.2, 709.8},
        {"log_select", -1074, 1023, 0, 0.25, 4.0}, {"log10_select", -1074, 1023, 0, 0.25, 4.0},
        {"sinh_select", -80, 9, 1, -711.0, 711.0}, {"cosh_select", -80, 9, 1, -711.0, 711.0},
        {"tanh_select", -80, 5, 1, -25.0, 25.0},
    };
    for (size_t s = 0; s < sizeof sweeps / sizeof sweeps[0]; s++) {
        const exp_log_fn *f = exp_log_fn_named(sweeps[s].name);
        cr_assert_not_null(f);
        double at = 0.0, at_line = 0.0;
        const double w = exp_log_sweep(f, 1000 + s, 1000000, sweeps[s].lo_exp, sweeps[s].hi_exp,
                                       sweeps[s].both_signs, &at);
        const double w_line =
            exp_log_sweep_linear(f, 2000 + s, 1000000, sweeps[s].lo, sweeps[s].hi, &at_line);
        fprintf(stderr,
                "exp_log %s: worst %.3f ulps at %a (magnitudes), %.3f ulps at %a (linear)\n",
                f->name, w, at, w_line, at_line);
        cr_assert(w <= 2.0, "%s: %g ulps at %a", f->name, w, at);
        cr_assert(w_line <= 2.0, "%s: %g ulps at %a", f->name, w_line, at_line);
    }
}

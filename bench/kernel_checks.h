/*
 * kernel_checks.h: what apo-bench-kernels checks before it times a configuration. Each
 * function returns how many output elements are wrong: against the same call on other
 * devices (bitwise), or at sampled positions against a long-double evaluation of the
 * definition, with the tolerances docs/PERF.md states.
 */
#ifndef APO_BENCH_KERNEL_CHECKS_H
#define APO_BENCH_KERNEL_CHECKS_H

#include <stddef.h>

/* Elements of the n_out outputs (len[o] each) whose bits differ between a and b. */
long bench_compare_bitwise(double *const *a, double *const *b, const size_t *len, size_t n_out);

/* bollinger(20, 2, 2) of rows x cols input x (tiles of `tile`), at sampled positions. */
long bench_check_bollinger(const double *x, size_t rows, size_t cols, size_t tile,
                           double *const *out);
/* macd(12, 26, 9) along sampled rows. */
long bench_check_macd(const double *x, size_t rows, size_t cols, double *const *out);
/* returns_stats on sampled rows. */
long bench_check_returns_stats(const double *x, size_t rows, size_t cols, double *const *out);
/* copy3: each of the three outputs is the input, n values. */
long bench_check_copy3(const double *x, size_t n, double *const *out);

#endif

/*
 * reference.h: test data and independent references for the kernel tests.
 *
 * The references are deliberately naive: long-double, whole-series, straight from the
 * definitions in docs/kernels.md, with no tiles, no sliding and no shared code
 * with kernels/. Runtime tests may reuse them to check results end to end.
 */
#ifndef APO_TEST_REFERENCE_H
#define APO_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Seeded random walk: out[i] = start + step * B(i) for i in [0, n), where B is a Brownian
 * path sampled at integer times (B(0) = 0, increments of mean 0 and variance about 1).
 * B is built as a dyadic Brownian bridge over [0, 2^40] whose node values are derived from
 * (seed, node index) alone, so every sample is a function of (seed, i) and any slice can be
 * generated alone, bit-identical to the same indices of a longer walk. Only +, *, and
 * sqrt of powers of two are used, so the bits do not depend on the libm. n <= 2^40.
 */
void apo__test_random_walk(uint64_t seed, size_t n, double start, double step, double *out);

/* The slice [begin, end) of the same walk: out[0] = x[begin], ... out[end-begin-1]. */
void apo__test_random_walk_slice(uint64_t seed, size_t begin, size_t end, double start, double step,
                                 double *out);

/* A uniform double in [0, 1) that is a function of (seed, index) alone. */
double apo__test_uniform(uint64_t seed, uint64_t index);

/*
 * Bollinger reference: for each t >= period - 1, a long-double two-pass over the window
 * x[t-period+1 .. t] (population sd), rounded to double at the end. A window with a
 * non-finite sample gives NaN bands and middle NaN (any NaN, or both infinities) or the
 * infinity present. Earlier positions are NaN. O(n * period).
 */
void apo__ref_bollinger(const double *x, size_t n, size_t period, double nbdev_up, double nbdev_dn,
                        double *upper, double *middle, double *lower);

/* The reference standard deviation alone, same windows and policy (NaN where undefined). */
void apo__ref_bollinger_sd(const double *x, size_t n, size_t period, double *sd);

/*
 * MACD reference: the sequential definition on the whole series, in long double (TA-Lib
 * seeding, fast > slow swapped), with the gap policy of docs/kernels.md: non-finite samples
 * give NaN outputs and are skipped by the seeds and the EMAs.
 */
void apo__ref_macd(const double *x, size_t n, size_t fast, size_t slow, size_t signal, double *macd,
                   double *signal_line, double *hist);

/* Long-double moments of a set of values. */
typedef struct apo__ref_moments {
    long double count, mean, m2, min, max;
} apo__ref_moments;

/*
 * Two-pass long-double moments of v[0 .. n). With finite_only, non-finite values are
 * skipped; otherwise they enter (and NaN propagates into mean and m2). Empty: count 0,
 * mean and m2 NaN, min and max NaN.
 */
void apo__ref_moments_of(const double *v, size_t n, int finite_only, apo__ref_moments *out);

/* The simple returns r[t-1] = x[t] / x[t-1] - 1 for t in [1, n), in double (n - 1 values). */
void apo__ref_returns(const double *x, size_t n, double *r);

#endif /* APO_TEST_REFERENCE_H */

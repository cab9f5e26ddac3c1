/*
 * kernel_checks.c: apo-bench-kernels' correctness checks, made before anything is timed
 * (see kernel_checks.h).
 */
#include <math.h>
#include <string.h>

#include "kernel_checks.h"
#include "splitmix64.h"

long bench_compare_bitwise(double *const *a, double *const *b, const size_t *len, size_t n_out) {
    long wrong = 0;
    for (size_t o = 0; o < n_out; o++) {
        long w = 0;
#pragma omp parallel for schedule(static) reduction(+ : w)
        for (long long i = 0; i < (long long)len[o]; i++)
            w += memcmp(&a[o][i], &b[o][i], sizeof(double)) != 0;
        wrong += w;
    }
    return wrong;
}

static int rel_wrong(long double got, long double ref, long double tol) {
    long double err = fabsl(got - ref);
    long double scale = fabsl(ref) > 0 ? fabsl(ref) : 1.0L;
    return !(err <= tol * scale);
}

/* The rows a reference check looks at: first, middle, last. */
static size_t sample_rows(size_t rows, size_t out[3]) {
    size_t n = 0;
    size_t cand[3] = {0, rows / 2, rows - 1};
    for (int i = 0; i < 3; i++)
        if (n == 0 || cand[i] != out[n - 1])
            out[n++] = cand[i];
    return n;
}

/* Bollinger(20, 2, 2) at sampled positions against the naive two-pass window in long
 * double: positions around the first valid index and the tile boundaries, and pseudo-random
 * ones. Relative error above 1e-10 in upper, middle or lower counts as wrong. */
long bench_check_bollinger(const double *x, size_t rows, size_t cols, size_t tile,
                           double *const *out) {
    const size_t p = 20;
    long wrong = 0;
    size_t rs[3], nr = sample_rows(rows, rs);
    for (size_t ri = 0; ri < nr; ri++) {
        const double *xr = x + rs[ri] * cols;
        const size_t off = rs[ri] * cols;
        size_t pos[48], np = 0;
        const size_t fixed[] = {0,        p - 2,    p - 1,        p,        tile - 1,
                                tile,     tile + 1, 2 * tile - 1, 2 * tile, 2 * tile + 1,
                                cols / 2, cols - 2, cols - 1};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            if (fixed[i] < cols)
                pos[np++] = fixed[i];
        const uint64_t seed = 0x1234567u + rs[ri];
        for (uint64_t draw = 0; np < sizeof pos / sizeof pos[0]; draw++)
            pos[np++] = (size_t)(apo__splitmix64(seed, draw) % cols);
        for (size_t k = 0; k < np; k++) {
            size_t t = pos[k];
            double u = out[0][off + t], m = out[1][off + t], l = out[2][off + t];
            if (t + 1 < p) {
                wrong += !isnan(u) + !isnan(m) + !isnan(l);
                continue;
            }
            long double sum = 0;
            for (size_t j = t + 1 - p; j <= t; j++)
                sum += xr[j];
            long double mean = sum / (long double)p, m2 = 0;
            for (size_t j = t + 1 - p; j <= t; j++)
                m2 += ((long double)xr[j] - mean) * ((long double)xr[j] - mean);
            long double sd = sqrtl(m2 / (long double)p);
            wrong += rel_wrong(u, mean + 2 * sd, 1e-10L) + rel_wrong(m, mean, 1e-10L) +
                     rel_wrong(l, mean - 2 * sd, 1e-10L);
        }
    }
    return wrong;
}

/* MACD(12, 26, 9) along whole sampled rows against TA-Lib's definition evaluated in long
 * double: NaN before index 33, then macd, signal and hist within 1e-10 of the price scale
 * |x[t]| (the tiles restart their EMAs from a warm-up whose seed influence is < 2^-64). */
long bench_check_macd(const double *x, size_t rows, size_t cols, double *const *out) {
    const size_t fast = 12, slow = 26, sig = 9, first = slow + sig - 2;
    const long double kf = 2.0L / 13, ks = 2.0L / 27, kg = 2.0L / 10;
    long wrong = 0;
    size_t rs[3], nr = sample_rows(rows, rs);
    for (size_t ri = 0; ri < nr; ri++) {
        const double *xr = x + rs[ri] * cols;
        const size_t off = rs[ri] * cols;
        long double es = 0, ef = 0, eg = 0, sum_m = 0;
        for (size_t t = 0; t < cols; t++) {
            if (t + 1 < slow) {
                /* Nothing yet; the seeds are plain means at t = slow - 1. */
            } else if (t + 1 == slow) {
                for (size_t j = 0; j < slow; j++) {
                    es += xr[j];
                    if (j >= slow - fast)
                        ef += xr[j];
                }
                es /= (long double)slow;
                ef /= (long double)fast;
                sum_m = ef - es;
            } else {
                ef = (xr[t] - ef) * kf + ef;
                es = (xr[t] - es) * ks + es;
                if (t < first) {
                    sum_m += ef - es;
                } else if (t == first) {
                    sum_m += ef - es;
                    eg = sum_m / (long double)sig;
                } else {
                    eg = ((ef - es) - eg) * kg + eg;
                }
            }
            double m = out[0][off + t], g = out[1][off + t], h = out[2][off + t];
            if (t < first) {
                wrong += !isnan(m) + !isnan(g) + !isnan(h);
                continue;
            }
            long double tol = 1e-10L * fabsl((long double)xr[t]);
            long double rm = ef - es;
            wrong +=
                !(fabsl(m - rm) <= tol) + !(fabsl(g - eg) <= tol) + !(fabsl(h - (rm - eg)) <= tol);
        }
    }
    return wrong;
}

/* returns_stats on sampled rows against a two-pass evaluation in long double of the same
 * double-precision returns: count, min and max exact, variance within 1e-10 relative, mean
 * within 1e-10 of the standard deviation (the mean of returns is near zero). */
long bench_check_returns_stats(const double *x, size_t rows, size_t cols, double *const *out) {
    long wrong = 0;
    size_t rs[3], nr = sample_rows(rows, rs);
    for (size_t ri = 0; ri < nr; ri++) {
        const double *xr = x + rs[ri] * cols;
        long double sum = 0, m2 = 0;
        double mn = INFINITY, mx = -INFINITY, count = 0;
        for (size_t t = 1; t < cols; t++) {
            double r = xr[t] / xr[t - 1] - 1.0;
            sum += r;
            count += 1;
            mn = r < mn ? r : mn;
            mx = r > mx ? r : mx;
        }
        long double mean = sum / count;
        for (size_t t = 1; t < cols; t++) {
            long double d = (long double)(xr[t] / xr[t - 1] - 1.0) - mean;
            m2 += d * d;
        }
        size_t r = rs[ri];
        if (count < 2) {
            wrong += out[0][r] != count;
            continue;
        }
        long double var = m2 / (count - 1);
        wrong += out[0][r] != count;
        wrong += !(fabsl(out[1][r] - mean) <= 1e-10L * sqrtl(var));
        wrong += rel_wrong(out[2][r], var, 1e-10L);
        wrong += out[3][r] != mn;
        wrong += out[4][r] != mx;
    }
    return wrong;
}

/* copy3: every output equals the input bit for bit. */
long bench_check_copy3(const double *x, size_t n, double *const *out) {
    long wrong = 0;
    for (int o = 0; o < 3; o++)
        for (size_t i = 0; i < n; i++)
            wrong += memcmp(&x[i], &out[o][i], sizeof(double)) != 0;
    return wrong;
}

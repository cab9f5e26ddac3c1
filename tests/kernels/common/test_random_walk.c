/*
 * Unit tests of the one seeded random walk (kernels/common/random_walk.c) and of the SplitMix64 it
 * draws from (kernels/common/splitmix64.h): the default input of `apportion run`, of profiling and
 * of the benchmarks. The walk's bits are also pinned by scripts/output-hashes.sh, through
 * the outputs of `apportion run`.
 */
#include "random_walk.h"
#include "splitmix64.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

Test(random_walk, splitmix64_gives_the_published_values, .timeout = 60) {
    /* Outputs 0 and 1 of Vigna's generator seeded with 0, and outputs 0 to 4 of the one
     * seeded with 1234567 (the values Rosetta Code's "Splitmix64" task publishes). */
    cr_assert_eq(apo__splitmix64(0, 0), UINT64_C(0xe220a8397b1dcdaf));
    cr_assert_eq(apo__splitmix64(0, 1), UINT64_C(0x6e789e6aa1b965f4));
    const uint64_t want[] = {UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),
                             UINT64_C(9817491932198370423), UINT64_C(4593380528125082431),
                             UINT64_C(16408922859458223821)};
    for (uint64_t i = 0; i < 5; i++)
        cr_assert_eq(apo__splitmix64(1234567, i), want[i], "output %llu", (unsigned long long)i);
}

Test(random_walk, is_keyed_by_seed_and_index, .timeout = 60) {
    double a[2 * 50], b[50];
    apo__random_walk(a, 2, 50, 7);
    apo__random_walk(b, 1, 50, 7);
    cr_assert(memcmp(a, b, sizeof b) == 0);
    for (size_t i = 0; i < 100; i++) {
        const double prev = i % 50 == 0 ? 100.0 : a[i - 1];
        cr_assert(fabs(a[i] - prev) < 1.0 && a[i] != prev, "step %zu", i);
    }
    /* Row 1 starts again at 100 and uses the global indices 50..99: the step is the top 53
     * bits k of draw 50, (2k + 1 - 2^53) / 2^53. */
    const uint64_t k = apo__splitmix64(7, 50) >> 11;
    const double step = (double)((int64_t)(2 * k + 1) - ((int64_t)1 << 53)) * 0x1p-53;
    cr_assert(a[50] == 100.0 + step);
    double c[50];
    apo__random_walk(c, 1, 50, 8);
    cr_assert(memcmp(b, c, sizeof c) != 0);
}

Test(random_walk, a_shorter_row_is_a_prefix_of_a_longer_one, .timeout = 60) {
    /* Profiling and the benchmarks generate the largest size once and run smaller sizes on
     * its prefix, which is the walk they would have generated at that size. */
    double longer[1000], shorter[333];
    apo__random_walk(longer, 1, 1000, 42);
    apo__random_walk(shorter, 1, 333, 42);
    cr_assert(memcmp(longer, shorter, sizeof shorter) == 0);
}

Test(random_walk, steps_are_uniform_in_minus_one_one, .timeout = 60) {
    /* The steps of a fixed seed: mean 0 and variance 1/3 of the uniform law on (-1, 1),
     * within about 6 standard errors for 100000 steps. */
    enum { N = 100000 };
    static double x[N];
    apo__random_walk(x, 1, N, 3);
    double sum = 0.0, sum_sq = 0.0;
    for (size_t i = 0; i < N; i++) {
        const double s = x[i] - (i == 0 ? 100.0 : x[i - 1]);
        cr_assert(s > -1.0 && s < 1.0, "step %zu is %.17g", i, s);
        sum += s;
        sum_sq += s * s;
    }
    const double mean = sum / N, var = sum_sq / N - mean * mean;
    cr_assert(fabs(mean) < 0.011, "mean %g", mean);
    cr_assert(fabs(var - 1.0 / 3.0) < 0.006, "variance %g", var);
}

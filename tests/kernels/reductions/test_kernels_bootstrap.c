/*
 * The bootstrap kernel and its Philox generator (docs/kernels.md): Philox's known answers, exact
 * 64-bit high products, bootstrap draws recomputed independently, its statistics, its keying by
 * seed, row and replicate, non-finite returns propagated; and the seeded random walk's slices
 * against the whole walk. test_kernels.c has the other kernels; kernels_fixtures.c what both share.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "reference.h"

/* ---- Helpers ------------------------------------------------------------------------ */

#include "kernels_fixtures.h"

/* ---- Philox and bootstrap ----------------------------------------------------------- */

Test(kernels, philox_known_answers, .timeout = 60) {
    struct {
        uint32_t ctr[4], key[2], want[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t i = 0; i < sizeof kat / sizeof *kat; ++i) {
        uint32_t out[4];
        apo__cpu_philox4x32_10(kat[i].ctr, kat[i].key, out);
        for (int w = 0; w < 4; ++w) {
            cr_assert_eq(out[w], kat[i].want[w], "vector %zu word %d: %08x want %08x", i, w, out[w],
                         kat[i].want[w]);
        }
    }
}

Test(kernels, mulhi64_exact_products, .timeout = 60) {
    const uint64_t max = UINT64_MAX;
    /* (2^64 - 1)^2 = 2^128 - 2^65 + 1: high word 2^64 - 2. */
    cr_assert_eq(apo__cpu_mulhi64(max, max), max - 1);
    /* (2^64 - 1) * b = b * 2^64 - b: high word b - 1 for b > 0. */
    cr_assert_eq(apo__cpu_mulhi64(max, 12345), 12344);
    cr_assert_eq(apo__cpu_mulhi64(12345, max), 12344);
    cr_assert_eq(apo__cpu_mulhi64(0, max), 0);
    cr_assert_eq(apo__cpu_mulhi64(1, max), 0);
    /* (2^32 + 1)^2 = 2^64 + 2^33 + 1: high word 1. */
    cr_assert_eq(apo__cpu_mulhi64(0x100000001u, 0x100000001u), 1);
    /* (2^32 - 1)^2 < 2^64. */
    cr_assert_eq(apo__cpu_mulhi64(0xFFFFFFFFu, 0xFFFFFFFFu), 0);
    /* Multiplying by 2^k shifts: the high word is a >> (64 - k). */
    for (int k = 1; k < 64; ++k) {
        const uint64_t a = 0x9E3779B97F4A7C15u;
        cr_assert_eq(apo__cpu_mulhi64(a, (uint64_t)1 << k), a >> (64 - k), "k %d", k);
    }
    /* 2^63 * 3 = 2^64 + 2^63: high word 1; (2^63 + 1) * (2^63 + 1) = 2^126 + 2^64 + 1. */
    cr_assert_eq(apo__cpu_mulhi64((uint64_t)1 << 63, 3), 1);
    cr_assert_eq(apo__cpu_mulhi64(((uint64_t)1 << 63) + 1, ((uint64_t)1 << 63) + 1),
                 ((uint64_t)1 << 62) + 1);
    /* Products of two 32-bit-limb numbers against a 16-bit-limb schoolbook product. */
    for (uint64_t i = 0; i < 2000; ++i) {
        const uint64_t a = (uint64_t)(apo__test_uniform(1, i) * 0x1.0p53) << 11 | (i & 0x7FF);
        const uint64_t b = (uint64_t)(apo__test_uniform(2, i) * 0x1.0p53) << 11 | (i >> 3 & 0x7FF);
        uint32_t limbs[8] = {0};
        for (int x = 0; x < 4; ++x) {
            uint64_t carry = 0;
            for (int y = 0; y < 4; ++y) {
                const uint64_t p =
                    ((a >> (16 * x)) & 0xFFFF) * ((b >> (16 * y)) & 0xFFFF) + limbs[x + y] + carry;
                limbs[x + y] = (uint32_t)(p & 0xFFFF);
                carry = p >> 16;
            }
            for (int z = x + 4; carry != 0 && z < 8; ++z) {
                const uint64_t p = limbs[z] + carry;
                limbs[z] = (uint32_t)(p & 0xFFFF);
                carry = p >> 16;
            }
        }
        const uint64_t hi = (uint64_t)limbs[4] | (uint64_t)limbs[5] << 16 |
                            (uint64_t)limbs[6] << 32 | (uint64_t)limbs[7] << 48;
        cr_assert_eq(apo__cpu_mulhi64(a, b), hi, "a %016llx b %016llx", (unsigned long long)a,
                     (unsigned long long)b);
    }
}

/* The draws of replicate b recomputed from the documented generator layout. */
static long double recompute_replicate(const double *x, size_t n, uint64_t seed, uint64_t row,
                                       size_t b, size_t *hits_of) {
    const uint64_t m = n - 1;
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    long double sum = 0.0L;
    for (uint64_t j = 0; j < m; ++j) {
        const uint32_t ctr[4] = {(uint32_t)(j >> 1), (uint32_t)(j >> 33), (uint32_t)b,
                                 (uint32_t)row};
        uint32_t out[4];
        apo__cpu_philox4x32_10(ctr, key, out);
        const uint64_t u =
            (j & 1) == 0 ? (out[0] | (uint64_t)out[1] << 32) : (out[2] | (uint64_t)out[3] << 32);
        const uint64_t k = apo__cpu_mulhi64(u, m);
        cr_assert(k < m);
        if (hits_of != NULL) {
            ++hits_of[k];
        }
        sum += (long double)x[k + 1] / (long double)x[k] - 1.0L;
    }
    return sum / (long double)m;
}

static void run_bootstrap(const double *x, size_t n, uint64_t seed, uint64_t row, size_t reps,
                          int order, double *means) {
    const size_t len = apo__bootstrap_tile_len();
    const size_t count = tile_count(reps, len);
    for (size_t i = 0; i < count; ++i) {
        const size_t tile = tile_at(i, count, order);
        const size_t b = tile * len, e = b + len < reps ? b + len : reps;
        apo__cpu_bootstrap_tile(x, n, seed, row, b, e, means);
    }
}

Test(kernels, bootstrap_matches_recomputed_draws, .timeout = 60) {
    const size_t lengths[] = {2, 3, 4, 1001, 4096};
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li) {
        const size_t n = lengths[li], reps = 21;
        double *x = alloc_doubles(n), *means = alloc_doubles(reps);
        apo__test_random_walk(70 + li, n, 100.0, 0.3, x);
        run_bootstrap(x, n, 0x0123456789ABCDEFu, 5, reps, 0, means);
        for (size_t b = 0; b < reps; ++b) {
            const long double want = recompute_replicate(x, n, 0x0123456789ABCDEFu, 5, b, NULL);
            const double scale = fmax(fabs((double)want), 1e-3);
            cr_assert(fabs(means[b] - (double)want) <= 1e-12 * scale,
                      "n %zu b %zu: %.17g vs %.17Lg", n, b, means[b], want);
        }
        free(x), free(means);
    }
}

Test(kernels, bootstrap_statistics_are_sound, .timeout = 60) {
    const size_t n = 20001, m = n - 1, reps = 2000;
    double *x = alloc_doubles(n), *means = alloc_doubles(reps), *r = alloc_doubles(m);
    apo__test_random_walk(2024, n, 100.0, 0.1, x);
    run_bootstrap(x, n, 42, 0, reps, 0, means);
    const size_t len = apo__bootstrap_tile_len();
    cr_assert_eq(len, 8);
    apo__moments parts[(2000 + 7) / 8];
    const size_t count = tile_count(reps, len);
    for (size_t i = 0; i < count; ++i) {
        const size_t b = i * len, e = b + len < reps ? b + len : reps;
        apo__cpu_bootstrap_tile_moments(means, b, e, &parts[i]);
    }
    apo__moments root = merge_tree(parts, 0, count);
    double mean, se;
    apo__bootstrap_finalize(&root, &mean, &se);

    apo__ref_returns(x, n, r);
    apo__ref_moments rm;
    apo__ref_moments_of(r, m, 0, &rm);
    const double pop_sd = sqrt((double)(rm.m2 / rm.count));
    const double want_se = pop_sd / sqrt((double)m);
    /* The mean of B replicate means scatters around the sample mean by want_se / sqrt(B). */
    const double z = fabs(mean - (double)rm.mean) / (want_se / sqrt((double)reps));
    cr_assert(z <= 5.0, "mean of means %.6g vs %.6Lg: %.2f standard errors", mean, rm.mean, z);
    cr_assert(fabs(se / want_se - 1.0) <= 0.10, "std_error %.6g vs %.6g", se, want_se);

    apo__ref_moments mm;
    apo__ref_moments_of(means, reps, 0, &mm);
    cr_assert(rel_err(mean, (double)mm.mean) <= 1e-12 &&
                  rel_err(se, (double)sqrtl(mm.m2 / (mm.count - 1.0L))) <= 1e-12,
              "finalize vs long-double moments of the means");
    fprintf(stderr, "bootstrap B=2000 m=20000: z = %.2f, std_error / expected = %.4f\n", z,
            se / want_se);
    free(x), free(means), free(r);
}

Test(kernels, bootstrap_is_keyed_by_seed_row_and_replicate, .timeout = 60) {
    const size_t n = 3000, reps = 37;
    double *x = alloc_doubles(n);
    apo__test_random_walk(9, n, 100.0, 0.3, x);
    double *a = alloc_doubles(reps), *b = alloc_doubles(reps), *c = alloc_doubles(reps),
           *d = alloc_doubles(reps);
    run_bootstrap(x, n, 777, 3, reps, 0, a);
    run_bootstrap(x, n, 777, 3, reps, 1, b);
    cr_assert(memcmp(a, b, reps * sizeof(double)) == 0, "tile order changed the bits");
    run_bootstrap(x, n, 777, 3, reps, 2, b);
    cr_assert(memcmp(a, b, reps * sizeof(double)) == 0, "tile order changed the bits");
    run_bootstrap(x, n, 778, 3, reps, 0, c);
    run_bootstrap(x, n, 777, 4, reps, 0, d);
    for (size_t i = 0; i < reps; ++i) {
        cr_assert(a[i] != c[i], "a different seed must give different replicates (%zu)", i);
        cr_assert(a[i] != d[i], "a different row must give different replicates (%zu)", i);
        for (size_t j = 0; j < i; ++j) {
            cr_assert(a[i] != a[j], "replicates %zu and %zu coincide", i, j);
        }
    }
    /* The high half of a 64-bit seed matters too. */
    run_bootstrap(x, n, 777 + ((uint64_t)1 << 40), 3, reps, 0, c);
    cr_assert(a[0] != c[0]);
    free(x), free(a), free(b), free(c), free(d);
}

Test(kernels, bootstrap_nonfinite_returns_propagate, .timeout = 60) {
    const size_t n = 200, m = n - 1, reps = 64;
    double *x = alloc_doubles(n), *means = alloc_doubles(reps);
    apo__test_random_walk(13, n, 100.0, 0.3, x);
    x[50] = NAN; /* returns 49 and 50 are NaN */
    run_bootstrap(x, n, 5, 0, reps, 0, means);
    size_t *hits = calloc(m, sizeof *hits);
    cr_assert_not_null(hits);
    size_t spoiled = 0;
    for (size_t b = 0; b < reps; ++b) {
        memset(hits, 0, m * sizeof *hits);
        recompute_replicate(x, n, 5, 0, b, hits);
        const int draws_nan = hits[49] > 0 || hits[50] > 0;
        spoiled += (size_t)draws_nan;
        cr_assert(draws_nan ? isnan(means[b]) : isfinite(means[b]), "replicate %zu", b);
    }
    /* With 199 draws from 199 returns, about 86% of replicates draw one of the two. */
    cr_assert(spoiled > 0 && spoiled < reps, "spoiled %zu of %zu", spoiled, reps);
    apo__moments mo;
    apo__cpu_bootstrap_tile_moments(means, 0, reps, &mo);
    double mean, se;
    apo__bootstrap_finalize(&mo, &mean, &se);
    cr_assert(isnan(mean) && isnan(se));
    apo__cpu_bootstrap_tile_moments(means, 0, 1, &mo);
    apo__bootstrap_finalize(&mo, &mean, &se);
    cr_assert(isnan(se), "one replicate has no standard error");
    free(x), free(means), free(hits);
}

/* ---- Test data ---------------------------------------------------------------------- */

Test(kernels, random_walk_slices_match_the_whole_walk, .timeout = 60) {
    const size_t n = 70000;
    double *x = alloc_doubles(n), *part = alloc_doubles(n);
    apo__test_random_walk(123, n, 100.0, 0.5, x);
    cr_assert(x[0] == 100.0, "the walk starts at start");
    const size_t cuts[][2] = {{0, 1},         {1, 2},         {5, 4101},
                              {65535, 65537}, {69999, 70000}, {12345, 70000}};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; ++i) {
        const size_t b = cuts[i][0], e = cuts[i][1];
        apo__test_random_walk_slice(123, b, e, 100.0, 0.5, part);
        cr_assert(memcmp(part, x + b, (e - b) * sizeof(double)) == 0, "slice [%zu, %zu)", b, e);
    }
    /* Increments have mean about 0 and variance about step^2; another seed differs. */
    long double s = 0.0L, q = 0.0L;
    for (size_t t = 1; t < n; ++t) {
        const long double d = ((long double)x[t] - x[t - 1]) / 0.5L;
        s += d;
        q += d * d;
    }
    const double var = (double)(q / (n - 1) - (s / (n - 1)) * (s / (n - 1)));
    cr_assert(fabs(var - 1.0) < 0.05, "increment variance %g", var);
    apo__test_random_walk(124, n, 100.0, 0.5, part);
    cr_assert(part[1000] != x[1000]);
    free(x), free(part);
}

/*
 * Unit tests of the portable trigonometry (kernels/common/trig.h): its special values and
 * bounds exactly, its symmetries bit for bit, and its accuracy on a few ten-thousand seeded
 * points of each function's domain against glibc's long-double functions (trig_sweep.c).
 * test_trig_slow.c sweeps millions. atan, asin, acos, sin, cos and tan in vector lanes (trig_tv.h)
 * against the scalar forms, bit for bit.
 */
#include "splitmix64.h"
#include "trig.h"
#include "trig_sweep.h"
#include "trig_tv.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const trig_names[] = {"sin", "cos", "tan", "atan", "asin", "acos"};

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(trig, keeps_the_sign_of_zero_and_the_exact_values, .timeout = 60) {
    cr_assert(same_bits(apo__sin(0.0), 0.0) && same_bits(apo__sin(-0.0), -0.0));
    cr_assert(same_bits(apo__tan(-0.0), -0.0) && same_bits(apo__atan(-0.0), -0.0));
    cr_assert(same_bits(apo__asin(-0.0), -0.0) && same_bits(apo__asin(0.0), 0.0));
    cr_assert(apo__cos(0.0) == 1.0 && apo__cos(-0.0) == 1.0);
    cr_assert(apo__acos(1.0) == 0.0);
    /* The doubles nearest pi/2 and pi, where they are the correctly rounded results. */
    const double pio2 = 0x1.921fb54442d18p+0, pi = 0x1.921fb54442d18p+1;
    cr_assert(apo__asin(1.0) == pio2 && apo__asin(-1.0) == -pio2);
    cr_assert(apo__acos(-1.0) == pi && apo__acos(0.0) == pio2);
    cr_assert(apo__atan(INFINITY) == pio2 && apo__atan(-INFINITY) == -pio2);
    cr_assert(apo__atan(1.0) == 0x1.921fb54442d18p-1 && apo__atan(0x1p300) == pio2);
    /* Tiny arguments: sin x and tan x round to x, cos x to 1, subnormals included. */
    cr_assert(apo__sin(0x1p-1074) == 0x1p-1074 && apo__tan(-0x1p-30) == -0x1p-30);
    cr_assert(apo__cos(0x1p-28) == 1.0 && apo__atan(0x1p-1000) == 0x1p-1000);
}

Test(trig, gives_the_nan_constant_outside_the_domain, .timeout = 60) {
    const double nan_in[] = {NAN, -NAN, INFINITY, -INFINITY};
    const double nan_bits = NAN;
    for (size_t i = 0; i < 4; i++) {
        const double x = nan_in[i];
        cr_assert(same_bits(apo__sin(x), nan_bits) && same_bits(apo__cos(x), nan_bits));
        cr_assert(same_bits(apo__tan(x), nan_bits) && same_bits(apo__asin(x), nan_bits));
        cr_assert(same_bits(apo__acos(x), nan_bits));
    }
    cr_assert(same_bits(apo__atan(-NAN), nan_bits));
    /* sin, cos and tan reduce |x| <= 2^20 and refuse beyond; asin and acos outside [-1, 1]. */
    cr_assert(!isnan(apo__sin(APO_TRIG_MAX_ARG)) && !isnan(apo__cos(-APO_TRIG_MAX_ARG)));
    const double beyond = nextafter(APO_TRIG_MAX_ARG, INFINITY);
    cr_assert(same_bits(apo__sin(beyond), nan_bits) && same_bits(apo__cos(-beyond), nan_bits));
    cr_assert(same_bits(apo__tan(1e300), nan_bits));
    cr_assert(same_bits(apo__asin(nextafter(1.0, 2.0)), nan_bits));
    cr_assert(same_bits(apo__acos(nextafter(-1.0, -2.0)), nan_bits));
}

Test(trig, is_odd_or_even_bit_for_bit, .timeout = 60) {
    /* The reduction rounds k to nearest-even, which is symmetric, so f(-x) is -f(x) or f(x)
     * exactly, and acos(-x) is pi - acos(x) to the last bit of its double-double. */
    for (int i = 1; i < 20000; i++) {
        const double x = (double)i * 0.0137 + 1.0 / (double)i;
        cr_assert(same_bits(apo__sin(-x), -apo__sin(x)) && apo__cos(-x) == apo__cos(x));
        cr_assert(same_bits(apo__tan(-x), -apo__tan(x)) && apo__atan(-x) == -apo__atan(x));
        const double y = 1.0 / (1.0 + x);
        cr_assert(apo__asin(-y) == -apo__asin(y), "asin at %a", y);
    }
}

Test(trig, is_within_one_ulp_of_long_double_on_every_region, .timeout = 120) {
    /* 10^4 points a region: uniform over the main interval, log-uniform magnitudes, the
     * doubles nearest k pi/2 (sin, cos, tan), the edges of atan's table cells, the points
     * nearest +-1 (asin, acos). The measured maxima over millions are 0.5 to 0.9 ulp
     * (test_trig_slow.c; docs/kernels/transforms.md, "Portable trigonometry"). */
    for (int f = TRIG_SIN; f <= TRIG_ACOS; f++) {
        const trig_worst w = trig_sweep((trig_fn)f, 10000, 2024);
        cr_assert(w.points >= 30000);
        cr_assert(w.ulps <= 1.0, "%s: %.3f ulp at %a", trig_names[f], w.ulps, w.x);
    }
}

Test(trig, the_measure_sees_one_ulp_as_one_ulp, .timeout = 60) {
    /* The sweeps' measure itself: the neighbours of a correctly rounded result are about one
     * ulp away, two neighbours two. */
    const long double want = sinl(0.7L);
    const double nearest = (double)want;
    const double up = nextafter(nearest, 2.0), up2 = nextafter(up, 2.0);
    cr_assert(trig_ulps_between(want, nearest) <= 0.5);
    cr_assert(trig_ulps_between(want, up) > 0.5 && trig_ulps_between(want, up) <= 1.5);
    cr_assert(trig_ulps_between(want, up2) > 1.5 && trig_ulps_between(want, up2) <= 2.5);
}

#ifdef APO_TILE_LANES
/* The functions with a form in vector lanes (trig_tv.h), scalar and lanes. */
typedef struct trig_lanes {
    const char *name;
    double (*scalar)(double);
    apo_tv (*lanes)(apo_tv);
} trig_lanes;

static const trig_lanes lane_forms[] = {
    {"atan", apo__atan, apo__atan_tv}, {"asin", apo__asin, apo__asin_tv},
    {"acos", apo__acos, apo__acos_tv}, {"sin", apo__sin, apo__sin_tv},
    {"cos", apo__cos, apo__cos_tv},    {"tan", apo__tan, apo__tan_tv}};

/* The samples of xs[0 .. n) (whole vectors) whose lanes' bits differ from the scalar form's;
 * the first of them in *at, its lane's value in *lane. */
static size_t lanes_differ(const trig_lanes *f, const double *xs, size_t n, double *at,
                           double *lane) {
    size_t differ = 0;
    for (size_t i = 0; i + APO_TILE_LANES <= n; i += APO_TILE_LANES) {
        double got[APO_TILE_LANES];
        apo_tv_store(got, f->lanes(apo_tv_load(xs + i)));
        for (size_t l = 0; l < APO_TILE_LANES; l++)
            if (!same_bits(got[l], f->scalar(xs[i + l])) && differ++ == 0) {
                *at = xs[i + l];
                *lane = got[l];
            }
    }
    return differ;
}

/* x, its neighbours and their negatives into xs from *n. */
static void push_edges(double *xs, size_t *n, double x) {
    const double at[] = {x, nextafter(x, INFINITY), nextafter(x, -INFINITY)};
    for (size_t j = 0; j < 3; j++) {
        xs[(*n)++] = at[j];
        xs[(*n)++] = -at[j];
    }
}

/* The tiles of atan, asin, acos, sin, cos and tan on the avx2 and avx512 paths run these lanes
 * (this build's width here, each lane alike): the scalar forms' bits at the edges of every case
 * (zeros, subnormals, 2^-60, 2^-27, 1, 2^20 where sin, cos and tan stop, 2^60, the infinities,
 * NaNs), at the edges of atan's table cells and of their inverses above 1, at the doubles nearest
 * multiples of pi/4 (the quadrants' edges), and at 40,000 seeded doubles of every magnitude
 * and sign (a quarter of them within [-1.1, 1.1]), each sample beside different ones. */
Test(trig, lanes_give_the_scalar_bits, .timeout = 60) {
    enum { N = 48000 };
    static double xs[N];
    size_t n = 0;
    const double edges[] = {0.0, 0x1p-1074, 0x1p-1022, 0x1p-60, 0x1p-27,  0x1p-26,
                            1.0, 0x1p20,    0x1p60,    DBL_MAX, INFINITY, NAN};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        push_edges(xs, &n, edges[e]);
    for (int k = 1; k <= 32; k++) {
        push_edges(xs, &n, (double)k / 32.0);
        push_edges(xs, &n, 32.0 / (double)k);
    }
    for (int k = 1; k <= 200; k++)
        push_edges(xs, &n, (double)k * 0x1.921fb54442d18p-1 * (k > 100 ? 4099.0 : 1.0));
    for (uint64_t i = 0; n < N; i++) {
        /* Magnitudes 2^-40 to 2^70 log-uniform, and a quarter uniform over [-1.1, 1.1] (asin's
         * and acos's domain), either sign. */
        const uint64_t bits = apo__splitmix64(2026, i);
        const double u = (double)(bits >> 11) * 0x1p-53;
        const double x = i % 4 == 0 ? 1.1 * u : ldexp(1.0 + u, (int)(bits % 110) - 40);
        xs[n++] = (bits >> 7) & 1 ? -x : x;
    }
    n -= n % APO_TILE_LANES;
    for (size_t f = 0; f < sizeof lane_forms / sizeof lane_forms[0]; f++) {
        double at = 0.0, lane = 0.0;
        const size_t differ = lanes_differ(&lane_forms[f], xs, n, &at, &lane);
        cr_expect_eq(differ, 0, "%s: %zu samples differ, the first %a (lanes %a, scalar %a)",
                     lane_forms[f].name, differ, at, lane, lane_forms[f].scalar(at));
    }
}

/* apo__atan_small_tv (linearreg_angle's angles), which leaves out the angle's division by one
 * where every lane is at most 1 in magnitude: apo__atan's bits on vectors all within [-1, 1]
 * (uniform values, tiny ones, zeros, subnormals, the cells' edges, 1 and the doubles beside it),
 * and on vectors with one lane above 1 (the general arm). */
Test(trig, small_atan_lanes_give_the_scalar_bits, .timeout = 60) {
    enum { N = 40000 };
    static double xs[N];
    size_t n = 0;
    const double edges[] = {0.0, 0x1p-1074, 0x1p-1022, 0x1p-60, 0x1p-27, 0x1p-26, 0.5, 1.0};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        push_edges(xs, &n, edges[e] == 1.0 ? nextafter(1.0, 0.0) : edges[e]);
    xs[n++] = 1.0;
    xs[n++] = -1.0;
    for (int k = 1; k <= 16; k++)
        push_edges(xs, &n, nextafter((double)k / 16.0, 0.0));
    for (uint64_t i = 0; n < N; i++) {
        const uint64_t bits = apo__splitmix64(54, i);
        const double u = 2.0 * (double)(bits >> 11) * 0x1p-53 - 1.0;
        /* One vector in eight gets a lane of 1.5: the general arm beside the short one. */
        xs[n++] = (i / APO_TILE_LANES) % 8 == 7 && i % APO_TILE_LANES == 3 ? 1.5 : u;
    }
    n -= n % APO_TILE_LANES;
    const trig_lanes small = {"atan_small", apo__atan, apo__atan_small_tv};
    double at = 0.0, lane = 0.0;
    const size_t differ = lanes_differ(&small, xs, n, &at, &lane);
    cr_expect_eq(differ, 0, "%zu samples differ, the first %a (lanes %a, scalar %a)", differ, at,
                 lane, apo__atan(at));
}
#endif

/*
 * trig_sweep.c: the sweeps of trig_sweep.h. The reference is glibc's long-double function,
 * accurate to about 2^-63 relative, some thousand times finer than the double ulp measured.
 */
#include "trig_sweep.h"

#include "splitmix64.h"
#include "trig.h"

#include <float.h>
#include <math.h>

double trig_eval(trig_fn fn, double x) {
    switch (fn) {
    case TRIG_SIN:
        return apo__sin(x);
    case TRIG_COS:
        return apo__cos(x);
    case TRIG_TAN:
        return apo__tan(x);
    case TRIG_ATAN:
        return apo__atan(x);
    case TRIG_ASIN:
        return apo__asin(x);
    default:
        return apo__acos(x);
    }
}

long double trig_reference(trig_fn fn, double x) {
    const long double lx = x;
    switch (fn) {
    case TRIG_SIN:
        return sinl(lx);
    case TRIG_COS:
        return cosl(lx);
    case TRIG_TAN:
        return tanl(lx);
    case TRIG_ATAN:
        return atanl(lx);
    case TRIG_ASIN:
        return asinl(lx);
    default:
        return acosl(lx);
    }
}

double trig_ulps_between(long double want, double got) {
    const double nearest = (double)want;
    const double ulp = fabs(nearest) < DBL_MIN ? 0x1p-1074 : ldexp(1.0, ilogb(nearest) - 52);
    return (double)(fabsl((long double)got - want) / ulp);
}

double trig_ulps(trig_fn fn, double x) {
    return trig_ulps_between(trig_reference(fn, x), trig_eval(fn, x));
}

/* A uniform draw in [0, 1) from draw i of the seed. */
static double unit_draw(uint64_t seed, uint64_t i) {
    return (double)(apo__splitmix64(seed, i) >> 11) * 0x1p-53;
}

static void note(trig_worst *w, trig_fn fn, double x) {
    const double u = trig_ulps(fn, x);
    w->points++;
    if (u > w->ulps || isnan(u)) {
        w->ulps = isnan(u) ? INFINITY : u;
        w->x = x;
    }
}

/* A magnitude log-uniform in [2^lo, 2^hi], with a random sign. */
static double log_uniform(uint64_t seed, uint64_t i, double lo, double hi) {
    const double m = exp2(lo + (hi - lo) * unit_draw(seed, 2 * i));
    return (apo__splitmix64(seed, 2 * i + 1) & 1) ? -m : m;
}

static void sweep_periodic(trig_worst *w, trig_fn fn, size_t n, uint64_t seed) {
    const long double pio2 = acosl(0.0L);
    for (size_t i = 0; i < n; i++) {
        note(w, fn, -8.0 + 16.0 * unit_draw(seed, i));
        note(w, fn, log_uniform(seed + 1, i, -40.0, 20.0));
        /* The double nearest k pi/2, where the reduction cancels the most, and a neighbour. */
        const double kmax = APO_TRIG_MAX_ARG / (double)pio2;
        const long double k = floorl((long double)(unit_draw(seed + 2, i) * kmax)) + 1.0L;
        double x = (double)(k * pio2);
        if (x > APO_TRIG_MAX_ARG)
            x = APO_TRIG_MAX_ARG;
        note(w, fn, x);
        note(w, fn, -nextafter(x, i % 2 ? 0.0 : INFINITY));
        /* Small multiples too, whose reduced arguments are the smallest relative to x. */
        const double small = (double)((long double)(i % 64 + 1) * pio2);
        note(w, fn, nextafter(small, i % 3 == 0 ? 0.0 : INFINITY));
    }
}

static void sweep_atan(trig_worst *w, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        note(w, TRIG_ATAN, -4.0 + 8.0 * unit_draw(seed, i));
        note(w, TRIG_ATAN, log_uniform(seed + 1, i, -40.0, 70.0));
        /* The edges of atan's table cells, c +- 1/32. */
        const double edge = (double)(i % 33) / 32.0;
        note(w, TRIG_ATAN, nextafter(edge, i % 2 ? 0.0 : 2.0));
    }
}

static void sweep_inverse_sine(trig_worst *w, trig_fn fn, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        note(w, fn, -1.0 + 2.0 * unit_draw(seed, i));
        note(w, fn, log_uniform(seed + 1, i, -40.0, 0.0));
        /* 1 - 2^-u: the points nearest +-1, where sqrt(1 - x^2) cancels. */
        const double near_one = 1.0 - exp2(-1.0 - 52.0 * unit_draw(seed + 2, i));
        note(w, fn, i % 2 ? near_one : -near_one);
    }
}

trig_worst trig_sweep(trig_fn fn, size_t per_region, uint64_t seed) {
    trig_worst w = {0.0, 0.0, 0};
    if (fn == TRIG_ATAN)
        sweep_atan(&w, per_region, seed);
    else if (fn == TRIG_ASIN || fn == TRIG_ACOS)
        sweep_inverse_sine(&w, fn, per_region, seed);
    else
        sweep_periodic(&w, fn, per_region, seed);
    return w;
}

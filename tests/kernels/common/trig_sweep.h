/*
 * trig_sweep.h: the sweeps that measure kernels/common/trig.h against libm's long-double
 * functions (sinl, atanl, ...), shared by test_trig.c (a few ten-thousand points, unit suite)
 * and test_trig_slow.c (millions, slow suite).
 */
#ifndef APO_TESTS_TRIG_SWEEP_H
#define APO_TESTS_TRIG_SWEEP_H

#include <stddef.h>
#include <stdint.h>

typedef enum trig_fn { TRIG_SIN, TRIG_COS, TRIG_TAN, TRIG_ATAN, TRIG_ASIN, TRIG_ACOS } trig_fn;

typedef struct trig_worst {
    double ulps;   /* the largest error seen, in ulps of the double nearest the reference */
    double x;      /* where */
    size_t points; /* how many points were checked */
} trig_worst;

/* The function under test and its long-double reference. */
double trig_eval(trig_fn fn, double x);
long double trig_reference(trig_fn fn, double x);

/* |got - want| in ulps of want rounded to double; trig_ulps measures trig_eval(fn, x). */
double trig_ulps_between(long double want, double got);
double trig_ulps(trig_fn fn, double x);

/* Every region of fn's domain (uniform over the main period or interval, log-uniform
 * magnitudes from tiny to the bound, and for sin, cos and tan the doubles nearest k pi/2 and
 * their neighbours; for asin and acos the points nearest +-1), `per_region` seeded points
 * each. */
trig_worst trig_sweep(trig_fn fn, size_t per_region, uint64_t seed);

#endif /* APO_TESTS_TRIG_SWEEP_H */

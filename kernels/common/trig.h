/*
 * trig.h: sin, cos, tan, atan, asin and acos that give the same bits on the CPU and the GPU
 * (shared by the CPU and CUDA, apo_hd.h).
 *
 * Why: libm's and CUDA's transcendental functions are not correctly rounded and differ in the
 * last bit now and then, so a tile body may not call them (apo_hd.h). These are written with
 * +, -, *, /, sqrt, fabs, comparisons and constants only, compiled without FMA contraction on
 * both sides, so one source gives one result everywhere (docs/kernels/transforms.md, "Portable
 * trigonometry").
 *
 * How: sin, cos and tan reduce x to r = x - k pi/2 with |r| <= pi/4 by a Cody-Waite split of
 * pi/2 in four parts (33, 33, 33 and 53 bits), carrying r as a double-double, and evaluate the
 * Taylor series of sin and cos on r (degree 21 and 22: the first omitted term is below 2^-70
 * of the result). atan reduces |x| > 1 by atan x = pi/2 - atan(1/x), then takes the nearest
 * c = k/16 and atan x = atan(c) + atan((x - c) / (1 + x c)), whose argument is at most 1/32,
 * on a table of atan(k/16) in two parts; asin and acos are atan of sqrt(1 - x^2) / x or its
 * inverse, all kept as double-doubles until the one final rounding. trig_tv.h runs the same
 * operations in the vector lanes of the CPU's element-wise tiles (the series and atan's table
 * below are lists both expand). A scalar atan (|x| <= 2^60) on a CPU path with FMA first tries a
 * shorter route that returns the same bits where it can tell they are (apo__trig_atan01_short,
 * apo__trig_atan_above1_short).
 *
 * Bounds: sin, cos and tan take |x| <= 2^20 (k < 2^20 keeps k times each 33-bit part exact);
 * beyond, and for inf or NaN, they return NaN. asin and acos return NaN outside [-1, 1]. Every
 * NaN returned is the NAN constant, whatever NaN came in, so its bits are the same on both
 * sides. Accuracy against a long-double evaluation, measured over dense sweeps of each domain
 * by tests/kernels/common/test_trig*.c: within 1 ulp (docs/kernels.md states the maxima).
 */
#ifndef APO_KERNELS_TRIG_H
#define APO_KERNELS_TRIG_H

#include "apo_hd.h"
#include "dd.h"

/* Where the build has the FMA instruction (the CPU's avx2 and avx512 paths, a GPU), the
 * double-double products below take it: every product these functions form has arguments far
 * from overflow and underflow (reduced angles, quotients of bounded values, squares of values
 * at least 2^-62 in magnitude; the tiny arguments return before), where Dekker's product is
 * exact, so fma(a, b, -a b) is the same error term in two operations instead of seventeen, and
 * the bits are unchanged; the sse2 path keeps Dekker's (libm's fma would be a call there). */
#if defined(__FMA__) || defined(__AVX512F__) || defined(__CUDA_ARCH__)
#define APO_TRIG_FMA 1
#endif

/* a * b = p + e exactly, for the arguments these functions form (above). */
static APO_HD_STEP APO_HD apo__dd apo__trig_two_prod(double a, double b) {
#ifdef APO_TRIG_FMA
    const double p = a * b;
    return apo__dd_make(p, fma(a, b, -p));
#else
    return apo__two_prod(a, b);
#endif
}

/* The largest |x| sin, cos and tan reduce. */
#define APO_TRIG_MAX_ARG 0x1p20

/* pi/2 in four parts: the first three of 33 bits, so k times each is exact for k < 2^20. */
#define APO_TRIG_PIO2_1 0x1.921fb54400000p+0
#define APO_TRIG_PIO2_2 0x1.0b4611a600000p-34
#define APO_TRIG_PIO2_3 0x1.3198a2e000000p-69
#define APO_TRIG_PIO2_4 0x1.b839a252049c1p-104
/* pi/2 and pi rounded to double, and what that rounding left out. */
#define APO_TRIG_PIO2_HI 0x1.921fb54442d18p+0
#define APO_TRIG_PIO2_LO 0x1.1a62633145c07p-54
#define APO_TRIG_PI_HI 0x1.921fb54442d18p+1
#define APO_TRIG_PI_LO 0x1.1a62633145c07p-53

/* The series below by Horner in z, each one list for a double here and for vector lanes
 * (trig_tv.h): p = first(c0), then p = c + z * p for each next coefficient c, `first` making
 * the first coefficient of p's type (APO__TRIG_SCALAR here). */
#define APO__TRIG_SCALAR(c) (c)

/* (sin x - x) / x^3 = sum of (-1)^n z^(n-1) / (2n+1)!, n = 1..10. */
#define APO__TRIG_SIN_SERIES(p, z, first)                                                          \
    do {                                                                                           \
        (p) = first(0x1.71b8ef6dcf572p-66);                                                        \
        (p) = -0x1.2f49b46814157p-57 + (z) * (p);                                                  \
        (p) = 0x1.952c77030ad4ap-49 + (z) * (p);                                                   \
        (p) = -0x1.ae7f3e733b81fp-41 + (z) * (p);                                                  \
        (p) = 0x1.6124613a86d09p-33 + (z) * (p);                                                   \
        (p) = -0x1.ae64567f544e4p-26 + (z) * (p);                                                  \
        (p) = 0x1.71de3a556c734p-19 + (z) * (p);                                                   \
        (p) = -0x1.a01a01a01a01ap-13 + (z) * (p);                                                  \
        (p) = 0x1.1111111111111p-7 + (z) * (p);                                                    \
        (p) = -0x1.5555555555555p-3 + (z) * (p);                                                   \
    } while (0)

/* (cos x - 1 + z/2) / z^2 = sum of (-1)^n z^(n-2) / (2n)!, n = 2..11. */
#define APO__TRIG_COS_SERIES(p, z, first)                                                          \
    do {                                                                                           \
        (p) = first(-0x1.0ce396db7f853p-70);                                                       \
        (p) = 0x1.e542ba4020225p-62 + (z) * (p);                                                   \
        (p) = -0x1.6827863b97d97p-53 + (z) * (p);                                                  \
        (p) = 0x1.ae7f3e733b81fp-45 + (z) * (p);                                                   \
        (p) = -0x1.93974a8c07c9dp-37 + (z) * (p);                                                  \
        (p) = 0x1.1eed8eff8d898p-29 + (z) * (p);                                                   \
        (p) = -0x1.27e4fb7789f5cp-22 + (z) * (p);                                                  \
        (p) = 0x1.a01a01a01a01ap-16 + (z) * (p);                                                   \
        (p) = -0x1.6c16c16c16c17p-10 + (z) * (p);                                                  \
        (p) = 0x1.5555555555555p-5 + (z) * (p);                                                    \
    } while (0)

/* (atan u - u) / u^3 = sum of (-1)^n z^(n-1) / (2n+1), n = 1..7: the coefficients of z^0 ..
 * z^6, and the series in Horner's order. */
#define APO_TRIG_ATAN_C0 -0x1.5555555555555p-2
#define APO_TRIG_ATAN_C1 0x1.999999999999ap-3
#define APO_TRIG_ATAN_C2 -0x1.2492492492492p-3
#define APO_TRIG_ATAN_C3 0x1.c71c71c71c71cp-4
#define APO_TRIG_ATAN_C4 -0x1.745d1745d1746p-4
#define APO_TRIG_ATAN_C5 0x1.3b13b13b13b14p-4
#define APO_TRIG_ATAN_C6 -0x1.1111111111111p-4
#define APO__TRIG_ATAN_SERIES(p, z, first)                                                         \
    do {                                                                                           \
        (p) = first(APO_TRIG_ATAN_C6);                                                             \
        (p) = APO_TRIG_ATAN_C5 + (z) * (p);                                                        \
        (p) = APO_TRIG_ATAN_C4 + (z) * (p);                                                        \
        (p) = APO_TRIG_ATAN_C3 + (z) * (p);                                                        \
        (p) = APO_TRIG_ATAN_C2 + (z) * (p);                                                        \
        (p) = APO_TRIG_ATAN_C1 + (z) * (p);                                                        \
        (p) = APO_TRIG_ATAN_C0 + (z) * (p);                                                        \
    } while (0)

/* 2/pi, and 1.5 * 2^52, which added and taken away rounds to the nearest integer. */
#define APO_TRIG_INV_PIO2 0x1.45f306dc9c883p-1
#define APO_TRIG_ROUNDER 0x1.8p52

/* r = x - k pi/2 as a double-double, and k mod 4. */
typedef struct apo__trig_reduced {
    apo__dd r;
    int quadrant;
} apo__trig_reduced;

static inline APO_HD apo__trig_reduced apo__trig_reduce(double x) {
    /* Adding and taking away 1.5 * 2^52 rounds to the nearest integer without a libm call. */
    const double k = (x * APO_TRIG_INV_PIO2 + APO_TRIG_ROUNDER) - APO_TRIG_ROUNDER;
    /* x - k p1 is exact (the two agree in their leading bits); so are k p2 and k p3, and TwoSum
     * keeps what each subtraction rounds off. k p4 is rounded, by at most 2^-132: the double
     * nearest a multiple of pi/2 below 2^20 is 2^-60.5 from it at the closest, so r keeps
     * some 70 correct bits even there. */
    const double t = x - k * APO_TRIG_PIO2_1;
    const apo__dd r2 = apo__two_sum(t, -(k * APO_TRIG_PIO2_2));
    const apo__dd r3 = apo__two_sum(r2.hi, -(k * APO_TRIG_PIO2_3));
    const apo__dd r4 = apo__two_sum(r3.hi, -(k * APO_TRIG_PIO2_4));
    apo__trig_reduced out;
    out.r = apo__quick_two_sum(r4.hi, r4.lo + (r3.lo + r2.lo));
    out.quadrant = (int)k & 3;
    return out;
}

/* sin(r) as a double-double for |r| <= pi/4 + a little. */
static inline APO_HD apo__dd apo__trig_sin_dd(apo__dd r) {
    const double x = r.hi, z = x * x;
    double p;
    APO__TRIG_SIN_SERIES(p, z, APO__TRIG_SCALAR);
    /* sin(x + lo) = sin x + lo cos x, and cos x = 1 - z/2 is close enough for a tail. */
    return apo__quick_two_sum(x, x * z * p + r.lo * (1.0 - 0.5 * z));
}

/* cos(r) as a double-double for |r| <= pi/4 + a little. */
static inline APO_HD apo__dd apo__trig_cos_dd(apo__dd r) {
    const double x = r.hi;
    const apo__dd zz = apo__trig_two_prod(x, x);
    const double z = zz.hi;
    double q;
    APO__TRIG_COS_SERIES(q, z, APO__TRIG_SCALAR);
    /* 1 - z/2 with what its rounding lost, then the rest; cos(x + lo) = cos x - lo sin x. */
    const apo__dd w = apo__two_sum(1.0, -0.5 * z);
    return apo__quick_two_sum(w.hi, w.lo + ((z * z * q - 0.5 * zz.lo) - x * r.lo));
}

/* The double nearest to a double-double. */
static inline APO_HD double apo__trig_round(apo__dd v) { return v.hi + v.lo; }

static inline APO_HD double apo__sin(double x) {
    if (!(fabs(x) <= APO_TRIG_MAX_ARG))
        return (double)NAN;
    /* sin x rounds to x below 2^-27, and -0 keeps its sign. */
    if (fabs(x) < 0x1p-27)
        return x;
    const apo__trig_reduced a = apo__trig_reduce(x);
    const double s = a.quadrant & 1 ? apo__trig_round(apo__trig_cos_dd(a.r))
                                    : apo__trig_round(apo__trig_sin_dd(a.r));
    return a.quadrant & 2 ? -s : s;
}

static inline APO_HD double apo__cos(double x) {
    if (!(fabs(x) <= APO_TRIG_MAX_ARG))
        return (double)NAN;
    if (fabs(x) < 0x1p-27)
        return 1.0;
    const apo__trig_reduced a = apo__trig_reduce(x);
    const double c = a.quadrant & 1 ? apo__trig_round(apo__trig_sin_dd(a.r))
                                    : apo__trig_round(apo__trig_cos_dd(a.r));
    return ((a.quadrant + 1) & 2) ? -c : c;
}

/* num / den for double-doubles, to about 2^-104 relative. */
static inline APO_HD apo__dd apo__trig_div(apo__dd num, apo__dd den) {
    const double q = num.hi / den.hi;
    const apo__dd p = apo__trig_two_prod(q, den.hi);
    const double rest = (((num.hi - p.hi) - p.lo) + num.lo) - q * den.lo;
    return apo__quick_two_sum(q, rest / den.hi);
}

static inline APO_HD double apo__tan(double x) {
    if (!(fabs(x) <= APO_TRIG_MAX_ARG))
        return (double)NAN;
    if (fabs(x) < 0x1p-27)
        return x;
    const apo__trig_reduced a = apo__trig_reduce(x);
    const apo__dd s = apo__trig_sin_dd(a.r), c = apo__trig_cos_dd(a.r);
    /* tan(r + k pi/2) is tan r for k even and -1 / tan r = -cos r / sin r for k odd. */
    if (a.quadrant & 1)
        return -apo__trig_round(apo__trig_div(c, s));
    return apo__trig_round(apo__trig_div(s, c));
}

/* atan(k/16) for k = 1..15 in two parts, X(k, hi, lo) a row, and atan(1) = pi/4 for k = 16: one
 * list for the scalar switch below and the vector lanes' table (trig_tv.h). */
#define APO_TRIG_ATAN_TABLE(X)                                                                     \
    X(1, 0x1.ff55bb72cfdeap-5, -0x1.c934d86d23f1dp-60)                                             \
    X(2, 0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59)                                             \
    X(3, 0x1.7b97b4bce5b02p-3, 0x1.347b0b4f881cap-58)                                              \
    X(4, 0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57)                                              \
    X(5, 0x1.362773707ebccp-2, -0x1.963a544b672d8p-57)                                             \
    X(6, 0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56)                                             \
    X(7, 0x1.a64eec3cc23fdp-2, -0x1.24dec1b50b7ffp-56)                                             \
    X(8, 0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56)                                              \
    X(9, 0x1.0657e94db30d0p-1, -0x1.d5b495f6349e6p-56)                                             \
    X(10, 0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58)                                            \
    X(11, 0x1.345f01cce37bbp-1, 0x1.1021137c71102p-55)                                             \
    X(12, 0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56)                                             \
    X(13, 0x1.5d58987169b18p-1, 0x1.0028e4bc5e7cap-57)                                             \
    X(14, 0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56)                                            \
    X(15, 0x1.819d0b7158a4dp-1, -0x1.bf76229d3b917p-56)

#define APO_TRIG_ATAN_16_HI 0x1.921fb54442d18p-1
#define APO_TRIG_ATAN_16_LO 0x1.1a62633145c07p-55

#ifndef __CUDA_ARCH__
/* The table as two arrays on the CPU, k = 0..16 (atan 0 = 0 at k = 0), read by each vector
 * lane's cell (trig_tv.h) and by apo__trig_atan_table below: gcc compiles the switch to an
 * indirect jump, which the lanes mispredicted on cells that vary from sample to sample (25 to
 * 27 ns a sample against 19 on one cell, Zen 3 VM); on the Hilbert transform's chain the
 * arrays measured level to a few per cent faster (docs/perf-log/2026-12-07-zen3-atan-cells.md). */
#define APO__TRIG_ATAN_HI(k, hi, lo) hi,
#define APO__TRIG_ATAN_LO(k, hi, lo) lo,
static const double apo__trig_atan_hi[17] = {0.0, APO_TRIG_ATAN_TABLE(APO__TRIG_ATAN_HI)
                                                      APO_TRIG_ATAN_16_HI};
static const double apo__trig_atan_lo[17] = {0.0, APO_TRIG_ATAN_TABLE(APO__TRIG_ATAN_LO)
                                                      APO_TRIG_ATAN_16_LO};
#undef APO__TRIG_ATAN_HI
#undef APO__TRIG_ATAN_LO
#endif

/* A case of the switch below. */
#define APO__TRIG_ATAN_CASE(k, hi, lo)                                                             \
    case k:                                                                                        \
        return apo__dd_make(hi, lo);

/* atan(k/16) for k = 1..16 in two parts: the arrays above on the CPU, a switch in CUDA's device
 * code, where a static table would need a __constant__ copy. */
static inline APO_HD apo__dd apo__trig_atan_table(int k) {
#ifndef __CUDA_ARCH__
    return apo__dd_make(apo__trig_atan_hi[k], apo__trig_atan_lo[k]);
#else
    switch (k) {
        APO_TRIG_ATAN_TABLE(APO__TRIG_ATAN_CASE)
    default:
        return apo__dd_make(APO_TRIG_ATAN_16_HI, APO_TRIG_ATAN_16_LO);
    }
#endif
}
#undef APO__TRIG_ATAN_CASE

/* atan(t) as a double-double for a double-double 0 <= t <= 1. */
static inline APO_HD apo__dd apo__trig_atan01(apo__dd t) {
    /* k = round(16 t) from 32 t, which is exact, so that t >= c/2 even at a cell's edge. */
    const int k = ((int)(t.hi * 32.0) + 1) >> 1;
    const double c = (double)k * 0.0625;
    /* u = (t - c) / (1 + t c), so atan t = atan c + atan u with |u| <= 1/32; t - c is exact
     * (the two are within a factor 2 of each other, or c is 0). */
    const apo__dd num = apo__two_sum(t.hi - c, t.lo);
    const apo__dd tc = apo__trig_two_prod(t.hi, c);
    const apo__dd one_tc = apo__two_sum(1.0, tc.hi);
    const apo__dd den = apo__quick_two_sum(one_tc.hi, one_tc.lo + tc.lo + t.lo * c);
    const apo__dd u = apo__trig_div(num, den);
    const double z = u.hi * u.hi;
    double p;
    APO__TRIG_ATAN_SERIES(p, z, APO__TRIG_SCALAR);
    const double series = u.lo + u.hi * z * p;
    if (k == 0)
        return apo__quick_two_sum(u.hi, series);
    const apo__dd base = apo__trig_atan_table(k);
    const apo__dd s = apo__two_sum(base.hi, u.hi);
    return apo__quick_two_sum(s.hi, s.lo + (base.lo + series));
}

#if defined(APO_TRIG_FMA) && !defined(__CUDA_ARCH__)
#include "trig_atan_cells.h"

/* The short route's bound on |F - D| (below), relative to |F|. F's own error is the roundings of
 * its terms after atan c and b0 h: at most about six of the size of the quadratic term, which
 * is largest against the result at the first cell's lower edge (t = 1/32: a_2 h^2 is 2^-9 of
 * atan t), so below about 2^-59.4 of the result; D's, the double-double route's series
 * evaluated in doubles on u.hi, adds about 2^-62.4 there. Observed: 2^-60.4 at the worst of
 * 2e7 samples of test_trig_short.c's mix (at 1/32). 2^-58 leaves the short route undecided for
 * about 4.4% of arguments below one (2e7 uniform samples, no rounding different from the
 * double-double route's); above one, where the bound is taken against atan(1/x)
 * (apo__trig_atan_above1_short), 2.1% of their inverses. */
#define APO_TRIG_ATAN_SHORT_BOUND 0x1p-58
/* The same in cell 0 (t < 1/32, where a_2 = 0): the largest term rounded is then the cubic,
 * 2^-11.6 of the result at most, so F's roundings stay below about 2^-62 of it and D's own
 * below 2^-63: 2^-60 (observed 2^-62.35 at the worst of 2e7 samples near 1/32, undecided 1.3%
 * of them). Taken by the vector lanes' route (trig_tv.h), which knows its lanes' cell. */
#define APO_TRIG_ATAN_SHORT_BOUND_CELL0 0x1p-60

/*
 * atan(t) for t = t_hi + t_lo in [0, 1] (as apo__trig_atan01 takes it), unrounded as F = hi +
 * lo, by a shorter route than apo__trig_atan01's; apo__trig_atan01_short and
 * apo__trig_atan_above1_short round it where they can tell that the rounding is the double-double
 * route's: *decided is 1 when the value returned is that route's bit for bit, 0 when the caller
 * must take that route.
 *
 * Why: the Hilbert transform's period takes an atan every bar on its serial chain
 * (hilbert.h), where the double-double route's latency (about 160 cycles: two divisions one
 * after the other, then the series in Horner's order, then the sums) was most of a bar, and
 * a route through u = (t - c) / (1 + t c) still waits on one division and then its series.
 * Here atan t is the Taylor polynomial of atan about the cell's centre c = k/16 in h = t - c
 * (exact; |h| <= 1/32), to degree 13, with one row of coefficients a cell
 * (trig_atan_cells.h): atan c + b0 h as double-doubles, the rest by Estrin's scheme, fused, no
 * division at all, and t_lo through the derivative b0 + 2 a_2 h.
 *
 * Why the bits are the double-double route's: that route returns RN(D), D = s.hi + X exactly
 * (its final quick_two_sum then round add the same two doubles again). If |F - D| <= B and
 * F_hi + (F_lo - B) and F_hi + (F_lo + B) round to the same double, every value between them
 * does (rounding is monotone), D among them. The roundings of F_lo -+ B themselves move the
 * ends by 2^-53 of F_lo, about 2^-64 of F, far inside the margin between the bound and the
 * observed differences.
 */
static inline apo__dd apo__trig_atan01_short_value(double t_hi, double t_lo) {
    const int k = ((int)(t_hi * 32.0) + 1) >> 1;
    const double h = t_hi - (double)k * 0.0625;
    const double *a = apo__trig_atan_cells[k];
    /* a_2 + a_3 h + ... + a_13 h^11 by pairs, fours and eights of terms. */
    const double h2 = h * h, h4 = h2 * h2, h8 = h4 * h4;
    const double e0 = fma(a[3], h, a[2]), e1 = fma(a[5], h, a[4]), e2 = fma(a[7], h, a[6]);
    const double e3 = fma(a[9], h, a[8]), e4 = fma(a[11], h, a[10]), e5 = fma(a[13], h, a[12]);
    const double f0 = fma(e1, h2, e0), f1 = fma(e3, h2, e2), f2 = fma(e5, h2, e4);
    const double p = fma(f2, h8, fma(f1, h4, f0));
    /* atan c + b0 h: the product's error exact, the sum's too (|atan c| >= |b0 h| from the
     * first cell on, and atan 0 = 0). */
    const double b0h = a[0] * h, b0h_err = fma(a[0], h, -b0h);
    const double base_hi = apo__trig_atan_hi[k];
    const double hi = base_hi + b0h, sum_err = b0h - (hi - base_hi);
    const double lo =
        (sum_err + apo__trig_atan_lo[k]) + (b0h_err + (a[1] * h + t_lo * fma(2.0 * a[2], h, a[0])));
    return apo__dd_make(hi, fma(h2, p, lo));
}

/* hi + lo rounded, and *decided 1 where every value within `bound` (absolute) of it rounds
 * alike. The value returned is hi + lo itself, which lies between the two ends (rounding is
 * monotone), so where they agree it is theirs; it waits on one addition after lo where the ends
 * wait on two. */
static inline double apo__trig_short_round(double hi, double lo, double bound, int *decided) {
    const double low_end = hi + (lo - bound), high_end = hi + (lo + bound);
    *decided = low_end == high_end;
    return hi + lo;
}

static inline double apo__trig_atan01_short(double ax, int *decided) {
    const apo__dd f = apo__trig_atan01_short_value(ax, 0.0);
    return apo__trig_short_round(f.hi, f.lo, fabs(f.hi) * APO_TRIG_ATAN_SHORT_BOUND, decided);
}

/* The same for 1 < ax <= 2^60: pi/2 - atan(1/ax), 1/ax as the double-double route forms it
 * (its remainder 1 - q ax is exact, so the fused form gives the same value), mama's phase's
 * side (its tangents are above one about as often as below). Both routes subtract their
 * atan(1/ax) from pi/2 in double-doubles, so they differ by what those differ, the bound times
 * atan(1/ax), not times the result: a far tighter test where 1/ax is small (prices). */
static inline double apo__trig_atan_above1_short(double ax, int *decided) {
    const double q = 1.0 / ax;
    const apo__dd t = apo__quick_two_sum(q, fma(-q, ax, 1.0) / ax);
    const apo__dd a = apo__trig_atan01_short_value(t.hi, t.lo);
    const apo__dd s = apo__two_sum(APO_TRIG_PIO2_HI, -a.hi);
    return apo__trig_short_round(s.hi, s.lo + (APO_TRIG_PIO2_LO - a.lo),
                                 a.hi * APO_TRIG_ATAN_SHORT_BOUND, decided);
}
#endif

/* atan(ax) for 2^-27 <= ax <= 1 by the double-double route, rounded: what the short route's
 * callers take where it leaves them undecided. */
static inline APO_HD double apo__trig_atan01_long(double ax) {
    return apo__trig_round(apo__trig_atan01(apo__dd_make(ax, 0.0)));
}

/* atan(ax) for 2^-27 <= ax <= 1, rounded: apo__trig_atan01's bits, by the short route where the
 * build has FMA and the route decides them. (Two wrappers of one pattern, this and
 * apo__trig_atan_above1_rounded: one wrapper for both sides measured a tenth slower on the
 * Hilbert transform's chain at 1e4 bars, by the code gcc laid out.) */
static inline APO_HD double apo__trig_atan01_rounded(double ax) {
#if defined(APO_TRIG_FMA) && !defined(__CUDA_ARCH__)
    int decided;
    const double v = apo__trig_atan01_short(ax, &decided);
    if (__builtin_expect(decided, 1))
        return v;
#endif
    return apo__trig_atan01_long(ax);
}

/* atan(y / x) as a double-double for 0 <= y, 0 < x, y and x double-doubles: the angle of
 * (x, y) in the first quadrant. */
static inline APO_HD apo__dd apo__trig_angle(apo__dd y, apo__dd x) {
    if (y.hi <= x.hi)
        return apo__trig_atan01(apo__trig_div(y, x));
    /* atan(y/x) = pi/2 - atan(x/y). */
    const apo__dd a = apo__trig_atan01(apo__trig_div(x, y));
    const apo__dd s = apo__two_sum(APO_TRIG_PIO2_HI, -a.hi);
    return apo__quick_two_sum(s.hi, s.lo + (APO_TRIG_PIO2_LO - a.lo));
}

/* The same for 1 < ax <= 2^60: the angle of (1, ax). */
static inline APO_HD double apo__trig_atan_above1_long(double ax) {
    return apo__trig_round(apo__trig_angle(apo__dd_make(ax, 0.0), apo__dd_make(1.0, 0.0)));
}

/* atan(ax) for 1 < ax <= 2^60, rounded: apo__trig_angle's bits, by the short route where the
 * build has FMA and the route decides them. */
static inline APO_HD double apo__trig_atan_above1_rounded(double ax) {
#if defined(APO_TRIG_FMA) && !defined(__CUDA_ARCH__)
    int decided;
    const double v = apo__trig_atan_above1_short(ax, &decided);
    if (__builtin_expect(decided, 1))
        return v;
#endif
    return apo__trig_atan_above1_long(ax);
}

static inline APO_HD double apo__atan(double x) {
    if (isnan(x))
        return (double)NAN;
    const double ax = fabs(x);
    /* atan x rounds to x below 2^-27, and to pi/2 beyond 2^60. */
    if (ax < 0x1p-27)
        return x;
    double v;
    if (ax > 0x1p60)
        v = APO_TRIG_PIO2_HI;
    else if (ax <= 1.0)
        /* apo__trig_angle((ax, 0), (1, 0)) divides by one first, exactly: (ax, 0) with its
         * rounding error +0, so the same bits without a double-double division on the chain
         * of the Hilbert transform's period, whose tangents are mostly below one. */
        v = apo__trig_atan01_rounded(ax);
    else
        v = apo__trig_atan_above1_rounded(ax);
    return x < 0.0 ? -v : v;
}

/* sqrt(1 - x^2) as a double-double for 0 <= x <= 1. */
static inline APO_HD apo__dd apo__trig_cofactor(double x) {
    const apo__dd xx = apo__trig_two_prod(x, x);
    const apo__dd d1 = apo__two_sum(1.0, -xx.hi);
    const apo__dd d = apo__quick_two_sum(d1.hi, d1.lo - xx.lo);
    if (d.hi <= 0.0)
        return apo__dd_make(0.0, 0.0);
    const double s = sqrt(d.hi);
    const apo__dd ss = apo__trig_two_prod(s, s);
    return apo__quick_two_sum(s, (((d.hi - ss.hi) - ss.lo) + d.lo) / (2.0 * s));
}

static inline APO_HD double apo__asin(double x) {
    if (!(fabs(x) <= 1.0))
        return (double)NAN;
    const double ax = fabs(x);
    if (ax < 0x1p-27)
        return x;
    /* asin x = atan(x / sqrt(1 - x^2)). */
    const double v =
        apo__trig_round(apo__trig_angle(apo__dd_make(ax, 0.0), apo__trig_cofactor(ax)));
    return x < 0.0 ? -v : v;
}

static inline APO_HD double apo__acos(double x) {
    if (!(fabs(x) <= 1.0))
        return (double)NAN;
    const double ax = fabs(x);
    /* acos |x| = atan(sqrt(1 - x^2) / |x|), and acos(-|x|) = pi - acos |x|. */
    if (ax < 0x1p-60)
        return APO_TRIG_PIO2_HI;
    const apo__dd a = apo__trig_angle(apo__trig_cofactor(ax), apo__dd_make(ax, 0.0));
    if (x > 0.0)
        return apo__trig_round(a);
    const apo__dd s = apo__two_sum(APO_TRIG_PI_HI, -a.hi);
    return apo__trig_round(apo__quick_two_sum(s.hi, s.lo + (APO_TRIG_PI_LO - a.lo)));
}

#endif /* APO_KERNELS_TRIG_H */

/*
 * exp_log.h: exp, log, log10, expm1, sinh, cosh and tanh for tile bodies (APO_HD), written
 * with +, -, *, /, comparisons, constants and the bits of doubles only.
 *
 * Why: libm's transcendentals are not correctly rounded, and the CPU's and a GPU's differ in
 * the last bit (apo_hd.h), so a tile body that called exp() would give a GPU other bits than
 * the CPU. These functions are one source on both sides, compiled without FMA contraction
 * (gcc -ffp-contract=off, nvcc -fmad=false), so each gives the same bits wherever it runs.
 *
 * How (docs/kernels/transforms.md, "Math operators and transforms"):
 * - exp: x = k ln2 + r, |r| <= ln2/2, k the nearest integer to x / ln2 (ln2 in two parts, the
 *   first with trailing zeros so that k * its first part is exact); e^r - 1 by its Taylor
 *   series to r^18 (Horner), added to 1 last; 2^k applied to the exponent bits, in two
 *   exact steps where 2^k itself is not a normal double, so the result rounds once.
 * - log: x = 2^k m, m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f); log(m) = 2 atanh(s)
 *   = 2s + s R(s^2) with R's Taylor series to s^22; since 2s = f - s f, log(m) is written
 *   f - (f^2/2 - s (f^2/2 + R)), so that f, exact, is added last.
 * - log10: the same reduction, with f - f^2/2 split into a head of 21 bits and a tail, each
 *   multiplied by 1/ln 10 in two parts, and k log10(2) in two parts.
 * - expm1 from exp's reduction: 2^k (1 + p) - 1 rearranged so that nothing cancels.
 * - sinh by its Taylor series below 1; sinh, cosh and tanh from expm1 where e^x - e^-x would
 *   cancel (|x| small), from exp elsewhere.
 * Accuracy, measured against long double (tests/kernels/common/test_exp_log*.c): see
 * docs/kernels.md.
 *
 * Special values are C99's: exp(+inf) = +inf, exp(-inf) = 0, log(0) = -inf, log(x < 0) = NaN,
 * log(+inf) = +inf; every NaN made or passed on is the NAN constant.
 */
#ifndef APO_KERNELS_EXP_LOG_H
#define APO_KERNELS_EXP_LOG_H

#include "apo_hd.h"

/* ln 2 in two parts: the first has 32 significant bits, so k times it is exact for |k| < 2^21. */
#define APO_LN2_HI 0x1.62e42feep-1
#define APO_LN2_LO 0x1.a39ef35793c76p-33
#define APO_INV_LN2 0x1.71547652b82fep+0
/* log10(2) in two parts (the first 32 bits), and 1/ln 10 in two parts (the first 27 bits). */
#define APO_LOG10_2_HI 0x1.34413508p-2
#define APO_LOG10_2_LO 0x1.f79fef311f12bp-34
#define APO_INV_LN10_HI 0x1.bcb7b14p-2
#define APO_INV_LN10_LO 0x1.26e50e32a6ab7p-30
/* exp overflows past ln(DBL_MAX) and rounds to 0 below ln(2^-1075). */
#define APO_EXP_OVERFLOW 0x1.62e42fefa39efp+9
#define APO_EXP_UNDERFLOW (-0x1.74910d52d3052p+9)
/* Adding and subtracting 1.5 * 2^52 rounds a double of magnitude below 2^51 to an integer. */
#define APO_ROUND_SHIFTER 0x1.8p52

/* 2^k for -1022 <= k <= 1023, from its exponent bits. */
static inline APO_HD double apo__pow2i(int k) {
    return apo__double_of((uint64_t)(int64_t)(k + 1023) << 52);
}

/* y * 2^k for any k in [-1100, 1100], rounded once: the only rounding is the last product's. */
static inline APO_HD double apo__scale2(double y, int k) {
    if (k > 1023)
        return (y * apo__pow2i(1023)) * apo__pow2i(k - 1023);
    if (k < -1022)
        return (y * apo__pow2i(k + 1000)) * apo__pow2i(-1000);
    return y * apo__pow2i(k);
}

/* The coefficients of e^r - 1's series past r^2 (apo__expm1_reduced), 1/17! down to 1/2!, which
 * Horner's q = c + r q takes after q = APO_EXPM1_TOP (1/18!): one list for the scalar form and
 * the block form (apo__exp_block), X(c) for each. */
#define APO_EXPM1_TOP 0x1.6827863b97d97p-53
#define APO_EXPM1_SERIES(X)                                                                        \
    X(0x1.952c77030ad4ap-49)                                                                       \
    X(0x1.ae7f3e733b81fp-45)                                                                       \
    X(0x1.ae7f3e733b81fp-41)                                                                       \
    X(0x1.93974a8c07c9dp-37)                                                                       \
    X(0x1.6124613a86d09p-33)                                                                       \
    X(0x1.1eed8eff8d898p-29)                                                                       \
    X(0x1.ae64567f544e4p-26)                                                                       \
    X(0x1.27e4fb7789f5cp-22)                                                                       \
    X(0x1.71de3a556c734p-19)                                                                       \
    X(0x1.a01a01a01a01ap-16)                                                                       \
    X(0x1.a01a01a01a01ap-13)                                                                       \
    X(0x1.6c16c16c16c17p-10)                                                                       \
    X(0x1.1111111111111p-7)                                                                        \
    X(0x1.5555555555555p-5)                                                                        \
    X(0x1.5555555555555p-3)                                                                        \
    X(0x1.0000000000000p-1)

/* e^r - 1 from r and the series' value q: r + r^2 q. */
static inline APO_HD double apo__expm1_of_series(double r, double q) { return r + (r * r) * q; }

/* The series' value q at r, by Horner's rule over APO_EXPM1_SERIES. */
static inline APO_HD double apo__expm1_series(double r) {
    double q = APO_EXPM1_TOP;
#define APO__EXPM1_STEP(c) q = (c) + r * q;
    APO_EXPM1_SERIES(APO__EXPM1_STEP)
#undef APO__EXPM1_STEP
    return q;
}

/* e^r - 1 for |r| <= 0.7: Taylor to r^18 (the next term is below 2^-60 r there). exp needs
 * |r| <= ln2/2 only; expm1 takes it directly up to 0.7, where 2^k (1 + p) - 1 would cancel. */
static inline APO_HD double apo__expm1_reduced(double r) {
    return apo__expm1_of_series(r, apo__expm1_series(r));
}

/* x = k ln2 + r for finite |x| below 2^40: returns r and sets *kd to k as a double (the select
 * and block forms keep k a double: apo__scale2_kd). */
static inline APO_HD double apo__exp_reduce_kd(double x, double *kd) {
    const double k = (x * APO_INV_LN2 + APO_ROUND_SHIFTER) - APO_ROUND_SHIFTER;
    *kd = k;
    return (x - k * APO_LN2_HI) - k * APO_LN2_LO;
}

/* The same reduction: returns e^r - 1 and sets *k. */
static inline APO_HD double apo__exp_reduce(double x, int *k) {
    double kd;
    const double r = apo__exp_reduce_kd(x, &kd);
    *k = (int)kd;
    return apo__expm1_reduced(r);
}

static inline APO_HD double apo__exp(double x) {
    if (isnan(x))
        return NAN;
    if (x > APO_EXP_OVERFLOW)
        return INFINITY;
    if (x < APO_EXP_UNDERFLOW)
        return 0.0;
    int k;
    const double p = apo__exp_reduce(x, &k);
    return apo__scale2(1.0 + p, k);
}

/* e^x - 1, accurate near 0 where exp(x) - 1 cancels. */
static inline APO_HD double apo__expm1(double x) {
    if (isnan(x))
        return NAN;
    if (x > APO_EXP_OVERFLOW)
        return INFINITY;
    if (x < -40.0) /* e^x is below half an ulp of 1 */
        return -1.0;
    if (fabs(x) < 0.7)
        return apo__expm1_reduced(x);
    int k;
    const double p = apo__exp_reduce(x, &k);
    if (k < 0) /* 2^k p exactly, less 1 - 2^k, exact for k >= -53 */
        return p * apo__pow2i(k) - (1.0 - apo__pow2i(k));
    /* 1 - 2^-k is exact while k is small; past that 2^-k is below p's last bits, and past
     * 2^-56 below 1 + p's. */
    const double t = k <= 56 ? apo__pow2i(-k) : 0.0;
    const double u = k < 20 ? (1.0 - t) + p : 1.0 + (p - t);
    return apo__scale2(u, k);
}

/* x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), x finite and positive; f exact. */
static inline APO_HD double apo__log_reduce(double x, int *k) {
    int shift = 0;
    if (x < DBL_MIN) { /* subnormal: made normal, exactly */
        x *= 0x1p54;
        shift = 54;
    }
    const uint64_t bits = apo__bits_of(x);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    double m = apo__double_of((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (m > 0x1.6a09e667f3bcdp+0) {
        m *= 0.5;
        e += 1;
    }
    *k = e - shift;
    return m - 1.0;
}

/* The coefficients of apo__log_tail's series in z = s^2, 2/23 down to 2/3, which Horner's
 * q = c + z q takes after q = APO_LOG_TAIL_TOP (2/25): one list for the scalar form and the
 * block form (apo__log_block), X(c) for each. */
#define APO_LOG_TAIL_TOP 0x1.47ae147ae147bp-4
#define APO_LOG_TAIL_SERIES(X)                                                                     \
    X(0x1.642c8590b2164p-4)                                                                        \
    X(0x1.8618618618618p-4)                                                                        \
    X(0x1.af286bca1af28p-4)                                                                        \
    X(0x1.e1e1e1e1e1e1ep-4)                                                                        \
    X(0x1.1111111111111p-3)                                                                        \
    X(0x1.3b13b13b13b14p-3)                                                                        \
    X(0x1.745d1745d1746p-3)                                                                        \
    X(0x1.c71c71c71c71cp-3)                                                                        \
    X(0x1.2492492492492p-2)                                                                        \
    X(0x1.999999999999ap-2)                                                                        \
    X(0x1.5555555555555p-1)

/* s R(z), z = s^2: the terms of 2 atanh(s) past 2s, Taylor to s^23 (|s| < 0.172, the next
 * term below 2^-62 s). */
static inline APO_HD double apo__log_tail(double s) {
    const double z = s * s;
    double q = APO_LOG_TAIL_TOP;
#define APO__LOG_TAIL_STEP(c) q = (c) + z * q;
    APO_LOG_TAIL_SERIES(APO__LOG_TAIL_STEP)
#undef APO__LOG_TAIL_STEP
    return z * q;
}

/* The special values of log and log10: NaN below 0, -inf at 0, +inf at +inf; 0 when x is an
 * ordinary positive number (*special left unset). */
static inline APO_HD int apo__log_special(double x, double *special) {
    if (isnan(x) || x < 0.0) {
        *special = NAN;
        return 1;
    }
    if (x == 0.0) {
        *special = -INFINITY;
        return 1;
    }
    if (x == INFINITY) {
        *special = INFINITY;
        return 1;
    }
    return 0;
}

/* The pieces of log(x) = k ln 2 + log(1 + f) for an ordinary positive x, which log and log10
 * combine in their own ways: log(1 + f) = f - hfsq + s (hfsq + r), s = f / (2 + f),
 * hfsq = f^2 / 2, r = apo__log_tail(s). */
typedef struct apo__log_parts {
    double kd, f, s, hfsq, r;
} apo__log_parts;

static inline APO_HD apo__log_parts apo__log_split(double x) {
    int k;
    apo__log_parts p;
    p.f = apo__log_reduce(x, &k);
    p.s = p.f / (2.0 + p.f);
    p.hfsq = 0.5 * p.f * p.f;
    p.r = apo__log_tail(p.s);
    p.kd = (double)k;
    return p;
}

/* log(x) from its pieces. */
static inline APO_HD double apo__log_of(const apo__log_parts *p) {
    return p->kd * APO_LN2_HI - ((p->hfsq - (p->s * (p->hfsq + p->r) + p->kd * APO_LN2_LO)) - p->f);
}

/* log10(x) from the pieces of log(x): log(1 + f) = head + tail, the head f - f^2/2 cut to 21
 * bits so that its products with the 27-bit part of 1/ln 10 are exact. */
static inline APO_HD double apo__log10_of(const apo__log_parts *p) {
    const double head = apo__double_of(apo__bits_of(p->f - p->hfsq) & 0xffffffff00000000ULL);
    const double tail = ((p->f - head) - p->hfsq) + p->s * (p->hfsq + p->r);
    const double k_hi = p->kd * APO_LOG10_2_HI; /* exact: 11 bits times 32 */
    const double h = head * APO_INV_LN10_HI;    /* exact: 21 bits times 27 */
    const double low =
        (tail + head) * APO_INV_LN10_LO + tail * APO_INV_LN10_HI + p->kd * APO_LOG10_2_LO;
    const double w = k_hi + h;
    return ((k_hi - w) + h + low) + w;
}

static inline APO_HD double apo__log(double x) {
    double special;
    if (apo__log_special(x, &special))
        return special;
    const apo__log_parts p = apo__log_split(x);
    return apo__log_of(&p);
}

static inline APO_HD double apo__log10(double x) {
    double special;
    if (apo__log_special(x, &special))
        return special;
    const apo__log_parts p = apo__log_split(x);
    return apo__log10_of(&p);
}

/*
 * apo__exp, apo__log and apo__log10 once more, without a branch, for loops the compiler
 * vectorises: every value takes the operations it takes there, in the same order, so the same
 * bits (the tests check them against both); the special values are chosen at the end by selects
 * of the bits, integer operations, where a select of doubles would let gcc move one arm's
 * arithmetic under a branch (its -ftrapping-math does not run a floating operation the C did
 * not ask for), and the loop would stay scalar. On the avx2 and avx512 paths gcc vectorises the
 * element-wise loops of exp, ln and log10 over them (math_tile.h; 3 to 5 times the branching
 * forms' pace there), and faster still over their block forms below (apo__exp_block,
 * apo__log_block: the same operations, a series' step at a time across a block); as scalar code
 * they are slower than the branching forms (about 4 times on Zen 4 in a harness, cause not found
 * without the VM's counters), so the sse2 path and a GPU keep those.
 */

#define APO_BITS_NAN 0x7ff8000000000000ULL /* the NAN constant's */
#define APO_BITS_INF 0x7ff0000000000000ULL
#define APO_BITS_NEG_INF 0xfff0000000000000ULL
#define APO_BITS_ONE 0x3ff0000000000000ULL
#define APO_BITS_NEG_ZERO 0x8000000000000000ULL

/* apo__scale2 without a branch, for k given as the integer-valued double kd (|kd| <= 1100), as
 * (y 2^a) 2^b: where k is a normal exponent, b = 0 and the second product, by 1, is exact;
 * elsewhere apo__scale2's two steps. Each factor's exponent bits are the low bits of kd + 1.5
 * 2^52 + 1023 (exact), moved by integer adds, where an int k's conversion and widening cost a
 * vector loop more than the products (apo__exp_block). */
static inline APO_HD double apo__scale2_kd(double y, double kd) {
    const uint64_t kb = apo__bits_of(kd + (APO_ROUND_SHIFTER + 1023.0)); /* k + 1023 below */
    const int over = kd > 1023.0, under = kd < -1022.0;
    const uint64_t a = apo__pick_bits(over, 2046, apo__pick_bits(under, kb + 1000, kb));
    const uint64_t b = apo__pick_bits(over, kb - 1023, apo__pick_bits(under, 23, 1023));
    return (y * apo__double_of(a << 52)) * apo__double_of(b << 52);
}

/* Whether exp's value at x is its reduction's (not an overflow, an underflow to 0 or NaN). */
static inline APO_HD int apo__exp_ordinary(double x) {
    return (x <= APO_EXP_OVERFLOW) & (x >= APO_EXP_UNDERFLOW);
}

/* apo__exp_reduce_kd without a branch: an argument that is not ordinary is reduced as 0, a k
 * in range, and its value dropped (apo__exp_select_value). */
static inline APO_HD double apo__exp_select_reduce(double x, double *kd) {
    return apo__exp_reduce_kd(
        apo__double_of(apo__pick_bits(apo__exp_ordinary(x), apo__bits_of(x), 0)), kd);
}

/* exp(x) from its reduction: e^r - 1 = r + r^2 q (q the series' value) scaled by 2^k, or the
 * value of an argument that is not ordinary. */
static inline APO_HD double apo__exp_select_value(double x, double r, double q, double kd) {
    const double v = apo__scale2_kd(1.0 + apo__expm1_of_series(r, q), kd);
    const uint64_t other = x > APO_EXP_OVERFLOW    ? APO_BITS_INF
                           : x < APO_EXP_UNDERFLOW ? 0
                                                   : APO_BITS_NAN;
    return apo__double_of(apo__pick_bits(apo__exp_ordinary(x), apo__bits_of(v), other));
}

static inline APO_HD double apo__exp_select(double x) {
    double kd;
    const double r = apo__exp_select_reduce(x, &kd);
    return apo__exp_select_value(x, r, apo__expm1_series(r), kd);
}

#ifndef __CUDACC__
/* apo__exp_select of APO_EXP_BLOCK values x[] into e[], a stage at a time across the block: the
 * reductions, then each step of the series for every value, then the values. Why: each value's
 * series is a chain of 16 products and sums, one waiting on the next, and a loop over single
 * values (gcc's vector loop of apo__exp_select) keeps too few chains in flight to fill the
 * pipes; here each step has APO_EXP_BLOCK / lanes independent vectors. Each value takes
 * apo__exp_select's operations in its order, so the same bits (test_exp_log.c). On the Zen 3 VM
 * (avx2), 0.54 of the vector loop's time in a harness, and 0.61 for apo__log_block
 * (docs/kernels/transforms.md). */
#define APO_EXP_BLOCK 32
/* One step c of Horner's rule across a block: q[i] = c + arg q[i] for each of its n values
 * (arg an expression of i). */
#define APO__BLOCK_STEP(q, arg, c, n)                                                              \
    for (int i = 0; i < (n); i++)                                                                  \
        q[i] = (c) + (arg)*q[i];
static inline void apo__exp_block(const double *x, double *e) {
    double r[APO_EXP_BLOCK], kd[APO_EXP_BLOCK], q[APO_EXP_BLOCK];
    for (int i = 0; i < APO_EXP_BLOCK; i++) {
        r[i] = apo__exp_select_reduce(x[i], &kd[i]);
        q[i] = APO_EXPM1_TOP;
    }
#define APO__EXPM1_BLOCK_STEP(c) APO__BLOCK_STEP(q, r[i], c, APO_EXP_BLOCK)
    APO_EXPM1_SERIES(APO__EXPM1_BLOCK_STEP)
#undef APO__EXPM1_BLOCK_STEP
    for (int i = 0; i < APO_EXP_BLOCK; i++)
        e[i] = apo__exp_select_value(x[i], r[i], q[i], kd[i]);
}
#endif

/* apo__log_split for the bits of any double, without a branch, but for the tail r: the pieces
 * of an ordinary positive x; those of 1 for the others (a zero, a negative number, an infinity,
 * NaN), whose value the caller drops. */
static inline APO_HD apo__log_parts apo__log_split_select_head(uint64_t xb) {
    const int ordinary = (xb - 1) < (APO_BITS_INF - 1); /* x > 0 and below +inf, as integers */
    const uint64_t xob = apo__pick_bits(ordinary, xb, APO_BITS_ONE);
    /* apo__log_reduce: a subnormal (exponent bits 0) times 2^54 (a product by 1 otherwise,
     * exact); the mantissa above sqrt(2) (its double's fraction bits above sqrt(2)'s) halved
     * by its exponent. */
    const int sub = (xob >> 52) == 0;
    const double xs =
        apo__double_of(xob) *
        apo__double_of(apo__pick_bits(sub, (uint64_t)(1023 + 54) << 52, APO_BITS_ONE));
    const uint64_t bits = apo__bits_of(xs);
    const uint64_t frac = bits & 0x000fffffffffffffULL;
    const int high = frac > 0x6a09e667f3bcdULL;
    const double m =
        apo__double_of(frac | apo__pick_bits(high, APO_BITS_ONE - (1ULL << 52), APO_BITS_ONE));
    /* k = e - 1023 + high - 54 sub as a double, from the exponent bits e made a double by
     * 2^52's bits (exact: small integers throughout), where an integer's conversion costs a
     * vector loop shuffles between 32- and 64-bit lanes (apo__log_block). */
    const double e = apo__double_of(0x4330000000000000ULL | (bits >> 52)) - 0x1p52;
    const double k =
        ((e - 1023.0) + apo__pick_double(high, 1.0, 0.0)) - apo__pick_double(sub, 54.0, 0.0);
    apo__log_parts p;
    p.f = m - 1.0;
    p.s = p.f / (2.0 + p.f);
    p.hfsq = 0.5 * p.f * p.f;
    p.r = 0.0; /* the caller's: apo__log_tail(p.s) */
    p.kd = k;
    return p;
}

/* apo__log_split_select_head's pieces with their tail: apo__log_split without a branch. */
static inline APO_HD apo__log_parts apo__log_split_select(uint64_t xb) {
    apo__log_parts p = apo__log_split_select_head(xb);
    p.r = apo__log_tail(p.s);
    return p;
}

/* The bits of v where x (bits xb) is an ordinary positive number, else apo__log_special's. */
static inline APO_HD double apo__log_pick(uint64_t xb, double v) {
    const int ordinary = (xb - 1) < (APO_BITS_INF - 1);
    const int zero = (xb & ~APO_BITS_NEG_ZERO) == 0;
    const uint64_t other = apo__pick_bits(
        zero, APO_BITS_NEG_INF, apo__pick_bits(xb == APO_BITS_INF, APO_BITS_INF, APO_BITS_NAN));
    return apo__double_of(apo__pick_bits(ordinary, apo__bits_of(v), other));
}

static inline APO_HD double apo__log_select(double x) {
    const uint64_t xb = apo__bits_of(x);
    const apo__log_parts p = apo__log_split_select(xb);
    return apo__log_pick(xb, apo__log_of(&p));
}

static inline APO_HD double apo__log10_select(double x) {
    const uint64_t xb = apo__bits_of(x);
    const apo__log_parts p = apo__log_split_select(xb);
    return apo__log_pick(xb, apo__log10_of(&p));
}

#ifndef __CUDACC__
/* apo__log_select (base10: apo__log10_select) of APO_LOG_BLOCK values x[] into y[], a stage at
 * a time across the block as apo__exp_block: the pieces, each step of the tail's series for
 * every value, then the values; each value takes the select form's operations in its order, so
 * the same bits (test_exp_log.c). */
#define APO_LOG_BLOCK 32
static inline void apo__log_block(const double *x, double *y, int base10) {
    double f[APO_LOG_BLOCK], s[APO_LOG_BLOCK], hfsq[APO_LOG_BLOCK], kd[APO_LOG_BLOCK];
    double z[APO_LOG_BLOCK], q[APO_LOG_BLOCK];
    for (int i = 0; i < APO_LOG_BLOCK; i++) {
        const apo__log_parts p = apo__log_split_select_head(apo__bits_of(x[i]));
        f[i] = p.f;
        s[i] = p.s;
        hfsq[i] = p.hfsq;
        kd[i] = p.kd;
        z[i] = p.s * p.s;
        q[i] = APO_LOG_TAIL_TOP;
    }
#define APO__LOG_TAIL_BLOCK_STEP(c) APO__BLOCK_STEP(q, z[i], c, APO_LOG_BLOCK)
    APO_LOG_TAIL_SERIES(APO__LOG_TAIL_BLOCK_STEP)
#undef APO__LOG_TAIL_BLOCK_STEP
    for (int i = 0; i < APO_LOG_BLOCK; i++) {
        const apo__log_parts p = {kd[i], f[i], s[i], hfsq[i], z[i] * q[i]};
        y[i] = apo__log_pick(apo__bits_of(x[i]), base10 ? apo__log10_of(&p) : apo__log_of(&p));
    }
}
#endif

/* The largest |x| whose sinh and cosh are finite (ln(2 DBL_MAX)). */
#define APO_HYPERBOLIC_OVERFLOW 0x1.633ce8fb9f87ep+9

/* e^a / 2 for a >= 22 (where e^-a is below half an ulp of it): exp's 2^k (1 + p) scaled by
 * 2^(k-1), rounded once, so finite up to APO_HYPERBOLIC_OVERFLOW past exp's overflow. */
static inline APO_HD double apo__half_exp(double a) {
    if (a > APO_HYPERBOLIC_OVERFLOW)
        return INFINITY;
    int k;
    const double p = apo__exp_reduce(a, &k);
    return apo__scale2(1.0 + p, k - 1);
}

/* The coefficients of sinh's series in z = x^2 (apo__sinh_series), 1/19! down to 1/3!, which
 * Horner's q = c + z q takes after q = APO_SINH_TOP (1/21!): one list for the scalar form and
 * the block form (apo__sinh_block). */
#define APO_SINH_TOP 0x1.71b8ef6dcf572p-66
#define APO_SINH_SERIES(X)                                                                         \
    X(0x1.2f49b46814157p-57)                                                                       \
    X(0x1.952c77030ad4ap-49)                                                                       \
    X(0x1.ae7f3e733b81fp-41)                                                                       \
    X(0x1.6124613a86d09p-33)                                                                       \
    X(0x1.ae64567f544e4p-26)                                                                       \
    X(0x1.71de3a556c734p-19)                                                                       \
    X(0x1.a01a01a01a01ap-13)                                                                       \
    X(0x1.1111111111111p-7)                                                                        \
    X(0x1.5555555555555p-3)

/* The series' value q at z = x^2, by Horner's rule over APO_SINH_SERIES. */
static inline APO_HD double apo__sinh_series_q(double z) {
    double q = APO_SINH_TOP;
#define APO__SINH_STEP(c) q = (c) + z * q;
    APO_SINH_SERIES(APO__SINH_STEP)
#undef APO__SINH_STEP
    return q;
}

/* sinh(x) for |x| < 1 by its Taylor series to x^21 (the next term is below 2^-60 x): added
 * to x last, within about half an ulp, where expm1's E + E / (E + 1) reached 2 ulps. */
static inline APO_HD double apo__sinh_series(double x) {
    const double z = x * x;
    return x + x * (z * apo__sinh_series_q(z));
}

static inline APO_HD double apo__sinh(double x) {
    if (isnan(x))
        return NAN;
    const double a = fabs(x);
    double v;
    if (a < 0x1p-28) /* x^3/6 is below half an ulp of x */
        return x;
    if (a < 1.0)
        return apo__sinh_series(x);
    if (a < 22.0) {
        /* e^a - e^-a = E + E / (E + 1), E = e^a - 1: no cancellation near 0. */
        const double e = apo__expm1(a);
        v = 0.5 * (e + e / (e + 1.0));
    } else {
        v = apo__half_exp(a);
    }
    return x < 0.0 ? -v : v;
}

static inline APO_HD double apo__cosh(double x) {
    if (isnan(x))
        return NAN;
    const double a = fabs(x);
    if (a < 0.5 * APO_LN2_HI) {
        /* cosh - 1 = E^2 / (2 (1 + E)), E = e^a - 1: added to 1 last. */
        const double e = apo__expm1(a);
        return 1.0 + (e * e) / (2.0 * (1.0 + e));
    }
    if (a < 22.0) {
        const double e = apo__exp(a);
        return 0.5 * e + 0.5 / e;
    }
    return apo__half_exp(a);
}

/* tanh(a) for 0 <= a < 1 as a - d / cosh(a), d = a cosh(a) - sinh(a) = the sum over n >= 1 of
 * 2n a^(2n+1) / (2n+1)!, both series to a^21: the correction d / cosh is at most a third
 * of a, so its rounding costs a third of an ulp, and a is added last. (sinh / cosh reached
 * 2.5 ulps, (1 - e^-2a) / (1 + e^-2a) from expm1 2.4.) The coefficients of d / a^3 and of
 * cosh in z = a^2, each Horner's q = c + z q after its top term: one list each for the scalar
 * form and the block form (apo__tanh_block). */
#define APO_TANH_D_TOP 0x1.ce272b49432cep-62
#define APO_TANH_D_SERIES(X)                                                                       \
    X(0x1.5532eaf516982p-53)                                                                       \
    X(0x1.952c77030ad4ap-45)                                                                       \
    X(0x1.78af56a4d411bp-37)                                                                       \
    X(0x1.08db48ebe51c7p-29)                                                                       \
    X(0x1.0cfeb60f94b0ep-22)                                                                       \
    X(0x1.71de3a556c734p-16)                                                                       \
    X(0x1.3813813813814p-10)                                                                       \
    X(0x1.1111111111111p-5)                                                                        \
    X(0x1.5555555555555p-2)
#define APO_TANH_C_TOP 0x1.e542ba4020225p-62
#define APO_TANH_C_SERIES(X)                                                                       \
    X(0x1.6827863b97d97p-53)                                                                       \
    X(0x1.ae7f3e733b81fp-45)                                                                       \
    X(0x1.93974a8c07c9dp-37)                                                                       \
    X(0x1.1eed8eff8d898p-29)                                                                       \
    X(0x1.27e4fb7789f5cp-22)                                                                       \
    X(0x1.a01a01a01a01ap-16)                                                                       \
    X(0x1.6c16c16c16c17p-10)                                                                       \
    X(0x1.5555555555555p-5)                                                                        \
    X(0x1.0000000000000p-1)

/* tanh's series value from a, z = a^2 and the two series' values d and c. */
static inline APO_HD double apo__tanh_of_series(double a, double z, double d, double c) {
    return a - (a * (z * d)) / (1.0 + z * c);
}

/* The two series' values at z, into *d and *c. */
static inline APO_HD void apo__tanh_series_dc(double z, double *d, double *c) {
    double qd = APO_TANH_D_TOP, qc = APO_TANH_C_TOP;
#define APO__TANH_D_STEP(k) qd = (k) + z * qd;
#define APO__TANH_C_STEP(k) qc = (k) + z * qc;
    APO_TANH_D_SERIES(APO__TANH_D_STEP)
    APO_TANH_C_SERIES(APO__TANH_C_STEP)
#undef APO__TANH_D_STEP
#undef APO__TANH_C_STEP
    *d = qd;
    *c = qc;
}

static inline APO_HD double apo__tanh_series(double a) {
    const double z = a * a;
    double d, c;
    apo__tanh_series_dc(z, &d, &c);
    return apo__tanh_of_series(a, z, d, c);
}

static inline APO_HD double apo__tanh(double x) {
    if (isnan(x))
        return NAN;
    const double a = fabs(x);
    double v;
    if (a < 0x1p-28) /* x^3/3 is below half an ulp of x */
        return x;
    if (a < 1.0) {
        v = apo__tanh_series(a);
    } else if (a < 22.0) {
        /* 1 - 2 / (e^2a + 1): the quotient is small, so 1 - it is near 1. */
        v = 1.0 - 2.0 / (apo__expm1(2.0 * a) + 2.0);
    } else {
        v = 1.0; /* 1 - tanh(22) is below half an ulp of 1 */
    }
    return x < 0.0 ? -v : v;
}

/*
 * sinh, cosh and tanh without a branch, for the vectorised loops as exp's above: every arm of
 * apo__sinh (apo__cosh, apo__tanh) computed for every value, each reduction on an argument
 * kept finite and in its range where the value is another arm's (an arm whose value is dropped
 * may still overflow, harmlessly), and the value's own arm picked by its bits at the end; each
 * arm's operations are the branching form's in its order, so the same bits (test_exp_log.c). The
 * arms that take e^a share one reduction of a.
 */

/* apo__expm1's arm for k >= 0 (x from 0.7 to exp's overflow), from x's reduction p, k (the
 * double kd). */
static inline APO_HD double apo__expm1_up_select(double p, double kd) {
    /* 2^-k from kd's bits (apo__scale2_kd's way); beyond k = 56 not read. */
    const double inv = apo__double_of(apo__bits_of(-kd + (APO_ROUND_SHIFTER + 1023.0)) << 52);
    const double t = apo__pick_double(kd <= 56.0, inv, 0.0);
    const double small_k = (1.0 - t) + p, large_k = 1.0 + (p - t);
    const double u = apo__pick_double(kd < 20.0, small_k, large_k);
    return apo__scale2_kd(u, kd);
}

/* |x| where it is at most APO_HYPERBOLIC_OVERFLOW, else 0 (NaN included): the argument of the
 * arms of e^|x|. */
static inline APO_HD double apo__hyperbolic_reducible(double x) {
    return apo__pick_double(fabs(x) <= APO_HYPERBOLIC_OVERFLOW, fabs(x), 0.0);
}

/* The value of v where x is not NaN, else NAN's bits. */
static inline APO_HD double apo__nan_or(double x, uint64_t v) {
    return apo__double_of(apo__pick_bits(x == x, v, APO_BITS_NAN));
}

/* The bits of the far arm of sinh and cosh, e^a / 2 from exp's reduction p, kd of a = |x|, or
 * an infinity past APO_HYPERBOLIC_OVERFLOW (unsigned): spelled once for the whole forms and for
 * apo__hyperbolic_far_select, whose bits must be theirs. */
static inline APO_HD uint64_t apo__hyperbolic_far_bits(double a, double p, double kd) {
    const double far = apo__scale2_kd(1.0 + p, kd - 1.0); /* apo__half_exp */
    return apo__pick_bits(a <= APO_HYPERBOLIC_OVERFLOW, apo__bits_of(far), APO_BITS_INF);
}

/*
 * Each of sinh, cosh and tanh in three stages, which the select form runs one value at a time
 * and the block form (below) a stage at a time across a block: `reduce` forms the series'
 * arguments (r: exp's reduction of the e^a arms, kd its k; z: the square of the near arm's
 * argument), the series run by Horner's rule, and `value` picks the arm from the series'
 * values (qe: e^r - 1's; the near arm's: sinh's qs, cosh's qn, tanh's qd and qc).
 */
typedef struct apo__hyperbolic_args {
    double near; /* the near arm's argument: x for sinh, |x| for cosh and tanh, 0 off the arm */
    double z;    /* near * near (sinh and tanh) */
    double r, kd;
} apo__hyperbolic_args;

static inline APO_HD apo__hyperbolic_args apo__sinh_select_reduce(double x) {
    apo__hyperbolic_args g;
    g.r = apo__exp_reduce_kd(apo__hyperbolic_reducible(x), &g.kd);
    g.near = apo__pick_double(fabs(x) < 1.0, x, 0.0); /* 2^-28 <= a < 1, signed */
    g.z = g.near * g.near;
    return g;
}

static inline APO_HD double apo__sinh_select_value(double x, const apo__hyperbolic_args *g,
                                                   double qe, double qs) {
    const uint64_t xb = apo__bits_of(x);
    const double a = fabs(x);
    const double p = apo__expm1_of_series(g->r, qe);
    const double e = apo__expm1_up_select(p, g->kd);
    const double mid = 0.5 * (e + e / (e + 1.0)); /* 1 <= a < 22 */
    const double near = g->near + g->near * (g->z * qs);
    uint64_t v = apo__hyperbolic_far_bits(a, p, g->kd);
    v = apo__pick_bits(a < 22.0, apo__bits_of(mid), v) | (xb & APO_BITS_NEG_ZERO);
    v = apo__pick_bits(a < 1.0, apo__bits_of(near), v);
    return apo__nan_or(x, apo__pick_bits(a < 0x1p-28, xb, v));
}

static inline APO_HD apo__hyperbolic_args apo__cosh_select_reduce(double x) {
    apo__hyperbolic_args g;
    g.r = apo__exp_reduce_kd(apo__hyperbolic_reducible(x), &g.kd);
    g.near = apo__pick_double(fabs(x) < 0.5 * APO_LN2_HI, fabs(x), 0.0); /* e^a - 1 directly */
    g.z = 0.0;
    return g;
}

/* qn: the near arm's expm1 series at g->near. */
static inline APO_HD double apo__cosh_select_value(double x, const apo__hyperbolic_args *g,
                                                   double qe, double qn) {
    const double a = fabs(x);
    const double e1 = apo__expm1_of_series(g->near, qn);
    const double near = 1.0 + (e1 * e1) / (2.0 * (1.0 + e1));
    const double p = apo__expm1_of_series(g->r, qe);
    const double e = apo__scale2_kd(1.0 + p, g->kd); /* apo__exp(a) */
    const double mid = 0.5 * e + 0.5 / e;
    uint64_t v = apo__hyperbolic_far_bits(a, p, g->kd);
    v = apo__pick_bits(a < 22.0, apo__bits_of(mid), v);
    return apo__nan_or(x, apo__pick_bits(a < 0.5 * APO_LN2_HI, apo__bits_of(near), v));
}

static inline APO_HD apo__hyperbolic_args apo__tanh_select_reduce(double x) {
    const double a = fabs(x);
    apo__hyperbolic_args g;
    g.r = apo__exp_reduce_kd(2.0 * apo__pick_double(a < 22.0, a, 0.0), &g.kd);
    g.near = apo__pick_double(a < 1.0, a, 0.0);
    g.z = g.near * g.near;
    return g;
}

static inline APO_HD double apo__tanh_select_value(double x, const apo__hyperbolic_args *g,
                                                   double qe, double qd, double qc) {
    const uint64_t xb = apo__bits_of(x);
    const double a = fabs(x);
    const double near = apo__tanh_of_series(g->near, g->z, qd, qc);
    const double p = apo__expm1_of_series(g->r, qe);
    const double mid = 1.0 - 2.0 / (apo__expm1_up_select(p, g->kd) + 2.0);
    uint64_t v = apo__pick_bits(a < 22.0, apo__bits_of(mid), APO_BITS_ONE);
    v = apo__pick_bits(a < 1.0, apo__bits_of(near), v) | (xb & APO_BITS_NEG_ZERO);
    return apo__nan_or(x, apo__pick_bits(a < 0x1p-28, xb, v));
}

static inline APO_HD double apo__sinh_select(double x) {
    const apo__hyperbolic_args g = apo__sinh_select_reduce(x);
    return apo__sinh_select_value(x, &g, apo__expm1_series(g.r), apo__sinh_series_q(g.z));
}

static inline APO_HD double apo__cosh_select(double x) {
    const apo__hyperbolic_args g = apo__cosh_select_reduce(x);
    return apo__cosh_select_value(x, &g, apo__expm1_series(g.r), apo__expm1_series(g.near));
}

/* apo__sinh_select's (odd: 1) or apo__cosh_select's (0) value where |x| is at least 22 or x is
 * not finite: their far arm alone, e^|x| / 2 (an infinity past APO_HYPERBOLIC_OVERFLOW), with
 * x's sign for sinh (apo__hyperbolic_far_bits, the whole forms' arm), so their bits there.
 * The saturated blocks of math_tile.h take it. */
static inline APO_HD double apo__hyperbolic_far_select(double x, int odd) {
    const uint64_t xb = apo__bits_of(x);
    double kd;
    const double r = apo__exp_reduce_kd(apo__hyperbolic_reducible(x), &kd);
    const uint64_t v =
        apo__hyperbolic_far_bits(fabs(x), apo__expm1_of_series(r, apo__expm1_series(r)), kd);
    return apo__nan_or(x, odd ? v | (xb & APO_BITS_NEG_ZERO) : v);
}

static inline APO_HD double apo__tanh_select(double x) {
    const apo__hyperbolic_args g = apo__tanh_select_reduce(x);
    double qd, qc;
    apo__tanh_series_dc(g.z, &qd, &qc);
    return apo__tanh_select_value(x, &g, apo__expm1_series(g.r), qd, qc);
}

#ifndef __CUDACC__
/* sinh, cosh and tanh of APO_EXP_BLOCK values x[] into y[], a stage at a time across the block
 * as apo__exp_block: the reductions, each step of every series for every value, then the
 * values; each value takes the select form's operations in its order, so the same bits
 * (test_exp_log.c). */
#define APO__HYPERBOLIC_BLOCK(name, reduce_more, steps, value_args)                                \
    static inline void apo__##name##_block(const double *x, double *y) {                           \
        double near[APO_EXP_BLOCK], z[APO_EXP_BLOCK], r[APO_EXP_BLOCK], kd[APO_EXP_BLOCK];         \
        double qe[APO_EXP_BLOCK], q1[APO_EXP_BLOCK], q2[APO_EXP_BLOCK];                            \
        (void)q2; /* tanh's second near series only */                                             \
        for (int i = 0; i < APO_EXP_BLOCK; i++) {                                                  \
            const apo__hyperbolic_args g = apo__##name##_select_reduce(x[i]);                      \
            near[i] = g.near;                                                                      \
            z[i] = g.z;                                                                            \
            r[i] = g.r;                                                                            \
            kd[i] = g.kd;                                                                          \
            qe[i] = APO_EXPM1_TOP;                                                                 \
            reduce_more;                                                                           \
        }                                                                                          \
        steps;                                                                                     \
        for (int i = 0; i < APO_EXP_BLOCK; i++) {                                                  \
            const apo__hyperbolic_args g = {near[i], z[i], r[i], kd[i]};                           \
            y[i] = apo__##name##_select_value value_args;                                          \
        }                                                                                          \
    }
#define APO__BLOCK_EXPM1(c) APO__BLOCK_STEP(qe, r[i], c, APO_EXP_BLOCK)
#define APO__BLOCK_NEAR_EXPM1(c) APO__BLOCK_STEP(q1, near[i], c, APO_EXP_BLOCK)
#define APO__BLOCK_SINH(c) APO__BLOCK_STEP(q1, z[i], c, APO_EXP_BLOCK)
#define APO__BLOCK_TANH_D(c) APO__BLOCK_STEP(q1, z[i], c, APO_EXP_BLOCK)
#define APO__BLOCK_TANH_C(c) APO__BLOCK_STEP(q2, z[i], c, APO_EXP_BLOCK)
APO__HYPERBOLIC_BLOCK(sinh, q1[i] = APO_SINH_TOP,
                      APO_EXPM1_SERIES(APO__BLOCK_EXPM1) APO_SINH_SERIES(APO__BLOCK_SINH),
                      (x[i], &g, qe[i], q1[i]))
APO__HYPERBOLIC_BLOCK(cosh, q1[i] = APO_EXPM1_TOP,
                      APO_EXPM1_SERIES(APO__BLOCK_EXPM1) APO_EXPM1_SERIES(APO__BLOCK_NEAR_EXPM1),
                      (x[i], &g, qe[i], q1[i]))
APO__HYPERBOLIC_BLOCK(tanh, (q1[i] = APO_TANH_D_TOP, q2[i] = APO_TANH_C_TOP),
                      APO_EXPM1_SERIES(APO__BLOCK_EXPM1) APO_TANH_D_SERIES(APO__BLOCK_TANH_D)
                          APO_TANH_C_SERIES(APO__BLOCK_TANH_C),
                      (x[i], &g, qe[i], q1[i], q2[i]))
#undef APO__BLOCK_EXPM1
#undef APO__BLOCK_NEAR_EXPM1
#undef APO__BLOCK_SINH
#undef APO__BLOCK_TANH_D
#undef APO__BLOCK_TANH_C
#undef APO__BLOCK_STEP
#undef APO__HYPERBOLIC_BLOCK
#endif

#endif /* APO_KERNELS_EXP_LOG_H */

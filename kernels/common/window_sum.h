/*
 * window_sum.h: exact-restart sums over a window, for the catalog's sliding bodies.
 */
#ifndef APO_KERNELS_WINDOW_SUM_H
#define APO_KERNELS_WINDOW_SUM_H

#include "dd.h"

/* The double-double sum of x[from .. to), in index order. */
static inline APO_HD apo__dd apo__dd_sum(const double *x, size_t from, size_t to) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = from; i < to; i++)
        s = apo__dd_add_d(s, x[i]);
    return s;
}

/* The double-double sum of x[i]^2 over [from, to), in index order. */
static inline APO_HD apo__dd apo__dd_sum_sq(const double *x, size_t from, size_t to) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = from; i < to; i++)
        s = apo__dd_add(s, apo__two_prod(x[i], x[i]));
    return s;
}

/*
 * Sliding a sum kept as a double-double, cheaply: hi is the running sum in plain double
 * and lo gathers the exact rounding errors of the hi steps (TwoSum), without the
 * renormalisation of apo__dd_add_d after every step. The serial chain per step is then one
 * plain add of hi (the difference of the samples in and out, exact by TwoSum, and lo's add
 * run beside it), where two apo__dd_add_d put about fourteen dependent operations on it.
 * At every sample t that is a multiple of APO_DD_FOLD, lo is folded into hi (TwoSum), so
 * that |lo| stays below about APO_DD_FOLD eps M (eps = 2^-53, M bounding the running sums
 * and the samples). Between folds the sum is unnormalised (|lo| may exceed ulp(hi) / 2);
 * it is read through apo__dd_settle.
 *
 * Accuracy: hi + (exact sum of the errors) is the exact sum, so the only error is lo's own
 * rounding: about eps |lo| per step, so about m APO_DD_FOLD eps^2 M over m steps from an
 * exact restart, APO_DD_FOLD times the bound of a double-double renormalised at every step
 * (m eps^2 M). Without the folds |lo| would grow with m and the bound with m^2, which a
 * variance cancelled to 1e-13 of M (a window of 2 close samples) over a 4096-step tile
 * already shows at 1e-12. The folds sit at fixed sample indices and the bodies restart the
 * sums exactly at each tile's first clean window, so the result stays a pure function of
 * the tile grid (docs/kernels.md, "Sliding windows"). The fold is a branch: taken once in
 * 16 samples, its mispredictions made sma about 40% slower; once in 64, they do not show.
 */
#define APO_DD_FOLD 64

/* s at sample t: folded (lo into hi) where t is a multiple of APO_DD_FOLD. */
static APO_HD_STEP APO_HD apo__dd apo__dd_fold(apo__dd s, size_t t) {
    return t % APO_DD_FOLD == 0 ? apo__two_sum(s.hi, s.lo) : s;
}

/* s + in - out, the sum slid to sample t by one sample in and one out: in - out = d + e
 * exactly, computed off the chain, so hi takes one add per step. */
static APO_HD_STEP APO_HD apo__dd apo__dd_slide(apo__dd s, double in, double out, size_t t) {
    const apo__dd d = apo__two_sum(in, -out);
    const apo__dd a = apo__two_sum(s.hi, d.hi);
    return apo__dd_fold(apo__dd_make(a.hi, s.lo + (a.lo + d.lo)), t);
}

/* s + in - out with double-double terms (exact products: apo__two_prod). */
static APO_HD_STEP APO_HD apo__dd apo__dd_slide_dd(apo__dd s, apo__dd in, apo__dd out, size_t t) {
    const apo__dd d = apo__two_sum(in.hi, -out.hi);
    const apo__dd a = apo__two_sum(s.hi, d.hi);
    return apo__dd_fold(apo__dd_make(a.hi, s.lo + ((a.lo + d.lo) + (in.lo - out.lo))), t);
}

/* s + x, the sum gathered to term i, one term in and none out, the same way. */
static APO_HD_STEP APO_HD apo__dd apo__dd_gather(apo__dd s, double x, size_t i) {
    const apo__dd a = apo__two_sum(s.hi, x);
    return apo__dd_fold(apo__dd_make(a.hi, s.lo + a.lo), i);
}

/* The normalised double-double of a slid sum: TwoSum, which, unlike Dekker's quick sum,
 * is exact whichever of hi and lo is larger (after a cancellation, lo can be). */
static APO_HD_STEP APO_HD apo__dd apo__dd_settle(apo__dd s) { return apo__two_sum(s.hi, s.lo); }

/*
 * Blocked slides: the bodies slide a sum over a block of samples in three loops, so that
 * only one of them is serial. The first computes every step's terms (apo__dd_block_step,
 * apo__dd_block_step_dd: the TwoSum of the samples in and out, and the products), which do
 * not depend on the sum and so vectorise; the second (apo__dd_block_slide) runs the two
 * adds a step puts on the sum's chain and the TwoSum of its hi (two sums' slides on the CPU
 * in three passes, of which only the chains of hi and of lo are serial: below); the third
 * reads the slid sums to form the outputs (quotients, square roots, the centred moments'
 * double-double products), again independent across samples. Each step performs the same operations
 * in the same order as apo__dd_slide and apo__dd_slide_dd, so the sums and outputs keep their bits,
 * however the samples are cut into blocks.
 *
 * A block ends at a fold (apo__dd_block_end), so its only fold is at its last sample, and
 * holds at most APO_DD_FOLD samples: the scratch is a fixed stack block on the CPU and the
 * GPU alike.
 */
typedef struct apo__dd_block {
    double h[APO_DD_FOLD]; /* before the slide, the steps' in - out rounded; after, the sums' hi */
    double l[APO_DD_FOLD]; /* before, that difference's error; after, the sums' lo */
    double x[APO_DD_FOLD]; /* the steps' in.lo - out.lo (apo__dd_slide_dd only) */
} apo__dd_block;

/* One past the last sample of the block starting at t: the first multiple of APO_DD_FOLD
 * at or after t (t itself when it is one), plus one, or end if that comes first. */
static inline APO_HD size_t apo__dd_block_end(size_t t, size_t end) {
    const size_t fold = t + (APO_DD_FOLD - t % APO_DD_FOLD) % APO_DD_FOLD;
    return fold + 1 < end ? fold + 1 : end;
}

/* Step k's terms for apo__dd_slide(s, in, out, .). */
static inline APO_HD void apo__dd_block_step(apo__dd_block *b, size_t k, double in, double out) {
    const apo__dd d = apo__two_sum(in, -out);
    b->h[k] = d.hi;
    b->l[k] = d.lo;
}

/* Step k's terms for apo__dd_slide_dd(s, in, out, .). */
static inline APO_HD void apo__dd_block_step_dd(apo__dd_block *b, size_t k, apo__dd in,
                                                apo__dd out) {
    apo__dd_block_step(b, k, in.hi, out.hi);
    b->x[k] = in.lo - out.lo;
}

/* The sum after the last of a block's n > 0 steps (at sample t + n - 1), folded there as
 * apo__dd_slide folds it (apo__dd_fold), and written back as b's last sum. Every blocked
 * slide ends with it, whatever ran its steps. */
static inline APO_HD apo__dd apo__dd_block_last(apo__dd_block *b, apo__dd s, size_t t, size_t n) {
    s = apo__dd_fold(s, t + n - 1);
    b->h[n - 1] = s.hi;
    b->l[n - 1] = s.lo;
    return s;
}

#ifndef __CUDA_ARCH__
/*
 * A block's slide in three passes on the CPU: the chain of hi alone (sh[k + 1] = sh[k] + h[k],
 * the TwoSum's rounded sum), then every step's TwoSum error and lo term, which need only sh[k],
 * h[k] and sh[k + 1] and so vectorise, then the chain of lo. A TwoSum's error is the exact
 * remainder whoever computes it and lo's additions keep their order, so every sum has
 * apo__dd_block_slide's bits. Each chain takes one add a step (three cycles of latency) where
 * the loop puts eight or nine adds a step on the core's two adders; one sum's loop is no
 * slower than its two chains one after the other (adr and rvol took 1.1 to 1.25 times as
 * long in passes, docs/perf-log/2026-11-29-terms-once-a-bar.md), so the passes serve two sums
 * slid side by side (their chains interleaved, apo__dd_block_slide_two), whose loop puts
 * sixteen adds or more a step on the two adders, and a body that runs the chain of hi beside
 * serial work of its own (massi's recurrences: massi_tile.h). The GPU keeps the loop (a
 * thread's steps are serial either way).
 */

/* The second pass, after a first that left the chain of hi in sh[0 .. n]: b's h becomes the
 * sums' hi and b's l each step's lo term. */
static inline void apo__dd_block_errors(apo__dd_block *b, const double *sh, size_t n, int dd) {
    for (size_t k = 0; k < n; k++) {
        const double a = sh[k], x = b->h[k], s = sh[k + 1], bb = s - a;
        const double e = (a - (s - bb)) + (x - bb);
        b->l[k] = dd ? (e + b->l[k]) + b->x[k] : e + b->l[k];
        b->h[k] = s;
    }
}

/* The third pass: the chain of lo from *lo, the sum's lo before the block, which becomes
 * its lo after it (unfolded); b's l the sums' lo. */
static inline void apo__dd_block_lo_chain(double *lo, apo__dd_block *b, size_t n) {
    double l = *lo;
    for (size_t k = 0; k < n; k++) {
        l = l + b->l[k];
        b->l[k] = l;
    }
    *lo = l;
}

/* The second and third passes, for a body whose first pass runs in its own loop (massi's
 * chain of hi beside its recurrences: massi_tile.h). */
static inline void apo__dd_block_lo_passes(double *lo, apo__dd_block *b, const double *sh, size_t n,
                                           int dd) {
    apo__dd_block_errors(b, sh, n, dd);
    apo__dd_block_lo_chain(lo, b, n);
}

/* The three passes of two sums over the same steps, their chains side by side. */
static inline void apo__dd_block_passes_two(double *hi, double *lo, apo__dd_block *b, int dd_b,
                                            double *hj, double *lj, apo__dd_block *c, int dd_c,
                                            size_t n) {
    double sh[APO_DD_FOLD + 1], uh[APO_DD_FOLD + 1];
    sh[0] = *hi;
    uh[0] = *hj;
    for (size_t k = 0; k < n; k++) {
        sh[k + 1] = sh[k] + b->h[k];
        uh[k + 1] = uh[k] + c->h[k];
    }
    apo__dd_block_errors(b, sh, n, dd_b);
    apo__dd_block_errors(c, uh, n, dd_c);
    double l = *lo, m = *lj;
    for (size_t k = 0; k < n; k++) {
        l = l + b->l[k];
        m = m + c->l[k];
        b->l[k] = l;
        c->l[k] = m;
    }
    *hi = sh[n];
    *lo = l;
    *hj = uh[n];
    *lj = m;
}
#endif

/* Slides s over the n steps of b at samples t .. t + n - 1 (a block: apo__dd_block_end),
 * with the terms of apo__dd_block_step_dd when dd is 1, of apo__dd_block_step when 0. b's
 * h and l then hold the sum after each step; the last one is returned. */
static inline APO_HD apo__dd apo__dd_block_slide(apo__dd s, apo__dd_block *b, size_t t, size_t n,
                                                 int dd) {
    double hi = s.hi, lo = s.lo;
    for (size_t k = 0; k < n; k++) {
        const apo__dd a = apo__two_sum(hi, b->h[k]);
        lo = dd ? lo + ((a.lo + b->l[k]) + b->x[k]) : lo + (a.lo + b->l[k]);
        hi = a.hi;
        b->h[k] = hi;
        b->l[k] = lo;
    }
    if (n == 0)
        return s;
    return apo__dd_block_last(b, apo__dd_make(hi, lo), t, n);
}

/* Two sums, as a block returns them: a body's sums passed to it by address would stay in
 * memory in the body's own steps too, a store and a load on each step's serial chain. */
typedef struct apo__dd_pair {
    apo__dd a, b;
} apo__dd_pair;

static inline APO_HD apo__dd_pair apo__dd_pair_of(apo__dd a, apo__dd b) {
    const apo__dd_pair both = {a, b};
    return both;
}

/* apo__dd_block_slide(s, b, t, n, dd_b) and apo__dd_block_slide(u, c, t, n, dd_c) with the
 * two sums' chains side by side (var's and zscore's S1 and S2, mvwap's flow and volume), the
 * same operations on each sum, so the same bits: on the CPU in the three passes, on the GPU
 * in one loop. Returns both sums. */
static inline APO_HD apo__dd_pair apo__dd_block_slide_two(apo__dd s, apo__dd_block *b, int dd_b,
                                                          apo__dd u, apo__dd_block *c, int dd_c,
                                                          size_t t, size_t n) {
    if (n == 0)
        return apo__dd_pair_of(s, u);
    double sh = s.hi, sl = s.lo, uh = u.hi, ul = u.lo;
#ifndef __CUDA_ARCH__
    apo__dd_block_passes_two(&sh, &sl, b, dd_b, &uh, &ul, c, dd_c, n);
#else
    for (size_t k = 0; k < n; k++) {
        const apo__dd a = apo__two_sum(sh, b->h[k]), d = apo__two_sum(uh, c->h[k]);
        sl = dd_b ? sl + ((a.lo + b->l[k]) + b->x[k]) : sl + (a.lo + b->l[k]);
        ul = dd_c ? ul + ((d.lo + c->l[k]) + c->x[k]) : ul + (d.lo + c->l[k]);
        sh = a.hi;
        uh = d.hi;
        b->h[k] = sh;
        b->l[k] = sl;
        c->h[k] = uh;
        c->l[k] = ul;
    }
#endif
    return apo__dd_pair_of(apo__dd_block_last(b, apo__dd_make(sh, sl), t, n),
                           apo__dd_block_last(c, apo__dd_make(uh, ul), t, n));
}

/* Slides s, the sum of the window of p samples of x, over the block t .. e - 1: b then holds
 * the sums after each step (apo__dd_block_slide); the last is returned. */
static inline APO_HD apo__dd apo__dd_block_window_sum(apo__dd s, const double *x, size_t p,
                                                      size_t t, size_t e, apo__dd_block *b) {
    for (size_t k = 0; k < e - t; k++)
        apo__dd_block_step(b, k, x[t + k], x[t + k - p]);
    return apo__dd_block_slide(s, b, t, e - t, 0);
}

/* The sum after step k of a slid block (apo__dd_block_slide), settled. */
static inline APO_HD apo__dd apo__dd_block_sum(const apo__dd_block *b, size_t k) {
    return apo__dd_settle(apo__dd_make(b->h[k], b->l[k]));
}

/* The sums before each of the n steps of a slid block into before (s0, the sum the block
 * started from, before step 0): a copy, so that a loop reading them has no branch and
 * vectorises. */
static inline APO_HD void apo__dd_block_before(const apo__dd_block *b, apo__dd s0, size_t n,
                                               apo__dd_block *before) {
    before->h[0] = s0.hi;
    before->l[0] = s0.lo;
    for (size_t k = 1; k < n; k++) {
        before->h[k] = b->h[k - 1];
        before->l[k] = b->l[k - 1];
    }
}

/* 1 when the samples x[t .. e) are all finite. No early exit: a block is almost always
 * clean, and then every sample is read anyway. The test is on the bits: a sample's exponent
 * field plus one reaches the sign bit exactly where the field is all ones (an infinity or a
 * NaN), so the or of those sums keeps its top bit clear where every sample is finite. Three
 * integer operations a vector on every path, where a comparison a sample (fabs(x) <= DBL_MAX)
 * left the sse2 loop scalar and had gcc pack each vector's flags into ints for avx2: cmf at
 * 1e4 bars went from 4.46 to 4.22-4.26 ns a bar on the Zen 3 VM
 * (docs/perf-log/2026-12-06-zen3-finite-bits.md). */
static inline APO_HD int apo__block_finite(const double *x, size_t t, size_t e) {
    const uint64_t exponent = 0x7ff0000000000000ULL, exponent_one = 0x0010000000000000ULL;
    uint64_t seen = 0;
    for (size_t i = t; i < e; i++)
        seen |= (apo__bits_of(x[i]) & exponent) + exponent_one;
    return (int)(seen >> 63) ^ 1;
}

/* 1 when the samples [t, e) of the first n_in inputs are all finite. */
static inline APO_HD int apo__inputs_finite(const double *const *in, size_t n_in, size_t t,
                                            size_t e) {
    int ok = 1;
    for (size_t i = 0; i < n_in; i++)
        ok = ok & apo__block_finite(in[i], t, e);
    return ok;
}

/* e, when the span t .. e - 1 holds at least `least` samples and no non-finite sample of the
 * n_in inputs; otherwise t, and where the span holds a gap, *plain_until becomes e, so that its
 * positions take the per-bar step without testing it again (the rule of sliding_sums.h's
 * blocks and sliding_plain.h's chunks). */
static inline APO_HD size_t apo__clean_span_end(const double *const *in, size_t n_in, size_t t,
                                                size_t e, size_t least, size_t *plain_until) {
    if (e - t < least)
        return t;
    if (apo__inputs_finite(in, n_in, t, e))
        return e;
    *plain_until = e;
    return t;
}

/* The fewest samples worth a block: the three loops cost more than the body's own steps on
 * a few samples (a stream's update of one bar took about twice as long as a block). */
#define APO_DD_BLOCK_MIN 8

/* The end of the block starting at t (apo__dd_block_end) when all its windows are clean
 * and can be slid as a block: the window before t was (valid 1), the block holds at least
 * APO_DD_BLOCK_MIN samples and no non-finite sample of the n_in inputs. Otherwise t, the
 * position then taking the body's own step, and when the block holds a gap, *plain_until
 * becomes the block's end, so that its other positions take theirs too without testing it
 * again. */
static inline APO_HD size_t apo__clean_block_end(const double *const *in, size_t n_in, int valid,
                                                 size_t t, size_t end, size_t *plain_until) {
    if (!valid || t < *plain_until)
        return t;
    return apo__clean_span_end(in, n_in, t, apo__dd_block_end(t, end), APO_DD_BLOCK_MIN,
                               plain_until);
}

#endif /* APO_KERNELS_WINDOW_SUM_H */

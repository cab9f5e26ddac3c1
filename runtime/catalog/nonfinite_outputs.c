/*
 * Counting outputs that are not finite although their inputs are (nonfinite_outputs.h).
 * The rules mirror what each kernel defines (kernels/averages/bollinger.c,
 * kernels/oscillators/macd.c): which positions are NaN by definition (the warm-up, windows or
 * samples that are not finite) is decided from the inputs here, never from the output values.
 */
#include "catalog/nonfinite_outputs.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

/* 1 when every value of the `n` arrays over [from, end) has a biased exponent below
 * `limit` (2047: every value is finite; an infinity or a NaN has all 11 exponent bits set).
 * Adding 2048 - limit to the exponent field carries into the sign bit exactly when the
 * exponent reaches `limit`, so the loop is integer and-add-or only, which the compiler
 * vectorises; it runs on data still in cache. */
static int all_below(const double *const *arrays, size_t n, size_t from, size_t end,
                     unsigned limit) {
    const uint64_t exponent = 0x7ff0000000000000u, add = (uint64_t)(2048 - limit) << 52;
    uint64_t carried = 0;
    for (size_t a = 0; a < n; a++) {
        const double *v = arrays[a];
        for (size_t t = from; t < end; t++) {
            uint64_t bits;
            memcpy(&bits, &v[t], sizeof bits);
            carried |= (bits & exponent) + add;
        }
    }
    return (carried >> 63) == 0;
}

/* The biased exponent below which every double is at most `bound` (> 0) in magnitude. */
static unsigned exponent_limit(double bound) {
    int e;
    frexp(bound, &e); /* bound = m 2^e, m in [0.5, 1): 2^(e-1) <= bound */
    int limit = 1023 + e - 1;
    return limit < 1 ? 1u : limit > 2047 ? 2047u : (unsigned)limit;
}

/* The outputs of one row of a call with `cols` positions. */
static void row_outputs(const apo__call *call, size_t row, double *outs[APO_MAX_IO]) {
    for (size_t o = 0; o < call->kernel->n_outputs; o++)
        outs[o] = call->outputs[o] + row * call->cols;
}

/* How many of the outputs at position t are not finite. */
static uint64_t nonfinite_at(double *const *outs, size_t n, size_t t) {
    uint64_t count = 0;
    for (size_t o = 0; o < n; o++)
        count += !isfinite(outs[o][t]);
    return count;
}

/* The samples bollinger computes through without overflow and with its documented accuracy
 * (docs/kernels.md, "Range"): with |x| <= B in a window, deviations are at most 4B, the
 * exact evaluation's M2 <= p (4B)^2 and the error-bound test's 65536 var <= 65536 (4B)^2
 * stay finite when 16 max(p, 65536) B^2 <= DBL_MAX, and a band is at most
 * (1 + 4 |nbdev|) B. */
static double bollinger_bound(size_t p, double nbdev_up, double nbdev_dn) {
    double nbdev = fmax(fabs(nbdev_up), fabs(nbdev_dn));
    double scale = 16.0 * fmax((double)p, 65536.0);
    return fmin(sqrt(DBL_MAX / scale), DBL_MAX / (1.0 + 4.0 * nbdev));
}

uint64_t apo__bollinger_nonfinite(const apo__call *call, size_t row, size_t begin, size_t end) {
    const size_t p = (size_t)call->params[0], n_out = call->kernel->n_outputs;
    const size_t from = begin > p - 1 ? begin : p - 1;
    if (from >= end)
        return 0;
    const double *x = call->inputs[0] + row * call->cols;
    /* Samples within the range: nothing can overflow. This reads the input once more (the
     * outputs are three times its size). */
    const double *input[1] = {x};
    if (all_below(input, 1, from + 1 - p, end,
                  exponent_limit(bollinger_bound(p, call->params[1], call->params[2]))))
        return 0;
    double *outs[APO_MAX_IO];
    row_outputs(call, row, outs);
    /* upper = middle + nbdev_up * sd (bollinger_tile.h) is finite only when middle and sd
     * are: a NaN or an infinity in either term leaves the sum NaN or infinite. So upper and
     * lower stand for all three outputs. */
    const double *upper_and_lower[2] = {outs[0], outs[2]};
    if (all_below(upper_and_lower, 2, from, end, 2047))
        return 0;
    /* Non-finite samples in the window ending at t, slid along. */
    size_t gaps = 0;
    for (size_t k = from + 1 - p; k <= from; k++)
        gaps += !isfinite(x[k]);
    uint64_t count = 0;
    for (size_t t = from; t < end; t++) {
        if (t > from)
            gaps += (size_t)!isfinite(x[t]) - (size_t)!isfinite(x[t - p]);
        if (gaps == 0)
            count += nonfinite_at(outs, n_out, t);
    }
    return count;
}

uint64_t apo__macd_nonfinite(const apo__call *call, size_t row, size_t begin, size_t end) {
    size_t fast = (size_t)call->params[0], slow = (size_t)call->params[1];
    const size_t signal = (size_t)call->params[2], n_out = call->kernel->n_outputs;
    if (fast > slow) {
        size_t swapped = fast;
        fast = slow;
        slow = swapped;
    }
    /* The index of the (slow + signal - 1)-th finite sample is the first output defined. */
    const size_t needed = slow + signal - 1;
    const size_t from = begin > needed - 1 ? begin : needed - 1;
    if (from >= end)
        return 0;
    double *outs[APO_MAX_IO];
    row_outputs(call, row, outs);
    const double *x = call->inputs[0] + row * call->cols;
    /* The running state (the seeds and the three EMAs, macd_tile.h) is never finite again
     * once it is not: from an infinity e, (v - e) k + e is NaN, and NaN stays NaN. And
     * hist = macd - signal is finite only when both are. So a finite hist at the tile's
     * last finite sample means the state never overflowed in the tile, read in O(1). */
    size_t last = end;
    while (last > from && !isfinite(x[last - 1]))
        last--;
    if (last == from || isfinite(outs[2][last - 1]))
        return 0;
    const size_t warmup = apo__macd_warmup(fast, slow, signal);
    size_t finite = 0;
    for (size_t k = begin > warmup ? begin - warmup : 0; k < begin; k++)
        finite += isfinite(x[k]) != 0;
    uint64_t count = 0;
    for (size_t t = begin; t < end; t++) {
        if (!isfinite(x[t]))
            continue;
        if (++finite >= needed)
            count += nonfinite_at(outs, n_out, t);
    }
    return count;
}

/*
 * Refusing negative volumes (volume_inputs.h).
 */
#include "catalog/volume_inputs.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error.h"
#include "catalog/scored_kernels.h"

/* The input of k that holds volumes, or k->n_inputs when it has none. */
static size_t volume_input(const apo__kernel *k) {
    const apo__kernel *ind = k->scoring != NULL ? k->scoring->indicator : k;
    if (!ind->builtin)
        return k->n_inputs;
    for (size_t i = 0; i < ind->n_inputs; i++)
        if (strcmp(ind->input_names[i], "volume") == 0)
            return i;
    return k->n_inputs;
}

/* The least of the row's values and 0, NaN skipped: what decides whether the row is searched
 * for a negative volume. Running minima side by side, so that the scan is bound neither by a
 * branch a bar nor by one minimum's latency: gcc does not vectorise this reduction without
 * -ffast-math (a branch-free `bad |= x < 0 && x > -inf` a bar took 0.54 ns a bar on a Zen 4,
 * a third of obv's call at 1e4 bars; eight scalar minima 0.15). On x86-64 they are MINPD's
 * pairs (SSE2, the baseline): MINPD gives its second operand where either is NaN, so a NaN
 * sample, taken as the first, leaves the minimum as it was, as the scalar `x < lo ? x : lo`
 * does. Eight pairs, the loads of four cycles at two a cycle, cover MINPD's latency (3 to 4). */
#if defined(__SSE2__)
static double row_least(const double *row, size_t n) {
    enum { PAIRS = 8 };
    __m128d lo[PAIRS];
    for (size_t j = 0; j < PAIRS; j++)
        lo[j] = _mm_setzero_pd();
    size_t t = 0;
    for (; t + 2 * PAIRS <= n; t += 2 * PAIRS)
        for (size_t j = 0; j < PAIRS; j++)
            lo[j] = _mm_min_pd(_mm_loadu_pd(row + t + 2 * j), lo[j]);
    for (size_t j = 1; j < PAIRS; j++)
        lo[0] = _mm_min_pd(lo[j], lo[0]);
    double pair[2];
    _mm_storeu_pd(pair, lo[0]);
    double least = pair[0] < pair[1] ? pair[0] : pair[1];
    for (; t < n; t++)
        least = row[t] < least ? row[t] : least;
    return least;
}
#else
static double row_least(const double *row, size_t n) {
    enum { CHAINS = 8 };
    double lo[CHAINS] = {0};
    size_t t = 0;
    for (; t + CHAINS <= n; t += CHAINS)
        for (size_t j = 0; j < CHAINS; j++)
            lo[j] = row[t + j] < lo[j] ? row[t + j] : lo[j];
    for (; t < n; t++)
        lo[0] = row[t] < lo[0] ? row[t] : lo[0];
    double least = 0;
    for (size_t j = 0; j < CHAINS; j++)
        least = lo[j] < least ? lo[j] : least;
    return least;
}
#endif

apo_status apo__check_volumes(const apo__kernel *k, const double *const *inputs, size_t rows,
                              size_t cols, const size_t *lengths, size_t stride, const char *fn,
                              const char *row_word) {
    const size_t v = volume_input(k);
    if (v >= k->n_inputs)
        return APO_OK;
    const double *x = inputs[v];
    size_t at = 0;
    for (size_t r = 0; r < rows; r++) {
        const size_t n = lengths != NULL ? lengths[r] : cols;
        const double *row = x + (stride > 0 ? r * stride : at);
        /* Negative volumes are rare, so the row is read once for its least value and
         * searched again only when that is below 0 (a negative volume, or a gap of -inf). */
        const int search = row_least(row, n) < 0;
        for (size_t t = 0; search && t < n; t++)
            if (row[t] < 0 && row[t] > -INFINITY)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "%s: %s: input %zu (volume) is %.17g at %s %zu, bar %zu: a volume "
                                 "is never negative (a non-finite one is a gap)",
                                 fn, k->name, v, row[t], row_word, r, t);
        at += n;
    }
    return APO_OK;
}

/* The split solver; see solver.h for the derivation. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "balance/solver.h"

typedef struct candidate {
    size_t index;
    double latency, cost;
} candidate;

/* By latency, then device index, so that the result does not depend on qsort's order. */
static int by_latency(const void *a, const void *b) {
    const candidate *x = a, *y = b;
    if (x->latency != y->latency)
        return x->latency < y->latency ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

apo_status apo__solve_split(const apo__model *models, const int *usable, size_t n, double total,
                            double *shares, double *makespan_s) {
    assert(n <= APO_MAX_DEVICES);
    candidate c[APO_MAX_DEVICES];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        shares[i] = 0;
        if (usable[i] && models[i].valid && models[i].cost_s > 0)
            c[m++] = (candidate){i, models[i].latency_s, models[i].cost_s};
    }
    if (m == 0)
        return APO_ERR_NO_DEVICE;
    /* One candidate (a runtime of one device, every learning call) is in order already:
     * glibc's qsort() costs a call and its setup even then. */
    if (m > 1)
        qsort(c, m, sizeof c[0], by_latency);

    /* T_k = (total + sum L/c) / sum 1/c over the first k devices. A device whose latency
     * is not below the makespan of the devices before it cannot shorten it, and neither
     * can any device after it (their latencies are no smaller): stop there. */
    double best = INFINITY;
    size_t best_k = 0;
    double sum_l_over_c = 0, sum_inv_c = 0;
    for (size_t k = 0; k < m; k++) {
        if (k > 0 && !(c[k].latency < best))
            break;
        sum_l_over_c += c[k].latency / c[k].cost;
        sum_inv_c += 1.0 / c[k].cost;
        double t = (total + sum_l_over_c) / sum_inv_c;
        if (t < best) {
            best = t;
            best_k = k + 1;
        }
    }
    /* Shares of the chosen prefix: n_i = (T - L_i) / c_i, normalised so that rounding in
     * the sums above cannot make them add up to anything but 1. */
    double sum = 0;
    for (size_t k = 0; k < best_k; k++) {
        double s = (best - c[k].latency) / c[k].cost;
        shares[c[k].index] = s > 0 ? s : 0;
        sum += shares[c[k].index];
    }
    if (!(sum > 0)) {
        /* total == 0: the fastest fixed time alone. */
        shares[c[0].index] = 1;
        sum = 1;
    }
    for (size_t k = 0; k < best_k; k++)
        shares[c[k].index] /= sum;
    *makespan_s = best;
    return APO_OK;
}

apo_status apo__solve_split_min(const apo__model *models, const int *usable,
                                const double *min_elements, size_t n, double total, double *shares,
                                double *makespan_s) {
    assert(n <= APO_MAX_DEVICES);
    int left[APO_MAX_DEVICES];
    memcpy(left, usable, n * sizeof *left);
    for (;;) {
        apo_status st = apo__solve_split(models, left, n, total, shares, makespan_s);
        if (st != APO_OK || min_elements == NULL)
            return st;
        /* The device given work furthest below its floor, and how many devices are left. */
        size_t worst = n, candidates = 0;
        double worst_fill = 1.0;
        for (size_t i = 0; i < n; i++) {
            candidates += left[i] && models[i].valid && models[i].cost_s > 0;
            if (!(shares[i] > 0))
                continue;
            const double fill = min_elements[i] > 0 ? shares[i] * total / min_elements[i] : 1.0;
            if (fill < worst_fill) {
                worst_fill = fill;
                worst = i;
            }
        }
        /* Every share fills its device, or the last device left must take it all. */
        if (worst == n || candidates < 2)
            return APO_OK;
        left[worst] = 0;
    }
}

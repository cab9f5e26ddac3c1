/* Cost models: fitting from profiling runs and online refinement; see model.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance/model.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The cost a model keeps when every time it saw was zero: a device too fast to measure. */
#define APO_TINY_COST 1e-15

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v ascending. A call refits each device's model from a window of 8 and up to 28
 * pair slopes: for so few values an insertion sort takes a fraction of qsort's calls
 * through cmp_double, which showed as a fifth of the runtime's own time per small call. */
static void sort_doubles(double *v, size_t n) {
    if (n > 32) {
        qsort(v, n, sizeof *v, cmp_double);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* x < y ? x : y and x > y ? x : y, so that a pair keeps both its values: MINSD and MAXSD on
 * x86-64 (SSE2, the baseline), where gcc compiles the selects as a branch. */
#if defined(__SSE2__)
static inline double lesser(double x, double y) {
    return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(x), _mm_set_sd(y)));
}
static inline double greater(double x, double y) {
    return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(x), _mm_set_sd(y)));
}
#else
static inline double lesser(double x, double y) { return x < y ? x : y; }
static inline double greater(double x, double y) { return x > y ? x : y; }
#endif

/* The most values sorted by odd-even transposition (sort_few). */
#define APO_SORT_FEW 16

/* The rounds over w[0 .. width): inlined at each constant width of sort_few, so that they
 * unroll and the values stay in registers. */
static inline void transposition_rounds(double *w, size_t width) {
#pragma GCC unroll 16
    for (size_t round = 0; round < width; round++)
#pragma GCC unroll 8
        for (size_t i = round % 2; i + 1 < width; i += 2) {
            const double a = w[i], b = w[i + 1];
            w[i] = lesser(b, a);
            w[i + 1] = greater(a, b);
        }
}

/* Sorts v ascending (n <= APO_SORT_FEW) by odd-even transposition: as many rounds of
 * independent compare-exchanges as values, each a minimum and a maximum, so nothing branches
 * on the values. A learning call takes six medians of 8 to 10 values (two models' times,
 * sizes and cost votes), where the insertion sort's branches on times that differ call by
 * call were mispredicted: 18% of a small call's time on the Zen 3 VM
 * (docs/perf-log/2026-12-07-zen3-learning-medians.md). Every exchange keeps the two values
 * it compares, so the sorted values are the insertion sort's: the same medians, but that a +0
 * and a -0, which compare equal, may change places. Only the pair slopes (robust_line) can
 * hold both, and a median of them that is a zero of either sign is refused there; times,
 * sizes, votes and residuals hold no -0. */
static void sort_few(double *v, size_t n) {
    /* Padded to 8 or 16 with +infinity, which sorts after every finite value, so that the
     * rounds are of a fixed size. */
    double w[APO_SORT_FEW];
    for (size_t i = 0; i < APO_SORT_FEW; i++)
        w[i] = i < n ? v[i] : INFINITY;
    if (n <= APO_SORT_FEW / 2)
        transposition_rounds(w, APO_SORT_FEW / 2);
    else
        transposition_rounds(w, APO_SORT_FEW);
    for (size_t i = 0; i < n; i++)
        v[i] = w[i];
}

double apo__median(double *v, size_t n) {
    if (n <= APO_SORT_FEW)
        sort_few(v, n);
    else
        sort_doubles(v, n);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Fits t = latency + n * cost to points by least squares; a negative intercept is
 * replaced by a fit through the origin. Returns 0, or -1 when the slope is not positive. */
static int fit_line(const double *n, const double *t, const double *w, size_t count,
                    double *latency, double *cost) {
    double sw = 0, sn = 0, st = 0;
    for (size_t i = 0; i < count; i++) {
        sw += w[i];
        sn += w[i] * n[i];
        st += w[i] * t[i];
    }
    double mn = sn / sw, mt = st / sw;
    double snn = 0, snt = 0;
    for (size_t i = 0; i < count; i++) {
        snn += w[i] * (n[i] - mn) * (n[i] - mn);
        snt += w[i] * (n[i] - mn) * (t[i] - mt);
    }
    double c = snn > 0 ? snt / snn : 0;
    double l = mt - c * mn;
    /* Times that do not grow with the size give no cost per element to fit. */
    if (!(c > 0))
        return -1;
    if (l < 0) {
        double nn = 0, nt = 0;
        for (size_t i = 0; i < count; i++) {
            nn += w[i] * n[i] * n[i];
            nt += w[i] * n[i] * t[i];
        }
        l = 0;
        c = nn > 0 ? nt / nn : 0;
    }
    if (!(c > 0) || !isfinite(c) || !isfinite(l))
        return -1;
    *latency = l;
    *cost = c;
    return 0;
}

apo_status apo__model_fit(const double *n, const double *t, size_t count, apo__model *out,
                          uint64_t *dropped, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    *dropped = 0;
    for (size_t i = 0; i < count; i++)
        if (!(n[i] > 0) || !isfinite(n[i]) || !(t[i] >= 0) || !isfinite(t[i])) {
            snprintf(err, err_size, "run %zu: %g elements in %g s is not a valid measurement", i,
                     n[i], t[i]);
            return APO_ERR_INVALID_ARGUMENT;
        }
    double *work = malloc(3 * (count + 1) * sizeof *work);
    if (work == NULL) {
        snprintf(err, err_size, "out of memory");
        return APO_ERR_OUT_OF_MEMORY;
    }
    double *sizes = work, *medians = work + count + 1, *scratch = work + 2 * (count + 1);
    size_t n_sizes = 0;
    uint64_t kept = 0;
    int *seen = calloc(count + 1, sizeof *seen);
    if (seen == NULL) {
        free(work);
        snprintf(err, err_size, "out of memory");
        return APO_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < count; i++) {
        if (seen[i])
            continue;
        size_t m = 0;
        for (size_t j = i; j < count; j++)
            if (n[j] == n[i]) {
                seen[j] = 1;
                scratch[m++] = t[j];
            }
        double med = apo__median(scratch, m);
        /* Absolute deviations from the median, for the MAD. */
        double *dev = malloc(m * sizeof *dev);
        if (dev == NULL) {
            free(seen);
            free(work);
            snprintf(err, err_size, "out of memory");
            return APO_ERR_OUT_OF_MEMORY;
        }
        for (size_t j = 0; j < m; j++)
            dev[j] = fabs(scratch[j] - med);
        double mad = apo__median(dev, m);
        free(dev);
        double limit = fmax(APO_OUTLIER_MADS * mad, APO_OUTLIER_MIN_REL * med);
        size_t k = 0;
        for (size_t j = 0; j < m; j++) {
            if (fabs(scratch[j] - med) > limit)
                (*dropped)++;
            else
                scratch[k++] = scratch[j];
        }
        /* The median itself always survives, so k > 0. */
        kept += k;
        sizes[n_sizes] = n[i];
        medians[n_sizes] = apo__median(scratch, k);
        n_sizes++;
    }
    free(seen);
    apo_status st = APO_OK;
    if (n_sizes < 2) {
        snprintf(err, err_size, "runs at %zu distinct size(s): a fit needs two or more", n_sizes);
        st = APO_ERR_INVALID_ARGUMENT;
    } else {
        double *weights = scratch; /* reused: one point per size, equal weights */
        for (size_t i = 0; i < n_sizes; i++)
            weights[i] = 1.0;
        if (fit_line(sizes, medians, weights, n_sizes, &out->latency_s, &out->cost_s) != 0) {
            /* Say what was measured: on a busy machine the medians are noise, and the cure
             * is a quieter moment rather than other sizes. */
            int len = snprintf(err, err_size, "the times do not grow with the size (medians:");
            for (size_t i = 0; i < n_sizes && len >= 0 && (size_t)len < err_size; i++)
                len += snprintf(err + len, err_size - (size_t)len, "%s %.0f in %.3g ms",
                                i ? "," : "", sizes[i], medians[i] * 1e3);
            if (len >= 0 && (size_t)len < err_size)
                snprintf(err + len, err_size - (size_t)len,
                         "): profile at larger sizes, or when the machine is less busy");
            st = APO_ERR_INVALID_ARGUMENT;
        } else {
            out->valid = 1;
            out->samples = kept;
        }
    }
    free(work);
    return st;
}

double apo__model_predict(const apo__model *m, double n) { return m->latency_s + n * m->cost_s; }

void apo__model_from_stored(apo__model *m, double latency_ms, double ms_per_melem,
                            uint64_t samples) {
    memset(m, 0, sizeof *m);
    m->latency_s = latency_ms / 1e3;
    m->cost_s = ms_per_melem / 1e9;
    m->samples = samples;
    m->valid = m->cost_s > 0 && m->latency_s >= 0 && isfinite(m->cost_s) && isfinite(m->latency_s);
}

/* ---- online refinement ------------------------------------------------------------------ */

/* The i-th oldest observation of the window. */
static size_t window_slot(const apo__model *m, unsigned i) {
    return (m->win_next + APO_MODEL_WINDOW - m->win_count + i) % APO_MODEL_WINDOW;
}

static void window_push(apo__model *m, double n, double t) {
    m->win_n[m->win_next] = n;
    m->win_t[m->win_next] = t;
    m->win_next = (m->win_next + 1) % APO_MODEL_WINDOW;
    if (m->win_count < APO_MODEL_WINDOW)
        m->win_count++;
}

/* Keeps only the newest `keep` observations and forgets the prior: the device changed. */
static void window_restart(apo__model *m, unsigned keep, int forget_latency) {
    double n[APO_MODEL_WINDOW], t[APO_MODEL_WINDOW];
    if (keep > m->win_count)
        keep = m->win_count;
    for (unsigned i = 0; i < keep; i++) {
        size_t s = window_slot(m, m->win_count - keep + i);
        n[i] = m->win_n[s];
        t[i] = m->win_t[s];
    }
    m->win_count = m->win_next = 0;
    for (unsigned i = 0; i < keep; i++)
        window_push(m, n[i], t[i]);
    m->has_prior = 0;
    m->off_run = 0;
    m->gross_run = 0;
    if (forget_latency)
        m->known_latency_s = 0;
}

/* The robust line through the window: the median of the slopes of pairs whose sizes spread,
 * and the median of t - cost * n. Returns 0, or -1 when no pair spreads or the line has no
 * positive cost or a negative latency. */
static int robust_line(const double *n, const double *t, unsigned k, double *latency,
                       double *cost) {
    double slopes[APO_MODEL_WINDOW * (APO_MODEL_WINDOW - 1) / 2];
    size_t n_slopes = 0;
    for (unsigned i = 0; i < k; i++)
        for (unsigned j = i + 1; j < k; j++)
            /* The sizes are finite and positive (observe() keeps no other): the plain
             * larger of the two is fmax()'s, without its call. */
            if (fabs(n[i] - n[j]) >= APO_MODEL_MIN_SPREAD * (n[i] > n[j] ? n[i] : n[j]))
                slopes[n_slopes++] = (t[j] - t[i]) / (n[j] - n[i]);
    if (n_slopes == 0)
        return -1;
    double c = apo__median(slopes, n_slopes);
    if (!(c > 0) || !isfinite(c))
        return -1;
    double rest[APO_MODEL_WINDOW];
    for (unsigned i = 0; i < k; i++)
        rest[i] = t[i] - c * n[i];
    double l = apo__median(rest, k);
    if (!(l >= 0) || !isfinite(l))
        return -1;
    *latency = l;
    *cost = c;
    return 0;
}

/* Sets latency and cost from the window (and the prior while it votes). */
static void refit(apo__model *m) {
    unsigned k = m->win_count;
    double n[APO_MODEL_WINDOW], t[APO_MODEL_WINDOW];
    for (unsigned i = 0; i < k; i++) {
        size_t s = window_slot(m, i);
        n[i] = m->win_n[s];
        t[i] = m->win_t[s];
    }
    double l, c;
    if (robust_line(n, t, k, &l, &c) == 0) {
        m->latency_s = m->known_latency_s = l;
        m->cost_s = c;
        m->valid = 1;
        return;
    }
    /* The sizes do not tell latency from cost: keep the latency known (from the prior or the
     * last line), unless the times seen are shorter than it, and take the median cost. */
    double scratch[APO_MODEL_WINDOW];
    memcpy(scratch, t, k * sizeof *t);
    double median_t = apo__median(scratch, k);
    memcpy(scratch, n, k * sizeof *n);
    double median_n = apo__median(scratch, k);
    l = m->known_latency_s < median_t ? m->known_latency_s : 0.5 * median_t;
    double votes[APO_MODEL_WINDOW + APO_MODEL_PRIOR_VOTES];
    size_t n_votes = 0;
    for (unsigned i = 0; i < k; i++)
        votes[n_votes++] = (t[i] - l) / n[i];
    if (m->has_prior) {
        /* The prior's time at the window's typical size, over the same latency. */
        double prior_t = m->prior_latency_s + median_n * m->prior_cost_s;
        for (int v = 0; v < APO_MODEL_PRIOR_VOTES; v++)
            votes[n_votes++] = (prior_t - l) / median_n;
    }
    c = apo__median(votes, n_votes);
    if (!(c > 0) || !isfinite(c)) {
        l = 0;
        for (unsigned i = 0; i < k; i++)
            votes[i] = t[i] / n[i];
        c = apo__median(votes, k);
    }
    if (!(c > 0) || !isfinite(c)) /* t == 0: a device so fast it measured nothing */
        c = APO_TINY_COST;
    m->latency_s = l;
    m->cost_s = c;
    m->valid = 1;
}

/* A signed run of consecutive observations off one way (+1 slower, -1 faster, 0 neither)
 * extended by the next one's direction. */
static int extend_run(int run, int dir) { return dir == 0 ? 0 : dir * run > 0 ? run + dir : dir; }

static void observe(apo__model *m, double n, double t, int after_gap) {
    if (!(n > 0) || !(t >= 0) || !isfinite(n) || !isfinite(t))
        return;
    if (m->valid && m->win_count == 0 && !m->has_prior) {
        /* A stored or profiled model meets its first observation: it becomes the prior. */
        m->has_prior = 1;
        m->prior_latency_s = m->known_latency_s = m->latency_s;
        m->prior_cost_s = m->cost_s;
    }
    int off = 0, gross = 0;
    if (m->valid) {
        double predicted = apo__model_predict(m, n);
        off = t > predicted * (1 + APO_MODEL_CHANGE_REL)   ? 1
              : t < predicted * (1 - APO_MODEL_CHANGE_REL) ? -1
                                                           : 0;
        gross = t > predicted * APO_MODEL_GROSS_FACTOR   ? 1
                : t < predicted / APO_MODEL_GROSS_FACTOR ? -1
                                                         : 0;
    }
    m->samples++;
    window_push(m, n, t);
    if (off != 0 && after_gap) {
        /* A probe's own latency is all the new window knows of it: keep the old one. */
        window_restart(m, 1, 0);
    } else {
        m->off_run = extend_run(m->off_run, off);
        m->gross_run = extend_run(m->gross_run, gross);
        if (abs(m->off_run) >= APO_MODEL_CHANGE_RUN)
            window_restart(m, APO_MODEL_CHANGE_RUN, 1);
        else if (abs(m->gross_run) >= APO_MODEL_GROSS_RUN)
            window_restart(m, APO_MODEL_GROSS_RUN, 1);
    }
    refit(m);
}

void apo__model_observe(apo__model *m, double n, double t) { observe(m, n, t, 0); }

void apo__model_observe_after_gap(apo__model *m, double n, double t) { observe(m, n, t, 1); }

unsigned apo__model_window(const apo__model *m, double *n, double *t) {
    for (unsigned i = 0; i < m->win_count; i++) {
        size_t s = window_slot(m, i);
        n[i] = m->win_n[s];
        t[i] = m->win_t[s];
    }
    return m->win_count;
}

void apo__model_restore(apo__model *m, const double *n, const double *t, unsigned count,
                        double prior_latency_s, double prior_cost_s, double known_latency_s,
                        int off_run) {
    if (!m->valid)
        return;
    m->win_count = m->win_next = 0;
    unsigned first = count > APO_MODEL_WINDOW ? count - APO_MODEL_WINDOW : 0;
    for (unsigned i = first; i < count; i++)
        if (n[i] > 0 && t[i] >= 0 && isfinite(n[i]) && isfinite(t[i]))
            window_push(m, n[i], t[i]);
    m->has_prior = prior_cost_s > 0 && prior_latency_s >= 0 && isfinite(prior_cost_s) &&
                   isfinite(prior_latency_s);
    m->prior_latency_s = m->has_prior ? prior_latency_s : 0;
    m->prior_cost_s = m->has_prior ? prior_cost_s : 0;
    m->known_latency_s =
        known_latency_s >= 0 && isfinite(known_latency_s) ? known_latency_s : m->latency_s;
    int limit = APO_MODEL_CHANGE_RUN - 1;
    m->off_run = off_run > limit ? limit : off_run < -limit ? -limit : off_run;
    m->gross_run = 0;
    if (m->win_count == 0) {
        /* Nothing to go on: the model alone, as apo__model_from_stored() leaves it. */
        m->has_prior = 0;
        m->off_run = 0;
    }
}

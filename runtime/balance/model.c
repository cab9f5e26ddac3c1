/* Cost models: fitting from profiling runs and online refinement; see model.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance/model.h"

/* Online refinement: the weight kept by earlier observations at each new one, and the
 * smaller weight kept when the new one is far from the prediction (a device that became
 * slower or faster should be followed within a call or two, not averaged away). */
#define APO_ONLINE_DECAY 0.5
#define APO_ONLINE_DECAY_ON_CHANGE 0.1
#define APO_ONLINE_CHANGE_REL 0.25
/* The sizes seen must spread by this coefficient of variation before the online fit
 * separates latency from cost; below it, the latency is kept and only the cost moves.
 * Two sizes 10% apart, decayed, reach about 0.045. */
#define APO_ONLINE_MIN_SPREAD 0.03

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double apo__median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
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

void apo__model_observe(apo__model *m, double n, double t) {
    if (!(n > 0) || !(t >= 0) || !isfinite(n) || !isfinite(t))
        return;
    double decay = APO_ONLINE_DECAY;
    if (m->valid) {
        double predicted = apo__model_predict(m, n);
        if (fabs(t - predicted) > APO_ONLINE_CHANGE_REL * predicted)
            decay = APO_ONLINE_DECAY_ON_CHANGE;
    }
    m->sw = m->sw * decay + 1;
    m->sn = m->sn * decay + n;
    m->st = m->st * decay + t;
    m->snn = m->snn * decay + n * n;
    m->snt = m->snt * decay + n * t;
    m->samples++;

    double mn = m->sn / m->sw, mt = m->st / m->sw;
    double var = m->snn / m->sw - mn * mn;
    double cov = m->snt / m->sw - mn * mt;
    if (var > (APO_ONLINE_MIN_SPREAD * mn) * (APO_ONLINE_MIN_SPREAD * mn)) {
        double c = cov / var, l = mt - c * mn;
        if (c > 0 && l >= 0 && isfinite(c)) {
            m->latency_s = l;
            m->cost_s = c;
            m->valid = 1;
            return;
        }
    }
    /* The sizes do not tell latency from cost: keep the latency (from the profile or an
     * earlier fit; at most half the time seen) and move the cost. */
    double l = m->valid ? fmin(m->latency_s, 0.5 * mt) : 0.0;
    double c = (mt - l) / mn;
    if (!(c > 0)) {
        l = 0;
        c = mt / mn;
    }
    if (!(c > 0)) /* t == 0: a device so fast it measured nothing; keep a tiny cost. */
        c = 1e-15;
    m->latency_s = l;
    m->cost_s = c;
    m->valid = 1;
}

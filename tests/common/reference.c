/*
 * reference.c: test data generator and naive long-double references (see reference.h).
 *
 * Nothing here is shared with the kernels of kernels/: the references recompute every
 * window or every recurrence from scratch in long double, which is what makes them worth
 * comparing to. The test data draws its numbers from the one SplitMix64 of apportion
 * (kernels/common/splitmix64.h), a hash that no kernel under test uses.
 */
#include "reference.h"

#include "splitmix64.h"

#include <assert.h>
#include <math.h>

/* ---- Random walk ------------------------------------------------------------------ */

#define WALK_LEVELS 40
#define WALK_SPAN ((uint64_t)1 << WALK_LEVELS)

/* A hash of the pair: the first SplitMix64 output of the seed's first output xor index. */
static uint64_t hash2(uint64_t seed, uint64_t index) {
    return apo__splitmix64(apo__splitmix64(seed, 0) ^ index, 0);
}

double apo__test_uniform(uint64_t seed, uint64_t index) {
    return (double)(hash2(seed, index) >> 11) * 0x1.0p-53;
}

/* A standard-ish normal variate for a node: the sum of four uniforms (Irwin-Hall), centred
 * and scaled to unit variance. Its tails are bounded, which tests do not mind. */
static double node_normal(uint64_t seed, uint64_t node) {
    const uint64_t a = hash2(seed, 2 * node);
    const uint64_t b = hash2(seed, 2 * node + 1);
    const double u = (double)(a >> 32) + (double)(a & 0xFFFFFFFFu) + (double)(b >> 32) +
                     (double)(b & 0xFFFFFFFFu);
    return (u * 0x1.0p-32 - 2.0) * sqrt(3.0);
}

typedef struct walk_ctx {
    uint64_t seed;
    size_t begin, end;
    double start, step;
    double *out;
} walk_ctx;

/* Fills the leaves of the bridge interval [lo, lo + len] that fall in [begin, end), given
 * the path values at both ends; each midpoint depends on its ends and its own index only. */
static void walk_fill(const walk_ctx *w, uint64_t lo, uint64_t len, double vlo, double vhi) {
    if (lo >= w->end || lo + len <= w->begin) {
        return;
    }
    if (len == 1) {
        w->out[lo - w->begin] = w->start + w->step * vlo;
        return;
    }
    const uint64_t h = len / 2;
    /* A Brownian bridge over 2h steps has midpoint variance h / 2. */
    const double vmid = 0.5 * (vlo + vhi) + sqrt(0.5 * (double)h) * node_normal(w->seed, lo + h);
    walk_fill(w, lo, h, vlo, vmid);
    walk_fill(w, lo + h, h, vmid, vhi);
}

void apo__test_random_walk_slice(uint64_t seed, size_t begin, size_t end, double start, double step,
                                 double *out) {
    assert(begin <= end && (uint64_t)end <= WALK_SPAN);
    const walk_ctx w = {seed, begin, end, start, step, out};
    const double vend = sqrt((double)WALK_SPAN) * node_normal(seed, WALK_SPAN);
    walk_fill(&w, 0, WALK_SPAN, 0.0, vend);
}

void apo__test_random_walk(uint64_t seed, size_t n, double start, double step, double *out) {
    apo__test_random_walk_slice(seed, 0, n, start, step, out);
}

/* ---- Bollinger ---------------------------------------------------------------------- */

/* Classifies a window: 0 clean, 1 middle NaN, 2 middle +inf, 3 middle -inf. */
static int window_class(const double *w, size_t p) {
    int nan = 0, pinf = 0, ninf = 0;
    for (size_t k = 0; k < p; ++k) {
        if (isnan(w[k])) {
            nan = 1;
        } else if (w[k] == INFINITY) {
            pinf = 1;
        } else if (w[k] == -INFINITY) {
            ninf = 1;
        }
    }
    if (nan || (pinf && ninf)) {
        return 1;
    }
    return pinf ? 2 : (ninf ? 3 : 0);
}

static void window_mean_sd(const double *w, size_t p, long double *mean, long double *sd) {
    long double s = 0.0L;
    for (size_t k = 0; k < p; ++k) {
        s += w[k];
    }
    const long double mu = s / (long double)p;
    long double m2 = 0.0L;
    for (size_t k = 0; k < p; ++k) {
        const long double d = (long double)w[k] - mu;
        m2 += d * d;
    }
    *mean = mu;
    *sd = sqrtl(m2 / (long double)p);
}

void apo__ref_bollinger(const double *x, size_t n, size_t period, double nbdev_up, double nbdev_dn,
                        double *upper, double *middle, double *lower) {
    assert(period >= 1);
    for (size_t t = 0; t < n; ++t) {
        if (t + 1 < period) {
            upper[t] = middle[t] = lower[t] = NAN;
            continue;
        }
        const double *w = x + (t + 1 - period);
        const int cls = window_class(w, period);
        if (cls != 0) {
            upper[t] = lower[t] = NAN;
            middle[t] = cls == 1 ? NAN : (cls == 2 ? INFINITY : -INFINITY);
            continue;
        }
        long double mean, sd;
        window_mean_sd(w, period, &mean, &sd);
        upper[t] = (double)(mean + (long double)nbdev_up * sd);
        middle[t] = (double)mean;
        lower[t] = (double)(mean - (long double)nbdev_dn * sd);
    }
}

void apo__ref_bollinger_sd(const double *x, size_t n, size_t period, double *sd) {
    assert(period >= 1);
    for (size_t t = 0; t < n; ++t) {
        if (t + 1 < period || window_class(x + (t + 1 - period), period) != 0) {
            sd[t] = NAN;
            continue;
        }
        long double mean, s;
        window_mean_sd(x + (t + 1 - period), period, &mean, &s);
        sd[t] = (double)s;
    }
}

/* ---- MACD --------------------------------------------------------------------------- */

void apo__ref_macd(const double *x, size_t n, size_t fast, size_t slow, size_t signal, double *macd,
                   double *signal_line, double *hist) {
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    if (fast > slow) {
        const size_t tmp = fast;
        fast = slow;
        slow = tmp;
    }
    const long double kf = 2.0L / ((long double)fast + 1.0L);
    const long double ks = 2.0L / ((long double)slow + 1.0L);
    const long double kg = 2.0L / ((long double)signal + 1.0L);

    for (size_t t = 0; t < n; ++t) {
        macd[t] = signal_line[t] = hist[t] = NAN;
    }

    /* Seeds: the j-th finite sample (j counted from 1) enters the slow seed for j <= slow
     * and the fast seed for slow - fast < j <= slow. */
    long double sum_slow = 0.0L, sum_fast = 0.0L;
    size_t j = 0, t = 0;
    for (; t < n; ++t) {
        if (!isfinite(x[t])) {
            continue;
        }
        ++j;
        sum_slow += x[t];
        if (j > slow - fast) {
            sum_fast += x[t];
        }
        if (j == slow) {
            break;
        }
    }
    if (t >= n) {
        return;
    }
    long double es = sum_slow / (long double)slow;
    long double ef = sum_fast / (long double)fast;
    long double sum_macd = ef - es;
    size_t nmacd = 1;
    long double eg = 0.0L;
    int seeded = 0;
    if (nmacd == signal) {
        eg = sum_macd / (long double)signal;
        seeded = 1;
    }
    if (seeded) {
        macd[t] = (double)(ef - es);
        signal_line[t] = (double)eg;
        hist[t] = (double)((ef - es) - eg);
    }
    for (++t; t < n; ++t) {
        const double v = x[t];
        if (!isfinite(v)) {
            continue;
        }
        ef = (v - ef) * kf + ef;
        es = (v - es) * ks + es;
        const long double m = ef - es;
        if (!seeded) {
            sum_macd += m;
            ++nmacd;
            if (nmacd < signal) {
                continue;
            }
            eg = sum_macd / (long double)signal;
            seeded = 1;
        } else {
            eg = (m - eg) * kg + eg;
        }
        macd[t] = (double)m;
        signal_line[t] = (double)eg;
        hist[t] = (double)(m - eg);
    }
}

/* ---- Moments ------------------------------------------------------------------------ */

void apo__ref_moments_of(const double *v, size_t n, int finite_only, apo__ref_moments *out) {
    long double count = 0.0L, sum = 0.0L;
    long double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (finite_only && !isfinite(v[i])) {
            continue;
        }
        count += 1.0L;
        sum += v[i];
        if (v[i] < mn) {
            mn = v[i];
        }
        if (v[i] > mx) {
            mx = v[i];
        }
    }
    out->count = count;
    if (count == 0.0L) {
        out->mean = out->m2 = out->min = out->max = NAN;
        return;
    }
    const long double mean = sum / count;
    long double m2 = 0.0L;
    for (size_t i = 0; i < n; ++i) {
        if (finite_only && !isfinite(v[i])) {
            continue;
        }
        const long double d = (long double)v[i] - mean;
        m2 += d * d;
    }
    out->mean = mean;
    out->m2 = m2;
    out->min = mn;
    out->max = mx;
}

void apo__ref_returns(const double *x, size_t n, double *r) {
    for (size_t t = 1; t < n; ++t) {
        r[t - 1] = x[t] / x[t - 1] - 1.0;
    }
}

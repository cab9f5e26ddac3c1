/*
 * Cost models (runtime/balance/model.h): fitting t(n) = latency + n * cost from profiling
 * runs, robust online refinement from call observations (a cold call, a cold caller, a real
 * change, a gap), and models read back from stored figures.
 *
 * The expectations are exact where the contract makes them exact: runs that lie on a line
 * give that line back, outliers are dropped without moving it, and the least-squares and
 * through-the-origin fits are checked against sums evaluated here in long double, not
 * against a second copy of the fitting code.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance/model.h"
#include "reference.h"

#define LATENCY 2e-3 /* seconds */
#define COST 1e-8    /* seconds per element */

static double rel_err(double got, double want) {
    if (want == 0)
        return fabs(got);
    return fabs(got - want) / fabs(want);
}

#define assert_rel(got, want, tol, ...) cr_assert(rel_err((got), (want)) <= (tol), __VA_ARGS__)

static double line(double n) { return LATENCY + n * COST; }

/* Fits and fails the test on error. */
static apo__model fit_ok(const double *n, const double *t, size_t count, uint64_t *dropped) {
    apo__model m;
    memset(&m, 0xa5, sizeof m); /* garbage, so that every field must be written */
    char err[256] = "";
    *dropped = 12345;
    apo_status st = apo__model_fit(n, t, count, &m, dropped, err, sizeof err);
    cr_assert_eq(st, APO_OK, "fit failed: %s (%s)", apo_status_name(st), err);
    cr_assert_eq(m.valid, 1, "a fitted model is valid");
    return m;
}

/* Expects the fit to be refused with APO_ERR_INVALID_ARGUMENT and a reason (cr_expect: every
 * case that is not refused is reported, not only the first). */
static void fit_refused(const double *n, const double *t, size_t count, const char *why) {
    apo__model m;
    memset(&m, 0, sizeof m);
    char err[256] = "";
    uint64_t dropped = 0;
    apo_status st = apo__model_fit(n, t, count, &m, &dropped, err, sizeof err);
    cr_expect_eq(st, APO_ERR_INVALID_ARGUMENT, "%s: got %s (latency %.6g, cost %.6g)", why,
                 apo_status_name(st), m.latency_s, m.cost_s);
    if (st == APO_ERR_INVALID_ARGUMENT)
        cr_expect_neq(err[0], '\0', "%s: the refusal says why", why);
}

/* Five runs at each of the sizes, size-major (run r of size s at [5 s + r]), each the line's
 * time times factor[(r + shift * s) % 5] (factor NULL: on the line); returns how many. */
static size_t five_runs_per_size(const double *sizes, size_t n_sizes, const double factor[5],
                                 size_t shift, double *n, double *t) {
    size_t k = 0;
    for (size_t s = 0; s < n_sizes; s++)
        for (size_t r = 0; r < 5; r++) {
            n[k] = sizes[s];
            t[k] = line(sizes[s]) * (factor != NULL ? factor[(r + shift * s) % 5] : 1.0);
            k++;
        }
    return k;
}

/* five_runs_per_size's runs, fitted. */
static apo__model fit_five_runs(const double *sizes, size_t n_sizes, const double factor[5],
                                size_t shift, uint64_t *dropped) {
    double n[5 * 4], t[5 * 4];
    cr_assert_leq(n_sizes, 4);
    const size_t k = five_runs_per_size(sizes, n_sizes, factor, shift, n, t);
    return fit_ok(n, t, k, dropped);
}

/* Fails the test unless the fit dropped and kept the runs said and is the line; `what` names
 * the case in the message. */
static void assert_the_line(const char *what, const apo__model *m, uint64_t dropped,
                            uint64_t want_dropped, uint64_t want_samples) {
    cr_assert_eq(dropped, want_dropped, "%s: %llu dropped, want %llu", what,
                 (unsigned long long)dropped, (unsigned long long)want_dropped);
    cr_assert_eq(m->samples, want_samples, "%s: samples are the runs kept: %llu, want %llu", what,
                 (unsigned long long)m->samples, (unsigned long long)want_samples);
    assert_rel(m->latency_s, LATENCY, 1e-12, "%s: latency %.17g", what, m->latency_s);
    assert_rel(m->cost_s, COST, 1e-12, "%s: cost %.17g", what, m->cost_s);
}

/* ---- apo__model_fit ------------------------------------------------------------------- */

Test(model, fit_of_runs_on_a_line_is_that_line, .timeout = 60) {
    const double sizes[3] = {1e5, 1e6, 4e6};
    double n[15], t[15];
    size_t k = 0;
    for (int r = 0; r < 5; r++)
        for (int s = 0; s < 3; s++) {
            n[k] = sizes[s];
            t[k] = line(sizes[s]);
            k++;
        }
    uint64_t dropped;
    apo__model m = fit_ok(n, t, k, &dropped);
    assert_the_line("runs on the line", &m, dropped, 0, 15);
    for (int s = 0; s < 3; s++)
        assert_rel(apo__model_predict(&m, sizes[s]), line(sizes[s]), 1e-12, "predict(%g)",
                   sizes[s]);
}

Test(model, fit_of_two_sizes_one_run_each_is_exact, .timeout = 60) {
    const double n[2] = {3e5, 2e6};
    const double t[2] = {line(n[0]), line(n[1])};
    uint64_t dropped;
    apo__model m = fit_ok(n, t, 2, &dropped);
    assert_the_line("two sizes, one run each", &m, dropped, 0, 2);
}

Test(model, fit_groups_runs_by_size_in_any_order, .timeout = 60) {
    /* Runs interleaved and unsorted; 5 runs at each of 3 sizes, jittered symmetrically so
     * that every size's median is exactly on the line whatever the order. */
    const double sizes[3] = {4e6, 1e5, 1e6};
    const double jitter[5] = {1.0, 1.002, 0.998, 1.0, 1.001};
    double n[15], t[15];
    size_t k = 0;
    for (int r = 0; r < 5; r++)
        for (int s = 0; s < 3; s++) {
            size_t slot = (k * 7) % 15; /* a fixed shuffle: 7 is coprime with 15 */
            n[slot] = sizes[s];
            t[slot] = line(sizes[s]) * jitter[(r + s) % 5];
            k++;
        }
    /* The medians: sorted jitters are 0.998, 1, 1, 1.001, 1.002, so the median is 1. */
    uint64_t dropped;
    apo__model m = fit_ok(n, t, 15, &dropped);
    assert_the_line("runs in any order", &m, dropped, 0, 15);
}

/* Five runs at each size, at these factors of the line (rotated by `shift` from one size to
 * the next), and what the fit must drop and keep: the line itself every time. */
typedef struct five_runs_case {
    const char *what;
    double sizes[4];
    size_t n_sizes;
    double factor[5];
    size_t shift;
    uint64_t want_dropped, want_samples;
} five_runs_case;

static const five_runs_case five_runs_cases[] = {
    /* Four agreeing runs (jittered symmetrically, so the median of the four kept ones is the
     * line's value under either middle-element convention) and one at 10x: one run per size
     * is an outlier, and does not move the fit. */
    {"one wild run per size", {1e5, 1e6, 4e6}, 3, {1.001, 10.0, 1.0, 0.999, 1.0}, 1, 3, 12},
    /* Four identical runs make the MAD zero; a fifth 4% off is within APO_OUTLIER_MIN_REL and
     * must be kept (the median stays the common value). */
    {"runs agreeing to the nanosecond, one 4% off",
     {5e5, 3e6},
     2,
     {1.0, 1.0, 1.0, 1.0, 1.04},
     0,
     0,
     10},
    /* Runs at 0.8, 0.9, 1, 1.1 and 1.2 times the line: MAD = 0.1, and no run is more than 3
     * MADs from the median, although two are 20% off it. */
    {"spread runs within three MADs", {5e5, 3e6}, 2, {1.2, 0.8, 1.0, 1.1, 0.9}, 0, 0, 10},
};

Test(model, five_runs_per_size_keep_and_drop_what_they_should, .timeout = 60) {
    for (size_t i = 0; i < sizeof five_runs_cases / sizeof five_runs_cases[0]; i++) {
        const five_runs_case *c = &five_runs_cases[i];
        uint64_t dropped;
        apo__model m = fit_five_runs(c->sizes, c->n_sizes, c->factor, c->shift, &dropped);
        assert_the_line(c->what, &m, dropped, c->want_dropped, c->want_samples);
    }
}

Test(model, a_single_100x_run_does_not_skew_the_fit, .timeout = 60) {
    /* One bad sample at one size (the kind that once sent all work to a single GPU):
     * identical runs elsewhere, and at 1e6 one run that took 100 times as long. */
    const double sizes[3] = {2e5, 1e6, 4e6};
    double n[15], t[15];
    const size_t k = five_runs_per_size(sizes, 3, NULL, 0, n, t);
    t[5 + 2] = line(sizes[1]) * 100.0;
    uint64_t dropped;
    apo__model m = fit_ok(n, t, k, &dropped);
    assert_the_line("one run at 100x", &m, dropped, 1, 14);

    /* The same bad run as the fastest one (a timer glitch): 1/100 of the time, dropped too. */
    t[5 + 2] = line(1e6) / 100.0;
    m = fit_ok(n, t, k, &dropped);
    assert_the_line("one run at 1/100", &m, dropped, 1, 14);
}

Test(model, runs_agreeing_to_the_nanosecond_drop_a_run_6_percent_off, .timeout = 60) {
    /* Four identical runs make the MAD zero (a fifth 4% off is kept: five_runs_cases); 6% off
     * is past the relative floor with a zero MAD: dropped. */
    const double sizes[2] = {5e5, 3e6};
    double n[10], t[10];
    const size_t k = five_runs_per_size(sizes, 2, NULL, 0, n, t);
    t[4] = line(sizes[0]) * 1.06;
    t[9] = line(sizes[1]) * 0.94;
    uint64_t dropped;
    apo__model m = fit_ok(n, t, k, &dropped);
    assert_the_line("one run 6% off per size", &m, dropped, 2, 8);
}

Test(model, median_of_an_even_number_of_kept_runs_is_the_mean_of_the_middle_two, .timeout = 60) {
    /* Runs at 0.98, 0.99, 1, 1.01 and 1.2 times the line: median 1, deviations 0.02,
     * 0.01, 0, 0.01, 0.2, so MAD = 0.01 and 1.2 is an outlier (0.2 > 0.03 and > 0.05).
     * The four kept runs have median (0.99 + 1) / 2 = 0.995 of the line at every size,
     * so the fit is 0.995 times the line. */
    const double sizes[3] = {1e5, 1e6, 4e6};
    const double f[5] = {1.0, 1.2, 0.98, 1.01, 0.99};
    uint64_t dropped;
    apo__model m = fit_five_runs(sizes, 3, f, 0, &dropped);
    cr_assert_eq(dropped, 3, "%llu dropped", (unsigned long long)dropped);
    cr_assert_eq(m.samples, 12);
    assert_rel(m.latency_s, 0.995 * LATENCY, 1e-9, "latency %.17g, want %.17g", m.latency_s,
               0.995 * LATENCY);
    assert_rel(m.cost_s, 0.995 * COST, 1e-9, "cost %.17g, want %.17g", m.cost_s, 0.995 * COST);
}

/* Ordinary least squares over (x, y), evaluated here in long double. */
static void ols(const double *x, const double *y, size_t k, long double *a, long double *b) {
    long double mx = 0, my = 0;
    for (size_t i = 0; i < k; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= k;
    my /= k;
    long double sxy = 0, sxx = 0;
    for (size_t i = 0; i < k; i++) {
        sxy += ((long double)x[i] - mx) * ((long double)y[i] - my);
        sxx += ((long double)x[i] - mx) * ((long double)x[i] - mx);
    }
    *b = sxy / sxx;
    *a = my - *b * mx;
}

Test(model, points_off_a_line_give_the_least_squares_line_over_sizes, .timeout = 60) {
    /* One point per size, equal weights, whatever the number of runs behind each size:
     * size 1e6 has 5 identical runs, the others one each, and the fit must not weigh
     * 1e6 five times. */
    const double xs[4] = {1e5, 1e6, 2e6, 4e6};
    const double ys[4] = {0.0031, 0.0119, 0.0225, 0.0409};
    double n[8], t[8];
    size_t k = 0;
    for (int s = 0; s < 4; s++) {
        int runs = s == 1 ? 5 : 1;
        for (int r = 0; r < runs; r++) {
            n[k] = xs[s];
            t[k] = ys[s];
            k++;
        }
    }
    long double a, b;
    ols(xs, ys, 4, &a, &b);
    cr_assert_gt(a, 0, "the data were chosen for a positive intercept");
    uint64_t dropped;
    apo__model m = fit_ok(n, t, k, &dropped);
    assert_rel(m.latency_s, (double)a, 1e-10, "latency %.17g, want %.17Lg", m.latency_s, a);
    assert_rel(m.cost_s, (double)b, 1e-10, "cost %.17g, want %.17Lg", m.cost_s, b);
    cr_assert_eq(m.samples, 8);
}

Test(model, negative_intercept_refits_through_the_origin, .timeout = 60) {
    /* Least squares over (1e6, 9ms), (2e6, 20ms), (3e6, 31ms) has slope 1.1e-8 and
     * intercept -2ms: latency becomes 0 and cost = sum(n t) / sum(n n). */
    const double xs[3] = {1e6, 2e6, 3e6};
    const double ys[3] = {0.009, 0.020, 0.031};
    long double a, b;
    ols(xs, ys, 3, &a, &b);
    cr_assert_lt(a, 0, "the data were chosen for a negative intercept");
    long double snt = 0, snn = 0;
    for (int i = 0; i < 3; i++) {
        snt += (long double)xs[i] * ys[i];
        snn += (long double)xs[i] * xs[i];
    }
    double want = (double)(snt / snn); /* 142e3 / 14e12 */
    uint64_t dropped;
    apo__model m = fit_ok(xs, ys, 3, &dropped);
    cr_assert_eq(m.latency_s, 0.0, "latency %.17g, want 0", m.latency_s);
    assert_rel(m.cost_s, want, 1e-12, "cost %.17g, want %.17g", m.cost_s, want);
    assert_rel(m.cost_s, 142e3 / 14e12, 1e-12, "cost by hand");
}

Test(model, refuses_fewer_than_two_sizes_and_bad_times, .timeout = 60) {
    const double n1[3] = {1e6, 1e6, 1e6};
    const double t1[3] = {0.01, 0.011, 0.012};
    fit_refused(n1, t1, 3, "one distinct size");
    fit_refused(n1, t1, 0, "no runs");
    fit_refused(n1, t1, 1, "one run");

    const double n2[4] = {1e5, 1e6, 1e5, 1e6};
    double t2[4] = {0.001, 0.01, 0.001, 0.01};
    t2[2] = -0.001;
    fit_refused(n2, t2, 4, "a negative time");
    t2[2] = NAN;
    fit_refused(n2, t2, 4, "a NaN time");
    t2[2] = INFINITY;
    fit_refused(n2, t2, 4, "an infinite time");

    /* Times that fall as sizes grow: the fitted cost is negative. */
    const double n3[2] = {1e6, 2e6};
    const double t3[2] = {0.02, 0.01};
    fit_refused(n3, t3, 2, "a negative cost");
    /* Flat times: the cost is zero. */
    const double t4[2] = {0.01, 0.01};
    fit_refused(n3, t4, 2, "a zero cost");
}

/* ---- apo__model_predict and apo__model_from_stored ------------------------------------ */

Test(model, from_stored_converts_units, .timeout = 60) {
    apo__model m;
    memset(&m, 0xa5, sizeof m);
    apo__model_from_stored(&m, 0.08, 0.35, 5);
    cr_assert_eq(m.valid, 1);
    assert_rel(m.latency_s, 0.08 / 1e3, 1e-15, "latency %.17g", m.latency_s);
    assert_rel(m.cost_s, 0.35 / 1e9, 1e-15, "cost %.17g", m.cost_s);
    cr_assert_eq(m.samples, 5);
    /* 0.08 ms + 1e6 * 0.35 ns */
    assert_rel(apo__model_predict(&m, 1e6), 0.43e-3, 1e-14, "predict(1e6) = %.17g",
               apo__model_predict(&m, 1e6));
    assert_rel(apo__model_predict(&m, 4096), 0.08e-3 + 4096 * 0.35e-9, 1e-14, "predict(4096)");

    apo__model_from_stored(&m, 0.0, 10.0, 1);
    cr_assert_eq(m.valid, 1);
    cr_assert_eq(m.latency_s, 0.0);
    assert_rel(m.cost_s, 1e-8, 1e-15, "cost %.17g", m.cost_s);
    assert_rel(apo__model_predict(&m, 2e6), 0.02, 1e-14, "predict(2e6)");
}

Test(model, predict_is_latency_plus_n_times_cost, .timeout = 60) {
    apo__model m;
    memset(&m, 0, sizeof m);
    m.valid = 1;
    m.latency_s = 3e-4;
    m.cost_s = 2.5e-9;
    m.samples = 1;
    const double ns[4] = {1, 8192, 1e6, 1e9};
    for (int i = 0; i < 4; i++)
        assert_rel(apo__model_predict(&m, ns[i]), 3e-4 + ns[i] * 2.5e-9, 1e-15, "predict(%g)",
                   ns[i]);
}

/* ---- apo__model_observe --------------------------------------------------------------- */

static void fresh(apo__model *m) { memset(m, 0, sizeof *m); }

static void check_sane(const apo__model *m, const char *when) {
    cr_assert_eq(m->valid, 1, "%s: valid after an observation", when);
    cr_assert(isfinite(m->latency_s) && m->latency_s >= 0, "%s: latency %.17g", when, m->latency_s);
    cr_assert(isfinite(m->cost_s) && m->cost_s > 0, "%s: cost %.17g", when, m->cost_s);
}

Test(model, repeated_observation_is_predicted_exactly, .timeout = 60) {
    const double ns[4] = {1, 4096, 1e6, 3e8};
    const double ts[4] = {1e-6, 5e-5, 0.005, 2.5};
    for (int c = 0; c < 4; c++)
        for (int k = 1; k <= 12; k++) {
            apo__model m;
            fresh(&m);
            for (int i = 0; i < k; i++)
                apo__model_observe(&m, ns[c], ts[c]);
            char when[64];
            snprintf(when, sizeof when, "(%g, %g) x %d", ns[c], ts[c], k);
            check_sane(&m, when);
            assert_rel(apo__model_predict(&m, ns[c]), ts[c], 1e-9, "%s: predict %.17g", when,
                       apo__model_predict(&m, ns[c]));
            cr_assert_eq(m.samples, (uint64_t)k, "%s: samples %llu", when,
                         (unsigned long long)m.samples);
        }
}

/* Observes a true line at `sizes` in turn for `rounds` rounds, then checks predictions at
 * `probes` to 1%. */
static void learn_line(apo__model *m, double lat, double cost, const double *sizes, int n_sizes,
                       int rounds, const char *what) {
    for (int r = 0; r < rounds; r++)
        for (int s = 0; s < n_sizes; s++)
            apo__model_observe(m, sizes[s], lat + sizes[s] * cost);
    check_sane(m, what);
    double lo = sizes[0], hi = sizes[0];
    for (int s = 1; s < n_sizes; s++) {
        lo = fmin(lo, sizes[s]);
        hi = fmax(hi, sizes[s]);
    }
    /* A third size between the observed ones, and one beyond the largest. */
    const double probes[2] = {0.5 * (lo + hi) * 1.03, 2.0 * hi};
    for (int p = 0; p < 2; p++) {
        double want = lat + probes[p] * cost;
        double got = apo__model_predict(m, probes[p]);
        /* cr_expect: every failing case is reported, not only the first. */
        cr_expect(rel_err(got, want) <= 0.01,
                  "%s: predict(%g) = %.6g, true %.6g (latency %.6g cost %.6g; model %.6g %.6g)",
                  what, probes[p], got, want, lat, cost, m->latency_s, m->cost_s);
    }
}

Test(model, observations_at_two_sizes_find_the_line, .timeout = 60) {
    const double lat = 1e-3, cost = 5e-9;
    const double pairs[3][2] = {{1e6, 1.1e6}, {2e5, 2e6}, {1.5e6, 5e5}};
    for (int p = 0; p < 3; p++) {
        apo__model m;
        fresh(&m);
        char what[96];
        snprintf(what, sizeof what, "fresh model, sizes %g and %g", pairs[p][0], pairs[p][1]);
        learn_line(&m, lat, cost, pairs[p], 2, 3, what);
    }
    /* Three sizes, latency-dominated. */
    const double three[3] = {1e5, 3e5, 9e5};
    apo__model m;
    fresh(&m);
    learn_line(&m, 20e-3, 1e-9, three, 3, 2, "fresh model, three sizes, 20 ms latency");
    /* No latency at all. */
    fresh(&m);
    learn_line(&m, 0.0, 2e-9, pairs[1], 2, 3, "fresh model, no latency");
}

Test(model, observations_correct_a_wrong_stored_model, .timeout = 60) {
    /* A profile that was wrong (twice the cost, no latency) is corrected by calls that
     * observe the truth at two sizes. */
    const double lat = 1e-3, cost = 5e-9;
    const double sizes[2] = {8e5, 1.6e6};
    apo__model m;
    fresh(&m);
    apo__model_from_stored(&m, 0.0, 2 * cost * 1e9, 5);
    learn_line(&m, lat, cost, sizes, 2, 5, "from a wrong stored model");
}

/* Three observations of n elements in t1 s after a change of regime: the model is sane and
 * predicts t1 within 5 %; which says whether the device became "faster" or "slower". */
static void assert_follows_after_three(apo__model *m, double n, double t1, const char *which) {
    for (int i = 1; i <= 3; i++)
        apo__model_observe(m, n, t1);
    check_sane(m, "after the change");
    assert_rel(apo__model_predict(m, n), t1, 0.05,
               "after 3 observations of the %s device: predict %.6g, now %.6g", which,
               apo__model_predict(m, n), t1);
}

Test(model, follows_a_device_that_becomes_twice_slower, .timeout = 60) {
    const double n = 1e6;
    const double t0 = 50e-6 + n / 4e8; /* 2.55 ms */
    const double t1 = 2 * t0;
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 30; i++)
        apo__model_observe(&m, n, t0);
    assert_rel(apo__model_predict(&m, n), t0, 1e-9, "before the change");
    for (int i = 1; i <= 3; i++)
        apo__model_observe(&m, n, t1);
    check_sane(&m, "after the change");
    assert_rel(apo__model_predict(&m, n), t1, 0.05,
               "after 3 observations of the slower device: predict %.6g, now %.6g, was %.6g",
               apo__model_predict(&m, n), t1, t0);
}

Test(model, follows_a_device_that_becomes_twice_faster, .timeout = 60) {
    /* The same regime change the other way (a contended device freed). */
    const double n = 1e6, t0 = 5.05e-3, t1 = t0 / 2;
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 30; i++)
        apo__model_observe(&m, n, t0);
    assert_follows_after_three(&m, n, t1, "faster");
}

Test(model, follows_a_slowdown_after_a_history_at_several_sizes, .timeout = 60) {
    /* The history knows the line (sizes vary as shares change), then the device halves its
     * rate and the calls keep giving it about the same share. */
    const double lat = 50e-6, rate = 4e8;
    const double sizes[3] = {0.9e6, 1e6, 1.1e6};
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 30; i++)
        apo__model_observe(&m, sizes[i % 3], lat + sizes[i % 3] / rate);
    const double n = 1e6, t1 = lat + n / (rate / 2);
    assert_follows_after_three(&m, n, t1, "slower");
}

Test(model, stays_sane_for_any_positive_observations, .timeout = 60) {
    /* Random positive observations over many orders of magnitude, including times that
     * fall as sizes grow (a negative slope) and sizes of a single element. */
    for (uint64_t seed = 1; seed <= 20; seed++) {
        apo__model m;
        fresh(&m);
        for (uint64_t i = 0; i < 500; i++) {
            double u = apo__test_uniform(seed, 2 * i), v = apo__test_uniform(seed, 2 * i + 1);
            double n = floor(pow(10.0, 9.0 * u)) + 1; /* 1 .. 1e9 */
            double t = pow(10.0, -9.0 + 10.0 * v);    /* 1 ns .. 10 s */
            if (seed % 4 == 0)
                t = 1.0 / n; /* falling */
            apo__model_observe(&m, n, t);
            if (!(m.valid == 1 && isfinite(m.latency_s) && m.latency_s >= 0 && isfinite(m.cost_s) &&
                  m.cost_s > 0))
                cr_assert_fail("seed %llu, observation %llu (%g, %g): valid %d latency %.17g "
                               "cost %.17g",
                               (unsigned long long)seed, (unsigned long long)i, n, t, m.valid,
                               m.latency_s, m.cost_s);
            double p = apo__model_predict(&m, n);
            cr_assert(isfinite(p) && p > 0, "seed %llu: predict(%g) = %g", (unsigned long long)seed,
                      n, p);
        }
    }
}

/* ---- robust refinement: cold calls, real changes, gaps (docs/design.md) ---------------- */

/* The warm device of these tests: 1 ms latency, 5 ns per element. */
#define WARM_LAT 1e-3
#define WARM_COST 5e-9
static double warm(double n) { return WARM_LAT + n * WARM_COST; }

Test(model, one_cold_observation_among_warm_ones_does_not_move_the_model, .timeout = 60) {
    /* Nine observations at one size, one of them 30 times slower (a first touch of fresh
     * buffers, a busy moment), at every position but the first (with no prior, the first
     * observation is all the model knows). */
    const double n = 1e6;
    for (int cold_at = 1; cold_at < 9; cold_at++) {
        apo__model m;
        fresh(&m);
        for (int i = 0; i < 9; i++) {
            apo__model_observe(&m, n, i == cold_at ? 30 * warm(n) : warm(n));
            if (i >= cold_at && i >= 2)
                cr_expect(rel_err(apo__model_predict(&m, n), warm(n)) <= 0.01,
                          "cold at %d, after observation %d: predict %.6g, warm %.6g", cold_at, i,
                          apo__model_predict(&m, n), warm(n));
        }
        check_sane(&m, "after a cold observation");
        assert_rel(apo__model_predict(&m, n), warm(n), 1e-9, "cold at %d: predict %.9g", cold_at,
                   apo__model_predict(&m, n));
    }
}

Test(model, one_cold_observation_does_not_move_a_stored_model_or_a_learnt_line, .timeout = 60) {
    /* A stored (profiled) model is the prior: a cold first call does not move it. */
    const double n = 1e6;
    apo__model m;
    fresh(&m);
    apo__model_from_stored(&m, WARM_LAT * 1e3, WARM_COST * 1e9, 15);
    apo__model_observe(&m, n, 30 * warm(n));
    check_sane(&m, "stored, then cold");
    assert_rel(apo__model_predict(&m, n), warm(n), 1e-9, "stored model after a cold call: %.9g",
               apo__model_predict(&m, n));
    cr_assert_eq(m.samples, 16, "the observation is counted: %llu", (unsigned long long)m.samples);

    /* Sizes that spread, so the line is fitted: a cold observation anywhere after the
     * second leaves predictions at and beyond the sizes seen within 2%. */
    const double sizes[3] = {0.8e6, 1e6, 1.25e6};
    for (int cold_at = 2; cold_at < 8; cold_at++) {
        fresh(&m);
        for (int i = 0; i < 8; i++) {
            double s = sizes[i % 3];
            apo__model_observe(&m, s, i == cold_at ? 30 * warm(s) : warm(s));
        }
        check_sane(&m, "line with a cold observation");
        const double at[3] = {1e6, 1.25e6, 4e6};
        for (int p = 0; p < 3; p++)
            cr_expect(rel_err(apo__model_predict(&m, at[p]), warm(at[p])) <= 0.02,
                      "cold at %d: predict(%g) = %.6g, warm %.6g (latency %.6g cost %.6g)", cold_at,
                      at[p], apo__model_predict(&m, at[p]), warm(at[p]), m.latency_s, m.cost_s);
    }
}

Test(model, a_caller_whose_every_call_is_cold_is_followed_within_three_calls, .timeout = 60) {
    /* The profile was taken warm; this caller's calls all run cold. Slightly slower (20%,
     * under the change threshold) and much slower (3x): either way the model predicts the
     * cold time after three calls. */
    const double n = 2e6;
    const double factors[2] = {1.2, 3.0};
    for (int f = 0; f < 2; f++) {
        apo__model m;
        fresh(&m);
        apo__model_from_stored(&m, WARM_LAT * 1e3, WARM_COST * 1e9, 15);
        double cold = factors[f] * warm(n);
        apo__model_observe(&m, n, cold);
        /* One call against the prior's two votes: not yet. */
        assert_rel(apo__model_predict(&m, n), warm(n), 1e-9, "x%g, after 1 call: %.9g", factors[f],
                   apo__model_predict(&m, n));
        apo__model_observe(&m, n, cold);
        apo__model_observe(&m, n, cold);
        check_sane(&m, "cold caller");
        assert_rel(apo__model_predict(&m, n), cold, 1e-9,
                   "x%g, after 3 calls: predict %.9g, cold %.9g", factors[f],
                   apo__model_predict(&m, n), cold);
    }
}

Test(model, a_gross_change_is_followed_at_the_second_observation_a_mild_one_at_the_third,
     .timeout = 60) {
    /* Three times slower or faster: one call could be a cold one, two in a row are the
     * device. 40% slower or faster (past 25%, short of 2x): the third call. */
    const double n = 1e6;
    const double factors[4] = {3.0, 1.0 / 3, 1.4, 1.0 / 1.4};
    const int follow_at[4] = {2, 2, 3, 3};
    for (int f = 0; f < 4; f++) {
        apo__model m;
        fresh(&m);
        apo__model_from_stored(&m, WARM_LAT * 1e3, WARM_COST * 1e9, 15);
        for (int i = 0; i < 20; i++)
            apo__model_observe(&m, n, warm(n));
        double now = factors[f] * warm(n);
        for (int k = 1; k < follow_at[f]; k++) {
            apo__model_observe(&m, n, now);
            assert_rel(apo__model_predict(&m, n), warm(n), 1e-9, "x%g after %d: %.9g", factors[f],
                       k, apo__model_predict(&m, n));
        }
        apo__model_observe(&m, n, now);
        check_sane(&m, "after the change");
        assert_rel(apo__model_predict(&m, n), now, 1e-9, "x%g after %d: predict %.9g, now %.9g",
                   factors[f], follow_at[f], apo__model_predict(&m, n), now);
        /* The window restarted: the old observations and the prior no longer vote, so one
         * more observation of the new rate keeps it exactly. */
        apo__model_observe(&m, n, now);
        assert_rel(apo__model_predict(&m, n), now, 1e-9, "x%g one more", factors[f]);
    }
}

Test(model, two_gross_observations_that_disagree_in_direction_restart_nothing, .timeout = 60) {
    /* One call 3x slow, the next 3x fast: two cold-or-odd calls, not a device that changed. */
    const double n = 1e6;
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 8; i++)
        apo__model_observe(&m, n, warm(n));
    apo__model_observe(&m, n, 3 * warm(n));
    apo__model_observe(&m, n, warm(n) / 3);
    assert_rel(apo__model_predict(&m, n), warm(n), 1e-9, "predict %.9g", apo__model_predict(&m, n));
}

Test(model, a_restart_forgets_the_old_latency, .timeout = 60) {
    /* The old window fitted a large latency from sizes 6% apart (noise does that); then the
     * device slows down 2.5x and the calls keep one size. After the restart the model is
     * proportional: half the size predicts half the time, not the old intercept plus a new
     * slope (which predicted 0.134 of the work where 0.2 was right on the cluster bench). */
    const double sizes[2] = {1e6, 1.06e6};
    const double lat = 6e-3, cost = 4e-9; /* 10 ms at 1e6, 60% of it "latency" */
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 8; i++)
        apo__model_observe(&m, sizes[i % 2], lat + cost * sizes[i % 2]);
    assert_rel(m.latency_s, lat, 1e-6, "the line's latency %.9g", m.latency_s);
    const double n = 1e6, now = 2.5 * (lat + cost * n);
    apo__model_observe(&m, n, now);
    apo__model_observe(&m, n, now);
    check_sane(&m, "after the change");
    assert_rel(apo__model_predict(&m, n), now, 1e-9, "at the size seen: %.9g",
               apo__model_predict(&m, n));
    assert_rel(apo__model_predict(&m, n / 2), now / 2, 1e-9,
               "at half the size: predict %.9g, proportional %.9g (latency %.9g)",
               apo__model_predict(&m, n / 2), now / 2, m.latency_s);
}

Test(model, an_observation_after_a_gap_is_fresh_evidence, .timeout = 60) {
    /* A device learnt slow at large sizes (10 us per element, as a wrong model left without
     * work would be) is probed with a small share after a gap and is fast now: the probe
     * alone sets the model, at the probe's size and at the large sizes. */
    const double big = 1e6, probe = 3e4, fast_cost = 2.5e-9;
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 8; i++)
        apo__model_observe(&m, big, big * 1e-5);
    apo__model_observe_after_gap(&m, probe, probe * fast_cost);
    check_sane(&m, "after the probe");
    assert_rel(apo__model_predict(&m, probe), probe * fast_cost, 1e-9, "predict(probe) %.9g",
               apo__model_predict(&m, probe));
    assert_rel(apo__model_predict(&m, big), big * fast_cost, 1e-9, "predict(big) %.9g",
               apo__model_predict(&m, big));

    /* The same observation without the gap is one cold (here: hot) call: no move. */
    fresh(&m);
    for (int i = 0; i < 8; i++)
        apo__model_observe(&m, big, big * 1e-5);
    apo__model_observe(&m, probe, probe * fast_cost);
    assert_rel(apo__model_predict(&m, big), big * 1e-5, 1e-9, "no gap: predict(big) %.9g",
               apo__model_predict(&m, big));

    /* A probe after a gap that agrees with the model (within 25%) just adds to it. */
    fresh(&m);
    for (int i = 0; i < 8; i++)
        apo__model_observe(&m, 1e6, warm(1e6));
    apo__model_observe_after_gap(&m, 1e6, 1.1 * warm(1e6));
    assert_rel(apo__model_predict(&m, 1e6), warm(1e6), 1e-9, "agreeing probe: %.9g",
               apo__model_predict(&m, 1e6));
}

Test(model, invalid_observations_are_ignored_and_zero_time_keeps_a_positive_cost, .timeout = 60) {
    apo__model m;
    fresh(&m);
    for (int i = 0; i < 5; i++)
        apo__model_observe(&m, 1e6, warm(1e6));
    apo__model before = m;
    const double bad[][2] = {{0, 1e-3},        {-5, 1e-3},      {NAN, 1e-3},     {INFINITY, 1e-3},
                             {1e6, -1e-3},     {1e6, NAN},      {1e6, INFINITY}, {NAN, NAN},
                             {-INFINITY, 0.0}, {1e6, -INFINITY}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        apo__model_observe(&m, bad[i][0], bad[i][1]);
        apo__model_observe_after_gap(&m, bad[i][0], bad[i][1]);
        cr_assert_eq(memcmp(&m, &before, sizeof m), 0, "(%g, %g) changed the model", bad[i][0],
                     bad[i][1]);
    }
    /* A device so fast that it measured nothing: valid, a tiny positive cost, no latency. */
    fresh(&m);
    for (int i = 0; i < 3; i++) {
        apo__model_observe(&m, 1e6, 0.0);
        check_sane(&m, "t == 0");
        cr_assert_leq(m.cost_s, 1e-12, "cost %.17g", m.cost_s);
        cr_assert_eq(m.latency_s, 0.0, "latency %.17g", m.latency_s);
    }
}

/* Ascending order for the reference below: qsort's, not the library's sorts. */
static int ascending(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median as its definition gives it: the middle of the values sorted, or the mean of the
 * middle two, from a copy sorted by qsort. */
static double median_by_definition(const double *v, size_t n) {
    double sorted[64];
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, ascending);
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/* apo__median takes the few values of a refit (up to 16) through a sorting network and more
 * through an insertion sort or qsort: every size from 1 to 40, values drawn from a few levels
 * so that ties are common, times that differ in their last bits, and the orders that take a
 * sorting network longest, give the definition's median bit for bit (no -0 among them: the
 * models' times and votes have none). */
Test(model, median_is_the_definitions_at_every_size_with_ties, .timeout = 60) {
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (size_t n = 1; n <= 40; n++)
        for (int trial = 0; trial < 200; trial++) {
            double v[64], copy[64];
            for (size_t i = 0; i < n; i++) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                const unsigned r = (unsigned)(state >> 33);
                /* Trials from 4 levels (ties), spread over the last bits, descending (the
                 * network's longest path), or ascending with the least value last. */
                const int kind = trial % 4;
                v[i] = kind == 0   ? (double)(r % 4) * 0.25
                       : kind == 1 ? 1e-3 * (1.0 + (double)(r % 1000003) * 0x1p-40)
                       : kind == 2 ? (double)(n - i)
                                   : (double)((i + 1) % n);
                copy[i] = v[i];
            }
            const double want = median_by_definition(v, n), got = apo__median(copy, n);
            cr_assert_eq(memcmp(&got, &want, sizeof got), 0,
                         "n %zu trial %d: median %.17g, the definition's %.17g", n, trial, got,
                         want);
        }
}

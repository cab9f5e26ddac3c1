/*
 * The split solver (runtime/balance/solver.h): the shares that minimise the predicted makespan
 * max_i (latency_i + n_i cost_i) over the devices given work.
 *
 * Exact cases are checked against the closed form worked out by hand; random cases are
 * checked two independent ways: against a brute-force grid of shares (the solver must
 * never be beaten), and against the optimality conditions of the min-max problem (every
 * device given work finishes at the makespan T; every usable device left out has a
 * latency of at least T, so giving it work could not finish sooner).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "balance/configurations.h"
#include "balance/solver.h"
#include "reference.h"

static double rel_err(double got, double want) {
    if (want == 0)
        return fabs(got);
    return fabs(got - want) / fabs(want);
}

#define assert_rel(got, want, tol, ...) cr_assert(rel_err((got), (want)) <= (tol), __VA_ARGS__)

/* Every device usable. */
static const int ALL[APO_MAX_DEVICES] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static apo__model model(double latency_s, double cost_s) {
    apo__model m;
    memset(&m, 0, sizeof m);
    m.valid = 1;
    m.latency_s = latency_s;
    m.cost_s = cost_s;
    m.samples = 5;
    return m;
}

/* The predicted makespan of given shares: the slowest device among those given work. */
static double makespan_of(const apo__model *m, const int *usable, size_t n, double total,
                          const double *shares) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (shares[i] <= 0)
            continue;
        cr_assert(usable[i], "device %zu is not usable but got work", i);
        double t = m[i].latency_s + shares[i] * total * m[i].cost_s;
        if (t > worst)
            worst = t;
    }
    return worst;
}

static void solve_ok(const apo__model *m, const int *usable, size_t n, double total, double *shares,
                     double *T) {
    for (size_t i = 0; i < n; i++)
        shares[i] = -1; /* must be written */
    *T = -1;
    apo_status st = apo__solve_split(m, usable, n, total, shares, T);
    cr_assert_eq(st, APO_OK, "solve: %s", apo_status_name(st));
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert(shares[i] >= 0 && shares[i] <= 1, "share %zu is %.17g", i, shares[i]);
        sum += shares[i];
    }
    cr_assert(fabs(sum - 1) <= 1e-12, "shares sum to 1 - %.3g", 1 - sum);
    cr_assert(isfinite(*T) && *T > 0, "makespan %.17g", *T);
}

Test(solver, equal_models_get_equal_shares, .timeout = 60) {
    for (size_t n = 1; n <= 8; n++) {
        apo__model m[8];
        for (size_t i = 0; i < n; i++)
            m[i] = model(1e-3, 1e-9);
        double shares[8], T;
        solve_ok(m, ALL, n, 1e7, shares, &T);
        for (size_t i = 0; i < n; i++)
            assert_rel(shares[i], 1.0 / (double)n, 1e-12, "%zu devices: share %zu = %.17g", n, i,
                       shares[i]);
        assert_rel(T, 1e-3 + 1e7 / (double)n * 1e-9, 1e-12, "%zu devices: makespan %.17g", n, T);
    }
}

Test(solver, shares_follow_rates_without_latency, .timeout = 60) {
    const double rates[3] = {1e8, 2e8, 8e8};
    apo__model m[3];
    for (int i = 0; i < 3; i++)
        m[i] = model(0, 1 / rates[i]);
    const double totals[3] = {1, 4096, 2e6};
    for (int k = 0; k < 3; k++) {
        double shares[3], T;
        solve_ok(m, ALL, 3, totals[k], shares, &T);
        assert_rel(shares[0], 1.0 / 11, 1e-12, "total %g: share a %.17g", totals[k], shares[0]);
        assert_rel(shares[1], 2.0 / 11, 1e-12, "total %g: share b %.17g", totals[k], shares[1]);
        assert_rel(shares[2], 8.0 / 11, 1e-12, "total %g: share c %.17g", totals[k], shares[2]);
        assert_rel(T, totals[k] / 1.1e9, 1e-12, "total %g: makespan %.17g", totals[k], T);
    }
}

Test(solver, latencies_shift_work_to_finish_together, .timeout = 60) {
    /* All three join: T = (total + sum L/c) / sum 1/c
     *                   = (1e7 + 1e5 + 4e5 + 2.5e5) / (1e8 + 2e8 + 5e8) = 13.4375 ms. */
    apo__model m[3] = {model(1e-3, 1e-8), model(2e-3, 5e-9), model(0.5e-3, 2e-9)};
    const double total = 1e7, T_want = 1.075e7 / 8e8;
    double shares[3], T;
    solve_ok(m, ALL, 3, total, shares, &T);
    assert_rel(T, T_want, 1e-12, "makespan %.17g, want %.17g", T, T_want);
    for (int i = 0; i < 3; i++) {
        double want = (T_want - m[i].latency_s) / m[i].cost_s / total;
        assert_rel(shares[i], want, 1e-11, "share %d = %.17g, want %.17g", i, shares[i], want);
    }
}

Test(solver, a_device_with_too_much_latency_gets_nothing, .timeout = 60) {
    /* Fast: 1 ns per element but 20 ms latency; slow: 10 ns per element, no latency.
     * The fast device is listed first, so a solver that does not sort by latency shows. */
    apo__model m[2] = {model(20e-3, 1e-9), model(0, 1e-8)};
    double shares[2], T;

    /* 1e6: the slow device alone takes 10 ms, less than the fast one's latency. */
    solve_ok(m, ALL, 2, 1e6, shares, &T);
    cr_assert_eq(shares[0], 0.0, "fast share at 1e6: %.17g", shares[0]);
    cr_assert_eq(shares[1], 1.0, "slow share at 1e6: %.17g", shares[1]);
    assert_rel(T, 10e-3, 1e-12, "makespan at 1e6: %.17g", T);

    /* 1e7: both, T = (1e7 + 2e7) / 1.1e9. */
    solve_ok(m, ALL, 2, 1e7, shares, &T);
    double T_want = 3e7 / 1.1e9;
    assert_rel(T, T_want, 1e-12, "makespan at 1e7: %.17g, want %.17g", T, T_want);
    assert_rel(shares[0], (T_want - 20e-3) / 1e-9 / 1e7, 1e-11, "fast share %.17g", shares[0]);
    assert_rel(shares[1], T_want / 1e-8 / 1e7, 1e-11, "slow share %.17g", shares[1]);

    /* The flip is where the slow device alone takes the fast one's latency: 2e6. */
    solve_ok(m, ALL, 2, 0.99 * 2e6, shares, &T);
    cr_assert_eq(shares[0], 0.0, "fast share just below the flip: %.17g", shares[0]);
    assert_rel(T, 0.99 * 2e6 * 1e-8, 1e-12, "makespan just below the flip");
    solve_ok(m, ALL, 2, 1.01 * 2e6, shares, &T);
    cr_assert_gt(shares[0], 0.0, "fast share just above the flip");
    cr_assert_lt(T, 1.01 * 2e6 * 1e-8, "both devices beat the slow one alone above the flip");
    double T_above = (1.01 * 2e6 + 2e7) / 1.1e9;
    assert_rel(T, T_above, 1e-12, "makespan just above the flip: %.17g, want %.17g", T, T_above);
}

Test(solver, unusable_and_invalid_devices_get_nothing, .timeout = 60) {
    apo__model m[4] = {model(0, 1e-8), model(0, 1e-9), model(0, 2e-9), model(0, 4e-9)};
    int usable[4] = {1, 0, 1, 1};
    m[3].valid = 0;
    double shares[4], T;
    solve_ok(m, usable, 4, 1e6, shares, &T);
    cr_assert_eq(shares[1], 0.0, "not usable: share %.17g", shares[1]);
    cr_assert_eq(shares[3], 0.0, "invalid model: share %.17g", shares[3]);
    /* The rest as if alone: rates 1e8 and 5e8. */
    assert_rel(shares[0], 1.0 / 6, 1e-12, "share 0 = %.17g", shares[0]);
    assert_rel(shares[2], 5.0 / 6, 1e-12, "share 2 = %.17g", shares[2]);
    assert_rel(T, 1e6 / 6e8, 1e-12, "makespan %.17g", T);

    int none[4] = {0, 0, 0, 0};
    apo_status st = apo__solve_split(m, none, 4, 1e6, shares, &T);
    cr_assert_eq(st, APO_ERR_NO_DEVICE, "none usable: %s", apo_status_name(st));
    int only_invalid[4] = {0, 0, 0, 1};
    st = apo__solve_split(m, only_invalid, 4, 1e6, shares, &T);
    cr_assert_eq(st, APO_ERR_NO_DEVICE, "only an invalid model usable: %s", apo_status_name(st));

    int one[4] = {0, 0, 1, 0};
    solve_ok(m, one, 4, 1e6, shares, &T);
    cr_assert_eq(shares[2], 1.0, "the only usable device takes everything");
    assert_rel(T, 1e6 * 2e-9, 1e-12, "makespan %.17g", T);
}

/* A GPU's fixed cost per call (launch, synchronisation, the first copy's latency) against a
 * 16-core cpu, in the figures of docs/cuda.md ("Small calls"): bollinger host-resident moves
 * 32 bytes per sample over PCIe at 55 GB/s (0.58 ns per sample) after 7.4 ms of fixed cost,
 * so 1e6 samples are predicted at 8 ms on the GPU against 0.2 ms on the cpu (20 us and
 * 0.18 ns per sample). */
Test(solver, a_gpu_whose_fixed_cost_dominates_leaves_small_calls_to_the_cpu, .timeout = 60) {
    const double gl = 7.4e-3, gc = 32.0 / 55e9, cl = 20e-6, cc = 0.18e-9;
    apo__model m[2] = {model(gl, gc), model(cl, cc)}; /* the GPU first, as in device order */
    double shares[2], T;
    solve_ok(m, ALL, 2, 1e6, shares, &T);
    cr_assert_eq(shares[0], 0.0, "GPU share at 1e6: %.17g", shares[0]);
    cr_assert_eq(shares[1], 1.0, "cpu share at 1e6: %.17g", shares[1]);
    assert_rel(T, cl + 1e6 * cc, 1e-12, "makespan at 1e6: %.17g", T);

    /* 1e8: the cpu alone would take 18 ms, more than the GPU's fixed cost: both finish
     * together at T = (total + cl / cc + gl / gc) / (1 / cc + 1 / gc). */
    solve_ok(m, ALL, 2, 1e8, shares, &T);
    const double T_want = (1e8 + cl / cc + gl / gc) / (1 / cc + 1 / gc);
    assert_rel(T, T_want, 1e-12, "makespan at 1e8: %.17g, want %.17g", T, T_want);
    assert_rel(shares[0], (T_want - gl) / gc / 1e8, 1e-11, "GPU share at 1e8: %.17g", shares[0]);
    cr_assert_gt(shares[0], 0.05, "the GPU takes a real part of 1e8: %.17g", shares[0]);
    cr_assert_lt(T, cl + 1e8 * cc, "the split beats the cpu alone");
}

/* A GPU whose model predicts it worth using (little fixed cost), but whose share would not
 * fill its SMs once: one wave of an H100 is 132 SMs x 32 tiles of 4,096 samples, 17.3
 * million. The floor leaves it out at 1e6 and does not touch a split above it. */
Test(solver, a_share_below_a_devices_floor_goes_to_the_others, .timeout = 60) {
    const double wave = 132.0 * 32 * 4096;
    apo__model m[2] = {model(0.1e-3, 0.05e-9), model(20e-6, 0.18e-9)};
    const double floor[2] = {wave, 0};
    double shares[2], T, plain[2], T_plain;

    /* 1e6: without the floor the GPU takes most of it; with it, the cpu takes it all. */
    solve_ok(m, ALL, 2, 1e6, plain, &T_plain);
    cr_assert_gt(plain[0], 0.0, "the model alone gives the GPU work at 1e6");
    cr_assert_eq(apo__solve_split_min(m, ALL, floor, 2, 1e6, shares, &T), APO_OK);
    cr_assert_eq(shares[0], 0.0, "GPU share at 1e6 with its floor: %.17g", shares[0]);
    cr_assert_eq(shares[1], 1.0);
    assert_rel(T, 20e-6 + 1e6 * 0.18e-9, 1e-12, "makespan %.17g", T);

    /* 1e8: the GPU's share (about 78%) is above a wave: the floor changes nothing. */
    solve_ok(m, ALL, 2, 1e8, plain, &T_plain);
    cr_assert_gt(plain[0] * 1e8, wave);
    cr_assert_eq(apo__solve_split_min(m, ALL, floor, 2, 1e8, shares, &T), APO_OK);
    cr_assert_eq(shares[0], plain[0]);
    cr_assert_eq(shares[1], plain[1]);
    cr_assert_eq(T, T_plain);

    /* No floors: the plain solver. */
    solve_ok(m, ALL, 2, 1e6, plain, &T_plain);
    cr_assert_eq(apo__solve_split_min(m, ALL, NULL, 2, 1e6, shares, &T), APO_OK);
    cr_assert_eq(shares[0], plain[0]);
    cr_assert_eq(shares[1], plain[1]);

    /* The GPU alone (the cpu not usable) keeps the call below its floor: someone must. */
    const int gpu_only[2] = {1, 0};
    cr_assert_eq(apo__solve_split_min(m, gpu_only, floor, 2, 1e6, shares, &T), APO_OK);
    cr_assert_eq(shares[0], 1.0);
    cr_assert_eq(shares[1], 0.0);
}

/* Two GPUs and a cpu: at a size where each GPU's share of a three-way split is below a
 * wave but one GPU's share of a two-way split is above it, one GPU is left out (the one
 * furthest below, the slower), not both; the result is the two-device optimum. */
Test(solver, floors_leave_out_one_device_at_a_time, .timeout = 60) {
    const double wave = 1e6;
    apo__model m[3] = {model(0, 1e-9), model(0, 2e-9), model(0, 4e-9)};
    const double floor[3] = {wave, wave, 0};
    /* Rates 1e9, 5e8, 2.5e8 (sum 1.75e9): at 2.5e6, shares 1.43e6, 0.71e6, 0.36e6: the second
     * GPU is below its floor; without it, the first takes 2.5e6 * 1e9 / 1.25e9 = 2e6. */
    double shares[3], T;
    cr_assert_eq(apo__solve_split_min(m, ALL, floor, 3, 2.5e6, shares, &T), APO_OK);
    cr_assert_eq(shares[1], 0.0, "the slower GPU: %.17g", shares[1]);
    assert_rel(shares[0], 0.8, 1e-12, "the faster GPU: %.17g", shares[0]);
    assert_rel(shares[2], 0.2, 1e-12, "the cpu: %.17g", shares[2]);
    assert_rel(T, 2.5e6 / 1.25e9, 1e-12, "makespan %.17g", T);
    /* At 1e6 the faster GPU's two-way share (0.8e6) is below a wave too: the cpu alone. */
    cr_assert_eq(apo__solve_split_min(m, ALL, floor, 3, 1e6, shares, &T), APO_OK);
    cr_assert_eq(shares[2], 1.0, "the cpu: %.17g", shares[2]);
    assert_rel(T, 1e6 * 4e-9, 1e-12, "makespan %.17g", T);
}

/* A random model: latency 0 (one time in four) or log-uniform in [10 us, 50 ms], cost
 * log-uniform in [0.1 ns, 100 ns] per element. */
static apo__model random_model(uint64_t seed, uint64_t idx) {
    double u = apo__test_uniform(seed, 3 * idx), v = apo__test_uniform(seed, 3 * idx + 1),
           w = apo__test_uniform(seed, 3 * idx + 2);
    double lat = u < 0.25 ? 0.0 : 1e-5 * pow(5000.0, w);
    return model(lat, 1e-10 * pow(1000.0, v));
}

static double random_total(uint64_t seed) {
    return floor(1e3 * pow(1e5, apo__test_uniform(seed, 1000))); /* 1e3 .. 1e8 */
}

/* Checks the optimality conditions, and that the reported makespan is the shares'. */
static void check_optimal(const apo__model *m, const int *usable, size_t n, double total,
                          const double *shares, double T, const char *what) {
    double T_shares = makespan_of(m, usable, n, total, shares);
    assert_rel(T, T_shares, 1e-9, "%s: reported makespan %.17g, the shares' %.17g", what, T,
               T_shares);
    for (size_t i = 0; i < n; i++) {
        int can = usable[i] && m[i].valid;
        if (!can) {
            cr_assert_eq(shares[i], 0.0, "%s: device %zu cannot take work", what, i);
        } else if (shares[i] > 0) {
            double t = m[i].latency_s + shares[i] * total * m[i].cost_s;
            assert_rel(t, T, 1e-9, "%s: device %zu finishes at %.17g, not with the others (%.17g)",
                       what, i, t, T);
        } else {
            cr_assert_geq(m[i].latency_s, T * (1 - 1e-12),
                          "%s: device %zu left out with latency %.17g below the makespan %.17g",
                          what, i, m[i].latency_s, T);
        }
    }
}

Test(solver, never_beaten_by_a_grid_of_two_device_splits, .timeout = 60) {
    for (uint64_t seed = 1; seed <= 300; seed++) {
        apo__model m[2] = {random_model(seed, 0), random_model(seed, 1)};
        double total = random_total(seed);
        double shares[2], T;
        solve_ok(m, ALL, 2, total, shares, &T);
        char what[64];
        snprintf(what, sizeof what, "seed %llu, total %g", (unsigned long long)seed, total);
        for (int g = 0; g <= 1000; g++) {
            double s[2] = {g / 1000.0, 1 - g / 1000.0};
            double Tg = makespan_of(m, ALL, 2, total, s);
            cr_assert_leq(T, Tg * (1 + 1e-12),
                          "%s: the solver's makespan %.17g beaten by shares %.3f/%.3f: %.17g", what,
                          T, s[0], s[1], Tg);
        }
        check_optimal(m, ALL, 2, total, shares, T, what);
    }
}

Test(solver, never_beaten_by_a_grid_of_three_device_splits, .timeout = 60) {
    for (uint64_t seed = 1; seed <= 100; seed++) {
        apo__model m[3] = {random_model(seed, 0), random_model(seed, 1), random_model(seed, 2)};
        double total = random_total(seed);
        double shares[3], T;
        solve_ok(m, ALL, 3, total, shares, &T);
        char what[64];
        snprintf(what, sizeof what, "seed %llu, total %g", (unsigned long long)seed, total);
        const int G = 120;
        for (int a = 0; a <= G; a++)
            for (int b = 0; a + b <= G; b++) {
                double s[3] = {(double)a / G, (double)b / G, (double)(G - a - b) / G};
                double Tg = makespan_of(m, ALL, 3, total, s);
                cr_assert_leq(T, Tg * (1 + 1e-12),
                              "%s: the solver's makespan %.17g beaten by shares %.3f/%.3f/%.3f: "
                              "%.17g",
                              what, T, s[0], s[1], s[2], Tg);
            }
        /* The equal split, which the grid does not hold exactly. */
        double eq[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
        double Teq = makespan_of(m, ALL, 3, total, eq);
        cr_assert_leq(T, Teq * (1 + 1e-12), "%s: beaten by the equal split", what);
        check_optimal(m, ALL, 3, total, shares, T, what);
    }
}

Test(solver, many_devices_meet_the_optimality_conditions, .timeout = 60) {
    for (uint64_t seed = 1; seed <= 200; seed++) {
        size_t n = 1 + (size_t)(apo__test_uniform(seed, 2000) * APO_MAX_DEVICES);
        if (n > APO_MAX_DEVICES)
            n = APO_MAX_DEVICES;
        apo__model m[APO_MAX_DEVICES];
        int usable[APO_MAX_DEVICES];
        size_t can = 0;
        for (size_t i = 0; i < n; i++) {
            m[i] = random_model(seed, i);
            usable[i] = apo__test_uniform(seed, 3000 + i) < 0.85;
            if (apo__test_uniform(seed, 4000 + i) < 0.1)
                m[i].valid = 0;
            /* Some exact ties in latency, to exercise the device-order rule. */
            if (i > 0 && apo__test_uniform(seed, 5000 + i) < 0.2)
                m[i].latency_s = m[i - 1].latency_s;
            can += usable[i] && m[i].valid;
        }
        double total = random_total(seed);
        double shares[APO_MAX_DEVICES], T;
        char what[80];
        snprintf(what, sizeof what, "seed %llu, %zu devices, total %g", (unsigned long long)seed, n,
                 total);
        if (can == 0) {
            apo_status st = apo__solve_split(m, usable, n, total, shares, &T);
            cr_assert_eq(st, APO_ERR_NO_DEVICE, "%s: none usable gives %s", what,
                         apo_status_name(st));
            continue;
        }
        solve_ok(m, usable, n, total, shares, &T);
        check_optimal(m, usable, n, total, shares, T, what);
        /* Never worse than any single usable device alone. */
        for (size_t i = 0; i < n; i++)
            if (usable[i] && m[i].valid)
                cr_assert_leq(T, (m[i].latency_s + total * m[i].cost_s) * (1 + 1e-12),
                              "%s: worse than device %zu alone", what, i);
    }
}

/* The guard's margin (configurations.h, APO_SPLIT_MIN_GAIN): a split predicted faster than the
 * best device alone by less than 5% is not run, since the models cannot tell the two apart and
 * the split pays what they do not see; by more, it runs. Device 0 takes 1 ns an element, device
 * 1 c ns: the split takes 1 / (1 + 1 / c) of device 0 alone (0.968 at c = 30, 0.909 at 10). */
Test(solver, a_split_runs_only_where_it_gains_more_than_the_margin) {
    static const struct {
        double cost1_ns;
        int alone;
    } cases[] = {{30, 0}, {25, 0}, {19, -1}, {10, -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const apo__model models[2] = {model(0, 1e-9), model(0, cases[i].cost1_ns * 1e-9)};
        apo__shape shape;
        memset(&shape, 0, sizeof shape);
        shape.elements = 1e6;
        for (size_t d = 0; d < 2; d++)
            shape.alone_speedup[d] = 1.0;
        double shares[2];
        apo__config_choice choice;
        cr_assert_eq(
            apo__choose_configuration(models, NULL, NULL, NULL, ALL, 2, &shape, shares, &choice),
            APO_OK);
        const double split_s = 1e-3 / (1.0 + 1.0 / cases[i].cost1_ns);
        assert_rel(choice.split_s, split_s, 1e-9, "cost %g: split %.6g s", cases[i].cost1_ns,
                   choice.split_s);
        cr_assert_eq(choice.alone, cases[i].alone, "cost %g ns: split %.4f ms, alone %.4f ms: %d",
                     cases[i].cost1_ns, split_s * 1e3, choice.alone_s[0] * 1e3, choice.alone);
        if (cases[i].alone == 0)
            cr_assert(shares[0] == 1.0 && shares[1] == 0.0, "shares %g %g", shares[0], shares[1]);
        else
            cr_assert(shares[0] > 0 && shares[1] > 0, "shares %g %g", shares[0], shares[1]);
    }
}

/* A device on a borrowed model (balance_state.c, complete_models(): another device's, lent
 * until it has its own) is never run alone on it. On the H200 machine a cpu whose stored
 * model had been written on another thread count borrowed the GPU's, was planned alone at 4 ms
 * for a scored sweep that took it 73, and ran it where the GPU alone took 22
 * (docs/perf-log/2026-11-26-h200-third-visit.md). Device 0 is a GPU modelled per wave (any
 * share costs the whole call's wave, 1 ms); device 1 a cpu at the same cost per element beside
 * it and twice as fast alone: on its own model it runs alone (0.5 ms), on a borrowed one not. */
Test(solver, a_device_on_a_borrowed_model_is_never_run_alone) {
    for (int borrowed = 0; borrowed < 2; borrowed++) {
        apo__model models[2] = {model(0, 1e-9), model(0, 1e-9)};
        models[1].borrowed = borrowed;
        apo__shape shape;
        memset(&shape, 0, sizeof shape);
        shape.elements = 1e6;
        shape.wave_elements[0] = 1e6;
        shape.alone_speedup[0] = 1.0;
        shape.alone_speedup[1] = 2.0;
        double shares[2];
        apo__config_choice choice;
        cr_assert_eq(
            apo__choose_configuration(models, NULL, NULL, NULL, ALL, 2, &shape, shares, &choice),
            APO_OK);
        if (borrowed)
            cr_assert(choice.alone != 1 && shares[0] > 0,
                      "borrowed: the cpu must not run alone (alone %d, shares %g %g)", choice.alone,
                      shares[0], shares[1]);
        else
            cr_assert(choice.alone == 1 && shares[1] == 1.0,
                      "own model: the cpu alone (0.5 ms) beats the GPU's wave (alone %d, shares "
                      "%g %g)",
                      choice.alone, shares[0], shares[1]);
    }
}

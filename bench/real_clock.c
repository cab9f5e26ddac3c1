/*
 * real_clock.c: apo-bench-balance --real-clock, balancing measured on the wall clock
 * (docs/PERF.md, section "Balancing on the wall clock").
 *
 * The simulated scenarios of bench_balance.c run on the virtual clock, where a device's
 * time is exactly its model: they prove the logic, not the behaviour. Here every device
 * runs on the wall clock: the machine's cpu beside sim devices that compute their results
 * on the host and then wait out their modelled time. A sim's host computation needs a core
 * of its own, or it takes the cpu's and the two are not separate devices: the cpu device
 * gets every online core but one (on a 2-core machine, one thread). The sims' rates are set
 * from the cpu's own rate, measured first in the same run, so the ratios hold on any
 * machine.
 *
 * Per scenario, in one run and on fresh runtimes with the profile files off:
 *   static sweep   explicit ratios, learn off: the cpu's share from 0.50 to 1.00 by 0.05,
 *                  RC_STATIC_CALLS calls each; the best median makespan is the yardstick;
 *   warm rates     each device alone on reused buffers, learn off: what a model should say;
 *   from-equal     learn on from nothing, RC_CALLS calls;
 *   from-profile   apo_profile_auto_balance() first, then learn on, RC_CALLS calls.
 * After each series one more call is made, and each device's time in it is compared with
 * the time its stored model predicted for the elements it got (pred_err), and the model's
 * rate with the device's warm rate (drift; below 1 where the calls are colder than warm).
 *
 * Correctness first: every call's outputs are compared bitwise with those of the first
 * call of the run; any difference makes the program exit 1. Targets are reported, not
 * asserted.
 */
/* MAP_ANONYMOUS is not in POSIX 2008, which the build asks for: the fresh arrays of the
 * cold-buffers scenario need it. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

#define RC_CALLS 20
#define RC_STATIC_CALLS 3
#define RC_SOLO_CALLS 5
#define RC_STATIC_STEPS 11 /* cpu shares 0.50, 0.55, ..., 1.00 */
#define RC_SLOW_AFTER 11   /* the slowing sim's first slow call (counted in calls with work) */
#define RC_SLOW_FACTOR 3.0
/* Profiling: three sizes, one warm-up and PROFILE_RUNS timed runs each, one device at a
 * time: that many calls of the sim before the series starts. */
#define RC_PROFILE_RUNS 5u
#define RC_PROFILE_CALLS_PER_DEVICE (3 * (RC_PROFILE_RUNS + 1))
#define RC_N_DEV 2

/* The targets of the issue: on every scenario, the median efficiency of calls 3 to 20 and
 * the makespan against the best static split; the models' prediction of the next call. */
#define TARGET_EFF 0.93
#define TARGET_MAKESPAN_REL 1.10
#define TARGET_PRED_REL 0.25

typedef struct rc_scenario {
    const char *name;
    const char *what;
    double sim_divisor; /* the sim's rate is the cpu's over this */
    int slowdown;       /* the sim slows RC_SLOW_FACTOR-fold from call RC_SLOW_AFTER */
    int cold;           /* fresh output arrays every call */
} rc_scenario;

static const rc_scenario rc_scenarios[] = {
    {"cpu-2x", "the cpu beside a wall-clock sim at half the cpu's rate", 2, 0, 0},
    {"cpu-8x", "the cpu beside a wall-clock sim at an eighth of the cpu's rate", 8, 0, 0},
    {"slowdown-3x", "as cpu-2x, the sim 3x slower from its 11th call with work", 2, 1, 0},
    {"cold-buffers", "as cpu-2x, fresh (never touched) output arrays every call", 2, 0, 1},
};
#define RC_N_SCENARIOS (sizeof rc_scenarios / sizeof rc_scenarios[0])

typedef enum rc_strategy {
    RC_FROM_EQUAL = 0,
    RC_FROM_PROFILE = 1,
    RC_N_STRATEGIES = 2
} rc_strategy;
static const char *const rc_strategy_names[RC_N_STRATEGIES] = {"from-equal", "from-profile"};

typedef struct rc_call {
    double makespan_ms, efficiency;
    double share[RC_N_DEV], wall_ms[RC_N_DEV];
    uint64_t elements[RC_N_DEV];
} rc_call;

typedef struct rc_series {
    rc_call calls[RC_CALLS];
    int n_calls;
    int slow_call;             /* 1-based call from which the sim ran slow; 0: none */
    double median_eff;         /* calls 3..20 (after the slowdown: slow_call + 2 .. 20) */
    double median_ms;          /* same calls */
    double pred_err[RC_N_DEV]; /* next call: device time / model's prediction - 1 */
    double drift[RC_N_DEV];    /* the model's rate over the warm rate */
    double next_wall_ms[RC_N_DEV];
} rc_series;

typedef struct rc_io {
    size_t n, n_out;
    const double *input;
    double *out[APO_MAX_IO];
    double *ref[APO_MAX_IO];
    int have_ref, cold;
    long wrong;
} rc_io;

typedef struct rc_context {
    char cpu[32]; /* the cpu device, one core left for the sim */
    const char *kernel;
    size_t size;
    rc_io io;
    int failed;
} rc_context;

/* ---- buffers ------------------------------------------------------------------------------ */

/* Fresh anonymous pages: their first touch happens inside the call, as for a caller who
 * allocates its outputs every time. */
static double *fresh_array(size_t n) {
    void *p =
        mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void release_array(double *p, size_t n) {
    if (p != NULL)
        munmap(p, n * sizeof(double));
}

/* Makes one call of the context's workload on `rt`; `ratios` NULL: the runtime's balance.
 * Checks the outputs bitwise against the run's first call. Returns 0, or 1 on failure. */
static int one_call(rc_context *c, apo_runtime *rt, const double *ratios, apo_report *rep) {
    rc_io *io = &c->io;
    double *out[APO_MAX_IO];
    for (size_t o = 0; o < io->n_out; o++) {
        out[o] = io->cold ? fresh_array(io->n) : io->out[o];
        if (out[o] == NULL) {
            fprintf(stderr, "%s: out of memory for a fresh output\n", bench_prog);
            for (size_t k = 0; k < o; k++)
                release_array(out[k], io->n);
            return 1;
        }
    }
    const double *inputs[1] = {io->input};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = c->kernel;
    w.rows = 1;
    w.cols = io->n;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.outputs = out;
    w.n_outputs = io->n_out;
    w.seed = 20261122;
    w.split = APO_SPLIT_TIME;
    w.ratios = ratios;
    w.n_ratios = ratios != NULL ? RC_N_DEV : 0;
    *rep = (apo_report)APO_REPORT_INIT;
    int failed = bench_check(apo_distribute_workload(rt, &w, rep), "apo_distribute_workload");
    for (size_t o = 0; o < io->n_out && !failed; o++) {
        if (!io->have_ref)
            memcpy(io->ref[o], out[o], io->n * sizeof(double));
        for (size_t i = 0; i < io->n; i++)
            io->wrong += memcmp(&out[o][i], &io->ref[o][i], sizeof(double)) != 0;
    }
    io->have_ref |= !failed;
    if (io->cold)
        for (size_t o = 0; o < io->n_out; o++)
            release_array(out[o], io->n);
    return failed;
}

static apo_runtime *open_runtime(const char *devices, int learn) {
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = devices;
    cfg.sim_clock = APO_SIM_CLOCK_WALL;
    cfg.profiles = APO_SWITCH_OFF;
    cfg.learn = learn ? APO_SWITCH_ON : APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    if (bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create"))
        return NULL;
    return rt;
}

/* ---- measurements ------------------------------------------------------------------------- */

/* The cpu's warm rate in elements per second: alone, reused buffers, learn off. */
static double cpu_rate(rc_context *c) {
    apo_runtime *rt = open_runtime(c->cpu, 0);
    if (rt == NULL)
        return NAN;
    double ms[RC_SOLO_CALLS];
    apo_report rep;
    int failed = one_call(c, rt, NULL, &rep); /* warm-up */
    for (int k = 0; k < RC_SOLO_CALLS && !failed; k++) {
        failed = one_call(c, rt, NULL, &rep);
        ms[k] = rep.devices[0].wall_ms;
    }
    apo_runtime_destroy(rt);
    return failed ? NAN : (double)c->size / (bench_median(ms, RC_SOLO_CALLS) * 1e-3);
}

/* The device list of a scenario; `slow_after` 0 gives the sim at its slow rate from the
 * start (the regime the slowdown series ends in). */
static void device_list(const rc_context *c, const rc_scenario *sc, double rate,
                        unsigned slow_after, char *buf, size_t size) {
    double sim = rate / sc->sim_divisor;
    if (!sc->slowdown)
        snprintf(buf, size, "%s,sim:s:rate=%.6g", c->cpu, sim);
    else if (slow_after == 0)
        snprintf(buf, size, "%s,sim:s:rate=%.6g", c->cpu, sim / RC_SLOW_FACTOR);
    else
        snprintf(buf, size, "%s,sim:s:rate=%.6g:slow_after=%u:slow_rate=%.6g", c->cpu, sim,
                 slow_after, sim / RC_SLOW_FACTOR);
}

/* The static sweep and each device's warm rate, on the regime the series ends in. */
static void static_sweep(rc_context *c, const char *devices, double *best_share, double *best_ms,
                         double *warm_rate) {
    *best_share = *best_ms = NAN;
    apo_runtime *rt = open_runtime(devices, 0);
    if (rt == NULL) {
        c->failed = 1;
        return;
    }
    apo_report rep;
    for (int step = 0; step < RC_STATIC_STEPS && !c->failed; step++) {
        double p = 0.5 + 0.05 * step;
        double ratios[RC_N_DEV] = {p, 1.0 - p}, ms[RC_STATIC_CALLS];
        for (int k = 0; k < RC_STATIC_CALLS && !c->failed; k++) {
            c->failed = one_call(c, rt, ratios, &rep);
            ms[k] = rep.makespan_ms;
        }
        double med = bench_median(ms, RC_STATIC_CALLS);
        if (!c->failed && !(med >= *best_ms)) {
            *best_ms = med;
            *best_share = p;
        }
    }
    /* Warm rates: reused buffers whatever the scenario, one device at a time. */
    int cold = c->io.cold;
    c->io.cold = 0;
    for (int d = 0; d < RC_N_DEV && !c->failed; d++) {
        double ratios[RC_N_DEV] = {d == 0, d == 1}, ms[RC_SOLO_CALLS];
        c->failed = one_call(c, rt, ratios, &rep);
        for (int k = 0; k < RC_SOLO_CALLS && !c->failed; k++) {
            c->failed = one_call(c, rt, ratios, &rep);
            ms[k] = rep.devices[d].wall_ms;
        }
        warm_rate[d] = (double)c->size / (bench_median(ms, RC_SOLO_CALLS) * 1e-3);
    }
    c->io.cold = cold;
    apo_runtime_destroy(rt);
}

/* The stored model of device d for the kernel's tag: predicted ms for n elements and its
 * cost in ms per million elements; NaN when none. */
static void stored_model(apo_runtime *rt, const char *tag, size_t d, double n, double *pred_ms,
                         double *ms_per_melem) {
    *pred_ms = *ms_per_melem = NAN;
    size_t count = 0;
    if (apo_profile_entry_count(rt, &count) != APO_OK)
        return;
    for (size_t i = 0; i < count; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        if (apo_profile_entry_get(rt, i, &e) != APO_OK || strcmp(e.tag, tag) != 0 ||
            d >= e.n_devices || !e.devices[d].valid)
            continue;
        *ms_per_melem = e.devices[d].ms_per_melem;
        *pred_ms = e.devices[d].latency_ms + n * 1e-6 * e.devices[d].ms_per_melem;
    }
}

/* Whether the slowing sim ran slow in a call: its time is nearer to its share at the slow
 * rate than at the fast one. Read from the times, because a call where the sim got no work
 * does not count as one of its calls. */
static int ran_slow(double sim_rate, const rc_call *cr) {
    if (cr->elements[1] == 0)
        return 0;
    double t = cr->wall_ms[1] * 1e-3, n = (double)cr->elements[1];
    return fabs(t - n * RC_SLOW_FACTOR / sim_rate) < fabs(t - n / sim_rate);
}

static void run_series(rc_context *c, const rc_scenario *sc, double rate, rc_strategy strat,
                       const double *warm_rate, rc_series *s) {
    memset(s, 0, sizeof *s);
    for (int d = 0; d < RC_N_DEV; d++)
        s->pred_err[d] = s->drift[d] = s->next_wall_ms[d] = NAN;
    s->median_eff = s->median_ms = NAN;
    char devices[256];
    /* Profiling makes calls of the sim too: the slowdown is moved on past them, so that it
     * comes at the same call of the series as without profiling. */
    unsigned slow_after =
        RC_SLOW_AFTER + (strat == RC_FROM_PROFILE ? RC_PROFILE_CALLS_PER_DEVICE : 0);
    device_list(c, sc, rate, slow_after, devices, sizeof devices);
    apo_runtime *rt = open_runtime(devices, 1);
    if (rt == NULL) {
        c->failed = 1;
        return;
    }
    if (strat == RC_FROM_PROFILE) {
        apo_profile_options po = APO_PROFILE_OPTIONS_INIT;
        po.tag = c->kernel;
        po.kernel = c->kernel;
        po.sample_size = c->size;
        po.runs = RC_PROFILE_RUNS;
        po.seed = 7;
        apo_profile_result pr = APO_PROFILE_RESULT_INIT;
        c->failed = bench_check(apo_profile_auto_balance(rt, &po, &pr), "apo_profile_auto_balance");
    }
    apo_report rep;
    for (int k = 0; k < RC_CALLS && !c->failed; k++) {
        c->failed = one_call(c, rt, NULL, &rep);
        rc_call *cr = &s->calls[s->n_calls++];
        cr->makespan_ms = rep.makespan_ms;
        cr->efficiency = rep.balance_efficiency;
        for (int d = 0; d < RC_N_DEV; d++) {
            cr->share[d] = rep.devices[d].share;
            cr->wall_ms[d] = rep.devices[d].wall_ms;
            cr->elements[d] = rep.devices[d].elements;
        }
        if (sc->slowdown && s->slow_call == 0 && ran_slow(rate / sc->sim_divisor, cr))
            s->slow_call = k + 1;
    }
    /* The next call against the models as they stand before it. */
    double pred[RC_N_DEV], cost[RC_N_DEV];
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    const double *inputs[1] = {c->io.input};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = c->kernel;
    w.rows = 1;
    w.cols = c->size;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.n_outputs = c->io.n_out;
    w.split = APO_SPLIT_TIME;
    if (!c->failed && apo_plan_workload(rt, &w, &plan) == APO_OK) {
        for (int d = 0; d < RC_N_DEV; d++)
            stored_model(rt, c->kernel, (size_t)d, (double)plan.device_elements[d], &pred[d],
                         &cost[d]);
        c->failed = one_call(c, rt, NULL, &rep);
        for (int d = 0; d < RC_N_DEV && !c->failed; d++) {
            s->next_wall_ms[d] = rep.devices[d].wall_ms;
            if (rep.devices[d].elements > 0 && rep.devices[d].elements == plan.device_elements[d])
                s->pred_err[d] = rep.devices[d].wall_ms / pred[d] - 1.0;
            s->drift[d] = (1e9 / cost[d]) / warm_rate[d];
        }
    }
    apo_runtime_destroy(rt);

    /* Calls 3..20, or from two calls after the slowdown. */
    int from = sc->slowdown && s->slow_call > 0 ? s->slow_call + 1 : 2;
    double eff[RC_CALLS], ms[RC_CALLS];
    size_t m = 0;
    for (int k = from; k < s->n_calls; k++, m++) {
        eff[m] = s->calls[k].efficiency;
        ms[m] = s->calls[k].makespan_ms;
    }
    s->median_eff = bench_median(eff, m);
    s->median_ms = bench_median(ms, m);
}

/* ---- the run ------------------------------------------------------------------------------ */

static void print_target(int *missed, int pass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void print_target(int *missed, int pass, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("# target %s: ", pass ? "met   " : "MISSED");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    *missed += !pass;
}

int bench_real_clock(const char *kernel, double size, const char *only, const char *csv_path) {
    rc_context c;
    memset(&c, 0, sizeof c);
    c.kernel = kernel;
    c.size = (size_t)size;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(c.cpu, sizeof c.cpu, "cpu:threads=%ld", cores > 1 ? cores - 1 : 1);
    rc_io *io = &c.io;
    io->n = c.size;
    /* Output arrays: as many as the kernel has, each as long as the series (the real-clock
     * scenarios run indicators, whose outputs are rows x cols). */
    apo_runtime *probe = open_runtime("cpu", 0);
    apo_kernel_info ki = APO_KERNEL_INFO_INIT;
    if (probe == NULL || bench_check(apo_kernel_get(probe, kernel, &ki), "apo_kernel_get")) {
        apo_runtime_destroy(probe);
        return 1;
    }
    apo_runtime_destroy(probe);
    io->n_out = ki.n_outputs;
    double *input = malloc(io->n * sizeof *input);
    int oom = input == NULL;
    for (size_t o = 0; o < io->n_out && !oom; o++) {
        io->out[o] = malloc(io->n * sizeof(double));
        io->ref[o] = malloc(io->n * sizeof(double));
        oom = io->out[o] == NULL || io->ref[o] == NULL;
        if (!oom)
            memset(io->out[o], 0, io->n * sizeof(double)); /* warm from the start */
    }
    FILE *csv = csv_path != NULL ? fopen(csv_path, "w") : NULL;
    if (oom || (csv_path != NULL && csv == NULL)) {
        fprintf(stderr, "%s: %s\n", bench_prog, oom ? "out of memory" : "cannot write the CSV");
        c.failed = 1;
        goto done;
    }
    bench_fill_walk(input, 1, io->n, 0x5eedba1aull);
    io->input = input;

    char load[64];
    bench_load_average(load, sizeof load);
    printf("# apo-bench-balance --real-clock (apportion %s), kernel %s, %zu samples, load %s\n",
           apo_version(), kernel, c.size, load);
    double rate = cpu_rate(&c);
    if (!(rate > 0)) {
        c.failed = 1;
        goto done;
    }
    printf("# %s alone, warm: %.4g elements/s (%.3f ms per call); sims are set from it\n", c.cpu,
           rate, (double)c.size / rate * 1e3);
    printf("# eff = median balance efficiency of calls 3-%d (slowdown: from 2 calls after it); "
           "vs_best = median makespan / best static split's;\n"
           "# pred_err = next call's device time / its model's prediction - 1; drift = model's "
           "rate / warm rate alone\n",
           RC_CALLS);
    printf("%-13s %-12s %6s %9s %9s %7s %8s %9s %9s %7s %7s\n", "# scenario", "strategy", "eff",
           "median_ms", "best_ms", "vs_best", "best_cpu", "err_cpu", "err_sim", "dr_cpu", "dr_sim");
    if (csv != NULL)
        fprintf(csv, "scenario,strategy,call,makespan_ms,efficiency,cpu_share,sim_share,"
                     "cpu_wall_ms,sim_wall_ms\n");

    int missed = 0;
    for (size_t i = 0; i < RC_N_SCENARIOS && !c.failed; i++) {
        const rc_scenario *sc = &rc_scenarios[i];
        if (!bench_selected(only, sc->name))
            continue;
        io->cold = sc->cold;
        char devices[256];
        device_list(&c, sc, rate, 0, devices, sizeof devices);
        double best_share, best_ms, warm[RC_N_DEV];
        static_sweep(&c, devices, &best_share, &best_ms, warm);
        for (int st = 0; st < RC_N_STRATEGIES && !c.failed; st++) {
            rc_series s;
            run_series(&c, sc, rate, (rc_strategy)st, warm, &s);
            double vs_best = s.median_ms / best_ms;
            printf("%-13s %-12s %6.3f %9.2f %9.2f %7.3f %8.2f %+9.3f %+9.3f %7.3f %7.3f\n",
                   sc->name, rc_strategy_names[st], s.median_eff, s.median_ms, best_ms, vs_best,
                   best_share, s.pred_err[0], s.pred_err[1], s.drift[0], s.drift[1]);
            for (int k = 0; csv != NULL && k < s.n_calls; k++) {
                const rc_call *cr = &s.calls[k];
                fprintf(csv, "%s,%s,%d,%.4f,%.5f,%.5f,%.5f,%.4f,%.4f\n", sc->name,
                        rc_strategy_names[st], k + 1, cr->makespan_ms, cr->efficiency, cr->share[0],
                        cr->share[1], cr->wall_ms[0], cr->wall_ms[1]);
            }
            print_target(&missed, s.median_eff >= TARGET_EFF, "%s %s: efficiency %.3f >= %.2f",
                         sc->name, rc_strategy_names[st], s.median_eff, TARGET_EFF);
            print_target(&missed, vs_best <= TARGET_MAKESPAN_REL,
                         "%s %s: makespan %.3f of the best static split <= %.2f", sc->name,
                         rc_strategy_names[st], vs_best, TARGET_MAKESPAN_REL);
            for (int d = 0; d < RC_N_DEV; d++)
                if (isfinite(s.pred_err[d]))
                    print_target(&missed, fabs(s.pred_err[d]) <= TARGET_PRED_REL,
                                 "%s %s: %s's next time within %.0f%% of its model (%+.1f%%)",
                                 sc->name, rc_strategy_names[st], d == 0 ? "cpu" : "sim:s",
                                 TARGET_PRED_REL * 100, s.pred_err[d] * 100);
            fflush(stdout);
        }
    }
    printf("# %d target(s) missed; %ld output element(s) not bitwise equal to the first call's\n",
           missed, io->wrong);
done:
    if (csv != NULL)
        fclose(csv);
    free(input);
    for (size_t o = 0; o < io->n_out; o++) {
        free(io->out[o]);
        free(io->ref[o]);
    }
    return c.failed || io->wrong != 0;
}

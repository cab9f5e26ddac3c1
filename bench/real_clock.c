/*
 * real_clock.c: apo-bench-balance --real-clock, balancing measured on the wall clock
 * (docs/perf-log/2026-11-22-balancing-wall-clock.md, section "Balancing on the wall clock").
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
 * The `ranks` scenario runs under mpirun instead: rank 0's own devices beside the other
 * ranks, each rank with the devices of its own APPORTION_DEVICES (the MPMD form of mpirun
 * gives them different thread counts).
 *
 * Per scenario, in one run, with the profile files off, each phase under a workload tag of
 * its own (so that no model carries over from one to the next):
 *   static sweep   explicit ratios on a grid over the devices' shares (steps of 0.05 for
 *                  two devices, 0.1 for three), RC_STATIC_CALLS calls each; the best median
 *                  makespan is the yardstick;
 *   warm rates     each device alone on reused buffers: what a model should say;
 *   from-equal     balanced by the runtime from nothing, RC_CALLS calls;
 *   from-profile   apo_profile_auto_balance() first, then RC_CALLS calls.
 * The sim scenarios open a fresh runtime per phase; the ranks one keeps one joined runtime
 * (an MPI job serves one), which the tags keep apart.
 * After each call of a series one call at the best static split follows, and the makespans
 * of the two are compared over the same moments (vs_best).
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
#define RC_SLOW_AFTER 11 /* the slowing sim's first slow call (counted in calls with work) */
#define RC_SLOW_FACTOR 3.0
/* The sweep's grid: shares in steps of 1/K, with K as fine as keeps it to this many points. */
#define RC_SWEEP_POINTS_MAX 70
/* Profiling: three sizes, one warm-up and PROFILE_RUNS timed runs each, one device at a
 * time: that many calls of the sim before the series starts. */
#define RC_PROFILE_RUNS 5u
#define RC_PROFILE_CALLS_PER_DEVICE (3 * (RC_PROFILE_RUNS + 1))
#define RC_MAX_DEV 8

/* The targets of the issue: on every scenario, the median efficiency of calls 3 to 20 and
 * the makespan against the best static split; the models' prediction of the next call. */
#define TARGET_EFF 0.93
#define TARGET_MAKESPAN_REL 1.10
#define TARGET_PRED_REL 0.25

typedef struct rc_scenario {
    const char *name;
    const char *what;
    double sim_divisor; /* the sim's rate is the cpu's over this; 0: the ranks scenario */
    int slowdown;       /* the sim slows RC_SLOW_FACTOR-fold from call RC_SLOW_AFTER */
    int cold;           /* fresh output arrays every call */
} rc_scenario;

static const rc_scenario rc_scenarios[] = {
    {"cpu-2x", "the cpu beside a wall-clock sim at half the cpu's rate", 2, 0, 0},
    {"cpu-8x", "the cpu beside a wall-clock sim at an eighth of the cpu's rate", 8, 0, 0},
    {"slowdown-3x", "as cpu-2x, the sim 3x slower from its 11th call with work", 2, 1, 0},
    {"cold-buffers", "as cpu-2x, fresh (never touched) output arrays every call", 2, 0, 1},
    {"ranks", "rank 0's devices beside every other rank (under mpirun)", 0, 0, 0},
};
#define RC_N_SCENARIOS (sizeof rc_scenarios / sizeof rc_scenarios[0])

/* The name of row i, for bench_list_unknown. */
static const char *rc_scenario_name(size_t i) { return rc_scenarios[i].name; }

typedef enum rc_strategy {
    RC_FROM_EQUAL = 0,
    RC_FROM_PROFILE = 1,
    RC_N_STRATEGIES = 2
} rc_strategy;
static const char *const rc_strategy_names[RC_N_STRATEGIES] = {"from-equal", "from-profile"};

typedef struct rc_call {
    double makespan_ms, efficiency;
    double static_ms, static_eff; /* the best static split's call right after this one */
    double share[RC_MAX_DEV], wall_ms[RC_MAX_DEV];
    uint64_t elements[RC_MAX_DEV];
} rc_call;

typedef struct rc_series {
    rc_call calls[RC_CALLS];
    int n_calls;
    int slow_call;                /* 1-based call from which the sim ran slow; 0: none */
    double median_eff;            /* calls 3..20 (after the slowdown: slow_call + 2 .. 20) */
    double median_ms;             /* same calls */
    double static_eff, static_ms; /* the interleaved best static split's, same calls */
    double pred_err[RC_MAX_DEV];  /* next call: device time / model's prediction - 1 */
    double drift[RC_MAX_DEV];     /* the model's rate over the warm rate */
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
    char cpu[32]; /* the cpu device of the sim scenarios, one core left for the sim */
    const char *kernel;
    size_t size;
    rc_io io;
    apo_runtime *joined; /* the ranks scenario's one runtime */
    size_t n_dev;
    char ids[RC_MAX_DEV][APO_ID_MAX];
    int failed;
} rc_context;

/* ---- buffers and calls -------------------------------------------------------------------- */

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

static void fill_workload(const rc_context *c, const char *tag, apo_workload *w,
                          const double **inputs) {
    *w = (apo_workload)APO_WORKLOAD_INIT;
    inputs[0] = c->io.input;
    w->kernel = c->kernel;
    w->tag = tag;
    w->rows = 1;
    w->cols = c->io.n;
    w->inputs = inputs;
    w->n_inputs = 1;
    w->n_outputs = c->io.n_out;
    w->seed = 20261122;
    w->split = APO_SPLIT_TIME;
}

/* Makes one call of the context's workload under `tag`; `ratios` NULL: the runtime's
 * balance. Checks the outputs bitwise against the run's first call. Returns 0, or 1 on
 * failure. */
static int one_call(rc_context *c, apo_runtime *rt, const char *tag, const double *ratios,
                    apo_report *rep) {
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
    const double *inputs[1];
    apo_workload w;
    fill_workload(c, tag, &w, inputs);
    w.outputs = out;
    w.ratios = ratios;
    w.n_ratios = ratios != NULL ? c->n_dev : 0;
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

static apo_runtime *create_runtime(const char *devices, int mpi) {
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = devices;
    cfg.sim_clock = APO_SIM_CLOCK_WALL;
    cfg.profiles = APO_SWITCH_OFF;
    cfg.learn = APO_SWITCH_ON;
    cfg.mpi = mpi ? APO_SWITCH_ON : APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    if (bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create"))
        return NULL;
    return rt;
}

/* A runtime for one phase: a fresh one over `devices`, or the ranks scenario's joined one. */
static apo_runtime *phase_runtime(rc_context *c, const char *devices) {
    apo_runtime *rt = c->joined != NULL ? c->joined : create_runtime(devices, 0);
    c->failed |= rt == NULL;
    return rt;
}

static void phase_done(rc_context *c, apo_runtime *rt) {
    if (rt != c->joined)
        apo_runtime_destroy(rt);
}

/* ---- measurements ------------------------------------------------------------------------- */

/* The median of `calls` calls' device time (d >= 0) or makespan (d < 0), after one warm-up
 * call. */
static double median_calls(rc_context *c, apo_runtime *rt, const char *tag, const double *ratios,
                           int calls, int d) {
    double ms[RC_SOLO_CALLS > RC_STATIC_CALLS ? RC_SOLO_CALLS : RC_STATIC_CALLS];
    apo_report rep;
    c->failed |= one_call(c, rt, tag, ratios, &rep);
    for (int k = 0; k < calls && !c->failed; k++) {
        c->failed |= one_call(c, rt, tag, ratios, &rep);
        ms[k] = d >= 0 ? rep.devices[d].wall_ms : rep.makespan_ms;
    }
    return c->failed ? NAN : bench_median(ms, (size_t)calls);
}

/* The cpu's warm rate in elements per second: alone, reused buffers. */
static double cpu_rate(rc_context *c) {
    apo_runtime *rt = phase_runtime(c, c->cpu);
    if (rt == NULL)
        return NAN;
    double ratio = 1.0;
    size_t n_dev = c->n_dev;
    c->n_dev = 1;
    double ms = median_calls(c, rt, "rc-calibrate", &ratio, RC_SOLO_CALLS, 0);
    c->n_dev = n_dev;
    phase_done(c, rt);
    return (double)c->size / (ms * 1e-3);
}

/* The device list of a sim scenario; `slow_after` 0 gives the sim at its slow rate from the
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

/* Calls `visit` for every share vector of n devices in steps of 1/k (the compositions of k
 * into n parts), in a fixed order. */
static void each_grid_point(size_t n, unsigned k, unsigned *parts, size_t at, unsigned left,
                            void (*visit)(rc_context *, const unsigned *, unsigned, void *),
                            rc_context *c, void *ctx) {
    if (at == n - 1) {
        parts[at] = left;
        visit(c, parts, k, ctx);
        return;
    }
    for (unsigned p = 0; p <= left && !c->failed; p++) {
        parts[at] = p;
        each_grid_point(n, k, parts, at + 1, left - p, visit, c, ctx);
    }
}

typedef struct sweep_best {
    apo_runtime *rt;
    double best_ms;
    double best_share[RC_MAX_DEV];
} sweep_best;

static void sweep_point(rc_context *c, const unsigned *parts, unsigned k, void *ctx) {
    sweep_best *b = ctx;
    double ratios[RC_MAX_DEV];
    for (size_t d = 0; d < c->n_dev; d++)
        ratios[d] = (double)parts[d] / k;
    double ms = median_calls(c, b->rt, "rc-static", ratios, RC_STATIC_CALLS, -1);
    if (!c->failed && !(ms >= b->best_ms)) {
        b->best_ms = ms;
        memcpy(b->best_share, ratios, c->n_dev * sizeof *ratios);
    }
}

/* The static sweep and each device's warm rate, on the regime the series ends in. */
static void static_sweep(rc_context *c, const char *devices, sweep_best *best, double *warm_rate) {
    memset(best, 0, sizeof *best);
    best->best_ms = NAN;
    best->rt = phase_runtime(c, devices);
    if (best->rt == NULL)
        return;
    /* The finest grid of at most RC_SWEEP_POINTS_MAX points: C(k + n - 1, n - 1) of them. */
    unsigned k = 1;
    for (;;) {
        double points = 1;
        for (size_t i = 1; i < c->n_dev; i++)
            points = points * (double)(k + 1 + i) / (double)i;
        if (points > RC_SWEEP_POINTS_MAX || k >= 20)
            break;
        k++;
    }
    unsigned parts[RC_MAX_DEV];
    each_grid_point(c->n_dev, k, parts, 0, k, sweep_point, c, best);
    /* Warm rates: reused buffers whatever the scenario, one device at a time. */
    int cold = c->io.cold;
    c->io.cold = 0;
    for (size_t d = 0; d < c->n_dev && !c->failed; d++) {
        double ratios[RC_MAX_DEV] = {0};
        ratios[d] = 1;
        warm_rate[d] = (double)c->size /
                       (median_calls(c, best->rt, "rc-solo", ratios, RC_SOLO_CALLS, (int)d) * 1e-3);
    }
    c->io.cold = cold;
    phase_done(c, best->rt);
}

/* Whether the slowing sim (device 1) ran slow in a call: its time is nearer to its share at
 * the slow rate than at the fast one. Read from the times, because a call where the sim got
 * no work does not count as one of its calls. */
static int ran_slow(double sim_rate, const rc_call *cr) {
    if (cr->elements[1] == 0)
        return 0;
    double t = cr->wall_ms[1] * 1e-3, n = (double)cr->elements[1];
    return fabs(t - n * RC_SLOW_FACTOR / sim_rate) < fabs(t - n / sim_rate);
}

/* The next call against the models as they stand before it. */
static void next_call(rc_context *c, apo_runtime *rt, const char *tag, const double *warm_rate,
                      rc_series *s) {
    const double *inputs[1];
    apo_workload w;
    fill_workload(c, tag, &w, inputs);
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    if (apo_plan_workload(rt, &w, &plan) != APO_OK)
        return;
    double pred[RC_MAX_DEV], whole[RC_MAX_DEV];
    for (size_t d = 0; d < c->n_dev; d++) {
        pred[d] = bench_stored_prediction(rt, tag, d, (double)plan.device_elements[d]);
        whole[d] = bench_stored_prediction(rt, tag, d, (double)c->size);
    }
    apo_report rep;
    c->failed |= one_call(c, rt, tag, NULL, &rep);
    for (size_t d = 0; d < c->n_dev && !c->failed; d++) {
        if (rep.devices[d].elements > 0 && rep.devices[d].elements == plan.device_elements[d])
            s->pred_err[d] = rep.devices[d].wall_ms / pred[d] - 1.0;
        /* Rates at the whole series' size: the model's against the warm one measured. */
        s->drift[d] = ((double)c->size / (whole[d] * 1e-3)) / warm_rate[d];
    }
}

/* One series of calls balanced by the runtime. After each, one call at the best static
 * split on `static_devices` (the regime the series ends in), so that both see the machine
 * in the same moments: on a shared virtual machine a device's speed moves by tens of
 * percent from one second to the next. */
static void run_series(rc_context *c, const rc_scenario *sc, double rate, rc_strategy strat,
                       const double *warm_rate, const char *static_devices,
                       const double *best_share, rc_series *s) {
    memset(s, 0, sizeof *s);
    for (size_t d = 0; d < RC_MAX_DEV; d++)
        s->pred_err[d] = s->drift[d] = NAN;
    s->median_eff = s->median_ms = s->static_eff = s->static_ms = NAN;
    char devices[256] = "";
    /* Profiling makes calls of the sim too: the slowdown is moved on past them, so that it
     * comes at the same call of the series as without profiling. */
    unsigned slow_after =
        RC_SLOW_AFTER + (strat == RC_FROM_PROFILE ? RC_PROFILE_CALLS_PER_DEVICE : 0);
    if (sc->sim_divisor > 0)
        device_list(c, sc, rate, slow_after, devices, sizeof devices);
    apo_runtime *rt = phase_runtime(c, devices);
    if (rt == NULL)
        return;
    apo_runtime *static_rt = phase_runtime(c, static_devices);
    if (static_rt == NULL) {
        phase_done(c, rt);
        return;
    }
    const char *tag = strat == RC_FROM_PROFILE ? "rc-from-profile" : "rc-from-equal";
    if (strat == RC_FROM_PROFILE) {
        apo_profile_options po = APO_PROFILE_OPTIONS_INIT;
        po.tag = tag;
        po.kernel = c->kernel;
        po.sample_size = c->size;
        po.runs = RC_PROFILE_RUNS;
        po.seed = 7;
        apo_profile_result pr = APO_PROFILE_RESULT_INIT;
        c->failed |=
            bench_check(apo_profile_auto_balance(rt, &po, &pr), "apo_profile_auto_balance");
    }
    apo_report rep;
    for (int k = 0; k < RC_CALLS && !c->failed; k++) {
        c->failed |= one_call(c, rt, tag, NULL, &rep);
        rc_call *cr = &s->calls[s->n_calls++];
        cr->makespan_ms = rep.makespan_ms;
        cr->efficiency = rep.balance_efficiency;
        for (size_t d = 0; d < c->n_dev; d++) {
            cr->share[d] = rep.devices[d].share;
            cr->wall_ms[d] = rep.devices[d].wall_ms;
            cr->elements[d] = rep.devices[d].elements;
        }
        if (sc->slowdown && s->slow_call == 0 && ran_slow(rate / sc->sim_divisor, cr))
            s->slow_call = k + 1;
        c->failed |= one_call(c, static_rt, "rc-static", best_share, &rep);
        cr->static_ms = rep.makespan_ms;
        cr->static_eff = rep.balance_efficiency;
    }
    if (!c->failed)
        next_call(c, rt, tag, warm_rate, s);
    phase_done(c, static_rt);
    phase_done(c, rt);

    /* Calls 3..20, or from two calls after the slowdown. */
    int from = sc->slowdown && s->slow_call > 0 ? s->slow_call + 1 : 2;
    double eff[RC_CALLS], ms[RC_CALLS], st_eff[RC_CALLS], st_ms[RC_CALLS];
    size_t m = 0;
    for (int k = from; k < s->n_calls; k++, m++) {
        eff[m] = s->calls[k].efficiency;
        ms[m] = s->calls[k].makespan_ms;
        st_eff[m] = s->calls[k].static_eff;
        st_ms[m] = s->calls[k].static_ms;
    }
    s->median_eff = bench_median(eff, m);
    s->median_ms = bench_median(ms, m);
    s->static_eff = bench_median(st_eff, m);
    s->static_ms = bench_median(st_ms, m);
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

/* Prints "a/b/c" of per-device values into buf. */
static const char *per_device(const rc_context *c, const double *v, const char *fmt, char *buf,
                              size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t d = 0; d < c->n_dev && len < size; d++) {
        if (d > 0)
            len += (size_t)snprintf(buf + len, size - len, "/");
        if (len < size)
            len += (size_t)snprintf(buf + len, size - len, fmt, v[d]);
    }
    return buf;
}

static const char *per_device_ids(const rc_context *c, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t d = 0; d < c->n_dev && len < size; d++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", d ? "/" : "", c->ids[d]);
    return buf;
}

static void run_scenario(rc_context *c, const rc_scenario *sc, double rate, FILE *csv,
                         int *missed) {
    c->io.cold = sc->cold;
    char devices[256] = "";
    if (sc->sim_divisor > 0) {
        device_list(c, sc, rate, 0, devices, sizeof devices);
        c->n_dev = 2;
        snprintf(c->ids[0], sizeof c->ids[0], "%s", c->cpu);
        snprintf(c->ids[1], sizeof c->ids[1], "sim:s");
    }
    double warm[RC_MAX_DEV], warm_cost[RC_MAX_DEV];
    sweep_best best;
    static_sweep(c, devices, &best, warm);
    for (size_t d = 0; d < c->n_dev; d++)
        warm_cost[d] = 1e9 / warm[d];
    char a[160], b[160];
    printf("# %s: %s\n#   devices %s; best static split %s (%.2f ms); warm ms per Melem %s\n",
           sc->name, sc->what, per_device_ids(c, a, sizeof a),
           per_device(c, best.best_share, "%.2f", b, sizeof b), best.best_ms,
           per_device(c, warm_cost, "%.3g", b + 80, sizeof b - 80));
    for (int st = 0; st < RC_N_STRATEGIES && !c->failed; st++) {
        rc_series s;
        run_series(c, sc, rate, (rc_strategy)st, warm, devices, best.best_share, &s);
        double vs_best = s.median_ms / s.static_ms;
        printf("%-13s %-12s %6.3f %6.3f %9.2f %9.2f %7.3f  %-20s %-16s\n", sc->name,
               rc_strategy_names[st], s.median_eff, s.static_eff, s.median_ms, s.static_ms, vs_best,
               per_device(c, s.pred_err, "%+.3f", a, sizeof a),
               per_device(c, s.drift, "%.3f", b, sizeof b));
        for (int k = 0; csv != NULL && k < s.n_calls; k++) {
            const rc_call *cr = &s.calls[k];
            fprintf(csv, "%s,%s,%d,%.4f,%.5f,%s,%s,%.4f,%.5f\n", sc->name, rc_strategy_names[st],
                    k + 1, cr->makespan_ms, cr->efficiency,
                    per_device(c, cr->share, "%.5f", a, sizeof a),
                    per_device(c, cr->wall_ms, "%.4f", b, sizeof b), cr->static_ms, cr->static_eff);
        }
        print_target(missed, s.median_eff >= TARGET_EFF, "%s %s: efficiency %.3f >= %.2f", sc->name,
                     rc_strategy_names[st], s.median_eff, TARGET_EFF);
        print_target(missed, vs_best <= TARGET_MAKESPAN_REL,
                     "%s %s: makespan %.3f of the best static split <= %.2f", sc->name,
                     rc_strategy_names[st], vs_best, TARGET_MAKESPAN_REL);
        for (size_t d = 0; d < c->n_dev; d++)
            if (isfinite(s.pred_err[d]))
                print_target(missed, fabs(s.pred_err[d]) <= TARGET_PRED_REL,
                             "%s %s: %s's next time within %.0f%% of its model (%+.1f%%)", sc->name,
                             rc_strategy_names[st], c->ids[d], TARGET_PRED_REL * 100,
                             s.pred_err[d] * 100);
        fflush(stdout);
    }
}

/* The ranks scenario's runtime, joined before anything else runs. Returns 1 when this
 * process was a server and has served (or failed), so that the caller only exits. */
static int join_ranks(rc_context *c, int *status) {
    apo_runtime *rt = create_runtime(NULL, 1);
    apo_cluster_info info = APO_CLUSTER_INFO_INIT;
    if (rt == NULL || bench_check(apo_cluster_info_get(rt, &info), "apo_cluster_info_get")) {
        apo_runtime_destroy(rt);
        *status = 1;
        return 1;
    }
    if (info.role == APO_CLUSTER_SERVER) {
        *status = bench_check(apo_cluster_serve(rt), "apo_cluster_serve");
        apo_runtime_destroy(rt);
        return 1;
    }
    size_t n = 0;
    apo_device_count(rt, &n);
    if (info.role != APO_CLUSTER_COORDINATOR || info.joined == 0 || n > RC_MAX_DEV) {
        fprintf(stderr,
                "%s --real-clock --scenarios ranks: needs mpirun with two ranks or more and at "
                "most %d devices in all (role %d, %zu ranks joined, %zu devices)\n",
                bench_prog, RC_MAX_DEV, (int)info.role, info.joined, n);
        apo_runtime_destroy(rt);
        *status = 1;
        return 1;
    }
    c->joined = rt;
    c->n_dev = n;
    for (size_t d = 0; d < n; d++) {
        apo_device_info di = APO_DEVICE_INFO_INIT;
        apo_device_get(rt, d, &di);
        snprintf(c->ids[d], sizeof c->ids[d], "%s", di.id);
    }
    return 0;
}

int bench_real_clock(const char *kernel, double size, const char *only, const char *csv_path) {
    /* Every listed scenario must exist; ranks runs alone, under mpirun. */
    size_t len;
    const char *unknown = bench_list_unknown(only, rc_scenario_name, RC_N_SCENARIOS, &len);
    if (unknown != NULL) {
        fprintf(stderr, "%s: unknown real-clock scenario \"%.*s\"\n", bench_prog, (int)len,
                unknown);
        return 2;
    }
    int ranks = 0, n_listed = 0;
    for (const char *p = only, *item; (item = bench_list_next(&p, &len)) != NULL; n_listed++)
        ranks |= bench_item_is(item, len, "ranks");
    if (ranks && n_listed > 1) {
        fprintf(stderr, "%s: the ranks scenario runs alone (--scenarios ranks, under mpirun)\n",
                bench_prog);
        return 2;
    }
    rc_context c;
    memset(&c, 0, sizeof c);
    c.kernel = kernel;
    c.size = (size_t)size;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(c.cpu, sizeof c.cpu, "cpu:threads=%ld", cores > 1 ? cores - 1 : 1);
    int status = 0;
    if (ranks && join_ranks(&c, &status))
        return status;
    rc_io *io = &c.io;
    io->n = c.size;
    /* As many output arrays as the kernel has, each as long as the series (the scenarios
     * run indicators, whose outputs are rows x cols). */
    apo_kernel_info ki = APO_KERNEL_INFO_INIT;
    apo_runtime *probe = c.joined != NULL ? c.joined : create_runtime("cpu", 0);
    int failed = probe == NULL || bench_check(apo_kernel_get(probe, kernel, &ki), "apo_kernel_get");
    if (probe != c.joined)
        apo_runtime_destroy(probe);
    io->n_out = failed ? 0 : ki.n_outputs;
    double *input = failed ? NULL : malloc(io->n * sizeof *input);
    failed |= input == NULL;
    for (size_t o = 0; o < io->n_out && !failed; o++) {
        io->out[o] = malloc(io->n * sizeof(double));
        io->ref[o] = malloc(io->n * sizeof(double));
        failed |= io->out[o] == NULL || io->ref[o] == NULL;
        if (!failed)
            memset(io->out[o], 0, io->n * sizeof(double)); /* warm from the start */
    }
    FILE *csv = !failed && csv_path != NULL ? fopen(csv_path, "w") : NULL;
    if (failed || (csv_path != NULL && csv == NULL)) {
        fprintf(stderr, "%s: %s\n", bench_prog,
                failed ? "cannot set up the real-clock run" : "cannot write the CSV");
        c.failed = 1;
        goto done;
    }
    bench_fill_walk(input, 1, io->n, 0x5eedba1aull);
    io->input = input;

    char load[64];
    bench_load_average(load, sizeof load);
    printf("# apo-bench-balance --real-clock (apportion %s), kernel %s, %zu samples, %ld online "
           "cpus, load %s\n",
           apo_version(), kernel, c.size, cores, load);
    double rate = NAN;
    if (!ranks) {
        c.n_dev = 1;
        rate = cpu_rate(&c);
        if (!(rate > 0)) {
            c.failed = 1;
            goto done;
        }
        printf("# %s alone, warm: %.4g elements/s (%.3f ms per call); the sims are set from it\n",
               c.cpu, rate, (double)c.size / rate * 1e3);
    }
    printf("# eff = median balance efficiency of calls 3-%d (slowdown: from 2 calls after it); "
           "st_eff, static_ms = the same of\n"
           "#   the best static split (found by the sweep), called right after each call; "
           "vs_best = median_ms / static_ms;\n"
           "# pred_err = next call's device time / its model's prediction - 1; drift = the "
           "model's rate at the whole size / the warm rate alone (per device, in device order)\n",
           RC_CALLS);
    printf("%-13s %-12s %6s %6s %9s %9s %7s  %-20s %-16s\n", "# scenario", "strategy", "eff",
           "st_eff", "median_ms", "static_ms", "vs_best", "pred_err", "drift");
    if (csv != NULL)
        fprintf(csv, "scenario,strategy,call,makespan_ms,efficiency,shares,device_ms,static_ms,"
                     "static_efficiency\n");

    int missed = 0;
    for (size_t i = 0; i < RC_N_SCENARIOS && !c.failed; i++) {
        const rc_scenario *sc = &rc_scenarios[i];
        /* The default is every sim scenario; ranks only when asked for. */
        if (only == NULL ? sc->sim_divisor == 0 : !bench_selected(only, sc->name))
            continue;
        run_scenario(&c, sc, rate, csv, &missed);
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
    apo_runtime_destroy(c.joined);
    return c.failed || io->wrong != 0;
}

/*
 * bench_balance.c: apo-bench-balance, how well the runtime splits work across devices of
 * different speeds (docs/perf-log/2026-11-21-balancing.md, section "Balancing").
 *
 * Each scenario is a device set: simulated devices on the virtual clock (their time is
 * modelled as latency + elements / rate, so the figures are exact and free of noise while
 * the results are still computed on the CPU), and the machine's own devices on the wall
 * clock. Each scenario runs three strategies, each on a fresh runtime with the profile
 * files off (the user's multigpu.json and thresholds.json are never read or written):
 *   equal     explicit equal ratios in apo_workload.ratios, online refinement off;
 *   profiled  apo_profile_auto_balance() first, then the calls with refinement off;
 *   online    refinement on, starting from nothing (the first call splits equally).
 * Every strategy makes a series of calls of the same workload and records, per call, the
 * makespan, the balance efficiency, the ratio source and each device's share and busy time
 * from apo_report.
 *
 * Correctness comes first: every call's outputs must be bitwise equal to those of the first
 * equal-split call of the same scenario and size (memcmp per element); the elements that
 * are not count in #wrong, and any makes the program exit 1. Targets are reported, not
 * asserted: a missed target still exits 0.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "balance_rows.h"
#include "bench.h"
#include "options.h"

#define PROG "apo-bench-balance"

const char bench_prog[] = PROG;

/* Profiling: the default sizes (sample_size / 16, / 4 and sample_size: three) and this many
 * timed runs, each after one untimed warm-up, all with work on each device in turn. */
#define PROFILE_RUNS 5u
#define PROFILE_SIZES 3
#define PROFILE_CALLS_PER_DEVICE (PROFILE_SIZES * (PROFILE_RUNS + 1))
#define SLOWDOWN_AFTER 11

static const scenario scenarios[] = {
    {"rates-1-2-8",
     "sim:a:rate=1e8:latency=50us,sim:b:rate=2e8:latency=50us,sim:c:rate=8e8:latency=50us",
     0,
     "three sims at 1e8, 2e8 and 8e8 elements/s, 50 us latency each: the ideal split is "
     "1:2:8",
     0,
     {0},
     12,
     0,
     NULL},
    {"latency-flip",
     "sim:fast:rate=1e9:latency=20ms,sim:slow:rate=1e8",
     0,
     "a fast sim with 20 ms latency beside a slow one without: slow alone is best up to about "
     "2e6 samples, both above",
     4,
     {1e5, 1e6, 3e6, 1e7},
     12,
     0,
     NULL},
    {"one-slow-of-four",
     "sim:d0:rate=4e8:latency=100us,sim:d1:rate=4e8:latency=100us,sim:d2:rate=4e8:latency=100us,"
     "sim:d3:rate=4e7:latency=100us",
     0,
     "three sims at 4e8 and one at 4e7 elements/s, 100 us latency each",
     0,
     {0},
     12,
     0,
     NULL},
    {"slowdown",
     "sim:a:rate=4e8,sim:b:rate=4e8:slow_after=11:slow_rate=2e8",
     0,
     "two sims at 4e8 elements/s; b drops to 2e8 from its 11th call with work",
     0,
     {0},
     20,
     1,
     "sim:a:rate=4e8,sim:b:rate=4e8:slow_after=%u:slow_rate=2e8"},
    {"machine", NULL, 1, "this machine's devices, wall clock", 0, {0}, 12, 0, NULL},
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* The name of row i, for bench_list_unknown. */
static const char *scenario_name(size_t i) { return scenarios[i].name; }

/* ---- options -------------------------------------------------------------------------- */

typedef struct options {
    int calls; /* 0: each scenario's default */
    double size;
    const char *kernel;
    const char *machine_kernel;
    const char *scenarios; /* comma list, NULL: all */
    const char *csv, *json, *timeline;
    int ranks;      /* --ranks: the multi-rank scenario under mpirun (ranks.c) */
    int real_clock; /* --real-clock: the wall-clock scenarios (real_clock.c) */
    const char *ranks_devices;
    double ranks_max;
    int rank_series;     /* --rank-series N: ranks of speeds set from outside (rank_series.c) */
    const char *weights; /* --weights FILE: their share of a core, read before each call */
} options;

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)
#define FLAG(...) BENCH_FLAG(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    OPT("--calls", "N", INT, 1, 100000, calls, "calls per strategy (default 12; 20 for slowdown)"),
    OPT("--size", "N", DOUBLE, 2, 1e10, size,
        "samples of the one-row workload (default 4e6; latency-flip\n"
        "runs its own sizes 1e5, 1e6, 3e6, 1e7)"),
    OPT("--kernel", "K", TEXT, 0, 0, kernel,
        "kernel of the simulated scenarios (default returns_stats)"),
    OPT("--machine-kernel", "K", TEXT, 0, 0, machine_kernel,
        "kernel of the machine scenario (default bollinger)"),
    OPT("--scenarios", "LIST", TEXT, 0, 0, scenarios,
        "comma list of rates-1-2-8, latency-flip, one-slow-of-four,\n"
        "slowdown, machine (default: all)"),
    OPT("--csv", "FILE", TEXT, 0, 0, csv, "one row per call"),
    OPT("--json", "FILE", TEXT, 0, 0, json, "everything, as JSON"),
    OPT("--timeline", "FILE", TEXT, 0, 0, timeline,
        "rates-1-2-8: per-device busy and wait time of the last call of\n"
        "the equal and the profiled split (CSV)"),
    FLAG("--ranks", ranks,
         "the multi-rank scenario instead (ranks.c): run under mpirun with\n"
         "two ranks or more; local vs MPI path vs split, 1e4 to 1e8"),
    OPT("--ranks-devices", "L", TEXT, 0, 0, ranks_devices,
        "devices of every rank in --ranks (default cpu:threads=1)"),
    OPT("--ranks-max", "N", DOUBLE, 1e4, 1e10, ranks_max, "largest size of --ranks (default 1e8)"),
    FLAG("--real-clock", real_clock,
         "the wall-clock scenarios instead (real_clock.c): the cpu beside\n"
         "wall-clock sims, against the best static split; --size,\n"
         "--machine-kernel, --scenarios (cpu-2x, cpu-8x, slowdown-3x,\n"
         "cold-buffers) and --csv apply"),
    OPT("--rank-series", "N", INT, 5, 4096, rank_series,
        "under mpirun: N calls balanced by the runtime, each beside one at\n"
        "the static split of the measured rates (rank_series.c); --size,\n"
        "--machine-kernel, --csv, --weights apply"),
    OPT("--weights", "FILE", TEXT, 0, 0, weights,
        "--rank-series: one weight per device (its share of a core), read\n"
        "again before each call (scripts/cluster-bench.sh writes it)"),
};

#undef OPT
#undef FLAG

static const bench_option_table option_table = {"[options]", option_rows,
                                                sizeof option_rows / sizeof option_rows[0], 21};

/* Reads the options. Every listed scenario must exist: a typo would otherwise run nothing and
 * pass. The real-clock scenarios are checked by their own file. Returns 0 or -1 (after the
 * message and the usage). */
static int read_options(int argc, char **argv, options *o) {
    if (bench_options_parse(&option_table, argc, argv, o) != 0)
        return -1;
    size_t len;
    const char *unknown =
        bench_list_unknown(o->real_clock ? NULL : o->scenarios, scenario_name, N_SCENARIOS, &len);
    if (unknown != NULL) {
        fprintf(stderr, PROG ": unknown scenario \"%.*s\" in --scenarios\n", (int)len, unknown);
        bench_options_usage(&option_table, stderr);
        return -1;
    }
    return 0;
}

/* ---- small helpers -------------------------------------------------------------------- */

static int report_failure(apo_status st, const char *what, char *msg, size_t size) {
    if (st == APO_OK)
        return 0;
    snprintf(msg, size, "%s: %s: %s", what, apo_status_name(st), apo_last_error());
    fprintf(stderr, PROG ": %s\n", msg);
    return 1;
}

/* The buffers of one scenario and size: the outputs of the call under test and the
 * reference (the first equal-split call's outputs). */
typedef struct io_set {
    const double *input;
    size_t n_out;
    size_t len[APO_MAX_IO];
    double *out[APO_MAX_IO];
    double *ref[APO_MAX_IO];
    int have_ref;
} io_set;

/* Whether the device with slow_after ran at its slow rate: its measured busy time is nearer
 * to latency + n / slow_rate than to latency + n / rate. Read from the report rather than
 * counted, because profiling runs also count as the device's calls. */
static int ran_slow(const apo_device_info *di, const apo_device_report *d) {
    if (di->kind != APO_DEVICE_SIM || di->sim_slow_after == 0 || d->elements == 0)
        return 0;
    double n = (double)d->elements, t = d->wall_ms * 1e-3;
    double fast = di->sim_latency_s + n / di->sim_rate;
    double slow = di->sim_latency_s + n / di->sim_slow_rate;
    return fabs(t - slow) < fabs(t - fast);
}

/* Marks the calls that probed a device the models leave without work (docs/scheduling.md,
 * "Exploration"): the device ran at most 2% of the elements in that call and nothing in the
 * calls either side. Such a call is unbalanced by design, once in ten calls at most. */
static void mark_probe_calls(call_rec *c, size_t n_calls, size_t n_devices) {
    for (size_t k = 1; k < n_calls; k++) {
        uint64_t total = 0;
        for (size_t d = 0; d < n_devices; d++)
            total += c[k].elements[d];
        for (size_t d = 0; d < n_devices; d++)
            c[k].probe |= c[k].elements[d] > 0 && c[k].elements[d] <= total / 50 &&
                          c[k - 1].elements[d] == 0 &&
                          (k + 1 == n_calls || c[k + 1].elements[d] == 0);
    }
}

/* The number of calls after `from` (0-based) from which the efficiency stays at or above
 * `target` up to `to`, probes aside; -1 when it never does. */
static long calls_to_hold(const call_rec *c, size_t from, size_t to, double target) {
    size_t k = to;
    while (k > from && (c[k - 1].efficiency >= target || c[k - 1].probe))
        k--;
    return k < to ? (long)(k - from) : REACH_NEVER;
}

static void run_row(const scenario *sc, const char *kernel, size_t size, strategy strat,
                    int n_calls, io_set *io, row_result *r) {
    memset(r, 0, sizeof *r);
    r->sc = sc;
    r->kernel = kernel;
    r->size = size;
    r->strat = strat;
    r->virtual_clock = !sc->machine;
    r->reach = r->rereach = REACH_NEVER;
    r->median_ms = r->final_eff = r->min_eff = NAN;
    r->profile.size = sizeof r->profile;

    /* A fresh runtime per strategy, so that no model carries over; profiles off, so that
     * the user's profile files are neither read nor written. */
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = sc->devices;
    char devices[512];
    if (strat == S_PROFILED && sc->profiled_devices_fmt != NULL) {
        snprintf(devices, sizeof devices, sc->profiled_devices_fmt,
                 SLOWDOWN_AFTER + PROFILE_CALLS_PER_DEVICE);
        cfg.devices = devices;
    }
    cfg.sim_clock = sc->machine ? APO_SIM_CLOCK_WALL : APO_SIM_CLOCK_VIRTUAL;
    cfg.profiles = APO_SWITCH_OFF;
    cfg.learn = strat == S_ONLINE ? APO_SWITCH_ON : APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    apo_device_info info[APO_MAX_DEVICES];
    double ratios[APO_MAX_DEVICES];
    if (report_failure(apo_runtime_create(&cfg, &rt), "apo_runtime_create", r->failure,
                       sizeof r->failure) ||
        report_failure(apo_device_count(rt, &r->n_devices), "apo_device_count", r->failure,
                       sizeof r->failure)) {
        r->failed = 1;
        goto done;
    }
    for (size_t i = 0; i < r->n_devices; i++) {
        info[i] = (apo_device_info)APO_DEVICE_INFO_INIT;
        if (report_failure(apo_device_get(rt, i, &info[i]), "apo_device_get", r->failure,
                           sizeof r->failure)) {
            r->failed = 1;
            goto done;
        }
        snprintf(r->ids[i], sizeof r->ids[i], "%s", info[i].id);
        ratios[i] = 1.0;
    }

    if (strat == S_PROFILED) {
        apo_profile_options po = APO_PROFILE_OPTIONS_INIT;
        po.tag = kernel;
        po.kernel = kernel;
        po.sample_size = size;
        po.runs = PROFILE_RUNS;
        po.seed = 7;
        double t0 = bench_now();
        apo_status st = apo_profile_auto_balance(rt, &po, &r->profile);
        r->profile_s = bench_now() - t0;
        if (report_failure(st, "apo_profile_auto_balance", r->failure, sizeof r->failure)) {
            r->failed = 1;
            goto done;
        }
        r->has_profile = 1;
    }

    apo_workload w = bench_workload(kernel, 1, size, &io->input, 1);
    w.outputs = io->out;
    w.n_outputs = io->n_out;
    w.seed = 20261121;
    if (strat == S_EQUAL) {
        w.ratios = ratios;
        w.n_ratios = r->n_devices;
    }

    r->calls = calloc((size_t)n_calls, sizeof *r->calls);
    if (r->calls == NULL) {
        snprintf(r->failure, sizeof r->failure, "out of memory");
        r->failed = 1;
        goto done;
    }
    for (int c = 0; c < n_calls; c++) {
        /* A byte pattern no kernel writes, so that an output left unwritten shows. */
        for (size_t o = 0; o < io->n_out; o++)
            memset(io->out[o], 0xA5, io->len[o] * sizeof(double));
        apo_report rep = APO_REPORT_INIT;
        if (report_failure(apo_distribute_workload(rt, &w, &rep), "apo_distribute_workload",
                           r->failure, sizeof r->failure)) {
            r->failed = 1;
            break;
        }
        call_rec *cr = &r->calls[r->n_calls++];
        if (!io->have_ref) {
            /* The first equal-split call of this scenario and size is the reference. */
            for (size_t o = 0; o < io->n_out; o++)
                memcpy(io->ref[o], io->out[o], io->len[o] * sizeof(double));
            io->have_ref = 1;
        }
        for (size_t o = 0; o < io->n_out; o++)
            for (size_t i = 0; i < io->len[o]; i++)
                cr->wrong += memcmp(&io->out[o][i], &io->ref[o][i], sizeof(double)) != 0;
        r->wrong += cr->wrong;
        cr->makespan_ms = rep.makespan_ms;
        cr->efficiency = rep.balance_efficiency;
        cr->source = rep.ratio_source;
        for (size_t i = 0; i < rep.n_devices && i < r->n_devices; i++) {
            cr->share[i] = rep.devices[i].share;
            cr->wall_ms[i] = rep.devices[i].wall_ms;
            cr->wait_ms[i] = rep.devices[i].wait_ms;
            cr->elements[i] = rep.devices[i].elements;
            cr->slow |= ran_slow(&info[i], &rep.devices[i]);
        }
    }

    if (r->n_calls > 0) {
        mark_probe_calls(r->calls, r->n_calls, r->n_devices);
        double *v = malloc(r->n_calls * sizeof *v);
        r->min_eff = INFINITY;
        for (size_t c = 0; c < r->n_calls; c++) {
            if (v != NULL)
                v[c] = r->calls[c].makespan_ms;
            r->min_eff = fmin(r->min_eff, r->calls[c].efficiency);
            if (r->slow_call == 0 && r->calls[c].slow)
                r->slow_call = (long)c + 1;
        }
        r->median_ms = v != NULL ? bench_median(v, r->n_calls) : NAN;
        free(v);
        r->final_eff = r->calls[r->n_calls - 1].efficiency;
        size_t phase_end = r->slow_call > 0 ? (size_t)r->slow_call - 1 : r->n_calls;
        /* A device slowed from the first call (profiling used up its fast calls) leaves
         * no phase before the slowdown to measure. */
        r->reach =
            phase_end > 0 ? calls_to_hold(r->calls, 0, phase_end, TARGET_ONLINE_EFF) : REACH_NA;
        if (r->slow_call > 0)
            r->rereach =
                calls_to_hold(r->calls, (size_t)r->slow_call - 1, r->n_calls, TARGET_ONLINE_EFF);
    }
done:
    apo_runtime_destroy(rt);
}

/* ---- main: the steps ------------------------------------------------------------------ */

/* Everything one run of the scenarios holds. */
typedef struct balance_run {
    const options *opt;
    double *input; /* one walk of the largest size: a shorter series is its prefix */
    row_result *rows;
    size_t n_rows;
    int api_failed;
    long total_wrong;
    double t_start;
    char host[256], load_start[64], load_end[64];
} balance_run;

/* The input and the rows of every selected scenario. Returns 0 or -1 (after the message). */
static int alloc_run(balance_run *b) {
    const options *o = b->opt;
    size_t max_size = (size_t)o->size;
    size_t max_rows = 0;
    for (size_t s = 0; s < N_SCENARIOS; s++) {
        if (!bench_selected(o->scenarios, scenarios[s].name))
            continue;
        for (size_t k = 0; k < scenarios[s].n_sizes; k++)
            max_size =
                (size_t)scenarios[s].sizes[k] > max_size ? (size_t)scenarios[s].sizes[k] : max_size;
        max_rows += N_STRATEGIES * (scenarios[s].n_sizes ? scenarios[s].n_sizes : 1);
    }
    b->input = malloc(max_size * sizeof *b->input);
    b->rows = calloc(max_rows, sizeof *b->rows);
    if (b->input == NULL || b->rows == NULL) {
        fprintf(stderr, PROG ": out of memory for %zu samples\n", max_size);
        return -1;
    }
    bench_fill_walk(b->input, 1, max_size, 0x5eedba1aull);
    return 0;
}

static void print_header(balance_run *b) {
    snprintf(b->host, sizeof b->host, "?");
    gethostname(b->host, sizeof b->host - 1);
    bench_load_average(b->load_start, sizeof b->load_start);
    printf("# " PROG " (apportion %s)\n", apo_version());
    printf("# host %s, %ld online cpus, load average %s\n", b->host, sysconf(_SC_NPROCESSORS_ONLN),
           b->load_start);
    printf("# one series (rows = 1); kernel %s for the sims, %s for the machine; fresh runtime per "
           "strategy, profile files off\n",
           b->opt->kernel, b->opt->machine_kernel);
    printf("# strategies: equal = explicit equal ratios, learn off; profiled = "
           "apo_profile_auto_balance(sample_size = size, default sizes and runs), learn off;\n"
           "#   online = learn on from nothing (call 1 splits equally)\n");
    printf("# makespan_ms = median over the calls; eff = apo_report.balance_efficiency;\n"
           "#   reach = calls after call 1 until eff >= %.2f holds for the rest of the series "
           "(before any slowdown);\n"
           "#   re-reach = N@S: the device slowed at call S (seen in its busy time), eff >= %.2f "
           "holds again N calls later\n",
           TARGET_ONLINE_EFF, TARGET_ONLINE_EFF);
    printf("# #wrong = output elements not bitwise equal to the first equal-split call's "
           "(memcmp)\n");
    fflush(stdout);
}

/* A scenario's lines before its table: what it is, its devices and warnings, and what the
 * strategies do differently on it. Returns the devices as JSON. */
static json_t *print_scenario(const scenario *sc, apo_runtime *probe, size_t n_dev,
                              const char *kernel, int n_calls, int skip_online) {
    printf("\n# scenario %s: %s\n", sc->name, sc->what);
    printf("#   devices \"%s\", %s clock, kernel %s, %d calls per strategy\n",
           sc->devices ? sc->devices : "(machine default)", sc->machine ? "wall" : "virtual",
           kernel, n_calls);
    json_t *jdevs = json_array();
    for (size_t i = 0; i < n_dev; i++) {
        apo_device_info di = APO_DEVICE_INFO_INIT;
        if (apo_device_get(probe, i, &di) == APO_OK) {
            printf("#   device %zu: %s\n", i, di.label);
            json_array_append_new(jdevs, json_pack("{s:s,s:s}", "id", di.id, "label", di.label));
        }
    }
    size_t n_warn = 0;
    apo_runtime_warning_count(probe, &n_warn);
    for (size_t i = 0; i < n_warn; i++) {
        const char *wmsg;
        if (apo_runtime_warning(probe, i, &wmsg) == APO_OK)
            printf("#   runtime warning: %s\n", wmsg);
    }
    if (sc->profiled_devices_fmt != NULL) {
        char devices[512];
        snprintf(devices, sizeof devices, sc->profiled_devices_fmt,
                 SLOWDOWN_AFTER + PROFILE_CALLS_PER_DEVICE);
        printf("#   profiled strategy: devices \"%s\": profiling makes %u calls on each device "
               "first, so slow_after moves on by as many and the slowdown lands on the same "
               "call of the series\n",
               devices, PROFILE_CALLS_PER_DEVICE);
    }
    if (skip_online)
        printf("#   one device: balance is trivially 1; online refinement has nothing to "
               "split, so only equal and profiled run\n");
    balance_print_table_header();
    return jdevs;
}

/* The rows of one scenario at one size: a strategy each, on buffers shaped by the probe. */
static void run_size_rows(balance_run *b, const scenario *sc, apo_runtime *probe,
                          const char *kernel, size_t size, size_t n_out, int n_calls,
                          int skip_online) {
    io_set io = {.input = b->input, .n_out = n_out};
    char msg[512] = "out of memory";
    int ok = 1;
    for (size_t o = 0; o < io.n_out && ok; o++) {
        apo_workload w = bench_workload(kernel, 1, size, NULL, 1);
        size_t orow, ocol;
        ok = !report_failure(apo_output_shape(probe, &w, o, &orow, &ocol), "apo_output_shape", msg,
                             sizeof msg);
        io.len[o] = ok ? orow * ocol : 0;
        ok = ok && (io.out[o] = malloc(io.len[o] * sizeof(double))) != NULL &&
             (io.ref[o] = malloc(io.len[o] * sizeof(double))) != NULL;
    }
    if (!ok) {
        printf("%-17s %9zu  FAILED: %s\n", sc->name, size, msg);
        b->api_failed = 1;
    }
    for (int st = 0; st < N_STRATEGIES && ok; st++) {
        if (st == S_ONLINE && skip_online)
            continue;
        row_result *r = &b->rows[b->n_rows++];
        run_row(sc, kernel, size, (strategy)st, n_calls, &io, r);
        b->api_failed |= r->failed;
        b->total_wrong += r->wrong;
        balance_print_row(r);
    }
    for (size_t o = 0; o < io.n_out; o++) {
        free(io.out[o]);
        free(io.ref[o]);
    }
}

/* One scenario: a probe runtime lists the devices and gives the outputs' shapes, then a row
 * per size and strategy. Returns its JSON, or NULL when the probe failed (said in a line). */
static json_t *run_scenario(balance_run *b, const scenario *sc) {
    const char *kernel = sc->machine ? b->opt->machine_kernel : b->opt->kernel;
    int n_calls = b->opt->calls > 0 ? b->opt->calls : sc->default_calls;
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = sc->devices;
    cfg.sim_clock = sc->machine ? APO_SIM_CLOCK_WALL : APO_SIM_CLOCK_VIRTUAL;
    cfg.profiles = APO_SWITCH_OFF;
    cfg.learn = APO_SWITCH_OFF;
    apo_runtime *probe = NULL;
    apo_kernel_info ki = APO_KERNEL_INFO_INIT;
    char msg[512];
    size_t n_dev = 0;
    if (report_failure(apo_runtime_create(&cfg, &probe), "apo_runtime_create", msg, sizeof msg) ||
        report_failure(apo_device_count(probe, &n_dev), "apo_device_count", msg, sizeof msg) ||
        report_failure(apo_kernel_get(probe, kernel, &ki), "apo_kernel_get", msg, sizeof msg)) {
        printf("\n# scenario %s: FAILED: %s\n", sc->name, msg);
        apo_runtime_destroy(probe);
        b->api_failed = 1;
        return NULL;
    }
    const int skip_online = sc->machine && n_dev == 1;
    json_t *jdevs = print_scenario(sc, probe, n_dev, kernel, n_calls, skip_online);
    size_t n_sizes = sc->n_sizes ? sc->n_sizes : 1;
    for (size_t k = 0; k < n_sizes; k++)
        run_size_rows(b, sc, probe, kernel,
                      sc->n_sizes ? (size_t)sc->sizes[k] : (size_t)b->opt->size, ki.n_outputs,
                      n_calls, skip_online);
    apo_runtime_destroy(probe);
    for (size_t i = 0; i < b->n_rows; i++)
        if (b->rows[i].sc == sc)
            balance_print_profile(&b->rows[i]);
    json_t *jrows = json_array();
    for (size_t i = 0; i < b->n_rows; i++)
        if (b->rows[i].sc == sc)
            json_array_append_new(jrows, balance_row_json(&b->rows[i]));
    return json_pack("{s:s,s:s,s:o,s:s,s:b,s:I,s:o,s:o}", "name", sc->name, "what", sc->what,
                     "device_list", sc->devices ? json_string(sc->devices) : json_null(), "kernel",
                     kernel, "virtual_clock", !sc->machine, "calls", (json_int_t)n_calls, "devices",
                     jdevs, "rows", jrows);
}

/* --json: the run, every scenario's rows and the targets. Returns 0 or -1. Takes jscen. */
static int write_json(const balance_run *b, json_t *jscen, json_t *targets) {
    const options *o = b->opt;
    json_t *root = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:I,s:f,s:s,s:s,s:o,s:O,s:I,s:b}", "program", PROG, "library_version",
        apo_version(), "host", b->host, "load_average_start", b->load_start, "load_average_end",
        b->load_end, "size", (json_int_t)o->size, "seconds", bench_now() - b->t_start, "kernel",
        o->kernel, "machine_kernel", o->machine_kernel, "scenarios", jscen, "targets", targets,
        "total_wrong", (json_int_t)b->total_wrong, "library_error", b->api_failed);
    int st = root == NULL ||
             json_dump_file(root, o->json, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0;
    if (st)
        fprintf(stderr, PROG ": cannot write %s\n", o->json);
    json_decref(root);
    return st ? -1 : 0;
}

/* The targets, the last lines and the files. Returns the exit status. Takes jscen. */
static int finish(balance_run *b, json_t *jscen) {
    const options *o = b->opt;
    targets tg = {json_array(), 0, 0};
    balance_check_targets(b->rows, b->n_rows, &tg);
    printf("# targets: %d pass, %d fail\n", tg.pass, tg.fail);
    printf("# total #wrong: %ld%s\n", b->total_wrong,
           b->api_failed ? "; a library call FAILED" : "");
    bench_load_average(b->load_end, sizeof b->load_end);
    printf("# load average at the end: %s; bench took %.1f s\n", b->load_end,
           bench_now() - b->t_start);
    int exit_code = b->total_wrong != 0 || b->api_failed ? 1 : 0;
    if (o->csv != NULL && balance_write_csv(o->csv, b->rows, b->n_rows) != 0) {
        fprintf(stderr, PROG ": cannot write %s\n", o->csv);
        exit_code = 1;
    }
    if (o->timeline != NULL && balance_write_timeline(o->timeline, b->rows, b->n_rows) != 0) {
        fprintf(stderr, PROG ": cannot write the timeline %s\n", o->timeline);
        exit_code = 1;
    }
    if (o->json == NULL)
        json_decref(jscen);
    else if (write_json(b, jscen, tg.list) != 0)
        exit_code = 1;
    json_decref(tg.list);
    return exit_code;
}

int main(int argc, char **argv) {
    options opt = {.size = 4e6,
                   .kernel = "returns_stats",
                   .machine_kernel = "bollinger",
                   .ranks_devices = "cpu:threads=1",
                   .ranks_max = 1e8};
    if (read_options(argc, argv, &opt) != 0)
        return 2;
    if (opt.ranks)
        return bench_ranks(opt.ranks_devices, opt.ranks_max);
    if (opt.rank_series > 0)
        return bench_rank_series(opt.machine_kernel, opt.size, opt.rank_series, opt.weights,
                                 opt.csv);
    if (opt.real_clock)
        return bench_real_clock(opt.machine_kernel, opt.size, opt.scenarios, opt.csv);
    balance_run b = {.opt = &opt, .t_start = bench_now()};
    int exit_code = 1;
    if (alloc_run(&b) == 0) {
        print_header(&b);
        json_t *jscen = json_array();
        for (size_t s = 0; s < N_SCENARIOS; s++) {
            json_t *j = bench_selected(opt.scenarios, scenarios[s].name)
                            ? run_scenario(&b, &scenarios[s])
                            : NULL;
            if (j != NULL)
                json_array_append_new(jscen, j);
        }
        exit_code = finish(&b, jscen);
    }
    for (size_t i = 0; i < b.n_rows; i++)
        free(b.rows[i].calls);
    free(b.rows);
    free(b.input);
    return exit_code;
}

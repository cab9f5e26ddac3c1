/*
 * Kernels a GPU runs as one serial chain per row stay off the GPUs where another device can
 * take them (docs/scheduling.md, "One serial chain per row"): the plan gives the GPU nothing
 * and the report says why, while a tiled kernel on the same devices keeps its GPU share; with
 * GPUs alone (or explicit ratios) the GPU runs the call, under a deadline that grows with the
 * call's length. The GPU is the replayed H100, a `sim` device the planner takes for a GPU.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "reference.h"
#include "replay_fixtures.h"

/* The replayed H100 beside the real cpu device. */
#define GPU_AND_CPU "sim:h100:replay=h100,cpu:threads=2"

#define SERIAL_REASON "one serial chain per row on a GPU"

/* A workload of `kernel` on rows x cols whose every input is the same random walk, with its
 * outputs; what serial_call_free releases. */
typedef struct serial_call {
    apo_workload w;
    double *walk;
    const double *inputs[APO_MAX_IO];
    double *outputs[APO_MAX_IO];
    apo_param params[APO_MAX_PARAMS];
} serial_call;

static void serial_call_init(serial_call *c, apo_runtime *rt, const char *kernel, size_t rows,
                             size_t cols) {
    memset(c, 0, sizeof *c);
    c->w = (apo_workload)APO_WORKLOAD_INIT;
    c->w.kernel = kernel;
    c->w.rows = rows;
    c->w.cols = cols;
    c->w.params = c->params;
    c->walk = malloc(rows * cols * sizeof(double));
    cr_assert_not_null(c->walk);
    for (size_t r = 0; r < rows; r++)
        apo__test_random_walk(7 + r, cols, 100.0, 1.0, c->walk + r * cols);
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    for (size_t i = 0; i < info.n_inputs; i++)
        c->inputs[i] = c->walk;
    c->w.inputs = c->inputs;
    c->w.n_inputs = info.n_inputs;
    c->w.outputs = c->outputs;
    c->w.n_outputs = info.n_outputs;
}

static void serial_call_param(serial_call *c, const char *name, double value) {
    c->params[c->w.n_params++] = (apo_param){name, value};
}

/* Runs the call on rt (its outputs sized for its parameters now); fails the test on error. */
static void serial_call_run(serial_call *c, apo_runtime *rt, apo_report *report) {
    for (size_t i = 0; i < c->w.n_outputs; i++) {
        size_t orows = 0, ocols = 0;
        cr_assert_eq(apo_output_shape(rt, &c->w, i, &orows, &ocols), APO_OK, "%s",
                     apo_last_error());
        free(c->outputs[i]);
        c->outputs[i] = malloc(orows * ocols * sizeof(double));
        cr_assert_not_null(c->outputs[i]);
    }
    *report = (apo_report)APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &c->w, report), APO_OK, "%s: %s", c->w.kernel,
                 apo_last_error());
    test_assert_elements_add_up(report, c->w.kernel);
}

static void serial_call_free(serial_call *c) {
    for (size_t i = 0; i < APO_MAX_IO; i++)
        free(c->outputs[i]);
    free(c->walk);
}

/* The GPU's (device 0's) planned share of the call. */
static double gpu_share(apo_runtime *rt, const serial_call *c) {
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(rt, &c->w, &plan), APO_OK, "%s", apo_last_error());
    return plan.shares[0];
}

/* The plan and the run give the GPU (device 0) nothing, and the report says why. */
static void assert_gpu_left_out(apo_runtime *rt, serial_call *c) {
    cr_assert_eq(gpu_share(rt, c), 0.0, "%s: planned GPU share %g", c->w.kernel, gpu_share(rt, c));
    apo_report report;
    serial_call_run(c, rt, &report);
    cr_assert_eq(report.devices[0].elements, 0, "%s: the GPU computed %llu elements", c->w.kernel,
                 (unsigned long long)report.devices[0].elements);
    cr_assert(strstr(report.devices[0].no_share_reason, SERIAL_REASON) != NULL,
              "%s: no_share_reason \"%s\"", c->w.kernel, report.devices[0].no_share_reason);
    cr_assert(strstr(report.devices[0].no_share_reason, report.devices[1].id) != NULL,
              "%s: the reason names the device that runs it: \"%s\"", c->w.kernel,
              report.devices[0].no_share_reason);
    cr_assert_eq(report.devices[1].no_share_reason[0], '\0');
}

/* A call of `kernel` on rows x cols (serial_call_init) on a fresh runtime of `devices`, given
 * to check(), then both freed: the cases of one call on one device set share it. */
static void on_devices(const char *devices, const char *kernel, size_t rows, size_t cols,
                       void (*check)(apo_runtime *rt, serial_call *c)) {
    apo_runtime *rt = test_runtime(devices);
    serial_call c;
    serial_call_init(&c, rt, kernel, rows, cols);
    check(rt, &c);
    serial_call_free(&c);
    apo_runtime_destroy(rt);
}

Test(serial_rows, running_sums_and_hilbert_recurrences_stay_off_the_gpu_beside_a_cpu) {
    const char *sets[] = {REPLAYED_PAIR, GPU_AND_CPU};
    const char *kernels[] = {"obv", "ht_sine", "sar", "maxindex"};
    for (size_t s = 0; s < 2; s++)
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
            on_devices(sets[s], kernels[k], 3, 20000, assert_gpu_left_out);
}

/* Without a model the devices share equally: the GPU (device 0) keeps its half, and the
 * report gives no reason for a share it has. */
static void assert_gpu_keeps_its_half(apo_runtime *rt, serial_call *c) {
    cr_assert_eq(gpu_share(rt, c), 0.5, "%s: planned GPU share %g", c->w.kernel, gpu_share(rt, c));
    apo_report report;
    serial_call_run(c, rt, &report);
    cr_assert_gt(report.devices[0].elements, 0);
    cr_assert_eq(report.devices[0].no_share_reason[0], '\0', "%s",
                 report.devices[0].no_share_reason);
}

/* The tiled kernels keep the GPU: without a model the devices share equally, as before. */
Test(serial_rows, a_tiled_kernel_on_the_same_devices_keeps_its_gpu_share) {
    on_devices(REPLAYED_PAIR, "sma", 3, 20000, assert_gpu_keeps_its_half);
}

/* Calls of one row at four lengths (the walk's prefixes) teach the models the kernel; then
 * the models plan it and still give the GPU nothing, for the serial chain. */
static void assert_learnt_models_leave_the_gpu_out(apo_runtime *rt, serial_call *c) {
    c->w.learn = APO_SWITCH_ON;
    apo_report report;
    for (size_t cols = 5000; cols <= 40000; cols *= 2) {
        c->w.cols = cols;
        serial_call_run(c, rt, &report);
    }
    cr_assert_neq(report.ratio_source, APO_RATIOS_EQUAL, "the models plan it");
    cr_assert_eq(report.devices[0].elements, 0);
    cr_assert(strstr(report.devices[0].no_share_reason, SERIAL_REASON) != NULL,
              "no_share_reason \"%s\"", report.devices[0].no_share_reason);
}

/* The models' branch too: once calls have taught the models ht_sine (the cpu's, since the
 * GPU gets none of it), the solver is given it without the GPU, and the report gives the
 * serial chain as the reason rather than the models' choice. */
Test(serial_rows, learnt_models_still_give_the_gpu_nothing_of_a_serial_kernel) {
    on_devices(GPU_AND_CPU, "ht_sine", 1, 40000, assert_learnt_models_leave_the_gpu_out);
}

/* A sweep is planned as one call: a serial kernel's sets stay off the GPU; so does ma at
 * matype 7 (MAMA, whole rows), while ma at matype 0 (sma) keeps its share. */
Test(serial_rows, sweeps_and_the_mama_matype_stay_off_the_gpu_too) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    static const double accelerations[] = {0.01, 0.02, 0.03};
    apo_sweep_param grid = {"acceleration", accelerations, 3};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = &grid;
    sweep.n_grid = 1;
    serial_call c;
    serial_call_init(&c, rt, "sar", 2, 5000);
    c.w.sweep = &sweep;
    cr_assert_eq(gpu_share(rt, &c), 0.0, "a sweep of sar");
    serial_call_free(&c);

    serial_call_init(&c, rt, "ma", 2, 5000);
    serial_call_param(&c, "matype", 7);
    assert_gpu_left_out(rt, &c);
    c.params[0].value = 0;
    cr_assert_eq(gpu_share(rt, &c), 0.5, "ma at matype 0");
    static const double matypes[] = {0, 7};
    apo_sweep_param by_matype = {"matype", matypes, 2};
    sweep.grid = &by_matype;
    c.w.n_params = 0;
    c.w.sweep = &sweep;
    cr_assert_eq(gpu_share(rt, &c), 0.0, "a sweep with a MAMA set");
    serial_call_free(&c);
    apo_runtime_destroy(rt);
}

/* Explicit equal ratios give the GPU (device 0) its part. */
static void assert_ratios_give_the_gpu_work(apo_runtime *rt, serial_call *c) {
    const double halves[2] = {1, 1};
    c->w.ratios = halves;
    c->w.n_ratios = 2;
    apo_report report;
    serial_call_run(c, rt, &report);
    cr_assert_gt(report.devices[0].elements, 0, "explicit ratios");
}

/* The GPU, alone, runs the whole call. */
static void assert_the_gpu_alone_runs_it(apo_runtime *rt, serial_call *c) {
    apo_report report;
    serial_call_run(c, rt, &report);
    cr_assert_eq(report.devices[0].elements, report.elements, "the GPU alone");
}

/* The user's choice stands: explicit ratios give the GPU its part, and GPUs alone run it. */
Test(serial_rows, explicit_ratios_and_gpus_alone_still_run_it_on_the_gpu) {
    on_devices(REPLAYED_PAIR, "obv", 4, 5000, assert_ratios_give_the_gpu_work);
    on_devices("sim:h100:replay=h100", "ht_sine", 1, 5000, assert_the_gpu_alone_runs_it);
}

/* A GPU alone on a serial kernel is given APO_GPU_SERIAL_SAMPLE_S (10 us) a sample, times the
 * deadline factor, rather than the floor: with a floor of 1 ms it once missed its deadline and
 * the call failed with "every device failed". The replayed GPU waits out its modelled time
 * here (the wall clock), some milliseconds. */
Test(serial_rows, a_gpu_alone_gets_a_deadline_that_grows_with_the_call, .timeout = 60) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = "sim:h100:replay=h100";
    config.sim_clock = APO_SIM_CLOCK_WALL;
    config.profiles = APO_SWITCH_OFF;
    config.deadline_floor_s = 0.001;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    serial_call c;
    serial_call_init(&c, rt, "obv", 1, 20000);
    apo_report report;
    serial_call_run(&c, rt, &report);
    const double want_ms = 10.0 * 1e-5 * (double)report.elements * 1e3;
    cr_assert(report.devices[0].deadline_ms >= 0.999 * want_ms, "deadline %.3f ms, want %.3f ms",
              report.devices[0].deadline_ms, want_ms);
    cr_assert_eq(report.failovers, 0);
    serial_call_free(&c);
    apo_runtime_destroy(rt);
}

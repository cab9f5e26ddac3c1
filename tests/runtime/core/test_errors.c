/*
 * Bad input gets a specific status and a message that says what was wrong, and never
 * touches the outputs beyond what validation allows (validation runs before any tile).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define ASSERT_FAILS(expr, status, text)                                                           \
    do {                                                                                           \
        apo_status st_ = (expr);                                                                   \
        cr_assert_eq(st_, status, "%s returned %s, expected %s (%s)", #expr, apo_status_name(st_), \
                     apo_status_name(status), apo_last_error());                                   \
        cr_assert(strstr(apo_last_error(), text) != NULL, "message \"%s\" lacks \"%s\"",           \
                  apo_last_error(), text);                                                         \
    } while (0)

static apo_runtime *rt;
static test_job job;

static void setup(void) {
    rt = test_runtime("cpu");
    test_job_init(&job, rt, "bollinger", 1, 1000, 1);
}

static void teardown(void) { test_job_close(&job, rt); }

TestSuite(errors, .init = setup, .fini = teardown, .timeout = 60);

Test(errors, null_arguments) {
    ASSERT_FAILS(apo_distribute_workload(NULL, &job.w, NULL), APO_ERR_NULL, "rt");
    ASSERT_FAILS(apo_distribute_workload(rt, NULL, NULL), APO_ERR_NULL, "w");
    ASSERT_FAILS(apo_runtime_create(NULL, NULL), APO_ERR_NULL, "out");
    job.w.kernel = NULL;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_NULL, "kernel");
}

Test(errors, null_buffers) {
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    job.inputs[0] = NULL;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_NULL, "input 0");
    job.inputs[0] = job.input;
    double *saved = job.outputs[1];
    job.outputs[1] = NULL;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_NULL, "middle");
    job.outputs[1] = saved;
    job.w.outputs = NULL;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_NULL, "outputs");
}

Test(errors, zero_sizes) {
    job.w.rows = 0;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT, "rows (0)");
    job.w.rows = 1;
    job.w.cols = 0;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT, "cols (0)");
}

Test(errors, sizes_that_overflow) {
    job.w.rows = SIZE_MAX / 4;
    job.w.cols = 3;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_OVERFLOW, "overflows");
    job.w.rows = (SIZE_MAX >> 3) / 1000 + 1;
    job.w.cols = 1000;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_OVERFLOW, "overflows");
    size_t r, c;
    ASSERT_FAILS(apo_output_shape(rt, &job.w, 0, &r, &c), APO_ERR_OVERFLOW, "overflows");
}

/* A value of one of the job's parameters, and a fragment of the refusal it gets. */
typedef struct bad_value {
    double value;
    const char *fragment;
} bad_value;

/* Sets the job's parameter `index` to each value in turn; each call is refused with
 * APO_ERR_BAD_PARAM, its message holding the value's fragment (the failure says which). */
static void assert_values_refused(size_t index, const bad_value *bad, size_t n) {
    for (size_t i = 0; i < n; i++) {
        job.params[index].value = bad[i].value;
        apo_status st = apo_distribute_workload(rt, &job.w, NULL);
        cr_assert_eq(st, APO_ERR_BAD_PARAM, "%s = %.17g returned %s (%s)", job.params[index].name,
                     bad[i].value, apo_status_name(st), apo_last_error());
        cr_assert(strstr(apo_last_error(), bad[i].fragment) != NULL,
                  "%s = %.17g: message \"%s\" lacks \"%s\"", job.params[index].name, bad[i].value,
                  apo_last_error(), bad[i].fragment);
    }
}

Test(errors, period_out_of_range) {
    test_job_param(&job, "period", 1);
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_BAD_PARAM, "period must be from 2");
    static const bad_value periods[] = {
        {1001, "longer than the series"},
        {20.5, "bollinger: parameter period must be an integer, got 20.5"},
        {100001, "bollinger: parameter period must be from 2 to 100000, got 100001"},
    };
    assert_values_refused(0, periods, sizeof periods / sizeof periods[0]);
    job.params[0].value = 1000; /* period == cols is valid */
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    /* Bounds and values print in the fewest digits that read back: 1e+300, not
     * 1.0000000000000001e+300; 0.1 as 0.1, and a value that needs 17 digits gets them. */
    test_job_param(&job, "nbdev_up", 1e301);
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_BAD_PARAM,
                 "bollinger: parameter nbdev_up must be from -1e+300 to 1e+300, got 1e+301");
    job.params[1].value = 2;
    static const bad_value digits[] = {
        {0.1, "must be an integer, got 0.1"},
        {20.000000000000004, "must be an integer, got 20.000000000000004"},
    };
    assert_values_refused(0, digits, sizeof digits / sizeof digits[0]);
}

Test(errors, unknown_and_repeated_params) {
    test_job_param(&job, "periodd", 5);
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_BAD_PARAM, "no parameter \"periodd\"");
    job.params[0].name = "period";
    test_job_param(&job, "period", 5);
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_BAD_PARAM, "twice");
    job.w.n_params = 1;
    job.params[0].value = 0.0 / 0.0;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_BAD_PARAM, "finite");
}

Test(errors, unknown_kernel) {
    job.w.kernel = "bolinger";
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_UNKNOWN_KERNEL,
                 "no kernel named \"bolinger\"");
}

Test(errors, wrong_buffer_counts_and_struct_sizes) {
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    job.w.n_outputs = 2;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT,
                 "3 output(s)");
    job.w.n_outputs = 3;
    job.w.size = 8;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT,
                 "APO_WORKLOAD_INIT");
    job.w.size = sizeof(apo_workload);
    apo_report bad_report = APO_REPORT_INIT;
    bad_report.size = 1;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, &bad_report), APO_ERR_INVALID_ARGUMENT,
                 "APO_REPORT_INIT");
    job.w.split = (apo_split)7;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT, "split");
}

Test(errors, bad_ratios) {
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    double two[2] = {0.5, 0.5};
    job.w.ratios = two;
    job.w.n_ratios = 2;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT,
                 "2 ratios given for 1 devices");
    double zero[1] = {0};
    job.w.ratios = zero;
    job.w.n_ratios = 1;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT, "sum to 0");
    double negative[1] = {-1};
    job.w.ratios = negative;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT, ">= 0");
    double nan[1] = {0.0 / 0.0};
    job.w.ratios = nan;
    ASSERT_FAILS(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_INVALID_ARGUMENT, "finite");
    job.w.ratios = NULL;
    job.w.n_ratios = 0;

    /* Two finite ratios whose sum overflows: said so, not "at least one must be positive". */
    apo_runtime *two_devices = test_runtime("cpu,sim:a");
    double huge[2] = {1e308, 1e308};
    job.w.ratios = huge;
    job.w.n_ratios = 2;
    ASSERT_FAILS(apo_distribute_workload(two_devices, &job.w, NULL), APO_ERR_INVALID_ARGUMENT,
                 "the ratios sum to inf (beyond the largest double): scale them down");
    const char *ids[] = {"cpu", "sim:a"};
    ASSERT_FAILS(apo_set_ratios(two_devices, "bollinger", ids, huge, 2), APO_ERR_INVALID_ARGUMENT,
                 "apo_set_ratios: the ratios sum to inf (beyond the largest double); scale them "
                 "down");
    apo_runtime_destroy(two_devices);
    job.w.ratios = NULL;
    job.w.n_ratios = 0;
}

/* An input passed as an output gave wrong values with APO_OK (99,950 of 100,000 differed):
 * any output that shares a byte with an input or another output is refused, before any
 * tile runs; arrays that only touch are fine. */
Test(errors, overlapping_inputs_and_outputs_are_refused) {
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    double *const upper = job.outputs[0], *const middle = job.outputs[1],
                  *const lower = job.outputs[2];
    job.outputs[1] = job.input;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT,
                 "output 1 (middle) shares memory with input 0");
    double *block = malloc(2000 * sizeof *block);
    cr_assert_not_null(block);
    memcpy(block, job.input, 1000 * sizeof *block);
    /* The last sample of the input is the first of the output. */
    job.inputs[0] = block;
    job.outputs[1] = block + 999;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT, "shares memory");
    /* The input starts inside the output. */
    job.inputs[0] = block + 999;
    job.outputs[1] = block;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT, "shares memory");
    job.inputs[0] = job.input;
    job.outputs[1] = middle;
    job.outputs[2] = upper + 500;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT,
                 "outputs 0 (upper) and 2 (lower) share memory");
    job.outputs[2] = lower;

    /* Input and outputs side by side in one block: arrays that only touch share no byte, so
     * the call runs and gives the bits of separate arrays. */
    double *packed = malloc(4 * 1000 * sizeof *packed);
    cr_assert_not_null(packed);
    memcpy(packed, job.input, 1000 * sizeof *packed);
    const double *in[] = {packed};
    double *out[] = {packed + 1000, packed + 2000, packed + 3000};
    job.w.inputs = in;
    job.w.outputs = out;
    cr_assert_eq(apo_distribute_workload(rt, &job.w, NULL), APO_OK, "%s", apo_last_error());
    for (size_t o = 0; o < 3; o++)
        cr_assert(memcmp(out[o], job.outputs[o], 1000 * sizeof(double)) == 0, "output %zu", o);
    job.w.inputs = job.inputs;
    job.w.outputs = job.outputs;
    free(packed);
    free(block);
}

/* A tag is stored in multigpu.json and printed by tools: a control character in it reached
 * every terminal that showed the profile. Every entry point that takes a tag refuses one. */
Test(errors, control_characters_in_tags_are_refused) {
    const char *evil = "evil\033[2J\nfake line";
    const char *ids[] = {"cpu"};
    const double one[] = {1.0};
    ASSERT_FAILS(apo_set_ratios(rt, evil, ids, one, 1), APO_ERR_INVALID_ARGUMENT,
                 "apo_set_ratios: the tag holds the control character 0x1b at byte 4");
    ASSERT_FAILS(apo_set_ratios(rt, "tab\there", NULL, NULL, 0), APO_ERR_INVALID_ARGUMENT,
                 "control character 0x09 at byte 3");
    ASSERT_FAILS(apo_set_ratios(rt, "del\177", ids, one, 1), APO_ERR_INVALID_ARGUMENT,
                 "control character 0x7f at byte 3");
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = evil;
    opt.kernel = "bollinger";
    ASSERT_FAILS(apo_profile_auto_balance(rt, &opt, NULL), APO_ERR_INVALID_ARGUMENT,
                 "apo_profile_auto_balance: the tag holds the control character 0x1b");
    /* A call's tag, with the runtime's shares or with explicit ratios (it learns under it). */
    job.w.tag = evil;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT,
                 "apo_workload.tag: the tag holds the control character 0x1b at byte 4");
    job.w.ratios = one;
    job.w.n_ratios = 1;
    ASSERT_FAILS(test_job_run(&job, rt, NULL), APO_ERR_INVALID_ARGUMENT, "control character");
    /* Printable tags, UTF-8 included, are fine. */
    job.w.tag = "nightly \xc3\xa9t\xc3\xa9";
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_set_ratios(rt, "nightly \xc3\xa9t\xc3\xa9", ids, one, 1), APO_OK, "%s",
                 apo_last_error());
}

Test(errors, bootstrap_needs_two_samples) {
    test_job b;
    test_job_init(&b, rt, "bootstrap", 1, 1, 1);
    ASSERT_FAILS(test_job_run(&b, rt, NULL), APO_ERR_BAD_PARAM, "at least 2 samples");
    test_job_free(&b);
}

Test(errors, strerror_table_is_complete) {
    for (int s = 0; s <= APO_ERR_INTERNAL; s++) {
        cr_assert(strcmp(apo_strerror((apo_status)s), "unknown status") != 0, "status %d", s);
        cr_assert(strncmp(apo_status_name((apo_status)s), "APO_", 4) == 0);
        if (s != APO_OK)
            cr_assert(strstr(apo_strerror((apo_status)s), "apo_last_error()") != NULL);
    }
    cr_assert_str_eq(apo_strerror((apo_status)999), "unknown status");
    cr_assert_str_eq(apo_status_name((apo_status)-1), "APO_UNKNOWN");
    cr_assert_str_eq(apo_status_name(APO_ERR_OVERFLOW), "APO_ERR_OVERFLOW");
}

Test(errors, failed_validation_leaves_outputs_untouched) {
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    for (size_t i = 0; i < 1000; i++)
        job.outputs[0][i] = 7.0;
    test_job_param(&job, "period", 5000);
    cr_assert_eq(apo_distribute_workload(rt, &job.w, NULL), APO_ERR_BAD_PARAM);
    for (size_t i = 0; i < 1000; i++)
        cr_assert_eq(job.outputs[0][i], 7.0);
}

/*
 * Kernel names in any case (docs/api.md, "Kernel names"): every kernel the runtime lists is
 * found under its name in upper case and in mixed case, a call, a stream and a score under
 * such a name give the bits of the kernel's own name, and a user kernel cannot take a name
 * that differs from another's in case alone.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "test_user_kernel.h"

/* `name` in upper case, or with its first letter alone in upper case. */
static void recase(const char *name, int all, char *out, size_t size) {
    size_t i = 0;
    for (; name[i] != '\0' && i + 1 < size; i++) {
        char c = name[i];
        out[i] = (all || i == 0) && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    out[i] = '\0';
}

Test(kernel_names, every_listed_kernel_is_found_in_any_case) {
    apo_runtime *rt = test_runtime("cpu");
    size_t n = 0;
    cr_assert_eq(apo_kernel_count(rt, &n), APO_OK);
    cr_assert_geq(n, 39);
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        cr_assert_eq(apo_kernel_name(rt, i, &name), APO_OK);
        apo_kernel_info own = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, name, &own), APO_OK, "%s", name);
        for (int all = 0; all <= 1; all++) {
            char other[APO_NAME_MAX];
            recase(name, all, other, sizeof other);
            apo_kernel_info info = APO_KERNEL_INFO_INIT;
            cr_assert_eq(apo_kernel_get(rt, other, &info), APO_OK, "%s", other);
            /* The kernel's own spelling comes back, whatever case asked for it. */
            cr_assert_str_eq(info.name, name);
            cr_assert_eq(info.n_params, own.n_params, "%s", other);
        }
    }
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "RSIX", &info), APO_ERR_UNKNOWN_KERNEL);
    cr_assert_eq(apo_kernel_get(rt, "rs", &info), APO_ERR_UNKNOWN_KERNEL);
    apo_runtime_destroy(rt);
}

Test(kernel_names, a_call_under_another_case_gives_the_same_bits) {
    apo_runtime *rt = test_runtime("cpu,sim:a");
    test_job lower, upper;
    test_job_init(&lower, rt, "rsi", 2, 3000, 5);
    test_job_init(&upper, rt, "RSI", 2, 3000, 5);
    test_job_param(&lower, "timeperiod", 9);
    test_job_param(&upper, "TimePeriod", 9); /* a parameter's name keeps its own case */
    cr_assert_eq(test_job_run(&lower, rt, NULL), APO_OK, "%s", apo_last_error());
    test_assert_refused(test_job_run(&upper, rt, NULL), APO_ERR_BAD_PARAM, "TimePeriod");
    upper.params[0].name = "timeperiod";
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&upper, rt, &report), APO_OK, "%s", apo_last_error());
    cr_assert_eq(test_bitwise_diff(&lower, &upper, 0), 0);
    cr_assert_str_eq(report.kernel, "rsi", "the report names the kernel as it is listed");
    test_job_free(&lower);
    test_job_free(&upper);
    apo_runtime_destroy(rt);
}

Test(kernel_names, a_stream_and_a_score_under_another_case) {
    apo_runtime *rt = test_runtime("cpu");
    enum { N = 400 };
    double close[N], out_a[N], out_b[N];
    for (size_t t = 0; t < N; t++)
        close[t] = 100 + 10 * sin(0.05 * (double)t) + 0.01 * (double)(t % 7);
    double *outs[2] = {out_a, out_b};
    const char *names[2] = {"Ema", "ema"};
    for (int k = 0; k < 2; k++) {
        apo_stream_desc d = APO_STREAM_DESC_INIT;
        d.kernel = names[k];
        d.n_series = 1;
        apo_stream *s = NULL;
        cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
        const size_t n_new = N;
        const double *in[1] = {close};
        double *o[1] = {outs[k]};
        cr_assert_eq(apo_stream_update(s, &n_new, in, o), APO_OK, "%s", apo_last_error());
        apo_stream_destroy(s);
    }
    cr_assert_eq(memcmp(out_a, out_b, sizeof out_a), 0);
    /* A scored kernel's name folds too, the rule's part included. */
    double rsi[N], scores_a[APO_N_SCORES], scores_b[APO_N_SCORES];
    for (size_t t = 0; t < N; t++)
        rsi[t] = t < 14 ? NAN : 50 + 40 * sin(0.1 * (double)t);
    const double *ind[1] = {rsi};
    cr_assert_eq(apo_score_outputs("rsi", "rsi_zone", close, ind, 1, N, 0, 252, scores_a), APO_OK,
                 "%s", apo_last_error());
    cr_assert_eq(apo_score_outputs("RSI", "RSI_Zone", close, ind, 1, N, 0, 252, scores_b), APO_OK,
                 "%s", apo_last_error());
    cr_assert_eq(memcmp(scores_a, scores_b, sizeof scores_a), 0);
    apo_runtime_destroy(rt);
}

static apo_status copy_kernel(const apo_kernel_call *call, void *user) {
    (void)user;
    for (size_t t = call->begin; t < call->end; t++)
        call->outputs[0][call->row * call->cols + t] = call->inputs[0][call->row * call->cols + t];
    return APO_OK;
}

Test(kernel_names, user_kernels_fold_case_and_cannot_differ_in_case_alone) {
    apo_runtime *rt = test_runtime("cpu");
    apo_kernel_desc d = test_user_kernel("MyCopy", copy_kernel, NULL, 0);
    test_user_kernel_register(rt, &d);
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "mycopy", &info), APO_OK);
    cr_assert_str_eq(info.name, "MyCopy", "a user kernel keeps the spelling it was given");
    d.name = "MYCOPY";
    test_assert_refused(apo_kernel_register(rt, &d), APO_ERR_ALREADY_EXISTS, "MYCOPY");
    d.name = "Rsi";
    test_assert_refused(apo_kernel_register(rt, &d), APO_ERR_ALREADY_EXISTS, "Rsi");
    size_t n = 0;
    cr_assert_eq(apo_kernel_count(rt, &n), APO_OK);
    const char *last = NULL;
    cr_assert_eq(apo_kernel_name(rt, n - 1, &last), APO_OK);
    cr_assert_str_eq(last, "MyCopy", "the refused names were not added");
    apo_runtime_destroy(rt);
}

Test(kernel_names, a_threshold_recorded_under_another_case_is_the_kernels) {
    apo_runtime *rt = test_runtime("cpu");
    size_t before = 0, after = 0;
    cr_assert_eq(apo_threshold_count(rt, &before), APO_OK);
    cr_assert_eq(apo_threshold_record(rt, "RSI", NULL, 0, 5000, 1.0, 2.0), APO_OK, "%s",
                 apo_last_error());
    cr_assert_eq(apo_threshold_count(rt, &after), APO_OK);
    cr_assert_eq(after, before + 1);
    int found = 0;
    for (size_t i = 0; i < after; i++) {
        apo_threshold_info t = APO_THRESHOLD_INFO_INIT;
        cr_assert_eq(apo_threshold_get(rt, i, &t), APO_OK);
        cr_assert(strncmp(t.key, "RSI", 3) != 0, "key %s", t.key);
        found |= strncmp(t.key, "rsi", 3) == 0;
    }
    cr_assert(found, "apo_should_use_gpu() looks the key up under the kernel's own name");
    apo_runtime_destroy(rt);
}

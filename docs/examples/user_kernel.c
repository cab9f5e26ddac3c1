/*
 * A user kernel registered with apportion: a simple moving average of `period` samples,
 * named my_sma because a user kernel may not take a built-in's name (the catalog has sma).
 * Build: cc user_kernel.c $(pkg-config --cflags --libs apportion)
 *
 * The runtime cuts each series into tiles and calls sma() once per tile, on any device
 * thread, so the function reads only its inputs (from begin - halo on) and writes only its
 * own range. Because each output is computed from the window alone, in a fixed order, the
 * result is the same bits however the work is split.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <apportion.h>

static apo_status sma(const apo_kernel_call *call, void *user) {
    (void)user;
    size_t period = (size_t)call->params[0];
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++) {
        if (t + 1 < period) {
            y[t] = NAN; /* not enough history yet */
            continue;
        }
        double sum = 0;
        for (size_t j = t + 1 - period; j <= t; j++)
            sum += x[j];
        y[t] = sum / (double)period;
    }
    return APO_OK;
}

int main(void) {
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(NULL, &rt);
    if (st != APO_OK) {
        fprintf(stderr, "runtime: %s: %s\n", apo_strerror(st), apo_last_error());
        return 1;
    }

    static const char *const params[] = {"period"};
    static const double defaults[] = {5};
    static const char *const outputs[] = {"sma"};
    apo_kernel_desc desc = APO_KERNEL_DESC_INIT;
    desc.name = "my_sma";
    desc.n_inputs = 1;
    desc.n_outputs = 1;
    desc.output_names = outputs;
    desc.n_params = 1;
    desc.param_names = params;
    desc.param_defaults = defaults;
    desc.halo = 4; /* period - 1 for the default period; a tile reads that far back */
    desc.tile = 1024;
    desc.cpu = sma;
    st = apo_kernel_register(rt, &desc);
    if (st != APO_OK) {
        fprintf(stderr, "register: %s: %s\n", apo_strerror(st), apo_last_error());
        apo_runtime_destroy(rt);
        return 1;
    }

    enum { N = 10000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (x == NULL || y == NULL) {
        free(x), free(y);
        apo_runtime_destroy(rt);
        return 1;
    }
    for (size_t i = 0; i < N; i++)
        x[i] = (double)(i % 100);

    const double *inputs[] = {x};
    double *outs[] = {y};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = "my_sma";
    w.rows = 1;
    w.cols = N;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.outputs = outs;
    w.n_outputs = 1;
    apo_report report = APO_REPORT_INIT;
    st = apo_distribute_workload(rt, &w, &report);
    if (st == APO_OK)
        printf("sma[9] = %g over %zu device(s), makespan %.3f ms\n", y[9], report.n_devices,
               report.makespan_ms);
    else
        fprintf(stderr, "distribute: %s: %s\n", apo_strerror(st), apo_last_error());
    free(x);
    free(y);
    apo_runtime_destroy(rt);
    return st == APO_OK ? 0 : 1;
}

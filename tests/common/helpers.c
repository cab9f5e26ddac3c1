/* Helpers shared by the runtime tests; see helpers.h. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu_isa.h"
#include "helpers.h"
#include "reference.h"

void test_each_host_path(void (*check)(apo_runtime *rt, size_t path, void *arg), void *arg) {
    const char *paths[] = {NULL, "sse2", "avx2", "avx512"};
    const apo__cpu_isa named[] = {APO_CPU_ISA_AUTO, APO_CPU_ISA_SSE2, APO_CPU_ISA_AVX2,
                                  APO_CPU_ISA_AVX512};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (paths[p] != NULL && !apo__cpu_isa_supported(named[p]))
            continue;
        if (paths[p] != NULL)
            cr_assert_eq(setenv("APPORTION_CPU_ISA", paths[p], 1), 0);
        apo_runtime *rt = test_runtime("cpu");
        check(rt, p, arg);
        apo_runtime_destroy(rt);
    }
    cr_assert_eq(unsetenv("APPORTION_CPU_ISA"), 0);
}

apo_config test_config(const char *devices) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    config.sim_clock = APO_SIM_CLOCK_VIRTUAL;
    /* Never the user's profile folder, also when a test binary is run by hand, outside the
     * environment meson gives it (APPORTION_PROFILES=off): its calls learn, and learning
     * writes. Tests of the files make their own runtimes on folders of their own. */
    config.profiles = APO_SWITCH_OFF;
    return config;
}

apo_runtime *test_runtime(const char *devices) {
    apo_config config = test_config(devices);
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(&config, &rt);
    cr_assert_eq(st, APO_OK, "runtime on \"%s\": %s: %s", devices, apo_strerror(st),
                 apo_last_error());
    return rt;
}

apo_config test_profiled_config(const char *devices, const char *multigpu_path,
                                const char *thresholds_path) {
    apo_config config = test_config(devices);
    config.profiles = APO_SWITCH_ON;
    config.multigpu_path = multigpu_path;
    config.thresholds_path = thresholds_path;
    return config;
}

test_profile_paths test_profile_paths_in(const char *dir) {
    test_profile_paths p;
    snprintf(p.multigpu, sizeof p.multigpu, "%s/multigpu.json", dir);
    snprintf(p.thresholds, sizeof p.thresholds, "%s/thresholds.json", dir);
    return p;
}

void test_open_profiles_to_all(const char *multigpu_path, const char *thresholds_path) {
    const char *const paths[2] = {multigpu_path, thresholds_path};
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(chmod(paths[i], 0644), 0, "%s", paths[i]);
    for (size_t i = 0; i < 2; i++) {
        char lock[600];
        snprintf(lock, sizeof lock, "%s.lock", paths[i]);
        cr_assert_eq(chmod(lock, 0666), 0, "%s", lock);
    }
}

void test_assert_params(const apo_kernel_info *info, const char *const *names,
                        const double *defaults, size_t n) {
    cr_assert_geq(info->n_params, n, "%s: %zu parameters", info->name, info->n_params);
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(info->param_names[i], names[i], "%s parameter %zu", info->name, i);
        if (defaults != NULL)
            cr_assert_eq(info->param_defaults[i], defaults[i], "%s: %s defaults to %g, want %g",
                         info->name, names[i], info->param_defaults[i], defaults[i]);
    }
}

void test_assert_outputs(const apo_kernel_info *info, const char *const *names, size_t n) {
    cr_assert_geq(info->n_outputs, n, "%s: %zu outputs", info->name, info->n_outputs);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(info->output_names[i], names[i], "%s output %zu", info->name, i);
}

void test_register_rule(apo_runtime *rt, const char *name, const char *kernel, apo_rule_fn fn,
                        void *user) {
    apo_rule_desc d = APO_RULE_DESC_INIT;
    d.name = name;
    d.kernel = kernel;
    d.fn = fn;
    d.user = user;
    cr_assert_eq(apo_rule_register(rt, &d), APO_OK, "rule %s: %s", name, apo_last_error());
}

void test_job_init(test_job *job, apo_runtime *rt, const char *kernel, size_t rows, size_t cols,
                   uint64_t data_seed) {
    memset(job, 0, sizeof *job);
    job->w = test_workload(kernel, rows, cols, NULL, 0, NULL, 0);
    job->w.params = job->params;
    job->w.seed = 42;
    job->input = malloc(rows * cols * sizeof(double));
    cr_assert_not_null(job->input);
    for (size_t r = 0; r < rows; r++)
        apo__test_random_walk(data_seed + r, cols, 100.0, 1.0, job->input + r * cols);
    job->inputs[0] = job->input;
    job->w.inputs = job->inputs;
    job->w.n_inputs = 1;

    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    job->w.n_outputs = info.n_outputs;
    job->w.outputs = job->outputs;
}

/* Outputs are sized once the parameters are known, so allocate lazily. */
static void ensure_outputs(test_job *job, apo_runtime *rt) {
    for (size_t i = 0; i < job->w.n_outputs; i++) {
        size_t orows, ocols;
        /* A workload that does not validate keeps its outputs: the run will say why. */
        if (apo_output_shape(rt, &job->w, i, &orows, &ocols) != APO_OK)
            return;
        size_t len = orows * ocols;
        if (job->outputs[i] != NULL && job->output_len[i] == len)
            continue;
        free(job->outputs[i]);
        job->outputs[i] = malloc(len * sizeof(double));
        cr_assert_not_null(job->outputs[i]);
        job->output_len[i] = len;
        /* A poison value no kernel produces, so an unwritten element cannot pass. */
        for (size_t j = 0; j < len; j++)
            job->outputs[i][j] = -12345.678;
    }
}

void test_job_param(test_job *job, const char *name, double value) {
    cr_assert_lt(job->w.n_params, (size_t)APO_MAX_PARAMS);
    job->params[job->w.n_params].name = name;
    job->params[job->w.n_params].value = value;
    job->w.n_params++;
}

void test_job_of_case(test_job *job, apo_runtime *rt, const kernel_case *c, uint64_t data_seed) {
    test_job_init(job, rt, c->kernel, c->rows, c->cols, data_seed);
    if (c->param != NULL)
        test_job_param(job, c->param, c->value);
}

apo_status test_job_run(test_job *job, apo_runtime *rt, apo_report *report) {
    ensure_outputs(job, rt);
    return apo_distribute_workload(rt, &job->w, report);
}

void test_job_free(test_job *job) {
    free(job->input);
    for (size_t i = 0; i < APO_MAX_IO; i++)
        free(job->outputs[i]);
    memset(job, 0, sizeof *job);
}

apo_runtime *test_job_on(test_job *job, apo_runtime *rt, const char *kernel, size_t rows,
                         size_t cols, uint64_t data_seed) {
    test_job_init(job, rt, kernel, rows, cols, data_seed);
    return rt;
}

void test_job_close(test_job *job, apo_runtime *rt) {
    test_job_free(job);
    apo_runtime_destroy(rt);
}

size_t test_bitwise_diff(const test_job *a, const test_job *b, size_t i) {
    cr_assert_eq(a->output_len[i], b->output_len[i]);
    size_t diff = 0;
    for (size_t j = 0; j < a->output_len[i]; j++)
        diff += memcmp(&a->outputs[i][j], &b->outputs[i][j], sizeof(double)) != 0;
    return diff;
}

void test_random_ratios(uint64_t seed, size_t n, double *ratios) {
    for (size_t i = 0; i < n; i++)
        ratios[i] = 0.05 + 0.95 * apo__test_uniform(seed, i);
}

void test_each_placement(const char *const *device_sets, size_t n_sets, int trials, uint64_t seed,
                         test_placement_fn place, void *ctx) {
    static const apo_split splits[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};
    for (size_t di = 0; di < n_sets; di++) {
        apo_runtime *rt = test_runtime(device_sets[di]);
        size_t n;
        cr_assert_eq(apo_device_count(rt, &n), APO_OK);
        for (int trial = 0; trial < trials; trial++) {
            double ratios[APO_MAX_DEVICES];
            test_random_ratios(seed + 10 * di + (uint64_t)trial, n, ratios);
            for (size_t si = 0; si < 2; si++) {
                char what[160];
                snprintf(what, sizeof what, "on %s trial %d split %s", device_sets[di], trial,
                         apo_split_name(splits[si]));
                place(rt, trial == 0 ? NULL : ratios, trial == 0 ? 0 : n, splits[si], what, ctx);
            }
        }
        apo_runtime_destroy(rt);
    }
}

/* A user kernel with a parameter: the sum of the last `k` samples (fewer at the start). */
static apo_status moving_sum(const apo_kernel_call *call, void *user) {
    (void)user;
    size_t k = (size_t)call->params[0];
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++) {
        double sum = 0;
        for (size_t i = t + 1 > k ? t + 1 - k : 0; i <= t; i++)
            sum += x[i];
        y[t] = sum;
    }
    return APO_OK;
}

void test_register_moving_sum(apo_runtime *rt) {
    static const char *const outputs[] = {"sum"};
    static const char *const params[] = {"k"};
    static const double defaults[] = {4};
    apo_kernel_desc desc = APO_KERNEL_DESC_INIT;
    desc.name = "msum";
    desc.n_inputs = 1;
    desc.n_outputs = 1;
    desc.output_names = outputs;
    desc.n_params = 1;
    desc.param_names = params;
    desc.param_defaults = defaults;
    desc.halo = 63;
    desc.tile = 1000;
    desc.cpu = moving_sum;
    cr_assert_eq(apo_kernel_register(rt, &desc), APO_OK, "%s", apo_last_error());
}

void test_assert_refused(apo_status got, apo_status want, const char *fragment) {
    cr_assert_eq(got, want, "got %s, wanted %s (%s)", apo_status_name(got), apo_status_name(want),
                 apo_last_error());
    cr_assert(strstr(apo_last_error(), fragment) != NULL, "\"%s\" does not say \"%s\"",
              apo_last_error(), fragment);
}

void test_assert_elements_add_up(const apo_report *report, const char *what) {
    uint64_t sum = 0;
    for (size_t d = 0; d < report->n_devices; d++)
        sum += report->devices[d].elements;
    cr_assert_eq(sum, report->elements, "%s: devices' elements add up", what);
}

/* The plan of a returns_stats workload of one series of n samples under `tag`, without
 * buffers; asserts that the plan places every element. */
apo_plan_info test_plan_returns_stats(apo_runtime *rt, const char *tag, size_t n) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "returns_stats", &info), APO_OK);
    apo_workload w = test_workload("returns_stats", 1, n, NULL, 1, NULL, info.n_outputs);
    w.tag = tag;
    w.split = APO_SPLIT_TIME;
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    apo_status st = apo_plan_workload(rt, &w, &plan);
    cr_assert_eq(st, APO_OK, "plan of %zu: %s: %s", n, apo_status_name(st), apo_last_error());
    uint64_t sum = 0;
    for (size_t i = 0; i < plan.n_devices; i++)
        sum += plan.device_elements[i];
    cr_assert_eq(sum, (uint64_t)n, "the plan places every element");
    cr_assert_eq(plan.elements, (uint64_t)n);
    return plan;
}

static int name_cmp(const void *a, const void *b) { return strcmp(a, b); }

int test_list_dir(const char *dir, char *out, size_t size) {
    char names[16][256];
    size_t n = 0;
    out[0] = '\0';
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], name_cmp);
    for (size_t i = 0; i < n; i++) {
        strncat(out, names[i], size - strlen(out) - 1);
        if (i + 1 < n)
            strncat(out, " ", size - strlen(out) - 1);
    }
    return 1;
}

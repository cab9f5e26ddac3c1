/*
 * The CPU-or-GPU decision through the public API: apo_should_use_gpu() interpolating stored
 * thresholds, apo_threshold_record() merging, storing and deciding, and profiling feeding the
 * decision in memory. test_balance.c has the rest of balancing; balance_fixtures.c the set-up they
 * share.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#include "balance_fixtures.h"

/* ---- apo_should_use_gpu --------------------------------------------------------------- */

static int use_gpu_at(apo_runtime *rt, const apo_param *params, size_t n_params, uint64_t samples) {
    int use = -1;
    apo_status st = apo_should_use_gpu(rt, "bollinger", params, n_params, samples, &use);
    cr_assert_eq(st, APO_OK, "should_use_gpu(%llu): %s: %s", (unsigned long long)samples,
                 apo_status_name(st), apo_last_error());
    cr_assert(use == 0 || use == 1, "use_gpu %d", use);
    return use;
}

Test(balance, should_use_gpu_interpolates_thresholds, .timeout = 60, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    FILE *fp = fopen(thresholds_path, "w");
    cr_assert_not_null(fp);
    /* Sizes with their CPU and GPU milliseconds. */
    static const double rows[3][3] = {{1000, 0.1, 5.0}, {100000, 10, 5.5}, {1000000, 100, 10}};
    fprintf(fp, "{\"format\": \"apportion.thresholds/1\", \"updated_at\": "
                "\"2026-01-01T00:00:00Z\",\n \"entries\": {\n");
    for (int i = 0; i < 3; i++)
        fprintf(fp,
                "  \"bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': %.0f}\": "
                "{\"cpu_ms_avg\": %.17g, \"gpu_ms_avg\": %.17g, \"samples\": 1}%s\n",
                rows[i][0], rows[i][1], rows[i][2], i < 2 ? "," : "");
    fprintf(fp, "}}\n");
    fclose(fp);

    apo_runtime *rt = runtime("cpu", APO_SWITCH_OFF, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.thresholds_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.thresholds_state), f.thresholds_message);

    /* Segment [1e3, 1e5]: CPU line 1e-4 ms per sample through the origin; GPU line slope
     * 0.5 / 99000 ms per sample, latency 5 - 1000 * 0.5 / 99000 = 4.994949... ms. The GPU is
     * used once the CPU takes longer than that: above 49949.49... samples.
     * Segment [1e5, 1e6]: CPU 1e-4 ms per sample, GPU latency 5 ms: GPU from 50000 on,
     * i.e. everywhere in the segment. Beyond the stored sizes, the nearest segment. */
    const uint64_t no[6] = {1, 100, 1000, 10000, 40000, 49949};
    const uint64_t yes[7] = {49950, 60000, 100000, 300000, 1000000, 5000000, 100000000};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(use_gpu_at(rt, NULL, 0, no[i]), 0, "%llu samples: the CPU is faster",
                     (unsigned long long)no[i]);
    for (int i = 0; i < 7; i++)
        cr_assert_eq(use_gpu_at(rt, NULL, 0, yes[i]), 1, "%llu samples: the GPU is worth it",
                     (unsigned long long)yes[i]);

    /* Named parameters equal to the defaults are the same entry. */
    const apo_param same[2] = {{"period", 20}, {"nbdev_up", 2}};
    cr_assert_eq(use_gpu_at(rt, same, 2, 49949), 0);
    cr_assert_eq(use_gpu_at(rt, same, 2, 49950), 1);

    /* Parameters never measured, and a kernel never measured. */
    const apo_param other[1] = {{"period", 30}};
    int use = -1;
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", other, 1, 1000000, &use), APO_ERR_NOT_FOUND);
    cr_assert_eq(use, 0, "not found leaves use_gpu 0");
    use = -1;
    cr_assert_eq(apo_should_use_gpu(rt, "macd", NULL, 0, 1000000, &use), APO_ERR_NOT_FOUND);
    cr_assert_eq(use, 0);
    cr_assert_eq(apo_should_use_gpu(rt, "no_such_kernel", NULL, 0, 1000000, &use),
                 APO_ERR_UNKNOWN_KERNEL);
    const apo_param bad[1] = {{"period", 1}};
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", bad, 1, 1000000, &use), APO_ERR_BAD_PARAM);
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000000, NULL), APO_ERR_NULL);
    apo_runtime_destroy(rt);
}

/* ---- apo_threshold_record ------------------------------------------------------------- */

/* The entry of `key`, found by a fresh runtime reading the file: what another process sees. */
static apo_threshold_info stored_threshold(const char *key) {
    apo_runtime *rt = runtime("cpu", APO_SWITCH_OFF, 1);
    size_t n = 0;
    cr_assert_eq(apo_threshold_count(rt, &n), APO_OK);
    apo_threshold_info info = APO_THRESHOLD_INFO_INIT;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(apo_threshold_get(rt, i, &info), APO_OK);
        if (strcmp(info.key, key) == 0) {
            apo_runtime_destroy(rt);
            return info;
        }
    }
    apo_runtime_destroy(rt);
    cr_assert_fail("no entry \"%s\" among %zu", key, n);
    return info;
}

Test(balance, recorded_thresholds_are_merged_stored_and_decide, .timeout = 60, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    apo_runtime *rt = runtime("cpu", APO_SWITCH_OFF, 1);
    /* The rows of should_use_gpu_interpolates_thresholds, recorded instead of written; the
     * middle one in two measurements whose averages are its times (10 = (8 + 12) / 2). */
    const apo_param period[1] = {{"period", 20}};
    cr_assert_eq(apo_threshold_record(rt, "bollinger", period, 1, 1000, 0.1, 5.0), APO_OK, "%s",
                 apo_last_error());
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 100000, 8, 5.5), APO_OK);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 100000, 12, NAN), APO_OK);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1000000, 100, 10), APO_OK);
    /* Defaults completed, so the decision of the in-memory table is the documented one. */
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49949), 0);
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49950), 1);
    /* A name that is no kernel is stored as given, with its size. */
    const apo_param threadx[1] = {{"period", 20}};
    cr_assert_eq(apo_threshold_record(rt, "bollinger_bands", threadx, 1, 10000, 150, 50), APO_OK);
    apo_runtime_destroy(rt);

    apo_threshold_info mid =
        stored_threshold("bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 100000}");
    cr_assert_eq(mid.cpu_ms_avg, 10.0);
    cr_assert_eq(mid.gpu_ms_avg, 5.5, "one GPU time: its own average");
    cr_assert_eq(mid.samples, 2);
    apo_threshold_info tx = stored_threshold("bollinger_bands:{'period': 20, 'size': 10000}");
    cr_assert_eq(tx.cpu_ms_avg, 150.0);
    cr_assert_eq(tx.gpu_ms_avg, 50.0);

    /* A fresh runtime reads the same decision from the file. */
    rt = runtime("cpu", APO_SWITCH_OFF, 1);
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49949), 0);
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49950), 1);

    /* Refusals. */
    cr_assert_eq(apo_threshold_record(NULL, "bollinger", NULL, 0, 1, 1, 1), APO_ERR_NULL);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 1, 1, 1, 1), APO_ERR_NULL);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1, NAN, NAN),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1, -1, 1),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1, 1, INFINITY),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_threshold_record(rt, "bad name", NULL, 0, 1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    const apo_param bad_period[1] = {{"period", 1}};
    cr_assert_eq(apo_threshold_record(rt, "bollinger", bad_period, 1, 1, 1, 1), APO_ERR_BAD_PARAM);
    const apo_param size[1] = {{"size", 5}};
    cr_assert_eq(apo_threshold_record(rt, "custom", size, 1, 1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    const apo_param twice[2] = {{"a", 1}, {"a", 2}};
    cr_assert_eq(apo_threshold_record(rt, "custom", twice, 2, 1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    const apo_param nan_value[1] = {{"a", NAN}};
    cr_assert_eq(apo_threshold_record(rt, "custom", nan_value, 1, 1, 1, 1),
                 APO_ERR_INVALID_ARGUMENT);
    apo_runtime_destroy(rt);
}

/* Profiling a real cpu beside a stand-in GPU with a large fixed time fills the thresholds
 * in memory (profiles off), and the decision follows: the cpu alone for small series, the
 * stand-in too once the cpu's predicted time passes its 50 ms latency. */
Test(balance, profiling_feeds_the_cpu_or_gpu_decision_in_memory, .timeout = 120) {
    /* The stand-in's time grows by 40 us from the smallest size to the largest: on the wall
     * clock a loaded machine's sleeps wander further than that, and the fit then finds no
     * growth. On the virtual clock (test_config's) its time is exactly its model; the cpu's
     * is measured. */
    apo_config config = test_config("cpu:threads=1,sim:gpu:rate=1e10:latency=50ms");
    config.learn = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    int use = -1;
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000, &use), APO_ERR_NOT_FOUND);
    cr_assert_eq(use, 0);

    /* The decision at 1e9 samples follows the line through the two largest sizes: 20 times
     * apart, the cpu's times (single-threaded, about 3 ns a sample, several times that under
     * the sanitizers) grow by far more than a loaded machine's noise, which at 1e5 and 4e5
     * could order them the wrong way (seen under ASan in CI: the cpu then never lost). */
    static const uint64_t sizes[3] = {20000, 200000, 4000000};
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "bollinger";
    opt.sizes = sizes;
    opt.n_sizes = 3;
    opt.runs = 3;
    apo_profile_result r = APO_PROFILE_RESULT_INIT;
    cr_assert_eq(apo_profile_auto_balance(rt, &opt, &r), APO_OK, "%s", apo_last_error());
    cr_assert_eq(r.written, 0, "profiles are off: nothing is written");
    size_t n = 0;
    cr_assert_eq(apo_threshold_count(rt, &n), APO_OK);
    cr_assert_eq(n, 3, "one threshold entry per size, got %zu", n);
    apo_threshold_info info = APO_THRESHOLD_INFO_INIT;
    cr_assert_eq(apo_threshold_get(rt, 0, &info), APO_OK);
    cr_assert(strstr(info.key, "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': ") ==
                  info.key,
              "%s", info.key);
    cr_assert(info.gpu_ms_avg >= 50.0, "the stand-in's time includes its latency: %g",
              info.gpu_ms_avg);
    cr_assert(isfinite(info.cpu_ms_avg) && info.samples == 1);
    cr_assert_eq(info.simulated, 1, "the GPU side's time came from a sim device");

    /* A single-threaded cpu takes well under 50 ms for 1000 samples and far more for 1e9. */
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000, &use), APO_OK);
    cr_assert_eq(use, 0);
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000000000, &use), APO_OK);
    cr_assert_eq(use, 1);
    /* Other parameters were never measured. */
    apo_param other = {"period", 30};
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", &other, 1, 1000, &use), APO_ERR_NOT_FOUND);
    apo_runtime_destroy(rt);
}

/*
 * Balancing on the replayed H100 (docs/scheduling.md, "A replayed H100"), at sizes the unit
 * suite can afford: the replayed devices' time follows what the H100 machine measured while
 * their results are computed on the host, so the balancer meets the host memory bus and the
 * GPU's waves as it did there. test_replayed_h100_slow.c runs the same cases at the sizes of
 * that machine's failures; replay_fixtures.c holds the cases.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "devices/replay.h"
#include "helpers.h"
#include "replay_fixtures.h"
#include "test_tmpdir.h"

/* ---- the replay itself -------------------------------------------------------------------- */

/* The figures the replay was built from come back out of it
 * (docs/perf-log/2026-11-26-h100-second-run.md): bollinger over 1e7 samples on the 16-core host
 * alone is held by the bus (3.2e8 bytes at 127 GB/s, a hair above its 16 threads' 2.49e8
 * samples a second each), and beside the GPU the host keeps 8 threads. */
Test(replayed_h100, the_host_alone_is_bus_bound_and_keeps_eight_threads_beside_the_gpu) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, 1, &info), APO_OK);
    cr_assert_eq(info.threads, 8, "threads beside the replayed GPU: %d", info.threads);
    test_job job;
    test_job_init(&job, rt, "bollinger", 1, 10000000, 3);
    apo_report report;
    const double alone = replay_call(rt, &job, 1, 0, &report);
    const double bus_ms = 3.2e8 / 127e9 * 1e3;
    cr_assert(fabs(alone - bus_ms) < 0.01 * bus_ms, "cpu alone: %.4f ms", alone);
    test_job_close(&job, rt);
}

/* Pinning sized to the need (devices/staging_policy.h): the first piece of a sweep over 10 MB
 * of series waits for no more than its own staging, where the pipeline once pinned 4 x 128
 * MiB before any task (256 ms at the measured 0.5 ms per MiB); and a large task asks for
 * larger slots, which later calls run on. */
Test(replayed_h100, the_first_piece_of_a_10_MB_sweep_waits_for_its_own_slots_only) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    test_job job;
    replay_scored_job(&job, rt, 500, 2520, 8);
    apo_report report;
    const double first = replay_call(rt, &job, 0, 0, &report);
    const double second = replay_call(rt, &job, 0, 0, &report);
    cr_assert(first <= second + 30, "first %.2f ms, warm %.2f ms", first, second);
    test_job_close(&job, rt);
}

Test(replayed_h100, a_large_host_resident_task_grows_the_slots_for_the_next_ones) {
    test_job job;
    apo_runtime *rt = test_job_on(&job, test_runtime(REPLAYED_PAIR), "bollinger", 1, 10000000, 3);
    apo_report report;
    double first = replay_call(rt, &job, 0, 0, &report), last = first;
    /* The larger set is pinned beside the first while the calls run, then swapped in. */
    for (int i = 0; i < 8; i++)
        last = replay_call(rt, &job, 0, 0, &report);
    cr_assert(last < 0.8 * first, "first %.2f ms, after growing %.2f ms", first, last);
    test_job_close(&job, rt);
}

/* Devices that run together share the bus: the pair at the H100 machine's profile shares
 * (0.42 on the GPU) took 90.6 ms there for 1e8 samples; here, at a tenth, the pair takes
 * longer than either device's own part would alone. */
Test(replayed_h100, devices_that_run_together_share_the_host_bus) {
    const double free_s[] = {0.010, 0.010};
    const double bytes[] = {0.61e9, 0.61e9}; /* each wants the whole bus for 10 ms */
    double finish[2];
    apo__replay_share_bus(61e9, 2, free_s, bytes, finish);
    cr_assert(fabs(finish[0] - 0.020) < 1e-9 && fabs(finish[1] - 0.020) < 1e-9, "%.6f %.6f s",
              finish[0], finish[1]);
    const double light_bytes[] = {0.61e9, 0.061e9}; /* the second wants a tenth */
    apo__replay_share_bus(61e9, 2, free_s, light_bytes, finish);
    cr_assert(fabs(finish[1] - 0.010) < 1e-9, "the light job keeps its pace: %.6f s", finish[1]);
    cr_assert(fabs(finish[0] - 0.011) < 1e-9, "the heavy one gets the rest: %.6f s", finish[0]);
}

/* ---- the balancer on it ------------------------------------------------------------------ */

Test(replayed_h100, a_memory_bound_pageable_call_stays_no_slower_than_the_cpu_alone,
     .timeout = 120) {
    check_memory_bound_call_not_slower_than_cpu(10000000);
}

/* A memory-bound pageable call that the cpu runs alone on its 16 threads is not probed on the
 * GPU: a probe, however small, would leave the cpu the 8 threads the GPU's staging leaves it
 * and make the call about twice as long (on the H200 machine 33 ms to 70), for a device that
 * cannot win (balance_state.h, APO_PROBE_MODEL_SLACK). Twelve learning calls, past the tenth
 * where a probe is due: each gives the GPU nothing and runs as the cpu alone does. */
Test(replayed_h100, a_cpu_alone_on_every_core_is_not_probed_away, .timeout = 120) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "bollinger";
    opt.sample_size = 1000000;
    opt.runs = 3;
    cr_assert_eq(apo_profile_auto_balance(rt, &opt, NULL), APO_OK, "%s", apo_last_error());
    test_job job;
    test_job_init(&job, rt, "bollinger", 1, 10000000, 5);
    apo_report report;
    const double cpu = replay_call(rt, &job, 1, 0, &report);
    for (int call = 1; call <= 12; call++) {
        const double ms = replay_call(rt, &job, -1, 1, &report);
        cr_assert_eq(report.devices[0].elements, 0, "call %d: the GPU was given %llu elements",
                     call, (unsigned long long)report.devices[0].elements);
        cr_assert(ms <= cpu * 1.001, "call %d: %.2f ms against %.2f ms for the cpu alone", call, ms,
                  cpu);
    }
    test_job_close(&job, rt);
}

/* 100 series x 80 sets: 8,000 chains, one wave on the GPU (8.3 ms) against 17 ms on the 16
 * threads of the measured cpu. At 50 x 40 the cpu alone is the faster (4.3 ms) since the second
 * H100 machine measured the cpu at twice the first's rate, and the balancer rightly gives it all.
 */
Test(replayed_h100, a_scored_sweep_learnt_on_one_series_still_goes_to_the_gpu, .timeout = 120) {
    check_scored_sweep_goes_to_gpu(100, 2520, 80);
}

/* A scored launch scores every series its scratch allows at once (docs/cuda.md, "Scored sweeps
 * on a GPU": 26,630 of rsi over 2,520 bars): the GPU's time for half of a piece of 4,000 series
 * is its time for all of it, as on the H200 (docs/perf-log/2026-11-26-h200-second-visit.md),
 * and the first call the balancer learns from leaves the next within 10% of the GPU alone.
 * Before, the replay ran 1,750 series at once, so half the piece cost two thirds of it. */
Test(replayed_h100, a_scored_piece_costs_the_gpu_one_wave_whatever_its_share, .timeout = 120) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    test_job job;
    replay_scored_job(&job, rt, 100, 2520, 40);
    apo_report report;
    replay_call(rt, &job, 0, 0, &report); /* pins the GPU's first slots */
    const double alone = replay_call(rt, &job, 0, 0, &report);
    const double gpu_alone_ms = report.devices[0].wall_ms;
    const double halves[2] = {1.0, 1.0};
    job.w.ratios = halves;
    job.w.n_ratios = 2;
    job.w.learn = APO_SWITCH_OFF;
    report = (apo_report)APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
    job.w.ratios = NULL;
    job.w.n_ratios = 0;
    cr_assert(fabs(report.devices[0].wall_ms - gpu_alone_ms) <= 0.01 * gpu_alone_ms,
              "the GPU took %.3f ms for half the series, %.3f ms for all of them",
              report.devices[0].wall_ms, gpu_alone_ms);
    replay_call(rt, &job, -1, 1, &report); /* equal shares, learnt from */
    const double learnt = replay_call(rt, &job, -1, 1, &report);
    cr_assert(learnt <= 1.10 * alone, "%.2f ms after one call against %.2f for the GPU alone",
              learnt, alone);
    test_job_close(&job, rt);
}

/* Three random shapes; nine more in the slow suite (test_replayed_h100_slow.c): here they
 * took 5 of the unit suite's 171 CPU seconds, its budget 180 (tests/README.md, "The budget").
 * The sanitizer builds run only these three: the threads and the memory a call goes through
 * are the same whatever its shape (40 s of the TSan stage and 76 of the ASan stage for twelve). */
Test(replayed_h100, a_configuration_is_never_much_slower_than_its_best_single_device,
     .timeout = 300) {
    check_random_shapes(0, 3, 2000000, 3);
}

/* ---- what one-call processes keep ------------------------------------------------------- */

/* A runtime on `devices` with its profile files in `dir`. */
static apo_runtime *runtime_with_files(const char *devices, const char *dir) {
    test_profile_paths files = test_profile_paths_in(dir);
    apo_config config = test_profiled_config(devices, files.multigpu, files.thresholds);
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    return rt;
}

/* A new profile folder for one case, in the private TMPDIR. */
static void make_profile_dir(char *dir, size_t size) {
    snprintf(dir, size, "%s/apo-replay-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(dir));
}

/* The multigpu.json a runtime stored in `dir`, into text[size]. */
static void read_multigpu(const char *dir, char *text, size_t size) {
    char path[300];
    snprintf(path, sizeof path, "%s/multigpu.json", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    const size_t len = fread(text, 1, size - 1, f);
    text[len] = '\0';
    fclose(f);
}

/* Removes the profile files, their locks and the folder, which must then be empty. */
static void remove_profile_dir(const char *dir) {
    static const char *const names[] = {"multigpu.json", "multigpu.json.lock", "thresholds.json",
                                        "thresholds.json.lock"};
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    cr_assert_eq(rmdir(dir), 0, "%s is left with files", dir);
}

/* What the configurations measured is stored with the models (docs/profiles.md): after
 * calls that learnt that the cpu alone is the fastest configuration, the file holds the
 * measured makespans of the cpu alone, and the next process runs no slower than it. */
Test(replayed_h100, measured_configurations_outlive_the_runtime) {
    char dir[256];
    make_profile_dir(dir, sizeof dir);
    test_job job;
    apo_runtime *rt =
        test_job_on(&job, runtime_with_files(REPLAYED_PAIR, dir), "bollinger", 1, 4000000, 9);
    apo_report report;
    for (int i = 0; i < 4; i++)
        replay_call(rt, &job, -1, 1, &report);
    const double cpu = replay_call(rt, &job, 1, 0, &report);
    apo_runtime_destroy(rt);

    rt = runtime_with_files(REPLAYED_PAIR, dir);
    const double next = replay_call(rt, &job, -1, 1, &report);
    cr_assert(next <= cpu * 1.001, "the next process took %.3f ms against %.3f for the cpu alone",
              next, cpu);
    char text[65536];
    read_multigpu(dir, text, sizeof text);
    cr_assert(strstr(text, "\"measured_alone\"") != NULL, "%s", text);
    apo_runtime_destroy(rt);
    test_job_free(&job);
    remove_profile_dir(dir);
}

/* `apportion profile` times the configurations end to end after the devices alone
 * (docs/scheduling.md, "Configurations and the guard"): the split the new models give, and
 * each device alone, so that the guard's measurements start with the profile. (Two plain
 * sims: below one wave of its tiles, some 17 million samples of bollinger, the replayed GPU
 * is in no split.) */
Test(replayed_h100, a_profile_times_the_split_and_each_device_alone) {
    char dir[256];
    make_profile_dir(dir, sizeof dir);
    apo_runtime *rt = runtime_with_files("sim:a:rate=1e8,sim:b:rate=3e8", dir);
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "bollinger";
    opt.sample_size = 400000;
    opt.runs = 3;
    cr_assert_eq(apo_profile_auto_balance(rt, &opt, NULL), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    char text[65536];
    read_multigpu(dir, text, sizeof text);
    /* One line for the split, one for each device alone, each of the profile's timed runs. */
    const char *split = strstr(text, "\"measured_split\"");
    cr_assert_not_null(split, "%s", text);
    size_t alone = 0;
    for (const char *p = text; (p = strstr(p, "\"measured_alone\"")) != NULL; p++)
        alone++;
    cr_assert_eq(alone, 2, "%zu devices measured alone: %s", alone, text);
    remove_profile_dir(dir);
}

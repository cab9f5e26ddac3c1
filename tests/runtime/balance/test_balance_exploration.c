/*
 * Balancing through the public API, exploration (docs/scheduling.md): a starved device probed on
 * one learning call in ten, no probe while one tile is over 2 percent of the call, none without
 * learning or against given ratios, a probed device back in use once fast, and exploration adding
 * up over one-call runtimes. test_balance.c has the rest of balancing; balance_fixtures.c the
 * set-up they share.
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

/* ---- exploration (docs/scheduling.md) -------------------------------------------------- */

/* Two sims, the second (slow) left without work by its model: 4e8 against 1e5 elements/s
 * gives it 1/4000 of the call, under one tile of 2e6 samples' 245. */
#define STARVED_PAIR "sim:a:rate=4e8,sim:b:rate=1e5"

/* The configuration key of device `id` of a runtime over `devices`: a stored model counts
 * only for a device of the same key (docs/profiles.md). */
static void config_key(const char *devices, const char *id, char *key, size_t size) {
    apo_runtime *rt = runtime(devices, APO_SWITCH_OFF, 0);
    size_t n = 0;
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    key[0] = '\0';
    for (size_t d = 0; d < n; d++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        cr_assert_eq(apo_device_get(rt, d, &info), APO_OK);
        if (strcmp(info.id, id) == 0)
            snprintf(key, size, "%s", info.config);
    }
    apo_runtime_destroy(rt);
    cr_assert_neq(key[0], '\0', "%s has no device %s", devices, id);
}

/* Writes a profile for returns_stats that says a runs at 2.5 ms per million elements and b
 * at 10 s per million (STARVED_PAIR's devices), keyed for the devices of `devices`: for
 * STARVED_PAIR a true profile, for a faster b a wrong one of the same configuration. */
static void write_starving_profile(const char *devices) {
    char key_a[APO_LABEL_MAX], key_b[APO_LABEL_MAX];
    config_key(devices, "sim:a", key_a, sizeof key_a);
    config_key(devices, "sim:b", key_b, sizeof key_b);
    FILE *fp = fopen(multigpu_path, "w");
    cr_assert_not_null(fp);
    fprintf(fp,
            "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"returns_stats\": {\n"
            " \"source\": \"profile\", \"sample_size\": 2000000, \"runs\": 5, \"devices\": {\n"
            "  \"sim:a\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 2.5, "
            "\"samples\": 15},\n"
            "  \"sim:b\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 10000, "
            "\"samples\": 15}},\n"
            " \"ratios\": {\"sim:a\": 1, \"sim:b\": 0.00025}}}}\n",
            key_a, key_b);
    fclose(fp);
}

/* A runtime on STARVED_PAIR's kind of devices with the profile of write_starving_profile()
 * loaded. */
static apo_runtime *runtime_with_profile(const char *devices, apo_switch learn) {
    apo_runtime *rt = runtime(devices, learn, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.multigpu_state), f.multigpu_message);
    return rt;
}

/* Runs `calls` calls and records whether device 1 (b) had work in each, checking the bound
 * of every probe: at most 2% of the call's elements, b's share the fraction of the tiles
 * it ran. */
static void run_and_record_b(apo_runtime *rt, test_job *job, int calls, int *b_worked) {
    for (int c = 0; c < calls; c++) {
        apo_report r = run(job, rt);
        uint64_t e = r.devices[1].elements;
        b_worked[c] = e > 0;
        if (e > 0) {
            cr_assert_leq((double)e, 0.02 * (double)r.elements,
                          "call %d: b's probe is %llu of %llu elements, over 2%%", c + 1,
                          (unsigned long long)e, (unsigned long long)r.elements);
            cr_assert(fabs(r.devices[1].share - (double)r.devices[1].tiles / (double)r.tiles) <
                          1e-12,
                      "call %d: b's share %.6g for %llu of %llu tiles", c + 1, r.devices[1].share,
                      (unsigned long long)r.devices[1].tiles, (unsigned long long)r.tiles);
        }
    }
}

Test(balance, a_starved_device_is_probed_on_one_learning_call_in_ten, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    write_starving_profile(STARVED_PAIR);
    test_job job;
    apo_runtime *rt = samples_job(&job, runtime_with_profile(STARVED_PAIR, APO_SWITCH_ON));
    enum { CALLS = 35 };
    int worked[CALLS];
    run_and_record_b(rt, &job, 9, worked);
    /* Plans are previews: they neither probe nor count towards the next probe. */
    for (int i = 0; i < 5; i++) {
        apo_plan_info p = test_plan_returns_stats(rt, NULL, SAMPLES);
        cr_assert_eq(p.device_elements[1], 0, "preview %d gives b %llu elements", i + 1,
                     (unsigned long long)p.device_elements[1]);
    }
    run_and_record_b(rt, &job, CALLS - 9, worked + 9);
    /* The tenth, twentieth and thirtieth call of the tag, and no other: the probes find b
     * as slow as its model says, so it stays without work in between. */
    for (int c = 0; c < CALLS; c++)
        cr_expect_eq(worked[c], (c + 1) % 10 == 0, "call %d: b %s", c + 1,
                     worked[c] ? "had work" : "had none");
    /* A probe takes at least a whole tile: it is 4 of the 245 tiles here (the last one
     * partial), so b computes 3 * 8192 + 1152 samples. */
    apo_report r = APO_REPORT_INIT;
    for (int c = CALLS; c < 40; c++)
        r = run(&job, rt);
    cr_assert_eq(r.devices[1].elements, 3 * 8192 + 1152, "the 40th call's probe: %llu",
                 (unsigned long long)r.devices[1].elements);
    samples_job_close(&job, rt);
}

Test(balance, no_probe_while_one_tile_is_over_2_percent_of_the_call, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    write_starving_profile(STARVED_PAIR);
    apo_runtime *rt = runtime_with_profile(STARVED_PAIR, APO_SWITCH_ON);
    /* 2e5 samples are 25 tiles of 8192: one tile is 4% of the call, so no probe... */
    test_job small, large;
    job_init(&small, rt, "returns_stats", 200000);
    job_init(&large, rt, "returns_stats", SAMPLES);
    int worked[15];
    run_and_record_b(rt, &small, 15, worked);
    for (int c = 0; c < 15; c++)
        cr_expect_eq(worked[c], 0, "2e5 samples, call %d: b had work", c + 1);
    /* ...and the probe due since the tenth call comes with the first call that can take it,
     * then not before ten more. */
    run_and_record_b(rt, &large, 12, worked);
    for (int c = 0; c < 12; c++)
        cr_expect_eq(worked[c], c == 0 || c == 10, "2e6 samples, call %d: b %s", c + 1,
                     worked[c] ? "had work" : "had none");
    test_job_free(&small);
    test_job_free(&large);
    apo_runtime_destroy(rt);

    /* 49 whole tiles and one of a single sample: 2% is 8028.18 samples, one unit of the
     * budget, but b, first in device order, would get a whole first tile of 8192. */
    rt = runtime_with_profile("sim:b:rate=1e5,sim:a:rate=4e8", APO_SWITCH_ON);
    job_init(&small, rt, "returns_stats", 49 * 8192 + 1);
    for (int c = 0; c < 12; c++) {
        apo_report r = run(&small, rt);
        cr_expect_eq(r.devices[0].elements, 0, "49 tiles and 1 sample, call %d: b ran %llu", c + 1,
                     (unsigned long long)r.devices[0].elements);
    }
    test_job_free(&small);
    apo_runtime_destroy(rt);
}

Test(balance, no_probe_without_learning_or_against_given_ratios, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    write_starving_profile(STARVED_PAIR);
    /* Learning off: the profile's models stay, and b never gets work. */
    test_job job;
    apo_runtime *rt = samples_job(&job, runtime_with_profile(STARVED_PAIR, APO_SWITCH_OFF));
    int worked[25];
    run_and_record_b(rt, &job, 25, worked);
    for (int c = 0; c < 25; c++)
        cr_expect_eq(worked[c], 0, "learning off, call %d: b had work", c + 1);
    samples_job_close(&job, rt);

    /* Learning on, the same models, and ratios that give b a sliver under one tile: as the
     * workload's ratios, then forced for the tag. Neither is overridden. */
    rt = samples_job(&job, runtime_with_profile(STARVED_PAIR, APO_SWITCH_ON));
    const double ratios[2] = {1.0, 1e-4};
    job.w.ratios = ratios;
    job.w.n_ratios = 2;
    run_and_record_b(rt, &job, 25, worked);
    for (int c = 0; c < 25; c++)
        cr_expect_eq(worked[c], 0, "workload ratios, call %d: b had work", c + 1);
    job.w.ratios = NULL;
    job.w.n_ratios = 0;
    const char *ids[2] = {"sim:a", "sim:b"};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, ratios, 2), APO_OK, "%s",
                 apo_last_error());
    run_and_record_b(rt, &job, 25, worked);
    for (int c = 0; c < 25; c++)
        cr_expect_eq(worked[c], 0, "forced ratios, call %d: b had work", c + 1);
    samples_job_close(&job, rt);
}

/* Calls until b is back: returns the first call (1-based) after the first in which it has
 * at least 40% of the work, and checks that the calls after it stay balanced. */
static int calls_until_back(apo_runtime *rt, test_job *job, int calls) {
    int back = 0;
    for (int c = 0; c < calls; c++) {
        apo_report r = run(job, rt);
        if (back == 0 && c > 0 && r.devices[1].share >= 0.4)
            back = c + 1;
        else if (back > 0)
            cr_assert_geq(r.balance_efficiency, 0.97, "call %d, after b came back at %d: %.4f",
                          c + 1, back, r.balance_efficiency);
    }
    return back;
}

Test(balance, a_starved_device_is_probed_and_back_in_use_once_fast, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    /* Learnt slow: b's first call with work runs at 1e5 elements/s, every later one at 4e8
     * (as fast as a). Its model leaves it without work until a probe sees the change. */
    test_job job;
    apo_runtime *rt =
        samples_job(&job, runtime("sim:a:rate=4e8,sim:b:rate=1e5:slow_after=2:slow_rate=4e8",
                                  APO_SWITCH_ON, 0));
    int back = calls_until_back(rt, &job, 15);
    /* Probed at call 10, in use from call 11. */
    cr_assert_eq(back, 11, "b back at call %d", back);
    samples_job_close(&job, rt);

    /* A wrong profile: it says b is slow, b is as fast as a all along. */
    write_starving_profile("sim:a:rate=4e8,sim:b:rate=4e8");
    rt = samples_job(&job, runtime_with_profile("sim:a:rate=4e8,sim:b:rate=4e8", APO_SWITCH_ON));
    back = calls_until_back(rt, &job, 15);
    cr_assert_eq(back, 11, "b back at call %d", back);
    samples_job_close(&job, rt);
}

Test(balance, exploration_adds_up_over_one_call_runtimes, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    /* As the command line uses the library: one runtime per call, the profile file between
     * them. The counters of exploration are stored with the models, so the tenth process
     * probes the wrongly starved b, and the eleventh, finding its observation after a gap
     * of calls without work, gives it its fair share. */
    const char *devices = "sim:a:rate=4e8,sim:b:rate=4e8";
    write_starving_profile(devices);
    int first_work = 0, back = 0;
    for (int c = 1; c <= 12 && back == 0; c++) {
        test_job job;
        apo_runtime *rt = samples_job(&job, runtime_with_profile(devices, APO_SWITCH_ON));
        apo_report r = run(&job, rt);
        if (first_work == 0 && r.devices[1].elements > 0)
            first_work = c;
        else if (first_work > 0 && r.devices[1].share >= 0.4)
            back = c;
        samples_job_close(&job, rt);
    }
    cr_assert_eq(first_work, 10, "b first had work in process %d", first_work);
    cr_assert_eq(back, 11, "b back in use in process %d", back);
}

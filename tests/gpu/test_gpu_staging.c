/*
 * test_gpu_staging.c: the staging slots sized to the need (docs/cuda.md, "Staging slots sized to
 * the need"), on simulated GPUs, whose runtime can hold pinned allocations back and counts the
 * pinned bytes and the bytes copied from pageable memory (tests/simt/gpus/sim_faults.h). Built only
 * with -Dsimulated_gpus=true: a real GPU cannot stop pinning on cue.
 *
 * What each case shows, without timing anything: a library's runtime pins nothing before its
 * GPU has a task; a small task runs while the slots it does not need are still being pinned
 * (on the first slot, or, with none ready, straight from pageable memory); a large task makes
 * the slots grow, and the tasks after it run on the larger ones; a call the cpu runs alone
 * starts no pin until it ends. Each wants the cpu's bits.
 * Before slots were published one at a time, every task waited for all four slots of 128 MiB,
 * so the cases that hold pinning back waited forever (their timeout fails them).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_fixtures.h"
#include "helpers.h"
#include "sim_faults.h"

/* Case 3: bollinger, one row of 12,411 samples, period 20; about 0.4 MB of staging. */
#define SMALL_CASE 3

/* Runs case `c` on `rt`, all of it on its GPU, against the cpu's bits; returns the report. */
static apo_report run_case(apo_runtime *rt, const gcase *c, uint64_t seed) {
    apo_runtime *cpu = runtime_on("cpu", 0);
    case_jobs cj;
    case_jobs_open(&cj, cpu, c, seed);
    const run_how how = {.split = APO_SPLIT_AUTO, .then = chk_gpu_computed_all};
    apo_report rep;
    assert_run(rt, &cj.ref, &cj.got, &how, &rep, "staging sized to the need");
    case_jobs_close(&cj);
    apo_runtime_destroy(cpu);
    return rep;
}

static uint64_t gpu_chunks(const apo_report *rep) {
    uint64_t chunks = 0;
    for (size_t i = 0; i < rep->n_devices && i < APO_MAX_DEVICES; i++)
        if (rep->devices[i].kind == APO_DEVICE_CUDA)
            chunks += rep->devices[i].chunks;
    return chunks;
}

/* Lets the stager run a little before a count is read again. */
static void pause_a_millisecond(void) {
    const struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
}

/* The first GPU alone: its staging is the only one, so the pinned counts are its own. */
static apo_runtime *one_gpu(void) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    return runtime_on("cuda:0", 0);
}

/* Waits until the pinned allocations number `n` (the test's timeout fails a wait that never
 * ends); returns their bytes. */
static size_t wait_for_pinned_allocations(size_t n) {
    size_t have = 0, bytes = apo_simgpu_pinned_bytes(&have);
    while (have != n) {
        pause_a_millisecond();
        bytes = apo_simgpu_pinned_bytes(&have);
    }
    return bytes;
}

Test(gpu_staging, a_library_runtime_pins_nothing_before_its_gpu_has_a_task, .timeout = 300) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    /* Every pinned allocation would wait: a stager started at creation would never end, and
     * closing the runtime, which waits for it, would not return. */
    apo_simgpu_hold_pinning(0);
    apo_runtime *rt = runtime_on("cuda:0", 0);
    size_t allocations = 0;
    cr_assert_eq(apo_simgpu_pinned_bytes(&allocations), 0);
    cr_assert_eq(allocations, 0);
    cr_assert_eq(apo_simgpu_pinning_waiting(), 0, "nothing asked to pin");
    apo_runtime_destroy(rt);
    apo_simgpu_release_pinning();
}

Test(gpu_staging, a_small_task_with_no_pinned_slot_ready_copies_from_pageable_memory,
     .timeout = 300) {
    apo_runtime *rt = one_gpu();
    /* No slot can be pinned: the task must not wait for one. */
    apo_simgpu_hold_pinning(0);
    const gcase *c = &cases[SMALL_CASE];
    const size_t pageable_before = apo_simgpu_pageable_h2d_bytes();
    run_case(rt, c, 41);
    const size_t pageable = apo_simgpu_pageable_h2d_bytes() - pageable_before;
    cr_assert_geq(pageable, c->rows * c->cols * sizeof(double),
                  "the input went over from pageable memory (%zu bytes)", pageable);
    size_t allocations = 0;
    cr_assert_eq(apo_simgpu_pinned_bytes(&allocations), 0);
    cr_assert_eq(allocations, 0, "nothing was pinned");
    apo_simgpu_release_pinning();
    apo_runtime_destroy(rt);
}

Test(gpu_staging, a_small_task_runs_on_the_first_slot_while_the_others_are_pinned, .timeout = 300) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    /* Staging starts with the runtime here, as in the CLI, and stops after its first slot. */
    setenv("APPORTION_GPU_EARLY_STAGING", "on", 1);
    apo_simgpu_hold_pinning(1);
    apo_runtime *rt = runtime_on("cuda:0", 0);
    /* The second slot's allocation waits: the first is published (slots are published in
     * order, each before the next is pinned). */
    while (apo_simgpu_pinning_waiting() != 1)
        pause_a_millisecond();
    size_t allocations = 0;
    const size_t pinned = apo_simgpu_pinned_bytes(&allocations);
    cr_assert_eq(allocations, 1);
    cr_assert_lt(pinned, (size_t)128 << 20, "the first slot is small (%zu bytes)", pinned);
    const size_t pageable_before = apo_simgpu_pageable_h2d_bytes();
    run_case(rt, &cases[SMALL_CASE], 43);
    cr_assert_eq(apo_simgpu_pageable_h2d_bytes(), pageable_before,
                 "the input went over through the pinned slot");
    cr_assert_eq(apo_simgpu_pinning_waiting(), 1, "the other slots were still held back");
    apo_simgpu_release_pinning();
    apo_runtime_destroy(rt);
}

Test(gpu_staging, a_large_task_grows_the_slots_and_the_next_ones_use_them, .timeout = 900) {
    apo_runtime *rt = one_gpu();
    run_case(rt, &cases[SMALL_CASE], 47);
    /* Four small slots, and no more: a small task asks for nothing larger. */
    const size_t small = wait_for_pinned_allocations(4);
    cr_assert_lt(small, (size_t)4 * (128 << 20), "four small slots (%zu bytes)", small);
    /* About 64 MB of staging (one input, three outputs): more than the four slots hold. */
    const gcase large = {"bollinger", 1, 2000003, NULL, 0};
    const apo_report before = run_case(rt, &large, 53);
    /* The larger set is pinned beside the small one, swapped in, and the small one freed. */
    size_t allocations = 0, grown = apo_simgpu_pinned_bytes(&allocations);
    while (allocations != 4 || grown <= small) {
        pause_a_millisecond();
        grown = apo_simgpu_pinned_bytes(&allocations);
    }
    const apo_report after = run_case(rt, &large, 53);
    cr_assert_lt(gpu_chunks(&after), gpu_chunks(&before),
                 "the grown slots hold larger chunks: %llu chunks after, %llu before",
                 (unsigned long long)gpu_chunks(&after), (unsigned long long)gpu_chunks(&before));
    /* The grown size is kept: a small task does not shrink it. */
    run_case(rt, &cases[SMALL_CASE], 59);
    cr_assert_eq(apo_simgpu_pinned_bytes(&allocations), grown);
    cr_assert_eq(allocations, 4);
    apo_runtime_destroy(rt);
}

/* The most pinned allocations seen while the cpu ran the call below. */
static atomic_size_t allocations_during_call;

/* A copy kernel that, while the call runs, lets the held pin go and watches for the next
 * one for half a second. */
static apo_status watch_pinning(const apo_kernel_call *call, void *user) {
    (void)user;
    const size_t at = call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++)
        call->outputs[0][at + t] = call->inputs[0][at + t];
    apo_simgpu_release_pinning();
    size_t most = 0;
    for (int i = 0; i < 500; i++) {
        size_t allocations = 0;
        apo_simgpu_pinned_bytes(&allocations);
        if (allocations > most)
            most = allocations;
        pause_a_millisecond();
    }
    atomic_store(&allocations_during_call, most);
    return APO_OK;
}

Test(gpu_staging, a_call_the_cpu_runs_alone_holds_the_early_staging_back, .timeout = 300) {
    apo_runtime_destroy(gpu_runtime_or_skip());
    setenv("APPORTION_GPU_EARLY_STAGING", "on", 1);
    apo_simgpu_hold_pinning(1);
    apo_runtime *rt = runtime_on("cuda:0,cpu", 0);
    /* The stager is inside its second slot's pin, held there. */
    while (apo_simgpu_pinning_waiting() != 1)
        pause_a_millisecond();
    apo_kernel_desc desc = APO_KERNEL_DESC_INIT;
    desc.name = "watch_pinning";
    desc.n_inputs = 1;
    desc.n_outputs = 1;
    desc.cpu = watch_pinning;
    cr_assert_eq(apo_kernel_register(rt, &desc), APO_OK, "%s", apo_last_error());
    /* One tile, all of it on the cpu. */
    double ratios[APO_MAX_DEVICES];
    const size_t n = ratios_by_kind(rt, 0.0, 1.0, ratios);
    cr_assert_eq(n, 2);
    double x[64], y[64];
    for (size_t t = 0; t < 64; t++)
        x[t] = (double)t;
    const double *in[] = {x};
    double *const out[] = {y};
    apo_workload w = test_workload("watch_pinning", 1, 64, in, 1, out, 1);
    w.ratios = ratios;
    w.n_ratios = n;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(memcmp(x, y, sizeof x), 0);
    /* The pin under way when the call began finished (2 allocations); no other began. */
    cr_assert_eq(atomic_load(&allocations_during_call), 2,
                 "pinned allocations while the cpu ran the call alone: %zu",
                 atomic_load(&allocations_during_call));
    /* After the call the stager goes on to the last two slots. */
    wait_for_pinned_allocations(4);
    apo_runtime_destroy(rt);
}

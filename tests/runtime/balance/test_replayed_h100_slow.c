/*
 * The replayed-H100 cases at the sizes of the H100 machine's failures
 * (docs/perf-log/2026-11-25-h100-first-run.md, "First run on a GPU"; docs/scheduling.md, "A
 * replayed H100"): bollinger over 1e8 samples in pageable memory, where the pair took 90.6 ms
 * against 52.7 for the cpu alone; a scored rsi sweep of 500 series x 2,520 bars x 199 periods,
 * where the GPU is 12 times the cpu and got 0.40 to 0.50 of the sets; and random shapes up to 1e8
 * samples. The unit suite runs them small (test_replayed_h100.c), and its random shapes up to
 * 2e6 samples continue here.
 */
#include <criterion/criterion.h>

#include "replay_fixtures.h"

Test(replayed_h100_slow, bollinger_1e8_pageable_is_no_slower_than_the_cpu_alone, .timeout = 600) {
    check_memory_bound_call_not_slower_than_cpu(100000000);
}

Test(replayed_h100_slow, the_rsi_sweep_of_500_x_2520_x_199_goes_to_the_gpu, .timeout = 600) {
    check_scored_sweep_goes_to_gpu(500, 2520, 199);
}

Test(replayed_h100_slow, random_shapes_up_to_1e8_samples, .timeout = 900) {
    check_random_shapes(0, 10, 100000000, 3);
}

/* The unit suite's random shapes up to 2e6 samples after its first three (test_replayed_h100.c). */
Test(replayed_h100_slow, random_shapes_up_to_2e6_samples, .timeout = 300) {
    check_random_shapes(3, 9, 2000000, 3);
}

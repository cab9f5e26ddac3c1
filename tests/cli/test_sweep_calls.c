/*
 * The calls a scored sweep of `apportion run` is computed in (cli/sweep_sets.h's
 * cli_score_call_sets; docs/cli/run.md, "Scores"): about 2^26 set-bars a call, in whole blocks
 * of the sets that share a pass (the grid's last parameters, up to 64), at least 16 sets
 * where that is at most 2^30 set-bars, one set a call where a set is larger than a call's
 * worth, never more than the sweep's sets.
 */
#include <criterion/criterion.h>

#include "param_list.h"
#include "sweep_sets.h"

/* A sweep of the given --param texts (cli_param_list_free frees it). */
static cli_param_list sweep_of(const char *a, const char *b) {
    cli_param_list l;
    cli_param_list_init(&l);
    cr_assert_eq(cli_param_list_add(&l, "run", a), 0);
    if (b != NULL)
        cr_assert_eq(cli_param_list_add(&l, "run", b), 0);
    return l;
}

Test(sweep_calls, scored_calls_take_whole_blocks_of_a_pass_and_at_least_sixteen_sets) {
    /* 12 periods x 5 widths: blocks of 5. */
    cli_param_list grid = sweep_of("period=10:65:5", "nbdev_up=1,1.5,2,2.5,3");
    cr_assert_eq(grid.sweep_sets, 60);
    const size_t call = (size_t)1 << 26;
    /* 40 series x 1e5 bars: 16 sets by work, 20 (four periods) by blocks. */
    cr_assert_eq(cli_score_call_sets(&grid, 4000000), 20);
    /* 2^22 bars: 16 by work, 20 by blocks, 1.25 calls' worth. */
    cr_assert_eq(cli_score_call_sets(&grid, (size_t)1 << 22), 20);
    /* 2^21 bars: 32 by work, whole blocks below it. */
    cr_assert_eq(cli_score_call_sets(&grid, (size_t)1 << 21), 30);
    /* Small sets: every set in one call. */
    cr_assert_eq(cli_score_call_sets(&grid, 1000), 60);
    cr_assert_eq(cli_score_call_sets(&grid, 0), 60);
    /* A set of a call's worth: 20 sets would be 20 calls' worth, so by work (one). */
    cr_assert_eq(cli_score_call_sets(&grid, call), 1);
    cr_assert_eq(cli_score_call_sets(&grid, call + 1), 1);
    /* 2^23 bars: 8 by work, 20 by blocks (2.5 calls' worth). */
    cr_assert_eq(cli_score_call_sets(&grid, call / 8), 20);
    cli_param_list_free(&grid);
}

Test(sweep_calls, a_block_past_sixty_four_sets_or_a_single_parameter_counts_sets_alone) {
    /* The last parameter's 70 values are more than a call of the library holds: blocks of 1. */
    cli_param_list wide = sweep_of("period=10:20:5", "nbdev_up=1:7.9:0.1");
    cr_assert_eq(wide.sweep_sets, 3 * 70);
    cr_assert_eq(cli_score_call_sets(&wide, 4000000), 16);
    cr_assert_eq(cli_score_call_sets(&wide, 2000000), 33);
    /* One swept parameter: its sets share no pass, blocks of 1. */
    cli_param_list one = sweep_of("period=2:40:1", NULL);
    cr_assert_eq(one.sweep_sets, 39);
    cr_assert_eq(cli_score_call_sets(&one, 8000000), 16);
    cr_assert_eq(cli_score_call_sets(&one, 100), 39);
    cli_param_list_free(&wide);
    cli_param_list_free(&one);
}

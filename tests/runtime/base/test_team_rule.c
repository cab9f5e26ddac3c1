/*
 * When a host team keeps its helper threads out (runtime/base/team_rule.c), on made-up
 * times, against the rule as docs/scheduling.md states it ("A helper preempted inside a
 * piece"):
 *
 * - a fresh rule offers every run to the helpers;
 * - a run loses when it took more than 1.25 times own_s * pieces / own (the calling thread's
 *   pace): 1.2 times is no loss, 1.3 times is;
 * - a loss keeps the helpers out of the next 4 runs, then the helpers are probed; each
 *   further loss doubles the count, up to 64;
 * - 64 judged runs in a row without a loss put the count back to 4; 63 do not;
 * - a run whose calling thread computed every piece, or none, is neither a loss nor a run
 *   without one;
 * - a rule started on a busy machine keeps the helpers out of its first 4 runs, as after a
 *   loss, then probes them.
 *
 * test_host_team.c shows the same rule on real threads, with a helper held inside a tile.
 */
#include <criterion/criterion.h>

#include "base/team_rule.h"

/* The calling thread computed 10 of 20 pieces in 1 s: alone, about 2 s. */
#define OWN_S 1.0
#define OWN 10
#define PIECES 20

static void clean_run(apo__team_rule *rule) { apo__team_rule_judge(rule, OWN_S, 1.0, OWN, PIECES); }

/* A run of 3 times the calling thread's estimate: a helper held it for a scheduler tick. */
static void losing_run(apo__team_rule *rule) {
    apo__team_rule_judge(rule, OWN_S, 6.0, OWN, PIECES);
}

/* Runs alone until the rule offers one to the helpers (the probe); returns how many. */
static int runs_alone(apo__team_rule *rule) {
    int n = 0;
    while (apo__team_rule_alone(rule)) {
        n++;
        cr_assert_lt(n, 1000, "the helpers never come back");
    }
    return n;
}

Test(team_rule, a_fresh_rule_offers_every_run_to_the_helpers) {
    apo__team_rule rule;
    apo__team_rule_init(&rule);
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(apo__team_rule_alone(&rule), 0, "run %d", i);
        clean_run(&rule);
    }
}

Test(team_rule, a_loss_is_more_than_a_quarter_over_the_one_thread_estimate) {
    apo__team_rule rule;
    apo__team_rule_init(&rule);
    apo__team_rule_judge(&rule, OWN_S, 2.4, OWN, PIECES); /* 1.2 times 2 s */
    cr_assert_eq(runs_alone(&rule), 0, "1.2 times the estimate counted as a loss");
    apo__team_rule_judge(&rule, OWN_S, 2.6, OWN, PIECES); /* 1.3 times 2 s */
    cr_assert_eq(runs_alone(&rule), 4, "1.3 times the estimate was not a loss");
    /* The pace, not the share of pieces: 2 of 20 pieces in 1 s is 10 s alone. */
    apo__team_rule_init(&rule);
    apo__team_rule_judge(&rule, 1.0, 9.0, 2, PIECES);
    cr_assert_eq(runs_alone(&rule), 0, "9 s against 10 s alone counted as a loss");
}

Test(team_rule, each_further_loss_doubles_the_runs_alone_up_to_64) {
    apo__team_rule rule;
    apo__team_rule_init(&rule);
    const int expected[] = {4, 8, 16, 32, 64, 64, 64};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        losing_run(&rule); /* the first run, then each probe */
        cr_assert_eq(runs_alone(&rule), expected[i], "after loss %zu", i + 1);
    }
    /* A loss some runs after a probe that did not lose doubles too. */
    apo__team_rule_init(&rule);
    losing_run(&rule);
    cr_assert_eq(runs_alone(&rule), 4);
    clean_run(&rule); /* the probe */
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(apo__team_rule_alone(&rule), 0);
        clean_run(&rule);
    }
    losing_run(&rule);
    cr_assert_eq(runs_alone(&rule), 8);
}

Test(team_rule, sixty_four_runs_without_a_loss_start_a_new_episode) {
    for (int clean = 63; clean <= 64; clean++) {
        apo__team_rule rule;
        apo__team_rule_init(&rule);
        losing_run(&rule);
        cr_assert_eq(runs_alone(&rule), 4);
        losing_run(&rule);
        cr_assert_eq(runs_alone(&rule), 8);
        for (int i = 0; i < clean; i++)
            clean_run(&rule);
        losing_run(&rule);
        int want = clean == 64 ? 4 : 16, got = runs_alone(&rule);
        cr_assert_eq(got, want, "after %d clean runs: alone %d times, not %d", clean, got, want);
    }
}

Test(team_rule, a_run_without_the_helpers_or_without_the_caller_says_nothing) {
    apo__team_rule rule;
    apo__team_rule_init(&rule);
    /* However long they took, neither is a loss... */
    apo__team_rule_judge(&rule, 0.0, 100.0, 0, PIECES);
    apo__team_rule_judge(&rule, 1.0, 100.0, PIECES, PIECES);
    cr_assert_eq(runs_alone(&rule), 0);
    /* ...nor a run without one: 63 clean runs and 10 of these do not make 64. */
    losing_run(&rule);
    cr_assert_eq(runs_alone(&rule), 4);
    losing_run(&rule);
    cr_assert_eq(runs_alone(&rule), 8);
    for (int i = 0; i < 63; i++)
        clean_run(&rule);
    for (int i = 0; i < 10; i++)
        apo__team_rule_judge(&rule, 1.0, 1.0, PIECES, PIECES);
    losing_run(&rule);
    cr_assert_eq(runs_alone(&rule), 16);
}

Test(team_rule, a_rule_started_busy_keeps_the_helpers_out_of_its_first_runs_then_probes) {
    apo__team_rule rule;
    apo__team_rule_init(&rule);
    apo__team_rule_start_busy(&rule);
    cr_assert_eq(runs_alone(&rule), APO_TEAM_ALONE_FIRST);
    /* The probe that follows is judged as any run: a loss now keeps them out of twice as
     * many, a clean one leaves them in. */
    losing_run(&rule);
    cr_assert_eq(runs_alone(&rule), 2 * APO_TEAM_ALONE_FIRST);
    clean_run(&rule);
    cr_assert_eq(runs_alone(&rule), 0);
}

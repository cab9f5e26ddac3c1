/*
 * When a host team keeps its helper threads out; see team_rule.h.
 *
 * A helper that the operating system preempts inside a piece still holds it, and the
 * calling thread must wait for it: the piece cannot be computed again on the calling
 * thread, since the helper, once it runs again, would read the call after it returned. So
 * the team avoids the wait instead: a shared run that waited more than the helpers saved
 * keeps them out of the next shared runs, which then wake nobody; the first one after them
 * probes the helpers again, and the count doubles with each further loss.
 */
#include "base/team_rule.h"

void apo__team_rule_init(apo__team_rule *rule) {
    *rule = (apo__team_rule){.alone_next = APO_TEAM_ALONE_FIRST};
}

/* Keeps the helpers out of the next alone_next shared runs, and doubles the next count. */
static void keep_helpers_out(apo__team_rule *rule) {
    rule->alone_left = rule->alone_next;
    rule->alone_next =
        2 * rule->alone_next < APO_TEAM_ALONE_MAX ? 2 * rule->alone_next : APO_TEAM_ALONE_MAX;
    rule->clean_runs = 0;
}

void apo__team_rule_start_busy(apo__team_rule *rule) { keep_helpers_out(rule); }

int apo__team_rule_alone(apo__team_rule *rule) {
    if (rule->alone_left == 0)
        return 0;
    rule->alone_left--;
    return 1;
}

/*
 * At the pace it kept, the calling thread alone would have taken own_s * pieces / own. A
 * run that took APO_TEAM_LOSS times that lost more waiting for a helper than the helpers
 * saved, which is what a helper preempted inside a piece does (a scheduler tick of waiting
 * for a piece of microseconds); the margin keeps out the ordinary end of a run, where a
 * helper that woke late finishes its one piece a little after the calling thread. The pace
 * is the one beside the helpers, on cores and memory bandwidth shared with them: it
 * overestimates the one-thread time, so the rule errs towards keeping the helpers (and
 * cannot tell a gain: a slow pace beside the helpers looks like one). A run where the
 * calling thread computed every piece, or none, says nothing of the helpers' cost and
 * changes nothing.
 */
void apo__team_rule_judge(apo__team_rule *rule, double own_s, double wall_s, uint64_t own,
                          uint64_t pieces) {
    if (own == 0 || own >= pieces)
        return;
    double alone_s = own_s * (double)pieces / (double)own;
    if (wall_s > APO_TEAM_LOSS * alone_s) {
        keep_helpers_out(rule);
    } else if (++rule->clean_runs >= APO_TEAM_ALONE_MAX) {
        /* The helpers have long stopped losing: a later loss is a new episode. */
        rule->alone_next = APO_TEAM_ALONE_FIRST;
        rule->clean_runs = 0;
    }
}

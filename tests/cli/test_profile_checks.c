/*
 * The checks `apportion profile` makes of what it measured (cli/profile_checks.h): a load
 * average at or above the number of CPUs, and a host's fixed cost per call that no idle host
 * has. The load is given, never made: the cases are the (36 ms on a cpu with a load
 * above 6) and the edges of each rule.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "profile_checks.h"

Test(profile_checks, a_load_above_the_cpus_is_warned_about_with_what_to_do) {
    char buf[512];
    cr_assert_eq(cli_load_warning(6.25, 2, buf, sizeof buf), 1);
    cr_assert_not_null(strstr(buf, "the load average is 6.25 on 2 CPU(s)"), "%s", buf);
    cr_assert_not_null(strstr(buf, "apportion profile"), "no advice: %s", buf);
    cr_assert_not_null(strstr(buf, "apportion set-ratios"), "no advice: %s", buf);
    /* Exactly saturated counts: every core is taken. */
    cr_assert_eq(cli_load_warning(8.0, 8, buf, sizeof buf), 1);
}

Test(profile_checks, a_quiet_or_unknown_load_says_nothing) {
    char buf[512] = "x";
    cr_assert_eq(cli_load_warning(1.99, 2, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "");
    cr_assert_eq(cli_load_warning(0.0, 1, buf, sizeof buf), 0);
    cr_assert_eq(cli_load_warning(NAN, 2, buf, sizeof buf), 0);
    cr_assert_eq(cli_load_warning(-1.0, 2, buf, sizeof buf), 0);
    cr_assert_eq(cli_load_warning(50.0, 0, buf, sizeof buf), 0); /* CPUs unknown */
}

Test(profile_checks, an_implausible_cpu_latency_is_warned_about) {
    char buf[512];
    cr_assert_eq(cli_latency_warning("cpu", 0, 36.0, buf, sizeof buf), 1);
    cr_assert_not_null(strstr(buf, "cpu was measured with a fixed cost of 36.0 ms"), "%s", buf);
    cr_assert_not_null(strstr(buf, "apportion profile"), "no advice: %s", buf);
    cr_assert_eq(cli_latency_warning("cpu", 0, 5.01, buf, sizeof buf), 1);
}

Test(profile_checks, plausible_or_unjudged_latencies_say_nothing) {
    char buf[512] = "x";
    cr_assert_eq(cli_latency_warning("cpu", 0, 0.05, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "");
    cr_assert_eq(cli_latency_warning("cpu", 0, 5.0, buf, sizeof buf), 0);
    cr_assert_eq(cli_latency_warning("cpu", 0, NAN, buf, sizeof buf), 0);
    /* A simulated device's times are modelled; a GPU's launch costs are its own. */
    cr_assert_eq(cli_latency_warning("sim:a", 1, 36.0, buf, sizeof buf), 0);
    cr_assert_eq(cli_latency_warning("cpu", 1, 36.0, buf, sizeof buf), 0);
    cr_assert_eq(cli_latency_warning("cuda:0", 0, 36.0, buf, sizeof buf), 0);
    cr_assert_eq(cli_latency_warning(NULL, 0, 36.0, buf, sizeof buf), 0);
}

/*
 * The machine's processor pressure as the cpu device reads it (runtime/devices/cpu_pressure.c,
 * docs/scheduling.md, "A machine busy from the start"):
 *
 * - the "some avg10" figure is taken from Linux's format, whatever line order, and only from
 *   the "some" line;
 * - text without it, or with a figure that is not a percentage, gives none (-1), never a guess;
 * - the file named is read (`off`: none is), and a missing or malformed file gives none;
 *   test_host_team.c names one through APPORTION_CPU_PRESSURE_FILE.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "devices/cpu_pressure.h"
#include "test_tmpdir.h"

Test(cpu_pressure, parses_the_some_line_of_linux_format) {
    double v = -7;
    cr_assert_eq(apo__cpu_pressure_parse("some avg10=37.25 avg60=12.00 avg300=3.10 total=123456\n"
                                         "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                                         &v),
                 0);
    cr_assert_float_eq(v, 37.25, 1e-12);
    /* The "full" line first: its figure is not the one. */
    cr_assert_eq(apo__cpu_pressure_parse("full avg10=90.00 avg60=0 avg300=0 total=0\n"
                                         "some avg10=4.50 avg60=0 avg300=0 total=0\n",
                                         &v),
                 0);
    cr_assert_float_eq(v, 4.5, 1e-12);
    cr_assert_eq(apo__cpu_pressure_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=0", &v), 0);
    cr_assert_float_eq(v, 0.0, 0.0);
}

Test(cpu_pressure, text_without_a_percentage_gives_none) {
    const char *const bad[] = {
        "",
        "full avg10=50.00 avg60=0 avg300=0 total=0\n",
        "some avg60=50.00 total=0\n",
        "some avg10= total=0\n",
        "some avg10=abc\n",
        "some avg10=-1.00\n",
        "some avg10=100.01\n",
        "some avg10=nan\n",
        "some avg60=1\nfull avg10=80.00\n", /* avg10 only on the full line */
        "somewhat avg10=80.00\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double v = 123;
        cr_assert_eq(apo__cpu_pressure_parse(bad[i], &v), -1, "text %zu (\"%s\") parsed as %g", i,
                     bad[i], v);
        cr_assert_eq(v, 123, "text %zu: the figure was written", i);
    }
}

/* Writes `text` to a new file in the tests' folder; its path in path[size]. */
static void pressure_file(char *path, size_t size, const char *text) {
    cr_assert_eq(test_tmpfile_with(text, path, size), 0, "writing %s", path);
}

Test(cpu_pressure, the_file_named_is_read_and_a_bad_one_gives_none) {
    char busy[512], garbage[512];
    pressure_file(busy, sizeof busy, "some avg10=80.00 avg60=70.00 avg300=10.00 total=99\n");
    pressure_file(garbage, sizeof garbage, "\x01\x02 not a pressure file");
    cr_assert_float_eq(apo__cpu_pressure_avg10(busy), 80.0, 1e-12);
    cr_assert_eq(apo__cpu_pressure_avg10(garbage), -1);
    cr_assert_eq(apo__cpu_pressure_avg10("off"), -1, "`off` must switch the reading off");
    char missing[600];
    snprintf(missing, sizeof missing, "%s.gone", busy);
    cr_assert_eq(apo__cpu_pressure_avg10(missing), -1);
    unlink(busy);
    unlink(garbage);
}

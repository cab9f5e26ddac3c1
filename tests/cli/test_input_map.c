/*
 * The columns of a kernel's named inputs (cli/input_map.h; docs/cli/run.md, "Several
 * inputs"): each input's own name by default, --input-map INPUT=COLUMN over it, and the
 * refusals (not INPUT=COLUMN, an input the kernel lacks, one mapped twice, two inputs on
 * one column), for kernels shaped like the catalog's: high, low, close; close, volume.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "input_map.h"

static const char *const hlc[] = {"high", "low", "close"};

static void expect_columns(const char *map, const char *a, const char *b, const char *c) {
    cli_input_columns cols;
    char err[256] = "";
    cr_assert_eq(cli_input_columns_resolve("atr", hlc, 3, map, &cols, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(cols.n, 3);
    cr_assert_str_eq(cols.names[0], a);
    cr_assert_str_eq(cols.names[1], b);
    cr_assert_str_eq(cols.names[2], c);
    cli_input_columns_free(&cols);
    cr_assert_null(cols.names[0]);
}

static void expect_refused(const char *const *names, size_t n, const char *map,
                           const char *fragment) {
    cli_input_columns cols;
    char err[256] = "";
    cr_assert_eq(cli_input_columns_resolve("k", names, n, map, &cols, err, sizeof err), -1,
                 "map '%s' accepted", map ? map : "(none)");
    cr_assert(strstr(err, fragment) != NULL, "map '%s': message '%s' lacks '%s'",
              map ? map : "(none)", err, fragment);
    for (size_t i = 0; i < CLI_INPUTS_MAX; i++)
        cr_assert_null(cols.names[i], "nothing is kept after a refusal");
}

Test(input_map, inputs_read_their_own_names_by_default) {
    expect_columns(NULL, "high", "low", "close");
    expect_columns("", "high", "low", "close");
}

Test(input_map, a_mapping_overrides_some_inputs) {
    expect_columns("high=H,low=L", "H", "L", "close");
    /* Input names match whatever their case; column names are kept as written. */
    expect_columns("CLOSE=Adj Close", "high", "low", "Adj Close");
    expect_columns("close=c,high=h,low=l", "h", "l", "c");
}

Test(input_map, bad_mappings_are_refused_with_the_reason) {
    expect_refused(hlc, 3, "high", "is not INPUT=COLUMN");
    expect_refused(hlc, 3, "=H", "is not INPUT=COLUMN");
    expect_refused(hlc, 3, "high=", "is not INPUT=COLUMN");
    expect_refused(hlc, 3, "high=H,", "empty mapping");
    expect_refused(hlc, 3, "open=O", "has no input 'open' (its inputs: high, low, close)");
    expect_refused(hlc, 3, "high=H,HIGH=X", "input high is mapped twice");
    expect_refused(hlc, 3, "high=close", "inputs high and close both read column 'close'");
    expect_refused(hlc, 3, "high=P,low=p", "inputs high and low both read column 'p'");
    const char *const cv[] = {"close", "volume"};
    expect_refused(cv, 2, "volume=Close", "both read column");
    expect_refused(cv, 0, NULL, "has 0 inputs");
}

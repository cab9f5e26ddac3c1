/*
 * Every function of TA-Lib's abstract interface accounted for (docs/kernels/talib.md, "Every TA-Lib
 * function"): tests/data/talib_functions.tsv lists TA-Lib 0.8's functions as the PyPI package
 * ta-lib 0.8.2 describes them (scripts/talib-functions.py printed it), and each is either a
 * kernel (any case) whose descriptor has TA-Lib's inputs, outputs, parameter names, defaults
 * and NaN lead, or a row of the table "TA-Lib functions not yet in the catalog" of
 * docs/kernels/talib.md. Where a kernel's descriptor deliberately differs, the table "Where a
 * descriptor differs from TA-Lib's" there says which part and why.
 *
 * Both tables are read from docs/kernels/talib.md, so the list a reader sees is the list the test
 * holds, and neither can go stale: a listed function that has become a kernel fails, and so
 * does a listed difference that is no longer there.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog_reference.h"
#include "helpers.h"

#define FUNCTIONS_FILE APO_TEST_DATA_DIR "/talib_functions.tsv"
#define KERNELS_DOC APO_DOCS_DIR "/kernels/talib.md"
#define NOT_YET_HEADING "### TA-Lib functions not yet in the catalog"
#define DIFFERS_HEADING "### Where a descriptor differs from TA-Lib's"

#define MAX_FUNCTIONS 400
#define MAX_LISTED 200
#define MAX_IO 8
#define MAX_PARAMS 10
#define WORD 40
/* Bars of the run that measures each kernel's NaN lead: longer than any lookback of TA-Lib's
 * at its defaults (TRIX's 88 is the longest). */
#define LEAD_BARS 400

typedef struct ta_function {
    char name[WORD], group[WORD];
    int n_inputs, n_outputs, n_params;
    char inputs[MAX_IO][WORD]; /* a price component, or `input:column` (talib-functions.py) */
    char outputs[MAX_IO][WORD];
    char param_names[MAX_PARAMS][WORD];
    double param_defaults[MAX_PARAMS];
    long lookback;
} ta_function;

/* A row of one of docs/kernels/talib.md's two tables: a function (upper case) or a kernel, and for
 * a difference the part of the descriptor that differs. */
typedef struct listed {
    char name[WORD], part[WORD];
    int used;
} listed;

static ta_function functions[MAX_FUNCTIONS];
/* Every failure of a case, one line each, which its last assertion prints whole: the engineer
 * who added a kernel sees every part to fix at once. */
static char report[32768];

static void fail_line(const char *fmt, ...) {
    const size_t used = strlen(report);
    if (used + 1 >= sizeof report)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(report + used, sizeof report - used, fmt, ap);
    va_end(ap);
    const size_t now = strlen(report);
    if (now + 1 < sizeof report)
        strcpy(report + now, "\n");
}
static size_t n_functions;
static listed not_yet[MAX_LISTED], differs[MAX_LISTED];
static size_t n_not_yet, n_differs;

/* Splits `line` at each `sep` in place, keeping empty fields; returns the count. */
static int split(char *line, char sep, char **fields, int max) {
    int n = 0;
    char *at = line;
    while (n < max) {
        fields[n++] = at;
        char *next = strchr(at, sep);
        if (next == NULL)
            break;
        *next = '\0';
        at = next + 1;
    }
    return n;
}

static void copy_word(char *dst, const char *src) {
    cr_assert_lt(strlen(src), (size_t)WORD, "%s: longer than the test's words", src);
    strcpy(dst, src);
}

/* A comma list into words; an empty field is no word. */
static int read_list(char *field, char words[][WORD], int max) {
    if (field[0] == '\0')
        return 0;
    char *parts[MAX_PARAMS + 1];
    const int n = split(field, ',', parts, MAX_PARAMS + 1);
    cr_assert_leq(n, max, "%s: more than %d names", field, max);
    for (int i = 0; i < n; i++)
        copy_word(words[i], parts[i]);
    return n;
}

static void read_functions(void) {
    FILE *f = fopen(FUNCTIONS_FILE, "r");
    cr_assert_not_null(f, "%s", FUNCTIONS_FILE);
    char line[2048];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *fields[6];
        cr_assert_eq(split(line, '\t', fields, 6), 6, "%s: not six fields", line);
        cr_assert_lt(n_functions, (size_t)MAX_FUNCTIONS);
        ta_function *fn = &functions[n_functions++];
        copy_word(fn->name, fields[0]);
        copy_word(fn->group, fields[1]);
        fn->n_inputs = read_list(fields[2], fn->inputs, MAX_IO);
        fn->n_outputs = read_list(fields[3], fn->outputs, MAX_IO);
        char params[MAX_PARAMS][WORD];
        fn->n_params = read_list(fields[4], params, MAX_PARAMS);
        for (int i = 0; i < fn->n_params; i++) {
            char *eq = strchr(params[i], '=');
            cr_assert_not_null(eq, "%s: %s is not name=default", fn->name, params[i]);
            *eq = '\0';
            copy_word(fn->param_names[i], params[i]);
            fn->param_defaults[i] = strtod(eq + 1, NULL);
        }
        fn->lookback = strtol(fields[5], NULL, 10);
    }
    fclose(f);
    /* TA-Lib 0.8.2's abstract interface has 201 functions; a short file is a broken one. */
    cr_assert_geq(n_functions, (size_t)200, "%s: %zu functions", FUNCTIONS_FILE, n_functions);
}

/* The first `code` span of a table cell, or "" where it has none. */
static void cell_code(const char *cell, char *out) {
    out[0] = '\0';
    const char *open = strchr(cell, '`');
    const char *close = open != NULL ? strchr(open + 1, '`') : NULL;
    if (close == NULL || (size_t)(close - open - 1) >= (size_t)WORD)
        return;
    memcpy(out, open + 1, (size_t)(close - open - 1));
    out[close - open - 1] = '\0';
}

/* The rows of the table under `heading` in docs/kernels/talib.md: the first cell's name and, with
 * want_part, the second cell's part. */
static size_t read_table(const char *heading, listed *rows, int want_part) {
    FILE *f = fopen(KERNELS_DOC, "r");
    cr_assert_not_null(f, "%s", KERNELS_DOC);
    char line[4096];
    int in_section = 0, seen_table = 0;
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!in_section) {
            in_section = strcmp(line, heading) == 0;
            continue;
        }
        if (line[0] != '|') {
            if (seen_table || line[0] == '#')
                break;
            continue;
        }
        seen_table = 1;
        char *cells[8];
        const int n_cells = split(line + 1, '|', cells, 8);
        char name[WORD];
        cell_code(cells[0], name);
        if (name[0] == '\0')
            continue; /* the header and its rule */
        cr_assert_lt(n, (size_t)MAX_LISTED);
        copy_word(rows[n].name, name);
        rows[n].part[0] = '\0';
        if (want_part) {
            cr_assert_geq(n_cells, 2, "%s: a row without its part", line);
            cell_code(cells[1], rows[n].part);
            cr_assert_neq(rows[n].part[0], '\0', "%s: the part is not in backticks", line);
        }
        n++;
    }
    fclose(f);
    cr_assert(in_section, "%s: no heading \"%s\"", KERNELS_DOC, heading);
    return n;
}

static void setup(void) {
    read_functions();
    n_not_yet = read_table(NOT_YET_HEADING, not_yet, 0);
    n_differs = read_table(DIFFERS_HEADING, differs, 1);
}

static void lower(const char *in, char *out) {
    size_t i = 0;
    for (; in[i] != '\0'; i++)
        out[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] - 'A' + 'a' : in[i]);
    out[i] = '\0';
}

static listed *find_listed(listed *rows, size_t n, const char *name, const char *part) {
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(rows[i].name, name) == 0 &&
            (part == NULL || strcmp(rows[i].part, part) == 0))
            return &rows[i];
    return NULL;
}

/* ---- each part of a descriptor against TA-Lib's ---------------------------------------- */

/* The catalog's name for TA-Lib's input: a price component is itself; a series of its own
 * reads the column the Python binding gives it by default ("price:close" is close). */
static const char *input_column(const char *ta_input) {
    const char *colon = strchr(ta_input, ':');
    return colon != NULL ? colon + 1 : ta_input;
}

static int same_inputs(const ta_function *fn, const apo_kernel_info *info) {
    if (info->n_inputs != (size_t)fn->n_inputs)
        return 0;
    for (int i = 0; i < fn->n_inputs; i++)
        if (strcmp(info->input_names[i], input_column(fn->inputs[i])) != 0)
            return 0;
    return 1;
}

/* TA-Lib names a lone output `real` or `integer`; the catalog names it after the kernel
 * (docs/kernels/talib.md, "Every TA-Lib function"). */
static int same_outputs(const ta_function *fn, const apo_kernel_info *info) {
    if (info->n_outputs != (size_t)fn->n_outputs)
        return 0;
    if (fn->n_outputs == 1 &&
        (strcmp(fn->outputs[0], "real") == 0 || strcmp(fn->outputs[0], "integer") == 0))
        return strcmp(info->output_names[0], info->name) == 0;
    for (int i = 0; i < fn->n_outputs; i++)
        if (strcmp(info->output_names[i], fn->outputs[i]) != 0)
            return 0;
    return 1;
}

static int same_params(const ta_function *fn, const apo_kernel_info *info) {
    if (info->n_params != (size_t)fn->n_params)
        return 0;
    for (int i = 0; i < fn->n_params; i++)
        if (strcmp(info->param_names[i], fn->param_names[i]) != 0)
            return 0;
    return 1;
}

static int same_defaults(const ta_function *fn, const apo_kernel_info *info) {
    if (!same_params(fn, info))
        return 1; /* said by `params` already */
    for (int i = 0; i < fn->n_params; i++)
        if (info->param_defaults[i] != fn->param_defaults[i])
            return 0;
    return 1;
}

/* The series a kernel's input reads in the NaN-lead run, by its name. */
static const double *lead_input(const char *name, double *const ohlcv[5], const double *other,
                                const double *periods) {
    static const char *const columns[5] = {"open", "high", "low", "close", "volume"};
    for (int c = 0; c < 5; c++)
        if (strcmp(name, columns[c]) == 0)
            return ohlcv[c];
    if (strcmp(name, "y") == 0)
        return other;
    if (strcmp(name, "periods") == 0)
        return periods;
    return ohlcv[3]; /* x, and any series of its own: the close */
}

/* The kernel's NaN lead at its defaults, the same for every output; -1 where the outputs'
 * leads differ, -2 where the call fails (logged). */
static long nan_lead(apo_runtime *rt, const apo_kernel_info *info) {
    double *ohlcv[5], other[LEAD_BARS], periods[LEAD_BARS];
    double storage[5][LEAD_BARS], out_storage[APO_MAX_IO][LEAD_BARS];
    for (int c = 0; c < 5; c++)
        ohlcv[c] = storage[c];
    apo__ref_ohlcv(77, LEAD_BARS, 100.0, 0.5, ohlcv[0], ohlcv[1], ohlcv[2], ohlcv[3], ohlcv[4]);
    apo__ref_ohlcv(78, LEAD_BARS, 60.0, 0.3, NULL, NULL, NULL, other, NULL);
    for (size_t t = 0; t < LEAD_BARS; t++)
        periods[t] = (double)(2 + (t * 7) % 29); /* within mavp's default 2 .. 30 */
    const double *in[APO_MAX_IO];
    double *out[APO_MAX_IO];
    for (size_t i = 0; i < info->n_inputs; i++)
        in[i] = lead_input(info->input_names[i], ohlcv, other, periods);
    /* asin's and acos's domain is [-1, 1]: prices near 100 would give NaN on every bar. */
    double unit[LEAD_BARS];
    if (strcmp(info->name, "asin") == 0 || strcmp(info->name, "acos") == 0) {
        for (size_t t = 0; t < LEAD_BARS; t++)
            unit[t] = 0.99 * sin(ohlcv[2][t]);
        in[0] = unit;
    }
    for (size_t o = 0; o < info->n_outputs; o++)
        out[o] = out_storage[o];
    apo_workload w =
        test_workload(info->name, 1, LEAD_BARS, in, info->n_inputs, out, info->n_outputs);
    if (apo_distribute_workload(rt, &w, NULL) != APO_OK) {
        fail_line("%s: the NaN-lead run failed: %s", info->name, apo_last_error());
        return -2;
    }
    long lead = -1;
    for (size_t o = 0; o < info->n_outputs; o++) {
        long first = 0;
        while (first < LEAD_BARS && isnan(out[o][first]))
            first++;
        if (o > 0 && first != lead)
            return -1;
        lead = first;
    }
    return lead;
}

/* The verdict on one part of a kernel's descriptor: a difference must be listed in
 * docs/kernels/talib.md, and a listed one must still be there. */
typedef enum verdict { AGREES, UNLISTED_DIFFERENCE, STALE_ROW } verdict;

static verdict judge(int same, int listed_row) {
    return !same && !listed_row ? UNLISTED_DIFFERENCE : same && listed_row ? STALE_ROW : AGREES;
}

/* Judges `part` of kernel `kernel` (TA-Lib's `fn`); logs a failure with `detail`, the two
 * descriptors' values. Returns the failures, 0 or 1. */
static int check_part(const ta_function *fn, const char *kernel, const char *part, int same,
                      const char *detail) {
    listed *l = find_listed(differs, n_differs, kernel, part);
    if (l != NULL)
        l->used = 1;
    switch (judge(same, l != NULL)) {
    case AGREES:
        return 0;
    case UNLISTED_DIFFERENCE:
        fail_line("%s %s: not TA-Lib's %s (%s); make them TA-Lib's, or add a row to "
                  "docs/kernels/talib.md, \"%s\", with the reason",
                  kernel, part, fn->name, detail, DIFFERS_HEADING + 5);
        return 1;
    case STALE_ROW:
        fail_line("%s %s: TA-Lib's now; delete the row `%s` | `%s` of docs/kernels/talib.md, "
                  "\"%s\"",
                  kernel, part, kernel, part, DIFFERS_HEADING + 5);
        return 1;
    }
    return 1;
}

/* "catalog: a b; TA-Lib: c d" of two lists of names. */
static void describe(const char *const *ours, size_t n_ours, const char (*theirs)[WORD],
                     int n_theirs, char *buf, size_t size) {
    size_t used = (size_t)snprintf(buf, size, "catalog:");
    for (size_t i = 0; i < n_ours && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, " %s", ours[i]);
    used += used < size ? (size_t)snprintf(buf + used, size - used, "; TA-Lib:") : 0;
    for (int i = 0; i < n_theirs && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, " %s", theirs[i]);
}

static int check_kernel(apo_runtime *rt, const ta_function *fn, const apo_kernel_info *info) {
    char detail[512];
    int failures = 0;
    describe(info->input_names, info->n_inputs, fn->inputs, fn->n_inputs, detail, sizeof detail);
    failures += check_part(fn, info->name, "inputs", same_inputs(fn, info), detail);
    describe(info->output_names, info->n_outputs, fn->outputs, fn->n_outputs, detail,
             sizeof detail);
    failures += check_part(fn, info->name, "outputs", same_outputs(fn, info), detail);
    describe(info->param_names, info->n_params, fn->param_names, fn->n_params, detail,
             sizeof detail);
    failures += check_part(fn, info->name, "params", same_params(fn, info), detail);
    size_t used = (size_t)snprintf(detail, sizeof detail, "catalog:");
    for (size_t i = 0; i < info->n_params && used < sizeof detail; i++)
        used +=
            (size_t)snprintf(detail + used, sizeof detail - used, " %g", info->param_defaults[i]);
    used += used < sizeof detail
                ? (size_t)snprintf(detail + used, sizeof detail - used, "; TA-Lib:")
                : 0;
    for (int i = 0; i < fn->n_params && used < sizeof detail; i++)
        used += (size_t)snprintf(detail + used, sizeof detail - used, " %g", fn->param_defaults[i]);
    failures += check_part(fn, info->name, "defaults", same_defaults(fn, info), detail);
    const long lead = nan_lead(rt, info);
    snprintf(detail, sizeof detail, "NaN lead %ld at the defaults; TA-Lib's lookback %ld", lead,
             fn->lookback);
    failures += check_part(fn, info->name, "lookback", lead == fn->lookback, detail);
    return failures;
}

/* ---- the cases ------------------------------------------------------------------------ */

Test(talib_coverage, every_talib_function_is_a_kernel_or_listed_as_not_yet, .init = setup) {
    apo_runtime *rt = test_runtime("cpu");
    int failures = 0;
    for (size_t i = 0; i < n_functions; i++) {
        const ta_function *fn = &functions[i];
        char name[WORD];
        lower(fn->name, name);
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        const int is_kernel = apo_kernel_get(rt, name, &info) == APO_OK;
        listed *l = find_listed(not_yet, n_not_yet, fn->name, NULL);
        if (l != NULL)
            l->used = 1;
        if (is_kernel && l != NULL) {
            fail_line("%s is a kernel now: delete its row from docs/kernels/talib.md, \"%s\"",
                      fn->name, NOT_YET_HEADING + 5);
            failures++;
        } else if (!is_kernel && l == NULL) {
            fail_line("TA-Lib's %s (%s) is neither a kernel nor listed in docs/kernels/talib.md, "
                      "\"%s\"",
                      fn->name, fn->group, NOT_YET_HEADING + 5);
            failures++;
        }
    }
    for (size_t i = 0; i < n_not_yet; i++)
        if (!not_yet[i].used) {
            fail_line("docs/kernels/talib.md, \"%s\", lists %s, which TA-Lib 0.8.2 does not have",
                      NOT_YET_HEADING + 5, not_yet[i].name);
            failures++;
        }
    apo_runtime_destroy(rt);
    cr_assert_eq(failures, 0, "%d functions unaccounted for:\n%s", failures, report);
}

Test(talib_coverage, each_kernel_has_talibs_descriptor_or_a_listed_reason, .init = setup) {
    apo_runtime *rt = test_runtime("cpu");
    int failures = 0, checked = 0;
    for (size_t i = 0; i < n_functions; i++) {
        char name[WORD];
        lower(functions[i].name, name);
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        if (apo_kernel_get(rt, name, &info) != APO_OK)
            continue;
        failures += check_kernel(rt, &functions[i], &info);
        checked++;
    }
    for (size_t i = 0; i < n_differs; i++)
        if (!differs[i].used) {
            fail_line("docs/kernels/talib.md, \"%s\", lists %s %s, which is no kernel of TA-Lib's "
                      "name or no part of a descriptor (inputs, outputs, params, defaults, "
                      "lookback)",
                      DIFFERS_HEADING + 5, differs[i].name, differs[i].part);
            failures++;
        }
    apo_runtime_destroy(rt);
    cr_log_info("%d kernels checked against TA-Lib's descriptors", checked);
    cr_assert_eq(failures, 0, "%d differences not accounted for:\n%s", failures, report);
}

/* The checks can fail: a descriptor that is not TA-Lib's, unlisted, is caught, and so is a
 * listed difference that is no longer there. */
Test(talib_coverage, a_difference_is_caught, .init = setup) {
    const ta_function *fn = NULL;
    for (size_t i = 0; i < n_functions && fn == NULL; i++)
        if (strcmp(functions[i].name, "RSI") == 0)
            fn = &functions[i];
    cr_assert_not_null(fn);
    apo_runtime *rt = test_runtime("cpu");
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "rsi", &info), APO_OK);
    cr_assert(same_params(fn, &info) && same_defaults(fn, &info) && same_inputs(fn, &info));
    ta_function other = *fn;
    other.param_defaults[0] = 15;
    cr_assert(!same_defaults(&other, &info));
    copy_word(other.param_names[0], "period");
    cr_assert(!same_params(&other, &info));
    copy_word(other.inputs[0], "price:open");
    cr_assert(!same_inputs(&other, &info));
    copy_word(other.outputs[0], "rsi_line");
    cr_assert(!same_outputs(&other, &info));
    cr_assert_eq(nan_lead(rt, &info), fn->lookback);
    cr_assert_eq(judge(0, 0), UNLISTED_DIFFERENCE);
    cr_assert_eq(judge(1, 1), STALE_ROW);
    cr_assert_eq(judge(0, 1), AGREES);
    cr_assert_eq(judge(1, 0), AGREES);
    apo_runtime_destroy(rt);
}

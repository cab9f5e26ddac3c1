/*
 * The built-in rules' table (which rule fits which indicator) and its scored kernels, every
 * rule in every view, built once on first use; the lookups by name that the runtime and the
 * tool go through (scored_kernels.h), falling back on the rules on any output
 * (scored_generic.c) for a name the table lacks. A kernel is built from its row by
 * apo__scored_fill (scored_kernels.c, through scored_build.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "catalog/scored_build.h"
#include "catalog/scored_kernels.h"
#include "score_more.h"
#include "score_tile.h"

#define NO_THRESHOLDS 0, 0.0, 0.0, 0.0, 0.0
#define ZONE_AND_REVERT(ind, out, lo, hi, min, max)                                                \
    {ind, ind "_zone", APO_RULE_ZONE, out, 0, 1, lo, hi, min, max}, {                              \
        ind, ind "_revert", APO_RULE_REVERT, out, 0, 1, lo, hi, min, max                           \
    }
#define PRICE_CROSS(ind)                                                                           \
    { ind, "price_cross", APO_RULE_PRICE_CROSS, 0, 0, NO_THRESHOLDS }

/* Which rule fits which indicator: a rule reads the outputs of its indicator by position
 * (docs/scores.md, "Rules", has the same table in words). A scored kernel's parameters are
 * the indicator's, the rule's thresholds and cost and periods_per_year, at most
 * APO_MAX_PARAMS: stoch's five leave no room for two thresholds, so stoch has its cross
 * and no zone (stochf's fastk has both). */
static const apo__scored_def scored_defs[] = {
    {"bollinger", "bands_revert", APO_RULE_BANDS_REVERT, 0, 0, NO_THRESHOLDS},
    {"bollinger", "bands_zone", APO_RULE_BANDS_ZONE, 0, 0, NO_THRESHOLDS},
    {"macd", "macd_cross", APO_RULE_MACD_CROSS, 0, 0, NO_THRESHOLDS},
    ZONE_AND_REVERT("rsi", 0, 30.0, 70.0, 0.0, 100.0),
    ZONE_AND_REVERT("stochf", 0, 20.0, 80.0, 0.0, 100.0),
    {"stochf", "stochf_cross", APO_RULE_CROSS, 0, 1, NO_THRESHOLDS},
    {"stoch", "stoch_cross", APO_RULE_CROSS, 0, 1, NO_THRESHOLDS},
    ZONE_AND_REVERT("willr", 0, -80.0, -20.0, -100.0, 0.0),
    /* CCI has no bound of its own. */
    ZONE_AND_REVERT("cci", 0, -100.0, 100.0, -HUGE_VAL, HUGE_VAL),
    ZONE_AND_REVERT("mfi", 0, 20.0, 80.0, 0.0, 100.0),
    ZONE_AND_REVERT("cmo", 0, -50.0, 50.0, -100.0, 100.0),
    PRICE_CROSS("sma"),
    PRICE_CROSS("ema"),
    PRICE_CROSS("wma"),
    PRICE_CROSS("dema"),
    PRICE_CROSS("tema"),
    PRICE_CROSS("kama"),
};
#define N_SCORED (sizeof scored_defs / sizeof scored_defs[0])

/* Every rule in every view: scored[i * APO_SCORE_VIEW_COUNT + view]. */
#define N_KERNELS (N_SCORED * APO_SCORE_VIEW_COUNT)
static apo__kernel scored[N_KERNELS];
static apo__scoring scorings[N_KERNELS];
static pthread_once_t scored_once = PTHREAD_ONCE_INIT;

static void build_one(size_t i) {
    const apo__scored_def *d = &scored_defs[i];
    for (int v = 0; v < APO_SCORE_VIEW_COUNT; v++) {
        const size_t at = i * APO_SCORE_VIEW_COUNT + (size_t)v;
        apo__scored_fill(&scored[at], &scorings[at], apo__builtin_kernel_named(d->indicator),
                         d->rule_name, d, v);
    }
}

static void build_all(void) {
    for (size_t i = 0; i < N_SCORED; i++)
        build_one(i);
}

const apo__kernel *apo__scored_kernel_find(const char *name) {
    if (strchr(name, ':') == NULL)
        return NULL;
    pthread_once(&scored_once, build_all);
    for (size_t i = 0; i < N_KERNELS; i++)
        if (apo__kernel_name_equal(scored[i].name, name))
            return &scored[i];
    /* A rule on any output of a built-in indicator, built on first use. */
    const char *colon = strchr(name, ':');
    char indicator[APO_NAME_MAX];
    if ((size_t)(colon - name) >= sizeof indicator || !apo__scored_generic_kind_known(colon + 1))
        return NULL;
    snprintf(indicator, sizeof indicator, "%.*s", (int)(colon - name), name);
    const apo__kernel *ind = apo__builtin_kernel_named(indicator);
    const apo__kernel *k = NULL;
    char err[256];
    if (ind == NULL || apo__scored_generic_kernel(ind, colon + 1, &k, err, sizeof err) != APO_OK)
        return NULL;
    return k;
}

apo_status apo__scored_kernel_of(const char *kernel, const char *rule_view,
                                 const apo__kernel **out) {
    pthread_once(&scored_once, build_all);
    *out = NULL;
    char rule[APO_NAME_MAX];
    const int view = apo__scored_view_of(rule_view, rule, sizeof rule);
    if (view < 0)
        return apo__fail(APO_ERR_UNKNOWN_KERNEL,
                         "rule \"%s\": after the '/' comes compound, log or more (docs/kernels.md, "
                         "\"More statistics and compounding\")",
                         rule_view);
    int rule_known = 0;
    char fits[128] = "";
    size_t len = 0;
    for (size_t i = 0; i < N_SCORED; i++) {
        if (apo__kernel_name_equal(scored_defs[i].rule_name, rule)) {
            rule_known = 1;
            if (apo__kernel_name_equal(scored_defs[i].indicator, kernel)) {
                *out = &scored[i * APO_SCORE_VIEW_COUNT + (size_t)view];
                return APO_OK;
            }
        }
        if (apo__kernel_name_equal(scored_defs[i].indicator, kernel) && len < sizeof fits)
            len += (size_t)snprintf(fits + len, sizeof fits - len, "%s%s", len ? ", " : "",
                                    scored_defs[i].rule_name);
    }
    const apo__kernel *ind = apo__builtin_kernel_named(kernel);
    if (apo__scored_generic_kind_known(rule) && (!rule_known || strchr(rule, '.') != NULL) &&
        ind != NULL) {
        char err[512];
        const apo_status st = apo__scored_generic_kernel(ind, rule_view, out, err, sizeof err);
        return st == APO_OK ? APO_OK : apo__fail(st, "%s", err);
    }
    if (!rule_known) {
        /* The rules from the table, each once (price_cross fits several averages). */
        char names[512] = "";
        size_t at = 0;
        for (size_t i = 0; i < N_SCORED && at < sizeof names; i++) {
            size_t seen = 0;
            while (seen < i && strcmp(scored_defs[seen].rule_name, scored_defs[i].rule_name) != 0)
                seen++;
            if (seen == i)
                at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                                       scored_defs[i].rule_name);
        }
        return apo__fail(APO_ERR_UNKNOWN_KERNEL,
                         "no rule named \"%s\" (rules: %s; on any output of a built-in "
                         "indicator: zone.<output>, revert.<output>, cross.<a>.<b>, "
                         "price_cross.<output>, signal.<output>)",
                         rule, names);
    }
    return apo__fail(APO_ERR_INVALID_ARGUMENT,
                     "rule %s does not fit kernel %s: it reads the outputs of another kernel; %s%s",
                     rule, kernel, len ? "the rules for it are " : "no rule reads its outputs yet",
                     fits);
}

int apo__scored_rule_builtin(const char *rule) {
    /* A user's rule's name has no '.': only a kind's bare name can meet one. */
    if (apo__scored_generic_kind_known(rule))
        return 1;
    for (size_t i = 0; i < N_SCORED; i++)
        if (apo__kernel_name_equal(scored_defs[i].rule_name, rule))
            return 1;
    return 0;
}

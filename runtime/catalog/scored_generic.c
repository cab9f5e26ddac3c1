/*
 * scored_generic.c: the rules on any output of a built-in indicator (docs/scores.md, "Rules
 * on any output"), `<kind>.<output>` or `cross.<a>.<b>` after the indicator's name, such as
 * "macd:cross.macd.signal". Where the table of scored_table.c names a rule for an
 * indicator, these make the row from the rule's name: its kind, the outputs it reads by their
 * names, thresholds without defaults of their own. Each such kernel is built on first use
 * with the table's builder (scored_build.h), so it runs the same hooks and gives the same
 * bits as a table rule of that kind and those outputs, and is kept for the process, as the
 * table's are; none has a GPU launcher (the GPUs' scored launcher is compiled for the table's
 * indicators only).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/scored_build.h"
#include "catalog/scored_kernels.h"
#include "score_tile.h"

/* The kinds a rule on any output of a built-in indicator takes (docs/scores.md, "Rules on any
 * output"): `<kind>.<output>` (`cross.<a>.<b>`), or the kind alone on an indicator with as
 * many outputs as the kind reads (but price_cross alone is the averages' rule of the table). */
typedef struct generic_kind {
    const char *name;
    int kind;       /* APO_RULE_* */
    int n_outputs;  /* the outputs it reads */
    int thresholds; /* it takes lower and upper */
} generic_kind;

static const generic_kind generic_kinds[] = {
    {"zone", APO_RULE_ZONE, 1, 1},     {"revert", APO_RULE_REVERT, 1, 1},
    {"cross", APO_RULE_CROSS, 2, 0},   {"price_cross", APO_RULE_PRICE_CROSS, 1, 0},
    {"signal", APO_RULE_SIGNAL, 1, 0},
};
#define N_GENERIC_KINDS (sizeof generic_kinds / sizeof generic_kinds[0])

/* The kind that a rule's name starts with, up to its first '.', or NULL. */
static const generic_kind *generic_kind_of(const char *rule) {
    const size_t len = strcspn(rule, ".");
    for (size_t i = 0; i < N_GENERIC_KINDS; i++)
        if (strlen(generic_kinds[i].name) == len && strncmp(generic_kinds[i].name, rule, len) == 0)
            return &generic_kinds[i];
    return NULL;
}

int apo__scored_generic_kind_known(const char *rule) { return generic_kind_of(rule) != NULL; }

/* The output of ind named name[0 .. len), in any case, or -1. */
static int output_named(const apo__kernel *ind, const char *name, size_t len) {
    for (size_t o = 0; o < ind->n_outputs; o++)
        if (strlen(ind->output_names[o]) == len &&
            strncasecmp(ind->output_names[o], name, len) == 0)
            return (int)o;
    return -1;
}

/* The rule `rule` (its view taken off) as a rule on any output of ind: its row into *d and
 * its name with the outputs as ind names them into canon (the kernel's name is built from
 * it). APO_OK, else the reason in err. */
static apo_status generic_def_of(const apo__kernel *ind, const char *rule, apo__scored_def *d,
                                 char *canon, size_t canon_size, char *err, size_t err_size) {
    const generic_kind *g = generic_kind_of(rule);
    char outputs[APO_MAX_IO * (APO_NAME_MAX + 2)] = "";
    for (size_t o = 0, at = 0; o < ind->n_outputs && at < sizeof outputs; o++)
        at += (size_t)snprintf(outputs + at, sizeof outputs - at, "%s%s", o ? ", " : "",
                               ind->output_names[o]);
    int out[2] = {0, 1};
    int n = 0;
    size_t len = (size_t)snprintf(canon, canon_size, "%s", g->name);
    for (const char *at = rule + strlen(g->name); *at == '.';) {
        const char *name = at + 1;
        const size_t name_len = strcspn(name, ".");
        const int o = n < g->n_outputs ? output_named(ind, name, name_len) : -1;
        if (o < 0 && n < g->n_outputs)
            snprintf(err, err_size, "rule %s: %s has no output \"%.*s\" (its outputs: %s)", rule,
                     ind->name, (int)name_len, name, outputs);
        else if (o < 0)
            snprintf(err, err_size, "rule %s: %s reads %d output%s (the outputs of %s: %s)", rule,
                     g->name, g->n_outputs, g->n_outputs > 1 ? "s" : "", ind->name, outputs);
        if (o < 0) {
            return APO_ERR_INVALID_ARGUMENT;
        }
        len += (size_t)snprintf(canon + len, len < canon_size ? canon_size - len : 0, ".%s",
                                ind->output_names[o]);
        out[n++] = o;
        at = name + name_len;
    }
    const int alone_fits = (int)ind->n_outputs == g->n_outputs && g->kind != APO_RULE_PRICE_CROSS;
    if (n != g->n_outputs && !(n == 0 && alone_fits)) {
        snprintf(err, err_size,
                 "rule %s on %s names the output%s it reads: %s%s (the outputs of %s: %s)", rule,
                 ind->name, g->n_outputs > 1 ? "s" : "", g->name,
                 g->n_outputs > 1 ? ".<a>.<b>" : ".<output>", ind->name, outputs);
        return APO_ERR_INVALID_ARGUMENT;
    }
    *d = (apo__scored_def){ind->name,     NULL, g->kind, out[0],    g->n_outputs > 1 ? out[1] : 0,
                           g->thresholds, 0.0,  0.0,     -HUGE_VAL, HUGE_VAL};
    return APO_OK;
}

/* The scored kernels of rules on any output, built on first use and kept for the process, as
 * the table's are: at most one per indicator, rule and view asked, so a bound this size is
 * reached only by a caller inventing names, who is refused. */
#define GENERIC_MAX 1024
typedef struct generic_entry {
    apo__kernel k;
    apo__scoring sc;
    char rule[APO_NAME_MAX];
} generic_entry;
static generic_entry *generic_built[GENERIC_MAX];
static size_t n_generic;
static pthread_mutex_t generic_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The scored kernel of the rule on any output rule_view (a view may follow its '/') of the
 * built-in indicator ind: APO_OK with *out, else the reason in err. */
apo_status apo__scored_generic_kernel(const apo__kernel *ind, const char *rule_view,
                                      const apo__kernel **out, char *err, size_t err_size) {
    char rule[APO_NAME_MAX], canon[APO_NAME_MAX];
    const int view = apo__scored_view_of(rule_view, rule, sizeof rule);
    if (view < 0 || strlen(ind->name) + 1 + strlen(rule_view) >= APO_NAME_MAX) {
        snprintf(err, err_size,
                 view < 0 ? "rule \"%s\": after the '/' comes compound, log or more"
                          : "%s:%s is longer than %d characters",
                 view < 0 ? rule_view : ind->name, rule_view, APO_NAME_MAX - 1);
        return view < 0 ? APO_ERR_UNKNOWN_KERNEL : APO_ERR_INVALID_ARGUMENT;
    }
    /* Thresholds (lower, upper), cost, periods_per_year and side after the indicator's. */
    if (!apo__scored_scorable(ind, generic_kind_of(rule)->thresholds ? 5 : 3, err, err_size))
        return APO_ERR_INVALID_ARGUMENT;
    apo__scored_def d;
    apo_status st = generic_def_of(ind, rule, &d, canon, sizeof canon, err, err_size);
    if (st != APO_OK)
        return st;
    char name[APO_NAME_MAX * 2 + 16];
    snprintf(name, sizeof name, "%s:%s%s%s", ind->name, canon, view ? "/" : "",
             apo__scored_view_name(view));
    if (strlen(name) >= APO_NAME_MAX) {
        snprintf(err, err_size, "%s is longer than %d characters", name, APO_NAME_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&generic_mutex);
    *out = NULL;
    for (size_t i = 0; i < n_generic && *out == NULL; i++)
        if (strcmp(generic_built[i]->k.name, name) == 0)
            *out = &generic_built[i]->k;
    generic_entry *e = NULL;
    if (*out == NULL && n_generic < GENERIC_MAX && (e = calloc(1, sizeof *e)) != NULL) {
        snprintf(e->rule, sizeof e->rule, "%s", canon);
        d.rule_name = e->rule;
        apo__scored_fill(&e->k, &e->sc, ind, e->rule, &d, view);
        /* The GPUs' scored launcher is compiled for the table's indicators only. */
        apo__scored_host_only(&e->k);
        e->sc.generic = 1;
        generic_built[n_generic++] = e;
        *out = &e->k;
    }
    pthread_mutex_unlock(&generic_mutex);
    if (*out != NULL)
        return APO_OK;
    snprintf(err, err_size,
             e == NULL && n_generic >= GENERIC_MAX
                 ? "%s: this process has built %d rules on any output, the most it keeps"
                 : "%s: out of memory",
             name, GENERIC_MAX);
    return n_generic >= GENERIC_MAX ? APO_ERR_INVALID_ARGUMENT : APO_ERR_OUT_OF_MEMORY;
}

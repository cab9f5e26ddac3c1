/*
 * balance_report.c: apo-bench-balance's reporting: the table of series, the profiles, the
 * targets, and the JSON, CSV and timeline files (see balance_rows.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance_rows.h"
#include "bench.h"

static const char *const strategy_names[N_STRATEGIES] = {"equal", "profiled", "online"};

const char *balance_strategy_name(strategy s) { return strategy_names[s]; }

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* ---- printing ------------------------------------------------------------------------- */

void balance_print_table_header(void) {
    printf("%-17s %-9s %9s %5s %11s %9s %8s %6s %11s %6s  %s\n", "# scenario", "strategy", "size",
           "calls", "makespan_ms", "eff_final", "eff_min", "reach", "re-reach", "#wrong",
           "final shares");
}

static void fmt_calls(long v, char *buf, size_t size) {
    if (v == REACH_NA)
        snprintf(buf, size, "-");
    else if (v < 0)
        snprintf(buf, size, "never");
    else
        snprintf(buf, size, "%ld", v);
}

void balance_print_row(const row_result *r) {
    if (r->failed && r->n_calls == 0) {
        printf("%-17s %-9s %9zu  FAILED: %s\n", r->sc->name, balance_strategy_name(r->strat),
               r->size, r->failure);
        return;
    }
    char reach[24], rereach[48], shares[256] = "";
    fmt_calls(r->reach, reach, sizeof reach);
    if (r->slow_call > 0) {
        char n[24];
        fmt_calls(r->rereach, n, sizeof n);
        snprintf(rereach, sizeof rereach, "%s@%ld", n, r->slow_call);
    } else {
        snprintf(rereach, sizeof rereach, "-");
    }
    const call_rec *last = &r->calls[r->n_calls - 1];
    size_t used = 0;
    for (size_t i = 0; i < r->n_devices && used < sizeof shares; i++)
        used += (size_t)snprintf(shares + used, sizeof shares - used, "%s%.3f", i ? "/" : "",
                                 last->share[i]);
    printf("%-17s %-9s %9zu %5zu %11.3f %9.4f %8.4f %6s %11s %6ld  %s (%s)\n", r->sc->name,
           balance_strategy_name(r->strat), r->size, r->n_calls, r->median_ms, r->final_eff,
           r->min_eff, reach, rereach, r->wrong, shares, apo_ratio_source_name(last->source));
    if (r->failed)
        printf("#   FAILED after %zu calls: %s\n", r->n_calls, r->failure);
    fflush(stdout);
}

void balance_print_profile(const row_result *r) {
    if (!r->has_profile)
        return;
    printf("#   profile of %s at %zu (%u runs, took %.1f ms of wall time): predicted %.3f ms, "
           "measured median %.3f ms\n",
           r->sc->name, r->size, r->profile.runs, r->profile_s * 1e3, r->profile.predicted_ms,
           r->median_ms);
    for (size_t i = 0; i < r->profile.n_devices; i++) {
        const apo_device_model *m = &r->profile.devices[i];
        if (!m->valid) {
            printf("#     %-12s no model\n", m->id);
            continue;
        }
        printf("#     %-12s latency %9.4f ms  %9.4f ms/Melem  ratio %.4f  samples %llu  dropped "
               "%llu\n",
               m->id, m->latency_ms, m->ms_per_melem, m->ratio, (unsigned long long)m->samples,
               (unsigned long long)m->dropped);
    }
}

json_t *balance_row_json(const row_result *r) {
    json_t *calls = json_array();
    for (size_t c = 0; c < r->n_calls; c++) {
        const call_rec *cr = &r->calls[c];
        json_t *devs = json_array();
        for (size_t i = 0; i < r->n_devices; i++)
            json_array_append_new(devs,
                                  json_pack("{s:s,s:f,s:I,s:f,s:f}", "id", r->ids[i], "share",
                                            cr->share[i], "elements", (json_int_t)cr->elements[i],
                                            "wall_ms", cr->wall_ms[i], "wait_ms", cr->wait_ms[i]));
        json_array_append_new(
            calls, json_pack("{s:I,s:f,s:f,s:s,s:b,s:I,s:o}", "call", (json_int_t)c + 1,
                             "makespan_ms", cr->makespan_ms, "efficiency", cr->efficiency, "source",
                             apo_ratio_source_name(cr->source), "slowed", cr->slow, "wrong",
                             (json_int_t)cr->wrong, "devices", devs));
    }
    json_t *j = json_pack(
        "{s:s,s:s,s:s,s:I,s:b,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:o}", "scenario", r->sc->name,
        "strategy", balance_strategy_name(r->strat), "kernel", r->kernel, "size",
        (json_int_t)r->size, "virtual_clock", r->virtual_clock, "calls", (json_int_t)r->n_calls,
        "median_makespan_ms", num_or_null(r->median_ms), "final_efficiency",
        num_or_null(r->final_eff), "min_efficiency", num_or_null(r->min_eff), "calls_to_reach",
        r->reach >= 0 ? json_integer(r->reach) : json_null(), "slowdown_call",
        r->slow_call > 0 ? json_integer(r->slow_call) : json_null(), "calls_to_rereach",
        r->rereach >= 0 && r->slow_call > 0 ? json_integer(r->rereach) : json_null(), "failure",
        r->failed ? json_string(r->failure) : json_null(), "wrong", (json_int_t)r->wrong,
        "per_call", calls);
    if (r->has_profile) {
        json_t *models = json_array();
        for (size_t i = 0; i < r->profile.n_devices; i++) {
            const apo_device_model *m = &r->profile.devices[i];
            json_array_append_new(
                models,
                json_pack("{s:s,s:b,s:o,s:o,s:o,s:I,s:I}", "id", m->id, "valid", m->valid,
                          "latency_ms", num_or_null(m->latency_ms), "ms_per_melem",
                          num_or_null(m->ms_per_melem), "ratio", num_or_null(m->ratio), "samples",
                          (json_int_t)m->samples, "dropped", (json_int_t)m->dropped));
        }
        json_object_set_new(j, "profile",
                            json_pack("{s:f,s:I,s:o,s:I,s:o}", "seconds", r->profile_s, "runs",
                                      (json_int_t)r->profile.runs, "predicted_ms",
                                      num_or_null(r->profile.predicted_ms), "sample_size",
                                      (json_int_t)r->profile.sample_size, "devices", models));
    }
    return j;
}

/* ---- targets -------------------------------------------------------------------------- */

static void target_line(targets *t, int pass, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void target_line(targets *t, int pass, const char *what, const char *fmt, ...) {
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printf("#   %s  %-62s %s\n", pass ? "PASS" : "FAIL", what, detail);
    json_array_append_new(
        t->list, json_pack("{s:s,s:b,s:s}", "target", what, "pass", pass, "detail", detail));
    if (pass)
        t->pass++;
    else
        t->fail++;
}

static const row_result *find_row(const row_result *rows, size_t n, const scenario *sc, size_t size,
                                  strategy s) {
    for (size_t i = 0; i < n; i++)
        if (rows[i].sc == sc && rows[i].size == size && rows[i].strat == s && rows[i].n_calls > 0)
            return &rows[i];
    return NULL;
}

void balance_check_targets(const row_result *rows, size_t n_rows, targets *t) {
    printf("\n# TARGETS\n");
    char what[128];
    for (size_t i = 0; i < n_rows; i++) {
        const row_result *r = &rows[i];
        if (r->strat != S_PROFILED)
            continue;
        snprintf(what, sizeof what, "profiled eff >= %.2f: %s @ %zu", TARGET_PROFILED_EFF,
                 r->sc->name, r->size);
        if (r->n_calls == 0) {
            target_line(t, 0, what, "no calls: %s", r->failure);
            continue;
        }
        /* Refinement is off for the profiled strategy, so it cannot follow a device that
         * slows down after profiling: it is judged on the calls its profile describes, and
         * the rest is shown beside. */
        size_t end = r->slow_call > 1 ? (size_t)r->slow_call - 1 : r->n_calls;
        double mn = INFINITY, after = INFINITY;
        for (size_t c = 0; c < r->n_calls; c++)
            if (c < end)
                mn = fmin(mn, r->calls[c].efficiency);
            else
                after = fmin(after, r->calls[c].efficiency);
        if (end < r->n_calls)
            target_line(t, mn >= TARGET_PROFILED_EFF, what,
                        "min %.4f over calls 1-%zu (before the slowdown); after it min %.4f "
                        "(refinement off: not expected to follow)",
                        mn, end, after);
        else
            target_line(t, mn >= TARGET_PROFILED_EFF, what, "min %.4f over %zu calls%s", mn,
                        r->n_calls,
                        r->slow_call == 1 ? " (slowed from call 1: profiling used the device's "
                                            "calls before the slowdown)"
                                          : "");
    }
    for (size_t i = 0; i < n_rows; i++) {
        const row_result *r = &rows[i];
        if (r->strat != S_ONLINE)
            continue;
        snprintf(what, sizeof what, "online >= %.2f within %d calls: %s @ %zu", TARGET_ONLINE_EFF,
                 TARGET_ONLINE_CALLS, r->sc->name, r->size);
        if (r->n_calls == 0) {
            target_line(t, 0, what, "no calls: %s", r->failure);
            continue;
        }
        char n[48];
        if (r->reach >= 0)
            snprintf(n, sizeof n, "reached after %ld call(s)", r->reach);
        else
            snprintf(n, sizeof n, "not reached in %zu calls", r->n_calls);
        target_line(t, r->reach >= 0 && r->reach <= TARGET_ONLINE_CALLS, what,
                    "%s from the equal start (eff call 1 %.4f, final %.4f)", n,
                    r->calls[0].efficiency, r->final_eff);
        if (r->slow_call > 0) {
            snprintf(what, sizeof what, "online >= %.2f within %d calls after slowdown: %s",
                     TARGET_ONLINE_EFF, TARGET_ONLINE_CALLS, r->sc->name);
            if (r->rereach >= 0)
                snprintf(n, sizeof n, "re-reached after %ld call(s)", r->rereach);
            else
                snprintf(n, sizeof n, "not re-reached by call %zu", r->n_calls);
            target_line(t, r->rereach >= 0 && r->rereach <= TARGET_ONLINE_CALLS, what,
                        "slowed at call %ld (eff %.4f), %s", r->slow_call,
                        r->calls[r->slow_call - 1].efficiency, n);
        } else if (r->sc->slowdown) {
            snprintf(what, sizeof what, "online within %d calls after slowdown: %s",
                     TARGET_ONLINE_CALLS, r->sc->name);
            target_line(t, 0, what, "no slowed call seen in %zu calls (--calls too small?)",
                        r->n_calls);
        }
    }
    for (size_t i = 0; i < n_rows; i++) {
        const row_result *r = &rows[i];
        if (r->strat == S_EQUAL || r->n_calls == 0)
            continue;
        const row_result *eq = find_row(rows, n_rows, r->sc, r->size, S_EQUAL);
        if (eq == NULL)
            continue;
        double tol = r->virtual_clock ? VIRTUAL_NOISE_REL : WALL_NOISE_REL;
        snprintf(what, sizeof what, "%s not worse than equal: %s @ %zu",
                 balance_strategy_name(r->strat), r->sc->name, r->size);
        target_line(t, r->median_ms <= eq->median_ms * (1 + tol), what,
                    "median %.3f ms vs equal %.3f ms (%.2fx)%s", r->median_ms, eq->median_ms,
                    eq->median_ms / r->median_ms,
                    r->virtual_clock ? "" : " (wall clock, 5% noise)");
    }
}

/* ---- outputs -------------------------------------------------------------------------- */

int balance_write_csv(const char *path, const row_result *rows, size_t n_rows) {
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    size_t max_dev = 0;
    for (size_t i = 0; i < n_rows; i++)
        max_dev = rows[i].n_devices > max_dev ? rows[i].n_devices : max_dev;
    fprintf(f, "scenario,strategy,size,call,makespan_ms,efficiency,source");
    for (size_t d = 0; d < max_dev; d++)
        fprintf(f, ",share_%zu", d);
    for (size_t d = 0; d < max_dev; d++)
        fprintf(f, ",wall_ms_%zu", d);
    fprintf(f, "\n");
    for (size_t i = 0; i < n_rows; i++) {
        const row_result *r = &rows[i];
        for (size_t c = 0; c < r->n_calls; c++) {
            const call_rec *cr = &r->calls[c];
            fprintf(f, "%s,%s,%zu,%zu,%.6f,%.6f,%s", r->sc->name, balance_strategy_name(r->strat),
                    r->size, c + 1, cr->makespan_ms, cr->efficiency,
                    apo_ratio_source_name(cr->source));
            /* Scenarios differ in their device count: missing devices are empty cells. */
            for (size_t d = 0; d < max_dev; d++)
                if (d < r->n_devices)
                    fprintf(f, ",%.6f", cr->share[d]);
                else
                    fputc(',', f);
            for (size_t d = 0; d < max_dev; d++)
                if (d < r->n_devices)
                    fprintf(f, ",%.6f", cr->wall_ms[d]);
                else
                    fputc(',', f);
            fprintf(f, "\n");
        }
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* All devices of a call start together (one dispatch, no failover here), so a device's
 * timeline is busy from 0 for wall_ms and then waits for the slowest. */
int balance_write_timeline(const char *path, const row_result *rows, size_t n_rows) {
    const row_result *sel[2] = {NULL, NULL};
    for (size_t i = 0; i < n_rows; i++) {
        if (strcmp(rows[i].sc->name, "rates-1-2-8") != 0 || rows[i].n_calls == 0)
            continue;
        if (rows[i].strat == S_EQUAL)
            sel[0] = &rows[i];
        else if (rows[i].strat == S_PROFILED)
            sel[1] = &rows[i];
    }
    if (sel[0] == NULL && sel[1] == NULL) {
        fprintf(stderr, "%s: --timeline: the rates-1-2-8 scenario did not run\n", bench_prog);
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "strategy,device,start_ms,busy_ms,wait_ms\n");
    for (int s = 0; s < 2; s++) {
        if (sel[s] == NULL)
            continue;
        const call_rec *cr = &sel[s]->calls[sel[s]->n_calls - 1];
        for (size_t d = 0; d < sel[s]->n_devices; d++)
            fprintf(f, "%s,%s,%.6f,%.6f,%.6f\n", balance_strategy_name(sel[s]->strat),
                    sel[s]->ids[d], 0.0, cr->wall_ms[d], cr->wait_ms[d]);
    }
    return fclose(f) == 0 ? 0 : -1;
}

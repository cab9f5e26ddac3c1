/*
 * Updating multigpu.json (profile_store.h): whole entries replaced or removed by tag under
 * the file's lock (file_update.h), so that two processes refining different workloads both
 * keep their work. An update is checked before anything is touched: one that would not
 * read back would get the whole file rejected, and set aside, on the next load.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/file_update.h"
#include "profiles/json_fields.h"
#include "profiles/multigpu_format.h"
#include "profiles/text.h"
#include "profiles/timestamps.h"

/* An update must be something a load accepts back. */
static apo_status check_update(const apo__stored_workload *w, char *err, size_t err_size) {
    if (!apo__fits(w->tag, sizeof w->tag) || w->tag[0] == '\0' || !apo__utf8_valid(w->tag)) {
        apo__errf(err, err_size, "update: a workload tag must be 1 to %d bytes of UTF-8",
                  APO_TAG_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (!apo__fits(w->updated_at, sizeof w->updated_at) ||
        (w->updated_at[0] != '\0' && apo__timestamp_parse(w->updated_at) < 0)) {
        apo__errf(err, err_size, "update of \"%s\": updated_at is not an RFC 3339 timestamp",
                  w->tag);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)w->origin > APO_ORIGIN_THREADX || w->n_devices == 0 ||
        w->n_devices > APO_MAX_DEVICES || w->sample_size > APO_PROFILE_COUNT_MAX) {
        apo__errf(err, err_size,
                  "update of \"%s\": origin, device count (1 to %d) or sample size out of range",
                  w->tag, APO_MAX_DEVICES);
        return APO_ERR_INVALID_ARGUMENT;
    }
    double sum = 0;
    for (size_t d = 0; d < w->n_devices; d++) {
        const apo__stored_device *dev = &w->devices[d];
        if (!apo__fits(dev->id, sizeof dev->id) || dev->id[0] == '\0' ||
            !apo__utf8_valid(dev->id) || !apo__fits(dev->label, sizeof dev->label) ||
            !apo__utf8_valid(dev->label) || !apo__fits(dev->config, sizeof dev->config) ||
            !apo__utf8_valid(dev->config)) {
            apo__errf(err, err_size,
                      "update of \"%s\": device %zu: the id must be 1 to %d bytes, the label "
                      "and the config at most %d bytes, all UTF-8",
                      w->tag, d, APO_ID_MAX - 1, APO_LABEL_MAX - 1);
            return APO_ERR_INVALID_ARGUMENT;
        }
        for (size_t k = 0; k < d; k++) {
            if (strcmp(w->devices[k].id, dev->id) == 0) {
                apo__errf(err, err_size, "update of \"%s\": device \"%s\" appears twice", w->tag,
                          dev->id);
                return APO_ERR_INVALID_ARGUMENT;
            }
        }
        if (!apo__nonneg_or_nan(dev->ratio) || !apo__nonneg_or_nan(dev->latency_ms) ||
            !apo__nonneg_or_nan(dev->ms_per_melem) || dev->samples > APO_PROFILE_COUNT_MAX) {
            apo__errf(err, err_size,
                      "update of \"%s\": device \"%s\": ratio, latency_ms and ms_per_melem must "
                      "be finite and >= 0 (or NaN when unknown)",
                      w->tag, dev->id);
            return APO_ERR_INVALID_ARGUMENT;
        }
        if (!isnan(dev->ratio))
            sum += dev->ratio;
    }
    if (!(sum > 0) || !isfinite(sum)) {
        apo__errf(err, err_size, "update of \"%s\": the ratios sum to %g; expected a positive sum",
                  w->tag, sum);
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

/* Checks what an update is given before anything is read or locked. */
static apo_status check_arguments(const char *path, const char *host,
                                  const apo__stored_workload *updates, size_t n_updates,
                                  const char *const *removals, size_t n_removals, char *err,
                                  size_t err_size) {
    if (path == NULL || (n_updates > 0 && updates == NULL) ||
        (n_removals > 0 && removals == NULL)) {
        apo__errf(err, err_size, "apo__multigpu_update: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (host != NULL && (!apo__fits(host, APO_LABEL_MAX) || !apo__utf8_valid(host))) {
        apo__errf(err, err_size, "update: the host name must be at most %d bytes of UTF-8",
                  APO_LABEL_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n_updates; i++)
        APO_CHECK(check_update(&updates[i], err, err_size));
    for (size_t i = 0; i < n_removals; i++) {
        if (removals[i] == NULL) {
            apo__errf(err, err_size, "apo__multigpu_update: removal %zu is NULL", i);
            return APO_ERR_INVALID_ARGUMENT;
        }
    }
    return APO_OK;
}

/* Applies checked updates and removals to `p`, whose list has room for every update, and
 * stamps it as written now by this host and library. */
static void apply_changes(apo__multigpu *p, const char *host, const apo__stored_workload *applied,
                          size_t n_updates, const char *const *removals, size_t n_removals) {
    double now = apo__wall_clock_now();
    for (size_t i = 0; i < n_updates; i++) {
        size_t at = p->n_workloads;
        for (size_t k = 0; k < p->n_workloads; k++)
            if (strcmp(p->workloads[k].tag, applied[i].tag) == 0)
                at = k;
        p->workloads[at] = applied[i];
        if (p->workloads[at].updated_at[0] == '\0')
            apo__timestamp_format(now, p->workloads[at].updated_at, APO_TIMESTAMP_MAX);
        /* Devices are kept in id order, as a load returns them. */
        qsort(p->workloads[at].devices, p->workloads[at].n_devices, sizeof(apo__stored_device),
              apo__device_cmp);
        if (at == p->n_workloads)
            p->n_workloads++;
    }
    for (size_t i = 0; i < n_removals; i++) {
        for (size_t k = 0; k < p->n_workloads; k++) {
            if (strcmp(p->workloads[k].tag, removals[i]) == 0) {
                p->workloads[k] = p->workloads[--p->n_workloads];
                break;
            }
        }
    }
    qsort(p->workloads, p->n_workloads, sizeof p->workloads[0], apo__workload_cmp);
    if (host != NULL)
        snprintf(p->host, sizeof p->host, "%s", host);
    snprintf(p->library_version, sizeof p->library_version, "%s", APO_VERSION_STRING);
    apo__timestamp_format(now, p->updated_at, sizeof p->updated_at);
    p->threadx = 0;
}

apo_status apo__multigpu_update(const char *path, const char *host,
                                const apo__stored_workload *updates, size_t n_updates,
                                const char *const *removals, size_t n_removals,
                                apo__multigpu *merged, char *err, size_t err_size) {
    return apo__multigpu_update_rebased(path, host, updates, n_updates, removals, n_removals, NULL,
                                        NULL, merged, err, err_size);
}

apo_status apo__multigpu_update_rebased(const char *path, const char *host,
                                        const apo__stored_workload *updates, size_t n_updates,
                                        const char *const *removals, size_t n_removals,
                                        apo__multigpu_rebase_fn rebase, void *rebase_ctx,
                                        apo__multigpu *merged, char *err, size_t err_size) {
    apo__errf(err, err_size, "%s", "");
    if (merged != NULL)
        memset(merged, 0, sizeof *merged);
    APO_CHECK(check_arguments(path, host, updates, n_updates, removals, n_removals, err, err_size));
    /* The updates as applied: a copy, which the rebase may rewrite under the lock. */
    apo__stored_workload *applied = malloc((n_updates > 0 ? n_updates : 1) * sizeof *applied);
    if (applied == NULL) {
        apo__errf(err, err_size, "%s: out of memory", path);
        return APO_ERR_OUT_OF_MEMORY;
    }
    if (n_updates > 0)
        memcpy(applied, updates, n_updates * sizeof *applied);
    apo__multigpu p;
    apo__locked_file lf;
    apo_status st;
    APO_CHECK_GOTO(apo__lock_and_read(path, &apo__multigpu_format, &p, &lf, err, err_size), st,
                   fail);
    if (rebase != NULL) {
        rebase(&p, applied, n_updates, rebase_ctx);
        for (size_t i = 0; i < n_updates; i++)
            APO_CHECK_GOTO(check_update(&applied[i], err, err_size), st, fail);
    }

    /* Room for every old entry plus every update; removals only shrink it. */
    size_t cap = p.n_workloads + n_updates;
    apo__stored_workload *list = realloc(p.workloads, (cap > 0 ? cap : 1) * sizeof *list);
    if (list == NULL) {
        apo__errf(err, err_size, "%s: out of memory", path);
        st = APO_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    p.workloads = list;
    apply_changes(&p, host, applied, n_updates, removals, n_removals);
    APO_CHECK_GOTO(apo__write_and_unlock(apo__multigpu_to_json(&p), p.n_workloads,
                                         APO_WORKLOADS_MAX, "workloads", &lf, err, err_size),
                   st, fail);
    free(applied);
    if (merged != NULL)
        *merged = p;
    else
        apo__multigpu_free(&p);
    return APO_OK;
fail:
    free(applied);
    apo__multigpu_free(&p);
    apo__unlock(&lf);
    return st;
}

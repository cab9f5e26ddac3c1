/*
 * What the files of test_profile_store*.c share; see profile_store_fixtures.h.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "profiles/profile_store.h"

#include "profile_store_fixtures.h"
#include "test_tmpdir.h"

void make_tmp(char *dir, size_t size) {
    snprintf(dir, size, "%s/apo-profile-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

void make_tmp_file(char *dir, size_t dir_size, char *path, size_t path_size, const char *name) {
    make_tmp(dir, dir_size);
    cr_assert_lt((size_t)snprintf(path, path_size, "%s/%s", dir, name), path_size, "%s/%s", dir,
                 name);
}

/* Removes a tree made by a test (giving folders back their write bit first). */
void rm_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *d = opendir(path);
        if (d != NULL) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char child[4096];
                snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                rm_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

char *read_all(const char *path, size_t *len) {
    if (len != NULL)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Doubles compared bit for bit (NaN equals NaN). */
int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

void assert_device(const apo__stored_device *d, const char *id, const char *label, double ratio,
                   double latency, double cost, uint64_t samples) {
    cr_assert_str_eq(d->id, id);
    cr_assert_str_eq(d->label, label, "%s label", id);
    cr_assert(same_double(d->ratio, ratio), "%s ratio %.17g, expected %.17g", id, d->ratio, ratio);
    cr_assert(same_double(d->latency_ms, latency), "%s latency %.17g, expected %.17g", id,
              d->latency_ms, latency);
    cr_assert(same_double(d->ms_per_melem, cost), "%s cost %.17g, expected %.17g", id,
              d->ms_per_melem, cost);
    cr_assert_eq(d->samples, samples, "%s samples", id);
}

void assert_same_workload(const apo__stored_workload *a, const apo__stored_workload *b) {
    cr_assert_str_eq(a->tag, b->tag);
    cr_assert_str_eq(a->updated_at, b->updated_at, "%s", a->tag);
    cr_assert_eq(a->sample_size, b->sample_size, "%s", a->tag);
    cr_assert_eq(a->runs, b->runs, "%s", a->tag);
    cr_assert_eq(a->origin, b->origin, "%s", a->tag);
    cr_assert_eq(a->n_devices, b->n_devices, "%s", a->tag);
    for (size_t i = 0; i < a->n_devices; i++) {
        const apo__stored_device *d = &b->devices[i];
        assert_device(&a->devices[i], d->id, d->label, d->ratio, d->latency_ms, d->ms_per_melem,
                      d->samples);
        cr_assert_str_eq(a->devices[i].config, d->config, "%s config", d->id);
        const apo__stored_online *x = &a->devices[i].online, *y = &d->online;
        cr_assert_eq(x->n_recent, y->n_recent, "%s online observations", d->id);
        for (unsigned k = 0; k < y->n_recent; k++)
            cr_assert(same_double(x->recent_elements[k], y->recent_elements[k]) &&
                          same_double(x->recent_ms[k], y->recent_ms[k]),
                      "%s observation %u", d->id, k);
        cr_assert(same_double(x->prior_latency_ms, y->prior_latency_ms) &&
                      same_double(x->prior_ms_per_melem, y->prior_ms_per_melem),
                  "%s prior", d->id);
        cr_assert(same_double(x->known_latency_ms, y->known_latency_ms), "%s known latency", d->id);
        cr_assert_eq(x->off_run, y->off_run, "%s off_run", d->id);
    }
}

void assert_threshold(const apo__threshold *t, const char *key, double cpu, double gpu,
                      uint64_t samples, uint64_t cpu_samples, uint64_t gpu_samples) {
    cr_assert_str_eq(t->key, key);
    cr_assert(same_double(t->cpu_ms_avg, cpu), "%s cpu %.17g, expected %.17g", key, t->cpu_ms_avg,
              cpu);
    cr_assert(same_double(t->gpu_ms_avg, gpu), "%s gpu %.17g, expected %.17g", key, t->gpu_ms_avg,
              gpu);
    cr_assert_eq(t->samples, samples, "%s samples %llu", key, (unsigned long long)t->samples);
    cr_assert_eq(t->cpu_samples, cpu_samples, "%s cpu_samples %llu", key,
                 (unsigned long long)t->cpu_samples);
    cr_assert_eq(t->gpu_samples, gpu_samples, "%s gpu_samples %llu", key,
                 (unsigned long long)t->gpu_samples);
}

apo__stored_device device(const char *id, const char *label, double ratio, double latency,
                          double cost, uint64_t samples) {
    apo__stored_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.id, sizeof d.id, "%s", id);
    snprintf(d.label, sizeof d.label, "%s", label);
    d.ratio = ratio;
    d.latency_ms = latency;
    d.ms_per_melem = cost;
    d.samples = samples;
    d.online.prior_latency_ms = d.online.prior_ms_per_melem = d.online.known_latency_ms = NAN;
    return d;
}

apo__threshold add(const char *key, double cpu, double gpu, uint64_t samples) {
    apo__threshold t;
    memset(&t, 0, sizeof t);
    snprintf(t.key, sizeof t.key, "%s", key);
    t.cpu_ms_avg = cpu;
    t.gpu_ms_avg = gpu;
    t.samples = samples;
    return t;
}

/* Names in a folder other than . and .., sorted, joined by spaces; the folder must exist. */
void list_dir(const char *dir, char *out, size_t size) {
    cr_assert(test_list_dir(dir, out, size), "cannot open %s", dir);
}

/* ---- locations -------------------------------------------------------------------------- */

void merge_ok(const char *path, const apo__threshold *adds, size_t n, apo__thresholds *t) {
    char err[512] = "";
    cr_assert_eq(apo__thresholds_merge(path, adds, n, t, err, sizeof err), APO_OK,
                 "merge into %s: %s", path, err);
}

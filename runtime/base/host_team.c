/*
 * The host team; see host_team.h. The protocol, which docs/scheduling.md ("The cpu
 * device's threads") explains for users:
 *
 * - A run is posted under the team's mutex: its sequence number, its function, its job and
 *   its piece count are written there, the counters are reset, and the claim word is set
 *   to (sequence, 0). Helpers copy those fields under the same mutex when they wake.
 * - A piece is claimed by a compare-and-swap of the claim word from (sequence, p) to
 *   (sequence, p + 1), with p below the piece count. A helper whose copy is of an earlier
 *   run sees another sequence and claims nothing; one that comes late to the current run
 *   finds every piece claimed. Only a thread holding a claim reads the job.
 * - A piece is done when `done` counts it, after the thread's last access to the job for
 *   it. The caller returns once `done` equals the piece count, so every claimed piece has
 *   ended, and the job (which may live on the caller's stack) is no longer read by anyone.
 *   A thread that has not woken, or that lost the processor between two pieces, holds no
 *   claim and is not waited for.
 * - Sequences are 40 bits: a stale copy would have to sleep through 2^40 runs to find its
 *   sequence again.
 *
 * A helper that the operating system preempts inside a piece still holds it, and the
 * caller waits for it; after such a run the caller computes the next runs alone, as
 * team_rule.h decides, from the times this file measures for it.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/host_team.h"
#include "base/team_rule.h"

#define SEQ_SHIFT 24
#define PIECE_MASK ((UINT64_C(1) << SEQ_SHIFT) - 1)
#define SEQ_MASK ((UINT64_C(1) << (64 - SEQ_SHIFT)) - 1)

void (*apo__host_team_wake_hook)(int slot) = NULL;

/* One thread's sums for the current run: written by that thread while it holds a claim,
 * read by the caller once every piece is done. */
typedef struct team_slot {
    double touch_s, compute_s;
    uint64_t pieces;
} team_slot;

typedef struct team_helper {
    apo__host_team *team;
    int slot;
    pthread_t thread;
} team_helper;

struct apo__host_team {
    pthread_mutex_t mutex;
    pthread_cond_t wake; /* helpers wait here for a run */
    pthread_cond_t idle; /* the caller waits here for the last piece */
    /* Under the mutex: */
    int stopping;
    uint64_t seq; /* the current run's sequence (SEQ_MASK bits) */
    apo__team_piece_fn fn;
    void *job;
    uint64_t pieces;
    /* Shared without the mutex: */
    atomic_uint_fast64_t claim; /* (seq << SEQ_SHIFT) | next piece */
    atomic_uint_fast64_t done;  /* pieces of the current run that ended */
    atomic_int status;          /* the run's first failure */
    int n_helpers;
    int asked;  /* helpers team_start() was asked for (the system may have given fewer) */
    int active; /* helpers that take part in the current run (slots 1 to active) */
    team_helper *helpers;
    team_slot *slots; /* n_helpers + 1 */
    /* Read and written only by the thread that runs the team (a device's task, a group's
     * update), between runs. */
    apo__team_rule rule;
};

/* Claims and computes pieces of run `seq` until none is left. */
static void work(apo__host_team *t, int slot, uint64_t seq, uint64_t pieces, apo__team_piece_fn fn,
                 void *job) {
    for (;;) {
        uint_fast64_t w = atomic_load(&t->claim);
        uint64_t p;
        do {
            if ((w >> SEQ_SHIFT) != seq || (p = w & PIECE_MASK) >= pieces)
                return;
        } while (!atomic_compare_exchange_weak(&t->claim, &w, w + 1));
        double touch_s = 0, compute_s = 0;
        if (atomic_load(&t->status) == APO_OK) {
            apo_status st = fn(job, slot, p, &touch_s, &compute_s);
            int ok = APO_OK;
            if (st != APO_OK)
                atomic_compare_exchange_strong(&t->status, &ok, (int)st);
        }
        t->slots[slot].touch_s += touch_s;
        t->slots[slot].compute_s += compute_s;
        t->slots[slot].pieces++;
        /* The piece's last access to the job is above: from here on this thread touches
         * only the team, which outlives every run. */
        if (atomic_fetch_add(&t->done, 1) + 1 == pieces) {
            pthread_mutex_lock(&t->mutex);
            pthread_cond_broadcast(&t->idle);
            pthread_mutex_unlock(&t->mutex);
        }
    }
}

static void *helper_main(void *arg) {
    team_helper *h = arg;
    apo__host_team *t = h->team;
    uint64_t seen = 0;
    pthread_mutex_lock(&t->mutex);
    for (;;) {
        while (!t->stopping && t->seq == seen)
            pthread_cond_wait(&t->wake, &t->mutex);
        if (t->stopping)
            break;
        seen = t->seq;
        apo__team_piece_fn fn = t->fn;
        void *job = t->job;
        uint64_t pieces = t->pieces;
        /* A run of fewer threads than the team (a cpu beside GPUs, core/plan.c) leaves the
         * helpers above its count out. */
        const int takes_part = h->slot <= t->active;
        pthread_mutex_unlock(&t->mutex);
        if (takes_part && apo__host_team_wake_hook != NULL)
            apo__host_team_wake_hook(h->slot);
        if (takes_part)
            work(t, h->slot, seen, pieces, fn, job);
        pthread_mutex_lock(&t->mutex);
    }
    pthread_mutex_unlock(&t->mutex);
    return NULL;
}

/* A team with up to `helpers` helper threads; NULL when not even the team can be had. */
static apo__host_team *team_start(int helpers, double pressure) {
    apo__host_team *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->helpers = calloc((size_t)helpers, sizeof *t->helpers);
    t->slots = calloc((size_t)helpers + 1, sizeof *t->slots);
    if (t->helpers == NULL || t->slots == NULL) {
        free(t->helpers);
        free(t->slots);
        free(t);
        return NULL;
    }
    pthread_mutex_init(&t->mutex, NULL);
    pthread_cond_init(&t->wake, NULL);
    pthread_cond_init(&t->idle, NULL);
    atomic_init(&t->claim, 0);
    atomic_init(&t->done, 0);
    atomic_init(&t->status, APO_OK);
    t->asked = helpers;
    apo__team_rule_init(&t->rule);
    /* The rule learns from a loss; on a machine already busy, the first runs would each risk
     * one. Read once: afterwards the runs themselves tell. */
    if (pressure >= APO_TEAM_BUSY_PRESSURE)
        apo__team_rule_start_busy(&t->rule);
    /* Fewer helpers than asked for (the system's thread limit) still help. */
    for (int i = 0; i < helpers; i++) {
        team_helper *h = &t->helpers[i];
        h->team = t;
        h->slot = i + 1;
        if (pthread_create(&h->thread, NULL, helper_main, h) != 0)
            break;
        t->n_helpers = i + 1;
    }
    return t;
}

void apo__host_team_destroy(apo__host_team *t) {
    if (t == NULL)
        return;
    pthread_mutex_lock(&t->mutex);
    t->stopping = 1;
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mutex);
    for (int i = 0; i < t->n_helpers; i++)
        pthread_join(t->helpers[i].thread, NULL);
    pthread_cond_destroy(&t->idle);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->mutex);
    free(t->helpers);
    free(t->slots);
    free(t);
}

apo_status apo__host_team_run(apo__host_team **team, int threads, double pressure, uint64_t pieces,
                              apo__team_piece_fn fn, void *job, apo__team_times *times) {
    times->touch_s = times->compute_s = 0;
    times->pieces_by_helpers = 0;
    times->threads_offered = 1;
    if (pieces == 0)
        return APO_OK;
    /* A run that asks for more threads than the team was started with (a cpu whose calls
     * take every core when it runs alone) starts it anew, once, with as many. */
    if (threads > 1 && pieces > 1 && *team != NULL && threads - 1 > (*team)->asked) {
        apo__host_team_destroy(*team);
        *team = NULL;
    }
    if (threads > 1 && pieces > 1 && *team == NULL)
        *team = team_start(threads - 1, pressure);
    apo__host_team *t = *team;
    int shared = t != NULL && threads > 1 && pieces > 1 && t->n_helpers > 0;
    /* A run the helpers could share, while the rule keeps them out, counts towards the
     * probe; one they could not share does not. */
    if (shared && apo__team_rule_alone(&t->rule))
        shared = 0;
    if (!shared) {
        /* Alone: no helper is woken. */
        apo_status status = APO_OK;
        for (uint64_t p = 0; p < pieces && status == APO_OK; p++)
            status = fn(job, 0, p, &times->touch_s, &times->compute_s);
        return status;
    }
    assert(pieces <= PIECE_MASK);
    const int active = threads - 1 < t->n_helpers ? threads - 1 : t->n_helpers;
    times->threads_offered = 1 + active;

    double started = apo__now();
    pthread_mutex_lock(&t->mutex);
    uint64_t seq = (t->seq + 1) & SEQ_MASK;
    t->seq = seq;
    t->fn = fn;
    t->job = job;
    t->pieces = pieces;
    t->active = active;
    for (int s = 0; s <= t->n_helpers; s++)
        t->slots[s] = (team_slot){0};
    atomic_store(&t->done, 0);
    atomic_store(&t->status, APO_OK);
    atomic_store(&t->claim, (uint_fast64_t)seq << SEQ_SHIFT);
    pthread_mutex_unlock(&t->mutex);
    /* Woken once the mutex is free: a helper that the kernel runs at once, on this thread's
     * core, must not find the mutex held by the thread it displaced. */
    pthread_cond_broadcast(&t->wake);

    /* The caller does not wait for anyone to wake: it starts on the pieces at once. */
    work(t, 0, seq, pieces, fn, job);
    double own_end = apo__now();
    if (atomic_load(&t->done) != pieces) {
        pthread_mutex_lock(&t->mutex);
        while (atomic_load(&t->done) != pieces)
            pthread_cond_wait(&t->idle, &t->mutex);
        pthread_mutex_unlock(&t->mutex);
    }
    double ended = apo__now();
    for (int s = 0; s <= t->n_helpers; s++) {
        times->touch_s += t->slots[s].touch_s;
        times->compute_s += t->slots[s].compute_s;
        if (s > 0)
            times->pieces_by_helpers += t->slots[s].pieces;
    }
    apo_status status = (apo_status)atomic_load(&t->status);
    /* A failed run's pieces were skipped: its times say nothing of the helpers. */
    if (status == APO_OK)
        apo__team_rule_judge(&t->rule, own_end - started, ended - started, t->slots[0].pieces,
                             pieces);
    return status;
}

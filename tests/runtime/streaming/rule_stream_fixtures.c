/* What the rule stream tests share; see rule_stream_fixtures.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "le_bytes.h"
#include "rule_stream_fixtures.h"

apo_stream_desc rule_desc(const rule_case *rc, const apo_sweep *sweep) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = rc->kernel;
    d.score = rc->rule;
    d.n_series = ROWS;
    d.params = rc->params;
    d.n_params = rc->n_params;
    d.sweep = sweep;
    d.revise_bars = rc->revise;
    return d;
}

/* Picks, with the case's revise_bars K, how many of the last bars k[r] of each series to
 * revise after this piece (at most K and the bars folded, fed[r] before the piece, a series'
 * bars since its fold began), and returns the piece's inputs with those of them that are in
 * the piece fed wrong (scaled, every seventh NaN); NULL without K (k all 0): the piece is fed
 * as it is. */
static double **wrong_piece(const rule_case *rc, const stream_case *c, const size_t *fed,
                            const size_t *n_new, size_t total, double *const *in, uint64_t *rng,
                            size_t *k) {
    for (size_t r = 0; r < ROWS; r++) {
        const size_t want = rc->revise > 0 ? stream_rng(rng) % (rc->revise + 1) : 0;
        k[r] = want < fed[r] + n_new[r] ? want : fed[r] + n_new[r];
    }
    if (rc->revise == 0)
        return NULL;
    double **wrong = malloc(c->n_inputs * sizeof *wrong);
    for (size_t i = 0; i < c->n_inputs; i++) {
        wrong[i] = malloc((total + 1) * sizeof(double));
        memcpy(wrong[i], in[i], total * sizeof(double));
        for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
            for (size_t t = n_new[r] - (k[r] < n_new[r] ? k[r] : n_new[r]); t < n_new[r]; t++)
                wrong[i][at + t] = (at + t) % 7 == 3 ? NAN : wrong[i][at + t] * 1.25;
    }
    return wrong;
}

/* Revises the last k[r] bars of each series of s (fed[r] bars of its history each) with the
 * case's right bars, writes the outputs into got, and checks that s then saves the bytes of
 * `twin`, fed the right bars alone. */
static void revise_piece(apo_stream *s, const apo_stream *twin, const stream_case *c,
                         const size_t *fed, const size_t *k, size_t n_sets, double *const *got) {
    size_t total = 0;
    for (size_t r = 0; r < ROWS; r++)
        total += k[r];
    double *in[APO_MAX_IO], *out[APO_LIVE_N_OUTPUTS];
    for (size_t i = 0; i < c->n_inputs; i++) {
        in[i] = malloc((total + 1) * sizeof(double));
        for (size_t r = 0, at = 0; r < ROWS; at += k[r], r++)
            memcpy(in[i] + at, c->in[i] + r * c->cols + fed[r] - k[r], k[r] * sizeof(double));
    }
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        out[q] = malloc((total + 1) * n_sets * sizeof(double));
    cr_assert_eq(apo_stream_revise(s, k, (const double *const *)in, out), APO_OK, "%s",
                 apo_last_error());
    for (size_t j = 0; j < n_sets; j++)
        for (size_t r = 0, at = j * total; r < ROWS; at += k[r], r++)
            for (size_t t = 0; t < k[r]; t++)
                for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
                    got[q][(j * ROWS + r) * c->cols + fed[r] - k[r] + t] = out[q][at + t];
    size_t len = 0;
    unsigned char *want = stream_state_bytes(twin, &len);
    stream_assert_state(s, want, len, "after a revise, against a stream fed the right bars");
    free(want);
    for (size_t i = 0; i < c->n_inputs; i++)
        free(in[i]);
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        free(out[q]);
}

apo_stream *rule_reload(apo_runtime *rt, apo_stream *s, const apo_stream_desc *d) {
    size_t len = 0;
    cr_assert_eq(apo_stream_save(s, NULL, 0, &len), APO_OK);
    unsigned char *buf = malloc(len);
    cr_assert_eq(apo_stream_save(s, buf, len, &len), APO_OK);
    apo_stream *back = NULL;
    cr_assert_eq(apo_stream_load(rt, d, buf, len, &back), APO_OK, "%s", apo_last_error());
    free(buf);
    apo_stream_destroy(s);
    return back;
}

/* Frees a piece's inputs `in` (c->n_inputs), its wrong copy (NULL: none), its
 * APO_LIVE_N_OUTPUTS outputs and its peeked positions. */
static void free_piece(const stream_case *c, double **in, double **wrong, double **out,
                       double *peeked) {
    for (size_t i = 0; i < c->n_inputs; i++) {
        free(in[i]);
        if (wrong != NULL)
            free(wrong[i]);
    }
    free(wrong);
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        free(out[q]);
    free(peeked);
}

void rule_scores_of(apo_runtime *rt, const apo_workload *w, double **out, size_t n,
                    double *scores) {
    cr_assert_eq(apo_distribute_workload(rt, w, NULL), APO_OK, "%s", apo_last_error());
    for (size_t q = 0; q < n; q++)
        for (size_t k = 0; k < APO_N_SCORES; k++)
            scores[q * APO_N_SCORES + k] = out[k][q];
    for (size_t k = 0; k < APO_N_SCORES; k++)
        free(out[k]);
}

void rule_assert_forged_refused(apo_runtime *rt, const apo_stream_desc *d, unsigned char *bytes,
                                size_t len, size_t at, uint64_t forged, const char *why) {
    const uint64_t was = apo__get_u64(bytes + at);
    apo__put_u64(bytes + at, forged);
    apo__put_u64(bytes + len - 8, apo__fnv1a64(bytes, len - 8));
    apo_stream *back = NULL;
    cr_assert_eq(apo_stream_load(rt, d, bytes, len, &back), APO_ERR_INVALID_ARGUMENT, "%s", why);
    cr_assert(strstr(apo_last_error(), why) != NULL, "%s (want %s)", apo_last_error(), why);
    cr_assert_null(back);
    apo__put_u64(bytes + at, was);
    apo__put_u64(bytes + len - 8, apo__fnv1a64(bytes, len - 8));
    cr_assert_eq(apo_stream_load(rt, d, bytes, len, &back), APO_OK, "%s", apo_last_error());
    apo_stream_destroy(back);
}

size_t rule_piece_sizes(const size_t *fed, size_t cols, uint64_t *rng, size_t *n_new) {
    size_t total = 0;
    for (size_t r = 0; r < ROWS; r++) {
        const size_t want = stream_rng(rng) % 4 == 0 ? 0 : stream_rng(rng) % 300;
        n_new[r] = want < cols - fed[r] ? want : cols - fed[r];
        total += n_new[r];
    }
    return total;
}

void rule_feed_piece(apo_stream *s, apo_stream *twin, const rule_case *rc, const stream_case *c,
                     size_t *fed, const size_t *since, const size_t *n_new, size_t total,
                     size_t n_sets, int peek, uint64_t *rng, double *const *got) {
    const size_t cols = c->cols;
    double *in[APO_MAX_IO], *out[APO_LIVE_N_OUTPUTS],
        *peeked = malloc((total + 1) * n_sets * sizeof(double));
    for (size_t i = 0; i < c->n_inputs; i++) {
        in[i] = malloc((total + 1) * sizeof(double));
        for (size_t r = 0, at = 0; r < ROWS; at += n_new[r], r++)
            memcpy(in[i] + at, c->in[i] + r * cols + fed[r], n_new[r] * sizeof(double));
    }
    for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
        out[q] = malloc((total + 1) * n_sets * sizeof(double));
    size_t k[ROWS];
    double **wrong = wrong_piece(rc, c, since, n_new, total, in, rng, k);
    const double *const *fed_in = (const double *const *)(wrong != NULL ? wrong : in);
    if (peek) { /* a peek gives the update's positions and changes nothing */
        double *pk[APO_LIVE_N_OUTPUTS] = {peeked};
        cr_assert_eq(apo_stream_peek(s, n_new, fed_in, pk), APO_OK, "%s", apo_last_error());
    }
    cr_assert_eq(apo_stream_update(s, n_new, fed_in, out), APO_OK, "%s", apo_last_error());
    for (size_t j = 0; j < n_sets; j++)
        for (size_t r = 0, at = j * total; r < ROWS; at += n_new[r], r++)
            for (size_t t = 0; t < n_new[r]; t++) {
                cr_assert(!peek || same_bits(peeked[at + t], out[0][at + t]), "peek at bar %zu",
                          fed[r] + t);
                for (size_t q = 0; q < APO_LIVE_N_OUTPUTS; q++)
                    got[q][(j * ROWS + r) * cols + fed[r] + t] = out[q][at + t];
            }
    for (size_t r = 0; r < ROWS; r++)
        fed[r] += n_new[r];
    if (twin != NULL) {
        cr_assert_eq(apo_stream_update(twin, n_new, (const double *const *)in, out), APO_OK);
        revise_piece(s, twin, c, fed, k, n_sets, got);
    }
    free_piece(c, in, wrong, out, peeked);
}

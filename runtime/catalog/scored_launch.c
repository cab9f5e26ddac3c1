/*
 * The scored kernels' GPU side as the catalog sees it: the launcher of the built-in rules'
 * kernels (apo__scored_cuda) and the descriptor of those that run on the host alone
 * (apo__scored_host_only_cuda), which apo__scored_fill (scored_kernels.c) picks between.
 */
#include <math.h>
#include <string.h>

#include "catalog/call_span.h"
#include "catalog/catalog_kernels.h"
#include "catalog/grid.h"
#include "catalog/scored_build.h"
#include "catalog/scored_kernels.h"
#include "catalog_dispatch.h"
#include "score_tile.h"
#include "scored_cuda.h"

/* A scored kernel has no halo of its own: a tile is a whole series. */
static size_t no_halo(const apo__kernel *k, const double *params) {
    (void)k, (void)params;
    return 0;
}

/* ---- the CUDA launch ---------------------------------------------------------------------- */

/* A built-in rule's series is scored on a GPU by kernels/scores/scored.cu (docs/cuda.md,
 * "Scored sweeps on a GPU"): one GPU thread per series of a chunk, from its samples in GPU
 * memory, only the scores coming back; a call of shared pieces (the sets of one pass, or on a
 * GPU consecutive sets of several passes: worker_pool.c) is one chunk for all of them, its
 * inputs staged once and each set's scores written into its own columns of the chunk
 * (apo__cuda_chunk.set_stride), and one launch for all of them (apo__cuda_scored_mixed when
 * their passes differ). The host resolves each set here, once per chunk: the indicator's
 * pass and tile, its halo and macd's warm-up (libm's log, which the GPU might round
 * otherwise), the set's rule, cost and sqrt(periods_per_year), so the GPU runs the CPU's
 * bodies on the CPU's numbers. Every tile (a series) reads its whole row. A user's rule is a
 * function of this process's CPU, so its kernel has no launcher and GPUs take no share of
 * it. */
#ifdef APO_HAVE_CUDA
/* What the launch returns for a call it cannot take (cudaErrorInvalidValue's number: this
 * file includes no CUDA header). */
#define SCORED_CUDA_INVALID 1

/* The set of `call` as the launcher takes it; 0 when its indicator is neither bollinger, macd
 * nor a catalog kernel (scored_defs below has none such; the launcher refuses a catalog kernel
 * no built-in rule reads). */
static int resolve_set(const apo__call *call, apo__scored_cuda_set *s) {
    const apo__scoring *sc = call->kernel->scoring;
    const apo__kernel *ind = sc->indicator;
    memset(s, 0, sizeof *s);
    s->pass = sc->pass.kind;
    s->n_in = ind->n_inputs;
    s->n_pass = sc->pass.n_out;
    s->n_out = ind->n_outputs;
    s->close_in = sc->close_input;
    s->tile = ind->tile_len(ind, call->params);
    s->halo = apo__kernel_halo(ind, call->params);
    s->whole_row = apo__kernel_whole_row_input(ind, call->params);
    for (size_t p = 0; p < ind->n_params && p < APO_CAT_MAX_PAR; p++)
        s->params[p] = call->params[p];
    const int cat = apo__catalog_id_of(ind);
    if (sc->pass.kind == APO_SCORE_PASS_BOLLINGER_WIDTHS) {
        s->indicator = APO_SCORED_CUDA_BOLLINGER;
    } else if (strcmp(ind->name, "macd") == 0) {
        s->indicator = APO_SCORED_CUDA_MACD;
        s->warmup = s->halo; /* macd's halo is its warm-up (builtin_kernels.c) */
    } else if (cat >= 0) {
        s->indicator = APO_SCORED_CUDA_CATALOG;
        s->cat_id = cat;
        /* The io the host's tile builds (catalog_kernels.c): the parameters and the halo. */
        memcpy(s->io.p, s->params, sizeof s->io.p);
        s->io.h = apo__catalog_halo((apo__cat_id)cat, s->io.p);
    } else {
        return 0;
    }
    const size_t fold_params = ind->n_params + sc->n_rule_params;
    s->rule = apo__scoring_rule(sc, call->params);
    s->cost = call->params[fold_params];
    s->sqrt_periods = sqrt(call->params[fold_params + 1]);
    return 1;
}

static int scored_cuda_launch(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    size_t n_sets;
    const apo__call *pieces = apo__grid_shared_pieces(call, &n_sets);
    if (n_sets > APO_GRID_SHARE_MAX || call->kernel->scoring->user_fn != NULL)
        return SCORED_CUDA_INVALID;
    apo__scored_cuda_set sets[APO_GRID_SHARE_MAX];
    for (size_t j = 0; j < n_sets; j++)
        if (!resolve_set(&pieces[j], &sets[j]))
            return SCORED_CUDA_INVALID;
    apo__scored_cuda_rows rows;
    memset(&rows, 0, sizeof rows);
    for (size_t i = 0; i < sets[0].n_in; i++)
        rows.in[i] = chunk->in[i];
    for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
        rows.scores[k] = chunk->out[k];
    rows.set_stride = chunk->set_stride;
    rows.cols = call->cols;
    /* A scored call's tile is a whole series: tile g is row g. */
    rows.row0 = (size_t)chunk->first;
    rows.rows = (size_t)(chunk->end - chunk->first);
    /* A GPU's group may hold sets of several passes (worker_pool.c): where one starts. */
    unsigned char pass_starts[APO_GRID_SHARE_MAX];
    int mixed = 0;
    pass_starts[0] = 1;
    for (size_t j = 1; j < n_sets; j++) {
        pass_starts[j] =
            !call->kernel->shares_pass(call->kernel, pieces[j - 1].params, pieces[j].params);
        mixed |= pass_starts[j];
    }
    return mixed ? apo__cuda_scored_mixed(sets, n_sets, pass_starts, &rows, stream)
                 : apo__cuda_scored(sets, n_sets, &rows, stream);
}

const apo__cuda_impl apo__scored_cuda = {APO_SCORE_IX_COUNT, no_halo, 1,
                                         scored_cuda_launch, NULL,    0};
#else
const apo__cuda_impl apo__scored_cuda = {APO_SCORE_IX_COUNT, no_halo, 1, NULL, NULL, 0};
#endif
/* No launcher: a user's rule (its function is the host's), and the views of score_more.h,
 * whose finish takes a log and a power a GPU would round otherwise. GPUs take no share. */
const apo__cuda_impl apo__scored_host_only_cuda = {APO_SCORE_IX_COUNT, no_halo, 1, NULL, NULL, 0};

/*
 * The scored kernels' CUDA launch (scored_launch.h here; kernels/scores/scored_cuda.h the
 * launcher): a chunk of series of one set's call, each scored by one GPU thread from its
 * samples in GPU memory, only the scores coming back. The host resolves the set here, once
 * per chunk: the indicator's pass and tile, its halo and macd's warm-up (libm's log, which
 * the GPU might round otherwise), the set's rule, cost and sqrt(periods_per_year), so the GPU
 * runs the CPU's bodies on the CPU's numbers (docs/cuda.md, "Scored sweeps on a GPU").
 */
#include <math.h>
#include <string.h>

#include "catalog/call_span.h"
#include "catalog/catalog_kernels.h"
#include "catalog/grid.h"
#include "catalog/scored_kernels.h"
#include "catalog/scored_launch.h"
#include "scored_cuda.h"

/* The set of `call` as the launcher takes it; 0 when its indicator has no GPU pass (a
 * catalog family no built-in rule reads: the table of scored_kernels.c has none). */
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
    s->whole_row = apo__kernel_whole_row_input(ind);
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
        s->cat_family = (int)apo__catalog_family((apo__cat_id)cat);
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

int apo__scored_cuda_launch(const apo__call *call, const apo__cuda_chunk *chunk, void *stream) {
    /* A GPU is given one set's call at a time (its backend does not run shared pieces). */
    size_t n_sets;
    (void)apo__grid_shared_pieces(call, &n_sets);
    apo__scored_cuda_set set;
    if (n_sets != 1 || call->kernel->scoring->user_fn != NULL || !resolve_set(call, &set))
        return APO_SCORED_CUDA_INVALID;
    apo__scored_cuda_rows rows;
    memset(&rows, 0, sizeof rows);
    for (size_t i = 0; i < set.n_in; i++)
        rows.in[i] = chunk->in[i];
    for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
        rows.scores[k] = chunk->out[k];
    rows.cols = call->cols;
    /* A scored call's tile is a whole series: tile g is row g. */
    rows.row0 = (size_t)chunk->first;
    rows.rows = (size_t)(chunk->end - chunk->first);
    return apo__cuda_scored(&set, &rows, stream);
}

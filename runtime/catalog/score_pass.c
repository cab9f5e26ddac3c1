/* The pass of a scored kernel; see score_pass.h. */
#include <string.h>

#include "catalog/score_pass.h"

void apo__score_pass_of(const apo__kernel *indicator, size_t n_rule_params, apo__score_pass *pass) {
    pass->kind = APO_SCORE_PASS_TILE;
    pass->n_out = indicator->n_outputs;
    pass->applied = 0;
    for (size_t j = 0; j < n_rule_params; j++)
        pass->applied |= (uint64_t)1 << (indicator->n_params + j);
    if (strcmp(indicator->name, "bollinger") == 0) {
        /* period, nbdev_up, nbdev_dn: the widths are applied to the pass's mean and sd. */
        pass->kind = APO_SCORE_PASS_BOLLINGER_WIDTHS;
        pass->n_out = 2;
        pass->applied |= (uint64_t)1 << 1 | (uint64_t)1 << 2;
    }
}

int apo__score_pass_shared(const apo__score_pass *pass, size_t n_params, const double *a,
                           const double *b) {
    for (size_t i = 0; i < n_params; i++)
        /* Compared as bits: the parameters are values a tile computes with. */
        if (!(pass->applied >> i & 1) && memcmp(&a[i], &b[i], sizeof a[i]) != 0)
            return 0;
    return 1;
}

apo_status apo__score_pass_tile(const apo__score_pass *pass, const apo__call *view, size_t begin,
                                size_t end, double *const *out) {
    if (pass->kind == APO_SCORE_PASS_BOLLINGER_WIDTHS) {
        apo__cpu_bollinger_pass_tile(view->inputs[0], view->cols, begin, end,
                                     (size_t)view->params[0], out[1], out[0]);
        return APO_OK;
    }
    /* The indicator writes into `view`'s outputs, which the caller points at `out`. */
    return view->kernel->run_tile(view, 0, begin, end, NULL);
}

size_t apo__score_pass_group(const apo__score_pass *pass, apo__cpu_isa isa) {
    /* A lane per tile; the other passes run tile by tile. */
    return pass->kind == APO_SCORE_PASS_BOLLINGER_WIDTHS
               ? apo__cpu_isa_lanes(apo__cpu_isa_resolve(isa))
               : 1;
}

apo_status apo__score_pass_tiles(const apo__score_pass *pass, const apo__call *view,
                                 const apo__tile_span *tiles, size_t count, double *const *out,
                                 apo__cpu_isa isa) {
    if (pass->kind == APO_SCORE_PASS_BOLLINGER_WIDTHS && count > 1) {
        apo__cpu_bollinger_pass_tiles(view->inputs[0], 1, view->cols, tiles, count,
                                      (size_t)view->params[0], out[1], out[0], isa);
        return APO_OK;
    }
    for (size_t i = 0; i < count; i++) {
        const apo_status st = apo__score_pass_tile(pass, view, tiles[i].begin, tiles[i].end, out);
        if (st != APO_OK)
            return st;
    }
    return APO_OK;
}

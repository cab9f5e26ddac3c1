/* A call's grid of pieces; see grid.h. */
#include "catalog/grid.h"

#include <stdlib.h>

apo__grid *apo__grid_new(size_t n_pieces, size_t input_rows) {
    apo__grid *grid = calloc(1, sizeof *grid);
    if (grid == NULL)
        return NULL;
    grid->n_pieces = n_pieces;
    grid->pieces = calloc(n_pieces, sizeof *grid->pieces);
    grid->offset = calloc(n_pieces + 1, sizeof *grid->offset);
    grid->outputs = calloc(n_pieces, sizeof *grid->outputs);
    if (input_rows > 0)
        grid->row_inputs = calloc(input_rows, sizeof *grid->row_inputs);
    if (grid->pieces == NULL || grid->offset == NULL || grid->outputs == NULL ||
        (input_rows > 0 && grid->row_inputs == NULL)) {
        apo__grid_free(grid);
        return NULL;
    }
    return grid;
}

void apo__grid_free(apo__grid *grid) {
    if (grid == NULL)
        return;
    free(grid->pieces);
    free(grid->offset);
    free(grid->outputs);
    free(grid->row_inputs);
    free(grid);
}

int apo__grid_place(apo__grid *grid, size_t p) {
    const uint64_t at = grid->offset[p];
    const uint64_t tiles = grid->pieces[p].tiles;
    if (tiles > UINT64_MAX - at)
        return 0;
    grid->offset[p + 1] = at + tiles;
    return 1;
}

size_t apo__grid_pieces(const apo__call *call) {
    return call->grid != NULL ? call->grid->n_pieces : 1;
}

const apo__call *apo__grid_piece(const apo__call *call, size_t p) {
    return call->grid != NULL ? &call->grid->pieces[p] : call;
}

uint64_t apo__grid_piece_first_tile(const apo__call *call, size_t p) {
    if (call->grid == NULL)
        return p == 0 ? 0 : call->tiles;
    return call->grid->offset[p];
}

size_t apo__grid_piece_of(const apo__call *call, uint64_t g) {
    const apo__grid *grid = call->grid;
    if (grid == NULL)
        return 0;
    /* The last piece whose first tile is at or before g. */
    size_t lo = 0, hi = grid->n_pieces;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (grid->offset[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Every piece has as many rows as the first: a set's piece the call's rows, a ragged
 * row's piece one. */
static size_t piece_rows(const apo__call *call) {
    return call->grid != NULL ? call->grid->pieces[0].rows : call->rows;
}

uint64_t apo__grid_rows(const apo__call *call) {
    return (uint64_t)apo__grid_pieces(call) * piece_rows(call);
}

uint64_t apo__grid_row_first_tile(const apo__call *call, uint64_t u) {
    const apo__grid *grid = call->grid;
    if (grid == NULL)
        return u * call->tiles_per_row;
    const size_t rows = piece_rows(call);
    const uint64_t p = u / rows;
    if (p >= grid->n_pieces)
        return grid->offset[grid->n_pieces];
    return grid->offset[p] + (u % rows) * grid->pieces[p].tiles_per_row;
}

size_t apo__grid_sets_run(const apo__call *call) {
    return call->grid != NULL ? call->grid->n_sets : 1;
}

size_t apo__grid_first_set(const apo__call *call) {
    return call->grid != NULL ? call->grid->first_set : 0;
}

size_t apo__grid_sweep_sets(const apo__call *call) {
    return call->grid != NULL ? call->grid->total_sets : 1;
}

int apo__grid_ragged(const apo__call *call) { return call->grid != NULL && call->grid->ragged; }

void apo__grid_iter_init(apo__grid_iter *it, const apo__call *call, uint64_t first, uint64_t end) {
    it->call = call;
    it->at = first;
    it->end = end;
    it->piece = first < end ? apo__grid_piece_of(call, first) : 0;
}

int apo__grid_iter_next(apo__grid_iter *it, apo__grid_run *run) {
    if (it->at >= it->end)
        return 0;
    /* Pieces without tiles hold none of the range: each run yielded is not empty. */
    size_t p = it->piece;
    uint64_t piece_end = apo__grid_piece_first_tile(it->call, p + 1);
    while (piece_end <= it->at)
        piece_end = apo__grid_piece_first_tile(it->call, ++p + 1);
    const uint64_t piece_first = apo__grid_piece_first_tile(it->call, p);
    const uint64_t stop = it->end < piece_end ? it->end : piece_end;
    run->piece = p;
    run->call = apo__grid_piece(it->call, p);
    run->first = it->at - piece_first;
    run->end = stop - piece_first;
    run->at = it->at;
    it->at = stop;
    it->piece = p + 1;
    return 1;
}

/* Whether `run`, met after `prev`, can join a group whose first piece is `first`: whole, next
 * to prev, of as many tiles. */
static int joins(const apo__grid_run *first, const apo__grid_run *prev, const apo__grid_run *run) {
    return run->first == 0 && run->end == run->call->tiles && run->piece == prev->piece + 1 &&
           run->call->tiles == first->call->tiles;
}

/* The pieces from `run` on (the walk `it` after it) that share its pass and could join a
 * group after it, counted up to limit + 1. */
static size_t pass_run(const apo__kernel *k, apo__grid_iter it, const apo__grid_run *run,
                       size_t limit) {
    size_t m = 1;
    apo__grid_run prev = *run, next;
    while (m <= limit && apo__grid_iter_next(&it, &next) && joins(run, &prev, &next) &&
           k->shares_pass(k, run->call->params, next.call->params)) {
        prev = next;
        m++;
    }
    return m;
}

size_t apo__grid_share(const apo__call *call, uint64_t a, uint64_t b, size_t max_pieces,
                       int any_pass, apo__call *group, uint64_t *group_end) {
    const apo__kernel *k = call->kernel;
    if (k->shares_pass == NULL || call->grid == NULL || call->grid->ragged)
        return 0;
    /* The pieces met from a, as long as each is whole, next to the last, and shares the pass
     * of the pieces before it: with any_pass whatever its pass; where the kernel runs sets of
     * other passes as one host call (apo__kernel.shares_host_call), a new pass joins when all
     * of its pieces do, so that no pass is computed in two groups that one would hold. */
    size_t n = 0;
    apo__grid_iter it;
    apo__grid_run run, first = {0}, prev = {0}, pass_first = {0};
    uint64_t end = a;
    apo__grid_iter_init(&it, call, a, b);
    while (n < max_pieces && apo__grid_iter_next(&it, &run)) {
        if (n == 0) {
            if (run.first != 0 || run.end != run.call->tiles)
                break;
            first = pass_first = run;
        } else if (!joins(&first, &prev, &run)) {
            break;
        } else if (!any_pass && !k->shares_pass(k, pass_first.call->params, run.call->params)) {
            if (k->shares_host_call == NULL ||
                !k->shares_host_call(k, first.call->params, run.call->params) ||
                pass_run(k, it, &run, max_pieces - n) > max_pieces - n)
                break;
            pass_first = run;
        }
        prev = run;
        end = run.at + run.call->tiles;
        n++;
    }
    if (n > 1) {
        *group = *first.call;
        group->shared = first.call;
        group->n_shared = n;
        *group_end = end;
    }
    return n;
}

const apo__call *apo__grid_shared_pieces(const apo__call *call, size_t *n) {
    *n = call->n_shared > 1 ? call->n_shared : 1;
    return call->n_shared > 1 ? call->shared : call;
}

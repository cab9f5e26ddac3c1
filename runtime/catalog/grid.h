/*
 * A call's grid: the pieces its tiles belong to, and one iterator over them. A sweep
 * (apo_workload.sweep) or a ragged call (apo_workload.row_lengths) is a call of calls: each
 * piece is exactly the call that set (that set and row) would make alone, and the call's
 * tiles are the pieces' tiles laid end to end. A call without either is a grid of one
 * piece, the call itself, so that nothing that walks tiles needs a case of its own.
 *
 * The grid's shape (pieces, their parameters, tile counts and offsets) is fixed once core/
 * has built it (core/sweep.c); binding the call's arrays afterwards only points each
 * piece at its part of them. Every walk over pieces (spans, plans, partial trees,
 * non-finite counts, ragged tails, the devices' tasks and the scores' shared passes) goes
 * through the queries and the iterator here: nothing else reads the offsets or bisects.
 */
#ifndef APO_RUNTIME_CATALOG_GRID_H
#define APO_RUNTIME_CATALOG_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/kernel.h"

/* The pieces a sweep or ragged call runs: without ragged rows, one per set run (set
 * first_set + s alone: its parameters, grid, its part of the outputs, partials and counts);
 * with them, one per set run and row, set-major (piece s * rows + r is row r's series
 * alone, of its own length, with set first_set + s). */
struct apo__grid {
    size_t n_pieces;   /* n_sets, times rows when ragged */
    size_t n_sets;     /* sets run (1 without a sweep) */
    size_t first_set;  /* the sweep's index of the first set run */
    size_t total_sets; /* sets in the sweep (1 without a sweep) */
    int ragged;        /* one piece per row (apo_workload.row_lengths) */
    apo__call *pieces; /* n_pieces calls */
    /* n_pieces + 1 tile offsets: piece p holds the call's tiles [offset[p], offset[p + 1]).
     * Read through the queries below only. */
    uint64_t *offset;
    /* Storage the pieces' calls point into once bound (core/sweep.c): n_pieces arrays of
     * output pointers, and for ragged rows one array of input pointers per row. */
    double *(*outputs)[APO_MAX_IO];
    const double *(*row_inputs)[APO_MAX_IO];
};

/* A grid of n_pieces zeroed pieces, with room for `input_rows` rows of input pointers (0:
 * none); NULL without memory. */
apo__grid *apo__grid_new(size_t n_pieces, size_t input_rows);
void apo__grid_free(apo__grid *grid);
/* Lays piece p (its call's grid resolved) after piece p - 1; pieces are placed in order.
 * Returns 0 when the tiles so far overflow 64 bits. */
int apo__grid_place(apo__grid *grid, size_t p);

/* Queries on a call's grid (one piece, the call itself, without a sweep or ragged rows). */
size_t apo__grid_pieces(const apo__call *call);
const apo__call *apo__grid_piece(const apo__call *call, size_t p);
/* The call's tile where piece p starts; p = apo__grid_pieces(call) gives all the tiles. */
uint64_t apo__grid_piece_first_tile(const apo__call *call, size_t p);
/* The piece holding the call's tile g (g < tiles). */
size_t apo__grid_piece_of(const apo__call *call, uint64_t g);
/* Output rows of the whole grid: every piece's rows, piece after piece. */
uint64_t apo__grid_rows(const apo__call *call);
/* The call's tile where grid row u starts (u <= apo__grid_rows(call); the last gives all
 * the tiles). */
uint64_t apo__grid_row_first_tile(const apo__call *call, uint64_t u);
/* The sweep's sets: run, index of the first run, in all; 1, 0, 1 without a sweep. */
size_t apo__grid_sets_run(const apo__call *call);
size_t apo__grid_first_set(const apo__call *call);
size_t apo__grid_sweep_sets(const apo__call *call);
/* Whether the pieces are ragged rows. */
int apo__grid_ragged(const apo__call *call);

/* Pieces grouped into one call at most (apo__grid_share's max_pieces): bounds the running
 * state of the scores a tile keeps for every set of its group, on a CPU and on a GPU. */
#define APO_GRID_SHARE_MAX 64

/* Groups tiles [a, b) of a sweep start with, when they can run as one call: two to
 * max_pieces consecutive pieces, each wholly inside [a, b), of as many tiles, of a kernel that
 * groups at all (apo__kernel.shares_pass set), and which that kernel says share a pass, or
 * with `any_pass` whatever their passes (a GPU's group, which launches every pass at once:
 * devices/device.h, APO_RUNS_SHARED_SETS), or, where the kernel runs sets of other passes as
 * one host call (apo__kernel.shares_host_call), a run of pieces of another pass that fits in
 * the group whole (what the range holds of it). A piece cut by the range's edges runs alone: its
 * rows are not the others'. Returns the pieces grouped; when 2 or more, *group is the first
 * piece's call made the group's (apo__call.shared) and *group_end the call's tile after the
 * last. */
size_t apo__grid_share(const apo__call *call, uint64_t a, uint64_t b, size_t max_pieces,
                       int any_pass, apo__call *group, uint64_t *group_end);
/* The calls one tile of `call` computes, *n of them: the pieces of its group (made by
 * apo__grid_share), or the call alone. */
const apo__call *apo__grid_shared_pieces(const apo__call *call, size_t *n);

/* What the iterator yields: a piece met by a range of the call's tiles, and the part of
 * the range inside it, [first, end) in the piece's own grid, starting at the call's tile
 * `at`. */
typedef struct apo__grid_run {
    size_t piece;
    const apo__call *call;
    uint64_t first, end;
    uint64_t at;
} apo__grid_run;

/* Walks the pieces a range of tiles meets, in order. Kept on the stack: init bisects once,
 * each step reads one offset. */
typedef struct apo__grid_iter {
    const apo__call *call;
    size_t piece;
    uint64_t at, end;
} apo__grid_iter;

/* Starts a walk over the call's tiles [first, end) (end <= tiles). */
void apo__grid_iter_init(apo__grid_iter *it, const apo__call *call, uint64_t first, uint64_t end);
/* Fills *run with the next piece met and returns 1, or returns 0 when the range is done. */
int apo__grid_iter_next(apo__grid_iter *it, apo__grid_run *run);

#endif

/*
 * A call's grid of pieces (runtime/catalog/grid.c): for random sweeps and ragged shapes, the
 * pieces the iterator yields for random tile ranges must cover exactly the range, in order,
 * each local range inside its piece, and the row and piece queries must agree. The reference
 * walks the range tile by tile, finding each tile's piece by a linear scan of tile counts
 * the test adds up itself. The grouping of pieces that share a pass is checked the same
 * way. Pure C: no runtime, no kernel runs.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "catalog/call_span.h"
#include "catalog/grid.h"

#define MAX_PIECES 64

/* A small deterministic generator, so a failure names a case that can be re-run. */
static uint64_t next_random(uint64_t *state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* A call of n_sets sets (ragged: each with `rows` pieces of one row, else one piece of
 * `rows` rows), with random tiles per row, some pieces without tiles. Fills cum[p] with the
 * tiles before piece p, added up here. */
static apo__call make_grid_call(uint64_t *rng, size_t n_sets, size_t rows, int ragged,
                                uint64_t *cum) {
    apo__call call;
    memset(&call, 0, sizeof call);
    call.rows = rows;
    const size_t n = ragged ? n_sets * rows : n_sets;
    apo__grid *grid = apo__grid_new(n, ragged ? rows : 0);
    cr_assert_not_null(grid);
    grid->n_sets = n_sets;
    grid->total_sets = n_sets + 2;
    grid->first_set = 1;
    grid->ragged = ragged;
    cum[0] = 0;
    for (size_t p = 0; p < n; p++) {
        apo__call *piece = &grid->pieces[p];
        piece->rows = ragged ? 1 : rows;
        /* One piece in eight has no tiles: the iterator must step over it. */
        piece->tiles_per_row = next_random(rng) % 8 == 0 ? 0 : 1 + next_random(rng) % 5;
        piece->tiles = (uint64_t)piece->rows * piece->tiles_per_row;
        cr_assert(apo__grid_place(grid, p));
        cum[p + 1] = cum[p] + piece->tiles;
    }
    call.grid = grid;
    call.tiles = cum[n];
    return call;
}

/* The piece holding tile g, by a scan from the first piece. */
static size_t naive_piece_of(const uint64_t *cum, size_t n, uint64_t g) {
    for (size_t p = 0; p < n; p++)
        if (cum[p] <= g && g < cum[p + 1])
            return p;
    cr_assert_fail("tile %llu is in no piece", (unsigned long long)g);
    return n;
}

/* Checks the iterator's runs over [first, end) against the tile-by-tile walk. */
static void check_range(const apo__call *call, const uint64_t *cum, uint64_t first, uint64_t end) {
    const size_t n = apo__grid_pieces(call);
    apo__grid_iter it;
    apo__grid_run run;
    apo__grid_iter_init(&it, call, first, end);
    uint64_t g = first; /* the next tile the walk expects */
    while (apo__grid_iter_next(&it, &run)) {
        cr_assert(g < end, "[%llu, %llu): a run past the range", (unsigned long long)first,
                  (unsigned long long)end);
        const size_t p = naive_piece_of(cum, n, g);
        cr_assert_eq(run.piece, p, "[%llu, %llu): tile %llu in piece %zu, not %zu",
                     (unsigned long long)first, (unsigned long long)end, (unsigned long long)g,
                     run.piece, p);
        cr_assert_eq(run.call, apo__grid_piece(call, p));
        cr_assert_eq(run.at, g);
        cr_assert_eq(run.first, g - cum[p]);
        cr_assert(run.first < run.end && run.end <= run.call->tiles,
                  "run [%llu, %llu) of piece %zu of %llu tiles", (unsigned long long)run.first,
                  (unsigned long long)run.end, p, (unsigned long long)run.call->tiles);
        /* The run takes every following tile of the range in the same piece, and no more. */
        uint64_t stop = g;
        while (stop < end && naive_piece_of(cum, n, stop) == p)
            stop++;
        cr_assert_eq(run.end - run.first, stop - g, "run of piece %zu ends at %llu, not %llu", p,
                     (unsigned long long)(g + run.end - run.first), (unsigned long long)stop);
        g = stop;
    }
    cr_assert_eq(g, end, "[%llu, %llu): covered to %llu only", (unsigned long long)first,
                 (unsigned long long)end, (unsigned long long)g);
    cr_assert(!apo__grid_iter_next(&it, &run), "a walk that is done stays done");
}

/* The rows of the grid, piece after piece, against their first tiles added up here. */
static void check_rows(const apo__call *call, const uint64_t *cum) {
    const size_t n = apo__grid_pieces(call);
    uint64_t u = 0;
    for (size_t p = 0; p < n; p++) {
        const apo__call *piece = apo__grid_piece(call, p);
        cr_assert_eq(apo__grid_piece_first_tile(call, p), cum[p]);
        for (size_t r = 0; r < piece->rows; r++, u++)
            cr_assert_eq(apo__grid_row_first_tile(call, u), cum[p] + r * piece->tiles_per_row,
                         "row %llu", (unsigned long long)u);
    }
    cr_assert_eq(apo__grid_rows(call), u);
    cr_assert_eq(apo__grid_row_first_tile(call, u), call->tiles, "the row after the last");
    cr_assert_eq(apo__grid_piece_first_tile(call, n), call->tiles);
    for (uint64_t g = 0; g < call->tiles; g++)
        cr_assert_eq(apo__grid_piece_of(call, g), naive_piece_of(cum, n, g));
}

Test(grid, random_sweeps_and_ragged_rows) {
    uint64_t rng = 31;
    uint64_t cum[MAX_PIECES + 1];
    for (int shape = 0; shape < 200; shape++) {
        const int ragged = shape % 2;
        const size_t n_sets = 1 + next_random(&rng) % (ragged ? 4 : 12);
        const size_t rows = 1 + next_random(&rng) % (ragged ? 8 : 4);
        apo__call call = make_grid_call(&rng, n_sets, rows, ragged, cum);
        cr_assert_eq(apo__grid_pieces(&call), ragged ? n_sets * rows : n_sets);
        cr_assert_eq(apo__grid_sets_run(&call), n_sets);
        cr_assert_eq(apo__grid_ragged(&call), ragged);
        check_rows(&call, cum);
        for (int range = 0; range < 40 && call.tiles > 0; range++) {
            uint64_t a = next_random(&rng) % (call.tiles + 1);
            uint64_t b = next_random(&rng) % (call.tiles + 1);
            check_range(&call, cum, a < b ? a : b, a < b ? b : a);
        }
        check_range(&call, cum, 0, call.tiles);
        apo__grid_free(call.grid);
    }
}

/* A stand-in for a kernel's pass test: sets share a pass when their first parameter is the
 * same. */
static int same_first_param(const apo__kernel *k, const double *a, const double *b) {
    (void)k;
    return a[0] == b[0];
}

/* A stand-in for a kernel's test of sets that run as one host call though their passes
 * differ: their second parameters are the same. */
static int same_second_param(const apo__kernel *k, const double *a, const double *b) {
    (void)k;
    return a[1] == b[1];
}

/* The pieces apo__grid_share must group from tile a within [a, b): the piece starting at a,
 * whole in the range, then each next piece while it is whole, of as many tiles, and shares
 * the pass of the pieces before it (with any_pass, whatever its pass; with a kernel's
 * shares_host_call, another pass whose pieces, whole in the range and of as many tiles, all
 * fit in the group). Found by a scan of the tile counts. */
static size_t naive_share(const apo__call *call, const uint64_t *cum, uint64_t a, uint64_t b,
                          size_t max_pieces, int any_pass, size_t *first) {
    const size_t n = apo__grid_pieces(call);
    size_t p = naive_piece_of(cum, n, a);
    *first = p;
    if (cum[p] != a || cum[p + 1] > b)
        return 0;
    const apo__call *lead = apo__grid_piece(call, p), *pass_lead = lead;
    const int host = call->kernel->shares_host_call != NULL;
    size_t count = 1;
    for (size_t q = p + 1; q < n && count < max_pieces && cum[q + 1] <= b; q++, count++) {
        const apo__call *next = apo__grid_piece(call, q);
        if (next->tiles != lead->tiles)
            break;
        if (any_pass || next->params[0] == pass_lead->params[0])
            continue;
        if (!host || next->params[1] != lead->params[1])
            break;
        size_t run = 1;
        while (q + run < n && cum[q + run + 1] <= b &&
               apo__grid_piece(call, q + run)->tiles == lead->tiles &&
               apo__grid_piece(call, q + run)->params[0] == next->params[0])
            run++;
        if (run > max_pieces - count)
            break;
        pass_lead = next;
    }
    return count;
}

Test(grid, pieces_that_share_a_pass_or_any_pieces_are_grouped_from_the_range_start) {
    apo__kernel k;
    memset(&k, 0, sizeof k);
    k.shares_pass = same_first_param;
    uint64_t rng = 7;
    uint64_t cum[MAX_PIECES + 1];
    for (int shape = 0; shape < 400; shape++) {
        /* Half the shapes on a kernel that runs sets of other passes as one host call. */
        k.shares_host_call = shape % 2 ? same_second_param : NULL;
        const size_t n_sets = 1 + next_random(&rng) % 12;
        apo__call call = make_grid_call(&rng, n_sets, 1 + next_random(&rng) % 3, 0, cum);
        call.kernel = &k;
        for (size_t p = 0; p < n_sets; p++) {
            apo__call *piece = &call.grid->pieces[p];
            piece->kernel = &k;
            piece->params[0] = (double)(next_random(&rng) % 4 == 0);
            piece->params[1] = (double)(next_random(&rng) % 8 == 0);
            /* Mostly as many tiles as the first piece, so that groups form. */
            if (p > 0 && next_random(&rng) % 4 != 0 && piece->tiles_per_row > 0) {
                piece->tiles_per_row = call.grid->pieces[0].tiles_per_row;
                piece->tiles = (uint64_t)piece->rows * piece->tiles_per_row;
            }
        }
        /* The tiles changed: lay the pieces out again. */
        for (size_t p = 0; p < n_sets; p++) {
            cr_assert(apo__grid_place(call.grid, p));
            cum[p + 1] = cum[p] + call.grid->pieces[p].tiles;
        }
        call.tiles = cum[n_sets];
        for (int range = 0; range < 40 && call.tiles > 0; range++) {
            const size_t max_pieces = 2 + next_random(&rng) % 4;
            /* Ranges from a piece's first tile mostly, where groups can start. */
            uint64_t a = next_random(&rng) % call.tiles;
            if (next_random(&rng) % 4 != 0)
                a = cum[naive_piece_of(cum, n_sets, a)];
            const uint64_t b = a + 1 + next_random(&rng) % (call.tiles - a);
            for (int any_pass = 0; any_pass < 2; any_pass++) {
                size_t first;
                const size_t want = naive_share(&call, cum, a, b, max_pieces, any_pass, &first);
                apo__call group;
                memset(&group, 0, sizeof group);
                uint64_t group_end = 0;
                const size_t got =
                    apo__grid_share(&call, a, b, max_pieces, any_pass, &group, &group_end);
                cr_assert_eq(got, want, "[%llu, %llu)%s: %zu pieces grouped, not %zu",
                             (unsigned long long)a, (unsigned long long)b,
                             any_pass ? " (any pass)" : "", got, want);
                if (want > 1) {
                    cr_assert_eq(group.shared, apo__grid_piece(&call, first));
                    cr_assert_eq(group.n_shared, want);
                    cr_assert_eq(group.tiles, apo__grid_piece(&call, first)->tiles);
                    cr_assert_eq(group_end, cum[first + want]);
                    size_t n_back;
                    cr_assert_eq(apo__grid_shared_pieces(&group, &n_back), group.shared);
                    cr_assert_eq(n_back, want);
                }
            }
        }
        apo__grid_free(call.grid);
    }
}

Test(grid, a_call_without_pieces_is_one) {
    apo__call call;
    memset(&call, 0, sizeof call);
    call.rows = 3;
    call.tiles_per_row = 4;
    call.tiles = 12;
    const uint64_t cum[2] = {0, 12};
    cr_assert_eq(apo__grid_pieces(&call), 1);
    cr_assert_eq(apo__grid_piece(&call, 0), &call, "the piece is the call itself");
    cr_assert_eq(apo__grid_sets_run(&call), 1);
    cr_assert_eq(apo__grid_first_set(&call), 0);
    cr_assert_eq(apo__grid_sweep_sets(&call), 1);
    cr_assert(!apo__grid_ragged(&call));
    check_rows(&call, cum);
    size_t n_back;
    cr_assert_eq(apo__grid_shared_pieces(&call, &n_back), &call, "a call alone computes itself");
    cr_assert_eq(n_back, 1);
    for (uint64_t a = 0; a <= 12; a++)
        for (uint64_t b = a; b <= 12; b++)
            check_range(&call, cum, a, b);
}

/* The elements of a run of tiles of a call of one piece (catalog/call_span.h), against the
 * tiles' lengths added up here: every tile of a row is `tile` positions but the last, which
 * holds what is left of the row, and each position is unit_work elements. The whole call,
 * which a one-device call asks about, is counted without the divisions that place a range's
 * ends in their rows; every range, the whole one included, must give the same sum. */
Test(grid, a_call_counts_its_elements_whole_and_by_ranges) {
    uint64_t rng = 99;
    for (int trial = 0; trial < 300; trial++) {
        apo__call call;
        memset(&call, 0, sizeof call);
        call.rows = 1 + next_random(&rng) % 4;
        call.axis_len = 1 + next_random(&rng) % 60;
        call.tile = 1 + next_random(&rng) % (call.axis_len + 3);
        call.tiles_per_row = (call.axis_len + call.tile - 1) / call.tile;
        call.tiles = (uint64_t)call.rows * call.tiles_per_row;
        call.unit_work = 1 + next_random(&rng) % 3;
        uint64_t per_tile[4 * 64];
        for (uint64_t g = 0; g < call.tiles; g++) {
            const size_t start = (size_t)(g % call.tiles_per_row) * call.tile;
            const size_t len =
                call.axis_len - start < call.tile ? call.axis_len - start : call.tile;
            per_tile[g] = (uint64_t)len * call.unit_work;
        }
        cr_assert_eq(apo__tiles_elements(&call, 0, call.tiles),
                     (uint64_t)call.rows * call.axis_len * call.unit_work,
                     "trial %d: the whole call of %zu x %zu in tiles of %zu", trial, call.rows,
                     call.axis_len, call.tile);
        for (uint64_t a = 0; a <= call.tiles; a++)
            for (uint64_t b = a; b <= call.tiles; b++) {
                uint64_t want = 0;
                for (uint64_t g = a; g < b; g++)
                    want += per_tile[g];
                cr_assert_eq(apo__tiles_elements(&call, a, b), want,
                             "trial %d: tiles [%llu, %llu) of %zu x %zu in tiles of %zu", trial,
                             (unsigned long long)a, (unsigned long long)b, call.rows, call.axis_len,
                             call.tile);
            }
    }
}

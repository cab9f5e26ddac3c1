/*
 * test_cuda_plan.c: what the CUDA pipeline decides without CUDA (runtime/devices/cuda/
 * pipeline_plan.h, pin_table.h), tested on any machine: chunks of whole waves of tiles
 * over the SMs, the slot schedule
 * driven through a recorder in place of the GPU (at least three chunks in flight while the
 * host finishes one), host copies spread over threads, the overlap of intervals, the host
 * threads GPUs take beside the cpu device, and the table of pinned host ranges.
 *
 * The expectations are written from the definitions in docs/cuda.md, not from the code: a
 * byte map for the copies, a brute-force timeline for the union of intervals, a replay of
 * the schedule's events for the slots.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devices/cuda/pin_table.h"
#include "devices/cuda/pipeline_plan.h"

/* ---- chunks by tiles per SM -------------------------------------------------------------- */

Test(cuda_plan, a_wave_is_a_warp_of_tiles_on_every_sm) {
    /* An H100: 132 SMs, 32 tiles (one warp) each. */
    cr_assert_eq(apo__gpu_wave_tiles(132), 132u * 32u);
    cr_assert_eq(apo__gpu_wave_tiles(1), 32u);
    /* A GPU that reported no SMs still counts as one. */
    cr_assert_eq(apo__gpu_wave_tiles(0), 32u);
}

Test(cuda_plan, chunks_hold_whole_waves_and_enough_of_them_fill_the_slots) {
    const uint64_t wave = 132 * 32; /* 4,224 tiles on an H100 */
    /* Many waves: an eighth of the task, rounded down to whole waves. 100 waves / 8 = 12.5,
     * so 12 waves per chunk, and the task is 9 chunks (8 of 12 waves and one of 4). */
    cr_assert_eq(apo__chunk_tiles(100 * wave, 132, 1), 12 * wave);
    /* Exactly 8 waves: one wave per chunk, 8 chunks. */
    cr_assert_eq(apo__chunk_tiles(8 * wave, 132, 1), wave);
    /* 1e8 samples of bollinger, 24,415 tiles: an eighth (3,052) is less than a wave, so one
     * wave per chunk, 6 chunks (the slot's bytes may cut them further). */
    cr_assert_eq(apo__chunk_tiles(24415, 132, 1), wave);
    /* Less than a wave: the whole task in one chunk. */
    cr_assert_eq(apo__chunk_tiles(6104 / 2, 132, 1), 3052u);
    cr_assert_eq(apo__chunk_tiles(1, 132, 1), 1u);
    /* A smaller GPU has smaller waves: 16 SMs, 512 tiles; 10,000 / 8 = 1,250 -> 2 waves. */
    cr_assert_eq(apo__chunk_tiles(10000, 16, 1), 2u * 512u);
    /* Nothing staged (arrays read and written in place): one launch whatever the size. */
    cr_assert_eq(apo__chunk_tiles(100 * wave, 132, 0), 100 * wave);
    cr_assert_geq(APO_CUDA_SLOTS - 1, 3, "fewer than three chunks in flight per direction");
}

Test(cuda_plan, chunk_sizes_are_whole_waves_for_every_task_size) {
    /* Against the definition, over sizes around the wave boundaries: every chunk but the
     * last holds whole waves, at least one; a task of fewer than APO_CUDA_MIN_CHUNKS waves
     * is cut into one chunk per wave (part of one for the last), a larger one into at least
     * APO_CUDA_MIN_CHUNKS and at most twice that. */
    const int sms_list[] = {1, 7, 132};
    for (size_t si = 0; si < sizeof sms_list / sizeof sms_list[0]; si++) {
        const uint64_t wave = 32 * (uint64_t)sms_list[si];
        for (uint64_t task = 1; task < 20 * wave; task += task < 3 * wave ? 1 : 37) {
            const uint64_t per = apo__chunk_tiles(task, sms_list[si], 1);
            const uint64_t chunks = (task + per - 1) / per;
            cr_assert_leq(per, task);
            if (per < task)
                cr_assert_eq(per % wave, 0, "task %llu: %llu tiles per chunk",
                             (unsigned long long)task, (unsigned long long)per);
            else
                cr_assert_leq(task, wave, "task %llu in one chunk", (unsigned long long)task);
            if (task < APO_CUDA_MIN_CHUNKS * wave) {
                cr_assert_eq(chunks, (task + wave - 1) / wave, "task %llu: %llu chunks",
                             (unsigned long long)task, (unsigned long long)chunks);
            } else {
                cr_assert_geq(chunks, APO_CUDA_MIN_CHUNKS, "task %llu: %llu chunks",
                              (unsigned long long)task, (unsigned long long)chunks);
                cr_assert_leq(chunks, 2 * APO_CUDA_MIN_CHUNKS, "task %llu: %llu chunks",
                              (unsigned long long)task, (unsigned long long)chunks);
            }
        }
    }
}

/* ---- the slot schedule, driven by a recorder ---------------------------------------------- */

enum { MAX_EVENTS = 4096 };

typedef struct recorder {
    size_t tile_doubles; /* every tile occupies this many doubles of a slot */
    size_t huge_tile;    /* this tile occupies huge_doubles instead (SIZE_MAX: none) */
    size_t huge_doubles;
    long fail_issue_at;  /* the issue call (counted from 0) that fails, -1: none */
    long fail_finish_at; /* likewise for finish */
    long stop_after;     /* stop() says so once this many chunks were issued, -1: never */
    /* What happened */
    long issues, finishes;
    int busy[APO_CUDA_SLOTS];
    long chunk_in[APO_CUDA_SLOTS]; /* which chunk each slot holds */
    uint64_t chunk_first[MAX_EVENTS], chunk_end[MAX_EVENTS];
    long finished_order[MAX_EVENTS];
    long in_flight_at_finish[MAX_EVENTS]; /* other chunks in flight when one is finished */
    size_t max_chunk_doubles;
    int reissued_busy_slot;
} recorder;

static size_t doubles_of(const recorder *r, uint64_t first, uint64_t end) {
    size_t d = 0;
    for (uint64_t t = first; t < end; t++)
        d += t == r->huge_tile ? r->huge_doubles : r->tile_doubles;
    return d;
}

static uint64_t rec_chunk_end(void *ctx, uint64_t first, uint64_t end, size_t cap) {
    const recorder *r = ctx;
    uint64_t stop = first;
    while (stop < end && doubles_of(r, first, stop + 1) <= cap)
        stop++;
    return stop == first ? 0 : stop;
}

static int in_flight(const recorder *r) {
    int n = 0;
    for (int s = 0; s < APO_CUDA_SLOTS; s++)
        n += r->busy[s];
    return n;
}

static int rec_issue(void *ctx, unsigned slot, uint64_t first, uint64_t end) {
    recorder *r = ctx;
    cr_assert_lt(slot, APO_CUDA_SLOTS);
    if (r->issues == r->fail_issue_at)
        return 0;
    if (r->busy[slot])
        r->reissued_busy_slot = 1;
    cr_assert_lt(r->issues, MAX_EVENTS);
    r->chunk_first[r->issues] = first;
    r->chunk_end[r->issues] = end;
    const size_t d = doubles_of(r, first, end);
    r->max_chunk_doubles = d > r->max_chunk_doubles ? d : r->max_chunk_doubles;
    r->busy[slot] = 1;
    r->chunk_in[slot] = r->issues++;
    return 1;
}

static int rec_finish(void *ctx, unsigned slot) {
    recorder *r = ctx;
    cr_assert(r->busy[slot], "finish of slot %u, which holds no chunk", slot);
    if (r->finishes == r->fail_finish_at)
        return 0;
    r->busy[slot] = 0;
    r->finished_order[r->finishes] = r->chunk_in[slot];
    r->in_flight_at_finish[r->finishes] = in_flight(r);
    r->finishes++;
    return 1;
}

static int rec_stop(void *ctx) {
    const recorder *r = ctx;
    return r->stop_after >= 0 && r->issues >= r->stop_after;
}

static const apo__pipeline_ops rec_ops = {rec_chunk_end, rec_issue, rec_finish, rec_stop};

static recorder *new_recorder(size_t tile_doubles) {
    recorder *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    r->tile_doubles = tile_doubles;
    r->huge_tile = SIZE_MAX;
    r->fail_issue_at = r->fail_finish_at = r->stop_after = -1;
    return r;
}

Test(cuda_plan, the_schedule_keeps_three_chunks_in_flight_while_the_host_finishes_one) {
    const uint64_t first = 5, end = 5 + 1000;
    const size_t tile = 1000, slot = 64 * tile;
    recorder *r = new_recorder(tile);
    /* A GPU of 3 SMs: waves of 96 tiles, chunks of one wave (1,000 / 8 = 125 tiles, rounded
     * down), more than the slot's 64 tiles' worth: the slot cuts them to 64 tiles. */
    const uint64_t per = apo__chunk_tiles(end - first, 3, 1);
    cr_assert_eq(per, 96u);
    uint64_t stuck = 0;
    cr_assert_eq(apo__pipeline_drive(&rec_ops, r, first, end, per, slot, APO_CUDA_SLOTS, &stuck),
                 APO_PIPE_DONE);
    /* The chunks tile [first, end) in order, each within the cap. */
    cr_assert_geq(r->issues, APO_CUDA_MIN_CHUNKS, "%ld chunks", r->issues);
    uint64_t next = first;
    for (long c = 0; c < r->issues; c++) {
        cr_assert_eq(r->chunk_first[c], next, "chunk %ld", c);
        cr_assert_gt(r->chunk_end[c], r->chunk_first[c]);
        next = r->chunk_end[c];
    }
    cr_assert_eq(next, end);
    cr_assert_leq(r->max_chunk_doubles, slot);
    cr_assert_eq(r->max_chunk_doubles, slot, "the slot's bytes, not the tile count, cut them");
    cr_assert(!r->reissued_busy_slot, "a slot took a chunk before its previous one finished");
    /* Every chunk finished once, oldest first. */
    cr_assert_eq(r->finishes, r->issues);
    for (long f = 0; f < r->finishes; f++)
        cr_assert_eq(r->finished_order[f], f, "finish %ld took chunk %ld", f, r->finished_order[f]);
    /* While chunks remain to be issued, finishing one leaves APO_CUDA_SLOTS - 1 (at least
     * three) in flight; in the final drain the count falls by one each time. */
    const long steady = r->issues - APO_CUDA_SLOTS;
    for (long f = 0; f < r->finishes; f++) {
        const long want = f < steady ? APO_CUDA_SLOTS - 1 : r->issues - f - 1;
        cr_assert_eq(r->in_flight_at_finish[f], want, "finish %ld: %ld in flight, want %ld", f,
                     r->in_flight_at_finish[f], want);
        if (f < steady)
            cr_assert_geq(r->in_flight_at_finish[f], 3);
    }
    free(r);
}

/* A recorder of tiles of 10 doubles but tile `huge` (of `doubles` doubles), driven over tiles
 * [0, end) in chunks of at most `per` tiles, slots of 1,000 doubles, every slot; fails the
 * test unless the schedule ends in `want`. The caller frees it. */
static recorder *driven_with_huge_tile(size_t huge, size_t doubles, uint64_t end, uint64_t per,
                                       apo__pipe_result want, uint64_t *stuck) {
    recorder *r = new_recorder(10);
    r->huge_tile = huge;
    r->huge_doubles = doubles;
    cr_assert_eq(apo__pipeline_drive(&rec_ops, r, 0, end, per, 1000, APO_CUDA_SLOTS, stuck), want,
                 "tile %zu of %zu doubles over %llu tiles", huge, doubles, (unsigned long long)end);
    return r;
}

Test(cuda_plan, chunks_stop_at_the_tile_count_or_the_slot_whichever_comes_first) {
    /* Tiles of 10 doubles, one of 500, a slot of 1,000 doubles, chunks of at most 30 tiles:
     * [0, 30) holds the big tile at 7 (29 x 10 + 500 = 790 doubles, within the slot), so
     * the tile count cuts it; then [30, 60) of 300 doubles, [60, 90), [90, 100). */
    uint64_t stuck = 0;
    recorder *r = driven_with_huge_tile(7, 500, 100, 30, APO_PIPE_DONE, &stuck);
    const uint64_t want[] = {30, 60, 90, 100};
    cr_assert_eq(r->issues, 4);
    for (long c = 0; c < r->issues; c++)
        cr_assert_eq(r->chunk_end[c], want[c], "chunk %ld ends at %llu", c,
                     (unsigned long long)r->chunk_end[c]);
    cr_assert_eq(r->max_chunk_doubles, 790u);
    cr_assert_eq(r->finishes, r->issues);
    free(r);

    /* A big tile of 900 doubles: the slot cuts the chunk holding it before the count. */
    r = driven_with_huge_tile(20, 900, 100, 30, APO_PIPE_DONE, &stuck);
    /* [0, 30) would be 29 x 10 + 900 = 1,190 > 1,000, and [0, 21) already 1,100: the slot
     * allows [0, 20); then [20, 50) would be 1,190 again: [20, 31) of 1,000 doubles. */
    cr_assert_eq(r->chunk_end[0], 20u);
    cr_assert_eq(r->chunk_end[1], 31u);
    cr_assert_eq(r->chunk_end[2], 61u, "past the big tile the count cuts again");
    cr_assert_leq(r->max_chunk_doubles, 1000u);
    free(r);
}

Test(cuda_plan, a_tile_larger_than_a_slot_stops_the_schedule_and_names_it) {
    uint64_t stuck = 0;
    recorder *r = driven_with_huge_tile(13, 5000, 40, 100, APO_PIPE_TOO_BIG, &stuck);
    cr_assert_eq(stuck, 13);
    /* Nothing past the tile was issued. */
    for (long c = 0; c < r->issues; c++)
        cr_assert_leq(r->chunk_end[c], 13);
    free(r);
}

/* A schedule that a failing issue or finish, or a stop, ends at once: the recorder's setting
 * (-1: none), the result, and the issues and finishes counted by then (-1: not checked). */
typedef struct early_end {
    long fail_issue_at, fail_finish_at, stop_after;
    apo__pipe_result want;
    long issues, finishes;
} early_end;

Test(cuda_plan, a_failure_or_a_stop_ends_the_schedule_at_once) {
    static const early_end ends[] = {
        {6, -1, -1, APO_PIPE_FAILED, 6, -1},
        {-1, 2, -1, APO_PIPE_FAILED, APO_CUDA_SLOTS + 2, 2},
        {-1, -1, 9, APO_PIPE_STOPPED, 9, -1},
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        const early_end *e = &ends[i];
        uint64_t stuck = 0;
        recorder *r = new_recorder(10);
        r->fail_issue_at = e->fail_issue_at;
        r->fail_finish_at = e->fail_finish_at;
        r->stop_after = e->stop_after;
        cr_assert_eq(apo__pipeline_drive(&rec_ops, r, 0, 1000, 50, 1000, APO_CUDA_SLOTS, &stuck),
                     e->want, "end %zu", i);
        cr_assert_eq(r->issues, e->issues, "end %zu: issued %ld", i, r->issues);
        cr_assert(e->finishes < 0 || r->finishes == e->finishes, "end %zu: finished %ld", i,
                  r->finishes);
        free(r);
    }
}

Test(cuda_plan, a_task_on_one_published_slot_finishes_each_chunk_before_the_next) {
    /* While only slot 0 is pinned a task's chunks take turns in it: nothing else is used,
     * and each chunk is finished before the next is issued. */
    recorder *r = new_recorder(10);
    uint64_t stuck = 0;
    cr_assert_eq(apo__pipeline_drive(&rec_ops, r, 0, 100, 30, 1000, 1, &stuck), APO_PIPE_DONE);
    cr_assert_eq(r->issues, 4);
    cr_assert_eq(r->finishes, 4);
    cr_assert(!r->reissued_busy_slot);
    for (long f = 0; f < r->finishes; f++) {
        cr_assert_eq(r->finished_order[f], f);
        cr_assert_eq(r->in_flight_at_finish[f], 0, "finish %ld left others in flight", f);
    }
    cr_assert_eq(r->chunk_in[0], 3, "every chunk went to slot 0");
    free(r);

    /* Two slots: one chunk stays in flight while the host finishes the other. */
    r = new_recorder(10);
    cr_assert_eq(apo__pipeline_drive(&rec_ops, r, 0, 100, 10, 1000, 2, &stuck), APO_PIPE_DONE);
    cr_assert_eq(r->issues, 10);
    for (long f = 0; f < r->finishes; f++)
        cr_assert_eq(r->in_flight_at_finish[f], f < 8 ? 1 : r->issues - f - 1);
    free(r);
}

Test(cuda_plan, a_task_waits_for_the_slots_its_bytes_fill_and_no_more) {
    const size_t mib = (size_t)1 << 20, slot = APO_CUDA_SLOT_FIRST_BYTES;
    cr_assert_eq(apo__slots_needed(1, slot), 1u);
    cr_assert_eq(apo__slots_needed(slot, slot), 1u, "a task that fits one slot needs one");
    cr_assert_eq(apo__slots_needed(slot + 1, slot), 2u);
    /* A scored piece of 500 series x 2,520 bars: about 10.1 MB in and 1.7 MB out. */
    cr_assert_eq(apo__slots_needed(12 * 1000 * 1000, slot), 2u);
    cr_assert_eq(apo__slots_needed(3200 * mib, slot), APO_CUDA_SLOTS, "capped at the slots");
    cr_assert_eq(apo__slots_needed(0, slot), 1u);
}

Test(cuda_plan, slots_grow_only_for_tasks_they_cut_to_the_smallest_step_that_holds_them) {
    const size_t mib = (size_t)1 << 20, cap = APO_CUDA_SLOT_MAX_BYTES;
    const size_t first = APO_CUDA_SLOT_FIRST_BYTES;
    /* Every slot together holds the task: no growth. */
    cr_assert_eq(apo__slot_grown_bytes(APO_CUDA_SLOTS * first, first, cap), first);
    cr_assert_eq(apo__slot_grown_bytes(10 * mib, first, cap), first);
    /* One byte more than the slots hold: the next step. */
    cr_assert_eq(apo__slot_grown_bytes(APO_CUDA_SLOTS * first + 1, first, cap),
                 first * APO_CUDA_SLOT_GROWTH);
    /* Bollinger's 3.2 GB goes straight to the cap, and no further. */
    cr_assert_eq(apo__slot_grown_bytes(3200 * mib, first, cap), cap);
    cr_assert_eq(apo__slot_grown_bytes(3200 * mib, cap, cap), cap);
    /* A cap that is not a step of the growth (a small budget) is reached, not passed. */
    cr_assert_eq(apo__slot_grown_bytes(100 * mib, first, 20 * mib), 20 * mib);
    /* Nothing overflows at the extremes. */
    cr_assert_eq(apo__slot_grown_bytes(SIZE_MAX, first, cap), cap);
}

Test(cuda_plan, small_tasks_copy_from_pageable_memory_only_while_no_slot_is_ready) {
    cr_assert(apo__stage_from_pageable(10 * 1000 * 1000, 0));
    cr_assert(!apo__stage_from_pageable(10 * 1000 * 1000, 1), "a ready slot is used");
    cr_assert(!apo__stage_from_pageable(APO_CUDA_PAGEABLE_MAX_BYTES, 0), "large tasks wait");
    /* The sizes keep their order: the first pinned size is below the pageable limit, which is
     * below the device buffers' cap. */
    cr_assert_lt(APO_CUDA_SLOT_FIRST_BYTES, APO_CUDA_PAGEABLE_MAX_BYTES);
    cr_assert_leq(APO_CUDA_SLOT_MIN_BYTES, APO_CUDA_SLOT_FIRST_BYTES);
    cr_assert_leq(APO_CUDA_SLOT_FIRST_BYTES, APO_CUDA_SLOT_MAX_BYTES);
}

/* ---- host copies over threads ---------------------------------------------------------- */

/* A task that the present slots would cut into more than APO_CUDA_GROWTH_WAIT_CHUNKS chunks
 * waits for larger ones; a scored sweep's piece, or one series of 1e7 samples (39 chunks of
 * 8 MiB), does not; nor does a task whose slots cannot grow. */
Test(cuda_plan, only_a_task_of_many_chunks_waits_for_larger_slots) {
    const size_t mib = (size_t)1 << 20, first = APO_CUDA_SLOT_FIRST_BYTES;
    const size_t cap = APO_CUDA_SLOT_MAX_BYTES;
    cr_assert(!apo__stage_waits_for_growth(12 * mib, first, cap));
    cr_assert(!apo__stage_waits_for_growth(305 * mib, first, cap));
    cr_assert(!apo__stage_waits_for_growth(APO_CUDA_GROWTH_WAIT_CHUNKS * first, first, cap));
    cr_assert(apo__stage_waits_for_growth((APO_CUDA_GROWTH_WAIT_CHUNKS + 1) * first, first, cap));
    cr_assert(apo__stage_waits_for_growth(3052 * mib, first, cap));
    cr_assert(!apo__stage_waits_for_growth(3052 * mib, cap, cap), "at the cap already");
    cr_assert(!apo__stage_waits_for_growth(3052 * mib, first, first), "it cannot grow");
}

Test(cuda_plan, copy_parts_copy_every_byte_exactly_once) {
    /* Copies of awkward sizes, one empty, one smaller than the split's grain. */
    const size_t sizes[] = {1, 4095, 0, 70001, 4096, 3, 123457};
    enum { N = sizeof sizes / sizeof sizes[0] };
    size_t total = 0;
    for (size_t i = 0; i < N; i++)
        total += sizes[i];
    unsigned char *src = malloc(total), *dst = malloc(total), *seen = calloc(total, 1);
    cr_assert(src && dst && seen);
    for (size_t i = 0; i < total; i++)
        src[i] = (unsigned char)(1 + i % 251); /* never 0 */
    apo__copy list[N];
    size_t at = 0;
    for (size_t i = 0; i < N; i++) {
        list[i] = (apo__copy){dst + at, src + at, sizes[i]};
        at += sizes[i];
    }
    const unsigned parts_list[] = {1, 2, 3, 7, 16, 200};
    for (size_t pi = 0; pi < sizeof parts_list / sizeof parts_list[0]; pi++) {
        const unsigned parts = parts_list[pi];
        memset(seen, 0, total);
        for (unsigned p = 0; p < parts; p++) {
            memset(dst, 0, total);
            apo__copy_part(list, N, p, parts);
            for (size_t i = 0; i < total; i++) {
                if (dst[i] == 0)
                    continue;
                cr_assert_eq(dst[i], src[i], "parts %u part %u byte %zu", parts, p, i);
                seen[i]++;
            }
        }
        for (size_t i = 0; i < total; i++)
            cr_assert_eq(seen[i], 1, "parts %u: byte %zu copied %d times", parts, i, seen[i]);
    }
    /* All at once over a team. */
    memset(dst, 0, total);
    apo__copy_all(list, N, 4);
    cr_assert_eq(memcmp(dst, src, total), 0);
    free(src), free(dst), free(seen);
}

Test(cuda_plan, small_copies_stay_on_fewer_threads) {
    cr_assert_eq(apo__copy_threads_for(100, 8), 1);
    cr_assert_eq(apo__copy_threads_for(APO_COPY_MIN_BYTES_PER_THREAD * 3, 8), 3);
    cr_assert_eq(apo__copy_threads_for((size_t)1 << 30, 8), 8);
    cr_assert_eq(apo__copy_threads_for((size_t)1 << 30, 0), 1);
}

/* ---- the overlap of intervals ---------------------------------------------------------- */

/* The union's length by brute force on a grid of 1/1000 (the intervals below lie on it). */
static double union_on_grid(const apo__interval *iv, size_t n) {
    long covered = 0;
    for (long g = 0; g < 100000; g++) {
        const double at = (g + 0.5) / 1000.0;
        for (size_t i = 0; i < n; i++)
            if (at > iv[i].start && at < iv[i].end) {
                covered++;
                break;
            }
    }
    return covered / 1000.0;
}

Test(cuda_plan, the_overlap_is_the_phases_sum_over_their_union) {
    /* Serial phases: the sum is the union, overlap 1. */
    apo__interval serial[] = {{0, 1}, {1, 3}, {3, 3.5}, {5, 6}};
    cr_assert_float_eq(apo__interval_sum(serial, 4), 4.5, 1e-12);
    cr_assert_float_eq(apo__interval_union(serial, 4), 4.5, 1e-12);
    /* A three-stage pipeline, unsorted: h2d, kernel, d2h of three chunks, each stage one
     * unit, each chunk one unit after the previous: 9 units of work in 5 of time. */
    apo__interval piped[] = {{2, 3}, {0, 1}, {1, 2}, {1, 2}, {2, 3},
                             {3, 4}, {2, 3}, {3, 4}, {4, 5}};
    const double sum = apo__interval_sum(piped, 9);
    const double uni = apo__interval_union(piped, 9);
    cr_assert_float_eq(sum, 9.0, 1e-12);
    cr_assert_float_eq(uni, 5.0, 1e-12);
    cr_assert_float_eq(sum / uni, 1.8, 1e-12);
    /* Nested, partly overlapping, empty and reversed ones, against the brute force. */
    apo__interval mixed[] = {{10, 20},   {12, 15},   {19, 25},    {30, 30}, {40, 35},
                             {50, 51.5}, {51.5, 52}, {0.25, 0.5}, {60, 99}};
    apo__interval copy[9];
    memcpy(copy, mixed, sizeof mixed);
    cr_assert_float_eq(apo__interval_union(mixed, 9), union_on_grid(copy, 9), 1e-9);
    cr_assert_float_eq(apo__interval_sum(copy, 9), 10 + 3 + 6 + 1.5 + 0.5 + 0.25 + 39, 1e-9);
    cr_assert_float_eq(apo__interval_union(mixed, 0), 0.0, 0.0);
}

/* ---- host threads ------------------------------------------------------------------------ */

Test(cuda_plan, gpus_take_host_threads_and_the_cpu_device_gives_them_up) {
    /* The lent H100 machine: 16 cores and one GPU. */
    cr_assert_eq(apo__gpu_host_threads(16, 1), 8);
    cr_assert_eq(apo__cpu_threads_beside_gpus(16, 8), 8);
    /* Two GPUs share the half. */
    cr_assert_eq(apo__gpu_host_threads(16, 2), 4);
    cr_assert_eq(apo__cpu_threads_beside_gpus(16, 2 * 4), 8);
    /* Many cores: a GPU never takes more than the cap. */
    cr_assert_eq(apo__gpu_host_threads(128, 1), APO_GPU_MAX_HOST_THREADS);
    cr_assert_eq(apo__cpu_threads_beside_gpus(128, APO_GPU_MAX_HOST_THREADS),
                 128 - APO_GPU_MAX_HOST_THREADS);
    /* Few cores: every GPU still has its driver, and the cpu device keeps one thread. */
    cr_assert_eq(apo__gpu_host_threads(2, 1), 1);
    cr_assert_eq(apo__gpu_host_threads(1, 4), 1);
    cr_assert_eq(apo__cpu_threads_beside_gpus(2, 4), 1);
    cr_assert_eq(apo__cpu_threads_beside_gpus(1, 1), 1);
    /* Without GPUs nothing is taken. */
    cr_assert_eq(apo__gpu_host_threads(16, 0), 0);
    cr_assert_eq(apo__cpu_threads_beside_gpus(16, 0), 16);
    /* Together they never ask for more than the cores, wherever that is possible. */
    for (int cores = 2; cores <= 256; cores++)
        for (size_t gpus = 1; gpus <= 8; gpus++) {
            const int g = apo__gpu_host_threads(cores, gpus);
            const int c = apo__cpu_threads_beside_gpus(cores, g * (int)gpus);
            if ((int)gpus < cores)
                cr_assert_leq(c + g * (int)gpus, cores, "%d cores, %zu GPUs", cores, gpus);
            cr_assert_geq(g, 1);
            cr_assert_geq(c, 1);
        }
    cr_assert_geq(apo__host_cores(), 1);
}

/* ---- pinned host ranges ------------------------------------------------------------------ */

Test(cuda_plan, the_pin_table_keeps_one_entry_per_range) {
    static char buf[4096];
    apo__pin_table t = {NULL, 0, 0};
    cr_assert_eq(apo__pin_find(&t, buf, 100), APO_PIN_ABSENT);
    cr_assert(apo__pin_add(&t, buf, 100));
    cr_assert(apo__pin_add(&t, buf + 200, 100));
    cr_assert_eq(apo__pin_find(&t, buf, 100), APO_PIN_SAME);
    cr_assert_eq(apo__pin_find(&t, buf + 200, 100), APO_PIN_SAME);
    /* Touching is not overlapping; any shared byte is. */
    cr_assert_eq(apo__pin_find(&t, buf + 100, 100), APO_PIN_ABSENT);
    cr_assert_eq(apo__pin_find(&t, buf + 99, 2), APO_PIN_OVERLAPS);
    cr_assert_eq(apo__pin_find(&t, buf + 150, 51), APO_PIN_OVERLAPS);
    cr_assert_eq(apo__pin_find(&t, buf, 50), APO_PIN_OVERLAPS);
    cr_assert_eq(apo__pin_find(&t, buf, 4096), APO_PIN_OVERLAPS);
    cr_assert_eq(apo__pin_remove(&t, buf + 1), 0);
    cr_assert_eq(apo__pin_remove(&t, buf), 100);
    cr_assert_eq(apo__pin_remove(&t, buf), 0);
    cr_assert_eq(apo__pin_find(&t, buf, 100), APO_PIN_ABSENT);
    cr_assert_eq(t.n, 1);
    for (int i = 0; i < 100; i++)
        cr_assert(apo__pin_add(&t, buf + 1000 + i, 1));
    cr_assert_eq(t.n, 101);
    apo__pin_table_free(&t);
    cr_assert_eq(t.n, 0);
}

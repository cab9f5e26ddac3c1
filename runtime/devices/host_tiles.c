/*
 * Running tiles on the host. The cpu device hands them out to its threads piece by piece
 * (host_team.h), the thread that runs its task computing too; every tile computes the same
 * bits whichever thread runs it, because a tile's result depends only on the input and the
 * tile grid (see kernels/), so the schedule is free.
 *
 * A kernel with a group function (run_tiles) gets its tiles in groups, which it computes
 * side by side in the lanes of the device's vector path (dev->cpu_isa;
 * docs/kernels-vector-paths.md, "Vector paths"), with the bits of one tile at a time; a kernel with
 * row_groups gets them a row at a time instead.
 *
 * Before its tiles, each piece writes once into every page of the output elements its tiles
 * own that is not in memory yet (first_touch.h), so that the page faults of a caller's fresh
 * arrays are timed on their own instead of passing for the device's speed (docs/scheduling.md,
 * "What a device's time includes"). A run whose times nobody reads skips that pass and the
 * readings that time its steps (docs/scheduling.md, "A call whose times nobody reads").
 */
#include <assert.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/host_team.h"
#include "catalog/call_span.h"
#include "devices/device.h"
#include "devices/first_touch.h"
#include "devices/host_tiles.h"
#include "kernels.h"

/* Below this much work, a task runs on one thread (see apo__run_tiles_on_host). */
#define APO_HOST_PARALLEL_MIN_ELEMENTS 32768

/* Pieces of a run per thread (host_team.h), see apo__run_tiles_on_host. */
#define APO_HOST_PIECES_PER_THREAD 16

/* Groups hold at most this many tiles. */
#define APO_HOST_GROUP_MAX 64

/* Tiles per group: one round of the path's lanes, or, when rows have at most 4 tiles, whole
 * rows' worth of rounds: the last tile of a row is often shorter, and with several rows in
 * a group the kernel can give the short tiles a round of their own. */
static uint64_t group_size(const apo__call *call, int isa) {
    /* A row's worth, uncapped: every group of a whole-row kernel re-reads its row from the
     * first sample, so fewer, longer groups mean fewer passes (kernel.h, row_groups). */
    if (call->kernel->row_groups)
        return call->tiles_per_row;
    uint64_t lanes = apo__cpu_isa_lanes((apo__cpu_isa)isa);
    uint64_t per_row = call->tiles_per_row;
    uint64_t g = per_row <= 4 ? lanes * per_row : lanes;
    return g < APO_HOST_GROUP_MAX ? g : APO_HOST_GROUP_MAX;
}

/* Runs unit `unit` of tiles [first, end): `group` tiles from first + unit * group (the last
 * unit may be shorter), together when the kernel has a group function, else one by one.
 * The unit is one access to the call, entered at `now` (apo__now() just before): it starts
 * only while the task is wanted, and the runtime waits for it to end before it gives the
 * tiles to another device. */
static apo_status run_unit(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                           int64_t unit, uint64_t group, int isa, double *scratch,
                           size_t scratch_len, double now) {
    if (!apo__task_enter_call_at(&dev->guard, now))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    size_t plen = k->partial_len;
    uint64_t g0 = first + (uint64_t)unit * group;
    uint64_t g1 = end - g0 < group ? end : g0 + group;
    apo_status st = APO_OK;
    if (k->run_tiles != NULL) {
        st = k->run_tiles(call, g0, g1, isa, scratch, scratch_len);
    } else {
        for (uint64_t g = g0; g < g1 && st == APO_OK; g++) {
            size_t row, begin, stop;
            apo__tile_range(call, g, &row, &begin, &stop);
            st = k->run_tile(call, row, begin, stop, plen != 0 ? call->partials + g * plen : NULL);
        }
    }
    /* The outputs are checked while the tiles are still in cache (catalog/kernel.h). */
    if (st == APO_OK && call->nonfinite != NULL && k->count_nonfinite != NULL) {
        for (uint64_t g = g0; g < g1; g++) {
            size_t row, begin, stop;
            apo__tile_range(call, g, &row, &begin, &stop);
            call->nonfinite[g] = k->count_nonfinite(call, row, begin, stop);
        }
    }
    apo__task_leave_call(&dev->guard);
    return st;
}

/* Makes room for `threads` scratch buffers of the device; 0 when that fails. */
static int scratch_slots(apo__device *dev, int threads) {
    if (dev->host_scratch.threads >= threads)
        return 1;
    double **buf = calloc((size_t)threads, sizeof *buf);
    size_t *len = calloc((size_t)threads, sizeof *len);
    if (buf == NULL || len == NULL) {
        free(buf);
        free(len);
        return 0;
    }
    for (int t = 0; t < dev->host_scratch.threads; t++) {
        buf[t] = dev->host_scratch.buf[t];
        len[t] = dev->host_scratch.len[t];
    }
    free(dev->host_scratch.buf);
    free(dev->host_scratch.len);
    dev->host_scratch.buf = buf;
    dev->host_scratch.len = len;
    dev->host_scratch.threads = threads;
    return 1;
}

/* Thread `t`'s scratch of at least `want` doubles, kept for the next calls: a kernel that
 * reduces memory traffic with it must not pay an allocation and its page faults on every
 * call. NULL (and *len 0) when the kernel wants none or it cannot be had: the kernel then
 * does without, with the same bits. */
static double *scratch_for(apo__device *dev, int t, size_t want, size_t *len) {
    *len = 0;
    if (want == 0 || t >= dev->host_scratch.threads)
        return NULL;
    if (dev->host_scratch.len[t] < want) {
        free(dev->host_scratch.buf[t]);
        dev->host_scratch.buf[t] = malloc(want * sizeof(double));
        dev->host_scratch.len[t] = dev->host_scratch.buf[t] != NULL ? want : 0;
    }
    *len = dev->host_scratch.len[t];
    return dev->host_scratch.buf[t];
}

void apo__host_tiles_release(apo__device *dev) {
    apo__host_team_destroy(dev->host_team);
    dev->host_team = NULL;
    for (int t = 0; t < dev->host_scratch.threads; t++)
        free(dev->host_scratch.buf[t]);
    free(dev->host_scratch.buf);
    free(dev->host_scratch.len);
    dev->host_scratch.buf = NULL;
    dev->host_scratch.len = NULL;
    dev->host_scratch.threads = 0;
}

/* A run of tiles: what every thread of it needs, on the stack of the thread that asked for it
 * (host_team.h). Read only by threads holding one of its pieces. */
typedef struct tiles_job {
    apo__device *dev;
    const apo__call *call;
    uint64_t first, end, group;
    int isa; /* the vector path of its tiles (apo__kernel_path) */
    int64_t units, units_per_piece;
    size_t want;  /* scratch doubles per thread */
    int timed;    /* 0: no first-touch pass, no readings but the deadline's */
    int alone;    /* one thread: the caller's, which computes every piece */
    double now;   /* the caller's reading before the run (apo__run_tiles_on_host) */
    double ended; /* alone and timed: the last reading of the last piece */
} tiles_job;

/* Piece `piece` of a run: first the pages of the output elements its own tiles write are
 * faulted in, in one pass over the whole piece, then its units are computed one after the
 * other. One pass a piece rather than one a unit: on one thread a million-bar row is a single
 * piece of some 60 units of 32 pages, and a pass per unit asked mincore() 60 times (a unit's
 * 32 pages rarely start on a page boundary, so it spans 33, over the no-asking limit) where
 * the piece's pass asks 4 times, once per 512 pages; the clock is read once a unit instead of
 * three times (docs/scheduling.md, "The first touch of a long call"). Only bytes of the
 * piece's own elements are touched, so the pass of one piece never meets the stores of
 * another. */
static apo_status run_piece(void *arg, int slot, uint64_t piece, double *touch_s,
                            double *compute_s) {
    tiles_job *job = arg;
    apo__device *dev = job->dev;
    size_t scratch_len;
    double *scratch = scratch_for(dev, slot, job->want, &scratch_len);
    int64_t u0 = (int64_t)piece * job->units_per_piece;
    int64_t u1 = job->units - u0 < job->units_per_piece ? job->units : u0 + job->units_per_piece;
    if (u0 >= u1)
        return APO_OK;
    uint64_t g0 = job->first + (uint64_t)u0 * job->group;
    uint64_t g1 = job->end - g0 < (uint64_t)(u1 - u0) * job->group
                      ? job->end
                      : g0 + (uint64_t)(u1 - u0) * job->group;
    if (!job->timed) {
        /* Nobody reads the times: each unit only checks the deadline, the first of a lone
         * thread's against the caller's reading, taken microseconds before. */
        apo_status st = APO_OK;
        for (int64_t u = u0; u < u1 && st == APO_OK; u++) {
            const double now = job->alone && u == 0 ? job->now : apo__task_clock(&dev->guard);
            st = run_unit(dev, job->call, job->first, job->end, u, job->group, job->isa, scratch,
                          scratch_len, now);
        }
        return st;
    }
    /* A lone thread's run starts at the caller's reading: the few nanoseconds of setup since
     * then count as first touch, kept out of what the models learn like the pass. */
    double t0 = job->alone ? job->now : apo__now();
    /* The clock readings that time the steps also serve the guard's deadline: a step
     * enters the call at most microseconds after them, or, for the later units of the
     * first touch, after a unit's faults, when the clock is read again. */
    if (!apo__task_enter_call_at(&dev->guard, t0))
        return APO_ERR_DEVICE_LOST;
    apo__touch_plan touch;
    apo__touch_plan_of(job->call, g0, g1, &touch);
    apo__task_leave_call(&dev->guard);
    apo_status st = APO_OK;
    for (uint64_t t = 0; t < touch.units && st == APO_OK; t++)
        st = apo__touch_unit(&dev->guard, &touch, t, t == 0 ? t0 : apo__now());
    double t1 = apo__now();
    *touch_s += t1 - t0;
    /* Each unit's end is the next one's start: one reading a unit. */
    for (int64_t u = u0; u < u1 && st == APO_OK; u++) {
        st = run_unit(dev, job->call, job->first, job->end, u, job->group, job->isa, scratch,
                      scratch_len, t1);
        double t2 = apo__now();
        *compute_s += t2 - t1;
        t1 = t2;
    }
    if (job->alone)
        job->ended = t1;
    return st;
}

apo_status apo__run_tiles_on_host(apo__device *dev, const apo__call *call, uint64_t first,
                                  uint64_t end, int threads, double now,
                                  apo__host_run_times *times) {
    if (times != NULL)
        *times = (apo__host_run_times){.threads_offered = 1};
    /* Reading the call's shape is an access too: the call may already have moved on. */
    if (!apo__task_enter_call_at(&dev->guard, now))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    /* Host devices never get device-resident arrays (plan.c gives those to GPUs only). */
    assert(call->ctx->out_gpu < 0);
    /* A device opened without a path (cpu_isa 0, AUTO) gets the fastest; the kernel may take a
     * narrower one that runs faster on this CPU, unless APPORTION_CPU_ISA named the path. */
    const int widest = dev->cpu_isa != APO_CPU_ISA_AUTO ? dev->cpu_isa : (int)apo__cpu_isa_best();
    const int isa = apo__kernel_path(call, widest, dev->cpu_isa_named);
    tiles_job job = {.dev = dev, .call = call, .first = first, .end = end, .isa = isa};
    job.timed = times != NULL && !call->ctx->times_unread;
    job.now = job.ended = now;
    job.group = k->run_tiles != NULL ? group_size(call, isa) : 1;
    job.want = k->run_tiles != NULL && k->tiles_scratch != NULL ? k->tiles_scratch(call, isa) : 0;
    /* A small task gains microseconds from a second thread but, on a shared machine,
     * can lose whole scheduler ticks (milliseconds) waiting for it: keep it on the
     * calling thread. */
    if (apo__tiles_elements(call, first, end) < APO_HOST_PARALLEL_MIN_ELEMENTS)
        threads = 1;
    apo__task_leave_call(&dev->guard);
    job.units = (int64_t)((end - first + job.group - 1) / job.group);
    if (threads < 1)
        threads = 1;
    job.alone = threads == 1;
    /* Pieces of a few units each, about APO_HOST_PIECES_PER_THREAD a thread: small enough that
     * a thread that stalls holds little and the others take the rest, large enough that
     * claiming them costs next to nothing. */
    int64_t pieces_wanted = (int64_t)threads * APO_HOST_PIECES_PER_THREAD;
    job.units_per_piece = threads == 1 ? (job.units > 0 ? job.units : 1)
                                       : (job.units + pieces_wanted - 1) / pieces_wanted;
    if (job.units_per_piece < 1)
        job.units_per_piece = 1;
    uint64_t pieces = (uint64_t)((job.units + job.units_per_piece - 1) / job.units_per_piece);
    if (job.want > 0 && !scratch_slots(dev, threads))
        job.want = 0;
    apo__team_times team;
    /* Read only when helpers may share a timed run (see below). */
    double started = threads > 1 && job.timed ? apo__now() : 0;
    apo_status status = apo__host_team_run(&dev->host_team, threads, dev->cpu_pressure, pieces,
                                           run_piece, &job, &team);
    if (times == NULL)
        return status;
    times->threads_offered = team.threads_offered;
    if (!job.timed)
        return status;
    times->timed = 1;
    /* Alone, the thread's own time of faulting is the task's, and its last reading the
     * run's end. */
    if (threads == 1) {
        times->touch_s = team.touch_s;
        times->ended = job.ended;
        return status;
    }
    /* The threads' time is spread over the run's wall time by what they spent it on: with
     * every thread faulting and computing side by side, the share of the faulting is the
     * share of the run's time it took. */
    times->ended = apo__now();
    double wall = times->ended - started;
    double busy = team.touch_s + team.compute_s;
    if (busy > 0)
        times->touch_s = wall * team.touch_s / busy;
    return status;
}

/*
 * stage.h: how the staged CUDA kernels (kernels/cuda/staged.cu) bring each tile's samples to its
 * tile body through shared memory, written once for the GPU and for its host emulation
 * (kernels/cuda/staged_emulation.c), so that the emulation runs the very staging code.
 *
 * What: a warp owns 32 consecutive work items of a chunk view (cuda_chunk.h), lane l the
 * tile of item 32 g + l, and computes each tile with its unchanged tile body, one segment of
 * APO_STAGE_SEG positions at a time. Each lane's tile is a *stream*: the positions
 * [from, end) it computes, the lowest position it may read (lo: the halo the runtime
 * staged) and the first position whose outputs it stores (out_from). For every segment:
 *
 *   1. the warp copies the next segment of every lane's row from global memory into that
 *      lane's input ring in shared memory, half a warp per tile: 16 consecutive doubles,
 *      one 128-byte coalesced load, two tiles per instruction (cp.async on the GPU, so the
 *      copies of segments k + 1 and, where the ring allows, k + 2 run while segment k is
 *      computed);
 *   2. each lane runs its tile body over the segment, reading samples through an apo__in
 *      that is its ring (APO_IN(x, i) = ring[i & mask], apo_hd.h) and writing outputs
 *      through an apo__out that is its output ring of APO_STAGE_SEG slots;
 *   3. the warp stores the segment's outputs of every lane, again 16 consecutive doubles
 *      per tile and output: coalesced stores.
 *
 * A tile body reads up to `lookback` positions before the segment it computes (bollinger:
 * the period; returns_stats: 1; macd: none), so the ring holds the lookback, the segment
 * being computed and the ones being copied (one, or two where the ring stays within
 * APO_STAGE_AHEAD_RING): a power of two >= lookback + (ahead + 1) APO_STAGE_SEG, at most
 * APO_STAGE_RING_MAX (longer lookbacks take the simple kernel).
 *
 * Shared memory of one warp (apo__stage_bytes): the 32 streams, then the input rings
 * [32][ring + 1] and the output rings [outs][32][APO_STAGE_SEG + 1] (doubles). The odd row
 * lengths put 32 lanes reading the same position into different banks, and a tile's 16
 * consecutive positions (the copies) into consecutive ones.
 *
 * Lanes: on the GPU each thread of the warp is one lane and keeps its lane's tile state in
 * registers; APO_FOR_LANES(lane) is "this thread's lane" and APO_WARP_SYNC() __syncwarp().
 * On the host (the emulation) APO_FOR_LANES runs the 32 lanes in turn and the state is an
 * array of 32; a sync is then the end of a loop over the lanes. The warp functions are
 * written as phases separated by syncs, where a lane reads only what earlier phases wrote,
 * so running the lanes of a phase in turn is what the warp computes. The host copies
 * synchronously: a ring slot that a segment still reads and a copy ahead of it overwrote
 * would change the emulation's bits, so the emulation also checks the ring sizes (the waits
 * it cannot: the SIMT layer's late copies do, docs/simt.md).
 *
 * Determinism: staging moves samples and outputs, it never computes; each lane runs its
 * tile body (kernels/<room>/<name>_tile.h) over consecutive segments, which is the same sequence of
 * operations as one call over the tile (apo__bollinger_advance, apo__macd_step,
 * apo__returns_stats_pass1/2), so the staged kernels give the CPU's bits.
 */
#ifndef APO_STAGE_H
#define APO_STAGE_H

#ifndef APO_STAGED_ACCESS
#error "stage.h needs the ring accessors: define APO_STAGED_ACCESS before the first include"
#endif

#include "apo_hd.h"
#include "cuda_chunk.h"
#include "kernels_cuda.h"

#define APO_STAGE_LANES 32u
#define APO_STAGE_SEG 16u        /* positions per segment; a power of two dividing 32 */
#define APO_STAGE_RING_MAX 128u  /* the largest input ring, doubles per lane */
#define APO_STAGE_AHEAD_RING 64u /* the largest ring whose copies run two segments ahead */
#define APO_STAGE_OUTS_MAX 3u

/* Tells nvcc that an output row lies in global memory: the rows come from descriptors in shared
 * memory, whose pointers it cannot trace, so without it the stores are generic (ST.E, the
 * address space found at run time) where they can be STG (docs/cuda.md, "The staged kernels'
 * steps"). Nothing elsewhere: the SIMT layer compiles device code with another compiler. */
#if defined(__CUDA_ARCH__) && defined(__NVCC__)
#define APO_STAGE_GLOBAL(p) __builtin_assume(__isGlobal(p))
#else
#define APO_STAGE_GLOBAL(p) ((void)0)
#endif

/* Stores v at position pos of output row `row`, a row in global memory (both flushes). */
static inline APO_HD void apo__stage_store(double *row, size_t pos, double v) {
    APO_STAGE_GLOBAL(row);
    row[pos] = v;
}

#if defined(__CUDA_ARCH__)
#include <cuda_pipeline_primitives.h>
#define APO_LANE_STATES 1
#define APO_LANE_SLOT(lane) 0
#define APO_FOR_LANES(lane) for (unsigned lane = threadIdx.x % 32u, once_ = 0; once_ < 1; ++once_)
#define APO_WARP_SYNC() __syncwarp()
#define APO_STAGE_COPY(dst, src) __pipeline_memcpy_async((dst), (src), sizeof(double))
#define APO_STAGE_COMMIT() __pipeline_commit()
/* Waits until at most `pending` (0 or 1) later batches of copies are in flight; the count is
 * an immediate of the instruction, so each value is written out rather than switched on. */
#define APO_STAGE_WAIT(pending)                                                                    \
    do {                                                                                           \
        if ((pending) > 0) {                                                                       \
            __pipeline_wait_prior(1);                                                              \
        } else {                                                                                   \
            __pipeline_wait_prior(0);                                                              \
        }                                                                                          \
    } while (0)
#else
#define APO_LANE_STATES APO_STAGE_LANES
#define APO_LANE_SLOT(lane) (lane)
#define APO_FOR_LANES(lane) for (unsigned lane = 0; lane < APO_STAGE_LANES; ++lane)
#define APO_WARP_SYNC() ((void)0)
#define APO_STAGE_COPY(dst, src) (*(dst) = *(src))
#define APO_STAGE_COMMIT() ((void)0)
#define APO_STAGE_WAIT(pending) ((void)(pending))
#endif

/* One lane's tile. from == end: the lane has no tile (the warp's last group). */
typedef struct apo__stage_stream {
    const double *x;                 /* the lane's row, indexed absolutely */
    double *out[APO_STAGE_OUTS_MAX]; /* its output rows, indexed absolutely */
    size_t lo;                       /* the first position that may be read */
    size_t from, end;                /* the positions computed */
    size_t out_from;                 /* the first position whose outputs are stored */
} apo__stage_stream;

/* The shape of a warp's shared memory for one kernel launch. */
typedef struct apo__stage_geom {
    size_t lookback;  /* positions before a segment that its computation reads */
    size_t ring;      /* input ring per lane: a power of two >= lookback + (ahead + 1) segments */
    size_t in_stride; /* ring + 1 doubles between two lanes' rings */
    unsigned outs;    /* outputs staged per position (0 to 3) */
    unsigned ahead;   /* segments copied ahead of the one computed: 1 or 2 */
} apo__stage_geom;

/* The power of two of at least `need` doubles, from two segments. */
static inline APO_HD size_t apo__stage_ring_for(size_t need) {
    size_t ring = 2 * APO_STAGE_SEG;
    while (ring < need) {
        ring *= 2;
    }
    return ring;
}

/*
 * Sets *g for a kernel reading `lookback` positions back and staging `outs` outputs; 0 when
 * the ring would exceed APO_STAGE_RING_MAX (the launcher then runs the simple kernel). The
 * copies run two segments ahead where the ring that needs stays within APO_STAGE_AHEAD_RING
 * doubles (macd, returns_stats, bollinger up to a period of 16: twice the bytes in flight a
 * warp, for the kernels whose warps are too few to hide the memory's latency), one segment
 * ahead otherwise (a longer ring would cost bollinger's longer periods resident warps).
 */
static inline APO_HD int apo__stage_geom_init(apo__stage_geom *g, size_t lookback, unsigned outs) {
    if (lookback > APO_STAGE_RING_MAX - 2 * APO_STAGE_SEG || outs > APO_STAGE_OUTS_MAX) {
        return 0;
    }
    g->ahead = 2;
    g->ring = apo__stage_ring_for(lookback + 3 * APO_STAGE_SEG);
    if (g->ring > APO_STAGE_AHEAD_RING) {
        g->ahead = 1;
        g->ring = apo__stage_ring_for(lookback + 2 * APO_STAGE_SEG);
    }
    g->lookback = lookback;
    g->in_stride = g->ring + 1;
    g->outs = outs;
    return 1;
}

/* Bytes of shared memory one warp needs (a multiple of 8). */
static inline APO_HD size_t apo__stage_bytes(const apo__stage_geom *g) {
    return APO_STAGE_LANES * sizeof(apo__stage_stream) +
           sizeof(double) * APO_STAGE_LANES * (g->in_stride + g->outs * (APO_STAGE_SEG + 1));
}

/* A warp's view of its shared memory. */
typedef struct apo__stage_warp {
    apo__stage_stream *stream; /* [APO_STAGE_LANES] */
    double *in;                /* [APO_STAGE_LANES][in_stride] */
    double *out;               /* [outs][APO_STAGE_LANES][APO_STAGE_SEG + 1] */
    apo__stage_geom g;
} apo__stage_warp;

static inline APO_HD void apo__stage_warp_init(apo__stage_warp *w, void *base,
                                               const apo__stage_geom *g) {
    w->stream = (apo__stage_stream *)base;
    w->in = (double *)(w->stream + APO_STAGE_LANES);
    w->out = w->in + APO_STAGE_LANES * g->in_stride;
    w->g = *g;
}

/* A lane without a tile. */
static inline APO_HD void apo__stage_stream_none(apo__stage_stream *s) {
    s->x = NULL;
    for (unsigned o = 0; o < APO_STAGE_OUTS_MAX; ++o) {
        s->out[o] = NULL;
    }
    s->lo = 0;
    s->from = 0;
    s->end = 0;
    s->out_from = 0;
}

/* Lane `lane`'s stream for item *it of view v: its positions, the halo below them (none, until
 * the kernel sets it) and its output rows. */
static inline APO_HD void apo__stage_item_at(const apo__stage_warp *w, const apo__cuda_view *v,
                                             unsigned lane, const apo__chunk_item *it) {
    apo__stage_stream *s = &w->stream[lane];
    s->x = v->x + it->row * v->cols;
    for (unsigned o = 0; o < APO_STAGE_OUTS_MAX; ++o) {
        s->out[o] = v->out[o] != NULL ? v->out[o] + it->row * v->out_cols : NULL;
    }
    s->lo = it->begin;
    s->from = it->begin;
    s->end = it->end;
    s->out_from = it->begin;
}

/* The stream of lane `lane` for item i of view v (or none past the items): the tile's
 * positions, the halo below them and its output rows. */
static inline APO_HD int apo__stage_item(const apo__stage_warp *w, const apo__cuda_view *v,
                                         size_t tiles, size_t group, unsigned lane,
                                         apo__chunk_item *it) {
    const size_t i = group * APO_STAGE_LANES + lane;
    if (i >= v->rows * tiles) {
        apo__stage_stream_none(&w->stream[lane]);
        return 0;
    }
    *it = apo__chunk_item_of(v, tiles, i);
    apo__stage_item_at(w, v, lane, it);
    return 1;
}

/* Blocks of a launch of one group of 32 work items a block: ceil(items / 32), at most
 * APO_STAGE_GRID_MAX, the kernels' grid-stride loops taking the groups beyond. */
#define APO_STAGE_GRID_MAX 65535u
static inline unsigned int apo__stage_grid(size_t items) {
    const size_t groups = (items + APO_STAGE_LANES - 1) / APO_STAGE_LANES;
    return (unsigned int)(groups < APO_STAGE_GRID_MAX ? groups : APO_STAGE_GRID_MAX);
}

/* The samples a lane's tile body reads: its input ring. */
static inline APO_HD apo__in apo__stage_in(const apo__stage_warp *w, unsigned lane) {
    return apo__in_ring(w->in + lane * w->g.in_stride, w->g.ring - 1);
}

/* Where a lane's tile body writes output o: its output ring of one segment. */
static inline APO_HD apo__out apo__stage_out(const apo__stage_warp *w, unsigned o, unsigned lane) {
    return apo__out_ring(w->out + (o * APO_STAGE_LANES + lane) * (APO_STAGE_SEG + 1),
                         APO_STAGE_SEG - 1);
}

/* Segment k of a stream: [from + k SEG, min(from + (k + 1) SEG, end)); 0 when empty. */
static inline APO_HD int apo__stage_segment(const apo__stage_stream *s, size_t k, size_t *a,
                                            size_t *b) {
    if (s->end <= s->from || k >= (s->end - s->from + APO_STAGE_SEG - 1) / APO_STAGE_SEG) {
        return 0;
    }
    *a = s->from + k * APO_STAGE_SEG;
    *b = *a + APO_STAGE_SEG < s->end ? *a + APO_STAGE_SEG : s->end;
    return 1;
}

/*
 * A warp's streams at the start of a pass (the fast path's test): the segments of its longest
 * stream, and whether every lane's stream is lane 0's moved by lane * step (same row, same
 * length, the same halo and output start relative to it): the warp of 32 full tiles of one
 * row, whichever kernel set them. Such a warp's segment geometry is then a function of the
 * lane and the segment alone, so the copies and stores below compute it from these few
 * values instead of reading 16 lanes' descriptors per thread per segment. Every thread
 * reads the 32 descriptors once per pass here, which counting the segments did already.
 */
typedef struct apo__stage_span {
    size_t segs; /* segments of the longest stream */
    int uniform; /* 1: lane i's stream is lane 0's moved by i * step */
    const double *x;
    double *out[APO_STAGE_OUTS_MAX];
    size_t lo, from, end, out_from; /* lane 0's */
    size_t step;
} apo__stage_span;

static inline APO_HD void apo__stage_span_of(const apo__stage_warp *w, apo__stage_span *sp) {
    const apo__stage_stream *s0 = &w->stream[0];
    sp->segs = 0;
    sp->uniform = s0->end > s0->from;
    sp->x = s0->x;
    for (unsigned o = 0; o < APO_STAGE_OUTS_MAX; ++o) {
        sp->out[o] = s0->out[o];
    }
    sp->lo = s0->lo;
    sp->from = s0->from;
    sp->end = s0->end;
    sp->out_from = s0->out_from;
    /* Wraps when lane 1 starts before lane 0; the test below still compares exact values,
     * and where it holds, the bounds the fast path derives (lane 0's plus i * step, wrapping
     * alike) are the ones the descriptors hold. */
    sp->step = w->stream[1].from - s0->from;
    for (unsigned i = 0; i < APO_STAGE_LANES; ++i) {
        const apo__stage_stream *s = &w->stream[i];
        const size_t n =
            s->end > s->from ? (s->end - s->from + APO_STAGE_SEG - 1) / APO_STAGE_SEG : 0;
        sp->segs = n > sp->segs ? n : sp->segs;
        const size_t shift = i * sp->step;
        int same = s->x == s0->x && s->lo == s0->lo + shift && s->from == s0->from + shift &&
                   s->end == s0->end + shift && s->out_from == s0->out_from + shift;
        for (unsigned o = 0; o < APO_STAGE_OUTS_MAX; ++o) {
            same = same && s->out[o] == s0->out[o];
        }
        sp->uniform = sp->uniform && same;
    }
}

/* Copies positions [a, b) of row x into lane i's ring, `thr` taking the positions
 * congruent to its offset within its half warp. */
static inline APO_HD void apo__stage_copy_range(const apo__stage_warp *w, unsigned i,
                                                const double *x, unsigned thr, size_t a, size_t b) {
    double *ring = w->in + i * w->g.in_stride;
    const size_t mask = w->g.ring - 1;
    for (size_t pos = a + thr % APO_STAGE_SEG; pos < b; pos += APO_STAGE_SEG) {
        APO_STAGE_COPY(&ring[pos & mask], &x[pos]);
    }
}

/*
 * Starts the copy of what segment k of every lane needs: with fill, its lookback too (the
 * first segment); without, segment k alone (the lookback is in the ring already). Half a
 * warp per tile, two tiles per step. The copies land after APO_STAGE_WAIT(n), once at most n
 * later batches of copies are pending, and a sync.
 */
static inline APO_HD void apo__stage_load(const apo__stage_warp *w, size_t k, int fill) {
    APO_FOR_LANES(thr) {
        for (unsigned i = thr / APO_STAGE_SEG; i < APO_STAGE_LANES;
             i += APO_STAGE_LANES / APO_STAGE_SEG) {
            const apo__stage_stream *s = &w->stream[i];
            size_t a, b;
            if (!apo__stage_segment(s, k, &a, &b)) {
                continue;
            }
            if (fill) {
                a = a > s->lo + w->g.lookback ? a - w->g.lookback : s->lo;
            }
            apo__stage_copy_range(w, i, s->x, thr, a, b);
        }
        APO_STAGE_COMMIT();
    }
}

/*
 * Runs the statements after `pos` for each lane i and position pos of segment k whose outputs
 * thread `thr` of the warp stores (half a warp per tile, 16 consecutive positions, from the
 * stream's out_from on), with `rows` the lane's output rows: from each lane's descriptor.
 */
#define APO_STAGE_EACH_STORE(w, k, thr, i, pos, rows, ...)                                         \
    for (unsigned i = (thr) / APO_STAGE_SEG; i < APO_STAGE_LANES;                                  \
         i += APO_STAGE_LANES / APO_STAGE_SEG) {                                                   \
        const apo__stage_stream *s_ = &(w)->stream[i];                                             \
        size_t a_, b_;                                                                             \
        if (!apo__stage_segment(s_, (k), &a_, &b_)) {                                              \
            continue;                                                                              \
        }                                                                                          \
        const size_t pos = a_ + (thr) % APO_STAGE_SEG;                                             \
        if (pos < s_->out_from || pos >= b_) {                                                     \
            continue;                                                                              \
        }                                                                                          \
        double *const *rows = s_->out;                                                             \
        __VA_ARGS__                                                                                \
    }

/* Stores the outputs of segment k of every lane, from position out_from on: half a warp per
 * tile and output, 16 consecutive doubles each. */
static inline APO_HD void apo__stage_flush(const apo__stage_warp *w, size_t k) {
    if (w->g.outs == 0) {
        return;
    }
    APO_FOR_LANES(thr) {
        APO_STAGE_EACH_STORE(w, k, thr, i, pos, rows, {
            for (unsigned o = 0; o < w->g.outs; ++o) {
                const double *ring = w->out + (o * APO_STAGE_LANES + i) * (APO_STAGE_SEG + 1);
                apo__stage_store(rows[o], pos, ring[pos & (APO_STAGE_SEG - 1)]);
            }
        })
    }
}

/* Segment k of lane i's stream in a uniform warp: apo__stage_segment of the stream that
 * apo__stage_span_of found to be lane 0's moved by i * step (k < sp->segs). */
static inline APO_HD void apo__stage_span_segment(const apo__stage_span *sp, unsigned i, size_t k,
                                                  size_t *a, size_t *b) {
    const size_t shift = i * sp->step;
    *a = sp->from + shift + k * APO_STAGE_SEG;
    *b = *a + APO_STAGE_SEG < sp->end + shift ? *a + APO_STAGE_SEG : sp->end + shift;
}

/* apo__stage_load for a uniform warp: the same copies, their bounds computed from the span
 * rather than read from 16 descriptors. Past the first segment a thread copies one position a
 * tile, lane 0's moved by i * step, and whether it is inside the tile is the same for every
 * tile it serves: tested once. */
static inline APO_HD void apo__stage_load_uniform(const apo__stage_warp *w,
                                                  const apo__stage_span *sp, size_t k, int fill) {
    APO_FOR_LANES(thr) {
        if (fill) {
            for (unsigned i = thr / APO_STAGE_SEG; i < APO_STAGE_LANES && k < sp->segs;
                 i += APO_STAGE_LANES / APO_STAGE_SEG) {
                size_t a, b;
                apo__stage_span_segment(sp, i, k, &a, &b);
                const size_t lo = sp->lo + i * sp->step;
                a = a > lo + w->g.lookback ? a - w->g.lookback : lo;
                apo__stage_copy_range(w, i, sp->x, thr, a, b);
            }
        } else {
            const size_t pos0 = sp->from + k * APO_STAGE_SEG + thr % APO_STAGE_SEG;
            if (k < sp->segs && pos0 < sp->end) {
                for (unsigned i = thr / APO_STAGE_SEG; i < APO_STAGE_LANES;
                     i += APO_STAGE_LANES / APO_STAGE_SEG) {
                    const size_t pos = pos0 + i * sp->step;
                    APO_STAGE_COPY(&w->in[i * w->g.in_stride + (pos & (w->g.ring - 1))],
                                   &sp->x[pos]);
                }
            }
        }
        APO_STAGE_COMMIT();
    }
}

/*
 * APO_STAGE_EACH_STORE for a uniform warp (apo__stage_span_of), from the span: lane i's position
 * is lane 0's moved by i * step, and so are its bounds, so whether it is stored is the same for
 * every tile the thread serves and tested once.
 */
#define APO_STAGE_EACH_STORE_UNIFORM(sp, k, thr, i, pos, rows, ...)                                \
    do {                                                                                           \
        const size_t pos0_ = (sp)->from + (k)*APO_STAGE_SEG + (thr) % APO_STAGE_SEG;               \
        if (pos0_ >= (sp)->out_from && pos0_ < (sp)->end) {                                        \
            double *const *rows = (sp)->out;                                                       \
            for (unsigned i = (thr) / APO_STAGE_SEG; i < APO_STAGE_LANES;                          \
                 i += APO_STAGE_LANES / APO_STAGE_SEG) {                                           \
                const size_t pos = pos0_ + i * (sp)->step;                                         \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* apo__stage_flush for a uniform warp, with the kernel's output count `outs` a constant at
 * every call (APO_STAGE_PASS passes the kernel's literal), so that the loop over the outputs
 * unrolls and the output rows stay in registers. */
static inline APO_HD void apo__stage_flush_uniform(const apo__stage_warp *w,
                                                   const apo__stage_span *sp, size_t k,
                                                   const unsigned outs) {
    if (outs == 0) {
        return;
    }
    APO_FOR_LANES(thr) {
        APO_STAGE_EACH_STORE_UNIFORM(sp, k, thr, i, pos, rows, {
            for (unsigned o = 0; o < outs; ++o) {
                const double *ring = w->out + (o * APO_STAGE_LANES + i) * (APO_STAGE_SEG + 1);
                apo__stage_store(rows[o], pos, ring[pos & (APO_STAGE_SEG - 1)]);
            }
        });
    }
}

/* The copies a pass starts with: segment 0 with its lookback, and segment 1 where the copies
 * run two ahead; then waits for segment 0's (a sync makes them the warp's). */
static inline APO_HD void apo__stage_prime(const apo__stage_warp *w, const apo__stage_span *sp) {
    if (sp->uniform) {
        apo__stage_load_uniform(w, sp, 0, 1);
        if (w->g.ahead > 1) {
            apo__stage_load_uniform(w, sp, 1, 0);
        }
    } else {
        apo__stage_load(w, 0, 1);
        if (w->g.ahead > 1) {
            apo__stage_load(w, 1, 0);
        }
    }
    APO_STAGE_WAIT(w->g.ahead - 1);
}

/* The copies of segment k + ahead, started before segment k is computed. */
static inline APO_HD void apo__stage_load_ahead(const apo__stage_warp *w, const apo__stage_span *sp,
                                                size_t k) {
    if (sp->uniform) {
        apo__stage_load_uniform(w, sp, k + w->g.ahead, 0);
    } else {
        apo__stage_load(w, k + w->g.ahead, 0);
    }
}

/* Where the host emulation counts the passes of each path (staged_emulation.c), so that its
 * tests know both ran; nothing elsewhere. */
#ifndef APO_STAGE_NOTE_PASS
#define APO_STAGE_NOTE_PASS(uniform) ((void)0)
#endif

/*
 * One pass of the warp over its lanes' streams (set, and synced, before): the first
 * segment with its lookback is copied (and the second, where the copies run two ahead); then
 * for each segment k, the copy of k + ahead starts, every lane runs COMPUTE on [a, b) (segment
 * k of its stream; skipped when it has none), the outputs of k are stored, and the copy of
 * k + 1 is waited for (the copies of later segments may still be in flight). `lane`, `a` and `b`
 * name the variables COMPUTE uses; OUTS is the kernel's output count as a literal (the
 * geometry's outs), which the fast path's stores take as a constant.
 *
 * The fast path (a uniform warp, apo__stage_span_of: 32 full tiles of one row) runs the
 * same copies, the same COMPUTE on the same [a, b) and the same stores, between the same
 * syncs, with the bounds computed from the span; the general path (tiles of several rows, a
 * row's first or last tiles, macd lanes whose seeds ended apart) reads each lane's
 * descriptor. Both move the same samples to the same ring slots, so the bits do not depend
 * on the path.
 */
#define APO_STAGE_PASS(w, lane, a, b, OUTS, COMPUTE)                                               \
    do {                                                                                           \
        apo__stage_span sp_;                                                                       \
        apo__stage_span_of((w), &sp_);                                                             \
        APO_STAGE_NOTE_PASS(sp_.uniform);                                                          \
        if (sp_.uniform) {                                                                         \
            apo__stage_prime((w), &sp_);                                                           \
            APO_WARP_SYNC();                                                                       \
            for (size_t k_ = 0; k_ < sp_.segs; ++k_) {                                             \
                apo__stage_load_ahead((w), &sp_, k_);                                              \
                APO_FOR_LANES(lane) {                                                              \
                    size_t a, b;                                                                   \
                    apo__stage_span_segment(&sp_, lane, k_, &a, &b);                               \
                    COMPUTE                                                                        \
                }                                                                                  \
                APO_WARP_SYNC();                                                                   \
                apo__stage_flush_uniform((w), &sp_, k_, (OUTS));                                   \
                APO_STAGE_WAIT((w)->g.ahead - 1);                                                  \
                APO_WARP_SYNC();                                                                   \
            }                                                                                      \
        } else {                                                                                   \
            apo__stage_prime((w), &sp_);                                                           \
            APO_WARP_SYNC();                                                                       \
            for (size_t k_ = 0; k_ < sp_.segs; ++k_) {                                             \
                apo__stage_load_ahead((w), &sp_, k_);                                              \
                APO_FOR_LANES(lane) {                                                              \
                    size_t a, b;                                                                   \
                    if (apo__stage_segment(&(w)->stream[lane], k_, &a, &b)) {                      \
                        COMPUTE                                                                    \
                    }                                                                              \
                }                                                                                  \
                APO_WARP_SYNC();                                                                   \
                apo__stage_flush((w), k_);                                                         \
                APO_STAGE_WAIT((w)->g.ahead - 1);                                                  \
                APO_WARP_SYNC();                                                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif /* APO_STAGE_H */

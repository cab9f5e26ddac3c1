/*
 * The runtime's view of a kernel: the public descriptor's fields plus the hooks that the
 * built-ins need (parameter-dependent tiles and halos, outputs of other shapes, per-tile
 * partials merged in a fixed pairwise tree). User kernels get the generic hooks.
 */
#ifndef APO_RUNTIME_CATALOG_KERNEL_H
#define APO_RUNTIME_CATALOG_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "apportion.h"
#include "catalog/call_context.h"

typedef struct apo__kernel apo__kernel;

typedef struct apo__grid apo__grid;

typedef struct apo__scoring apo__scoring;

/* A scored call's own copy of its kernel, with its ranges (catalog/score_ranges.h). */
typedef struct apo__ranged_kernel apo__ranged_kernel;

/* One call's resolved workload, shared read-only by every device during the call. */
typedef struct apo__call {
    const apo__kernel *kernel;
    size_t rows, cols;
    const double *const *inputs;
    double *const *outputs;
    double params[APO_MAX_PARAMS]; /* in the kernel's parameter order */
    uint64_t seed;
    size_t axis_len;      /* length of the tiled axis of one row */
    size_t tile;          /* tile length along that axis */
    size_t tiles_per_row; /* ceil(axis_len / tile) */
    uint64_t tiles;       /* rows * tiles_per_row */
    uint64_t unit_work;   /* elements of work per position on the tiled axis */
    double *partials;     /* tiles * kernel->partial_len, or NULL */
    /* This run's context: placement, events, runtime, tag (catalog/call_context.h),
     * resolved once per call by core/ and shared by every piece of its grid. */
    const apo__call_ctx *ctx;
    /* Per tile, the outputs that are not finite although their inputs are, written by the
     * device that computed the tile (kernel->count_nonfinite), or APO_NONFINITE_UNCHECKED.
     * NULL: not counted in this call. */
    uint64_t *nonfinite;
    /* A sweep (apo_workload.sweep) or a ragged call (apo_workload.row_lengths), or NULL.
     * Its tiles are those of its pieces' own calls laid end to end (catalog/grid.h, which
     * every walk over them goes through); the fields above then describe the first piece,
     * except `rows`, `cols` (the workload's), `inputs`, `tiles` (all of them), `outputs`,
     * `partials` and `nonfinite` (the whole call's). */
    apo__grid *grid;
    /* Consecutive pieces of a sweep that run as one (apo__kernel.shares_pass): n_shared > 1
     * calls, this call being a copy of the first; each of its tiles computes that tile for
     * every one of them, each into its own outputs. NULL (n_shared 0): the call alone. Made by
     * apo__grid_share (catalog/grid.h) for the devices that compute on the host
     * (devices/worker_pool.c), read back through apo__grid_shared_pieces. */
    const struct apo__call *shared;
    size_t n_shared;
    /* What `kernel` points to in a call with ranges (apo_workload.ranges), owned by the call
     * and freed with it (apo__sweep_release); NULL otherwise. Its pieces share it. */
    apo__ranged_kernel *ranged;
    /* A stream's call (runtime/streaming/stream.c) gives the kernel's tile length and halo at
     * its parameters, which it knows, so that a catalog kernel need not work them out from
     * the parameters again at every series of an update (catalog_kernels.c, catalog_io: EMA
     * halos take logarithms). 0: not given, work them out. */
    size_t known_tile, known_halo;
} apo__call;

/* A tile of apo__call.nonfinite that no device has checked (yet). */
#define APO_NONFINITE_UNCHECKED UINT64_MAX

/*
 * A contiguous run of tiles [first, end) of a call staged on one GPU. Element (r, t) of
 * input i is in[i][r * cols + t] and of output k is out[k][r * out_cols + t]: the pointers
 * are biased so that absolute indices work while only the staged part is touched (inputs
 * from `halo` before the run's first position, outputs inside the run). partials holds
 * partial_len doubles per tile, for tile g at partials[(g - first) * partial_len].
 *
 * A call of shared pieces (apo__call.shared, n_shared > 1) is one chunk for all its sets:
 * the inputs are staged once, and output k of set j is out[k] + j * set_stride (0 for a call
 * of one set), each set's outputs laid out as the first's.
 */
typedef struct apo__cuda_chunk {
    const double *in[APO_MAX_IO];
    double *out[APO_MAX_IO];
    double *partials;
    uint64_t first, end;
    size_t set_stride;
} apo__cuda_chunk;

/* A kernel's CUDA implementation, as the GPU backend needs it. */
typedef struct apo__cuda_impl {
    /* Leading outputs the GPU writes (the rest are finalized on the host from partials). */
    size_t n_outputs;
    /* Input samples before a tile's first position that the tile reads. */
    size_t (*halo)(const apo__kernel *k, const double *params);
    /* Every tile reads its whole input row (bootstrap draws from all of it). */
    int whole_row_input;
    /* Enqueues the chunk's computation on `stream` (a cudaStream_t); returns the CUDA
     * error of the launch (0: launched). */
    int (*launch)(const apo__call *call, const apo__cuda_chunk *chunk, void *stream);
    /* Every tile reads its whole input row at these parameters though not at others (ma and
     * bbands at matype 7, MAMA); NULL where whole_row_input alone says. Read through
     * apo__kernel_whole_row_input (call_span.h). */
    int (*whole_row_at)(const apo__kernel *k, const double *params);
    /* Where its tiles read whole rows, a GPU runs each row as one serial chain (the catalog's
     * running sums, paths, trackers and Hilbert-transform recurrences: one thread a row, or
     * tiles that each re-run the row's prefix), hundreds of times slower than a cpu thread;
     * 0 where the tiles of a whole row are independent (bootstrap, a scored call's series,
     * which a GPU runs as many chains at once). Read through apo__kernel_serial_rows
     * (call_span.h). */
    int whole_row_serial;
} apo__cuda_impl;

typedef struct apo__param_spec {
    char name[APO_NAME_MAX];
    double def, min, max;
    int integer;
} apo__param_spec;

/* What a stream's resumed piece reads of a series' kept bars before its new ones
 * (apo__kernel.resume_reads). */
typedef enum apo__resume_reads {
    /* The bar a sliding window lets go (halo + 1 before the new one): a running sum. */
    APO_RESUME_READS_EDGE = 0,
    /* None (a recurrence: macd, ema, rsi): not the leaving bar, a line and often a page the
     * update would never touch. */
    APO_RESUME_READS_NEW_ONLY,
    /* Every bar of the window (the halo): a kernel that evaluates each output from its
     * window's own bars (stoch, cci, mfi's direct sums). */
    APO_RESUME_READS_WINDOW,
} apo__resume_reads;

/* The most series a stream hands to apo__kernel.resume_lanes at once. */
#define APO_RESUME_LANES 8

/* Pieces of resume_tile that a stream hands over together (apo__kernel.resume_lanes): lane l
 * is a series' piece of its tile starting at tile[l], from where state[l] stopped to stop[l];
 * in[l] and out[l] are views of that series' inputs and outputs that index positions from its
 * first bar. */
typedef struct apo__resume_lanes {
    size_t n;
    const double *in[APO_RESUME_LANES][APO_MAX_IO];
    double *out[APO_RESUME_LANES][APO_MAX_IO];
    void *state[APO_RESUME_LANES];
    size_t tile[APO_RESUME_LANES], stop[APO_RESUME_LANES];
} apo__resume_lanes;

struct apo__kernel {
    char name[APO_NAME_MAX];
    int builtin;
    size_t n_inputs, n_outputs, n_params;
    /* The inputs' names, in the order of apo_workload.inputs: "close" for a kernel of one
     * price series; "open", "high", "low", "close", "volume" for the bars' columns; "x", "y"
     * for pairs. The CLI and Python map a file's or a frame's columns by these names. */
    char input_names[APO_MAX_IO][APO_NAME_MAX];
    char output_names[APO_MAX_IO][APO_NAME_MAX];
    apo__param_spec params[APO_MAX_PARAMS];
    /* How the halo (apo__kernel_halo()) follows the parameters, in words, for
     * apo_kernel_info. */
    const char *halo_rule;

    /* Checks the parameters against each other and the shape; writes a message into err.
     * NULL: nothing beyond each parameter's own bounds. */
    apo_status (*validate)(const apo__kernel *k, const double *params, size_t rows, size_t cols,
                           char *err, size_t err_size);
    size_t (*axis_len)(const apo__kernel *k, const double *params, size_t cols);
    size_t (*tile_len)(const apo__kernel *k, const double *params);
    uint64_t (*unit_work)(const apo__kernel *k, const double *params, size_t cols);
    size_t (*output_cols)(const apo__kernel *k, const double *params, size_t cols, size_t index);

    /* Computes positions [begin, end) of one row; writes the tile's partial when the kernel
     * has partials. */
    apo_status (*run_tile)(const apo__call *call, size_t row, size_t begin, size_t end,
                           double *partial);

    /* Optional: computes the tiles [first, end) of the call (linear tile indices) at once on
     * the host, one per lane of a vector on path `isa` (kernels/common/cpu_isa.h), with the bits
     * of one run_tile call per tile, partials included. `scratch` holds scratch_len doubles,
     * or is NULL (the kernel then does without). */
    apo_status (*run_tiles)(const apo__call *call, uint64_t first, uint64_t end, int isa,
                            double *scratch, size_t scratch_len);
    /* Doubles of scratch run_tiles wants on path `isa`; NULL: none. */
    size_t (*tiles_scratch)(const apo__call *call, int isa);
    /* Optional: the path run_tiles runs fastest on when the runtime picks it, given the widest
     * this CPU has; every path gives the same bits. NULL: the widest. Not asked where
     * APPORTION_CPU_ISA names a path (apo__kernel_path). */
    int (*path)(const apo__call *call, int widest);
    /* 1: run_tiles gets its tiles a row at a time (groups of tiles_per_row tiles) instead of
     * a round of vector lanes: a running sum's consecutive tiles then share one pass from the
     * row's first sample (catalog_kernels.c, obv and ad). */
    int row_groups;

    /* Optional, for streams (streaming/stream.c): row 0 of the call's tile [begin, ...) fed
     * piece by piece, as apo__cpu_bollinger_resume (kernels/averages/bollinger.h) does it:
     * `state` is resume_size(k) bytes that the stream keeps per series, all zeros when it has
     * none (a new or loaded stream); `fresh` starts the tile at begin (the state then holds
     * the last tile's, which macd uses to start ahead), else it goes on from the last call's
     * stop; positions up to stop - 1 are
     * written with the bits run_tile gives them. Returns 1 when the state can go on at stop,
     * 0 when the next piece must start the tile again. NULL: a stream re-runs the tile
     * from its start with run_tile at every update. */
    int (*resume_tile)(const apo__call *call, void *state, int fresh, size_t begin, size_t stop);
    /* The bytes of that state; 0: this kernel cannot resume after all (a catalog kernel
     * whose body is not a start and a run), and the stream uses run_tile. */
    size_t (*resume_size)(const apo__kernel *k);
    /* Optional: the bytes at the start of that state which a piece within a tile reads (macd:
     * its hot line, kernels/oscillators/macd.c; a catalog recurrence or window: its tile and
     * current run, not the run ahead, apo__catalog_resume_hot_size); NULL: all of them. A stream
     * aligns each series' state to 64 bytes and asks the memory for these bytes only before it
     * feeds a series, so that a cold one-bar update waits for as few lines as it reads. */
    size_t (*resume_hot_size)(const apo__kernel *k);
    /* Optional: resume_tile over several series' pieces at once, each going on (not fresh)
     * within its tile, in the call's kernel and parameters (its inputs and outputs unused):
     * the bits resume_tile gives each, and each state goes on at its stop. A one-bar update
     * of many series is a chain of dependent operations a series (stoch's fastk and two
     * means), which side by side, in the vector lanes of path `isa` (one the CPU has: every
     * path gives the same bits), overlap; NULL: one resume_tile a series. */
    void (*resume_lanes)(const apo__call *call, const apo__resume_lanes *lanes, int isa);
    /* Which kept bars a resumed piece reads besides its new ones, for the lines a stream asks
     * the memory for ahead of an update (streaming/stream.c, prefetch_series); a hint only,
     * which no output depends on. */
    apo__resume_reads resume_reads;
    /* 1: the resumed run carries across tiles (obv and ad, whole-row running sums). Their
     * tile re-runs the sum from the row's first bar, so the bits at t are one sequence of
     * operations over bars 0 .. t whatever the grid; the state is that run's at some bar,
     * not a cache of kept bars. So a stream keeps no bars of such a kernel (but its last K for
     * revises, with the state K bars back: streaming/stream.h, carry_base), starts the state
     * at zeros (the run before bar 0) and never resets it, calls resume_tile with `begin`
     * the piece's first bar (where the state stands; `fresh` unused), saves the state as
     * resume_size / 8 doubles, and never hands the series to the devices
     * (streaming/stream.c, core/stream_devices.c). */
    int resume_carries;
    /* Optional: refuses the parameters a stream cannot keep, with a message in err (maxindex,
     * minindex and minmaxindex carry the samples their scans read, which bounds their period:
     * catalog_kernels.c). NULL: a stream takes whatever a call does. */
    apo_status (*stream_check)(const apo__kernel *k, const double *params, char *err,
                               size_t err_size);

    size_t partial_len; /* doubles per tile partial, 0: none */
    void (*merge)(const double *a, const double *b, double *out);
    void (*finalize)(const apo__call *call, size_t row, const double *root);

    /* Optional: counts the outputs of positions [begin, end) of one row that are not finite
     * although every input sample that defines them is (catalog/nonfinite_outputs.h); run
     * on the host after the tile is written. NULL: the kernel's outputs are not counted. */
    uint64_t (*count_nonfinite)(const apo__call *call, size_t row, size_t begin, size_t end);

    /* Optional: whether the sets of a sweep with parameters a and b (in the kernel's order)
     * may run as one, a tile computing the tile of each with the bits it has alone
     * (apo__call.shared); NULL: never. */
    int (*shares_pass)(const apo__kernel *k, const double *a, const double *b);
    /* Optional: whether such sets may run as one on the host though they do not share a pass
     * (each computes its own, and their folds share the lanes: scored_kernels.c's
     * bollinger rules); NULL: never. */
    int (*shares_host_call)(const apo__kernel *k, const double *a, const double *b);

    /* The CUDA implementation, or NULL: GPUs then take no share of this kernel. */
    const apo__cuda_impl *cuda;

    /* A scored kernel's indicator and rule (scored_kernels.h); NULL for every other. */
    const apo__scoring *scoring;

    /* User kernels. */
    apo_kernel_desc desc;
    size_t user_tile;
    apo__cuda_impl user_cuda; /* k->cuda points here when desc.cuda is set */
};

/* Resolves linear tile `g` of a call to its row and position range. */
static inline void apo__tile_range(const apo__call *call, uint64_t g, size_t *row, size_t *begin,
                                   size_t *end) {
    *row = (size_t)(g / call->tiles_per_row);
    size_t t = (size_t)(g % call->tiles_per_row);
    *begin = t * call->tile;
    size_t e = *begin + call->tile;
    *end = e < call->axis_len ? e : call->axis_len;
}

/* The vector path host tiles of `call` run on: `widest` (an apo__cpu_isa this CPU supports)
 * where `named` (APPORTION_CPU_ISA named it) or the kernel has no preference, else the
 * kernel's own choice (path above). */
static inline int apo__kernel_path(const apo__call *call, int widest, int named) {
    const apo__kernel *k = call->kernel;
    return named || k->path == NULL ? widest : k->path(call, widest);
}

/* Whether two kernel names are the same name: names are compared without regard to ASCII
 * case (docs/api.md, "Kernel names"), so that "RSI" and "Rsi" find rsi, as TA-Lib's users
 * write them, and two kernels cannot differ in case alone. The fold is ASCII's, not the
 * locale's: a program's locale (Turkish's dotless i) must not change what a name finds. */
static inline int apo__kernel_name_equal(const char *a, const char *b) {
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        ca += (ca >= 'A' && ca <= 'Z') ? 'a' - 'A' : 0;
        cb += (cb >= 'A' && cb <= 'Z') ? 'a' - 'A' : 0;
        if (ca != cb)
            return 0;
        if (ca == 0)
            return 1;
    }
}

/* The built-in kernels: bollinger, macd, returns_stats, bootstrap, then the indicator
 * catalog (catalog_kernels.h). */
size_t apo__builtin_kernel_count(void);
const apo__kernel *apo__builtin_kernel(size_t index);
/* The built-in kernel of that name in any case (apo__kernel_name_equal), or NULL. */
const apo__kernel *apo__builtin_kernel_named(const char *name);

/* Builds a kernel from a user descriptor; validates it, writing why not into err. */
apo_status apo__user_kernel_init(apo__kernel *k, const apo_kernel_desc *desc, char *err,
                                 size_t err_size);

#endif

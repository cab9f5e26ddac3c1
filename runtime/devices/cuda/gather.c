/*
 * Gathering the outputs of several GPUs onto the GPU that wants them (apportion_cuda.h,
 * outputs_device). When NCCL can be used, every other GPU keeps the outputs of its tiles
 * resident in a buffer of its own during the phase (cuda_device.c, "segments"), and after
 * the phase one grouped NCCL call moves them all: each source sends, the destination
 * receives each segment straight into its place in the output arrays. Without NCCL (not
 * built, not found, APPORTION_NCCL=0 / apo_config.nccl OFF, or a failed NCCL call) peer copies
 * do the same job: chunk by chunk during the phase, or, after an NCCL failure, segment by
 * segment from the resident buffers. Both paths only copy bytes into disjoint ranges, so
 * the outputs' bits cannot depend on which one ran (docs/cuda.md).
 *
 * The communicators (one per GPU of the runtime, ncclCommInitAll) and one stream per GPU
 * are created at the first grouped gather and kept for the runtime's life; a failure to
 * create them, or a failed grouped call, turns NCCL off for the runtime with one warning.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "devices/cuda/cuda_gpu.h"
#include "devices/cuda/cuda_state.h"
#include "devices/cuda/gather.h"
#include "devices/cuda/nccl_loader.h"

typedef struct apo__gather {
    int disabled; /* NCCL failed once: peer copies for the runtime's life */
    /* Peer access between the runtime's GPUs (apo__gather_enable_peers): checked once;
     * owned[i][j] when this runtime enabled access from GPU i to GPU j (device order) and
     * so disables it at the end. */
    int peers_checked;
    unsigned char peer_owned[APO_MAX_DEVICES][APO_MAX_DEVICES];
#ifdef APO_HAVE_NCCL
    const apo__nccl_api *nccl;
    int comms_made;                /* the communicators exist */
    int ready;                     /* communicators and streams exist */
    int n_ranks;                   /* the runtime's GPUs, in device order */
    int ordinals[APO_MAX_DEVICES]; /* rank -> CUDA ordinal */
    ncclComm_t comms[APO_MAX_DEVICES];
    cudaStream_t streams[APO_MAX_DEVICES];
#endif
} apo__gather;

#ifdef APO_HAVE_NCCL
/* The warnings below go to the runtime's log once: after them NCCL is off. Only the NCCL
 * paths call it (a build without NCCL would warn that it is unused). */
static void turn_off(apo__gather_site *site, const char *why) {
    apo__log(APO_LOG_WARN, APO_SUBSYS_DEVICE,
             "NCCL gather turned off for this runtime (%s); peer copies carry the outputs", why);
    site->state->disabled = 1;
}
#endif

static int ensure_state(apo__gather_site *site) {
    if (site->state == NULL)
        site->state = calloc(1, sizeof *site->state);
    return site->state != NULL;
}

int apo__gather_resident(apo__gather_site *site, int out_gpu) {
#ifdef APO_HAVE_NCCL
    if (out_gpu < 0 || !site->nccl_wanted || site->n_gpus < 2 || !ensure_state(site) ||
        site->state->disabled)
        return 0;
    if (site->state->nccl == NULL) {
        char why[256];
        site->state->nccl = apo__nccl_load(why, sizeof why);
        if (site->state->nccl == NULL) {
            turn_off(site, why);
            return 0;
        }
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE, "NCCL %d.%d.%d loaded for multi-GPU gathers",
                 site->state->nccl->version / 10000, site->state->nccl->version / 100 % 100,
                 site->state->nccl->version % 100);
    }
    return 1;
#else
    (void)site, (void)out_gpu;
    return 0;
#endif
}

#ifdef APO_HAVE_NCCL

static int nccl_ok(apo__gather_site *site, ncclResult_t r, const char *what) {
    if (r == ncclSuccess)
        return 1;
    char why[256];
    snprintf(why, sizeof why, "%s failed: %s", what, site->state->nccl->error_string(r));
    turn_off(site, why);
    return 0;
}

/* Creates one communicator and one stream per GPU of the runtime. */
static int ensure_comms(apo__gather_site *site) {
    apo__gather *g = site->state;
    if (g->ready)
        return 1;
    g->n_ranks = 0;
    for (size_t i = 0; i < site->n_devices; i++)
        if (site->devices[i].info.kind == APO_DEVICE_CUDA)
            g->ordinals[g->n_ranks++] = apo__cuda_ordinal(&site->devices[i]);
    if (!nccl_ok(site, g->nccl->comm_init_all(g->comms, g->n_ranks, g->ordinals),
                 "ncclCommInitAll"))
        return 0;
    g->comms_made = 1;
    for (int r = 0; r < g->n_ranks; r++) {
        cudaError_t e = cudaSetDevice(g->ordinals[r]);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithFlags(&g->streams[r], cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            turn_off(site, "cannot create a stream for the gather");
            return 0;
        }
    }
    g->ready = 1;
    return 1;
}

static int rank_of(const apo__gather *g, int ordinal) {
    for (int r = 0; r < g->n_ranks; r++)
        if (g->ordinals[r] == ordinal)
            return r;
    return -1;
}

/* After a failed grouped call: waits for whatever it still has in flight, so that nothing
 * it moves lands after the peer copies that replace it or reads a freed segment. */
static void quiesce(apo__gather *g) {
    for (int r = 0; r < g->n_ranks; r++)
        if (g->streams[r] != NULL && cudaSetDevice(g->ordinals[r]) == cudaSuccess)
            (void)cudaStreamSynchronize(g->streams[r]);
    (void)cudaGetLastError();
}

/* One grouped call: every segment of every other GPU sent to, and received by, the
 * destination; then waits for all of it. */
static int gather_nccl(apo__gather_site *site, const apo__call *call) {
    apo__gather *g = site->state;
    if (!ensure_comms(site))
        return 0;
    const apo__nccl_api *n = g->nccl;
    const size_t n_out = call->kernel->cuda->n_outputs;
    const int dest = rank_of(g, call->ctx->out_gpu);
    int involved[APO_MAX_DEVICES] = {0};
    if (!nccl_ok(site, n->group_start(), "ncclGroupStart"))
        return 0;
    ncclResult_t r = ncclSuccess;
    for (size_t i = 0; i < site->n_devices && r == ncclSuccess; i++) {
        const apo__gpu_segment *segs;
        size_t count = apo__cuda_segments(&site->devices[i], &segs);
        int src = count > 0 ? rank_of(g, apo__cuda_ordinal(&site->devices[i])) : -1;
        for (size_t s = 0; s < count && r == ncclSuccess; s++) {
            size_t len = segs[s].hi - segs[s].lo;
            for (size_t o = 0; o < n_out && r == ncclSuccess; o++) {
                r = n->send(segs[s].buf + o * len, len, ncclFloat64, dest, g->comms[src],
                            g->streams[src]);
                if (r == ncclSuccess)
                    r = n->recv(call->outputs[o] + segs[s].lo, len, ncclFloat64, src,
                                g->comms[dest], g->streams[dest]);
            }
            involved[src] = involved[dest] = 1;
        }
    }
    /* The group must be closed even after a failed enqueue. */
    ncclResult_t end = n->group_end();
    if (!nccl_ok(site, r != ncclSuccess ? r : end, "the grouped send and receive")) {
        quiesce(g);
        return 0;
    }
    for (int k = 0; k < g->n_ranks; k++) {
        if (!involved[k])
            continue;
        cudaError_t e = cudaSetDevice(g->ordinals[k]);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g->streams[k]);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            turn_off(site, "waiting for the grouped send and receive failed");
            quiesce(g);
            return 0;
        }
    }
    return 1;
}

#endif

/* Enqueues every segment's peer copies to the destination on `stream`. */
static cudaError_t enqueue_peer_copies(apo__gather_site *site, const apo__call *call,
                                       cudaStream_t stream) {
    const size_t n_out = call->kernel->cuda->n_outputs;
    for (size_t i = 0; i < site->n_devices; i++) {
        const apo__gpu_segment *segs;
        size_t count = apo__cuda_segments(&site->devices[i], &segs);
        int src = apo__cuda_ordinal(&site->devices[i]);
        for (size_t s = 0; s < count; s++) {
            size_t len = segs[s].hi - segs[s].lo;
            for (size_t o = 0; o < n_out; o++) {
                cudaError_t e =
                    cudaMemcpyPeerAsync(call->outputs[o] + segs[s].lo, call->ctx->out_gpu,
                                        segs[s].buf + o * len, src, len * sizeof(double), stream);
                if (e != cudaSuccess)
                    return e;
            }
        }
    }
    return cudaSuccess;
}

/* Copies every segment to the destination by peer copies, on a stream of its own, and
 * waits for them (sleeping, on a blocking event): the outputs are complete when the call
 * returns, whatever stream the caller reads them on next, and no unrelated work of the
 * destination GPU is waited for. */
static apo_status gather_peer(apo__gather_site *site, const apo__call *call) {
    cudaStream_t stream = NULL;
    cudaEvent_t done = NULL;
    cudaError_t e = cudaSetDevice(call->ctx->out_gpu);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&done, cudaEventBlockingSync | cudaEventDisableTiming);
    const char *what = "preparing the peer copies";
    if (e == cudaSuccess) {
        what = "peer copy of a GPU's outputs to their destination";
        e = enqueue_peer_copies(site, call, stream);
    }
    if (stream != NULL) {
        /* Even after a failed enqueue: nothing may still be copying once this returns. */
        cudaError_t waited = apo__cuda_wait_stream(stream, done);
        if (e == cudaSuccess && waited != cudaSuccess) {
            e = waited;
            what = "waiting for the peer copies";
        }
        cudaStreamDestroy(stream);
    }
    if (done != NULL)
        cudaEventDestroy(done);
    if (e == cudaSuccess)
        return APO_OK;
    (void)cudaGetLastError();
    return apo__cuda_fail(e, what);
}

static int has_segments(apo__gather_site *site) {
    for (size_t i = 0; i < site->n_devices; i++) {
        const apo__gpu_segment *segs;
        if (apo__cuda_segments(&site->devices[i], &segs) > 0)
            return 1;
    }
    return 0;
}

apo_status apo__gather_finish(apo__gather_site *site, const apo__call *call, apo_gather *path) {
    *path = APO_GATHER_NONE;
    if (!has_segments(site))
        return APO_OK;
    /* The gather switches the current GPU; the caller's is put back. */
    int previous = -1;
    (void)cudaGetDevice(&previous);
    apo_status st = APO_OK;
    int done = 0;
#ifdef APO_HAVE_NCCL
    if (!site->state->disabled && gather_nccl(site, call)) {
        *path = APO_GATHER_NCCL;
        done = 1;
    }
#endif
    if (!done) {
        st = gather_peer(site, call);
        *path = APO_GATHER_PEER;
    }
    apo__gather_discard(site);
    apo__cuda_leave_device(previous);
    return st;
}

void apo__gather_discard(apo__gather_site *site) {
    for (size_t i = 0; i < site->n_devices; i++)
        apo__cuda_release_segments(&site->devices[i]);
}

/* Enables peer access from GPU i to GPU j of the runtime (device order) where the
 * topology allows it; returns whether this call enabled it (it was not on already). */
static int enable_peer(const apo__gather_site *site, size_t i, size_t j) {
    const int from = apo__cuda_ordinal(&site->devices[i]),
              to = apo__cuda_ordinal(&site->devices[j]);
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
        (void)cudaGetLastError();
        return 0;
    }
    cudaError_t e = cudaSetDevice(from);
    if (e == cudaSuccess)
        e = cudaDeviceEnablePeerAccess(to, 0);
    (void)cudaGetLastError();
    if (e == cudaSuccess) {
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE, "peer access enabled from %s to %s",
                 site->devices[i].info.id, site->devices[j].info.id);
        return 1;
    }
    /* Already on (the caller enabled it: not ours to disable), or refused: the peer copies
     * then go through the host, slower but the same bytes. */
    if (e != cudaErrorPeerAccessAlreadyEnabled)
        apo__log(APO_LOG_INFO, APO_SUBSYS_DEVICE, "peer access from %s to %s refused: %s",
                 site->devices[i].info.id, site->devices[j].info.id, cudaGetErrorString(e));
    return 0;
}

void apo__gather_enable_peers(apo__gather_site *site) {
    if (site->n_gpus < 2 || !ensure_state(site) || site->state->peers_checked)
        return;
    apo__gather *g = site->state;
    g->peers_checked = 1;
    int previous = -1;
    (void)cudaGetDevice(&previous);
    for (size_t i = 0; i < site->n_devices; i++)
        for (size_t j = 0; j < site->n_devices; j++)
            if (i != j && site->devices[i].info.kind == APO_DEVICE_CUDA &&
                site->devices[j].info.kind == APO_DEVICE_CUDA)
                g->peer_owned[i][j] = (unsigned char)enable_peer(site, i, j);
    apo__cuda_leave_device(previous);
}

/* Disables the peer access this runtime enabled. */
static void disable_peers(apo__gather_site *site) {
    apo__gather *g = site->state;
    for (size_t i = 0; i < site->n_devices; i++)
        for (size_t j = 0; j < site->n_devices; j++)
            if (g->peer_owned[i][j] &&
                cudaSetDevice(apo__cuda_ordinal(&site->devices[i])) == cudaSuccess)
                (void)cudaDeviceDisablePeerAccess(apo__cuda_ordinal(&site->devices[j]));
    (void)cudaGetLastError();
}

void apo__gather_close(apo__gather_site *site) {
    apo__gather *g = site->state;
    if (g == NULL)
        return;
    int previous = -1;
    (void)cudaGetDevice(&previous);
    disable_peers(site);
#ifdef APO_HAVE_NCCL
    for (int r = 0; r < g->n_ranks; r++) {
        if (g->streams[r] != NULL && cudaSetDevice(g->ordinals[r]) == cudaSuccess)
            cudaStreamDestroy(g->streams[r]);
        if (g->comms_made)
            g->nccl->comm_destroy(g->comms[r]);
    }
    (void)cudaGetLastError();
#endif
    apo__cuda_leave_device(previous);
    free(g);
    site->state = NULL;
}

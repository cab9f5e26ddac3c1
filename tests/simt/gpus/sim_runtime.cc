/*
 * sim_runtime.cc: the simulated CUDA runtime (docs/cuda.md, "A simulated CUDA runtime"): the
 * calls of tests/simt/cuda_runtime_api.h on the host, so that the backend's host code
 * (discovery, streams and events, staging, chunking, peer gathers) runs unchanged in a build
 * with -Dsimulated_gpus=true, its kernels through the SIMT layer (simt.h).
 *
 * Devices: APPORTION_SIMULATED_GPUS (default 2) H100-like GPUs whose name says simulated;
 * APPORTION_SIMULATED_GPU_MEMORY_MB sets each one's memory (default 80 GiB), so that tests can
 * make it small. Device memory is host memory between PROT_NONE guard pages: a kernel or copy
 * running past an allocation faults at once rather than reading a neighbour.
 *
 * Streams: each a queue run by a host thread of its own, which sleeps a small random delay
 * (seeded: APPORTION_SIMULATED_GPU_SEED) before each operation, so that work on different
 * streams interleaves differently from run to run while a stream's own order holds. Events
 * are completion marks. An async copy into host memory poisons its destination when it is
 * enqueued and fills it when it runs: host code that reads it before waiting for the copy's
 * event reads signalling NaNs, which the bitwise tests catch.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include "cuda_runtime_api.h"
#include "simt.h"
#include "simt_api.h"
#include "sim_faults.h"

/* A stream: a queue of operations and the host thread that runs them. */
struct CUstream_st {
    int device = 0;
    bool blocking = true; /* ordered against the legacy default stream */
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::function<void()>> queue;
    unsigned long enqueued = 0, done = 0;
    bool stop = false;
    uint64_t rng = 0;
    pthread_t worker{};
};

/* An event: `recorded` counts the records enqueued, `completed` the last one that ran. */
struct CUevent_st {
    int device = 0;
    unsigned flags = 0;
    unsigned long recorded = 0, completed = 0;
    std::chrono::steady_clock::time_point when{};
};

namespace {

constexpr uint64_t kPoison = 0x7ff4dead5117b10cull; /* the SIMT layer's signalling NaN */
constexpr int kMaxDevices = 16;

enum alloc_kind { DEVICE_MEMORY, PINNED, REGISTERED };

struct allocation {
    size_t size;
    int device;
    alloc_kind kind;
    void *map_base; /* the mapping with its guard pages (device and pinned memory) */
    size_t map_size;
};

/* The two ranges a queued copy names. */
struct queued_copy {
    uintptr_t dst, src;
    size_t count;
};

struct device {
    size_t total = 0, allocated = 0;
    bool peer[kMaxDevices] = {};
    CUstream_st *legacy = nullptr;
    cudaError_t sticky = cudaSuccess; /* a failed kernel, as the CUDA context keeps it */
};

struct state {
    std::mutex m;
    int count = 0;
    std::vector<device> devices;
    std::map<uintptr_t, allocation> allocs; /* by start address */
    std::set<CUstream_st *> streams;
    uint64_t seed = 1;
    unsigned max_delay_us = 50;
    std::mutex events_m; /* every event's fields */
    std::condition_variable events_cv;
    std::mutex launch_m; /* one kernel at a time: static shared memory is one per process */
    /* Injected faults (sim_faults.h), under m. */
    size_t malloc_limit = 0;
    size_t pinned_limit = 0; /* apo_simgpu_fail_pinned_above() */
    unsigned long mallocs_until_failure = 0, launches_until_failure = 0;
    unsigned long calls_until_lost[kMaxDevices] = {};
    bool lost[kMaxDevices] = {};
    /* The copies queued and not yet run, by a number of their own: what a free must not
     * name (under m). */
    std::map<unsigned long, queued_copy> copies;
    unsigned long copies_made = 0;
    /* apo_simgpu_hold_streams(): every stream's thread waits before its next operation. */
    std::atomic<bool> held{false};
    /* apo_simgpu_h2d_bytes(): bytes of host-to-device copies enqueued so far; of them, those
     * read from pageable host memory (neither pinned nor registered). */
    std::atomic<size_t> h2d_bytes{0};
    std::atomic<size_t> pageable_h2d_bytes{0};
    /* apo_simgpu_pageable_d2h_bytes(): device-to-host copies into pageable host memory. */
    std::atomic<size_t> pageable_d2h_bytes{0};
    /* apo_simgpu_hold_pinning(): pinned allocations past the first `pins_allowed` wait while
     * `pins_held`; `pins_waiting` of them wait now (under pin_m). */
    std::mutex pin_m;
    std::condition_variable pin_cv;
    bool pins_held = false;
    unsigned long pins_allowed = 0, pins_waiting = 0;
};

state &g();
void start_worker(CUstream_st *s);
void after_fork_in_child();

thread_local int current_device = 0;

cudaError_t ret(cudaError_t e) {
    if (e != cudaSuccess) {
        simt::set_last_error(e);
    }
    return e;
}

size_t env_size(const char *name, size_t fallback) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        return fallback;
    }
    char *end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 10);
    return end != v && *end == '\0' ? (size_t)x : fallback;
}

state &g() {
    static state *s = [] {
        state *x = new state;
        x->count = (int)env_size("APPORTION_SIMULATED_GPUS", 2);
        if (x->count > kMaxDevices) {
            x->count = kMaxDevices;
        }
        const size_t mb = env_size("APPORTION_SIMULATED_GPU_MEMORY_MB", 80 * 1024);
        x->seed = env_size("APPORTION_SIMULATED_GPU_SEED", 1);
        x->max_delay_us = (unsigned)env_size("APPORTION_SIMULATED_GPU_DELAY_US", 50);
        x->devices.resize((size_t)x->count);
        for (int i = 0; i < x->count; ++i) {
            x->devices[(size_t)i].total = mb << 20;
            CUstream_st *l = new CUstream_st;
            l->device = i;
            l->rng = x->seed * 0x9e3779b97f4a7c15ull + (uint64_t)i;
            x->devices[(size_t)i].legacy = l;
            start_worker(l);
        }
        simt_options o{SIMT_SERIAL_RANDOM, SIMT_COPIES_RANDOM, x->seed, 0, 1, 1};
        simt_set_options(&o);
        pthread_atfork(nullptr, nullptr, after_fork_in_child);
        return x;
    }();
    return *s;
}

uint64_t next_random(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void worker_main(CUstream_st *s) {
    const unsigned max_delay = g().max_delay_us;
    for (;;) {
        std::function<void()> op;
        {
            std::unique_lock<std::mutex> l(s->m);
            s->cv.wait(l, [&] { return s->stop || !s->queue.empty(); });
            if (s->queue.empty()) {
                return;
            }
            op = std::move(s->queue.front());
        }
        while (g().held.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (max_delay > 0) {
            std::this_thread::sleep_for(std::chrono::microseconds(next_random(&s->rng) % max_delay));
        }
        op();
        {
            std::lock_guard<std::mutex> l(s->m);
            s->queue.pop_front();
            ++s->done;
        }
        s->cv.notify_all();
    }
}

void *worker_thread(void *s) {
    worker_main(static_cast<CUstream_st *>(s));
    return nullptr;
}

void start_worker(CUstream_st *s) {
    if (pthread_create(&s->worker, nullptr, worker_thread, s) != 0) {
        std::fprintf(stderr, "simulated GPUs: cannot start a stream's thread\n");
        std::abort();
    }
}

/* A forked child (Criterion runs each test in one, after the parent has probed the GPUs)
 * has none of the parent's stream threads: it gets new ones, and fresh locks, since a lock
 * held by another thread at the fork would stay held for ever. */
void after_fork_in_child() {
    state &st = g();
    new (&st.m) std::mutex;
    new (&st.events_m) std::mutex;
    new (&st.events_cv) std::condition_variable;
    new (&st.launch_m) std::mutex;
    std::vector<CUstream_st *> all(st.streams.begin(), st.streams.end());
    for (device &d : st.devices) {
        all.push_back(d.legacy);
    }
    for (CUstream_st *s : all) {
        new (&s->m) std::mutex;
        new (&s->cv) std::condition_variable;
        start_worker(s);
    }
}

bool valid_device(int d) { return d >= 0 && d < g().count; }

/* Counts a call on device d against an injected loss: 1 when the device is lost. */
bool lost_call(int d) {
    state &st = g();
    std::lock_guard<std::mutex> l(st.m);
    if (d < 0 || d >= st.count) {
        return false;
    }
    if (!st.lost[d] && st.calls_until_lost[d] > 0 && --st.calls_until_lost[d] == 0) {
        st.lost[d] = true;
        st.devices[(size_t)d].sticky = cudaErrorECCUncorrectable;
    }
    return st.lost[d];
}

/* The stream a handle names: the legacy default stream of the current device for 0 and the
 * special handles (per-thread default streams are not simulated apart from it). */
CUstream_st *resolve(cudaStream_t s) {
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
        return g().devices[(size_t)current_device].legacy;
    }
    return s;
}

void enqueue_raw(CUstream_st *s, std::function<void()> op) {
    {
        std::lock_guard<std::mutex> l(s->m);
        s->queue.push_back(std::move(op));
        ++s->enqueued;
    }
    s->cv.notify_all();
}

/* Waits until everything enqueued on `s` so far has run. */
void drain(CUstream_st *s) {
    std::unique_lock<std::mutex> l(s->m);
    const unsigned long target = s->enqueued;
    s->cv.wait(l, [&] { return s->done >= target; });
}

/* A mark: an operation that completes when `s` reaches it; the returned function waits for
 * it from another stream. */
std::function<void()> wait_for_tail(CUstream_st *s) {
    unsigned long target;
    {
        std::lock_guard<std::mutex> l(s->m);
        target = s->enqueued;
    }
    return [s, target] {
        std::unique_lock<std::mutex> l(s->m);
        s->cv.wait(l, [&] { return s->done >= target; });
    };
}

/* Enqueues `op` on `s`, ordered as CUDA orders the legacy default stream: work on it waits
 * for the device's blocking streams, and work on a blocking stream waits for it. */
void enqueue(CUstream_st *s, std::function<void()> op) {
    state &st = g();
    device &d = st.devices[(size_t)s->device];
    if (s == d.legacy) {
        std::vector<std::function<void()>> waits;
        {
            std::lock_guard<std::mutex> l(st.m);
            for (CUstream_st *o : st.streams) {
                if (o->device == s->device && o->blocking) {
                    waits.push_back(wait_for_tail(o));
                }
            }
        }
        for (auto &w : waits) {
            enqueue_raw(s, w);
        }
    } else if (s->blocking) {
        enqueue_raw(s, wait_for_tail(d.legacy));
    }
    enqueue_raw(s, std::move(op));
}

const allocation *find_alloc(const void *p) {
    state &st = g();
    const uintptr_t a = (uintptr_t)p;
    auto it = st.allocs.upper_bound(a);
    if (it == st.allocs.begin()) {
        return nullptr;
    }
    --it;
    if (a >= it->first && a < it->first + (it->second.size > 0 ? it->second.size : 1)) {
        return &it->second;
    }
    return nullptr;
}

/* Host memory between two PROT_NONE guard pages, the usable part ending at the upper guard
 * when the size allows (overruns fault at once) and 256-byte aligned as cudaMalloc's is. */
void *guarded(size_t size, void **base, size_t *map_size) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t body = (size + 255) / 256 * 256;
    const size_t pages = (body + page - 1) / page * page;
    *map_size = pages + 2 * page;
    void *m = mmap(nullptr, *map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        return nullptr;
    }
    char *c = static_cast<char *>(m);
    mprotect(c, page, PROT_NONE);
    mprotect(c + page + pages, page, PROT_NONE);
    *base = m;
    return c + page + (pages - body);
}

void device_sync_all(int dev) {
    std::vector<CUstream_st *> list;
    {
        std::lock_guard<std::mutex> l(g().m);
        for (CUstream_st *o : g().streams) {
            if (o->device == dev) {
                list.push_back(o);
            }
        }
        list.push_back(g().devices[(size_t)dev].legacy);
    }
    for (CUstream_st *s : list) {
        drain(s);
    }
}

/* The poison at every byte's place in its aligned 8-byte word, so that an aligned double
 * reads as the signalling NaN whatever the range's start; whole words at once, since fresh
 * staging buffers are hundreds of MiB. */
void poison_bytes(void *p, size_t n) {
    unsigned char *c = static_cast<unsigned char *>(p);
    size_t i = 0;
    for (; i < n && ((uintptr_t)(c + i) % 8) != 0; ++i) {
        c[i] = (unsigned char)(kPoison >> (8 * ((uintptr_t)(c + i) % 8)));
    }
    for (; i + 8 <= n; i += 8) {
        std::memcpy(c + i, &kPoison, 8);
    }
    for (; i < n; ++i) {
        c[i] = (unsigned char)(kPoison >> (8 * ((uintptr_t)(c + i) % 8)));
    }
}

bool is_device(const void *p) {
    std::lock_guard<std::mutex> l(g().m);
    const allocation *a = find_alloc(p);
    return a != nullptr && a->kind == DEVICE_MEMORY;
}

/* Enqueues a copy on `s` and keeps its ranges in the table of queued copies until it has
 * run, so that a free of memory it names can be refused (refuse_free_if_queued). */
void enqueue_copy(CUstream_st *s, void *dst, const void *src, size_t count) {
    state &st = g();
    unsigned long id;
    {
        std::lock_guard<std::mutex> l(st.m);
        id = ++st.copies_made;
        st.copies[id] = queued_copy{(uintptr_t)dst, (uintptr_t)src, count};
    }
    enqueue(s, [dst, src, count, id] {
        std::memmove(dst, src, count);
        std::lock_guard<std::mutex> l(g().m);
        g().copies.erase(id);
    });
}

/* Whether a queued copy names a byte of [p, p + size); under g().m. */
bool named_by_queued_copy(const void *p, size_t size) {
    const uintptr_t a = (uintptr_t)p, b = a + (size > 0 ? size : 1);
    for (const auto &c : g().copies) {
        const queued_copy &q = c.second;
        if ((q.dst < b && a < q.dst + q.count) || (q.src < b && a < q.src + q.count)) {
            return true;
        }
    }
    return false;
}

/* Freeing or unregistering memory that a queued copy still names is an ordering mistake:
 * CUDA would wait for the whole device (cudaFree) or leave the copy reading freed memory
 * (a caller's pageable array). The simulated runtime refuses it by name, so that a test
 * sees it, instead of waiting as CUDA's implicit synchronisation would; under g().m. */
bool refuse_free_if_queued(const char *call, const void *p, size_t size) {
    if (!named_by_queued_copy(p, size)) {
        return false;
    }
    std::fprintf(stderr,
                 "simulated GPUs: %s(%p) while a queued copy still names that memory: wait for "
                 "the copy's event first\n",
                 call, p);
    simt::set_last_error(cudaErrorIllegalState);
    return true;
}

/* refuse_free_if_queued for the whole allocation holding ptr, under its own lock (the calls
 * that then wait for the devices, which must not hold it). */
bool allocation_named_by_queued_copy(const char *call, const void *ptr) {
    std::lock_guard<std::mutex> l(g().m);
    const allocation *a = find_alloc(ptr);
    return a != nullptr && refuse_free_if_queued(call, ptr, a->size);
}

cudaError_t submit_launch(const simt::launch_shape &shape, void (*body)(void *), void *ctx,
                          void (*destroy)(void *)) {
    const cudaError_t e = simt::check(shape);
    if (e != cudaSuccess) {
        destroy(ctx);
        return e;
    }
    CUstream_st *s = resolve(shape.stream);
    if (lost_call(s->device)) {
        destroy(ctx);
        return ret(cudaErrorECCUncorrectable);
    }
    bool fail_it;
    {
        std::lock_guard<std::mutex> l(g().m);
        fail_it = g().launches_until_failure > 0 && --g().launches_until_failure == 0;
    }
    enqueue(s, [shape, body, ctx, destroy, s, fail_it] {
        cudaError_t r = cudaErrorLaunchFailure;
        if (fail_it) {
            std::fprintf(stderr, "simulated GPU %d: an injected launch failure\n", s->device);
        } else {
            std::lock_guard<std::mutex> l(g().launch_m);
            r = simt::run(shape, body, ctx);
        }
        destroy(ctx);
        if (r != cudaSuccess) {
            if (!fail_it) {
                std::fprintf(stderr, "simulated GPU %d: a kernel failed: %s\n", s->device,
                             simt_last_failure());
            }
            std::lock_guard<std::mutex> l(g().m);
            g().devices[(size_t)s->device].sticky = cudaErrorLaunchFailure;
        }
    });
    return cudaSuccess;
}

/* Installs the submitter when the library loads: every launch of the kernels goes to its
 * stream's queue. */
struct installer {
    installer() { simt::set_submitter(submit_launch); }
} install_submitter;

cudaError_t sticky(int dev) {
    std::lock_guard<std::mutex> l(g().m);
    return g().devices[(size_t)dev].sticky;
}

} // namespace

/* ---- errors, versions -------------------------------------------------------------------- */

extern "C" {

const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;
        NAME(cudaSuccess)
        NAME(cudaErrorInvalidValue)
        NAME(cudaErrorMemoryAllocation)
        NAME(cudaErrorInitializationError)
        NAME(cudaErrorInvalidConfiguration)
        NAME(cudaErrorInvalidMemcpyDirection)
        NAME(cudaErrorInsufficientDriver)
        NAME(cudaErrorDevicesUnavailable)
        NAME(cudaErrorNoDevice)
        NAME(cudaErrorECCUncorrectable)
        NAME(cudaErrorInvalidDevice)
        NAME(cudaErrorInvalidResourceHandle)
        NAME(cudaErrorNotReady)
        NAME(cudaErrorIllegalAddress)
        NAME(cudaErrorPeerAccessAlreadyEnabled)
        NAME(cudaErrorPeerAccessNotEnabled)
        NAME(cudaErrorHostMemoryAlreadyRegistered)
        NAME(cudaErrorHostMemoryNotRegistered)
        NAME(cudaErrorLaunchFailure)
        NAME(cudaErrorIllegalState)
        NAME(cudaErrorUnknown)
#undef NAME
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory (simulated GPU)";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected (simulated: APPORTION_SIMULATED_GPUS=0)";
    case cudaErrorLaunchFailure:
        return "unspecified launch failure (simulated GPU: see the SIMT layer's reason)";
    case cudaErrorInvalidResourceHandle:
        return "invalid resource handle";
    default:
        return cudaGetErrorName(e);
    }
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v) {
    *v = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- devices ----------------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count) {
    *count = g().count;
    return g().count > 0 ? cudaSuccess : ret(cudaErrorNoDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev) {
    if (p == nullptr || !valid_device(dev)) {
        return ret(cudaErrorInvalidDevice);
    }
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "NVIDIA H100 80GB HBM3 (simulated)");
    for (int i = 0; i < 16; ++i) {
        p->uuid.bytes[i] = (char)(i == 0 ? 0x51 : i == 15 ? dev : 0x5e + i);
    }
    p->totalGlobalMem = g().devices[(size_t)dev].total;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = 227 * 1024;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = 132;
    p->asyncEngineCount = 3;
    p->pciBusID = 0x18 + dev;
    p->unifiedAddressing = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev) {
    if (!valid_device(dev)) {
        return ret(cudaErrorInvalidDevice);
    }
    if (lost_call(dev)) {
        return ret(cudaErrorECCUncorrectable);
    }
    current_device = dev;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev) {
    *dev = current_device;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
    device_sync_all(current_device);
    return ret(sticky(current_device));
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    std::lock_guard<std::mutex> l(g().m);
    const device &d = g().devices[(size_t)current_device];
    *free_bytes = d.total - d.allocated;
    *total_bytes = d.total;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer) {
    if (!valid_device(dev) || !valid_device(peer)) {
        return ret(cudaErrorInvalidDevice);
    }
    *can = dev != peer;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
    if (!valid_device(peer) || flags != 0 || peer == current_device) {
        return ret(cudaErrorInvalidDevice);
    }
    std::lock_guard<std::mutex> l(g().m);
    bool &p = g().devices[(size_t)current_device].peer[peer];
    if (p) {
        return ret(cudaErrorPeerAccessAlreadyEnabled);
    }
    p = true;
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    if (!valid_device(peer)) {
        return ret(cudaErrorInvalidDevice);
    }
    std::lock_guard<std::mutex> l(g().m);
    bool &p = g().devices[(size_t)current_device].peer[peer];
    if (!p) {
        return ret(cudaErrorPeerAccessNotEnabled);
    }
    p = false;
    return cudaSuccess;
}

/* ---- memory ------------------------------------------------------------------------------ */

cudaError_t cudaMalloc(void **ptr, size_t size) {
    if (ptr == nullptr) {
        return ret(cudaErrorInvalidValue);
    }
    if (lost_call(current_device)) {
        return ret(cudaErrorECCUncorrectable);
    }
    state &st = g();
    {
        std::lock_guard<std::mutex> l(st.m);
        device &d = st.devices[(size_t)current_device];
        if (st.mallocs_until_failure > 0 && --st.mallocs_until_failure == 0) {
            st.mallocs_until_failure = 1; /* and every later one */
            return ret(cudaErrorMemoryAllocation);
        }
        if (st.malloc_limit > 0 && size > st.malloc_limit) {
            return ret(cudaErrorMemoryAllocation);
        }
        if (size > d.total - d.allocated) {
            return ret(cudaErrorMemoryAllocation);
        }
        d.allocated += size;
    }
    void *base = nullptr;
    size_t map_size = 0;
    void *p = guarded(size, &base, &map_size);
    std::lock_guard<std::mutex> l(st.m);
    if (p == nullptr) {
        st.devices[(size_t)current_device].allocated -= size;
        return ret(cudaErrorMemoryAllocation);
    }
    /* Fresh device memory holds garbage on a GPU: the poison makes a read of it show. */
    poison_bytes(p, size);
    st.allocs[(uintptr_t)p] = allocation{size, current_device, DEVICE_MEMORY, base, map_size};
    *ptr = p;
    return cudaSuccess;
}

/* Gives back the device memory at ptr (an allocation's start); false if there is none. */
static bool release_device_memory(void *ptr) {
    std::lock_guard<std::mutex> l(g().m);
    auto it = g().allocs.find((uintptr_t)ptr);
    if (it == g().allocs.end()) {
        return false;
    }
    g().devices[(size_t)it->second.device].allocated -= it->second.size;
    munmap(it->second.map_base, it->second.map_size);
    g().allocs.erase(it);
    return true;
}

cudaError_t cudaFree(void *ptr) {
    if (ptr == nullptr) {
        return cudaSuccess; /* what the backend calls to create the context */
    }
    int dev;
    {
        std::lock_guard<std::mutex> l(g().m);
        const allocation *a = find_alloc(ptr);
        if (a == nullptr || a->kind != DEVICE_MEMORY || (uintptr_t)ptr != (uintptr_t)ptr) {
            return ret(cudaErrorInvalidValue);
        }
        if (refuse_free_if_queued("cudaFree", ptr, a->size)) {
            return cudaErrorIllegalState;
        }
        dev = a->device;
    }
    /* cudaFree waits for the device, so that no queued work still names the memory. */
    device_sync_all(dev);
    return release_device_memory(ptr) ? cudaSuccess : ret(cudaErrorInvalidValue);
}

/* Stream-ordered allocation: the memory is had at once (a GPU's pool may hand it out later,
 * in stream order, which no caller can tell apart). */
cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream) {
    (void)stream;
    return cudaMalloc(ptr, size);
}

/* Stream-ordered free: the memory goes when the stream reaches the call, after the work
 * queued before it, without waiting for the device. */
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream) {
    {
        std::lock_guard<std::mutex> l(g().m);
        const allocation *a = find_alloc(ptr);
        if (a == nullptr || a->kind != DEVICE_MEMORY) {
            return ret(cudaErrorInvalidValue);
        }
    }
    enqueue(resolve(stream), [ptr] { (void)release_device_memory(ptr); });
    return cudaSuccess;
}

/* Waits while apo_simgpu_hold_pinning() holds this pinned allocation back. */
static void wait_for_pinning_hold() {
    std::unique_lock<std::mutex> l(g().pin_m);
    if (!g().pins_held) {
        return;
    }
    if (g().pins_allowed > 0) {
        g().pins_allowed--;
        return;
    }
    g().pins_waiting++;
    g().pin_cv.wait(l, [] { return !g().pins_held; });
    g().pins_waiting--;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
    (void)flags;
    if (ptr == nullptr) {
        return ret(cudaErrorInvalidValue);
    }
    wait_for_pinning_hold();
    {
        std::lock_guard<std::mutex> l(g().m);
        if (g().pinned_limit > 0 && size > g().pinned_limit) {
            return ret(cudaErrorMemoryAllocation);
        }
    }
    void *base = nullptr;
    size_t map_size = 0;
    void *p = guarded(size, &base, &map_size);
    if (p == nullptr) {
        return ret(cudaErrorMemoryAllocation);
    }
    std::lock_guard<std::mutex> l(g().m);
    g().allocs[(uintptr_t)p] = allocation{size, -1, PINNED, base, map_size};
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) { return cudaHostAlloc(ptr, size, 0); }

static void sync_every_device() {
    for (int d = 0; d < g().count; ++d) {
        device_sync_all(d);
    }
}

cudaError_t cudaFreeHost(void *ptr) {
    if (ptr == nullptr) {
        return cudaSuccess;
    }
    if (allocation_named_by_queued_copy("cudaFreeHost", ptr)) {
        return cudaErrorIllegalState;
    }
    sync_every_device();
    std::lock_guard<std::mutex> l(g().m);
    auto it = g().allocs.find((uintptr_t)ptr);
    if (it == g().allocs.end() || it->second.kind != PINNED) {
        return ret(cudaErrorInvalidValue);
    }
    munmap(it->second.map_base, it->second.map_size);
    g().allocs.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    (void)flags;
    if (ptr == nullptr || size == 0) {
        return ret(cudaErrorInvalidValue);
    }
    std::lock_guard<std::mutex> l(g().m);
    if (find_alloc(ptr) != nullptr ||
        find_alloc(static_cast<const char *>(ptr) + size - 1) != nullptr) {
        return ret(cudaErrorHostMemoryAlreadyRegistered);
    }
    g().allocs[(uintptr_t)ptr] = allocation{size, -1, REGISTERED, nullptr, 0};
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr) {
    if (allocation_named_by_queued_copy("cudaHostUnregister", ptr)) {
        return cudaErrorIllegalState;
    }
    sync_every_device();
    std::lock_guard<std::mutex> l(g().m);
    auto it = g().allocs.find((uintptr_t)ptr);
    if (it == g().allocs.end() || it->second.kind != REGISTERED) {
        return ret(cudaErrorHostMemoryNotRegistered);
    }
    g().allocs.erase(it);
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr) {
    if (attr == nullptr) {
        return ret(cudaErrorInvalidValue);
    }
    std::lock_guard<std::mutex> l(g().m);
    const allocation *a = find_alloc(ptr);
    attr->type = a == nullptr                ? cudaMemoryTypeUnregistered
                 : a->kind == DEVICE_MEMORY ? cudaMemoryTypeDevice
                                            : cudaMemoryTypeHost;
    attr->device = a != nullptr && a->kind == DEVICE_MEMORY ? a->device : current_device;
    attr->devicePointer = a != nullptr ? const_cast<void *>(ptr) : nullptr;
    attr->hostPointer = a != nullptr && a->kind != DEVICE_MEMORY ? const_cast<void *>(ptr) : nullptr;
    return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t count) {
    if (!is_device(ptr)) {
        return ret(cudaErrorInvalidValue);
    }
    CUstream_st *s = resolve(nullptr);
    enqueue(s, [ptr, value, count] { std::memset(ptr, value, count); });
    drain(s);
    return cudaSuccess;
}

/* ---- copies ------------------------------------------------------------------------------ */

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    if ((int)kind < 0 || (int)kind > 4) {
        return ret(cudaErrorInvalidMemcpyDirection);
    }
    if (count == 0) {
        return cudaSuccess;
    }
    if (dst == nullptr || src == nullptr) {
        return ret(cudaErrorInvalidValue);
    }
    const bool dst_dev = is_device(dst), src_dev = is_device(src);
    if ((kind == cudaMemcpyHostToDevice && (!dst_dev || src_dev)) ||
        (kind == cudaMemcpyDeviceToHost && (dst_dev || !src_dev)) ||
        (kind == cudaMemcpyDeviceToDevice && (!dst_dev || !src_dev))) {
        return ret(cudaErrorInvalidValue);
    }
    CUstream_st *s = resolve(stream);
    if (lost_call(s->device)) {
        return ret(cudaErrorECCUncorrectable);
    }
    if (!dst_dev) {
        /* Host code must wait for the copy before it reads the bytes: until then they are
         * poison. */
        poison_bytes(dst, count);
    }
    if (dst_dev && !src_dev) {
        g().h2d_bytes.fetch_add(count);
        bool pageable;
        {
            std::lock_guard<std::mutex> l(g().m);
            pageable = find_alloc(src) == nullptr;
        }
        if (pageable) {
            g().pageable_h2d_bytes.fetch_add(count);
        }
    }
    if (src_dev && !dst_dev) {
        bool pageable;
        {
            std::lock_guard<std::mutex> l(g().m);
            pageable = find_alloc(dst) == nullptr;
        }
        if (pageable) {
            g().pageable_d2h_bytes.fetch_add(count);
        }
    }
    enqueue_copy(s, dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                size_t count, cudaStream_t stream) {
    if (!valid_device(dst_device) || !valid_device(src_device)) {
        return ret(cudaErrorInvalidDevice);
    }
    if (count == 0) {
        return cudaSuccess;
    }
    if (!is_device(dst) || !is_device(src)) {
        return ret(cudaErrorInvalidValue);
    }
    if (lost_call(dst_device) || lost_call(src_device)) {
        return ret(cudaErrorECCUncorrectable);
    }
    enqueue_copy(resolve(stream), dst, src, count);
    return cudaSuccess;
}

/* ---- streams ----------------------------------------------------------------------------- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
    if (stream == nullptr || (flags & ~1u) != 0) {
        return ret(cudaErrorInvalidValue);
    }
    if (lost_call(current_device)) {
        return ret(cudaErrorECCUncorrectable);
    }
    CUstream_st *s = new CUstream_st;
    s->device = current_device;
    s->blocking = (flags & cudaStreamNonBlocking) == 0;
    {
        std::lock_guard<std::mutex> l(g().m);
        s->rng = g().seed * 0x2545f4914f6cdd1dull + (uint64_t)g().streams.size() + 97;
        g().streams.insert(s);
    }
    start_worker(s);
    *stream = s;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
        return ret(cudaErrorInvalidResourceHandle);
    }
    {
        std::lock_guard<std::mutex> l(g().m);
        if (g().streams.erase(stream) == 0) {
            return ret(cudaErrorInvalidResourceHandle);
        }
    }
    /* CUDA lets queued work finish after the destroy returns; here it finishes first. */
    drain(stream);
    {
        std::lock_guard<std::mutex> l(stream->m);
        stream->stop = true;
    }
    stream->cv.notify_all();
    pthread_join(stream->worker, nullptr);
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    drain(s);
    return ret(sticky(s->device));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    if (event == nullptr || flags != 0) {
        return ret(cudaErrorInvalidValue);
    }
    unsigned long target;
    {
        std::lock_guard<std::mutex> l(g().events_m);
        target = event->recorded;
    }
    enqueue(resolve(stream), [event, target] {
        std::unique_lock<std::mutex> l(g().events_m);
        g().events_cv.wait(l, [&] { return event->completed >= target; });
    });
    return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int *device) {
    *device = resolve(stream)->device;
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data) {
    enqueue(resolve(stream), [fn, user_data] { fn(user_data); });
    return cudaSuccess;
}

/* ---- events ------------------------------------------------------------------------------ */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    if (event == nullptr || (flags & ~3u) != 0) {
        return ret(cudaErrorInvalidValue);
    }
    CUevent_st *e = new CUevent_st;
    e->device = current_device;
    e->flags = flags;
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (event == nullptr) {
        return ret(cudaErrorInvalidResourceHandle);
    }
    /* CUDA lets a destroyed event's pending record complete; the record's operation names
     * the event, so it is freed only once that has run. */
    std::unique_lock<std::mutex> l(g().events_m);
    g().events_cv.wait(l, [&] { return event->completed >= event->recorded; });
    l.unlock();
    delete event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (event == nullptr) {
        return ret(cudaErrorInvalidResourceHandle);
    }
    if (lost_call(resolve(stream)->device)) {
        return ret(cudaErrorECCUncorrectable);
    }
    unsigned long target;
    {
        std::lock_guard<std::mutex> l(g().events_m);
        target = ++event->recorded;
    }
    enqueue(resolve(stream), [event, target] {
        {
            std::lock_guard<std::mutex> l(g().events_m);
            if (target > event->completed) {
                event->completed = target;
                event->when = std::chrono::steady_clock::now();
            }
        }
        g().events_cv.notify_all();
    });
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (event == nullptr) {
        return ret(cudaErrorInvalidResourceHandle);
    }
    std::unique_lock<std::mutex> l(g().events_m);
    const unsigned long target = event->recorded;
    g().events_cv.wait(l, [&] { return event->completed >= target; });
    const int dev = event->device;
    l.unlock();
    return ret(sticky(dev));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    if (ms == nullptr || start == nullptr || end == nullptr) {
        return ret(cudaErrorInvalidResourceHandle);
    }
    std::lock_guard<std::mutex> l(g().events_m);
    if ((start->flags & cudaEventDisableTiming) || (end->flags & cudaEventDisableTiming) ||
        start->recorded == 0 || end->recorded == 0) {
        return ret(cudaErrorInvalidResourceHandle);
    }
    if (start->completed < start->recorded || end->completed < end->recorded) {
        return ret(cudaErrorNotReady);
    }
    /* Host time between the two marks: what the queues took, not what a GPU would. */
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}

} // extern "C"

/* ---- injected faults (sim_faults.h) ---------------------------------------------------- */

extern "C" void apo_simgpu_fail_mallocs_above(size_t bytes) {
    std::lock_guard<std::mutex> l(g().m);
    g().malloc_limit = bytes;
}

extern "C" void apo_simgpu_fail_mallocs_from(unsigned long nth) {
    std::lock_guard<std::mutex> l(g().m);
    g().mallocs_until_failure = nth;
}

extern "C" void apo_simgpu_fail_launch(unsigned long nth) {
    std::lock_guard<std::mutex> l(g().m);
    g().launches_until_failure = nth;
}

extern "C" void apo_simgpu_lose_device(int device, unsigned long nth) {
    std::lock_guard<std::mutex> l(g().m);
    if (device >= 0 && device < g().count) {
        g().calls_until_lost[device] = nth;
    }
}

extern "C" void apo_simgpu_clear_faults(void) {
    std::lock_guard<std::mutex> l(g().m);
    state &st = g();
    st.malloc_limit = 0;
    st.pinned_limit = 0;
    st.mallocs_until_failure = 0;
    st.launches_until_failure = 0;
    for (int d = 0; d < kMaxDevices; ++d) {
        st.calls_until_lost[d] = 0;
        st.lost[d] = false;
    }
    for (device &d : st.devices) {
        d.sticky = cudaSuccess;
    }
}

extern "C" void apo_simgpu_hold_streams(int hold) { g().held.store(hold != 0); }

extern "C" size_t apo_simgpu_h2d_bytes(void) { return g().h2d_bytes.load(); }

extern "C" size_t apo_simgpu_pageable_h2d_bytes(void) { return g().pageable_h2d_bytes.load(); }

extern "C" size_t apo_simgpu_pageable_d2h_bytes(void) { return g().pageable_d2h_bytes.load(); }

extern "C" void apo_simgpu_fail_pinned_above(size_t bytes) {
    std::lock_guard<std::mutex> l(g().m);
    g().pinned_limit = bytes;
}

extern "C" void apo_simgpu_hold_pinning(unsigned long allowed) {
    std::lock_guard<std::mutex> l(g().pin_m);
    g().pins_held = true;
    g().pins_allowed = allowed;
}

extern "C" void apo_simgpu_release_pinning(void) {
    {
        std::lock_guard<std::mutex> l(g().pin_m);
        g().pins_held = false;
    }
    g().pin_cv.notify_all();
}

extern "C" unsigned long apo_simgpu_pinning_waiting(void) {
    std::lock_guard<std::mutex> l(g().pin_m);
    return g().pins_waiting;
}

extern "C" size_t apo_simgpu_pinned_bytes(size_t *allocations) {
    std::lock_guard<std::mutex> l(g().m);
    size_t bytes = 0, n = 0;
    for (const auto &a : g().allocs) {
        if (a.second.kind == PINNED) {
            bytes += a.second.size;
            n++;
        }
    }
    if (allocations != nullptr) {
        *allocations = n;
    }
    return bytes;
}

extern "C" size_t apo_simgpu_copies_in_flight(void) {
    std::lock_guard<std::mutex> l(g().m);
    return g().copies.size();
}

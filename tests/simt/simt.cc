/*
 * simt.cc: the SIMT layer's runtime (simt.h, simt_api.h; docs/cuda.md, "Device code on the
 * host").
 *
 * What: a launch checks its shape against an sm_90 device, then runs the blocks one after
 * another; each block gets one host thread per CUDA thread, its shared memory (the statics
 * of the "simt_shared" section and a buffer for the dynamic part) filled with a signalling
 * NaN first. Barriers (__syncthreads, __syncwarp and the ones inside the warp intrinsics)
 * are a mutex and a condition variable per block: ThreadSanitizer sees them, so it sees a
 * kernel's data races between two barriers. In the serial schedules one thread runs at a
 * time, from a barrier to the next, in an order the layer draws: a missing barrier then
 * shows as a phase that ran before the one it depends on, the same way every run.
 *
 * Blocks run one at a time, so races between blocks are not shown (docs/cuda.md).
 */
#include "simt.h"

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_pipeline_primitives.h"
#include "simt_api.h"

thread_local uint3 threadIdx;
thread_local uint3 blockIdx;
thread_local dim3 blockDim;
thread_local dim3 gridDim;

/* The linker's bounds of the section that holds every __shared__ static (weak: a program
 * may have none). */
extern "C" {
extern char __start_simt_shared[] __attribute__((weak));
extern char __stop_simt_shared[] __attribute__((weak));
}

namespace {

/* An sm_90 device (CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability"). */
constexpr unsigned long kMaxBlockThreads = 1024;
constexpr unsigned kMaxBlockX = 1024, kMaxBlockY = 1024, kMaxBlockZ = 64;
constexpr unsigned long kMaxGridX = 2147483647ul;
constexpr unsigned kMaxGridYZ = 65535;
constexpr size_t kSharedNoOptIn = 48 * 1024;
constexpr size_t kSharedOptInMax = 227 * 1024;
constexpr unsigned kWarp = 32;

/* A signalling NaN with a payload no kernel computes: shared memory read before it is
 * written shows in the outputs. */
constexpr uint64_t kPoison = 0x7ff4dead5117b10cull;

size_t host_stack_bytes() { return (size_t)2 << 20; }

struct registry {
    std::mutex m;
    simt_options options{SIMT_FREE, SIMT_COPIES_RANDOM, 1, 0, 0, 0};
    std::map<const void *, size_t> static_bytes;
    std::map<const void *, size_t> opt_in;
    /* Kernels whose first block made no barrier, warp exchange or async copy: with
     * inline_barrier_free, their later blocks run their threads in turn on the launching
     * thread (simt_api.h). */
    std::map<const void *, bool> barrier_free;
    std::string failure;
    unsigned long launch_count = 0;
    size_t most_dynamic = 0, most_static = 0;
    unsigned most_threads = 0;
};

/* A function-local static: the registrations run during static initialisation, in any order. */
registry &reg() {
    static registry r;
    return r;
}

std::atomic<unsigned long> st_launches{0}, st_failed{0}, st_blocks{0}, st_threads{0},
    st_barriers{0}, st_skipped{0}, st_early{0}, st_late{0}, st_staged_general{0}, st_staged_fast{0};

thread_local cudaError_t last_error = cudaSuccess;

uint64_t next_random(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void poison(void *p, size_t bytes) {
    unsigned char *c = static_cast<unsigned char *>(p);
    for (size_t i = 0; i < bytes; ++i) {
        c[i] = (unsigned char)(kPoison >> (8 * (i % 8)));
    }
}

enum thread_state { RUNNABLE, WAITING, EXITED };

struct barrier_state {
    unsigned arrived = 0;
    uint64_t generation = 0;
};

/* One mutex per block; each thread waits on a condition variable of its own for its turn
 * (serial schedules) and on its warp's or the block's at a barrier (the free one), so that
 * a release or a turn wakes only the threads it concerns. */
struct block_ctx {
    std::mutex m;
    std::unique_ptr<std::condition_variable[]> turn_cv, warp_cv;
    std::condition_variable block_cv;
    unsigned n = 0, warps = 0, live = 0;
    std::vector<unsigned> warp_live;
    std::vector<uint32_t> warp_exited;
    barrier_state block_barrier;
    std::vector<barrier_state> warp_barrier;
    simt_options opt{};
    uint64_t rng = 0;
    unsigned current = 0;
    std::vector<int> state;
    std::vector<int> waits_on; /* -1: the block's barrier, w: warp w's */
    bool broken = false;
    std::string fault;
    std::vector<uint64_t> slots; /* one per thread, for the warp intrinsics */
    void (*body)(void *) = nullptr;
    void *ctx = nullptr;
    uint3 block_idx{0, 0, 0};
    dim3 grid, block;
    void *dynamic = nullptr;
    size_t dynamic_bytes = 0;
    /* Barriers, warp exchanges and async copies the block made; a block run inline (its
     * threads in turn on one host thread) may make none. */
    std::atomic<unsigned long> sync_calls{0};
    bool inline_mode = false;
    /* Fibers (simt_options.fibers): every thread's context, and the block runner's. */
    ucontext_t *fiber = nullptr;
    ucontext_t runner;
    struct thread_ctx *threads = nullptr;
};

struct copy_op {
    void *dst;
    const void *src;
    size_t size, zfill, batch;
};

struct thread_ctx {
    thread_ctx() = default;
    block_ctx *b = nullptr;
    unsigned tid = 0, lane = 0, warp = 0;
    unsigned long barrier_calls = 0;
    uint64_t rng = 0;
    std::vector<copy_op> pending;
    size_t batch = 0; /* the batch being filled; 0 .. batch - 1 are committed */
};

thread_local thread_ctx *self = nullptr;

bool serial(const block_ctx &b) { return b.opt.schedule != SIMT_FREE; }

/* Marks the block broken: every barrier from now on lets its threads through, so that the
 * launch ends and reports `why` instead of hanging. Called with b.m held. */
void set_fault(block_ctx &b, const std::string &why) {
    if (b.fault.empty()) {
        b.fault = why;
    }
    b.broken = true;
    b.block_cv.notify_all();
    for (unsigned i = 0; i < b.n; ++i) {
        b.turn_cv[i].notify_all();
    }
    for (unsigned w = 0; w < b.warps; ++w) {
        b.warp_cv[w].notify_all();
    }
}

/* Serial schedules: hands the turn to the next runnable thread. Called with b.m held. */
void pass_turn(block_ctx &b) {
    unsigned runnable = 0, lowest = b.n, highest = 0, waiting = 0;
    for (unsigned i = 0; i < b.n; ++i) {
        if (b.state[i] == RUNNABLE) {
            ++runnable;
            lowest = lowest < i ? lowest : i;
            highest = i;
        } else if (b.state[i] == WAITING) {
            ++waiting;
        }
    }
    if (runnable == 0) {
        if (waiting > 0) {
            set_fault(b, "threads wait at barriers that the others never reach");
        }
        return;
    }
    unsigned pick = b.opt.schedule == SIMT_SERIAL_ASCENDING ? lowest : highest;
    if (b.opt.schedule == SIMT_SERIAL_RANDOM) {
        unsigned k = (unsigned)(next_random(&b.rng) % runnable);
        for (unsigned i = 0; i < b.n; ++i) {
            if (b.state[i] == RUNNABLE && k-- == 0) {
                pick = i;
                break;
            }
        }
    }
    b.current = pick;
    b.turn_cv[pick].notify_one();
}

/* Fibers: makes thread `to` the running one (its indices in the host thread's
 * thread-locals) and switches to it from `from`. */
void switch_to(block_ctx &b, ucontext_t *from, unsigned to) {
    thread_ctx &t = b.threads[to];
    self = &t;
    threadIdx.x = t.tid % b.block.x;
    threadIdx.y = t.tid / b.block.x % b.block.y;
    threadIdx.z = t.tid / (b.block.x * b.block.y);
    swapcontext(from, &b.fiber[to]);
}

void wait_turn(block_ctx &b, std::unique_lock<std::mutex> &l, unsigned me) {
    if (b.fiber != nullptr) {
        /* One host thread runs every fiber: the lock is let go across the switch, and
         * whoever switches back to this thread has made it the current one. */
        while (!(b.broken || (b.current == me && b.state[me] == RUNNABLE))) {
            const unsigned next = b.current;
            l.unlock();
            switch_to(b, &b.fiber[me], next);
            l.lock();
        }
        return;
    }
    b.turn_cv[me].wait(l, [&] { return b.broken || (b.current == me && b.state[me] == RUNNABLE); });
}

void release(block_ctx &b, barrier_state &bar, int id) {
    bar.arrived = 0;
    ++bar.generation;
    if (serial(b)) {
        for (unsigned i = 0; i < b.n; ++i) {
            if (b.state[i] == WAITING && b.waits_on[i] == id) {
                b.state[i] = RUNNABLE;
            }
        }
    } else if (id < 0) {
        b.block_cv.notify_all();
    } else {
        b.warp_cv[id].notify_all();
    }
}

/* A barrier among the block's threads (block_wide) or the calling thread's warp. */
void barrier(bool block_wide) {
    thread_ctx &t = *self;
    block_ctx &b = *t.b;
    std::unique_lock<std::mutex> l(b.m);
    b.sync_calls.fetch_add(1, std::memory_order_relaxed);
    if (b.inline_mode) {
        set_fault(b, "a barrier in a block run inline (the kernel's first block had none)");
    }
    if (b.broken) {
        return;
    }
    if (!block_wide && b.warp_exited[t.warp] != 0) {
        set_fault(b, "__syncwarp while a lane of the warp has exited");
        return;
    }
    const int id = block_wide ? -1 : (int)t.warp;
    barrier_state &bar = block_wide ? b.block_barrier : b.warp_barrier[t.warp];
    const unsigned expected = block_wide ? b.live : b.warp_live[t.warp];
    const uint64_t generation = bar.generation;
    if (++bar.arrived == expected) {
        release(b, bar, id);
    } else if (serial(b)) {
        b.state[t.tid] = WAITING;
        b.waits_on[t.tid] = id;
    }
    if (serial(b)) {
        pass_turn(b);
        wait_turn(b, l, t.tid);
    } else {
        std::condition_variable &cv = block_wide ? b.block_cv : b.warp_cv[t.warp];
        cv.wait(l, [&] { return b.broken || bar.generation != generation; });
    }
}

void fault_here(const std::string &why) {
    block_ctx &b = *self->b;
    std::lock_guard<std::mutex> l(b.m);
    set_fault(b, why);
}

/* Counts an explicit barrier and says whether it holds (the planted fault skips one). */
bool barrier_holds() {
    thread_ctx &t = *self;
    st_barriers.fetch_add(1, std::memory_order_relaxed);
    if (++t.barrier_calls == t.b->opt.skip_barrier) {
        st_skipped.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    return true;
}

void land(const copy_op &c) {
    std::memcpy(c.dst, c.src, c.size - c.zfill);
    std::memset(static_cast<char *>(c.dst) + (c.size - c.zfill), 0, c.zfill);
}

bool in_shared(const void *p, size_t bytes) {
    const char *c = static_cast<const char *>(p);
    const block_ctx &b = *self->b;
    const char *d = static_cast<const char *>(b.dynamic);
    if (c >= d && c + bytes <= d + b.dynamic_bytes) {
        return true;
    }
    return __start_simt_shared != nullptr && c >= __start_simt_shared &&
           c + bytes <= __stop_simt_shared;
}

/* Every lane's 8-byte slot of the calling thread's warp, between two barriers. */
void warp_gather(unsigned mask, uint64_t mine, uint64_t all[kWarp]) {
    if (mask != 0xffffffffu) {
        fault_here("warp intrinsics with a partial mask are not simulated");
        return;
    }
    thread_ctx &t = *self;
    t.b->slots[t.tid] = mine;
    barrier(false);
    const unsigned first = t.warp * kWarp;
    for (unsigned l = 0; l < kWarp; ++l) {
        all[l] = first + l < t.b->n ? t.b->slots[first + l] : 0;
    }
    barrier(false);
}

void *thread_main(void *arg) {
    thread_ctx *t = static_cast<thread_ctx *>(arg);
    self = t;
    block_ctx &b = *t->b;
    threadIdx.x = t->tid % b.block.x;
    threadIdx.y = t->tid / b.block.x % b.block.y;
    threadIdx.z = t->tid / (b.block.x * b.block.y);
    blockIdx = b.block_idx;
    blockDim = b.block;
    gridDim = b.grid;
    if (serial(b)) {
        std::unique_lock<std::mutex> l(b.m);
        wait_turn(b, l, t->tid);
    }
    b.body(b.ctx);
    /* The GPU completes a thread's copies even when it never waits for them. */
    for (const copy_op &c : t->pending) {
        land(c);
    }
    t->pending.clear();
    std::unique_lock<std::mutex> l(b.m);
    b.state[t->tid] = EXITED;
    --b.live;
    --b.warp_live[t->warp];
    b.warp_exited[t->warp] |= 1u << t->lane;
    if (b.warp_barrier[t->warp].arrived > 0 && !b.broken) {
        set_fault(b, "a lane exited while its warp waited at __syncwarp");
    }
    if (b.block_barrier.arrived > 0 && b.block_barrier.arrived == b.live) {
        release(b, b.block_barrier, -1);
    }
    if (serial(b)) {
        pass_turn(b);
    }
    if (b.fiber != nullptr) {
        /* The next fiber to run: the current one, or once the block is broken any that has
         * not ended (its barriers now let it through). None: back to the block runner. */
        int next = -1;
        if (b.broken) {
            for (unsigned i = 0; i < b.n && next < 0; ++i) {
                next = b.state[i] != EXITED ? (int)i : -1;
            }
        } else if (b.state[b.current] == RUNNABLE) {
            next = (int)b.current;
        }
        l.unlock();
        if (next >= 0) {
            ucontext_t gone;
            switch_to(b, &gone, (unsigned)next);
        }
        return nullptr; /* uc_link: the block runner */
    }
    self = nullptr;
    return nullptr;
}

void fiber_entry() { thread_main(self); }

/* Each host thread's fiber stacks, kept for its later blocks and launches: 1 MiB each,
 * reserved but touched only as far as a kernel's frames reach. */
constexpr size_t kFiberStack = (size_t)1 << 20;
thread_local std::vector<void *> fiber_stacks;

/* A context made for makecontext: never resumed at this getcontext, so the callers need no
 * care for what returns twice (a function of its own, or GCC warns about its locals). */
__attribute__((noinline)) void fresh_context(ucontext_t *c) { getcontext(c); }

/* Runs a block's threads as fibers on the calling thread, in the serial schedule's order:
 * a switch costs what a function call does, where a host thread per CUDA thread costs its
 * creation and a condition variable per turn. */
void run_fibers(block_ctx &b, std::vector<thread_ctx> &threads) {
    while (fiber_stacks.size() < b.n) {
        void *st = mmap(nullptr, kFiberStack, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (st == MAP_FAILED) {
            std::lock_guard<std::mutex> l(b.m);
            set_fault(b, "the host could not map a fiber stack for every CUDA thread");
            return;
        }
        fiber_stacks.push_back(st);
    }
    std::vector<ucontext_t> contexts(b.n);
    b.fiber = contexts.data();
    b.threads = threads.data();
    for (unsigned i = 0; i < b.n; ++i) {
        fresh_context(&contexts[i]);
        contexts[i].uc_stack.ss_sp = fiber_stacks[i];
        contexts[i].uc_stack.ss_size = kFiberStack;
        contexts[i].uc_link = &b.runner;
        makecontext(&contexts[i], fiber_entry, 0);
    }
    thread_ctx *const outer = self;
    const uint3 outer_thread = threadIdx, outer_block = blockIdx;
    const dim3 outer_bdim = blockDim, outer_gdim = gridDim;
    switch_to(b, &b.runner, b.current);
    self = outer;
    threadIdx = outer_thread;
    blockIdx = outer_block;
    blockDim = outer_bdim;
    gridDim = outer_gdim;
}

cudaError_t fail(cudaError_t code, const std::string &why) {
    st_failed.fetch_add(1, std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> l(reg().m);
        reg().failure = why;
    }
    last_error = code;
    return code;
}

/* The block's state before any of its threads runs. */
void setup_block(block_ctx &b, const simt::launch_shape &shape, const simt_options &opt,
                 unsigned long launch_no, uint64_t linear, void (*body)(void *), void *ctx,
                 void *dynamic) {
    b.n = shape.block.x * shape.block.y * shape.block.z;
    b.warps = (b.n + kWarp - 1) / kWarp;
    b.live = b.n;
    b.warp_live.assign(b.warps, 0);
    for (unsigned i = 0; i < b.n; ++i) {
        ++b.warp_live[i / kWarp];
    }
    b.warp_exited.assign(b.warps, 0);
    b.turn_cv.reset(new std::condition_variable[b.n]);
    b.warp_cv.reset(new std::condition_variable[b.warps]);
    b.warp_barrier.assign(b.warps, barrier_state());
    b.opt = opt;
    b.rng = opt.seed ^ (launch_no * 0x100000001b3ull) ^ (linear << 20);
    b.state.assign(b.n, RUNNABLE);
    b.waits_on.assign(b.n, 0);
    b.slots.assign(b.n, 0);
    b.body = body;
    b.ctx = ctx;
    b.block_idx.x = (unsigned)(linear % shape.grid.x);
    b.block_idx.y = (unsigned)(linear / shape.grid.x % shape.grid.y);
    b.block_idx.z = (unsigned)(linear / ((uint64_t)shape.grid.x * shape.grid.y));
    b.grid = shape.grid;
    b.block = shape.block;
    b.dynamic = dynamic;
    b.dynamic_bytes = shape.dynamic_shared;
}

/* Runs a block that may make no barrier: each thread in turn, to its end, on the calling
 * thread. A grid-stride kernel of 65,535 blocks of 256 threads then costs what its loop
 * costs, not 16 million host threads. "" or the fault seen. */
std::string run_block_inline(const simt::launch_shape &shape, const simt_options &opt,
                             unsigned long launch_no, uint64_t linear, void (*body)(void *),
                             void *ctx, void *dynamic) {
    block_ctx b;
    setup_block(b, shape, opt, launch_no, linear, body, ctx, dynamic);
    b.inline_mode = true;
    thread_ctx *const outer = self;
    const uint3 outer_thread = threadIdx, outer_block = blockIdx;
    const dim3 outer_bdim = blockDim, outer_gdim = gridDim;
    blockIdx = b.block_idx;
    blockDim = b.block;
    gridDim = b.grid;
    for (unsigned tid = 0; tid < b.n && !b.broken; ++tid) {
        thread_ctx t;
        t.b = &b;
        t.tid = tid;
        t.lane = tid % kWarp;
        t.warp = tid / kWarp;
        self = &t;
        threadIdx.x = tid % b.block.x;
        threadIdx.y = tid / b.block.x % b.block.y;
        threadIdx.z = tid / (b.block.x * b.block.y);
        body(ctx);
    }
    self = outer;
    threadIdx = outer_thread;
    blockIdx = outer_block;
    blockDim = outer_bdim;
    gridDim = outer_gdim;
    st_threads.fetch_add(b.n, std::memory_order_relaxed);
    return b.fault;
}

/* A CUDA thread's place in its block, and its own random stream drawn from the block's seed:
 * the same whether the block runs on fibers or on host threads. */
static void place_thread(thread_ctx &t, block_ctx &b, unsigned tid, uint64_t seed) {
    t.b = &b;
    t.tid = tid;
    t.lane = tid % kWarp;
    t.warp = tid / kWarp;
    t.rng = seed ^ ((uint64_t)(tid + 1) * 0x9e3779b97f4a7c15ull);
}

/* Runs one block; "" or the fault seen. *sync_calls: the barriers, exchanges and async
 * copies it made. */
std::string run_block(const simt::launch_shape &shape, const simt_options &opt,
                      unsigned long launch_no, uint64_t linear, void (*body)(void *), void *ctx,
                      void *dynamic, unsigned long *sync_calls) {
    block_ctx b;
    setup_block(b, shape, opt, launch_no, linear, body, ctx, dynamic);
    if (serial(b)) {
        pass_turn(b);
    }

    /* Read before any thread runs: a serial schedule draws from b.rng under b.m. */
    const uint64_t thread_seed = b.rng;
    std::vector<thread_ctx> threads(b.n);
    std::vector<pthread_t> ids(b.n);
    if (serial(b) && opt.fibers) {
        for (unsigned i = 0; i < b.n; ++i)
            place_thread(threads[i], b, i, thread_seed);
        run_fibers(b, threads);
        st_threads.fetch_add(b.n, std::memory_order_relaxed);
        *sync_calls = b.sync_calls.load();
        return b.fault;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, host_stack_bytes());
    unsigned started = 0;
    for (; started < b.n; ++started) {
        thread_ctx &t = threads[started];
        place_thread(t, b, started, thread_seed);
        if (pthread_create(&ids[started], &attr, thread_main, &t) != 0) {
            std::lock_guard<std::mutex> l(b.m);
            set_fault(b, "the host could not start a thread for every CUDA thread of the block");
            break;
        }
    }
    pthread_attr_destroy(&attr);
    for (unsigned i = 0; i < started; ++i) {
        pthread_join(ids[i], nullptr);
    }
    st_threads.fetch_add(started, std::memory_order_relaxed);
    *sync_calls = b.sync_calls.load();
    return b.fault;
}

} // namespace

cudaError_t cudaGetLastError(void) {
    const cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

void simt::set_last_error(cudaError_t e) { last_error = e; }

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    return simt_func_set_attribute(func, attr, value);
}

namespace {
simt::submitter installed_submitter = nullptr;
}

void simt::set_submitter(submitter s) { installed_submitter = s; }

cudaError_t simt::submit(const launch_shape &shape, void (*body)(void *), void *ctx,
                         void (*destroy)(void *)) {
    if (installed_submitter != nullptr) {
        return installed_submitter(shape, body, ctx, destroy);
    }
    const cudaError_t e = run(shape, body, ctx);
    destroy(ctx);
    return e;
}

cudaError_t simt_func_set_attribute(const void *func, cudaFuncAttribute attr, int value) {
    registry &r = reg();
    std::lock_guard<std::mutex> l(r.m);
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
        (size_t)value + r.static_bytes[func] > kSharedOptInMax) {
        last_error = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    r.opt_in[func] = (size_t)value;
    return cudaSuccess;
}

void __syncthreads(void) {
    if (barrier_holds()) {
        barrier(true);
    }
}

void __syncwarp(unsigned mask) {
    if (mask != 0xffffffffu) {
        fault_here("__syncwarp with a partial mask is not simulated");
        return;
    }
    if (barrier_holds()) {
        barrier(false);
    }
}

unsigned __ballot_sync(unsigned mask, int predicate) {
    uint64_t all[kWarp];
    warp_gather(mask, predicate != 0, all);
    unsigned bits = 0;
    for (unsigned l = 0; l < kWarp; ++l) {
        bits |= (all[l] != 0 ? 1u : 0u) << l;
    }
    return bits;
}

/* Lanes past the block's last thread take no part: they neither count for __all_sync nor
 * set a bit. */
static unsigned lanes_present() {
    const unsigned first = self->warp * kWarp;
    return self->b->n - first < kWarp ? self->b->n - first : kWarp;
}

int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }

int __all_sync(unsigned mask, int predicate) {
    const unsigned present = lanes_present();
    const unsigned want = present == kWarp ? 0xffffffffu : (1u << present) - 1;
    return __ballot_sync(mask, predicate) == want;
}

void simt::warp_exchange(unsigned mask, const void *value, size_t size, int src_lane, void *out) {
    uint64_t mine = 0;
    std::memcpy(&mine, value, size);
    uint64_t all[kWarp];
    warp_gather(mask, mine, all);
    if (src_lane < 0 || (unsigned)src_lane >= lanes_present()) {
        fault_here("__shfl_sync from a lane the warp does not have");
        return;
    }
    std::memcpy(out, &all[src_lane], size);
}

void *simt::dynamic_shared(void) { return self->b->dynamic; }

simt::static_shared::static_shared(const void *kernel, size_t bytes) {
    registry &r = reg();
    std::lock_guard<std::mutex> l(r.m);
    r.static_bytes[kernel] += bytes;
}

void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align,
                             size_t zfill) {
    thread_ctx &t = *self;
    const size_t n = size_and_align;
    if ((n != 4 && n != 8 && n != 16) || (uintptr_t)dst_shared % n != 0 ||
        (uintptr_t)src_global % n != 0 || zfill > n) {
        fault_here("__pipeline_memcpy_async of other than 4, 8 or 16 aligned bytes");
        return;
    }
    if (!in_shared(dst_shared, n)) {
        fault_here("__pipeline_memcpy_async to memory that is not shared memory");
        return;
    }
    const copy_op c{dst_shared, src_global, n, zfill, t.batch};
    t.b->sync_calls.fetch_add(1, std::memory_order_relaxed);
    if (t.b->inline_mode) {
        fault_here("an async copy in a block run inline (the kernel's first block had none)");
        return;
    }
    const simt_copies how = t.b->opt.copies;
    const bool early =
        how == SIMT_COPIES_EARLY || (how == SIMT_COPIES_RANDOM && (next_random(&t.rng) & 1) != 0);
    if (early) {
        land(c);
        st_early.fetch_add(1, std::memory_order_relaxed);
    } else {
        t.pending.push_back(c);
        st_late.fetch_add(1, std::memory_order_relaxed);
    }
}

void __pipeline_commit(void) { ++self->batch; }

void __pipeline_wait_prior(size_t prior) {
    thread_ctx &t = *self;
    if (prior >= t.batch) {
        return;
    }
    const size_t done_below = t.batch - prior; /* batches [0, done_below) must have landed */
    std::vector<copy_op> still;
    for (const copy_op &c : t.pending) {
        if (c.batch < done_below) {
            land(c);
        } else {
            still.push_back(c);
        }
    }
    t.pending.swap(still);
}

namespace {

/* The limits a launch meets: cudaSuccess or the error, recorded as the launch's. */
cudaError_t check_shape(const simt::launch_shape &shape, simt_options *opt_out,
                        unsigned long *launch_no_out) {
    registry &r = reg();
    simt_options opt;
    size_t static_bytes, dynamic_limit;
    unsigned long launch_no;
    {
        std::lock_guard<std::mutex> l(r.m);
        opt = r.options;
        launch_no = ++r.launch_count;
        auto s = r.static_bytes.find(shape.kernel);
        static_bytes = s == r.static_bytes.end() ? 0 : s->second;
        auto o = r.opt_in.find(shape.kernel);
        dynamic_limit = o != r.opt_in.end()             ? o->second
                        : static_bytes < kSharedNoOptIn ? kSharedNoOptIn - static_bytes
                                                        : 0;
    }
    if (opt_out != nullptr) {
        *opt_out = opt;
        *launch_no_out = launch_no;
    }
    const dim3 g = shape.grid, bl = shape.block;
    const unsigned long threads = (unsigned long)bl.x * bl.y * bl.z;
    if (bl.x == 0 || bl.y == 0 || bl.z == 0 || bl.x > kMaxBlockX || bl.y > kMaxBlockY ||
        bl.z > kMaxBlockZ || threads > kMaxBlockThreads) {
        return fail(cudaErrorInvalidConfiguration,
                    "a block of " + std::to_string(bl.x) + "x" + std::to_string(bl.y) + "x" +
                        std::to_string(bl.z) + " threads: an sm_90 device takes at most " +
                        "1024 (x, y <= 1024, z <= 64)");
    }
    if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > kMaxGridX || g.y > kMaxGridYZ ||
        g.z > kMaxGridYZ) {
        return fail(cudaErrorInvalidConfiguration,
                    "a grid of " + std::to_string(g.x) + "x" + std::to_string(g.y) + "x" +
                        std::to_string(g.z) +
                        " blocks: an sm_90 device takes x <= 2^31 - 1, y, z <= 65535");
    }
    if (static_bytes > kSharedNoOptIn || shape.dynamic_shared > dynamic_limit) {
        return fail(cudaErrorInvalidValue,
                    std::to_string(static_bytes) + " bytes of static and " +
                        std::to_string(shape.dynamic_shared) +
                        " of dynamic shared memory: the kernel may have " +
                        std::to_string(dynamic_limit) + " dynamic (48 KiB in all without the " +
                        "opt-in of cudaFuncAttributeMaxDynamicSharedMemorySize)");
    }
    {
        std::lock_guard<std::mutex> l(r.m);
        r.most_dynamic =
            shape.dynamic_shared > r.most_dynamic ? shape.dynamic_shared : r.most_dynamic;
        r.most_static = static_bytes > r.most_static ? static_bytes : r.most_static;
        r.most_threads = threads > r.most_threads ? (unsigned)threads : r.most_threads;
    }
    return cudaSuccess;
}

} // namespace

cudaError_t simt::check(const launch_shape &shape) {
    const cudaError_t e = check_shape(shape, nullptr, nullptr);
    if (e == cudaSuccess) {
        last_error = cudaSuccess;
    }
    return e;
}

cudaError_t simt::run(const launch_shape &shape, void (*body)(void *), void *ctx) {
    st_launches.fetch_add(1, std::memory_order_relaxed);
    simt_options opt;
    unsigned long launch_no = 0;
    const cudaError_t checked = check_shape(shape, &opt, &launch_no);
    if (checked != cudaSuccess) {
        return checked;
    }
    registry &r = reg();
    const dim3 g = shape.grid;
    bool run_inline = false;
    if (opt.inline_barrier_free) {
        std::lock_guard<std::mutex> l(r.m);
        auto f = r.barrier_free.find(shape.kernel);
        run_inline = f != r.barrier_free.end() && f->second;
    }
    bool has_static;
    {
        std::lock_guard<std::mutex> l(r.m);
        auto sb = r.static_bytes.find(shape.kernel);
        has_static = sb != r.static_bytes.end() && sb->second > 0;
    }
    const size_t dyn_alloc = (shape.dynamic_shared + 127) / 128 * 128 + 128;
    void *dynamic = std::aligned_alloc(128, dyn_alloc);
    if (dynamic == nullptr) {
        return fail(cudaErrorLaunchFailure, "no host memory for the dynamic shared memory");
    }
    const uint64_t blocks = (uint64_t)g.x * g.y * g.z;
    std::string fault;
    for (uint64_t i = 0; i < blocks && fault.empty(); ++i) {
        poison(dynamic, dyn_alloc);
        /* A kernel without static shared memory reads none: an inline run skips the
         * section (the grids run inline are the large ones). */
        if (__start_simt_shared != nullptr && (!run_inline || has_static)) {
            poison(__start_simt_shared, (size_t)(__stop_simt_shared - __start_simt_shared));
        }
        unsigned long sync_calls = 0;
        if (run_inline) {
            fault = run_block_inline(shape, opt, launch_no, i, body, ctx, dynamic);
        } else {
            fault = run_block(shape, opt, launch_no, i, body, ctx, dynamic, &sync_calls);
            if (opt.inline_barrier_free && fault.empty() && sync_calls == 0) {
                run_inline = true;
                std::lock_guard<std::mutex> l(r.m);
                r.barrier_free[shape.kernel] = true;
            }
        }
        st_blocks.fetch_add(1, std::memory_order_relaxed);
        if (!fault.empty()) {
            fault = "block " + std::to_string(i) + ": " + fault;
        }
    }
    std::free(dynamic);
    if (!fault.empty()) {
        return fail(cudaErrorLaunchFailure, fault);
    }
    last_error = cudaSuccess;
    return cudaSuccess;
}

extern "C" void simt_set_options(const simt_options *o) {
    std::lock_guard<std::mutex> l(reg().m);
    reg().options = *o;
}

extern "C" void simt_get_stats(simt_stats *s) {
    std::memset(s, 0, sizeof *s);
    s->launches = st_launches.load();
    s->failed_launches = st_failed.load();
    s->blocks = st_blocks.load();
    s->threads = st_threads.load();
    s->barriers = st_barriers.load();
    s->skipped_barriers = st_skipped.load();
    s->copies_early = st_early.load();
    s->copies_late = st_late.load();
    s->staged_general = st_staged_general.load();
    s->staged_fast = st_staged_fast.load();
    std::lock_guard<std::mutex> l(reg().m);
    s->most_dynamic_shared = reg().most_dynamic;
    s->most_static_shared = reg().most_static;
    s->most_block_threads = reg().most_threads;
}

extern "C" void simt_note_staged_pass(int fast) {
    (fast ? st_staged_fast : st_staged_general).fetch_add(1, std::memory_order_relaxed);
}

extern "C" void simt_reset_stats(void) {
    for (std::atomic<unsigned long> *a :
         {&st_launches, &st_failed, &st_blocks, &st_threads, &st_barriers, &st_skipped, &st_early,
          &st_late, &st_staged_general, &st_staged_fast}) {
        a->store(0);
    }
    std::lock_guard<std::mutex> l(reg().m);
    reg().most_dynamic = 0;
    reg().most_static = 0;
    reg().most_threads = 0;
    reg().failure.clear();
}

extern "C" const char *simt_last_failure(void) {
    static thread_local std::string copy;
    std::lock_guard<std::mutex> l(reg().m);
    copy = reg().failure;
    return copy.c_str();
}

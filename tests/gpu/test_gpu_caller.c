/*
 * The gpu suite, acting as a CUDA caller would (built only with the CUDA backend, so that the
 * CUDA runtime's headers are there): a call ordered after the caller's stream, event or
 * default stream, apo_cuda_memcpy complete on return, and the caller's current device left
 * alone.
 *
 * Shared setup and main are in gpu_fixtures.c (exit 77 without a usable GPU, 1 when one is
 * required); the host-array cases are in test_gpu.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "apportion.h"
#include "apportion_cuda.h"
#include "gpu_checks.h"
#include "gpu_fixtures.h"
#include "reference.h"

/* ---- as a CUDA caller: ordering and the current device --------------------------------- */

/* The CUDA ordinal of a GPU of the runtime, found by its UUID (the runtime may number GPUs
 * by PCI bus id, CUDA fastest first). */
static int cuda_ordinal_of(const apo_runtime *rt, size_t g) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, g, &info), APO_OK);
    int count = 0;
    cr_assert_eq(cudaGetDeviceCount(&count), cudaSuccess);
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp prop;
        cr_assert_eq(cudaGetDeviceProperties(&prop, i), cudaSuccess);
        const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
        char id[64];
        snprintf(id, sizeof id,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                 u[14], u[15]);
        if (strcmp(id, info.id) == 0)
            return i;
    }
    cr_assert_fail("GPU %s not found by CUDA", info.id);
    return -1;
}

/* Holds a stream for a fifth of a second: the work queued behind it runs late. */
static void CUDART_CB hold_stream(void *unused) {
    (void)unused;
    const struct timespec t = {0, 200000000};
    nanosleep(&t, NULL);
}

enum { ORDER_STREAM, ORDER_EVENT, ORDER_DEFAULT_STREAM };

/* The input reaches the GPU on the caller's stream, behind a fifth of a second of other
 * work; the call must read it only after that: on the caller's stream, after the caller's
 * event, or, with neither, after the legacy default stream (the caller's stream is then a
 * blocking one, which the default stream waits for). A call that read too early reads the
 * poison left in the input and cannot give the cpu's bits. */
Test(gpu, a_call_comes_after_the_callers_work_on_its_arrays, .timeout = 300) {
    apo_runtime *cpu, *gpu;
    open_runtimes(&cpu, &gpu, NULL, 0);
    const size_t g = first_gpu(gpu);
    const int ordinal = cuda_ordinal_of(gpu, g);
    const gcase c = {"bollinger", 1, 2000003, NULL, 0};
    case_jobs cj;
    case_jobs_open(&cj, cpu, &c, 6060);
    const chk_job *ref = &cj.ref;
    chk_job *got = &cj.got;
    const size_t bytes = c.cols * sizeof(double);
    double *pinned = NULL, *dev_in = NULL;
    cr_assert_eq(cudaSetDevice(ordinal), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&pinned, bytes), cudaSuccess);
    memcpy(pinned, cj.x, bytes);
    cr_assert_eq(apo_cuda_malloc(gpu, g, bytes, (void **)&dev_in), APO_OK);
    for (int mode = ORDER_STREAM; mode <= ORDER_DEFAULT_STREAM; mode++) {
        cudaStream_t stream = NULL;
        cudaEvent_t event = NULL;
        cr_assert_eq(cudaSetDevice(ordinal), cudaSuccess);
        cr_assert_eq(cudaMemset(dev_in, 0xff, bytes), cudaSuccess); /* NaN poison */
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        cr_assert_eq(cudaStreamCreateWithFlags(&stream, mode == ORDER_DEFAULT_STREAM
                                                            ? cudaStreamDefault
                                                            : cudaStreamNonBlocking),
                     cudaSuccess);
        cr_assert_eq(cudaLaunchHostFunc(stream, hold_stream, NULL), cudaSuccess);
        cr_assert_eq(cudaMemcpyAsync(dev_in, pinned, bytes, cudaMemcpyHostToDevice, stream),
                     cudaSuccess);
        apo_cuda_placement where = APO_CUDA_PLACEMENT_INIT;
        where.inputs_device = (int)g;
        if (mode == ORDER_STREAM)
            where.stream = stream;
        if (mode == ORDER_EVENT) {
            cr_assert_eq(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
            cr_assert_eq(cudaEventRecord(event, stream), cudaSuccess);
            where.wait_event = event;
        }
        for (size_t o = 0; o < got->w.n_outputs; o++)
            memset(got->out[o], 0xff, got->len[o] * sizeof(double)); /* unwritten: no match */
        const double *in[1] = {dev_in};
        apo_workload w = got->w;
        w.inputs = in;
        apo_report rep = APO_REPORT_INIT;
        cr_assert_eq(apo_distribute_workload_cuda(gpu, &w, &where, &rep), APO_OK, "%s",
                     apo_last_error());
        chk_verdict v;
        chk_verdict_init(&v);
        for (size_t o = 0; o < ref->w.n_outputs && v.result == CHK_PASS; o++)
            if (memcmp(ref->out[o], got->out[o], ref->len[o] * sizeof(double)) != 0)
                chk_verdict_set(&v, CHK_FAIL, "output %zu differs: the call read the input early",
                                o);
        const char *names[] = {"the caller's stream", "the caller's event",
                               "the legacy default stream"};
        assert_verdict(&v, got, names[mode]);
        cr_assert_eq(cudaStreamSynchronize(stream), cudaSuccess);
        cr_assert_eq(cudaStreamDestroy(stream), cudaSuccess);
        if (event != NULL)
            cr_assert_eq(cudaEventDestroy(event), cudaSuccess);
    }
    cr_assert_eq(apo_cuda_free(gpu, g, dev_in), APO_OK);
    cr_assert_eq(cudaFreeHost(pinned), cudaSuccess);
    case_jobs_close(&cj);
    close_runtimes(cpu, gpu);
}

/* apo_cuda_memcpy returns once the bytes have landed, even for a device-to-device copy, which
 * cudaMemcpy alone does not wait for: a read on a stream that does not synchronise with the
 * default stream must see them all. */
Test(gpu, apo_cuda_memcpy_has_landed_when_it_returns, .timeout = 120) {
    apo_runtime *gpu = gpu_runtime_or_skip();
    const size_t g = first_gpu(gpu);
    const int ordinal = cuda_ordinal_of(gpu, g);
    const size_t bytes = (size_t)1 << 30;
    if (gpu_free_bytes(gpu, g) < 3.0 * (double)bytes)
        cr_skip_test("the GPU lacks 3 GiB");
    unsigned char *host = NULL;
    void *a = NULL, *b = NULL;
    cr_assert_eq(cudaSetDevice(ordinal), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&host, bytes), cudaSuccess);
    cr_assert_eq(apo_cuda_malloc(gpu, g, bytes, &a), APO_OK);
    cr_assert_eq(apo_cuda_malloc(gpu, g, bytes, &b), APO_OK);
    for (int round = 0; round < 3; round++) {
        const int fill = 0x11 * (round + 1);
        cr_assert_eq(cudaMemset(a, fill, bytes), cudaSuccess);
        cr_assert_eq(cudaMemset(b, 0, bytes), cudaSuccess);
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        cr_assert_eq(apo_cuda_memcpy(gpu, g, b, a, bytes, APO_COPY_DEVICE_TO_DEVICE), APO_OK);
        cudaStream_t s;
        cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
        cr_assert_eq(cudaMemcpyAsync(host, b, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
        cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
        cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
        for (size_t i = 0; i < bytes; i += 4093)
            cr_assert_eq(host[i], fill, "round %d byte %zu: %d, not %d", round, i, host[i], fill);
    }
    cr_assert_eq(apo_cuda_free(gpu, g, a), APO_OK);
    cr_assert_eq(apo_cuda_free(gpu, g, b), APO_OK);
    cr_assert_eq(cudaFreeHost(host), cudaSuccess);
    apo_runtime_destroy(gpu);
}

static void assert_current_device(int want, const char *after) {
    int now = -1;
    cr_assert_eq(cudaGetDevice(&now), cudaSuccess);
    cr_assert_eq(now, want, "after %s the current device is %d, not the caller's %d", after, now,
                 want);
}

/* apportion_cuda.h: no call changes the calling thread's current CUDA device. With the last
 * GPU current (never the one discovery or a call would leave current by accident): runtime
 * creation (discovery), host and resident calls, the gather, the interop calls, destruction. */
Test(gpu, no_call_changes_the_calling_threads_current_device, .timeout = 600) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
        cr_skip_test("%d GPU(s): the current device can only be seen to change with two", count);
    const int mine = count - 1;
    cr_assert_eq(cudaSetDevice(mine), cudaSuccess);
    apo_runtime *gpu = NULL;
    cr_assert_eq(chk_runtime("cuda", APO_USE_GPU_YES, 0, APO_SWITCH_UNSET, &gpu), APO_OK);
    assert_current_device(mine, "apo_runtime_create");
    apo_runtime *cpu = runtime_on("cpu", 0);
    size_t gpus = 0;
    apo_gpu_count(gpu, &gpus);
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        ratios[i] = 1.0;
    const gcase c = {"returns_stats", 3, 50001, NULL, 0};
    double *x = walk(c.rows, c.cols, 31);
    chk_job ref, got;
    jobs_init(&ref, &got, cpu, &c, x);
    const run_how host = {ratios, gpus, APO_SPLIT_TIME, NULL, NULL};
    assert_run(gpu, &ref, &got, &host, NULL, "host arrays");
    assert_current_device(mine, "a call on host arrays");
    const gcase b = {"bollinger", 3, 50001, NULL, 0};
    chk_job bref, bgot;
    jobs_init(&bref, &bgot, cpu, &b, x);
    const chk_placement at = {0, 1, 1, ratios, gpus, 0, 0};
    const run_how resident = {.at = &at};
    assert_run(gpu, &bref, &bgot, &resident, NULL, "resident, gathered on the first GPU");
    assert_current_device(mine, "a resident call, its gather and the interop calls");
    apo_runtime_destroy(gpu);
    assert_current_device(mine, "apo_runtime_destroy");
    jobs_free(&ref, &got);
    jobs_free(&bref, &bgot);
    free(x);
    apo_runtime_destroy(cpu);
}

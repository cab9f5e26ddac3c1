/*
 * The GPU checks shared by `apportion selftest` and the gpu suite: see gpu_checks.h. Only the
 * public headers are used.
 */
#include "gpu_checks.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two poisons that no kernel writes, different on the two sides: a value left unwritten on
 * either side cannot compare equal. */
static const uint64_t poison_ref = 0x7ff4dead0000beefull;
static const uint64_t poison_got = 0x7ff4dead0000cafeull;

/* ---- verdicts ---------------------------------------------------------------------------- */

void chk_verdict_init(chk_verdict *v) {
    memset(v, 0, sizeof *v);
    v->result = CHK_PASS;
    v->compared = -1;
    v->differ = -1;
    v->chunks = -1;
    v->overlap = NAN;
}

void chk_verdict_set(chk_verdict *v, chk_result result, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    v->result = result;
}

void chk_verdict_append(chk_verdict *v, const char *fmt, ...) {
    const size_t len = strlen(v->message);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message + len, sizeof v->message - len, fmt, ap);
    va_end(ap);
}

void chk_status_text(apo_status status, char *out, size_t size) {
    const char *detail = apo_last_error();
    snprintf(out, size, "%s (%s)",
             detail != NULL && detail[0] != '\0' ? detail : apo_strerror(status),
             apo_status_name(status));
}

/* Fails v with "<what>: <status text>" when status is not APO_OK, and returns whether it did;
 * called right after the call that returned status, before anything else can replace
 * apo_last_error(). Every call of the checks goes through it, so that each names what failed
 * the same way and the caller only decides where to go next. */
static int failed(chk_verdict *v, const char *what, apo_status status) {
    if (status == APO_OK)
        return 0;
    char text[384];
    chk_status_text(status, text, sizeof text);
    chk_verdict_set(v, CHK_FAIL, "%s: %s", what, text);
    return 1;
}

/* ---- runtimes ---------------------------------------------------------------------------- */

apo_status chk_runtime(const char *devices, apo_use_gpu use_gpu, size_t gpu_mb, apo_switch nccl,
                       apo_runtime **rt) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    config.use_gpu = use_gpu;
    config.profiles = APO_SWITCH_OFF;
    config.learn = APO_SWITCH_OFF;
    config.gpu_memory_mb = gpu_mb;
    config.nccl = nccl;
    *rt = NULL;
    return apo_runtime_create(&config, rt);
}

long chk_first_gpu(const apo_runtime *rt) {
    size_t n = 0;
    if (apo_device_count(rt, &n) != APO_OK)
        return -1;
    for (size_t i = 0; i < n; i++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        if (apo_device_get(rt, i, &info) == APO_OK && info.kind == APO_DEVICE_CUDA)
            return (long)i;
    }
    return -1;
}

/* ---- jobs -------------------------------------------------------------------------------- */

/* Points the workload at the job's own arrays (after a memset or a copy of the fields). */
static void job_wire(chk_job *j) {
    j->w.inputs = j->inputs;
    j->w.n_inputs = 1;
    j->w.outputs = j->out;
    j->w.params = j->params;
}

static void job_alloc(chk_job *j, chk_verdict *v) {
    for (size_t i = 0; i < j->w.n_outputs; i++) {
        j->out[i] = malloc(j->len[i] * sizeof(double));
        if (j->out[i] == NULL) {
            chk_verdict_set(v, CHK_FAIL, "out of memory for the outputs");
            return;
        }
    }
}

void chk_job_init(chk_job *j, apo_runtime *rt, const char *kernel, size_t rows, size_t cols,
                  const double *x, const apo_param *params, size_t n_params, uint64_t seed,
                  chk_verdict *v) {
    chk_verdict_init(v);
    memset(j, 0, sizeof *j);
    const apo_workload init = APO_WORKLOAD_INIT;
    j->w = init;
    j->w.kernel = kernel;
    j->w.rows = rows;
    j->w.cols = cols;
    j->w.seed = seed;
    j->inputs[0] = x;
    if (n_params > APO_MAX_PARAMS) {
        chk_verdict_set(v, CHK_FAIL, "%zu parameters, at most %d", n_params, APO_MAX_PARAMS);
        return;
    }
    for (size_t i = 0; i < n_params; i++)
        j->params[i] = params[i];
    j->w.n_params = n_params;
    job_wire(j);
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (failed(v, "apo_kernel_get", apo_kernel_get(rt, kernel, &info)))
        return;
    j->w.n_outputs = info.n_outputs < APO_MAX_IO ? info.n_outputs : APO_MAX_IO;
    for (size_t i = 0; i < j->w.n_outputs; i++) {
        j->output_names[i] = info.output_names[i];
        size_t orows = 0, ocols = 0;
        if (failed(v, "invalid workload", apo_output_shape(rt, &j->w, i, &orows, &ocols)))
            return;
        j->len[i] = orows * ocols;
    }
    job_alloc(j, v);
}

void chk_job_init_like(chk_job *j, const chk_job *like, chk_verdict *v) {
    chk_verdict_init(v);
    memset(j, 0, sizeof *j);
    j->w = like->w;
    j->inputs[0] = like->inputs[0];
    memcpy(j->params, like->params, sizeof j->params);
    memcpy(j->len, like->len, sizeof j->len);
    memcpy(j->output_names, like->output_names, sizeof j->output_names);
    job_wire(j);
    job_alloc(j, v);
}

void chk_job_free(chk_job *j) {
    for (size_t i = 0; i < APO_MAX_IO; i++) {
        free(j->out[i]);
        j->out[i] = NULL;
    }
}

static void job_poison(chk_job *j, uint64_t bits) {
    for (size_t o = 0; o < j->w.n_outputs; o++)
        for (size_t i = 0; i < j->len[o]; i++)
            memcpy(&j->out[o][i], &bits, sizeof bits);
}

void chk_reference(chk_job *ref, apo_runtime *cpu, chk_verdict *v) {
    chk_verdict_init(v);
    job_poison(ref, poison_ref);
    (void)failed(v, "the cpu reference failed", apo_distribute_workload(cpu, &ref->w, NULL));
}

/* ---- comparison -------------------------------------------------------------------------- */

/* Compares every output value of got with ref bitwise: sets compared and differ, and fails v
 * naming the first differing value when there is one; passes with the count otherwise. */
static void compare(const chk_job *ref, const chk_job *got, chk_verdict *v) {
    int64_t differ = 0, compared = 0;
    size_t first_out = 0, first_i = 0;
    for (size_t o = 0; o < ref->w.n_outputs; o++) {
        for (size_t i = 0; i < ref->len[o]; i++) {
            if (memcmp(&ref->out[o][i], &got->out[o][i], sizeof(double)) != 0) {
                if (differ == 0) {
                    first_out = o;
                    first_i = i;
                }
                differ++;
            }
        }
        compared += (int64_t)ref->len[o];
    }
    v->differ = differ;
    v->compared = compared;
    if (differ == 0) {
        chk_verdict_set(v, CHK_PASS, "bitwise equal (%lld values)", (long long)compared);
        return;
    }
    uint64_t a, b;
    memcpy(&a, &ref->out[first_out][first_i], sizeof a);
    memcpy(&b, &got->out[first_out][first_i], sizeof b);
    /* Every output has `rows` rows (indicators: cols values each; reductions: one). */
    const size_t per_row = ref->len[first_out] / ref->w.rows;
    const char *name = ref->output_names[first_out] != NULL ? ref->output_names[first_out] : "?";
    chk_verdict_set(v, CHK_FAIL,
                    "%lld of %lld values differ; first %s[row %zu][%zu]: %.17g (0x%016llx) vs "
                    "cpu %.17g (0x%016llx)%s",
                    (long long)differ, (long long)compared, name, first_i / per_row,
                    first_i % per_row, got->out[first_out][first_i], (unsigned long long)b,
                    ref->out[first_out][first_i], (unsigned long long)a,
                    b == poison_got ? " (never written)" : "");
}

/* ---- runs -------------------------------------------------------------------------------- */

/* The report entry of the first GPU, or NULL. */
static const apo_device_report *first_gpu_report(const apo_report *rep) {
    for (size_t i = 0; i < rep->n_devices && i < APO_MAX_DEVICES; i++)
        if (rep->devices[i].kind == APO_DEVICE_CUDA)
            return &rep->devices[i];
    return NULL;
}

/* The overlap of one device's report (its phases' sum over their union); NaN when the
 * device does not measure it. */
static double overlap_of(const apo_device_report *d) {
    if (d == NULL || !(d->overlap > 0.0))
        return NAN;
    return d->overlap;
}

void chk_host_run(apo_runtime *rt, const chk_job *ref, chk_job *got, const double *ratios,
                  size_t n_ratios, apo_split split, apo_report *rep, chk_verdict *v) {
    chk_verdict_init(v);
    const apo_report init = APO_REPORT_INIT;
    *rep = init;
    job_poison(got, poison_got);
    got->w.ratios = ratios;
    got->w.n_ratios = n_ratios;
    got->w.split = split;
    if (failed(v, "the run failed", apo_distribute_workload(rt, &got->w, rep)))
        return;
    compare(ref, got, v);
}

void chk_resident(apo_runtime *rt, const chk_job *ref, chk_job *got, const chk_placement *at,
                  apo_report *rep, chk_verdict *v) {
    chk_verdict_init(v);
    const apo_report init = APO_REPORT_INIT;
    *rep = init;
    job_poison(got, poison_got);
    const size_t g = at->gpu, og = at->outputs_elsewhere ? at->outputs_gpu : at->gpu;
    const size_t in_bytes = got->w.rows * got->w.cols * sizeof(double);
    void *dev_in = NULL;
    double *dev_out[APO_MAX_IO] = {0};
    apo_status st = APO_OK;
    if (at->inputs_on_gpu &&
        (failed(v, "apo_cuda_malloc (input)", apo_cuda_malloc(rt, g, in_bytes, &dev_in)) ||
         failed(v, "apo_cuda_memcpy (input)",
                apo_cuda_memcpy(rt, g, dev_in, got->inputs[0], in_bytes, APO_COPY_HOST_TO_DEVICE))))
        goto release;
    for (size_t o = 0; o < got->w.n_outputs && at->outputs_on_gpu; o++) {
        const size_t bytes = got->len[o] * sizeof(double);
        void *p = NULL;
        st = apo_cuda_malloc(rt, og, bytes, &p);
        dev_out[o] = p;
        if (failed(v, "apo_cuda_malloc (outputs)", st))
            goto release;
        /* Poisoned on the GPU too, so an element the run does not write cannot pass. */
        if (failed(v, "apo_cuda_memcpy (poison)",
                   apo_cuda_memcpy(rt, og, p, got->out[o], bytes, APO_COPY_HOST_TO_DEVICE)))
            goto release;
    }
    const double *in[1] = {at->inputs_on_gpu ? (const double *)dev_in : got->inputs[0]};
    apo_workload w = got->w;
    w.inputs = in;
    w.outputs = at->outputs_on_gpu ? dev_out : got->out;
    w.ratios = at->ratios;
    w.n_ratios = at->n_ratios;
    w.split = APO_SPLIT_AUTO;
    apo_cuda_placement where = APO_CUDA_PLACEMENT_INIT;
    where.inputs_device = at->inputs_on_gpu ? (int)g : -1;
    where.outputs_device = at->outputs_on_gpu ? (int)og : -1;
    if (failed(v, "apo_distribute_workload_cuda",
               apo_distribute_workload_cuda(rt, &w, &where, rep)))
        goto release;
    for (size_t o = 0; o < got->w.n_outputs && at->outputs_on_gpu; o++)
        if (failed(v, "apo_cuda_memcpy (outputs)",
                   apo_cuda_memcpy(rt, og, got->out[o], dev_out[o], got->len[o] * sizeof(double),
                                   APO_COPY_DEVICE_TO_HOST)))
            goto release;
    const apo_device_report *d = first_gpu_report(rep);
    if (d != NULL) {
        v->chunks = (int64_t)d->chunks;
        v->overlap = overlap_of(d);
    }
release:
    /* Every allocation is released, and a release that fails is a failure of its own. */
    for (size_t o = 0; o < APO_MAX_IO; o++) {
        st = apo_cuda_free(rt, og, dev_out[o]);
        if (v->result == CHK_PASS)
            (void)failed(v, "apo_cuda_free (outputs)", st);
    }
    st = apo_cuda_free(rt, g, dev_in);
    if (v->result == CHK_PASS)
        (void)failed(v, "apo_cuda_free (input)", st);
    if (v->result != CHK_PASS)
        return;
    compare(ref, got, v);
    if (v->result == CHK_PASS) {
        const char *where_text = at->inputs_on_gpu && at->outputs_on_gpu ? "input and outputs"
                                 : at->outputs_on_gpu                    ? "outputs"
                                 : at->inputs_on_gpu                     ? "input"
                                                                         : "nothing";
        chk_verdict_append(v, ", %s in GPU memory", where_text);
    }
}

/* ---- judgements of a report -------------------------------------------------------------- */

void chk_no_device_failed(const apo_report *rep, chk_verdict *v) {
    if (v->result != CHK_PASS)
        return;
    for (size_t i = 0; i < rep->n_devices && i < APO_MAX_DEVICES; i++) {
        const apo_device_report *d = &rep->devices[i];
        if (d->failed) {
            chk_verdict_set(v, CHK_FAIL, "%s failed: %s", d->id, d->failure);
            return;
        }
    }
}

void chk_gpus_worked(const apo_report *rep, chk_verdict *v) {
    chk_no_device_failed(rep, v);
    if (v->result != CHK_PASS)
        return;
    uint64_t gpu_elements = 0;
    for (size_t i = 0; i < rep->n_devices && i < APO_MAX_DEVICES; i++) {
        const apo_device_report *d = &rep->devices[i];
        if (d->kind != APO_DEVICE_CUDA || d->elements == 0)
            continue;
        gpu_elements += d->elements;
        if (d->chunks < 1) {
            chk_verdict_set(v, CHK_FAIL, "%s reports no chunk", d->id);
            return;
        }
        if (!(d->wall_ms >= 0 && d->h2d_ms >= 0 && d->kernel_ms >= 0 && d->d2h_ms >= 0)) {
            chk_verdict_set(v, CHK_FAIL, "%s reports a negative time", d->id);
            return;
        }
    }
    if (gpu_elements == 0)
        chk_verdict_set(v, CHK_FAIL, "no GPU computed anything");
}

void chk_gpu_computed_all(const apo_report *rep, chk_verdict *v) {
    if (v->result != CHK_PASS)
        return;
    const apo_device_report *d = first_gpu_report(rep);
    if (d == NULL || d->failed || d->elements != rep->elements) {
        chk_verdict_set(v, CHK_FAIL,
                        "bitwise equal, but the GPU did not compute the work: %s (elements %llu "
                        "of %llu)",
                        d == NULL   ? "not in the report"
                        : d->failed ? d->failure
                                    : "partial",
                        d != NULL ? (unsigned long long)d->elements : 0ull,
                        (unsigned long long)rep->elements);
        return;
    }
    v->chunks = (int64_t)d->chunks;
    v->overlap = overlap_of(d);
    chk_verdict_set(v, CHK_PASS, "bitwise equal (%lld values); %llu chunk(s), wall %.3f ms",
                    (long long)v->compared, (unsigned long long)d->chunks, d->wall_ms);
}

void chk_staged_in_chunks(const apo_report *rep, size_t budget_mb, chk_verdict *v) {
    if (v->result != CHK_PASS)
        return;
    const apo_device_report *d = first_gpu_report(rep);
    const int64_t chunks = d != NULL ? (int64_t)d->chunks : 0;
    v->chunks = chunks;
    v->overlap = overlap_of(d);
    const double in_mb = (double)(rep->rows * rep->cols) * 8.0 / 1048576.0;
    if (chunks <= 1)
        chk_verdict_set(v, CHK_FAIL,
                        "bitwise equal, but %lld chunk for %.1f MiB of input under a budget of "
                        "%zu MiB: the budget was not applied",
                        (long long)chunks, in_mb, budget_mb);
    else
        chk_verdict_set(v, CHK_PASS,
                        "bitwise equal (%lld values) under a %zu MiB budget: %.1f MiB of input "
                        "in %lld chunks, overlap %.2f",
                        (long long)v->compared, budget_mb, in_mb, (long long)chunks, v->overlap);
}

void chk_gather(const apo_report *rep, size_t dest, apo_gather expected, chk_verdict *v) {
    if (v->result != CHK_PASS)
        return;
    size_t others = 0;
    for (size_t i = 0; i < rep->n_devices && i < APO_MAX_DEVICES; i++)
        others += i != dest && rep->devices[i].elements > 0;
    /* Nothing to gather when only the destination computed. */
    const apo_gather want = others > 0 ? expected : APO_GATHER_NONE;
    chk_verdict_append(v, "; %zu other GPU(s) computed, gathered by %s in %.3f ms", others,
                       apo_gather_name(rep->gather), rep->gather_ms);
    if (rep->gather != want) {
        v->result = CHK_FAIL;
        chk_verdict_append(v, ", not by %s", apo_gather_name(want));
    }
}

/* ---- checks of their own ----------------------------------------------------------------- */

void chk_overlap(const chk_verdict *run, chk_verdict *v) {
    /* Read before v is reset: run and v may be the same verdict. */
    const double overlap = run->overlap;
    const int64_t chunks = run->chunks;
    chk_verdict_init(v);
    v->overlap = overlap;
    v->chunks = chunks;
    if (isnan(overlap))
        chk_verdict_set(v, CHK_WARN, "no overlap figure in the report");
    else if (overlap > CHK_OVERLAP_MIN)
        chk_verdict_set(v, CHK_PASS, "phases / their union = %.2f over %lld chunk(s)", overlap,
                        (long long)chunks);
    else if (chunks >= CHK_OVERLAP_MIN_CHUNKS)
        chk_verdict_set(v, CHK_FAIL,
                        "phases / their union = %.2f over %lld chunks: host copies, transfers "
                        "and kernels never ran at the same time",
                        overlap, (long long)chunks);
    else
        chk_verdict_set(v, CHK_WARN,
                        "phases / their union = %.2f over %lld chunk(s): too few chunks to "
                        "judge (%d needed)%s",
                        overlap, (long long)chunks, CHK_OVERLAP_MIN_CHUNKS,
                        chunks <= 1 ? "; one chunk has nothing to overlap" : "");
}

void chk_discovery(const apo_device_info *info, chk_verdict *v) {
    chk_verdict_init(v);
    const unsigned long long total = (unsigned long long)(info->memory_total_bytes >> 20);
    const unsigned long long free_mb = (unsigned long long)(info->memory_free_bytes >> 20);
    const int sane = strncmp(info->id, "GPU-", 4) == 0 && info->compute_capability_major > 0 &&
                     info->memory_total_bytes > 0 && info->multiprocessors > 0 &&
                     info->memory_free_bytes <= info->memory_total_bytes;
    chk_verdict_set(v, sane ? CHK_PASS : CHK_FAIL,
                    "%s, %s, compute capability %d.%d, %d multiprocessors, %d copy engines, "
                    "memory %llu MiB free of %llu MiB",
                    info->id, info->label, info->compute_capability_major,
                    info->compute_capability_minor, info->multiprocessors, info->copy_engines,
                    free_mb, total);
    if (!sane)
        chk_verdict_append(
            v, " (expected a GPU-<uuid> id, a compute capability, multiprocessors and memory)");
}

void chk_round_trip(apo_runtime *rt, size_t gpu, const void *pattern, size_t bytes,
                    int via_second_buffer, chk_verdict *v) {
    chk_verdict_init(v);
    apo_device_info info = APO_DEVICE_INFO_INIT;
    if (failed(v, "apo_device_get", apo_device_get(rt, gpu, &info)))
        return;
    if (info.memory_free_bytes < 2 * (uint64_t)bytes) {
        chk_verdict_set(v, CHK_SKIP, "only %llu MiB free",
                        (unsigned long long)(info.memory_free_bytes >> 20));
        return;
    }
    unsigned char *back = malloc(bytes);
    void *first = NULL, *second = NULL;
    if (back == NULL) {
        chk_verdict_set(v, CHK_FAIL, "out of host memory");
        return;
    }
    /* The complement of the pattern, so that a copy that does not happen cannot pass. */
    for (size_t i = 0; i < bytes; i++)
        back[i] = (unsigned char)~((const unsigned char *)pattern)[i];
    apo_status st = apo_cuda_malloc(rt, gpu, bytes, &first);
    if (st == APO_OK && via_second_buffer)
        st = apo_cuda_malloc(rt, gpu, bytes, &second);
    if (st != APO_OK || first == NULL || (via_second_buffer && second == NULL)) {
        char text[384];
        chk_status_text(st, text, sizeof text);
        chk_verdict_set(v, CHK_FAIL, "apo_cuda_malloc of %zu MiB: %s", bytes >> 20, text);
        goto release;
    }
    st = apo_cuda_memcpy(rt, gpu, first, pattern, bytes, APO_COPY_HOST_TO_DEVICE);
    if (st == APO_OK && via_second_buffer)
        st = apo_cuda_memcpy(rt, gpu, second, first, bytes, APO_COPY_DEVICE_TO_DEVICE);
    if (st == APO_OK)
        st = apo_cuda_memcpy(rt, gpu, back, via_second_buffer ? second : first, bytes,
                             APO_COPY_DEVICE_TO_HOST);
    if (failed(v, "apo_cuda_memcpy", st))
        goto release;
    if (memcmp(pattern, back, bytes) != 0) {
        chk_verdict_set(v, CHK_FAIL, "%zu MiB written and read back differ", bytes >> 20);
        goto release;
    }
    st = apo_cuda_free(rt, gpu, first);
    first = NULL;
    if (st == APO_OK) {
        st = apo_cuda_free(rt, gpu, second);
        second = NULL;
    }
    if (failed(v, "apo_cuda_free", st))
        goto release;
    chk_verdict_set(v, CHK_PASS,
                    via_second_buffer ? "%zu MiB allocated twice, written, copied from one "
                                        "allocation to the other, read back equal and freed"
                                      : "%zu MiB allocated, written, read back equal and freed",
                    bytes >> 20);
release:
    apo_cuda_free(rt, gpu, first);
    apo_cuda_free(rt, gpu, second);
    free(back);
}

/* ---- the overall verdict ------------------------------------------------------------------ */

void chk_count(chk_counts *c, chk_result result) {
    switch (result) {
    case CHK_PASS:
        c->pass++;
        break;
    case CHK_FAIL:
        c->fail++;
        break;
    case CHK_WARN:
        c->warn++;
        break;
    default:
        c->skip++;
    }
}

chk_overall chk_overall_verdict(const chk_counts *all, size_t gpus, size_t gpus_passed) {
    if (all->fail > 0)
        return CHK_OVERALL_FAILED;
    /* Checks that were all skipped (sizes too large for memory) prove nothing. */
    if (all->pass == 0)
        return CHK_OVERALL_NOTHING_PASSED;
    if (gpus == 0)
        return CHK_OVERALL_NO_GPU;
    return gpus_passed >= gpus ? CHK_OVERALL_PASSED : CHK_OVERALL_GPU_UNCHECKED;
}

int chk_overall_exit(chk_overall verdict) {
    return verdict == CHK_OVERALL_PASSED || verdict == CHK_OVERALL_NO_GPU ? 0 : 1;
}

const char *chk_overall_name(chk_overall verdict) {
    switch (verdict) {
    case CHK_OVERALL_PASSED:
        return "passed";
    case CHK_OVERALL_FAILED:
        return "failed";
    case CHK_OVERALL_NO_GPU:
        return "no-gpu";
    case CHK_OVERALL_GPU_UNCHECKED:
        return "gpu-unchecked";
    case CHK_OVERALL_NOTHING_PASSED:
        return "nothing-passed";
    }
    return "unknown";
}

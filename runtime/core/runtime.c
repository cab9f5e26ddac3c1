/*
 * Runtime life cycle and queries: configuration (config struct, then environment, then
 * defaults), device discovery and opening, the worker pool, the kernel registry.
 */
#include <stdlib.h>
#include <string.h>

#include "balance/balance_files.h"
#include "base/log.h"
#include "base/settings.h"
#include "cluster/cluster.h"
#include "core/runtime.h"
#include "devices/cpu_device.h"
#include "devices/cpu_pressure.h"
#include "devices/cuda/cuda_discovery.h"
#include "devices/cuda/pipeline_plan.h"
#include "devices/device_list.h"
#include "devices/replay.h"
#include "devices/sim_device.h"
#include "kernels.h"
#ifdef APO_HAVE_CUDA
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_gpu.h"
#include "devices/cuda/host_pool.h"
#endif

/* The resolved settings, after config > environment > defaults. */
typedef struct settings {
    const char *devices;
    int cpu_threads;
    apo_use_gpu use_gpu;
    apo_sim_clock sim_clock;
    apo__cuda_options cuda;
    int nccl; /* gather multi-GPU outputs with NCCL when it loads */
    apo__balance_settings balance;
    apo__cluster_settings cluster;
    apo__fault_settings faults;
    int cpu_isa; /* APPORTION_CPU_ISA as asked for: an apo__cpu_isa, AUTO when unset */
    const char *cpu_pressure_file; /* NULL: the default (devices/cpu_pressure.h) */
    int gpu_early_staging; /* pin the GPUs' first staging slots at creation (docs/cuda.md) */
} settings;

/* Hands the resolved settings (base/settings.c: config > environment > defaults, each
 * checked against its row of base/settings_table.h) to the parts that use them. */
static apo_status resolve_settings(const apo_config *config, apo__warnings *w, settings *s) {
    apo__settings r;
    APO_CHECK(apo__settings_resolve(config, w, &r));
    s->devices = r.devices;
    s->cpu_threads = r.cpu_threads;
    s->use_gpu = r.use_gpu;
    s->sim_clock = r.sim_clock;
    s->cuda.memory_mb = r.gpu_memory_mb;
    /* When the user set CUDA_DEVICE_ORDER, cudart's numbering is theirs to choose; otherwise
     * apportion numbers GPUs by PCI bus id (docs/cuda.md). */
    s->cuda.pci_order = !r.cuda_device_order;
    s->cuda.kernels = r.cuda_kernels;
    s->cuda.blocks_per_sm = r.cuda_blocks_per_sm;
    s->nccl = r.nccl == APO_SWITCH_ON;
    apo__balance_settings *b = &s->balance;
    b->profiles_on = r.profiles == APO_SWITCH_ON;
    b->off_reason = NULL;
    b->learn = r.learn == APO_SWITCH_ON;
    b->persist_interval_s = r.persist_interval_s;
    b->location.multigpu_path = r.multigpu_path;
    b->location.thresholds_path = r.thresholds_path;
    b->location.profile_dir = r.profile_dir;
    b->location.xdg_state_home = r.xdg_state_home;
    b->location.home = r.home;
    s->cluster.mpi = r.mpi;
    /* Open MPI's mpirun, PMIx launchers (srun, prterun) and MPICH's Hydra each set one. */
    s->cluster.launched = r.ompi_comm_world_size || r.pmix_rank || r.pmi_size;
    s->cluster.timeout_s = r.mpi_timeout_s;
    s->faults.deadline_factor = r.deadline_factor;
    s->faults.deadline_floor_s = r.deadline_floor_s;
    s->faults.quarantine_after = r.quarantine_after;
    s->cpu_isa = r.cpu_isa;
    s->cpu_pressure_file = r.cpu_pressure_file;
    s->gpu_early_staging = r.gpu_early_staging == APO_SWITCH_ON;
    return APO_OK;
}

/* The vector path of the host devices (cpu and sim): the one APPORTION_CPU_ISA asks for when
 * this CPU and build have it, else, with a warning, the fastest they have
 * (docs/kernels-vector-paths.md, "Vector paths"). Every path gives the same bits. */
static int host_isa(int wanted, apo__warnings *w) {
    int isa = apo__cpu_isa_resolve((apo__cpu_isa)wanted);
    if (wanted != APO_CPU_ISA_AUTO && isa != wanted) {
        char have[64];
        apo__cpu_isa_list_supported(have, sizeof have);
        apo__warn(w,
                  "APPORTION_CPU_ISA=%s ignored: this CPU or build has no %s path (it has: %s); "
                  "using %s",
                  apo__cpu_isa_name((apo__cpu_isa)wanted), apo__cpu_isa_name((apo__cpu_isa)wanted),
                  have, apo__cpu_isa_name((apo__cpu_isa)isa));
    }
    return isa;
}

/* Does the GPU match a cuda:N or cuda:GPU-<prefix> item? */
static int gpu_matches(const apo__device *gpu, size_t ordinal, const apo__device_spec *spec) {
    if (spec->kind == APO_SPEC_CUDA_ALL || spec->kind == APO_SPEC_AUTO)
        return 1;
    if (spec->kind == APO_SPEC_CUDA_ORDINAL)
        return (size_t)spec->ordinal == ordinal;
    /* The id is "GPU-" followed by the lower-case UUID. */
    return strncmp(gpu->info.id + 4, spec->uuid_prefix, strlen(spec->uuid_prefix)) == 0;
}

/* Opens the cpu device as the next device with `threads` OpenMP threads; 0 takes OpenMP's
 * default, which share_host_threads() may lower beside GPUs (defaulted[] remembers). */
static void open_cpu(apo_runtime *rt, int threads, int *defaulted, int isa, int isa_named) {
    defaulted[rt->n_devices] = threads == 0;
    apo__device *dev = &rt->devices[rt->n_devices++];
    apo__cpu_device_open(dev, threads, isa);
    dev->cpu_isa_named = isa_named;
}

/* Replayed devices (devices/replay.h) share their measured machine's cores as real ones
 * do: a replayed host keeps beside the replayed GPUs of its machine what their staging
 * threads leave, and all its cores when it runs alone. */
static void share_replayed_threads(apo_runtime *rt) {
    for (size_t i = 0; i < rt->n_devices; i++) {
        apo__device *host = &rt->devices[i];
        if (host->replay == NULL || host->replay->role != APO_REPLAY_HOST)
            continue;
        int staging = 0;
        for (size_t j = 0; j < rt->n_devices; j++) {
            const apo__device *gpu = &rt->devices[j];
            if (gpu->replay != NULL && gpu->replay->role == APO_REPLAY_GPU &&
                strcmp(gpu->replay->machine, host->replay->machine) == 0)
                staging += gpu->replay->staging_threads;
        }
        const int beside = host->replay->cores - staging;
        host->info.threads = beside > 1 ? beside : 1;
        host->threads_alone = host->replay->cores;
    }
}

/* Each GPU's driver takes host threads for its staging copies (devices/cuda/pipeline_plan.h);
 * a cpu device on OpenMP's default team gives up as many, so that together they ask for no
 * more threads than the cores (docs/cuda.md, "Host threads"). An explicit count
 * (cpu:threads=N, APPORTION_CPU_THREADS) is the user's to keep. */
static void share_host_threads(apo_runtime *rt, const int *defaulted) {
    share_replayed_threads(rt);
    if (rt->n_gpus == 0)
        return;
    const int cores = apo__host_cores();
    const int per_gpu = apo__gpu_host_threads(cores, rt->n_gpus);
    const int cpu_threads = apo__cpu_threads_beside_gpus(cores, per_gpu * (int)rt->n_gpus);
    for (size_t i = 0; i < rt->n_devices; i++) {
        apo__device *dev = &rt->devices[i];
        if (dev->info.kind == APO_DEVICE_CUDA)
            dev->info.threads = per_gpu;
        else if (dev->info.kind == APO_DEVICE_CPU && defaulted[i])
            apo__cpu_device_open(dev, cpu_threads, dev->cpu_isa);
    }
    apo__log(APO_LOG_INFO, APO_SUBSYS_INIT,
             "%d cores: %zu GPU(s) take %d host thread(s) each, the cpu device's default team %d",
             cores, rt->n_gpus, per_gpu, cpu_threads);
}

/* Opens the devices the specs select, in the list's order. */
static apo_status open_devices(apo_runtime *rt, const settings *s) {
    int cpu_defaulted[APO_MAX_DEVICES] = {0};
    apo__device_spec specs[APO_MAX_DEVICES];
    size_t n_specs;
    char err[256];
    if (apo__parse_device_list(s->devices, specs, APO_MAX_DEVICES, &n_specs, err, sizeof err) !=
        APO_OK)
        return apo__fail(APO_ERR_BAD_DEVICE_SPEC, "%s", err);

    int wants_gpu = 0, names_gpu = 0;
    for (size_t i = 0; i < n_specs; i++) {
        if (specs[i].kind != APO_SPEC_CPU && specs[i].kind != APO_SPEC_SIM)
            wants_gpu = 1;
        if (specs[i].kind != APO_SPEC_CPU && specs[i].kind != APO_SPEC_SIM &&
            specs[i].kind != APO_SPEC_AUTO)
            names_gpu = 1;
    }

    apo__device gpus[APO_MAX_DEVICES];
    size_t n_gpus = 0;
    char reason[256] = "";
    apo__no_gpu_cause cause = APO_NO_GPU_UNUSABLE;
    if (s->use_gpu != APO_USE_GPU_NO && (wants_gpu || s->use_gpu == APO_USE_GPU_YES)) {
        memset(gpus, 0, sizeof gpus);
        n_gpus = apo__cuda_discover(gpus, APO_MAX_DEVICES, &s->cuda, &rt->warnings, &cause, reason,
                                    sizeof reason);
        if (n_gpus == 0) {
            if (s->use_gpu == APO_USE_GPU_YES)
                return apo__fail(APO_ERR_GPU_REQUIRED,
                                 "a GPU is required (APPORTION_USE_GPU=yes or "
                                 "apo_config.use_gpu) but none is usable: %s",
                                 reason);
            /* Only `auto` asked, and the machine has no GPU to offer: that is what the
             * machine is, said to a caller that asks, and no fault for the command line to
             * repeat on every run (docs/env.md, "No GPU"). */
            const int machine_has_none =
                !names_gpu && (cause == APO_NO_GPU_NO_BACKEND || cause == APO_NO_GPU_NO_DRIVER);
            apo__warn_kind(&rt->warnings,
                           machine_has_none ? APO_WARNING_NO_GPU_HERE : APO_WARNING_PLAIN,
                           "no GPU in use: %s; carrying on with the CPU", reason);
        }
    }
    int gpu_taken[APO_MAX_DEVICES] = {0};
    int virtual_clock = s->sim_clock == APO_SIM_CLOCK_VIRTUAL;
    const int isa = host_isa(s->cpu_isa, &rt->warnings);
    /* Where APPORTION_CPU_ISA names a path every kernel runs on it; else each kernel may take
     * a narrower one that runs faster on this CPU (catalog/kernel.h, path). */
    const int isa_named = s->cpu_isa != APO_CPU_ISA_AUTO;
    rt->host_isa = isa;
    rt->host_isa_named = isa_named;

    for (size_t i = 0; i < n_specs; i++) {
        const apo__device_spec *spec = &specs[i];
        if ((spec->kind == APO_SPEC_SIM || spec->kind == APO_SPEC_CPU) &&
            rt->n_devices == APO_MAX_DEVICES)
            return apo__fail(APO_ERR_BAD_DEVICE_SPEC, "more than %d devices selected",
                             APO_MAX_DEVICES);
        if (spec->kind == APO_SPEC_SIM) {
            apo__device *dev = &rt->devices[rt->n_devices++];
            if (apo__sim_device_open(dev, spec, virtual_clock) != APO_OK)
                return apo__fail(APO_ERR_OUT_OF_MEMORY, "sim:%s: no memory for its state",
                                 spec->sim_name);
            dev->cpu_isa = isa;
            dev->cpu_isa_named = isa_named;
            continue;
        }
        if (spec->kind == APO_SPEC_CPU) {
            open_cpu(rt, spec->threads != 0 ? spec->threads : s->cpu_threads, cpu_defaulted, isa,
                     isa_named);
            continue;
        }
        size_t matched = 0;
        for (size_t g = 0; g < n_gpus; g++) {
            if (gpu_taken[g] || !gpu_matches(&gpus[g], g, spec))
                continue;
            if (rt->n_devices == APO_MAX_DEVICES)
                return apo__fail(APO_ERR_BAD_DEVICE_SPEC, "more than %d devices selected",
                                 APO_MAX_DEVICES);
            rt->devices[rt->n_devices++] = gpus[g];
            gpu_taken[g] = 1;
            matched++;
        }
        if (spec->kind != APO_SPEC_AUTO && matched == 0 && n_gpus > 0)
            apo__warn(&rt->warnings, "device list item %zu selects no GPU; ignored", i + 1);
        if (spec->kind == APO_SPEC_AUTO) {
            if (rt->n_devices == APO_MAX_DEVICES)
                return apo__fail(APO_ERR_BAD_DEVICE_SPEC, "more than %d devices selected",
                                 APO_MAX_DEVICES);
            open_cpu(rt, s->cpu_threads, cpu_defaulted, isa, isa_named);
        }
    }
    for (size_t g = 0; g < n_gpus; g++)
        if (!gpu_taken[g])
            gpus[g].ops->close(&gpus[g]);
    for (size_t i = 0; i < rt->n_devices; i++)
        if (rt->devices[i].info.kind == APO_DEVICE_CUDA)
            rt->n_gpus++;

    if (rt->n_devices == 0) {
        /* Only GPU items were listed and none is usable: the CPU carries on (docs/design.md: never
         * a crash for a missing GPU). */
        apo__warn(&rt->warnings, "the device list selects no usable device; using the cpu");
        open_cpu(rt, s->cpu_threads, cpu_defaulted, isa, isa_named);
    }
    share_host_threads(rt, cpu_defaulted);
#ifdef APO_HAVE_CUDA
    /* Only the GPUs the list selected: the others are closed already. */
    if (s->gpu_early_staging)
        for (size_t i = 0; i < rt->n_devices; i++)
            apo__cuda_stage_early(&rt->devices[i]);
#endif
    /* Read once, for the cpu devices whose helper threads could share a task
     * (docs/scheduling.md, "A machine busy from the start"). */
    double pressure = -1;
    int pressure_read = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        apo__device *dev = &rt->devices[i];
        dev->cpu_pressure = -1;
        if (dev->info.kind != APO_DEVICE_CPU || dev->info.threads < 2)
            continue;
        if (!pressure_read)
            pressure = apo__cpu_pressure_avg10(s->cpu_pressure_file);
        pressure_read = 1;
        dev->cpu_pressure = pressure;
    }
    if (s->use_gpu == APO_USE_GPU_YES && rt->n_gpus == 0)
        return apo__fail(APO_ERR_GPU_REQUIRED,
                         "a GPU is required (APPORTION_USE_GPU=yes or apo_config.use_gpu) but "
                         "the device list \"%s\" selects none",
                         s->devices);
    int sims = 0, real_devices = 0;
    for (size_t i = 0; i < rt->n_devices; i++) {
        sims += rt->devices[i].info.kind == APO_DEVICE_SIM;
        real_devices += rt->devices[i].info.kind != APO_DEVICE_SIM;
    }
    if (virtual_clock && sims > 0 && real_devices > 0)
        apo__warn(&rt->warnings,
                  "the virtual sim clock is meant for device sets that are all simulated: "
                  "real devices' times are measured, sim devices' modelled, so makespan and "
                  "balance mix the two");
    return APO_OK;
}

/* Whether the profile files' location was named rather than taken from XDG_STATE_HOME or
 * HOME: an explicit path (apo_config, APPORTION_*_PATH, THREADX_*_PATH) or
 * APPORTION_PROFILE_DIR. */
static int profile_location_named(const apo__profile_location *loc) {
    const char *named[3] = {loc->multigpu_path, loc->thresholds_path, loc->profile_dir};
    for (size_t i = 0; i < 3; i++)
        if (named[i] != NULL && named[i][0] != '\0')
            return 1;
    return 0;
}

static const char sim_off_reason[] =
    "not used with simulated devices: the default profile holds this machine's devices only "
    "(name a folder with APPORTION_PROFILE_DIR to keep what simulated devices learn)";

apo_status apo_runtime_create(const apo_config *config, apo_runtime **out) {
    if (out == NULL)
        return apo__fail(APO_ERR_NULL, "apo_runtime_create: out is NULL");
    *out = NULL;
    apo_runtime *rt = calloc(1, sizeof *rt);
    if (rt == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_runtime_create: cannot allocate %zu bytes",
                         sizeof *rt);
    settings s;
    int balance_ready = 0;
    apo_status st = resolve_settings(config, &rt->warnings, &s);
    if (st == APO_OK) {
        st = open_devices(rt, &s);
        /* Joined even when the devices failed to open: a server then tells rank 0 so, and
         * rank 0 releases its servers on the way out (docs/cluster.md). */
        apo__device_set set = {rt->devices, rt->n_devices, &rt->warnings};
        rt->cluster = apo__cluster_join(&s.cluster, &set, st);
        rt->n_devices = set.n_devices;
    }
    if (st != APO_OK)
        goto fail;
    rt->faults.settings = s.faults;
    pthread_mutex_init(&rt->call_mutex, NULL);
    apo__registry_init(&rt->registry);
    rt->gather = (apo__gather_site){.devices = rt->devices,
                                    .n_devices = rt->n_devices,
                                    .n_gpus = rt->n_gpus,
                                    .nccl_wanted = s.nccl};
    /* A serving rank keeps its models in memory: rank 0's profile holds a model per rank,
     * keyed by host, and ranks sharing a host or a network home must not overwrite that
     * file with their own local view (docs/cluster.md). */
    if (rt->cluster != NULL && rt->cluster->role == APO_CLUSTER_SERVER)
        s.balance.profiles_on = 0;
    /* A simulated device (a sim device, or a GPU of the simulated CUDA runtime) is no device
     * of this machine: what a runtime with one learns (its models, its ratios, the cpu's
     * model measured beside it) is kept out of the user's profile, unless a profile location
     * is named (APPORTION_PROFILE_DIR, a path setting or apo_config's), as the tests, the
     * demo and a user keeping sims on purpose do (docs/profiles.md, "Simulated devices"). */
    if (s.balance.profiles_on && !profile_location_named(&s.balance.location)) {
        for (size_t i = 0; i < rt->n_devices; i++)
            if (rt->devices[i].info.kind == APO_DEVICE_SIM ||
                (rt->devices[i].info.kind == APO_DEVICE_CUDA && rt->devices[i].simulated)) {
                s.balance.profiles_on = 0;
                s.balance.off_reason = sim_off_reason;
                break;
            }
    }
    const apo_device_info *identities[APO_MAX_DEVICES];
    for (size_t i = 0; i < rt->n_devices; i++) {
        identities[i] = &rt->devices[i].info;
        s.balance.threads_alone[i] =
            apo__device_is_host_like(&rt->devices[i]) ? rt->devices[i].threads_alone : 0;
    }
    apo__balance_init(&rt->balance, identities, rt->n_devices, &s.balance, &rt->warnings);
    balance_ready = 1;
    APO_CHECK_GOTO(apo__pool_start(&rt->pool, rt->devices, rt->n_devices), st, fail);
#ifdef APO_HAVE_CUDA
    /* Pins nothing yet: its blocks are pinned at the first request (docs/host-pool.md). */
    for (size_t i = 0; i < rt->n_devices && rt->host_pool == NULL; i++)
        if (rt->devices[i].info.kind == APO_DEVICE_CUDA)
            rt->host_pool = apo__host_pool_open(apo__cuda_ordinal(&rt->devices[i]),
                                                apo__host_pool_default_limit());
#endif
    for (size_t i = 0; i < rt->n_devices; i++)
        apo__log(APO_LOG_INFO, APO_SUBSYS_INIT, "device %zu: %s (%s)", i, rt->devices[i].info.id,
                 rt->devices[i].info.label);
    *out = rt;
    return APO_OK;

fail:
    apo__cluster_leave(rt->cluster, rt->devices, rt->n_devices);
    for (size_t i = 0; i < rt->n_devices; i++)
        rt->devices[i].ops->close(&rt->devices[i]);
    if (balance_ready) {
        rt->balance.learn = 0; /* nothing was learnt: nothing to write */
        apo__balance_destroy(&rt->balance);
        pthread_mutex_destroy(&rt->call_mutex);
        apo__registry_destroy(&rt->registry);
    }
    free(rt);
    return st;
}

void apo_runtime_destroy(apo_runtime *rt) {
    if (rt == NULL)
        return;
    /* From inside one of its own kernels, destroying would join the very thread running the
     * kernel and free what the call still uses: the runtime is left alone instead. */
    if (apo__inside_kernel_of(rt)) {
        apo__fail(APO_ERR_INVALID_ARGUMENT,
                  "apo_runtime_destroy: called from inside a user kernel that this runtime is "
                  "running; the runtime was not destroyed");
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "%s", apo_last_error());
        return;
    }
    /* Releases the serving ranks before anything closes. */
    apo__cluster_leave(rt->cluster, rt->devices, rt->n_devices);
    rt->cluster = NULL;
    size_t stuck = apo__pool_stop(&rt->pool);
    apo__balance_destroy(&rt->balance);
    if (stuck > 0) {
        /* A detached worker may still wake up inside its backend and then use its device,
         * the pool and the task guards, all of which live in *rt: leak the runtime rather
         * than let that thread touch freed memory. It never touches the caller's arrays
         * (the task guard), so only this allocation is at stake. */
        apo__log(APO_LOG_WARN, APO_SUBSYS_INIT,
                 "apo_runtime_destroy: %zu worker(s) stuck in abandoned tasks; %zu bytes of "
                 "runtime state are left allocated on purpose",
                 stuck, sizeof *rt);
        return;
    }
#ifdef APO_HAVE_CUDA
    apo__cuda_release_pins(rt);
    apo__host_pool_close(rt->host_pool); /* its idle blocks are freed while the GPUs are open */
    apo__gather_close(&rt->gather);      /* its communicators reference the GPUs closed next */
#endif
    for (size_t i = 0; i < rt->n_devices; i++)
        rt->devices[i].ops->close(&rt->devices[i]);
    apo__registry_destroy(&rt->registry);
    free(rt->partials);
    pthread_mutex_destroy(&rt->call_mutex);
    free(rt);
}

apo_status apo_runtime_warning_count(const apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_runtime_warning_count: NULL argument");
    *count = rt->warnings.count;
    return APO_OK;
}

apo_status apo_runtime_warning(const apo_runtime *rt, size_t index, const char **message) {
    if (rt == NULL || message == NULL)
        return apo__fail(APO_ERR_NULL, "apo_runtime_warning: NULL argument");
    if (index >= rt->warnings.count)
        return apo__fail(APO_ERR_NOT_FOUND, "apo_runtime_warning: index %zu, only %zu warnings",
                         index, rt->warnings.count);
    *message = rt->warnings.text[index];
    return APO_OK;
}

apo_status apo_runtime_warning_kind(const apo_runtime *rt, size_t index, apo_warning_kind *kind) {
    if (rt == NULL || kind == NULL)
        return apo__fail(APO_ERR_NULL, "apo_runtime_warning_kind: NULL argument");
    if (index >= rt->warnings.count)
        return apo__fail(APO_ERR_NOT_FOUND,
                         "apo_runtime_warning_kind: index %zu, only %zu warnings", index,
                         rt->warnings.count);
    *kind = rt->warnings.kind[index];
    return APO_OK;
}

const char *apo_device_kind_name(apo_device_kind kind) {
    switch (kind) {
    case APO_DEVICE_CPU:
        return "cpu";
    case APO_DEVICE_CUDA:
        return "cuda";
    case APO_DEVICE_SIM:
        return "sim";
    case APO_DEVICE_RANK:
        return "rank";
    }
    return "unknown";
}

apo_status apo_device_count(const apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_device_count: NULL argument");
    *count = rt->n_devices;
    return APO_OK;
}

apo_status apo_device_get(const apo_runtime *rt, size_t index, apo_device_info *info) {
    if (rt == NULL || info == NULL)
        return apo__fail(APO_ERR_NULL, "apo_device_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(info, apo_device_info, APO_DEVICE_INFO_INIT);
    if (index >= rt->n_devices)
        return apo__fail(APO_ERR_NOT_FOUND, "apo_device_get: index %zu, only %zu devices", index,
                         rt->n_devices);
    *info = rt->devices[index].info;
    info->size = sizeof(apo_device_info);
    return APO_OK;
}

apo_status apo_gpu_count(const apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_gpu_count: NULL argument");
    *count = rt->n_gpus;
    return APO_OK;
}

/*
 * `apportion devices [--json]`: the devices the runtime found, with their health, and why no
 * GPU is used when none is.
 */
#include "cli.h"
#include "json_report.h"
#include "kernels.h"
#include "option_table.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char devices_help[] =
    "Usage: apportion devices [--json]\n"
    "\n"
    "List the devices that a run would use (APPORTION_DEVICES, APPORTION_USE_GPU and\n"
    "CUDA_VISIBLE_DEVICES apply): index, id, kind, label, threads, memory and, for GPUs,\n"
    "the compute capability; then how many GPUs are usable and, when none is, why. A GPU's\n"
    "threads are the host threads that drive it (its staging copies); the cpu device's\n"
    "default thread count is lowered by them, so that together they fit the cores. The\n"
    "cpu's label names the vector path its kernels use (APPORTION_CPU_ISA forces one);\n"
    "its details list the paths this CPU has.\n"
    "\n"
    "Options:\n"
    "  --devices LIST   device list as in APPORTION_DEVICES (overrides it)\n"
    "  --json           print one JSON object instead of the table\n"
    "  -h, --help       show this help\n";

/* Memory is shown in whole MiB ("MB" in the column names, as nvidia-smi does). */
static unsigned long long mb(uint64_t bytes) { return (unsigned long long)(bytes >> 20); }

static json_t *device_json(const apo_device_info *d) {
    json_t *o = json_object();
    json_object_set_new(o, "id", cli_json_string(d->id));
    json_object_set_new(o, "label", cli_json_string(d->label));
    json_object_set_new(o, "kind", json_string(apo_device_kind_name(d->kind)));
    json_object_set_new(o, "config", cli_json_string(d->config));
    json_object_set_new(o, "threads", json_integer(d->threads));
    json_object_set_new(o, "memory_total_mb", cli_json_u64(d->memory_total_bytes >> 20));
    json_object_set_new(o, "memory_free_mb", cli_json_u64(d->memory_free_bytes >> 20));
    if (d->kind == APO_DEVICE_CUDA) {
        char cc[32];
        snprintf(cc, sizeof cc, "%d.%d", d->compute_capability_major, d->compute_capability_minor);
        json_object_set_new(o, "compute_capability", json_string(cc));
        json_object_set_new(o, "uuid", cli_json_string(d->id));
        json_object_set_new(o, "multiprocessors", json_integer(d->multiprocessors));
        json_object_set_new(o, "copy_engines", json_integer(d->copy_engines));
        json_object_set_new(o, "pci_bus_id", cli_json_string(d->pci_bus_id));
    }
    if (d->kind == APO_DEVICE_CPU) {
        /* The path in use is in the label; these are the ones APPORTION_CPU_ISA may choose. */
        json_t *paths = json_array();
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++)
            if (apo__cpu_isa_supported((apo__cpu_isa)isa))
                json_array_append_new(paths, json_string(apo__cpu_isa_name((apo__cpu_isa)isa)));
        json_object_set_new(o, "vector_paths", paths);
    }
    if (d->kind == APO_DEVICE_SIM) {
        json_object_set_new(o, "simulated", json_true());
        json_object_set_new(o, "rate", cli_json_number(d->sim_rate));
        json_object_set_new(o, "latency_ms", cli_json_number(d->sim_latency_s * 1e3));
        json_object_set_new(o, "fail_after", cli_json_u64(d->sim_fail_after));
        json_object_set_new(o, "flaky", cli_json_number(d->sim_flaky));
        json_object_set_new(o, "seed", cli_json_u64(d->sim_seed));
        json_object_set_new(o, "hang_after", cli_json_u64(d->sim_hang_after));
    }
    return o;
}

/* Host threads the devices take: the cpu devices' OpenMP teams and the GPUs' drivers. */
static void host_threads(const apo_device_info *devs, size_t n, int *cpu, int *gpu) {
    *cpu = *gpu = 0;
    for (size_t i = 0; i < n; i++) {
        if (devs[i].kind == APO_DEVICE_CPU)
            *cpu += devs[i].threads;
        else if (devs[i].kind == APO_DEVICE_CUDA)
            *gpu += devs[i].threads;
    }
}

static void print_table(const apo_device_info *devs, size_t n) {
    printf("%-3s %-40s %-5s %-32s %7s %12s %12s  %s\n", "#", "id", "kind", "label", "threads",
           "mem_total_MB", "mem_free_MB", "details");
    for (size_t i = 0; i < n; i++) {
        const apo_device_info *d = &devs[i];
        char details[256] = "-";
        if (d->kind == APO_DEVICE_CPU) {
            char paths[64];
            apo__cpu_isa_list_supported(paths, sizeof paths);
            snprintf(details, sizeof details, "vector paths of this CPU: %s", paths);
        } else if (d->kind == APO_DEVICE_CUDA)
            snprintf(details, sizeof details, "compute %d.%d, %d SMs, %d copy engines, PCI %s",
                     d->compute_capability_major, d->compute_capability_minor, d->multiprocessors,
                     d->copy_engines, d->pci_bus_id);
        else if (d->kind == APO_DEVICE_SIM)
            snprintf(details, sizeof details,
                     "simulated: rate %.6g elem/s, latency %.6g ms, fail_after %llu, flaky %g "
                     "(seed %llu), hang_after %llu",
                     d->sim_rate, d->sim_latency_s * 1e3, (unsigned long long)d->sim_fail_after,
                     d->sim_flaky, (unsigned long long)d->sim_seed,
                     (unsigned long long)d->sim_hang_after);
        printf("%-3zu %-40s %-5s %-32s %7d %12llu %12llu  %s\n", i, d->id,
               apo_device_kind_name(d->kind), d->label, d->threads, mb(d->memory_total_bytes),
               mb(d->memory_free_bytes), details);
    }
}

int cli_cmd_devices(int argc, char **argv) {
    int json = 0;
    apo_runtime *rt = NULL;
    int done = cli_open_json_devices("devices", devices_help, argc, argv, &json, &rt);
    if (done >= 0)
        return done;

    int rc = CLI_EXIT_OK;
    size_t n = 0, gpus = 0, n_warn = 0;
    apo_status st = apo_device_count(rt, &n);
    if (st == APO_OK)
        st = apo_gpu_count(rt, &gpus);
    if (st == APO_OK)
        st = apo_runtime_warning_count(rt, &n_warn);
    if (st != APO_OK) {
        rc = cli_status_error(st, "cannot query the devices");
        apo_runtime_destroy(rt);
        return rc;
    }
    if (n > APO_MAX_DEVICES)
        n = APO_MAX_DEVICES;
    apo_device_info devs[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++) {
        apo_device_info init = {.size = sizeof(apo_device_info)};
        devs[i] = init;
        st = apo_device_get(rt, i, &devs[i]);
        if (st != APO_OK) {
            rc = cli_status_error(st, "cannot describe a device");
            apo_runtime_destroy(rt);
            return rc;
        }
    }

    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "gpu_available", json_boolean(gpus > 0));
        json_object_set_new(o, "gpu_count", json_integer((json_int_t)gpus));
        int cpu_threads, gpu_threads;
        host_threads(devs, n, &cpu_threads, &gpu_threads);
        json_object_set_new(o, "cpu_threads", json_integer(cpu_threads));
        json_object_set_new(o, "gpu_host_threads", json_integer(gpu_threads));
        json_object_set_new(o, "warnings", cli_runtime_warnings_json(rt));
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, device_json(&devs[i]));
        json_object_set_new(o, "devices", arr);
        rc = cli_json_print(o);
        json_decref(o);
    } else {
        /* Without a GPU the warnings say why, and they are said once: on the count line, so
         * that the table alone answers "why is my GPU not used", and not on stderr too. */
        if (gpus > 0)
            cli_print_runtime_warnings(rt);
        print_table(devs, n);
        if (gpus > 0) {
            printf("GPUs usable: %zu\n", gpus);
            int cpu_threads, gpu_threads;
            host_threads(devs, n, &cpu_threads, &gpu_threads);
            printf("host threads: %d for the GPUs' drivers and staging copies, %d for the cpu "
                   "device (its default is lowered by the GPUs' share; docs/cuda.md, \"Host "
                   "threads\")\n",
                   gpu_threads, cpu_threads);
        } else {
            printf("GPUs usable: 0");
            const char *sep = " (";
            for (size_t i = 0; i < n_warn; i++) {
                const char *w = NULL;
                if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL) {
                    printf("%s%s", sep, w);
                    sep = "; ";
                }
            }
            if (n_warn == 0)
                printf(" (no GPU selected: APPORTION_DEVICES or APPORTION_USE_GPU keep to the "
                       "CPU and simulated devices)");
            else
                printf(")");
            printf("\n");
        }
        rc = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    }
    apo_runtime_destroy(rt);
    return rc;
}

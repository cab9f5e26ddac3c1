/*
 * Devices: the device list grammar with its precise errors, the cpu and sim devices, the
 * CUDA stub's "no GPU" path, configuration precedence (config, environment, default), and
 * the NCCL loader behind the multi-GPU gather.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "apportion_cuda.h"
#include "devices/cuda/nccl_loader.h"
#include "devices/device_list.h"
#include "helpers.h"

static size_t parse_ok(const char *text, apo__device_spec *specs) {
    size_t n;
    char err[256] = "";
    apo_status st = apo__parse_device_list(text, specs, APO_MAX_DEVICES, &n, err, sizeof err);
    cr_assert_eq(st, APO_OK, "\"%s\" rejected: %s", text, err);
    return n;
}

static void parse_bad(const char *text, const char *expect) {
    apo__device_spec specs[APO_MAX_DEVICES];
    size_t n;
    char err[256] = "";
    apo_status st = apo__parse_device_list(text, specs, APO_MAX_DEVICES, &n, err, sizeof err);
    cr_assert_eq(st, APO_ERR_BAD_DEVICE_SPEC, "\"%s\" accepted", text);
    cr_assert(strstr(err, expect) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", text, err,
              expect);
}

Test(devices, device_list_grammar) {
    apo__device_spec s[APO_MAX_DEVICES];
    cr_assert_eq(parse_ok("auto", s), 1);
    cr_assert_eq(s[0].kind, APO_SPEC_AUTO);
    cr_assert_eq(parse_ok("cpu:threads=3,sim:fast:rate=2.5M:latency=50us:fail_after=4,cuda:1", s),
                 3);
    cr_assert_eq(s[0].kind, APO_SPEC_CPU);
    cr_assert_eq(s[0].threads, 3);
    cr_assert_eq(s[1].kind, APO_SPEC_SIM);
    cr_assert_str_eq(s[1].sim_name, "fast");
    cr_assert_eq(s[1].sim_rate, 2.5e6);
    cr_assert_float_eq(s[1].sim_latency_s, 50e-6, 1e-18);
    cr_assert_eq(s[1].sim_fail_after, 4);
    cr_assert_eq(s[2].kind, APO_SPEC_CUDA_ORDINAL);
    cr_assert_eq(s[2].ordinal, 1);
    cr_assert_eq(parse_ok("cuda:GPU-9A1C,sim:x,cuda", s), 3);
    cr_assert_eq(s[0].kind, APO_SPEC_CUDA_UUID);
    cr_assert_str_eq(s[0].uuid_prefix, "9a1c");
    cr_assert_eq(s[1].sim_rate, APO_SIM_DEFAULT_RATE);
    cr_assert_eq(s[1].sim_latency_s, 0);
    cr_assert_eq(s[2].kind, APO_SPEC_CUDA_ALL);
    cr_assert_eq(parse_ok("sim:a:latency=0,sim:b:latency=2ms:rate=1e9", s), 2);
    cr_assert_float_eq(s[1].sim_latency_s, 2e-3, 1e-18);
    cr_assert_eq(parse_ok("sim:b:rate=4e8:slow_rate=2M:slow_after=11", s), 1);
    cr_assert_eq(s[0].sim_slow_after, 11);
    cr_assert_eq(s[0].sim_slow_rate, 2e6);
    cr_assert_eq(s[0].sim_rate, 4e8);
    cr_assert_eq(parse_ok("sim:f:flaky=0.25:seed=18446744073709551615:hang_after=3,sim:g:flaky=1,"
                          "sim:h:flaky=0",
                          s),
                 3);
    cr_assert_eq(s[0].sim_flaky, 0.25);
    cr_assert_eq(s[0].sim_seed, UINT64_MAX);
    cr_assert_eq(s[0].sim_hang_after, 3);
    cr_assert_eq(s[1].sim_flaky, 1.0);
    cr_assert_eq(s[1].sim_seed, 0, "the default seed is fixed, so runs repeat");
    cr_assert_eq(s[1].sim_hang_after, 0);
    cr_assert_eq(s[2].sim_flaky, 0.0);
}

Test(devices, device_list_errors_name_the_item_and_reason) {
    parse_bad("", "empty");
    parse_bad("cpu,,sim:a", "item 2 \"\": empty item");
    parse_bad("cpu,", "item 2");
    parse_bad("gpu", "unknown device kind \"gpu\"");
    parse_bad("cpu:threads=0", "threads must be an integer from 1 to 1024");
    parse_bad("cpu:threads=abc", "threads must be");
    parse_bad("cpu:cores=2", "unknown cpu option");
    parse_bad("sim", "needs a name");
    parse_bad("sim:a b", "sim name");
    parse_bad("sim:a:rate=-5", "rate must be a positive number");
    parse_bad("sim:a:rate=0", "rate must be");
    parse_bad("sim:a:rate=fast", "rate must be");
    parse_bad("sim:a:rate=1e6:rate=2e6", "rate given twice");
    parse_bad("sim:a:latency=5", "latency must be a duration");
    parse_bad("sim:a:latency=-1ms", "latency must be");
    parse_bad("sim:a:latency=2h", "latency must be");
    parse_bad("sim:a:fail_after=0", "fail_after must be an integer of at least 1");
    parse_bad("sim:a:fail_after=2.5", "fail_after must be");
    parse_bad("sim:a:speed=3", "unknown sim option \"speed\"");
    parse_bad("sim:a:slow_after=3", "slow_after and slow_rate go together");
    parse_bad("sim:a:slow_rate=1M", "slow_after and slow_rate go together");
    parse_bad("sim:a:slow_after=0:slow_rate=1M", "slow_after must be an integer of at least 1");
    parse_bad("sim:a:slow_after=2:slow_rate=0", "slow_rate must be a positive number");
    parse_bad("sim:a:rate", "needs a value");
    parse_bad("sim:a:flaky=1.5", "item 1 \"sim:a:flaky=1.5\": flaky must be a probability from 0 "
                                 "to 1, got \"1.5\"");
    parse_bad("sim:a:flaky=-0.1", "flaky must be a probability");
    parse_bad("sim:a:flaky=nan", "flaky must be a probability");
    parse_bad("sim:a:flaky=20%", "flaky must be a probability");
    parse_bad("sim:a:flaky=", "flaky must be a probability");
    parse_bad("sim:a:flaky=0.1:flaky=0.2", "flaky given twice");
    parse_bad("sim:a:flaky=0.1:seed=-1", "seed must be an integer from 0 to 2^64-1");
    parse_bad("sim:a:flaky=0.1:seed=18446744073709551616", "seed must be an integer");
    parse_bad("sim:a:flaky=0.1:seed=1:seed=2", "seed given twice");
    parse_bad("sim:a:seed=4", "seed only keys the flaky draws: give flaky=P with it");
    parse_bad("sim:a:hang_after=0", "hang_after must be an integer of at least 1");
    parse_bad("sim:a:hang_after=x", "hang_after must be");
    parse_bad("sim:a:hang_after=1:hang_after=2", "hang_after given twice");
    parse_bad("cpu,sim:a:hang=1", "unknown sim option \"hang\" (known: rate, latency, fail_after, "
                                  "slow_after, slow_rate, flaky, seed, hang_after, replay, cold)");
    parse_bad("sim:a:cold=0.5", "cold must be a factor from 1 to 1000");
    parse_bad("sim:a:cold=2:cold=2", "cold given twice");
    parse_bad("sim:a:replay=h99",
              "replay=h99 names no measured device (known: h100, h100-host, h200, h200-host)");
    parse_bad("sim:a:replay=h100:replay=h100", "replay given twice");
    parse_bad("sim:a:replay=h100:rate=1e9", "rate, latency and slow_after do not go with it");
    parse_bad("sim:a,sim:a", "item 2 \"sim:a\": names a device already listed as item 1");
    parse_bad("cpu,auto", "already listed");
    parse_bad("cuda:x", "expected cuda:N");
    parse_bad("cuda:GPU-zz", "hex digits");
    parse_bad("auto:1", "auto takes no options");
}

/* Found by tests/fuzz/fuzz_device_list (corpus/fuzz_device_list/regress_control_byte): the
 * message echoed the item's raw bytes, so "sim\x06" showed as a kind that looks valid, and an
 * escape sequence in the variable would have reached the terminal. */
Test(devices, device_list_errors_show_control_bytes_escaped) {
    parse_bad("cuda:GPU-9A1C,sim\x06", "item 2 \"sim\\x06\": unknown device kind \"sim\\x06\"");
    parse_bad("sim:a\x1b[2J", "item 1 \"sim:a\\x1b[2J\": sim name \"a\\x1b[2J\" must be");
    parse_bad("cpu:threads=4\n", "threads must be an integer from 1 to 1024, got \"4\\x0a\"");
    parse_bad("sim:a:rate=1\x7f", "got \"1\\x7f\"");
    apo__device_spec specs[APO_MAX_DEVICES];
    size_t n;
    char err[256];
    apo__parse_device_list("sim:\t\r\n", specs, APO_MAX_DEVICES, &n, err, sizeof err);
    for (const char *c = err; *c != '\0'; c++)
        cr_assert((unsigned char)*c >= 0x20 && *c != 0x7f, "control byte in \"%s\"", err);
}

/* Found by tests/fuzz/fuzz_device_list (corpus/fuzz_device_list/regress_long_item): a long
 * item, worse one of control bytes (each shown as four), pushed the reason out of the
 * runtime's 256-byte message; and strtod() let "rate=<form feeds>2" through. */
Test(devices, device_list_long_items_keep_their_reason) {
    char list[300] = "cpu,sim:a:rate=2,sim:o:rate=";
    size_t len = strlen(list);
    memset(list + len, '\f', 200);
    strcpy(list + len + 200, "2");
    parse_bad(
        list,
        "item 3 \"sim:o:rate=\\x0c\\x0c\\x0c\\x0c\\x0c\\x0c\\x0c\\x0c\\x0c...\": rate must be");
    parse_bad("sim:a:rate= 2", "rate must be a positive number");
    parse_bad("sim:a:latency=\t1ms", "latency must be a duration");
    /* Under a limit of 2 the reason is the count, whatever the third item holds. */
    apo__device_spec specs[2];
    size_t n;
    char err[256];
    apo_status st =
        apo__parse_device_list("cpu,sim:a,sim:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                               specs, 2, &n, err, sizeof err);
    cr_assert_eq(st, APO_ERR_BAD_DEVICE_SPEC);
    cr_assert(strstr(err, "...\": too many devices (at most 2)") != NULL, "%s", err);
    char item[300];
    memset(item, '\x01', 255);
    item[255] = '\0';
    parse_bad(item, "\": unknown device kind \"\\x01\\x01");
}

Test(devices, cpu_and_sim_devices_are_described) {
    apo_runtime *rt =
        test_runtime("cpu:threads=2,sim:slow:rate=1k:latency=1ms:fail_after=9:flaky=0.5:seed=77:"
                     "hang_after=12");
    size_t n;
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    cr_assert_eq(n, 2);
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, 0, &info), APO_OK);
    cr_assert_str_eq(info.id, "cpu");
    cr_assert_eq(info.kind, APO_DEVICE_CPU);
    cr_assert_eq(info.threads, 2);
    cr_assert_gt(info.memory_total_bytes, 0);
    cr_assert_eq(apo_device_get(rt, 1, &info), APO_OK);
    cr_assert_str_eq(info.id, "sim:slow");
    cr_assert_eq(info.kind, APO_DEVICE_SIM);
    cr_assert_eq(info.sim_rate, 1000.0);
    cr_assert_eq(info.sim_fail_after, 9);
    cr_assert_eq(info.sim_flaky, 0.5);
    cr_assert_eq(info.sim_seed, 77);
    cr_assert_eq(info.sim_hang_after, 12);
    cr_assert(strstr(info.label, "simulated") != NULL, "%s", info.label);
    cr_assert_eq(apo_device_get(rt, 2, &info), APO_ERR_NOT_FOUND);
    info.size = 3;
    cr_assert_eq(apo_device_get(rt, 0, &info), APO_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(apo_device_kind_name(APO_DEVICE_SIM), "sim");
    apo_runtime_destroy(rt);
}

Test(devices, no_gpu_is_a_warning_and_the_cpu_carries_on) {
    unsetenv("APPORTION_DEVICES");
    unsetenv("APPORTION_USE_GPU");
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(NULL, &rt), APO_OK, "%s", apo_last_error());
    size_t gpus = 99, n = 0, warnings = 0;
    cr_assert_eq(apo_gpu_count(rt, &gpus), APO_OK);
    cr_assert_eq(gpus, 0);
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    cr_assert_eq(n, 1);
    cr_assert_eq(apo_runtime_warning_count(rt, &warnings), APO_OK);
    cr_assert_eq(warnings, 1);
    const char *w;
    cr_assert_eq(apo_runtime_warning(rt, 0, &w), APO_OK);
    cr_assert(strstr(w, "no GPU") != NULL && strstr(w, "CUDA") != NULL, "%s", w);
    cr_assert_eq(apo_runtime_warning(rt, 1, &w), APO_ERR_NOT_FOUND);
    /* The default list asked through `auto` on a machine with no driver or no CUDA backend:
     * the warning says what the machine is, and its kind lets a caller tell that from a
     * fault. */
    apo_warning_kind kind = APO_WARNING_PLAIN;
    cr_assert_eq(apo_runtime_warning_kind(rt, 0, &kind), APO_OK);
    cr_assert_eq(kind, APO_WARNING_NO_GPU_HERE);
    cr_assert_eq(apo_runtime_warning_kind(rt, 1, &kind), APO_ERR_NOT_FOUND);
    cr_assert_eq(apo_runtime_warning_kind(rt, 0, NULL), APO_ERR_NULL);
    cr_assert_eq(apo_runtime_warning_kind(NULL, 0, &kind), APO_ERR_NULL);
    apo_runtime_destroy(rt);
}

/* A GPU named in the list is asked for explicitly: its absence is a plain warning, whatever
 * the machine. */
Test(devices, a_named_gpu_that_is_absent_is_a_plain_warning) {
    apo_runtime *rt = test_runtime("cuda,cpu");
    size_t warnings = 0;
    cr_assert_eq(apo_runtime_warning_count(rt, &warnings), APO_OK);
    cr_assert_eq(warnings, 1);
    const char *w;
    cr_assert_eq(apo_runtime_warning(rt, 0, &w), APO_OK);
    cr_assert(strncmp(w, "no GPU in use: ", 15) == 0, "%s", w);
    apo_warning_kind kind = APO_WARNING_NO_GPU_HERE;
    cr_assert_eq(apo_runtime_warning_kind(rt, 0, &kind), APO_OK);
    cr_assert_eq(kind, APO_WARNING_PLAIN);
    apo_runtime_destroy(rt);
}

Test(devices, use_gpu_yes_without_gpu_fails_clearly) {
    setenv("APPORTION_USE_GPU", "yes", 1);
    apo_runtime *rt = (apo_runtime *)0x1;
    apo_status st = apo_runtime_create(NULL, &rt);
    cr_assert_eq(st, APO_ERR_GPU_REQUIRED);
    cr_assert_null(rt);
    cr_assert(strstr(apo_last_error(), "APPORTION_USE_GPU=yes") != NULL, "%s", apo_last_error());
}

Test(devices, use_gpu_no_keeps_quiet_about_gpus) {
    apo_config c = APO_CONFIG_INIT;
    c.use_gpu = APO_USE_GPU_NO;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_OK);
    size_t warnings = 9;
    apo_runtime_warning_count(rt, &warnings);
    cr_assert_eq(warnings, 0);
    apo_runtime_destroy(rt);
}

Test(devices, only_gpu_items_fall_back_to_the_cpu) {
    apo_runtime *rt = test_runtime("cuda:0");
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, 0, &info), APO_OK);
    cr_assert_str_eq(info.id, "cpu");
    size_t warnings;
    apo_runtime_warning_count(rt, &warnings);
    cr_assert_eq(warnings, 2); /* no GPU, and the list selects nothing usable */
    apo_runtime_destroy(rt);
}

/* The pool of pinned host blocks (docs/host-pool.md) is for runtimes with a GPU: on the cpu
 * alone, or in a build without the CUDA backend (no_cuda.c), its calls say there is none to
 * pin for, so that a caller allocates as usual; releasing NULL is always a no-op. */
Test(devices, the_pinned_host_pool_needs_a_gpu) {
    apo_runtime *rt = test_runtime("cpu");
    void *p = (void *)1;
    int pinned = 1;
    cr_assert_eq(apo_cuda_host_acquire(rt, 1 << 20, &p, &pinned), APO_ERR_NO_DEVICE);
    cr_assert_null(p);
    cr_assert_eq(pinned, 0);
    apo_cuda_host_pool_info info = APO_CUDA_HOST_POOL_INFO_INIT;
    cr_assert_eq(apo_cuda_host_pool_query(rt, &info), APO_ERR_NO_DEVICE);
    cr_assert_eq(apo_cuda_host_pool_limit(rt, 0), APO_ERR_NO_DEVICE);
    cr_assert_eq(apo_cuda_host_release(NULL), APO_OK);
    apo_runtime_destroy(rt);
}

Test(devices, config_beats_environment_beats_default) {
    setenv("APPORTION_DEVICES", "sim:fromenv", 1);
    setenv("APPORTION_CPU_THREADS", "1", 1);
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(NULL, &rt), APO_OK, "%s", apo_last_error());
    apo_device_info info = APO_DEVICE_INFO_INIT;
    apo_device_get(rt, 0, &info);
    cr_assert_str_eq(info.id, "sim:fromenv");
    apo_runtime_destroy(rt);

    apo_config c = APO_CONFIG_INIT;
    c.devices = "cpu";
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_OK);
    apo_device_get(rt, 0, &info);
    cr_assert_str_eq(info.id, "cpu");
    cr_assert_eq(info.threads, 1); /* from APPORTION_CPU_THREADS */
    apo_runtime_destroy(rt);

    c.cpu_threads = 2;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_OK);
    apo_device_get(rt, 0, &info);
    cr_assert_eq(info.threads, 2);
    apo_runtime_destroy(rt);
}

/* A runtime of the cpu, made under the environment as it is, gives `n` warnings, warning i
 * holding fragments[i]. */
static void assert_cpu_runtime_warns(const char *const *fragments, size_t n) {
    apo_config c = APO_CONFIG_INIT;
    c.devices = "cpu";
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_OK);
    size_t count;
    apo_runtime_warning_count(rt, &count);
    cr_assert_eq(count, n);
    for (size_t i = 0; i < n; i++) {
        const char *w;
        apo_runtime_warning(rt, i, &w);
        cr_assert(strstr(w, fragments[i]) != NULL, "%s", w);
    }
    apo_runtime_destroy(rt);
}

Test(devices, bad_environment_values_are_warned_and_ignored) {
    setenv("APPORTION_CPU_THREADS", "lots", 1);
    setenv("APPORTION_SIM_CLOCK", "sundial", 1);
    const char *const warnings[] = {"APPORTION_CPU_THREADS=\"lots\" ignored",
                                    "APPORTION_SIM_CLOCK"};
    assert_cpu_runtime_warns(warnings, 2);
}

Test(devices, the_nccl_switch_is_read_and_checked) {
    setenv("APPORTION_NCCL", "sometimes", 1);
    const char *const warnings[] = {"APPORTION_NCCL=\"sometimes\" ignored"};
    assert_cpu_runtime_warns(warnings, 1);

    apo_config c = APO_CONFIG_INIT;
    c.devices = "cpu";
    c.nccl = (apo_switch)7;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "apo_config.nccl is 7, not an apo_switch") != NULL, "%s",
              apo_last_error());
    cr_assert_null(rt);
}

/* A build with nccl.h must find libnccl.so.2 through the loader's path or the toolkit's
 * folders (scripts/deps.sh leaves it where NVIDIA's packages put it), resolve every call
 * and accept its version; a build without it says so. */
Test(devices, the_nccl_loader_resolves_the_library_or_says_why_not) {
    char why[256] = "";
    const apo__nccl_api *api = apo__nccl_load(why, sizeof why);
#ifdef APO_HAVE_NCCL
    cr_assert_not_null(api, "NCCL not loaded: %s", why);
    cr_assert_geq(api->version, 20700);
    cr_assert_eq(api->version / 10000, NCCL_MAJOR, "loaded %d, built against %d.%d", api->version,
                 NCCL_MAJOR, NCCL_MINOR);
    cr_assert_not_null(api->send);
    cr_assert_not_null(api->recv);
    cr_assert_str_eq(api->error_string(ncclSuccess), "no error");
    /* Loaded once: the second call gives the same table. */
    cr_assert_eq(apo__nccl_load(why, sizeof why), api);
#else
    cr_assert_null(api);
    cr_assert(strstr(why, "no NCCL support") != NULL, "%s", why);
#endif
}

Test(devices, bad_device_environment_fails_creation) {
    setenv("APPORTION_DEVICES", "cpu,sim:a:rate=-1", 1);
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(NULL, &rt), APO_ERR_BAD_DEVICE_SPEC);
    cr_assert(strstr(apo_last_error(), "item 2") != NULL, "%s", apo_last_error());
    cr_assert_null(rt);
}

Test(devices, bad_config_fields) {
    apo_config c = APO_CONFIG_INIT;
    apo_runtime *rt = NULL;
    c.cpu_threads = -1;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_ERR_INVALID_ARGUMENT);
    c.cpu_threads = 0;
    c.size = 4;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "APO_CONFIG_INIT") != NULL);
    apo_runtime_destroy(NULL); /* accepted */
}

/* On the wall clock a sim device waits out latency + elements / rate. */
Test(devices, sim_wall_clock_waits_the_modelled_time, .timeout = 60) {
    apo_config c = APO_CONFIG_INIT;
    c.devices = "sim:w:rate=1M:latency=20ms";
    c.sim_clock = APO_SIM_CLOCK_WALL;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&c, &rt), APO_OK);
    test_job job;
    test_job_init(&job, rt, "returns_stats", 1, 50000, 1);
    apo_report r = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
    /* 20 ms + 50000 / 1e6 s = 70 ms at least; the machine may add, never subtract. */
    cr_assert_geq(r.makespan_ms, 70.0, "makespan %g", r.makespan_ms);
    cr_assert_geq(r.devices[0].wall_ms, 70.0);
    cr_assert_eq(r.simulated, 1);
    cr_assert_eq(r.virtual_clock, 0);
    test_job_close(&job, rt);
}

/* On the virtual clock the modelled time is reported exactly, without waiting. */
Test(devices, sim_virtual_clock_reports_the_model, .timeout = 60) {
    test_job job;
    apo_runtime *rt =
        test_job_on(&job, test_runtime("sim:v:rate=1k:latency=2s"), "returns_stats", 1, 50000, 1);
    apo_report r = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
    cr_assert_float_eq(r.makespan_ms, (2.0 + 50000 / 1e3) * 1e3, 1e-6);
    cr_assert_eq(r.virtual_clock, 1);
    cr_assert_float_eq(r.balance_efficiency, 1.0, 1e-12);
    test_job_close(&job, rt);
}

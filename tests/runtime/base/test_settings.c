/*
 * Settings (runtime/base/settings_table.h): every row's variable is read, bad values are
 * warned about with the value shown safely and then ignored, the config beats the
 * environment which beats the default, config fields are checked against their bounds, the
 * one number parser is strict, and docs/env.md shows the table as it is.
 *
 * The expected values, texts and defaults here are written out by hand from docs/env.md,
 * not taken from the table: a row that changes must change here too. Each row of the table
 * must have its SAMPLE_, CONFIG_ and DEFAULT_ macros below, or this file does not compile.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/log.h"
#include "base/parse_number.h"
#include "base/settings.h"

/* Leaves every variable of the table unset, whatever the test runner's environment has
 * (meson sets APPORTION_PROFILES, a shell has HOME). */
static void clear_environment(void) {
    for (size_t i = 0; i < APO_SETTING_ROW_COUNT; i++) {
        cr_assert_eq(unsetenv(apo__setting_rows[i].env), 0);
        if (apo__setting_rows[i].legacy_env != NULL)
            cr_assert_eq(unsetenv(apo__setting_rows[i].legacy_env), 0);
    }
}

static const apo__setting_row *row_of_env(const char *env) {
    for (size_t i = 0; i < APO_SETTING_ROW_COUNT; i++)
        if (strcmp(apo__setting_rows[i].env, env) == 0)
            return &apo__setting_rows[i];
    return NULL;
}

/* Typed comparison, one function per row type. */
static int same_TEXT(const char *a, const char *b) {
    return (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
}
static int same_INT(int a, int b) { return a == b; }
static int same_UINT(unsigned a, unsigned b) { return a == b; }
static int same_SIZE(size_t a, size_t b) { return a == b; }
static int same_REAL(double a, double b) { return a == b; }
static int same_REAL_ABOVE(double a, double b) { return a == b; }
static int same_SWITCH(apo_switch a, apo_switch b) { return a == b; }
static int same_USE_GPU(apo_use_gpu a, apo_use_gpu b) { return a == b; }
static int same_SIM_CLOCK(apo_sim_clock a, apo_sim_clock b) { return a == b; }
static int same_CPU_ISA(int a, int b) { return a == b; }
static int same_PRESENT(int a, int b) { return a == b; }
static int same_LOG_LEVEL(int a, int b) { return a == b; }
static int same_LOG_SUBSYS(unsigned a, unsigned b) { return a == b; }

/* ---- per row: a valid text for the variable and what it reads as ---------------------- */

#define SAMPLE_devices "cpu,sim:from_env", "cpu,sim:from_env"
#define SAMPLE_cpu_threads "7", 7
#define SAMPLE_use_gpu "No", APO_USE_GPU_NO
#define SAMPLE_sim_clock "VIRTUAL", APO_SIM_CLOCK_VIRTUAL
#define SAMPLE_multigpu_path "/env/multigpu.json", "/env/multigpu.json"
#define SAMPLE_thresholds_path "/env/thresholds.json", "/env/thresholds.json"
#define SAMPLE_profiles "off", APO_SWITCH_OFF
#define SAMPLE_learn "False", APO_SWITCH_OFF
#define SAMPLE_persist_interval_s "0.5", 0.5
#define SAMPLE_gpu_memory_mb "1048576", 1048576
#define SAMPLE_nccl "0", APO_SWITCH_OFF
#define SAMPLE_mpi "yes", APO_SWITCH_ON
#define SAMPLE_mpi_timeout_s "0.01", 0.01
#define SAMPLE_deadline_factor "2.5e1", 25.0
#define SAMPLE_deadline_floor_s "604800", 604800.0
#define SAMPLE_quarantine_after "1000000", 1000000u
#define SAMPLE_cpu_isa "AVX2", 2 /* kernels/common/cpu_isa.h: APO_CPU_ISA_AVX2 */
#define SAMPLE_cuda_kernels "simple", "simple"
#define SAMPLE_cuda_blocks_per_sm "2", 2
#define SAMPLE_gpu_early_staging "on", APO_SWITCH_ON
#define SAMPLE_cpu_pressure_file "/env/pressure", "/env/pressure"
#define SAMPLE_profile_dir "/env/profiles", "/env/profiles"
#define SAMPLE_xdg_state_home "/env/state", "/env/state"
#define SAMPLE_home "/env/home", "/env/home"
#define SAMPLE_cuda_device_order "PCI_BUS_ID", 1
#define SAMPLE_ompi_comm_world_size "2", 1
#define SAMPLE_pmix_rank "0", 1
#define SAMPLE_pmi_size "3", 1
#define SAMPLE_level "info", APO_LOG_INFO
#define SAMPLE_subsystems "split,Run", APO_SUBSYS_SPLIT | APO_SUBSYS_RUN
#define SAMPLE_file "/env/apportion.log", "/env/apportion.log"

/* The config values of the precedence test: each unlike its sample. */
#define CONFIG_devices "sim:from_config"
#define CONFIG_cpu_threads 3
#define CONFIG_use_gpu APO_USE_GPU_YES
#define CONFIG_sim_clock APO_SIM_CLOCK_WALL
#define CONFIG_multigpu_path "/config/multigpu.json"
#define CONFIG_thresholds_path "/config/thresholds.json"
#define CONFIG_profiles APO_SWITCH_ON
#define CONFIG_learn APO_SWITCH_ON
#define CONFIG_persist_interval_s 2.0
#define CONFIG_gpu_memory_mb 64
#define CONFIG_nccl APO_SWITCH_ON
#define CONFIG_mpi APO_SWITCH_OFF
#define CONFIG_mpi_timeout_s 5.0
#define CONFIG_deadline_factor 3.0
#define CONFIG_deadline_floor_s 0.5
#define CONFIG_quarantine_after 9u

/* The defaults (docs/env.md). */
#define DEFAULT_devices "auto"
#define DEFAULT_cpu_threads 0 /* the cpu device takes OpenMP's default */
#define DEFAULT_use_gpu APO_USE_GPU_AUTO
#define DEFAULT_sim_clock APO_SIM_CLOCK_WALL
#define DEFAULT_multigpu_path NULL /* the profile folder decides */
#define DEFAULT_thresholds_path NULL
#define DEFAULT_profiles APO_SWITCH_ON
#define DEFAULT_learn APO_SWITCH_ON
#define DEFAULT_persist_interval_s 60.0
#define DEFAULT_gpu_memory_mb 0 /* the CUDA backend decides */
#define DEFAULT_nccl APO_SWITCH_ON
#define DEFAULT_mpi APO_SWITCH_UNSET /* join when launched */
#define DEFAULT_mpi_timeout_s 60.0
#define DEFAULT_deadline_factor 10.0
#define DEFAULT_deadline_floor_s 60.0
#define DEFAULT_quarantine_after 3u
#define DEFAULT_cpu_isa 0            /* auto: the runtime picks the fastest path the CPU has */
#define DEFAULT_cuda_kernels NULL    /* the CUDA backend stages */
#define DEFAULT_cuda_blocks_per_sm 1 /* one anchored block an SM (docs/cuda.md) */
#define DEFAULT_gpu_early_staging APO_SWITCH_OFF /* a library pins at the GPU's first task */
#define DEFAULT_cpu_pressure_file NULL           /* the cpu device reads /proc/pressure/cpu */
#define DEFAULT_profile_dir NULL
#define DEFAULT_xdg_state_home NULL
#define DEFAULT_home NULL
#define DEFAULT_cuda_device_order 0
#define DEFAULT_ompi_comm_world_size 0
#define DEFAULT_pmix_rank 0
#define DEFAULT_pmi_size 0
#define DEFAULT_level APO_LOG_NONE
#define DEFAULT_subsystems APO_SUBSYS_ALL
#define DEFAULT_file NULL

#define SAMPLE_TEXT(text, value) text
#define SAMPLE_VALUE(text, value) value
/* Expands a SAMPLE_ macro before splitting it. */
#define TEXT_OF(sample) SAMPLE_TEXT(sample)
#define VALUE_OF(sample) SAMPLE_VALUE(sample)

static size_t warning_count(const apo__warnings *w) { return w->count; }

/* ---- every variable is read --------------------------------------------------------------- */

#define READ_ROW_(field, var, legacy, type, ...)                                                   \
    {                                                                                              \
        clear_environment();                                                                       \
        cr_assert_eq(setenv(var, TEXT_OF(SAMPLE_##field), 1), 0);                                  \
        apo__settings env;                                                                         \
        apo__warnings w = {0};                                                                     \
        apo__settings_read_env(&env, &w);                                                          \
        cr_assert_eq(warning_count(&w), 0, "%s=%s: %s", var, TEXT_OF(SAMPLE_##field), w.text[0]);  \
        cr_assert(same_##type(env.field, VALUE_OF(SAMPLE_##field)), "%s=%s not read", var,         \
                  TEXT_OF(SAMPLE_##field));                                                        \
        rows_read++;                                                                               \
    }

Test(settings, every_variable_of_the_table_is_read) {
    size_t rows_read = 0;
    APO_SETTINGS(READ_ROW_)
    APO_ENV_SETTINGS(READ_ROW_)
    cr_assert_gt(rows_read, 0);
}

#define READ_LOG_ROW_(field, var, legacy, type, ...)                                               \
    {                                                                                              \
        clear_environment();                                                                       \
        cr_assert_eq(setenv(var, TEXT_OF(SAMPLE_##field), 1), 0);                                  \
        apo__log_settings debug;                                                                   \
        char problem[256];                                                                         \
        apo__log_read_settings(&debug, problem, sizeof problem);                                   \
        cr_assert_str_empty(problem, "%s", problem);                                               \
        cr_assert(same_##type(debug.field, VALUE_OF(SAMPLE_##field)), "%s not read", var);         \
    }
#define LOG_DEFAULT_ROW_(field, var, legacy, type, ...)                                            \
    cr_assert(same_##type(debug.field, DEFAULT_##field), "%s unset: not the default", var);

Test(settings, every_logging_variable_is_read) {
    APO_LOG_SETTINGS(READ_LOG_ROW_)
    clear_environment();
    apo__log_settings debug;
    char problem[256];
    apo__log_read_settings(&debug, problem, sizeof problem);
    cr_assert_str_empty(problem);
    APO_LOG_SETTINGS(LOG_DEFAULT_ROW_)
}

Test(settings, bad_logging_variables_fall_back_with_a_note) {
    clear_environment();
    apo__log_settings debug;
    char problem[256];
    cr_assert_eq(setenv("APPORTION_DEBUG", "LOUD\x1b[0m", 1), 0);
    apo__log_read_settings(&debug, problem, sizeof problem);
    cr_assert_eq(debug.level, APO_LOG_WARN);
    cr_assert_str_eq(
        problem, "APPORTION_DEBUG=\"LOUD?[0m\" is not one of NONE, WARN, INFO, TRACE; using WARN");
    cr_assert_eq(setenv("APPORTION_DEBUG_SUBSYS", "NO\x1bISE,run", 1), 0);
    apo__log_read_settings(&debug, problem, sizeof problem);
    cr_assert_eq(debug.subsystems, APO_SUBSYS_RUN);
    cr_assert_str_eq(problem, "APPORTION_DEBUG_SUBSYS=\"NO?ISE,run\" has an unknown subsystem, "
                              "skipped (known: INIT, ENV, DEVICE, SPLIT, RUN, ALL; none known "
                              "means ALL)");
    cr_assert_eq(setenv("APPORTION_DEBUG_SUBSYS", "BOGUS", 1), 0);
    apo__log_read_settings(&debug, problem, sizeof problem);
    cr_assert_eq(debug.subsystems, APO_SUBSYS_ALL);
}

Test(settings, the_threadx_names_stand_in_for_unset_paths) {
    clear_environment();
    cr_assert_eq(setenv("THREADX_MULTIGPU_PROFILE_PATH", "/threadx/m.json", 1), 0);
    cr_assert_eq(setenv("THREADX_GPU_THRESHOLD_PATH", "/threadx/t.json", 1), 0);
    apo__settings env;
    apo__warnings w = {0};
    apo__settings_read_env(&env, &w);
    cr_assert_str_eq(env.multigpu_path, "/threadx/m.json");
    cr_assert_str_eq(env.thresholds_path, "/threadx/t.json");
    /* The apportion name wins when both are set; an empty one counts as unset. */
    cr_assert_eq(setenv("APPORTION_MULTIGPU_PROFILE_PATH", "/apportion/m.json", 1), 0);
    cr_assert_eq(setenv("APPORTION_THRESHOLD_PATH", "", 1), 0);
    apo__settings_read_env(&env, &w);
    cr_assert_str_eq(env.multigpu_path, "/apportion/m.json");
    cr_assert_str_eq(env.thresholds_path, "/threadx/t.json");
    cr_assert_eq(warning_count(&w), 0);
}

Test(settings, empty_variables_count_as_unset) {
    clear_environment();
    for (size_t i = 0; i < APO_SETTING_ROW_COUNT; i++)
        cr_assert_eq(setenv(apo__setting_rows[i].env, "", 1), 0);
    apo__settings env, zero;
    memset(&zero, 0, sizeof zero);
    apo__warnings w = {0};
    apo__settings_read_env(&env, &w);
    cr_assert_eq(warning_count(&w), 0, "%s", w.text[0]);
    cr_assert_eq(memcmp(&env, &zero, sizeof env), 0);
}

/* ---- bad values ------------------------------------------------------------------------------ */

/* One bad value for each variable that can be bad, and what the warning says is expected. */
static const struct {
    const char *env, *value, *expected;
} bad_values[] = {
    {"APPORTION_CPU_THREADS", "1025", "an integer from 1 to 1024"},
    {"APPORTION_CPU_THREADS", "0", "an integer from 1 to 1024"},
    {"APPORTION_USE_GPU", "maybe", "auto, yes or no"},
    {"APPORTION_SIM_CLOCK", "fast", "wall or virtual"},
    {"APPORTION_PROFILES", "perhaps", "1 or 0 (on, off)"},
    {"APPORTION_LEARN", "10", "1 or 0 (on, off)"},
    {"APPORTION_PERSIST_INTERVAL", "0", "seconds, more than 0 and at most 86400"},
    {"APPORTION_PERSIST_INTERVAL", "86400.5", "seconds, more than 0 and at most 86400"},
    {"APPORTION_GPU_MEMORY_MB", "3", "MiB from 4 to 1048576"},
    {"APPORTION_GPU_MEMORY_MB", "1048577", "MiB from 4 to 1048576"},
    {"APPORTION_NCCL", "2", "1 or 0 (on, off)"},
    {"APPORTION_MPI", "sometimes", "1 or 0 (on, off)"},
    {"APPORTION_MPI_TIMEOUT", "0.009", "seconds from 0.01 to 86400"},
    {"APPORTION_MPI_TIMEOUT", "86401", "seconds from 0.01 to 86400"},
    {"APPORTION_DEADLINE_FACTOR", "0.5", "a number from 1 to 1000000"},
    {"APPORTION_DEADLINE_FACTOR", "1e7", "a number from 1 to 1000000"},
    {"APPORTION_DEADLINE_FLOOR", "0.0005", "seconds from 0.001 to 604800"},
    {"APPORTION_DEADLINE_FLOOR", "604801", "seconds from 0.001 to 604800"},
    {"APPORTION_QUARANTINE_AFTER", "0", "an integer from 1 to 1000000"},
    {"APPORTION_QUARANTINE_AFTER", "1000001", "an integer from 1 to 1000000"},
    {"APPORTION_GPU_EARLY_STAGING", "early", "1 or 0 (on, off)"},
    {"APPORTION_CUDA_BLOCKS_PER_SM", "0", "an integer from 1 to 64"},
    {"APPORTION_CUDA_BLOCKS_PER_SM", "65", "an integer from 1 to 64"},
    {"APPORTION_CPU_ISA", "avx", "auto, sse2, avx2 or avx512"},
    {"APPORTION_CPU_ISA", "sse2 ", "auto, sse2, avx2 or avx512"},
    /* Blanks around a number: every number variable refuses them (docs/env.md). */
    {"APPORTION_CPU_THREADS", " 4", "an integer from 1 to 1024"},
    {"APPORTION_GPU_MEMORY_MB", "64 ", "MiB from 4 to 1048576"},
    {"APPORTION_PERSIST_INTERVAL", "\t60", "seconds, more than 0 and at most 86400"},
    {"APPORTION_MPI_TIMEOUT", " 60", "seconds from 0.01 to 86400"},
    {"APPORTION_DEADLINE_FACTOR", " 20", "a number from 1 to 1000000"},
    {"APPORTION_DEADLINE_FLOOR", "\n0.25", "seconds from 0.001 to 604800"},
    {"APPORTION_QUARANTINE_AFTER", " 2", "an integer from 1 to 1000000"},
};
#define N_BAD (sizeof bad_values / sizeof bad_values[0])

/* Reads the environment with `env` set to `value` alone; returns the warnings. */
static apo__warnings read_with(const char *env, const char *value, apo__settings *out) {
    clear_environment();
    cr_assert_eq(setenv(env, value, 1), 0);
    apo__warnings w = {0};
    apo__settings_read_env(out, &w);
    return w;
}

/* The value as a warning must show it: control bytes as '?', cut at 64 bytes. */
static void shown(const char *value, char *out) {
    size_t i = 0;
    for (; value[i] != '\0' && i < 64; i++)
        out[i] = ((unsigned char)value[i] < 0x20 || value[i] == 0x7f) ? '?' : value[i];
    strcpy(out + i, value[i] != '\0' ? "..." : "");
}

Test(settings, every_bad_value_is_warned_about_shown_safely_and_ignored) {
    /* Every row that parses its text has a bad value above. */
    for (size_t r = 0; r < APO_SETTING_ROW_COUNT; r++) {
        const apo__setting_row *row = &apo__setting_rows[r];
        if (row->list == APO_SETTING_FOR_LOG || row->type == APO_SETTING_TEXT ||
            row->type == APO_SETTING_PRESENT)
            continue;
        size_t found = 0;
        for (size_t i = 0; i < N_BAD; i++)
            found += strcmp(bad_values[i].env, row->env) == 0;
        cr_assert_gt(found, 0, "no bad value tested for %s", row->env);
    }
    apo__settings zero;
    memset(&zero, 0, sizeof zero);
    for (size_t i = 0; i < N_BAD; i++) {
        cr_assert_not_null(row_of_env(bad_values[i].env), "%s", bad_values[i].env);
        /* As given, and wrapped in control bytes that would act on a terminal. */
        char hostile[128], expected_warning[256], shown_value[80];
        snprintf(hostile, sizeof hostile, "\x1b[2J%s\n", bad_values[i].value);
        const char *values[] = {bad_values[i].value, hostile};
        for (size_t v = 0; v < 2; v++) {
            apo__settings env;
            apo__warnings w = read_with(bad_values[i].env, values[v], &env);
            shown(values[v], shown_value);
            snprintf(expected_warning, sizeof expected_warning, "%s=\"%s\" ignored: expected %s",
                     bad_values[i].env, shown_value, bad_values[i].expected);
            cr_assert_eq(warning_count(&w), 1, "%s=\"%s\"", bad_values[i].env, values[v]);
            cr_assert_str_eq(w.text[0], expected_warning);
            /* Ignored: the setting reads as unset. */
            cr_assert_eq(memcmp(&env, &zero, sizeof env), 0, "%s", bad_values[i].env);
        }
    }
}

Test(settings, a_long_value_is_cut_in_the_warning) {
    char value[1000];
    memset(value, '7', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    const char *names[] = {"APPORTION_QUARANTINE_AFTER", "APPORTION_MPI_TIMEOUT",
                           "APPORTION_DEADLINE_FACTOR", "APPORTION_DEADLINE_FLOOR"};
    for (size_t i = 0; i < 4; i++) {
        apo__settings env;
        apo__warnings w = read_with(names[i], value, &env);
        char expected[128];
        snprintf(expected, sizeof expected, "%s=\"%.64s...\" ignored: expected ", names[i], value);
        cr_assert_eq(warning_count(&w), 1);
        cr_assert(strncmp(w.text[0], expected, strlen(expected)) == 0, "%s", w.text[0]);
    }
}

#define IGNORED_FALLS_BACK_ROW_(field, var, legacy, type, ...)                                     \
    cr_assert(same_##type(s.field, DEFAULT_##field), "%s", var);

Test(settings, ignored_values_leave_the_default) {
    for (size_t i = 0; i < N_BAD; i++) {
        clear_environment();
        cr_assert_eq(setenv(bad_values[i].env, bad_values[i].value, 1), 0);
        apo__settings s;
        apo__warnings w = {0};
        cr_assert_eq(apo__settings_resolve(NULL, &w, &s), APO_OK, "%s", apo_last_error());
        cr_assert_eq(warning_count(&w), 1);
        APO_SETTINGS(IGNORED_FALLS_BACK_ROW_)
    }
}

/* ---- precedence ------------------------------------------------------------------------------ */

#define SET_SAMPLE_ROW_(field, var, ...) cr_assert_eq(setenv(var, TEXT_OF(SAMPLE_##field), 1), 0);
#define SET_CONFIG_ROW_(field, ...) config.field = CONFIG_##field;
#define EXPECT_ROW_(field, var, legacy, type, ...)                                                 \
    cr_assert(same_##type(s.field, stage == 0   ? DEFAULT_##field                                  \
                                   : stage == 1 ? VALUE_OF(SAMPLE_##field)                         \
                                                : CONFIG_##field),                                 \
              "%s, stage %d", #field, stage);
#define EXPECT_ENV_ROW_(field, var, legacy, type, ...)                                             \
    cr_assert(same_##type(s.field, stage == 0 ? DEFAULT_##field : VALUE_OF(SAMPLE_##field)),       \
              "%s, stage %d", #field, stage);

Test(settings, config_beats_environment_beats_default) {
    /* Stage 0: nothing set; 1: every variable; 2: every variable and every config field. */
    for (int stage = 0; stage < 3; stage++) {
        clear_environment();
        apo_config config = APO_CONFIG_INIT;
        if (stage >= 1) {
            APO_SETTINGS(SET_SAMPLE_ROW_)
            APO_ENV_SETTINGS(SET_SAMPLE_ROW_)
        }
        if (stage == 2) {
            APO_SETTINGS(SET_CONFIG_ROW_)
        }
        apo__settings s;
        apo__warnings w = {0};
        cr_assert_eq(apo__settings_resolve(&config, &w, &s), APO_OK, "%s", apo_last_error());
        cr_assert_eq(warning_count(&w), 0, "%s", w.text[0]);
        APO_SETTINGS(EXPECT_ROW_)
        APO_ENV_SETTINGS(EXPECT_ENV_ROW_)
    }
    /* A NULL config is all defaults. */
    clear_environment();
    apo__settings s;
    apo__warnings w = {0};
    cr_assert_eq(apo__settings_resolve(NULL, &w, &s), APO_OK);
    int stage = 0;
    APO_SETTINGS(EXPECT_ROW_)
}

#define UNSET_ROW_(field, var, legacy, type, ...)                                                  \
    cr_assert(same_##type(config.field, 0), "APO_CONFIG_INIT sets apo_config." #field);

Test(settings, apo_config_init_leaves_every_setting_to_the_environment) {
    apo_config config = APO_CONFIG_INIT;
    cr_assert_eq(config.size, sizeof(apo_config));
    APO_SETTINGS(UNSET_ROW_)
}

/* ---- config bounds ----------------------------------------------------------------------------
 */

static void set_TEXT(const char **f, double v) {
    (void)f, (void)v;
    cr_assert_fail("a text field has no bounds");
}
static void set_INT(int *f, double v) { *f = (int)v; }
static void set_UINT(unsigned *f, double v) { *f = (unsigned)v; }
static void set_SIZE(size_t *f, double v) { *f = (size_t)v; }
static void set_REAL(double *f, double v) { *f = v; }
static void set_REAL_ABOVE(double *f, double v) { *f = v; }
static void set_SWITCH(apo_switch *f, double v) { *f = (apo_switch)(int)v; }
static void set_USE_GPU(apo_use_gpu *f, double v) { *f = (apo_use_gpu)(int)v; }
static void set_SIM_CLOCK(apo_sim_clock *f, double v) { *f = (apo_sim_clock)(int)v; }

#define SET_FIELD_ROW_(field, var, legacy, type, ...)                                              \
    if (strcmp(name, #field) == 0) {                                                               \
        set_##type(&config->field, value);                                                         \
        return;                                                                                    \
    }

static void set_field(apo_config *config, const char *name, double value) {
    APO_SETTINGS(SET_FIELD_ROW_)
    cr_assert_fail("no field %s", name);
}

Test(settings, config_fields_are_checked_against_their_bounds) {
    static const struct {
        const char *field;
        double value;
        int valid;
    } cases[] = {
        {"cpu_threads", 1, 1},
        {"cpu_threads", 1024, 1},
        {"cpu_threads", -1, 0},
        {"cpu_threads", 1025, 0},
        {"use_gpu", 3, 1},
        {"use_gpu", 4, 0},
        {"use_gpu", -1, 0},
        {"sim_clock", 2, 1},
        {"sim_clock", 3, 0},
        {"profiles", 3, 0},
        {"learn", -1, 0},
        {"persist_interval_s", 1e-9, 1},
        {"persist_interval_s", 86400, 1},
        {"persist_interval_s", -1, 0},
        {"persist_interval_s", 86400.5, 0},
        {"gpu_memory_mb", 4, 1},
        {"gpu_memory_mb", 1048576, 1},
        {"gpu_memory_mb", 3, 0},
        {"gpu_memory_mb", 1048577, 0},
        {"nccl", 7, 0},
        {"mpi", 3, 0},
        {"mpi_timeout_s", 0.01, 1},
        {"mpi_timeout_s", 0.005, 0},
        {"mpi_timeout_s", -60, 0},
        {"deadline_factor", 1e6, 1},
        {"deadline_factor", 0.5, 0},
        {"deadline_floor_s", 0.001, 1},
        {"deadline_floor_s", 0.0001, 0},
        {"deadline_floor_s", 604801, 0},
        {"quarantine_after", 1000000, 1},
        {"quarantine_after", 1000001, 0},
    };
    clear_environment();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        apo_config config = APO_CONFIG_INIT;
        set_field(&config, cases[i].field, cases[i].value);
        apo__settings s;
        apo__warnings w = {0};
        apo_status st = apo__settings_resolve(&config, &w, &s);
        if (cases[i].valid) {
            cr_assert_eq(st, APO_OK, "%s = %g: %s", cases[i].field, cases[i].value,
                         apo_last_error());
            continue;
        }
        cr_assert_eq(st, APO_ERR_INVALID_ARGUMENT, "%s = %g", cases[i].field, cases[i].value);
        char named[64];
        snprintf(named, sizeof named, "apo_config.%s is ", cases[i].field);
        cr_assert(strstr(apo_last_error(), named) != NULL, "%s", apo_last_error());
    }
    /* The message says what was expected, in the words of the variable's warning. */
    apo_config config = APO_CONFIG_INIT;
    config.mpi_timeout_s = 0.005;
    apo__settings s;
    apo__warnings w = {0};
    cr_assert_eq(apo__settings_resolve(&config, &w, &s), APO_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(apo_last_error(),
                     "apo_config.mpi_timeout_s is 0.005, expected 0 (default) or seconds from 0.01 "
                     "to 86400");
    config = (apo_config)APO_CONFIG_INIT;
    config.use_gpu = (apo_use_gpu)4;
    cr_assert_eq(apo__settings_resolve(&config, &w, &s), APO_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(apo_last_error(), "apo_config.use_gpu is 4, not an apo_use_gpu");
    /* A config that is refused reads no variable, so it warns about none. */
    cr_assert_eq(setenv("APPORTION_CPU_THREADS", "lots", 1), 0);
    config = (apo_config)APO_CONFIG_INIT;
    config.quarantine_after = 1000001;
    cr_assert_eq(apo__settings_resolve(&config, &w, &s), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(warning_count(&w), 0);
    config.size = 8;
    cr_assert_eq(apo__settings_resolve(&config, &w, &s), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "APO_CONFIG_INIT") != NULL, "%s", apo_last_error());
}

/* ---- the number parser -------------------------------------------------------------------- */

Test(settings, integers_are_whole_plain_decimal) {
    static const struct {
        const char *text;
        int ok;
        long long value;
    } cases[] = {
        {"0", 1, 0},
        {"42", 1, 42},
        {"+7", 1, 7},
        {"-4", 1, -4},
        {"007", 1, 7},
        {"9223372036854775807", 1, 9223372036854775807LL},
        {"9223372036854775808", 0, 0},
        {"99999999999999999999999", 0, 0},
        {"", 0, 0},
        {"+", 0, 0},
        {"-", 0, 0},
        {" 4", 0, 0},
        {"4 ", 0, 0},
        {"\t4", 0, 0},
        {"4\n", 0, 0},
        {"+ 4", 0, 0},
        {"0x10", 0, 0},
        {"2.5", 0, 0},
        {"1e3", 0, 0},
        {"4 threads", 0, 0},
        {"++4", 0, 0},
        {"four", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long v = -12345;
        int rc = apo__parse_integer(cases[i].text, &v);
        cr_assert_eq(rc == 0, cases[i].ok, "\"%s\"", cases[i].text);
        cr_assert_eq(v, cases[i].ok ? cases[i].value : -12345, "\"%s\"", cases[i].text);
    }
}

Test(settings, reals_are_whole_plain_decimal) {
    static const struct {
        const char *text;
        int ok;
        double value;
    } cases[] = {
        {"60", 1, 60.0},      {"0.25", 1, 0.25},   {".5", 1, 0.5},  {"5.", 1, 5.0},
        {"+2.5e-1", 1, 0.25}, {"-3", 1, -3.0},     {"1E6", 1, 1e6}, {"2.5e+3", 1, 2500.0},
        {"", 0, 0},           {".", 0, 0},         {"e5", 0, 0},    {"1e", 0, 0},
        {"1e+", 0, 0},        {" 60", 0, 0},       {"60 ", 0, 0},   {"\n60", 0, 0},
        {"60s", 0, 0},        {"0x10", 0, 0},      {"0x1p4", 0, 0}, {"nan", 0, 0},
        {"inf", 0, 0},        {"-infinity", 0, 0}, {"1e999", 0, 0}, {"1e-999", 0, 0},
        {"1,5", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -12345;
        int rc = apo__parse_real(cases[i].text, &v);
        cr_assert_eq(rc == 0, cases[i].ok, "\"%s\"", cases[i].text);
        cr_assert_eq(v, cases[i].ok ? cases[i].value : -12345, "\"%s\"", cases[i].text);
    }
}

/* ---- docs/env.md ------------------------------------------------------------------------------
 */

#define DOCS_BEGIN "<!-- settings table: begin -->"
#define DOCS_END "<!-- settings table: end -->"

/* The row as docs/env.md shows it. */
static void docs_row(const apo__setting_row *row, char *out, size_t size) {
    char variable[160], values[256];
    if (row->legacy_env != NULL)
        snprintf(variable, sizeof variable, "`%s`, else `%s`", row->env, row->legacy_env);
    else
        snprintf(variable, sizeof variable, "`%s`", row->env);
    switch (row->type) {
    case APO_SETTING_INT:
    case APO_SETTING_UINT:
    case APO_SETTING_SIZE:
    case APO_SETTING_REAL:
    case APO_SETTING_REAL_ABOVE:
        apo__setting_expected(row, values, sizeof values);
        break;
    default:
        snprintf(values, sizeof values, "%s", row->values);
    }
    char field[64] = "none";
    if (row->list == APO_SETTING_IN_CONFIG)
        snprintf(field, sizeof field, "`%s`", row->field);
    snprintf(out, size, "| %s | %s | %s | %s | %s |\n", variable, field, values, row->def_text,
             row->about);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    cr_assert_not_null(text);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

Test(settings, docs_env_md_shows_the_table) {
    size_t size = 1 << 16, used = 0;
    char *expected = malloc(size);
    cr_assert_not_null(expected);
    used += (size_t)snprintf(expected + used, size - used,
                             "| variable | `apo_config` field | values | default | what it sets |\n"
                             "|---|---|---|---|---|\n");
    for (size_t i = 0; i < APO_SETTING_ROW_COUNT; i++) {
        docs_row(&apo__setting_rows[i], expected + used, size - used);
        used += strlen(expected + used);
        cr_assert_lt(used, size - 1);
    }
    char *docs = read_file(APO_DOCS_DIR "/env.md");
    const char *begin = strstr(docs, DOCS_BEGIN "\n");
    const char *end = strstr(docs, DOCS_END);
    int same = 0;
    if (begin != NULL && end != NULL && end > begin) {
        begin += strlen(DOCS_BEGIN "\n");
        same = (size_t)(end - begin) == used && memcmp(begin, expected, used) == 0;
    }
    if (!same)
        fprintf(stderr,
                "docs/env.md and runtime/base/settings_table.h disagree; between the lines\n"
                "%s\nand\n%s\ndocs/env.md should read:\n%s",
                DOCS_BEGIN, DOCS_END, expected);
    cr_assert(same, "docs/env.md does not show runtime/base/settings_table.h (the expected table "
                    "is on standard error)");
    free(docs);
    free(expected);
}

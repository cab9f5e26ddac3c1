/*
 * test_cpu_isa.c: the vector paths of the CPU kernels (docs/kernels-vector-paths.md, "Vector
 * paths"). bollinger and macd path by path are in the slow suite (test_cpu_isa_slow.c); the inputs
 * both share are in cpu_isa_inputs.c.
 *
 * Every path this machine supports (sse2 always; avx2 and avx512 where the CPU has them),
 * on the same inputs, must give bitwise the outputs of the scalar single-tile functions,
 * whose accuracy test_kernels.c checks against long-double references: bollinger, macd and
 * returns_stats, on random walks and on walks with NaN, infinities, zeros, constant
 * stretches, repeated values and huge values; at periods and lengths that reach every
 * branch (exact restarts, sliding, constant windows, tiles shorter than a round, short last
 * tiles, several rows, groups of tiles of mixed rows and lengths, in any order), with
 * bollinger's and macd's outputs stored both ways (streaming stores or ordinary ones).
 * Then the runtime: APPORTION_CPU_ISA forces a path, the cpu device's label names it, a
 * value that is not a path and a path the CPU lacks are warned about, and
 * apo_distribute_workload() gives the same bits on every path, for those three, for
 * catalog kernels of one input, and for a scored sweep's scores; and the scored sets' fold in
 * lanes gives each set the scalar fold's state on every path, a lone set's (its bars in the
 * lanes) too, under every kind of rule. The volume family's tiles (mfi, ad, adosc, obv: four
 * inputs, which the runtime's jobs here do not feed) give the same bits on every path, on
 * bars with gaps, ties and flat bars, called over whole rows and in pieces: a vector path is
 * then checked against the scalar body by the best path's comparison in catalog_simt and by
 * catalog_cumulative's and catalog_more's bitwise TA-Lib recursions, and every other path
 * against the best here.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion.h"
#include "catalog/kernel.h"
#include "catalog_dispatch.h"
#include "cpu_isa.h"
#include "helpers.h"
#include "kernels.h"
#include "reference.h"
#include "streaming/stream.h"

#include "cpu_isa_bollinger.h"
#include "cpu_isa_inputs.h"
#include "score_fold_equal.h"
#include "score_sets.h"

/* ---- the kernels, path by path ---------------------------------------------------------- */

/* The paths checked: what this build and CPU have, sse2 always, and on x86-64 the others the
 * CPU reports (the test then exercises them all). */
static size_t paths_checked;

static void check_returns_stats(enum flavour f, size_t rows, size_t cols, size_t len) {
    double *x = make_input(f, rows, cols, 41 + cols);
    const size_t per_row = (cols + len - 1) / len, tiles = rows * per_row;
    apo__moments *want = calloc(tiles, sizeof *want), *got = calloc(tiles, sizeof *got);
    cr_assert(want != NULL && got != NULL);
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < per_row; k++)
            apo__cpu_returns_stats_tile(x + r * cols, cols, k * len,
                                        (k + 1) * len < cols ? (k + 1) * len : cols,
                                        &want[r * per_row + k]);
    apo__tile_span spans[512];
    const size_t count = make_spans(rows, cols, len, 0, spans, 512);
    cr_assert_eq(count, tiles);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        /* With enough scratch (one division per sample), none, and too little (both fall
         * back to dividing twice); in groups of every size. */
        const size_t enough = len * apo__cpu_isa_lanes((apo__cpu_isa)isa);
        const size_t scratch_lens[] = {enough, 0, enough / 2};
        double *scratch = malloc(enough * sizeof *scratch);
        cr_assert_not_null(scratch);
        for (size_t s = 0; s < 3; s++) {
            for (size_t gi = 0; gi < N_GROUPINGS; gi++) {
                const size_t group = groupings[gi];
                memset(got, 0x5a, tiles * sizeof *got);
                for (size_t g = 0; g < count; g += group)
                    apo__cpu_returns_stats_tiles(
                        x, rows, cols, spans + g, count - g < group ? count - g : group, got + g,
                        scratch_lens[s] > 0 ? scratch : NULL, scratch_lens[s], (apo__cpu_isa)isa);
                for (size_t t = 0; t < tiles; t++)
                    cr_assert(memcmp(&want[t], &got[t], sizeof want[t]) == 0,
                              "returns_stats %s %zux%zu tiles of %zu, path %s, scratch %zu, "
                              "groups of %zu: tile %zu differs (count %g/%g mean %a/%a m2 %a/%a)",
                              flavour_names[f], rows, cols, len,
                              apo__cpu_isa_name((apo__cpu_isa)isa), scratch_lens[s], group, t,
                              got[t].count, want[t].count, got[t].mean, want[t].mean, got[t].m2,
                              want[t].m2);
                paths_checked++;
            }
        }
        free(scratch);
    }
    free(want);
    free(got);
    free(x);
}

Test(cpu_isa, returns_stats_every_path_gives_the_bits_of_the_scalar_tiles, .timeout = 300) {
    static const size_t shapes[][3] = {
        {1, 100003, 8192},            /* the runtime's grid, short last tile */
        {7, 10000, 8192},             /* batch rows: a full and a short tile each */
        {3, 1000, 97},     {5, 2, 1}, /* tiles of one sample: the first has no return */
        {2, 1, 1},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int f = 0; f < FLAVOURS; f++)
            check_returns_stats((enum flavour)f, shapes[s][0], shapes[s][1], shapes[s][2]);
    cr_assert_gt(paths_checked, 0);
}

/* bollinger's short rows, where a round has three or four tiles: on an AVX-512 CPU the avx512
 * path runs them on the 4-lane build (lanes_avx512_ymm.c), whose blocks run apart from the
 * scalar restarts and, once the row's short last tile has ended, take lanes 0 and 1's square
 * roots two steps to a vector. A 1e4-bar row is the runtime's three tiles (4096, 4096,
 * 1808); period 2 restarts in every lane; three rows put restarts and gaps in lanes 1 to 3
 * of one round. Each flavour, each path, the round of three tiles, every tile in one group,
 * and a round with streaming stores. (The slow suite's test_cpu_isa_slow.c runs every
 * shape, grouping and order.) */
Test(cpu_isa, bollinger_short_rows_give_the_bits_of_the_scalar_tiles, .timeout = 120) {
    static const struct {
        size_t rows, cols, period;
    } shapes[] = {{1, 10000, 20}, {1, 10000, 2}, {3, 9000, 20}};
    /* The round of three tiles and every tile at once, in order, with ordinary stores; the
     * round of three backwards, with streaming ones (cpu_isa_bollinger.h). */
    static const size_t variants[] = {2, 6, N_GROUPINGS + 2};
    size_t checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int f = 0; f < FLAVOURS; f++)
            checked += check_bollinger_paths((enum flavour)f, shapes[s].rows, shapes[s].cols,
                                             shapes[s].period, 2.0, 2.0, 4096, variants,
                                             sizeof variants / sizeof variants[0]);
    cr_assert_gt(checked, 0);
}

Test(cpu_isa, paths_and_their_names, .timeout = 60) {
    cr_assert(apo__cpu_isa_supported(APO_CPU_ISA_SSE2));
    cr_assert(!apo__cpu_isa_supported(APO_CPU_ISA_AUTO));
    cr_assert_eq(apo__cpu_isa_resolve(APO_CPU_ISA_AUTO), apo__cpu_isa_best());
    cr_assert_eq(apo__cpu_isa_resolve(APO_CPU_ISA_SSE2), APO_CPU_ISA_SSE2);
    cr_assert(apo__cpu_isa_supported(apo__cpu_isa_best()));
    cr_assert_str_eq(apo__cpu_isa_name(APO_CPU_ISA_SSE2), "sse2");
    cr_assert_str_eq(apo__cpu_isa_name(APO_CPU_ISA_AVX2), "avx2");
    cr_assert_str_eq(apo__cpu_isa_name(APO_CPU_ISA_AVX512), "avx512");
    cr_assert_eq(apo__cpu_isa_lanes(APO_CPU_ISA_AVX512), 8);
    char have[64];
    apo__cpu_isa_list_supported(have, sizeof have);
    cr_assert_eq(strncmp(have, "sse2", 4), 0, "%s", have);
    cr_log_info("vector paths on this machine: %s", have);
}

/* Which measured AVX-512 CPU this is, read from /proc/cpuinfo as an independent source (the
 * library reads cpuid): with AVX-512, an Intel CPU is Intel's kind, an AMD CPU of family 25
 * (19h) halves its 512-bit operations and one of family 26 (1Ah) does not; anything else was
 * not measured. -1 where /proc/cpuinfo cannot be read. */
static int avx512_kind_from_proc_cpuinfo(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return -1;
    char line[4096], vendor[64] = "";
    int family = -1;
    while (fgets(line, sizeof line, f) != NULL && (vendor[0] == '\0' || family < 0)) {
        if (strncmp(line, "vendor_id", 9) == 0)
            sscanf(strchr(line, ':') + 1, " %63s", vendor);
        else if (strncmp(line, "cpu family", 10) == 0)
            sscanf(strchr(line, ':') + 1, " %d", &family);
    }
    fclose(f);
    if (vendor[0] == '\0' || family < 0)
        return -1;
    if (!apo__cpu_isa_supported(APO_CPU_ISA_AVX512))
        return APO_AVX512_MEASURED_NONE;
    if (strcmp(vendor, "GenuineIntel") == 0)
        return APO_AVX512_INTEL;
    if (strcmp(vendor, "AuthenticAMD") != 0)
        return APO_AVX512_MEASURED_NONE;
    return family == 25   ? APO_AVX512_AMD_HALVED
           : family == 26 ? APO_AVX512_AMD_WHOLE
                          : APO_AVX512_MEASURED_NONE;
}

Test(cpu_isa, avx512_kind_is_that_of_the_vendor_and_family, .timeout = 60) {
    const int want = avx512_kind_from_proc_cpuinfo();
    const int got = (int)apo__cpu_avx512_kind();
    if (want < 0) {
        cr_log_info("/proc/cpuinfo unreadable: only the value's range is checked");
        cr_assert(got == APO_AVX512_MEASURED_NONE || got == APO_AVX512_AMD_HALVED ||
                  got == APO_AVX512_AMD_WHOLE || got == APO_AVX512_INTEL);
        return;
    }
    cr_assert_eq(got, want);
    cr_assert_eq((int)apo__cpu_avx512_kind(), want, "a second read gives the cached value");
    cr_log_info("measured AVX-512 kind of this CPU: %d", want);
}

/* A catalog kernel's path: the widest unless the CPU is a measured AVX-512 kind, and then avx2
 * only for the kernels measured slower on its 8 lanes (docs/kernels-vector-paths.md, "Vector
 * paths"), never a path wider than the CPU's widest nor one it lacks. */
Test(cpu_isa, a_catalog_kernel_narrows_only_avx512_and_only_where_measured, .timeout = 60) {
    const int kinds[] = {APO_AVX512_AMD_HALVED, APO_AVX512_AMD_WHOLE};
    size_t narrowed[2] = {0, 0};
    for (int id = 0; id < APO_CAT_COUNT; id++) {
        for (int widest = APO_CPU_ISA_SSE2; widest <= APO_CPU_ISA_LAST; widest++) {
            cr_assert_eq(apo__catalog_path_on((apo__cat_id)id, widest, APO_AVX512_MEASURED_NONE),
                         widest);
            for (size_t k = 0; k < 2; k++) {
                const int p = apo__catalog_path_on((apo__cat_id)id, widest, kinds[k]);
                if (widest != APO_CPU_ISA_AVX512 || !apo__cpu_isa_supported(APO_CPU_ISA_AVX2)) {
                    cr_assert_eq(p, widest);
                    continue;
                }
                cr_assert(p == APO_CPU_ISA_AVX512 || p == APO_CPU_ISA_AVX2);
                narrowed[k] += p == APO_CPU_ISA_AVX2;
            }
        }
    }
    if (!apo__cpu_isa_supported(APO_CPU_ISA_AVX2)) {
        cr_log_info("no avx2 path here: nothing can narrow");
        return;
    }
    /* The measured ends on both kinds: the Wilder recurrences' gathered lanes narrow, the
     * sliding sums keep eight lanes; on whole lanes the sliding windows max and linearreg keep
     * them too. */
    for (size_t k = 0; k < 2; k++) {
        cr_assert_eq(apo__catalog_path_on(APO_CAT_RSI, APO_CPU_ISA_AVX512, kinds[k]),
                     APO_CPU_ISA_AVX2);
        cr_assert_eq(apo__catalog_path_on(APO_CAT_ADX, APO_CPU_ISA_AVX512, kinds[k]),
                     APO_CPU_ISA_AVX2);
        cr_assert_eq(apo__catalog_path_on(APO_CAT_SMA, APO_CPU_ISA_AVX512, kinds[k]),
                     APO_CPU_ISA_AVX512);
        cr_assert_eq(apo__catalog_path_on(APO_CAT_CCI, APO_CPU_ISA_AVX512, kinds[k]),
                     APO_CPU_ISA_AVX512);
        cr_assert(narrowed[k] > 2 && narrowed[k] < APO_CAT_COUNT, "%zu", narrowed[k]);
    }
    /* Kernels the two AMD kinds measured apart: max narrows on halved lanes only, linearreg keeps
     * whole ones; Zen 5's rounds of lanes lose on eight whole lanes at 1e6 bars (massi, an EMA
     * chain), while mfi gains there but loses more at 1e4, so it keeps them (2026-12-02); cvi's
     * rounds lost on eight halved lanes, about twice avx2's time at 1e5 and 1e6 bars (2026-12-03).
     */
    const struct {
        apo__cat_id id;
        int kind, want;
    } measured[] = {
        {APO_CAT_MAX, APO_AVX512_AMD_HALVED, APO_CPU_ISA_AVX2},
        {APO_CAT_MAX, APO_AVX512_AMD_WHOLE, APO_CPU_ISA_AVX512},
        {APO_CAT_LINEARREG, APO_AVX512_AMD_WHOLE, APO_CPU_ISA_AVX512},
        {APO_CAT_MASSI, APO_AVX512_AMD_WHOLE, APO_CPU_ISA_AVX2},
        {APO_CAT_TEMA, APO_AVX512_AMD_WHOLE, APO_CPU_ISA_AVX2},
        {APO_CAT_MFI, APO_AVX512_AMD_WHOLE, APO_CPU_ISA_AVX512},
        {APO_CAT_CVI, APO_AVX512_AMD_HALVED, APO_CPU_ISA_AVX2},
    };
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        cr_assert_eq(apo__catalog_path_on(measured[i].id, APO_CPU_ISA_AVX512, measured[i].kind),
                     measured[i].want, "case %zu", i);
    const int kind = (int)apo__cpu_avx512_kind();
    cr_assert_eq(apo__catalog_path(APO_CAT_RSI, APO_CPU_ISA_AVX512),
                 kind == APO_AVX512_AMD_HALVED || kind == APO_AVX512_AMD_WHOLE
                     ? APO_CPU_ISA_AVX2
                     : APO_CPU_ISA_AVX512);
    /* Intel's list is six whole-row sums, rvi and cvi; its other recurrences narrow by the
     * rows' tiles (the test below), not by the list. */
    for (int id = 0; id < APO_CAT_COUNT; id++) {
        const int listed = id == APO_CAT_OBV || id == APO_CAT_PVT || id == APO_CAT_AD ||
                           id == APO_CAT_WAD || id == APO_CAT_CUMSUM || id == APO_CAT_VWAP ||
                           id == APO_CAT_RVI || id == APO_CAT_CVI;
        cr_assert_eq(apo__catalog_path_on((apo__cat_id)id, APO_CPU_ISA_AVX512, APO_AVX512_INTEL),
                     listed && apo__cpu_isa_supported(APO_CPU_ISA_AVX2) ? APO_CPU_ISA_AVX2
                                                                        : APO_CPU_ISA_AVX512,
                     "kernel %d", id);
    }
}

/* Rows of a few tiles of a kernel that runs rounds of lanes take avx2 on Intel and on Zen 4:
 * only from avx512, only up to APO_CAT_NARROW_ROUND tiles, only for such kernels, only on those
 * two (Zen 5's whole 512-bit operations and an unmeasured CPU keep avx512). */
Test(cpu_isa, a_row_of_few_tiles_narrows_its_rounds_on_intel_and_zen4_only, .timeout = 60) {
    const int avx2 = APO_CPU_ISA_AVX2, avx512 = APO_CPU_ISA_AVX512;
    const struct {
        apo__cat_id id;
        size_t tiles;
        int isa, kind, want;
    } cases[] = {
        {APO_CAT_ATR, 1, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_ATR, APO_CAT_NARROW_ROUND, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_ATR, APO_CAT_NARROW_ROUND + 1, avx512, APO_AVX512_INTEL, avx512},
        {APO_CAT_ATR, 100, avx512, APO_AVX512_INTEL, avx512},
        {APO_CAT_RSI, 3, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_TEMA, 2, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_ADXR, 3, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_EFI, 3, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_MASSI, 3, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_CVI, 3, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_CVI, APO_CAT_NARROW_ROUND + 1, avx512, APO_AVX512_INTEL, avx512},
        {APO_CAT_ADOSC, 3, avx512, APO_AVX512_INTEL, avx2},
        {APO_CAT_SMA, 1, avx512, APO_AVX512_INTEL, avx512},
        {APO_CAT_ATAN, 1, avx512, APO_AVX512_INTEL, avx512},
        {APO_CAT_ATR, 1, avx2, APO_AVX512_INTEL, avx2},
        {APO_CAT_ATR, 1, APO_CPU_ISA_SSE2, APO_AVX512_INTEL, APO_CPU_ISA_SSE2},
        {APO_CAT_ATR, 1, avx512, APO_AVX512_MEASURED_NONE, avx512},
        {APO_CAT_MASSI, 1, avx512, APO_AVX512_AMD_HALVED, avx2},
        {APO_CAT_T3, APO_CAT_NARROW_ROUND, avx512, APO_AVX512_AMD_HALVED, avx2},
        {APO_CAT_MASSI, APO_CAT_NARROW_ROUND + 1, avx512, APO_AVX512_AMD_HALVED, avx512},
        {APO_CAT_SMA, 1, avx512, APO_AVX512_AMD_HALVED, avx512},
        {APO_CAT_ATR, 1, avx512, APO_AVX512_AMD_WHOLE, avx512},
    };
    const int has_avx2 = apo__cpu_isa_supported(APO_CPU_ISA_AVX2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int want =
            cases[i].want == avx2 && cases[i].isa == avx512 && !has_avx2 ? avx512 : cases[i].want;
        cr_assert_eq(
            apo__catalog_round_path_on(cases[i].id, cases[i].tiles, cases[i].isa, cases[i].kind),
            want, "case %zu", i);
    }
}

/* The runtime asks the kernel for its path only where APPORTION_CPU_ISA named none; a kernel
 * without a preference (bollinger) runs on the widest. */
Test(cpu_isa, the_runtime_asks_the_kernel_unless_the_variable_names_a_path, .timeout = 60) {
    apo__call call;
    memset(&call, 0, sizeof call);
    call.kernel = apo__builtin_kernel_named("rsi");
    cr_assert_not_null(call.kernel);
    cr_assert_not_null(call.kernel->path);
    const int widest = apo__cpu_isa_best();
    cr_assert_eq(apo__kernel_path(&call, widest, 1), widest);
    call.tiles_per_row = 100;
    cr_assert_eq(apo__kernel_path(&call, widest, 0), apo__catalog_path(APO_CAT_RSI, widest));
    call.tiles_per_row = 1;
    cr_assert_eq(apo__kernel_path(&call, widest, 0),
                 apo__catalog_round_path(APO_CAT_RSI, 1, apo__catalog_path(APO_CAT_RSI, widest)));
    cr_assert_eq(apo__kernel_path(&call, widest, 1), widest, "a named path is kept");
    cr_assert_eq(apo__kernel_path(&call, APO_CPU_ISA_SSE2, 0), APO_CPU_ISA_SSE2);
    call.kernel = apo__builtin_kernel_named("bollinger");
    cr_assert_not_null(call.kernel);
    cr_assert_eq(apo__kernel_path(&call, widest, 0), widest);
}

/* ---- the runtime ---------------------------------------------------------------------- */

/* A runtime on `devices` with APPORTION_CPU_ISA set to `isa` (NULL: unset). */
static apo_runtime *runtime_with_isa(const char *devices, const char *isa) {
    if (isa != NULL)
        cr_assert_eq(setenv("APPORTION_CPU_ISA", isa, 1), 0);
    else
        cr_assert_eq(unsetenv("APPORTION_CPU_ISA"), 0);
    apo_runtime *rt = test_runtime(devices);
    cr_assert_eq(unsetenv("APPORTION_CPU_ISA"), 0);
    return rt;
}

static void cpu_label(apo_runtime *rt, char *out, size_t size) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, 0, &info), APO_OK);
    cr_assert_eq(info.kind, APO_DEVICE_CPU);
    snprintf(out, size, "%s", info.label);
}

static int has_warning(apo_runtime *rt, const char *text) {
    size_t n = 0;
    cr_assert_eq(apo_runtime_warning_count(rt, &n), APO_OK);
    for (size_t i = 0; i < n; i++) {
        const char *w = NULL;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL && strstr(w, text) != NULL)
            return 1;
    }
    return 0;
}

Test(cpu_isa, the_variable_forces_a_path_and_the_label_names_it, .timeout = 60) {
    char label[APO_LABEL_MAX], want[64];
    apo_runtime *rt = runtime_with_isa("cpu:threads=2", NULL);
    cpu_label(rt, label, sizeof label);
    snprintf(want, sizeof want, "cpu (2 threads, %s)", apo__cpu_isa_name(apo__cpu_isa_best()));
    cr_assert_str_eq(label, want);
    apo_runtime_destroy(rt);

    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        const char *name = apo__cpu_isa_name((apo__cpu_isa)isa);
        rt = runtime_with_isa("cpu:threads=1", name);
        cpu_label(rt, label, sizeof label);
        char warned[64];
        snprintf(warned, sizeof warned, "APPORTION_CPU_ISA=%s ignored", name);
        if (apo__cpu_isa_supported((apo__cpu_isa)isa)) {
            snprintf(want, sizeof want, "cpu (1 thread, %s)", name);
            cr_assert(!has_warning(rt, warned), "%s", name);
        } else {
            /* A path the CPU lacks: warned about, and the fastest it has is used. */
            snprintf(want, sizeof want, "cpu (1 thread, %s)",
                     apo__cpu_isa_name(apo__cpu_isa_best()));
            cr_assert(has_warning(rt, warned), "no warning for %s", name);
            cr_log_info("this CPU lacks the %s path: its warning was checked", name);
        }
        cr_assert_str_eq(label, want);
        apo_runtime_destroy(rt);
    }

    /* auto and the words in any case; a value that is no path is warned about. */
    rt = runtime_with_isa("cpu:threads=1", "AUTO");
    cr_assert(!has_warning(rt, "APPORTION_CPU_ISA"));
    apo_runtime_destroy(rt);
    rt = runtime_with_isa("cpu:threads=1", "SSE2");
    cpu_label(rt, label, sizeof label);
    cr_assert_str_eq(label, "cpu (1 thread, sse2)");
    apo_runtime_destroy(rt);
    rt = runtime_with_isa("cpu:threads=1", "avx1024");
    cr_assert(has_warning(rt, "APPORTION_CPU_ISA=\"avx1024\" ignored: expected auto, sse2, avx2 "
                              "or avx512"));
    cpu_label(rt, label, sizeof label);
    snprintf(want, sizeof want, "cpu (1 thread, %s)", apo__cpu_isa_name(apo__cpu_isa_best()));
    cr_assert_str_eq(label, want);
    apo_runtime_destroy(rt);
}

/* A stream's updates on the calling thread take its runtime's path: the one the variable
 * names, else the kernel's own choice (streaming/stream.h, cpu_isa). The stream is fed whole
 * tiles, the updates that run on a path, and gives the bits of the unnamed runtime's stream. */
Test(cpu_isa, a_stream_takes_its_runtimes_path, .timeout = 60) {
    const size_t n = 20011; /* several of rsi's tiles (3065 at p = 14), and a part of one */
    double *close = make_input(PLAIN, 1, n, 77), *want = poisoned(n), *got = poisoned(n);
    for (int isa = APO_CPU_ISA_AUTO; isa <= APO_CPU_ISA_LAST; isa++) {
        if (isa != APO_CPU_ISA_AUTO && !apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        apo_runtime *rt = runtime_with_isa(
            "cpu:threads=1", isa == APO_CPU_ISA_AUTO ? NULL : apo__cpu_isa_name((apo__cpu_isa)isa));
        apo_stream_desc d = APO_STREAM_DESC_INIT;
        d.kernel = "rsi";
        d.n_series = 1;
        apo_stream *s = NULL;
        cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
        cr_assert_eq(s->cpu_isa, isa == APO_CPU_ISA_AUTO ? (int)apo__cpu_isa_best() : isa);
        cr_assert_eq(s->cpu_isa_named, isa != APO_CPU_ISA_AUTO);
        const double *in[1] = {close};
        double *out = isa == APO_CPU_ISA_AUTO ? want : got;
        double *outs[1] = {out};
        cr_assert_eq(apo_stream_update(s, &n, in, outs), APO_OK, "%s", apo_last_error());
        size_t finite = 0, differ = 0;
        for (size_t t = 0; t < n; t++) {
            finite += isfinite(out[t]) != 0;
            differ += memcmp(&want[t], &out[t], sizeof(double)) != 0;
        }
        cr_assert_eq(finite, n - 14, "rsi(14) has a value from bar 14 on");
        cr_assert_eq(differ, 0, "%s: %zu outputs differ from the unnamed path's",
                     apo__cpu_isa_name((apo__cpu_isa)isa), differ);
        apo_stream_destroy(s);
        apo_runtime_destroy(rt);
    }
    free(close);
    free(want);
    free(got);
}

/* Through apo_distribute_workload(): the cpu alone (both threads), and the cpu with two sim
 * devices splitting the series in time, on each supported path, against the sse2 path. */
Test(cpu_isa, every_path_gives_the_same_bits_through_the_runtime, .timeout = 300) {
    static const struct {
        const char *kernel;
        size_t rows, cols;
    } jobs[] = {
        {"bollinger", 1, 300007},
        {"bollinger", 40, 10000},
        {"macd", 1, 200003},
        {"macd", 30, 10000},
        {"returns_stats", 1, 300007},
        {"returns_stats", 40, 10000},
        /* Catalog kernels of one input: their tile call is compiled per path too
         * (kernels/dispatch/catalog_entry.h); mom's and roc's tiles of a row run joined. */
        {"mom", 1, 300007},
        {"mom", 40, 10000},
        {"roc", 1, 300007},
        {"rsi", 1, 300007},
        {"kama", 3, 200003},
        {"max", 40, 10000},
        /* Bars summed in the vector lanes, 8 groups side by side, and the scalar rest. */
        {"linearreg", 1, 300007},
        {"linearreg_slope", 40, 10000},
    };
    static const char *const setups[] = {"cpu:threads=2", "cpu,sim:a,sim:b"};
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        for (size_t s = 0; s < 2; s++) {
            test_job ref;
            apo_runtime *base = runtime_with_isa(setups[s], "sse2");
            test_job_init(&ref, base, jobs[j].kernel, jobs[j].rows, jobs[j].cols, 77 + j);
            if (s == 1) {
                static const double ratios[] = {0.5, 0.3, 0.2};
                ref.w.ratios = ratios;
                ref.w.split = APO_SPLIT_TIME;
            }
            cr_assert_eq(test_job_run(&ref, base, NULL), APO_OK, "%s", apo_last_error());
            for (int isa = APO_CPU_ISA_AVX2; isa <= APO_CPU_ISA_LAST; isa++) {
                if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                    continue;
                apo_runtime *rt = runtime_with_isa(setups[s], apo__cpu_isa_name((apo__cpu_isa)isa));
                test_job got;
                test_job_init(&got, rt, jobs[j].kernel, jobs[j].rows, jobs[j].cols, 77 + j);
                got.w.ratios = ref.w.ratios;
                got.w.split = ref.w.split;
                cr_assert_eq(test_job_run(&got, rt, NULL), APO_OK, "%s", apo_last_error());
                for (size_t o = 0; o < got.w.n_outputs; o++)
                    cr_assert_eq(test_bitwise_diff(&ref, &got, o), 0,
                                 "%s %zux%zu on %s, path %s: output %zu differs from sse2's",
                                 jobs[j].kernel, jobs[j].rows, jobs[j].cols, setups[s],
                                 apo__cpu_isa_name((apo__cpu_isa)isa), o);
                test_job_free(&got);
                apo_runtime_destroy(rt);
            }
            test_job_free(&ref);
            apo_runtime_destroy(base);
        }
    }
}

/* The scores of a scored sweep over `widths` of bollinger's nbdev_up (bands_revert, cost
 * 0.0005) and two periods, 3 random walks with gaps, on a runtime whose cpu takes path `isa`:
 * APO_N_SCORES x (sets x rows) values, set major. */
static double *scored_sweep(const char *isa, const double *x, size_t rows, size_t cols,
                            size_t *n_out) {
    apo_runtime *rt = runtime_with_isa("cpu:threads=1", isa);
    static const double periods[] = {12, 20}, widths[] = {0.0, 1.0, 1.5, 2.0, 3.0};
    const apo_sweep_param grid[2] = {{"period", periods, 2}, {"nbdev_up", widths, 5}};
    apo_sweep sweep = APO_SWEEP_INIT;
    sweep.grid = grid;
    sweep.n_grid = 2;
    const apo_param cost[1] = {{"cost", 0.0005}};
    const double *in[1] = {x};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = "bollinger";
    w.score = "bands_revert";
    w.inputs = in;
    w.n_inputs = 1;
    w.rows = rows;
    w.cols = cols;
    w.params = cost;
    w.n_params = 1;
    w.sweep = &sweep;
    w.learn = APO_SWITCH_OFF;
    size_t n = 0, one = 0;
    cr_assert_eq(apo_output_shape(rt, &w, 0, &n, &one), APO_OK, "%s", apo_last_error());
    double *mem = malloc(APO_N_SCORES * n * sizeof *mem);
    cr_assert_not_null(mem);
    double *outs[APO_N_SCORES];
    for (int k = 0; k < APO_N_SCORES; k++)
        outs[k] = mem + k * n;
    w.outputs = outs;
    w.n_outputs = APO_N_SCORES;
    cr_assert_eq(apo_distribute_workload(rt, &w, NULL), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    *n_out = n;
    return mem;
}

/* A scored sweep folds its sets in the lanes of the cpu's path and computes bollinger's pass
 * a tile per lane (kernels/scores/score_sets.h, kernels/dispatch/pass_lanes_entry.h): every
 * path gives sse2's scores bit for bit, several tiles per series and gaps included. */
Test(cpu_isa, every_path_gives_a_scored_sweep_the_same_scores, .timeout = 120) {
    const size_t rows = 3, cols = 30011;
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++) {
        apo__test_random_walk(91 + r, cols, 100.0, 0.5, x + r * cols);
        for (size_t t = 9000 + 50 * r; t < 9040 + 50 * r; t++)
            x[r * cols + t] = NAN;
        x[r * cols + 17000] = INFINITY;
    }
    size_t n_ref;
    double *ref = scored_sweep("sse2", x, rows, cols, &n_ref);
    cr_assert_eq(n_ref, 10 * rows);
    for (int isa = APO_CPU_ISA_AVX2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        size_t n;
        double *got = scored_sweep(apo__cpu_isa_name((apo__cpu_isa)isa), x, rows, cols, &n);
        cr_assert_eq(n, n_ref);
        cr_assert(memcmp(got, ref, APO_N_SCORES * n * sizeof *got) == 0,
                  "path %s: the scores differ from sse2's", apo__cpu_isa_name((apo__cpu_isa)isa));
        free(got);
    }
    free(ref);
    free(x);
}

/* The fold of n_sets sets over bars [0, n) in tiles of `tile` bars, on path `isa`
 * (apo__cpu_score_fold_sets), or (isa AUTO) each set alone by apo__score_bar_move, the
 * scalar fold of score_tile.h. `widths`: out[0] is a pass's sd and out[1] its mean, each
 * set's bands from them (apo__bollinger_pass_bands_compared); else out[0] is the output a
 * rule of kind ZONE reads with each set's thresholds. */
static void fold_sets(int isa, int kind, int widths, const double *close, const double *move,
                      const unsigned char *finite, const double *const *out, size_t n, size_t tile,
                      const apo__score_set *sets, size_t n_sets, apo__score_fold *folds) {
    for (size_t j = 0; j < n_sets; j++)
        apo__score_fold_init(&folds[j]);
    for (size_t t0 = 0; t0 < n; t0 += tile) {
        const size_t t1 = t0 + tile < n ? t0 + tile : n;
        if (isa != APO_CPU_ISA_AUTO) {
            const double *at[2] = {out[0] + t0, out[1] + t0};
            const apo__score_sets_tile tl = {close + t0,     move + t0, finite + t0, at, t1 - t0,
                                             widths ? 3 : 1, widths,    kind,        0,  0};
            apo__cpu_score_fold_sets(&tl, sets, n_sets, folds, (apo__cpu_isa)isa);
            continue;
        }
        for (size_t j = 0; j < n_sets; j++) {
            const apo__rule rule = apo__rule_make(kind, 0, 0, sets[j].lower, sets[j].upper);
            for (size_t t = t0; t < t1; t++) {
                double o[3] = {out[0][t], 0.0, 0.0};
                if (widths)
                    apo__bollinger_pass_bands_compared(out[1][t], out[0][t], sets[j].nbdev_up,
                                                       sets[j].nbdev_dn, o);
                apo__score_bar_move(&folds[j], &rule, sets[j].cost, close[t], finite[t], move[t], o,
                                    widths ? 3 : 1);
            }
        }
    }
}

/* fold_sets of `n_sets` (at most 9) sets by the scalar fold into want[], then on every path
 * this CPU has: each set's fold there is the scalar one, field by field, bit for bit. */
static void fold_on_every_path(int kind, int widths, const double *close, const double *move,
                               const unsigned char *finite, const double *const *out, size_t n,
                               size_t tile, const apo__score_set *sets, size_t n_sets,
                               apo__score_fold *want) {
    fold_sets(APO_CPU_ISA_AUTO, kind, widths, close, move, finite, out, n, tile, sets, n_sets,
              want);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        apo__score_fold got[9];
        cr_assert(n_sets <= 9);
        fold_sets(isa, kind, widths, close, move, finite, out, n, tile, sets, n_sets, got);
        for (size_t j = 0; j < n_sets; j++) {
            const apo__score_fold *a = &got[j], *b = &want[j];
            cr_assert(score_folds_equal(a, b),
                      "path %s, kind %d, %zu sets: set %zu folds otherwise (bars %lld vs %lld, "
                      "trades %lld vs %lld, total %.17g vs %.17g)",
                      apo__cpu_isa_name((apo__cpu_isa)isa), kind, n_sets, j, (long long)a->bars,
                      (long long)b->bars, (long long)a->trades, (long long)b->trades, a->total,
                      b->total);
        }
    }
}

/* A signal rule's events (APO_RULE_SIGNAL): +100 and -100 now and then as a candlestick
 * pattern gives them, 0 between, and a gap of NaN, which holds the position as 0 does. */
static double *signal_events(size_t n) {
    double *e = malloc(n * sizeof *e);
    cr_assert(e != NULL);
    for (size_t t = 0; t < n; t++)
        e[t] = t >= 2000 && t < 2010 ? NAN : t % 17 == 3 ? 100.0 : t % 23 == 5 ? -100.0 : 0.0;
    return e;
}

/* The bars the score cases fold: the closes of a seeded walk, with gaps (NaN or infinite) at
 * the bars the case names, each bar's move and whether it is finite (apo__score_move, from the
 * close before it), and three output arrays of n bars that the case fills. */
typedef struct score_walk {
    double *close, *move, *out[3];
    unsigned char *finite;
} score_walk;

static score_walk score_walk_make(uint64_t seed, size_t n, const size_t *gap_at,
                                  const double *gap_value, size_t gaps) {
    score_walk w = {
        malloc(n * sizeof(double)),
        malloc(n * sizeof(double)),
        {malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double))},
        malloc(n)};
    cr_assert(w.close != NULL && w.move != NULL && w.out[0] != NULL && w.out[1] != NULL &&
              w.out[2] != NULL && w.finite != NULL);
    apo__test_random_walk(seed, n, 100.0, 0.5, w.close);
    for (size_t g = 0; g < gaps; g++)
        w.close[gap_at[g]] = gap_value[g];
    for (size_t t = 0; t < n; t++)
        w.finite[t] =
            (unsigned char)apo__score_move(t > 0 ? w.close[t - 1] : NAN, w.close[t], &w.move[t]);
    return w;
}

static void score_walk_free(score_walk *w) {
    free(w->close);
    free(w->move);
    for (int k = 0; k < 3; k++)
        free(w->out[k]);
    free(w->finite);
}

/* Sets of a pass folded in lanes, one round or two side by side with a last one partly full,
 * whose sets start at different bars (a width whose band overflows while the sd is huge
 * starts later), across tiles, on every path: each set's fold is the scalar fold's, field by
 * field, bit for bit (kernels/scores/score_sets.h). */
Test(cpu_isa, score_lanes_fold_each_set_as_the_scalar_fold, .timeout = 60) {
    const size_t n = 3000;
    score_walk w =
        score_walk_make(5, n, (const size_t[]){700, 1800}, (const double[]){NAN, INFINITY}, 2);
    const double *close = w.close, *move = w.move;
    const unsigned char *finite = w.finite;
    double *sd = w.out[0], *mean = w.out[1];
    for (size_t t = 0; t < n; t++) {
        mean[t] = t >= 3 ? (close[t - 1] + close[t - 2] + close[t - 3]) / 3.0 : NAN;
        sd[t] = t < 30 ? NAN : t < 400 ? 1e306 : 0.3 + 0.2 * sin((double)t / 7.0);
        if (t % 97 == 0)
            sd[t] = APO_BOLLINGER_PASS_FLAT;
    }
    const double *out[2] = {sd, mean};
    const double *zone_out[2] = {close, close};
    double *events = signal_events(n);
    const double *signal_out[2] = {events, events};
    apo__score_set sets[9];
    for (size_t j = 0; j < 9; j++) {
        /* Widths 1e3 and up overflow while the sd is 1e306: those sets start at bar 400. */
        static const double ups[9] = {1.0, 2.0, 1e3, 0.0, 1.5, 1e4, 2.5, 0.5, 3.0};
        sets[j] =
            (apo__score_set){ups[j], 2.0 - 0.5 * (double)j, 95.0 + (double)j, 105.0 - (double)j,
                             100.0,  0.0005 * (double)j,    APO_SIDE_BOTH,    NULL,
                             NULL};
    }
    static const size_t counts[] = {1, 2, 3, 5, 8, 9};
    static const int kinds[] = {APO_RULE_BANDS_REVERT, APO_RULE_BANDS_ZONE, APO_RULE_ZONE,
                                APO_RULE_SIGNAL};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++) {
            const int widths = kinds[q] != APO_RULE_ZONE && kinds[q] != APO_RULE_SIGNAL;
            const double *const *o = widths                        ? out
                                     : kinds[q] == APO_RULE_SIGNAL ? signal_out
                                                                   : zone_out;
            apo__score_fold want[9];
            fold_on_every_path(kinds[q], widths, close, move, finite, o, n, 1024, sets, counts[c],
                               want);
            /* The widths that overflow start later: they score fewer bars. */
            if (widths && counts[c] >= 3)
                cr_assert_lt(want[2].bars, want[0].bars);
        }
    score_walk_free(&w);
    free(events);
}

/* Runs of bars whose closes, means and sds are all finite and whose sds are not flat take
 * the bands without their exceptions (apo__score_lanes_clean, score_lanes.h), other runs the
 * checked step: a long walk with such runs between a flat stretch, a gap of the pass, gaps of
 * the close and a stretch where the widths of 1e3 and up overflow to infinite bands, and a set
 * whose width is infinite (no run of its round is clean), folds each set as the scalar fold
 * on every path, bit for bit. */
Test(cpu_isa, score_lanes_clean_runs_fold_as_the_scalar_fold, .timeout = 60) {
    const size_t n = 6000;
    score_walk w =
        score_walk_make(17, n, (const size_t[]){3301, 4444}, (const double[]){NAN, -INFINITY}, 2);
    const double *close = w.close, *move = w.move;
    const unsigned char *finite = w.finite;
    double *sd = w.out[0], *mean = w.out[1];
    for (size_t t = 0; t < n; t++) {
        mean[t] = t >= 3 ? (close[t - 1] + close[t - 2] + close[t - 3]) / 3.0 : NAN;
        sd[t] = t < 20 ? NAN : 0.4 + 0.3 * sin((double)t / 9.0);
        if (t >= 1200 && t < 1210)
            sd[t] = APO_BOLLINGER_PASS_FLAT;
        if (t >= 2600 && t < 2620)
            sd[t] = mean[t] = NAN;
        if (t >= 3800 && t < 3900)
            sd[t] = 1e306;
    }
    const double *out[2] = {sd, mean};
    static const double ups[9] = {1.0, 2.0, 1e3, 0.5, 1.5, 3.0, 2.5, INFINITY, 1e4};
    apo__score_set sets[9];
    for (size_t j = 0; j < 9; j++)
        sets[j] = (apo__score_set){ups[j], 1.0 + 0.25 * (double)j, 0.0,           0.0,
                                   0.0,    0.0004 * (double)j,     APO_SIDE_BOTH, NULL,
                                   NULL};
    static const size_t counts[] = {5, 7, 8, 9};
    static const int kinds[] = {APO_RULE_BANDS_REVERT, APO_RULE_BANDS_ZONE};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++) {
            apo__score_fold want[9];
            fold_on_every_path(kinds[q], 1, close, move, finite, out, n, 2048, sets, counts[c],
                               want);
            /* Every set trades, so its positions are tested, not a flat line's. */
            for (size_t j = 0; j < counts[c]; j++)
                cr_assert_gt(want[j].trades, 10, "set %zu trades %lld times", j,
                             (long long)want[j].trades);
        }
    score_walk_free(&w);
}

/* A lone set's fold over bars [0, n) in tiles of `tile` bars with a rule of kind `kind` on
 * three outputs (a = 0, b = 1): on path `isa` (apo__cpu_score_fold_sets, whose lone set takes
 * its bars in lanes, kernels/scores/score_lone_lanes.h), or (isa AUTO) bar by bar by
 * apo__score_bar_move, the scalar fold. */
static void fold_lone(int isa, int kind, const double *close, const double *move,
                      const unsigned char *finite, const double *const *out, size_t n, size_t tile,
                      const apo__score_set *set, apo__score_fold *fold) {
    apo__score_fold_init(fold);
    const apo__rule rule = apo__rule_make(kind, 0, 1, set->lower, set->upper);
    for (size_t t0 = 0; t0 < n; t0 += tile) {
        const size_t t1 = t0 + tile < n ? t0 + tile : n;
        if (isa == APO_CPU_ISA_AUTO) {
            for (size_t t = t0; t < t1; t++) {
                const double o[3] = {out[0][t], out[1][t], out[2][t]};
                apo__score_bar_move(fold, &rule, set->cost, close[t], finite[t], move[t], o, 3);
            }
            continue;
        }
        const double *at[3] = {out[0] + t0, out[1] + t0, out[2] + t0};
        const apo__score_sets_tile tl = {close + t0, move + t0, finite + t0, at, t1 - t0,
                                         3,          0,         kind,        0,  1};
        apo__cpu_score_fold_sets(&tl, set, 1, fold, (apo__cpu_isa)isa);
    }
}

/* A lone set under every kind of rule, its outputs the indicator's own (no widths): bands
 * whose width changes sign, an oscillator around 0, gaps of the close alone, adjacent, at a
 * tile's first bar and last, and a gap of the outputs after the set has started; in tiles
 * that are a whole number of vectors and tiles that are not. On every path the fold is the
 * scalar fold's, field by field, bit for bit, and every kind trades (a rule that never moved
 * would fold 0 either way). */
Test(cpu_isa, a_lone_set_folds_every_kind_as_the_scalar_fold, .timeout = 60) {
    const size_t n = 3000;
    static const size_t gaps[] = {700, 701, 1023, 1024, 1333, 2047, 2999};
    static const double gap_values[] = {NAN, INFINITY, NAN, INFINITY, NAN, INFINITY, NAN};
    score_walk w = score_walk_make(11, n, gaps, gap_values, sizeof gaps / sizeof gaps[0]);
    const double *close = w.close, *move = w.move;
    const unsigned char *finite = w.finite;
    double *upper = w.out[0], *middle = w.out[1], *lower = w.out[2];
    for (size_t t = 0; t < n; t++) {
        const double width = 0.5 * sin((double)t / 11.0) + 0.2;
        middle[t] = t >= 5 ? (close[t - 3] + close[t - 4] + close[t - 5]) / 3.0 : NAN;
        upper[t] = middle[t] + width;
        lower[t] = middle[t] - width;
    }
    for (size_t t = 1500; t < 1510; t++)
        middle[t] = upper[t] = lower[t] = NAN;
    double *osc = malloc(n * sizeof *osc);
    cr_assert(osc != NULL);
    for (size_t t = 0; t < n; t++)
        osc[t] = close[t] - middle[t]; /* macd_cross reads out[2]: its sign */
    const double *bands[3] = {upper, middle, lower};
    const double *hist[3] = {middle, middle, osc};
    double *events = signal_events(n);
    const double *signals[3] = {events, middle, osc};
    const apo__score_set set = {0.0, 0.0, 99.0, 101.0, 100.0, 0.001, APO_SIDE_BOTH, NULL, NULL};
    static const int kinds[] = {APO_RULE_BANDS_REVERT, APO_RULE_BANDS_ZONE, APO_RULE_MACD_CROSS,
                                APO_RULE_ZONE,         APO_RULE_REVERT,     APO_RULE_CROSS,
                                APO_RULE_PRICE_CROSS,  APO_RULE_SIGNAL};
    static const size_t tiles[] = {1024, 333, 3000};
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++)
        for (size_t c = 0; c < sizeof tiles / sizeof tiles[0]; c++) {
            const double *const *o = kinds[q] == APO_RULE_MACD_CROSS ? hist
                                     : kinds[q] == APO_RULE_SIGNAL   ? signals
                                                                     : bands;
            apo__score_fold want, got;
            fold_lone(APO_CPU_ISA_AUTO, kinds[q], close, move, finite, o, n, tiles[c], &set, &want);
            cr_assert_gt(want.trades, 10, "kind %d trades %lld times", kinds[q],
                         (long long)want.trades);
            for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
                if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                    continue;
                fold_lone(isa, kinds[q], close, move, finite, o, n, tiles[c], &set, &got);
                cr_assert(score_folds_equal(&got, &want),
                          "path %s, kind %d, tiles of %zu: the lone set folds otherwise (bars "
                          "%lld vs %lld, trades %lld vs %lld, total %.17g vs %.17g)",
                          apo__cpu_isa_name((apo__cpu_isa)isa), kinds[q], tiles[c],
                          (long long)got.bars, (long long)want.bars, (long long)got.trades,
                          (long long)want.trades, got.total, want.total);
            }
        }
    score_walk_free(&w);
    free(osc);
    free(events);
}

/* ---- the volume family's tiles, path by path ---------------------------------------------- */

/* OHLCV bars: a walk with repeated closes (ties), flat bars (high == low), bars with high below
 * low, and gaps of each input, a leading one included. in[0 .. 3] high, low, close, volume. */
static void volume_bars(size_t n, uint64_t seed, double *in[4]) {
    uint64_t s = seed;
    double close = 100.0;
    for (size_t t = 0; t < n; t++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = (double)(s >> 11) / 9007199254740992.0;
        if (t % 7 != 3)
            close += u < 0.5 ? -0.5 : 0.5; /* every seventh bar keeps the close: a tie */
        const double half = t % 11 == 5 ? 0.0 : t % 13 == 6 ? -0.25 : 0.25 + u;
        in[0][t] = close + half;
        in[1][t] = close - half;
        in[2][t] = close + (u - 0.5) * half;
        in[3][t] = 1000.0 + 9000.0 * u;
    }
    static const size_t gaps[] = {0, 517, 518, 1999, 2500, 4100, 4101, 4102, 9001};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        if (gaps[g] < n)
            in[g % 4][gaps[g]] = g % 2 == 0 ? NAN : INFINITY;
}

Test(cpu_isa, volume_tiles_give_the_same_bits_on_every_path) {
    static const struct {
        apo__cat_id id;
        size_t n_in;
        double p[2];
    } kernels[] = {
        {APO_CAT_MFI, 4, {14, 0}}, {APO_CAT_MFI, 4, {2, 0}},    {APO_CAT_MFI, 4, {100, 0}},
        {APO_CAT_AD, 4, {0, 0}},   {APO_CAT_ADOSC, 4, {3, 10}}, {APO_CAT_OBV, 2, {0, 0}},
    };
    const size_t n = 10007;
    double *in[4], *want = malloc(n * sizeof(double)), *got = malloc(n * sizeof(double));
    for (int i = 0; i < 4; i++) {
        in[i] = malloc(n * sizeof(double));
        cr_assert_not_null(in[i]);
    }
    cr_assert(want != NULL && got != NULL);
    volume_bars(n, 2026, in);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        /* obv reads close and volume, the others all four. */
        for (size_t i = 0; i < kernels[k].n_in; i++)
            io.in[i] = in[4 - kernels[k].n_in + i];
        io.p[0] = kernels[k].p[0];
        io.p[1] = kernels[k].p[1];
        io.h = apo__catalog_halo(kernels[k].id, io.p);
        const int best = apo__cpu_isa_best();
        io.out[0] = want;
        apo__cpu_catalog_tile_on(kernels[k].id, &io, 0, n, best);
        for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
            if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                continue;
            /* The whole row, then in pieces of odd lengths (remainders of every lane count). */
            static const size_t pieces[] = {0, 1, 3, 250, 4093};
            /* Only kernels whose tiles join (obv, ad) may be cut anywhere with the same bits;
             * the others are called whole. */
            const size_t cuts =
                apo__catalog_tiles_join(kernels[k].id) ? sizeof pieces / sizeof pieces[0] : 1;
            for (size_t c = 0; c < cuts; c++) {
                for (size_t t = 0; t < n; t++)
                    got[t] = -12345.678;
                io.out[0] = got;
                const size_t step = pieces[c] == 0 ? n : pieces[c];
                for (size_t b = 0; b < n; b += step)
                    apo__cpu_catalog_tile_on(kernels[k].id, &io, b, b + step < n ? b + step : n,
                                             isa);
                size_t differ = 0;
                for (size_t t = 0; t < n; t++)
                    differ += memcmp(&want[t], &got[t], sizeof(double)) != 0;
                cr_assert_eq(differ, 0,
                             "kernel %d (%g, %g) on %s in pieces of %zu: %zu outputs "
                             "differ from %s's",
                             (int)kernels[k].id, io.p[0], io.p[1],
                             apo__cpu_isa_name((apo__cpu_isa)isa), step, differ,
                             apo__cpu_isa_name((apo__cpu_isa)best));
            }
        }
    }
    for (int i = 0; i < 4; i++)
        free(in[i]);
    free(want);
    free(got);
}

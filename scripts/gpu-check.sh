#!/usr/bin/env bash
# The first run of apportion on a GPU, in one command (docs/cuda.md, "Checking a GPU").
#
# Where nvcc is (any machine, no GPU needed): builds for sm_90 and bundles the binaries with
# the shared libraries a bare CUDA machine lacks, and checks the kernels' PTX for FMA:
#   scripts/gpu-check.sh --bundle-only [--build DIR]
# On the GPU machine (the bundle travels with the working tree, e.g. as a `carry` path):
#   scripts/gpu-check.sh [--bundle DIR] [--budget SECONDS] [--only STEP,...] [--force]
# Without a bundle it builds and bundles first (when nvcc is there). Each step runs under
# a timeout with its log kept (under $OUT/gpu-check when OUT is set, else the bundle's
# logs/); the run ends with one verdict line per step and "N passed, N failed, N skipped".
# The whole run keeps within --budget (default 570 s): a step that cannot start in time is
# skipped as "out of time". Exit: 0 nothing failed, 1 a step failed, 2 usage, 77 no GPU.
#
#   --bundle-only      build and bundle, run nothing
#   --build DIR        bundle this build folder instead of building build-gpu-check/
#                      (for sm_90 it must have been configured with 90 in -Dgpu_archs)
#   --bundle DIR       the bundle to run (default build-gpu-check/bundle)
#   --only LIST        run only these steps (names as in the verdict lines)
#   --force            run the steps even without a GPU (to check this script itself)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
src=$(pwd)

bundle_only=false
build_dir=
bundle="build-gpu-check/bundle"
budget=570
only=
force=false
while [ $# -gt 0 ]; do
    case "$1" in
    --bundle-only) bundle_only=true ;;
    --build) build_dir=${2:?--build needs a folder}; shift ;;
    --bundle) bundle=${2:?--bundle needs a folder}; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    --only) only=${2:?--only needs a list}; shift ;;
    --force) force=true ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$budget" in '' | *[!0-9]*) echo "gpu-check: --budget takes whole seconds" >&2; exit 2 ;; esac

start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

# ---- building and bundling (here) ---------------------------------------------------------

# The gpu suite's executables (tests/gpu/meson.build): host arrays, device-resident arrays and
# large workloads, and the cases that act as a CUDA caller (built with the CUDA backend, which
# a bundle always has).
gpu_suite_targets=(tests/gpu/test_gpu tests/gpu/test_gpu_resident tests/gpu/test_gpu_caller)

# Libraries of glibc itself: a bundle must use the machine's own.
is_glibc() {
    case "$1" in
    linux-vdso.so* | ld-linux*.so* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
        librt.so.* | libresolv.so.* | libutil.so.*) return 0 ;;
    esac
    return 1
}

# Counts FMA in the kernels' PTX, made by the build's own nvcc command for each kernel with
# -ptx for compute_90 in place of its object: -fmad=false must leave none (the SASS step
# checks the machine code on the GPU machine).
ptx_check() {
    local build=$1 out=$2 tmp kernel cmd total=0 kernels=0 n
    tmp=$(mktemp -d)
    : >"$out"
    for kernel in bollinger macd returns_stats bootstrap staged; do
        cmd=$(sed -n "/^build runtime\/libapportion[^ ]*\/$kernel\.cu\.o:/,/COMMAND/p" \
            "$build/build.ninja" | sed -n 's/^ *COMMAND = //p')
        if [ -z "$cmd" ]; then
            echo "no nvcc command for $kernel in $build/build.ninja" >>"$out"
            rm -rf "$tmp"
            return 1
        fi
        cmd=$(printf '%s' "$cmd" | sed -e 's/ -gencode [^ ]*//g' -e 's/ -MD -MF [^ ]*//' \
            -e "s| -c \\([^ ]*\\) -o [^ ]*\$| -ptx -arch=compute_90 \\1 -o $tmp/$kernel.ptx|")
        if ! (cd "$build" && eval "$cmd") >>"$out" 2>&1; then
            echo "nvcc -ptx failed for $kernel" >>"$out"
            rm -rf "$tmp"
            return 1
        fi
        # Floating-point fma and mad only (integer mad.lo.s32 and the like are address math).
        n=$(grep -cE '(^|[[:space:]])(fma|mad)(\.[a-z0-9]+)*\.f(16|32|64)([[:space:]]|$)' \
            "$tmp/$kernel.ptx")
        echo "$kernel: $n floating-point fma/mad in $(grep -c '\.entry' "$tmp/$kernel.ptx") entry point(s)" >>"$out"
        total=$((total + n))
        kernels=$((kernels + 1))
    done
    rm -rf "$tmp"
    echo "$total floating-point fma/mad in the PTX of $kernels kernel files" >>"$out"
    [ "$total" -eq 0 ]
}

build_and_bundle() {
    local build=$build_dir b lib name path
    if [ -z "$build" ]; then
        build="build-gpu-check"
        command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || {
            echo "gpu-check: no bundle at $bundle and no nvcc to build one" >&2
            return 1
        }
        echo "gpu-check: building $build for sm_90 (cli, gpu suite, bench)"
        if [ ! -f "$build/build.ninja" ]; then
            local setup_log
            setup_log=$(mktemp /tmp/gpu-check-setup.XXXXXX)
            meson setup "$build" -Dbuildtype=release -Dgpu_archs=90 -Dcuda=enabled \
                -Dtests=enabled >"$setup_log" 2>&1 || {
                echo "gpu-check: meson setup failed: see $setup_log" >&2
                return 1
            }
            rm -f "$setup_log"
        fi
        ninja -C "$build" cli/apportion "${gpu_suite_targets[@]}" bench/apo-bench-kernels >/dev/null || {
            echo "gpu-check: the build failed" >&2
            return 1
        }
    fi
    for b in cli/apportion "${gpu_suite_targets[@]}" bench/apo-bench-kernels runtime/libapportion.so; do
        [ -e "$build/$b" ] || { echo "gpu-check: $build/$b is not built" >&2; return 1; }
    done
    rm -rf "$bundle"
    mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/data"
    cp "$build/cli/apportion" "$build/bench/apo-bench-kernels" "$bundle/bin/"
    for b in "${gpu_suite_targets[@]}"; do
        cp "$build/$b" "$bundle/bin/"
    done
    name=$(readelf -d "$build/runtime/libapportion.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    cp -L "$build/runtime/libapportion.so" "$bundle/lib/${name:-libapportion.so}"
    cp tests/data/talib_close252.f64 "$bundle/data/"
    cp scripts/gpu-check.sh "$bundle/"
    # Every shared library the binaries load, except glibc's: what ldd resolves here.
    for b in "$bundle"/bin/* "$bundle"/lib/libapportion*; do
        ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
    done | sort -u | while read -r lib path; do
        is_glibc "$lib" || cp -L "$path" "$bundle/lib/$lib"
    done
    if LD_LIBRARY_PATH="$bundle/lib" ldd "$bundle"/bin/* | grep -q 'not found'; then
        echo "gpu-check: the bundle misses libraries:" >&2
        LD_LIBRARY_PATH="$bundle/lib" ldd "$bundle"/bin/* | grep 'not found' >&2
        return 1
    fi
    {
        echo "source: $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
        echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
        echo "build folder: $build ($(grep -o 'gpu_archs=[^ ]*' "$build/meson-logs/meson-log.txt" 2>/dev/null | tail -n 1))"
        echo "glibc: $(ldd --version | head -n 1)"
        echo "nvcc: $("$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" --version 2>/dev/null | tail -n 1)"
        echo "libraries bundled: $(find "$bundle/lib" -type f -printf '%f\n' | sort | tr '\n' ' ')"
    } >"$bundle/MANIFEST"
    if ptx_check "$build" "$bundle/ptx-check.txt"; then
        echo "pass $(tail -n 1 "$bundle/ptx-check.txt")" >"$bundle/ptx-verdict"
    else
        echo "FAIL $(tail -n 1 "$bundle/ptx-check.txt") (ptx-check.txt)" >"$bundle/ptx-verdict"
    fi
    echo "gpu-check: bundle $bundle: $(du -sh "$bundle" | cut -f1), $(find "$bundle/lib" -type f | wc -l) libraries; PTX: $(cat "$bundle/ptx-verdict")"
}

if $bundle_only || [ ! -f "$bundle/bin/apportion" ]; then
    build_and_bundle || exit 1
    $bundle_only && exit 0
fi
# A copy may have lost the execute bits on its way to the GPU machine.
chmod u+x "$bundle"/bin/* 2>/dev/null

# ---- running the steps (on the GPU machine) --------------------------------------------------

bundle=$(cd "$bundle" && pwd)
bin=$bundle/bin
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
logs=${OUT:+$OUT/gpu-check}
logs=${logs:-$bundle/logs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$logs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export APPORTION_PROFILES=off HOME=$work/home XDG_STATE_HOME=$work/state
mkdir -p "$HOME" "$XDG_STATE_HOME"
cuda_bin=
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [ -d "$d" ] && cuda_bin=${cuda_bin:+$cuda_bin:}$d
done
tool() { PATH=$PATH${cuda_bin:+:$cuda_bin} command -v "$1"; }

# Is there a GPU? nvidia-smi's list, else what apportion itself finds.
gpu_line=$(nvidia-smi -L 2>/dev/null | head -n 1)
if [ -z "$gpu_line" ]; then
    why=$(APPORTION_USE_GPU=auto "$bin/apportion" devices 2>&1 | grep '^GPUs usable' || true)
    case "$why" in
    "GPUs usable: "[1-9]*) gpu_line=$why ;;
    *)
        echo "gpu-check: no GPU on this machine: nothing to check (${why:-apportion devices failed})"
        $force || exit 77
        echo "gpu-check: --force: running the steps anyway"
        gpu_line="no GPU (--force)"
        ;;
    esac
fi
echo "gpu-check: $gpu_line; logs in $logs; budget ${budget}s"

verdicts=()
n_pass=0 n_fail=0 n_skip=0
verdict() { # NAME RESULT SECONDS DETAIL
    local line
    line=$(printf 'gpu-check: %-18s %-5s %4ss  %s' "$1" "$2" "$3" "$4")
    verdicts+=("$line")
    echo "$line"
    case "$2" in pass) n_pass=$((n_pass + 1)) ;; FAIL) n_fail=$((n_fail + 1)) ;; *) n_skip=$((n_skip + 1)) ;; esac
}

wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# step NAME CAP_SECONDS DESCRIPTION -- runs step_NAME under a timeout within the budget, its
# output in logs/NN-NAME.log; step_NAME returns 0 pass, 1 fail, 77 skip, and may write one
# line of detail to $work/detail.
step_no=0
step() {
    local name=$1 cap=$2 left t0 rc detail log
    step_no=$((step_no + 1))
    wanted "$name" || return 0
    log=$(printf '%s/%02d-%s.log' "$logs" "$step_no" "$name")
    left=$((budget - $(elapsed) - 10))
    if [ "$left" -lt 15 ]; then
        verdict "$name" skip 0 "out of time (budget ${budget}s)"
        return 0
    fi
    [ "$cap" -gt "$left" ] && cap=$left
    : >"$work/detail"
    t0=$(date +%s)
    echo "gpu-check: $name (at most ${cap}s)..."
    STEP_TIMEOUT=$cap "step_${name//-/_}" >"$log" 2>&1
    rc=$?
    detail=$(head -n 1 "$work/detail")
    case $rc in
    0) verdict "$name" pass $(($(date +%s) - t0)) "${detail:-ok}" ;;
    77) verdict "$name" skip $(($(date +%s) - t0)) "${detail:-skipped}" ;;
    124 | 137) verdict "$name" FAIL $(($(date +%s) - t0)) "timed out after ${cap}s (${log##*/})" ;;
    *) verdict "$name" FAIL $(($(date +%s) - t0)) "${detail:-exit $rc} (${log##*/})" ;;
    esac
}

# Runs a command under the step's timeout (the command line goes to the log, on stderr, so
# that a command's own output can be redirected whole).
run() {
    echo "+ $*" >&2
    if command -v timeout >/dev/null; then
        timeout -k 5 "$STEP_TIMEOUT" "$@"
    else
        "$@"
    fi
}

detail() { echo "$*" >"$work/detail"; }

step_gpu() {
    run nvidia-smi || echo "(nvidia-smi failed or is missing)"
    run nvidia-smi topo -m
    run "$bin/apportion" devices || return 1
    run "$bin/apportion" devices --json >"$logs/devices.json" || return 1
    local line
    line=$("$bin/apportion" devices | grep -E '^(GPUs usable|host threads)' | tr '\n' ' ')
    detail "$line"
    grep -q '^GPUs usable: [1-9]' <<<"$line"
}

step_ptx() {
    cat "$bundle/ptx-check.txt" 2>/dev/null
    [ -f "$bundle/ptx-verdict" ] || { detail "no PTX check in the bundle"; return 77; }
    detail "$(cut -d' ' -f2- "$bundle/ptx-verdict")"
    grep -q '^pass' "$bundle/ptx-verdict"
}

# DFMA in the kernels' SASS outside the double division and square root sequences, which use
# DFMA by design: a DFMA counts as theirs when a MUFU.RCP64H or MUFU.RSQ64H came at most 40
# instructions before it in the same function, or when it lies in a subroutine named for a
# division, reciprocal or square root. Every other DFMA is listed for a human to read.
step_sass() {
    local cuobjdump
    cuobjdump=$(tool cuobjdump) || { detail "cuobjdump not found"; return 77; }
    run "$cuobjdump" -sass "$bundle"/lib/libapportion.so.* >"$logs/sass.txt" || return 1
    awk -v W=40 '
        /Function : / { fn = $NF; since = 1e9; internal = 0; fns++; next }
        /^[[:space:]]*[$.A-Za-z_][^[:space:]]*:[[:space:]]*$/ {
            label = tolower($1)
            if (label ~ /div|sqrt|rsq|rcp/) internal = 1
            else if (label ~ /^\$/) internal = 0
            next
        }
        /^[[:space:]]*\/\*[0-9a-f]+\*\// {
            since++
            if ($0 ~ /MUFU\.(RCP64H|RSQ64H)/) since = 0
            if ($0 ~ /[[:space:]]DFMA[.[:space:]]/) {
                total++
                if (since <= W || internal) explained++
                else { unexplained++; print "unexplained DFMA in " fn ": " $0 }
            }
        }
        END {
            printf "%d functions, %d DFMA, %d in division/sqrt sequences, %d outside\n", fns, total, explained, unexplained
            exit unexplained > 0 || fns == 0
        }' "$logs/sass.txt" >"$logs/sass-dfma.txt"
    local rc=$?
    cat "$logs/sass-dfma.txt"
    detail "$(tail -n 1 "$logs/sass-dfma.txt")"
    return $rc
}

step_selftest() {
    APPORTION_USE_GPU=yes run "$bin/apportion" selftest --json >"$logs/selftest.json"
    local rc=$?
    cat "$logs/selftest.json"
    detail "exit $rc; $(grep -oE '"(verdict|passed|failed|warned|skipped)": *("[^"]*"|[0-9]+)' \
        "$logs/selftest.json" | tr '\n' ' ')"
    return $rc
}

# Every executable of the gpu suite in turn, each with the GPU required, within the step's
# one timeout (each gets what the ones before it left): one that fails or is missing from the
# bundle fails the step, one that runs out of time times it out; the detail line gives each
# one's synthesis.
step_gpu_suite() {
    local b name rc=0 one summary='' synthesis cap=$STEP_TIMEOUT t0
    t0=$(date +%s)
    for b in "${gpu_suite_targets[@]}"; do
        name=${b##*/}
        if [ ! -x "$bin/$name" ]; then
            echo "$name is not in the bundle" >&2
            summary="$summary$name: missing; "
            [ "$rc" -eq 0 ] && rc=1
            continue
        fi
        STEP_TIMEOUT=$((cap - ($(date +%s) - t0)))
        if [ "$STEP_TIMEOUT" -le 0 ]; then
            summary="$summary$name: out of time; "
            rc=124
            continue
        fi
        APPORTION_USE_GPU=yes APO_TEST_DATA_DIR=$bundle/data run "$bin/$name" --verbose \
            >"$work/$name.log" 2>&1
        one=$?
        cat "$work/$name.log"
        case $one in 0) ;; 124 | 137) rc=124 ;; *) [ "$rc" -eq 0 ] && rc=1 ;; esac
        synthesis=$(grep -E 'Synthesis' "$work/$name.log" | tail -n 1 | sed 's/.*Synthesis: //')
        summary="$summary$name: exit $one${synthesis:+, $synthesis}; "
    done
    detail "$summary"
    return $rc
}

step_bench() {
    run "$bin/apo-bench-kernels" --kernels bollinger,macd,returns_stats,bootstrap,copy3 \
        --max-size 1e8 --gpu-sizes 1e6,1e7,1e8 --reps 3 --stream-reps 5 \
        --json "$logs/bench.json"
    local rc=$?
    detail "exit $rc; $(grep -E '^# total #wrong' "$logs"/*-bench.log | tail -n 1 | sed 's/^# //')"
    return $rc
}

step_profile_run() {
    run "$bin/apportion" profile --devices cuda,cpu --kernels bollinger,macd --sample-size 10000000 ||
        return 1
    run "$bin/apportion" run --kernel bollinger --rows 1 --cols 100000000 --devices cuda,cpu \
        --json >"$logs/run-cuda-cpu.json" || return 1
    cat "$logs/run-cuda-cpu.json"
    detail "bollinger 1e8 on cuda,cpu: $(grep -oE '"(makespan_ms|balance_efficiency)": *[0-9.e+-]+' \
        "$logs/run-cuda-cpu.json" | tr '\n' ' ')"
}

# compute-sanitizer on a small selftest: every GPU path of it, at sizes the tools can afford.
sanitize() {
    local sanitizer
    sanitizer=$(tool compute-sanitizer) || { detail "compute-sanitizer not found"; return 77; }
    APPORTION_USE_GPU=yes run "$sanitizer" --tool "$1" --error-exitcode 3 "$bin/apportion" \
        selftest --sizes 4097,3x5001 --gpu-memory-mb 4
    local rc=$?
    detail "exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs"/*-"$1".log | tail -n 1 | sed 's/^=* *//')"
    return $rc
}
step_memcheck() { sanitize memcheck; }
step_racecheck() { sanitize racecheck; }
step_synccheck() { sanitize synccheck; }
step_initcheck() { sanitize initcheck; }

step_ncu() {
    local ncu
    ncu=$(tool ncu) || { detail "ncu not found"; return 77; }
    run "$ncu" --kernel-name regex:apo__ --launch-count 8 --section SpeedOfLight \
        --section Occupancy --section LaunchStats "$bin/apportion" run --kernel bollinger \
        --rows 1 --cols 10000000 --devices cuda
    local rc=$?
    detail "exit $rc"
    return $rc
}

# Does apportion see a GPU? The variant steps skip without one (a --force run here).
have_gpu() { "$bin/apportion" devices 2>/dev/null | grep -q '^GPUs usable: [1-9]'; }

# The two kernel variants (APPORTION_CUDA_KERNELS=simple|staged, docs/cuda.md "Staged
# kernels") side by side: apo-bench-kernels' GPU section under each, bitwise checked first,
# then the device-resident rows of both in one table (bench-variants.txt).
step_bench_variants() {
    have_gpu || { detail "no GPU: nothing to compare"; return 77; }
    local v rc=0
    for v in simple staged; do
        APPORTION_CUDA_KERNELS=$v run "$bin/apo-bench-kernels" \
            --kernels bollinger,macd,returns_stats,bootstrap --max-size 1e8 --gpu-sizes 1e7,1e8 \
            --reps 3 --stream-reps 2 --gpu-warmup 0 --json "$logs/bench-$v.json" \
            >"$logs/bench-$v.txt" || rc=1
    done
    # The device-resident table of each run (bench/gpu.c): its title line "# device-resident
    # (...)", then its column names on a line of their own that also starts with "#"
    # ("# kernel samples reps time_ms(med) min_ms GB/s %d2d #wrong"), then one row per kernel
    # and size; a row that was skipped says "skipped:" in place of its figures. The next line
    # starting with "#" that is not that header ends the table. Kept: kernel, samples, then
    # median and min ms.
    for v in simple staged; do
        awk -v v=$v '/^# device-resident/ { on = 1; next } on && /^# kernel/ { next }
            /^#/ { on = 0 }
            on && NF >= 5 && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9.]+$/ { print $1, $2, v, $4, $5 }' \
            "$logs/bench-$v.txt"
    done | sort -k1,1 -k2,2n -k3,3 >"$logs/bench-variants.txt"
    echo "kernel samples variant median_ms min_ms (device-resident)"
    cat "$logs/bench-variants.txt"
    if [ ! -s "$logs/bench-variants.txt" ]; then
        # No rows is no comparison, whatever the bench's exit status said.
        detail "exit $rc; no device-resident rows in bench-simple.txt or bench-staged.txt"
        return 1
    fi
    detail "exit $rc; $(awk '{ printf "%s %s %s %s ms; ", $1, $2, $3, $4 }' "$logs/bench-variants.txt" |
        head -c 400)"
    return $rc
}

# ncu on both variants, each built-in kernel on a 1e7-sample series: achieved DRAM bandwidth
# (% of peak) and global sectors per request of loads, cp.async copies (LDGSTS) and stores:
# 8 per request of 8-byte accesses is 32 consecutive doubles, the ideal; 4 to 5 is half a warp
# on 16 consecutive doubles (the staged copies); 32 is one sector per lane (the simple
# kernels' scattered accesses). Table in ncu-variants.txt.
step_ncu_variants() {
    local ncu v k rc=0
    ncu=$(tool ncu) || { detail "ncu not found"; return 77; }
    have_gpu || { detail "no GPU: nothing to profile"; return 77; }
    local metrics=dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
    local op
    for op in ld ldgsts st; do
        metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum
        metrics=$metrics,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum
    done
    for v in simple staged; do
        for k in bollinger macd returns_stats bootstrap; do
            APPORTION_CUDA_KERNELS=$v APPORTION_USE_GPU=yes run "$ncu" --csv \
                --kernel-name regex:apo__ --launch-count 4 --metrics "$metrics" \
                "$bin/apportion" run --kernel $k --rows 1 --cols 10000000 --devices cuda \
                >"$logs/ncu-$v-$k.csv" || rc=1
        done
    done
    # One line per profiled launch: variant, kernel function, DRAM % of peak, time, and
    # sectors per request of each access kind.
    for v in simple staged; do
        cat "$logs"/ncu-$v-*.csv | awk -F'","' -v v=$v '
            function num(s) { gsub(/[",]/, "", s); return s + 0 }
            $0 ~ /^"ID"/ { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); col[h] = i }; next }
            col["Metric Name"] && NF > 5 {
                id = $col["ID"] "|" $col["Kernel Name"]; name[id] = $col["Kernel Name"]
                val[id, $col["Metric Name"]] = num($col["Metric Value"]); ids[id] = 1
            }
            END {
                for (id in ids) {
                    split("ld ldgsts st", ops, " "); spr = ""
                    for (o = 1; o <= 3; o++) {
                        r = val[id, "l1tex__t_requests_pipe_lsu_mem_global_op_" ops[o] ".sum"]
                        sct = val[id, "l1tex__t_sectors_pipe_lsu_mem_global_op_" ops[o] ".sum"]
                        spr = spr sprintf(" %s %s", ops[o], r > 0 ? sprintf("%.1f", sct / r) : "-")
                    }
                    n = name[id]; sub(/\(.*/, "", n)
                    printf "%s %s dram %.1f%% time %.0f%s\n", v, n,
                        val[id, "dram__throughput.avg.pct_of_peak_sustained_elapsed"],
                        val[id, "gpu__time_duration.sum"], spr
                }
            }'
    done | sort >"$logs/ncu-variants.txt"
    echo "variant kernel DRAM-%-of-peak time-ns sectors-per-request(ld ldgsts st)"
    cat "$logs/ncu-variants.txt"
    detail "exit $rc; $(wc -l <"$logs/ncu-variants.txt") launches profiled (ncu-variants.txt)"
    return $rc
}

# In order of what they tell: the GPU and the machine code first, then correctness, speed,
# balance, the sanitizers, and the profiler last (the budget cuts from the end).
step gpu 30
step ptx 5
step sass 60
step memcheck 150
step selftest 150
step gpu-suite 300
step bench 180
step profile-run 150
step racecheck 150
step synccheck 120
step initcheck 120
step ncu 120
step bench-variants 300
step ncu-variants 200

echo
echo "gpu-check: $gpu_line; $(elapsed)s; logs in $logs"
for line in "${verdicts[@]}"; do
    echo "$line"
done
printf '%s\n' "${verdicts[@]}" >"$logs/verdicts.txt"
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
[ "$n_fail" -eq 0 ]

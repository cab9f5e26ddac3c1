#!/usr/bin/env bash
# The first run of apportion on a GPU, in one command (docs/cuda.md, "Checking a GPU").
#
# Where nvcc is (any machine, no GPU needed): builds for sm_90 and bundles the binaries with
# the shared libraries a bare CUDA machine lacks, and checks the kernels' PTX for FMA:
#   scripts/gpu-check.sh --bundle-only [--build DIR]
# On the GPU machine (the bundle travels with the working tree, e.g. as a `carry` path):
#   scripts/gpu-check.sh [--bundle DIR|FILE.tar.xz] [--budget SECONDS] [--only STEP,...] [--force]
# Without a bundle it builds and bundles first (when nvcc is there). Each step runs under
# a timeout with its log kept (under $OUT/gpu-check when OUT is set, else the bundle's
# logs/); the run ends with the summary tables (stall sampling, bandwidth, throughput per
# kernel, the device-resident catalog, scored sweeps, overlap, CPU+GPU against each alone,
# CPU == GPU), one verdict line per step and "N passed, N failed,
# N skipped", then the plan of the steps left for later calls ("next call: ... --only ...")
# and the path of one archive of the logs, gpu-check-<time>.tar.gz ($OUT, else beside them).
# The whole run keeps within --budget (default 470 s: a lent GPU machine gives 15 minutes,
# its start-up included, so one run stays under 8): a step whose cap no longer fits is
# skipped as "out of time" and planned. Exit: 0 nothing failed, 1 a step failed, 2 usage,
# 77 no GPU.
#
#   --bundle-only      build and bundle, run nothing
#   --pack             with --bundle-only, also write the bundle as one xz archive beside it
#                      (BUNDLE.tar.xz): the gpu suite's three executables each hold the whole
#                      static library, 37 MB apiece, and the archive's window holds all three,
#                      so they travel at a fraction of that; carry the archive alone
#   --build DIR        bundle this build folder instead of building build-gpu-check/
#                      (for sm_90 it must have been configured with 90 in -Dgpu_archs)
#   --bundle DIR       the bundle to run (default build-gpu-check/bundle); a FILE.tar.xz
#                      (--pack's) is unpacked first, under TMPDIR
#   --only LIST        run only these steps (names as in the verdict lines)
#   --kernels LIST     bench-catalog and gpu-catalog take only these catalog kernels (a call
#                      that checks what changed since the last GPU run)
#   --cap STEP:SECONDS a step's cap instead of its default (repeatable): a short call whose
#                      steps are known to take less than their defaults fits more of them
#   --force            run the steps even without a GPU (to check this script itself)
#   --simulated        check this script on simulated GPUs (docs/cuda.md, "A simulated CUDA
#                      runtime"): bundle build-simgpu/ (--build to name another) into
#                      build-simgpu/bundle without the PTX check, and run the steps at sizes
#                      100 times smaller; its figures say nothing of a real GPU
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
src=$(pwd)

bundle_only=false
pack=false
build_dir=
bundle="build-gpu-check/bundle"
default_budget=470
budget=$default_budget
only=
only_kernels=
caps=()
force=false
simulated=false
bundle_given=false
while [ $# -gt 0 ]; do
    case "$1" in
    --bundle-only) bundle_only=true ;;
    --pack) pack=true ;;
    --build) build_dir=${2:?--build needs a folder}; shift ;;
    --bundle) bundle=${2:?--bundle needs a folder}; bundle_given=true; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    --only) only=${2:?--only needs a list}; shift ;;
    --kernels) only_kernels=${2:?--kernels needs a list}; shift ;;
    --cap) caps+=("${2:?--cap needs STEP:SECONDS}"); shift ;;
    --force) force=true ;;
    --simulated) simulated=true ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "gpu-check: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$budget" in '' | *[!0-9]*) echo "gpu-check: --budget takes whole seconds" >&2; exit 2 ;; esac
$pack && ! $bundle_only && { echo "gpu-check: --pack goes with --bundle-only" >&2; exit 2; }

# In order of what they tell now (issue 51): the GPU and the PTX proof, then the stall
# sampling of the staged bollinger and macd (ncu: it decides whether the kernels' step
# accounting holds before anything else is tuned), then the device-resident table of every
# kernel and the scored sweeps (bench-catalog, each row bitwise checked first): these four
# caps fit one run of under 8 minutes. Then the staged kernels against the simple ones where
# they changed since the last GPU (bench-ab: the first step of the next call, or of the first
# with --only), CPU == GPU and the machine code (selftest, sass),
# the figures the other tables print (the runtime's planning, host memory, bandwidth and
# throughput, the catalog host-resident, sweeps and scores), the gpu suite, the sanitizers,
# and the variants last: the budget cuts from the end, and the plan names what it cut. Each
# entry is NAME:CAP.
steps=(gpu:30 ptx:5 ncu:200 bench-catalog:210 bench-ab:150 selftest:150 sass:60 balance:240
    host-memory:120 bench:180 profile-run:150 gpu-catalog:240 gpu-suite:300 memcheck:150
    racecheck:150 synccheck:120 initcheck:120 bench-variants:300 ncu-variants:200)

# A --cap replaces its step's default; a misspelt one is refused like a misspelt --only.
for cap_entry in "${caps[@]}"; do
    cap_name=${cap_entry%%:*} cap_seconds=${cap_entry#*:}
    case "$cap_seconds" in '' | *[!0-9]*) echo "gpu-check: --cap $cap_entry: STEP:SECONDS" >&2; exit 2 ;; esac
    [[ " ${steps[*]} " == *" $cap_name:"* ]] || { echo "gpu-check: --cap: no step $cap_name" >&2; exit 2; }
    for i in "${!steps[@]}"; do
        [ "${steps[$i]%%:*}" = "$cap_name" ] && steps[$i]=$cap_name:$cap_seconds
    done
done

# A misspelt --only would run nothing and pass: each name must be a step's.
for name in ${only//,/ }; do
    [[ " ${steps[*]} " == *" $name:"* ]] || {
        echo "gpu-check: --only: no step $name (steps: $(printf '%s ' "${steps[@]%%:*}"))" >&2
        exit 2
    }
done
if $simulated; then
    build_dir=${build_dir:-build-simgpu}
    $bundle_given || bundle="$build_dir/bundle"
fi
# The steps' sizes, in samples: the largest series (1e8: 800 MB in, 2.4 GB out for
# bollinger), the middle one, and the catalog's CSV series. On simulated GPUs every warp runs
# on the host, some 10^4 times slower, so a run there scales them all down.
big=100000000 mid=10000000 small=1000000
$simulated && big=1000000 mid=100000 small=10000
# The bench's sweep section has sizes of its own (1e6 bars): on simulated GPUs it would take
# the whole budget.
# and the selftest's default sizes end with a 1e6-sample series: kept, less that one.
sim_bench='' sim_sizes=''
$simulated && sim_bench=--no-sweeps sim_sizes=1,4095,4097,100003,3x50001

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

# Proves from the kernels' PTX that the machine code fuses nothing of ours: each kernel file
# is compiled to PTX for compute_90 by the build's own nvcc command (-ptx in place of its
# object), which must hold no floating-point fma/mad and no add, sub or mul without an
# explicit rounding mode (ptxas may contract only those; with .rn it never does). Every DFMA
# in the SASS then comes from ptxas's expansions of div.rn, rcp.rn and sqrt.rn, counted here
# for the SASS step (ptx-divsqrt in the bundle).
ptx_check() {
    local build=$1 out=$2 tmp kernel cmd total=0 kernels=0 divsqrt=0 n loose d
    tmp=$(mktemp -d)
    : >"$out"
    # Every CUDA file the library is built from (the catalog's and the scored kernels' too).
    for kernel in $(sed -n 's|^build runtime/libapportion[^ ]*/\([A-Za-z0-9_]*\)\.cu\.o:.*|\1|p' \
        "$build/build.ninja"); do
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
        loose=$(grep -cE '(^|[[:space:]])(add|sub|mul)(\.(sat|ftz))*\.f(32|64)([[:space:]]|$)' \
            "$tmp/$kernel.ptx")
        d=$(grep -cE '(^|[[:space:]])(div|rcp|sqrt)\.rn(\.[a-z0-9]+)*\.f64([[:space:]]|$)' \
            "$tmp/$kernel.ptx")
        echo "$kernel: $n floating-point fma/mad, $loose add/sub/mul without a rounding mode, $d div/rcp/sqrt.rn.f64 in $(grep -c '\.entry' "$tmp/$kernel.ptx") entry point(s)" >>"$out"
        total=$((total + n + loose))
        divsqrt=$((divsqrt + d))
        kernels=$((kernels + 1))
    done
    rm -rf "$tmp"
    echo "$divsqrt" >"$(dirname "$out")/ptx-divsqrt"
    echo "$total floating-point fma/mad or unrounded add/sub/mul in the PTX of $kernels kernel files" >>"$out"
    [ "$total" -eq 0 ] && [ "$kernels" -gt 0 ]
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
        # An nvcc object whose dependencies ninja never recorded (seen for two catalog
        # launchers: `ninja -t deps` gave "#deps 0") is not rebuilt when a header it includes
        # changes, and a bundle would run yesterday's kernels: such objects are removed first.
        ninja -C "$build" -t deps 2>/dev/null | awk '/\.cu\.o: #deps 0,/ { sub(/:$/, "", $1); print $1 }' |
            while read -r stale; do rm -f "$build/$stale"; done
        ninja -C "$build" cli/apportion "${gpu_suite_targets[@]}" bench/apo-bench-kernels \
            bench/apo-bench-host >/dev/null || {
            echo "gpu-check: the build failed" >&2
            return 1
        }
    fi
    for b in cli/apportion "${gpu_suite_targets[@]}" bench/apo-bench-kernels bench/apo-bench-host \
        runtime/libapportion.so; do
        [ -e "$build/$b" ] || { echo "gpu-check: $build/$b is not built" >&2; return 1; }
    done
    rm -rf "$bundle"
    mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/data"
    cp "$build/cli/apportion" "$build/bench/apo-bench-kernels" "$build/bench/apo-bench-host" \
        "$bundle/bin/"
    for b in "${gpu_suite_targets[@]}"; do
        cp "$build/$b" "$bundle/bin/"
    done
    name=$(readelf -d "$build/runtime/libapportion.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    cp -L "$build/runtime/libapportion.so" "$bundle/lib/${name:-libapportion.so}"
    cp tests/data/talib_close252.f64 "$bundle/data/"
    cp scripts/gpu-check.sh scripts/gpu_check_tables.py scripts/sass-loops.py "$bundle/"
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
    if $simulated; then
        # The simulated runtime lowers the kernels through the SIMT layer: no nvcc, no PTX.
        echo "simulated GPUs: the kernels are not compiled to PTX" >"$bundle/ptx-check.txt"
        echo "skip simulated GPUs: no PTX to check" >"$bundle/ptx-verdict"
    elif ptx_check "$build" "$bundle/ptx-check.txt"; then
        echo "pass $(tail -n 1 "$bundle/ptx-check.txt")" >"$bundle/ptx-verdict"
    else
        echo "FAIL $(tail -n 1 "$bundle/ptx-check.txt") (ptx-check.txt)" >"$bundle/ptx-verdict"
    fi
    echo "gpu-check: bundle $bundle: $(du -sh "$bundle" | cut -f1), $(find "$bundle/lib" -type f | wc -l) libraries; PTX: $(cat "$bundle/ptx-verdict")"
}

# The bundle as one xz archive of its folder (--pack): xz -9's window (64 MiB) spans the gpu
# suite's executables, which share the static library, so each after the first costs little.
pack_bundle() {
    local archive="$bundle.tar.xz"
    tar -C "$(dirname "$bundle")" -cf - "$(basename "$bundle")" | xz -9 -c >"$archive.part" &&
        mv "$archive.part" "$archive" || {
        rm -f "$archive.part"
        echo "gpu-check: packing $bundle failed" >&2
        return 1
    }
    echo "gpu-check: packed $archive: $(du -sh "$archive" | cut -f1) (the folder $(du -sh "$bundle" | cut -f1)); there: scripts/gpu-check.sh --bundle $archive"
}

# A packed bundle (FILE.tar.xz) is unpacked under TMPDIR, and its folder run. Python's tarfile
# takes over where the machine has no xz.
if [ -f "$bundle" ]; then
    case "$bundle" in *.tar.xz) ;; *) echo "gpu-check: --bundle $bundle: a folder or a .tar.xz" >&2; exit 2 ;; esac
    unpacked=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-bundle.XXXXXX") || exit 1
    if command -v xz >/dev/null; then
        tar -C "$unpacked" -xJf "$bundle"
    else
        python3 -m tarfile -e "$bundle" "$unpacked"
    fi || { echo "gpu-check: unpacking $bundle failed" >&2; exit 1; }
    bundle=$(find "$unpacked" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [ -f "$bundle/bin/apportion" ] || { echo "gpu-check: $unpacked holds no bundle" >&2; exit 1; }
    echo "gpu-check: unpacked into $bundle"
fi
if $bundle_only || [ ! -f "$bundle/bin/apportion" ]; then
    build_and_bundle || exit 1
    if $bundle_only; then
        $pack && { pack_bundle || exit 1; }
        exit 0
    fi
fi
# A copy may have lost the execute bits on its way to the GPU machine.
chmod u+x "$bundle"/bin/* 2>/dev/null

# ---- running the steps (on the GPU machine) --------------------------------------------------

bundle=$(cd "$bundle" && pwd)
bin=$bundle/bin
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
stamp=$(date -u +%Y%m%d-%H%M%S)
logs=${OUT:+$OUT/gpu-check}
logs=${logs:-$bundle/logs/$stamp}
mkdir -p "$logs"
# One archive of the logs folder, so that a lent machine's run comes back as one file.
archive=${OUT:-$(dirname "$logs")}/gpu-check-$stamp.tar.gz
work=$(mktemp -d)
# The summary (tables, verdicts, plan, archive) is written however the run ends: at the end,
# or when the device's time limit or a person stops it (the signal's trap exits, which runs
# this one).
running=false
# (summary is defined further down: a run that ends before its steps has nothing to sum up)
trap '! $running || summary; rm -rf "$work"' EXIT
step_pid=
trap 'stop_step; echo "gpu-check: stopped by a signal after $(elapsed)s"; exit 143' TERM INT HUP
# The step under way, when a signal ends the run: its commands (the children of its
# subshell: timeout passes the signal on to what it runs), then the subshell itself. It gets
# no verdict, so the plan names it.
stop_step() {
    [ -n "$step_pid" ] || return 0
    pkill -TERM -P "$step_pid" 2>/dev/null
    kill -TERM "$step_pid" 2>/dev/null
    wait "$step_pid" 2>/dev/null
}
# Profiles off and state in a sandbox: no step reads or writes the machine's own profiles
# (profile-run turns them on inside the sandbox).
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
# Only a step whose whole cap fits in what is left of the budget starts, so that no step is
# cut short by the budget: the others are "out of time", and planned for later calls with
# every wanted step the run did not reach (finished: names that got their verdict).
step_no=0
finished=" "
step() {
    local name=$1 cap=$2 left t0 rc detail log
    step_no=$((step_no + 1))
    wanted "$name" || return 0
    log=$(printf '%s/%02d-%s.log' "$logs" "$step_no" "$name")
    left=$((budget - $(elapsed) - 10))
    if [ "$cap" -gt "$left" ]; then
        verdict "$name" skip 0 "out of time (cap ${cap}s, ${left}s left of ${budget}s): planned"
        return 0
    fi
    : >"$work/detail"
    t0=$(date +%s)
    echo "gpu-check: $name (at most ${cap}s)..."
    # In the background and waited for, so that a signal reaches the trap at once (bash runs
    # traps only between foreground commands, and wait is one it interrupts).
    STEP_TIMEOUT=$cap "step_${name//-/_}" >"$log" 2>&1 &
    step_pid=$!
    wait "$step_pid"
    rc=$?
    step_pid=
    finished="$finished$name "
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

# scripts/gpu_check_tables.py (the bundle carries a copy): the summary tables and the
# profile-run verdict, read from the steps' JSON with python3's standard library.
tables() {
    local py=$src/scripts/gpu_check_tables.py
    [ -f "$py" ] || py=$bundle/gpu_check_tables.py
    if ! command -v python3 >/dev/null || [ ! -f "$py" ]; then
        echo "no python3 or no gpu_check_tables.py: the reports are in the logs"
        return 1
    fi
    python3 "$py" "$@"
}

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
    grep -q '^skip' "$bundle/ptx-verdict" && return 77
    grep -q '^pass' "$bundle/ptx-verdict"
}

# DFMA in the kernels' SASS. The PTX check proves none is a contraction of ours; this step
# reads the machine code ptxas made and sorts every DFMA: within 40 instructions after a
# MUFU.RCP64H or MUFU.RSQ64H (a division's or square root's Newton steps), a directed-rounding
# fix-up (.RM, .RP, .RZ: our code rounds to nearest only), or elsewhere (ptxas schedules a
# seed's steps far from it in the large kernels, and the slow paths share subroutines). It
# fails when the PTX proof is missing or failed, or when DFMA lie elsewhere while the PTX has
# no division or square root at all to explain them; the elsewhere list is kept for reading.
step_sass() {
    local cuobjdump divsqrt
    cuobjdump=$(tool cuobjdump) || { detail "cuobjdump not found"; return 77; }
    run "$cuobjdump" -sass "$bundle"/lib/libapportion.so.* >"$logs/sass.txt" || return 1
    divsqrt=$(cat "$bundle/ptx-divsqrt" 2>/dev/null)
    awk -v W=40 '
        /Function : / { fn = $NF; since = 1e9; fns++; next }
        /^[[:space:]]*\/\*[0-9a-f]+\*\// {
            since++
            if ($0 ~ /MUFU\.(RCP64H|RSQ64H)/) since = 0
            if ($0 ~ /[[:space:]]DFMA[.[:space:]]/) {
                total++
                if (since <= W) near++
                else if ($0 ~ /DFMA\.R[MPZ][[:space:]]/) directed++
                else { elsewhere++; print "DFMA elsewhere in " fn ": " $0 }
            }
        }
        END {
            printf "%d functions, %d DFMA: %d within %d instructions of a reciprocal or root seed, %d directed-rounding fix-ups, %d elsewhere\n", fns, total, near, W, directed, elsewhere
            exit fns == 0 ? 1 : (elsewhere > 0 ? 2 : 0)
        }' "$logs/sass.txt" >"$logs/sass-dfma.txt"
    local rc=$?
    cat "$logs/sass-dfma.txt"
    # What one trip of each loop of the staged kernels issues (a tile body's step is one):
    # sass-loops.txt, for docs/cuda.md's "The staged kernels' steps".
    local loops=$src/scripts/sass-loops.py
    [ -f "$loops" ] || loops=$bundle/sass-loops.py
    if command -v python3 >/dev/null && [ -f "$loops" ]; then
        python3 "$loops" "$logs/sass.txt" --kernel staged_kernel >"$logs/sass-loops.txt"
    fi
    if [ $rc -eq 2 ]; then
        if ! grep -q '^pass' "$bundle/ptx-verdict" 2>/dev/null; then
            detail "$(tail -n 1 "$logs/sass-dfma.txt"); no passed PTX check to attribute them"
            return 1
        fi
        case "$divsqrt" in '' | 0)
            detail "$(tail -n 1 "$logs/sass-dfma.txt"); the PTX has no div/rcp/sqrt.rn.f64 to explain them"
            return 1 ;;
        esac
        detail "$(tail -n 1 "$logs/sass-dfma.txt") (ptxas's expansions of the PTX's $divsqrt div/rcp/sqrt.rn.f64, which has no fma: sass-dfma.txt)"
        return 0
    fi
    detail "$(tail -n 1 "$logs/sass-dfma.txt")"
    return $rc
}

step_selftest() {
    APPORTION_USE_GPU=yes run "$bin/apportion" selftest ${sim_sizes:+--sizes "$sim_sizes"} \
        --json >"$logs/selftest.json"
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
        --max-size "$big" --gpu-sizes "$small,$mid,$big" --reps 3 --stream-reps 5 \
        ${sim_bench:+"$sim_bench"} --json "$logs/bench.json"
    local rc=$?
    detail "exit $rc; $(grep -E '^# total #wrong' "$logs"/*-bench.log | tail -n 1 | sed 's/^# //')"
    return $rc
}

# Issue 51's tables for the next GPU (bench/gpu_catalog.c, apo-bench-kernels --gpu-catalog):
# a device-resident row for every kernel of the library's list on one series of $big samples
# (bitwise against the cpu first; then GB/s and % of the GPU's measured d2d copy), then the
# scored sweeps on the GPU alone (rsi rsi_zone over 199 periods and macd macd_cross over 16 x 7,
# 500 series x 2,520 bars; host-resident) in set-bars per second. The bench stops starting
# rows 30 s before the cap and lists those it had no time for; a row whose one call a probe
# predicts above 2 s (obv's and ad's serial chains) says so and is left out.
step_bench_catalog() {
    local sim=()
    # Simulated GPUs run each warp on the host: a few series, and no call limit that their
    # speed would trip.
    $simulated && sim=(--gpu-sweep-rows 4 --gpu-call-limit 3600 --reps 3)
    [ -n "$only_kernels" ] && sim+=(--kernels "$only_kernels")
    run "$bin/apo-bench-kernels" --gpu-catalog --gpu-sizes "$big" \
        --gpu-seconds $((STEP_TIMEOUT > 60 ? STEP_TIMEOUT - 30 : 30)) "${sim[@]}" \
        --json "$logs/bench-catalog.json"
    local rc=$?
    detail "exit $rc; $(tables catalog-detail "$logs")"
    [ $rc -eq 0 ] && grep -q '^skipped' <<<"$(tables catalog-detail "$logs")" && return 77
    return $rc
}

# The staged kernels against the simple ones where they differ since the last GPU, in one
# library (APPORTION_CUDA_KERNELS, docs/env.md): the cut of the recurrences' tiles
# (kernels/cuda/cut.cu, docs/cuda.md "Lone tiles cut into pieces") against a thread a tile, and
# a lone set's fold in registers (kernels/scores/scored.cu) against the array of folds.
# apo-bench-kernels --gpu-catalog over the kernels the GPU cuts, at $small and $big samples,
# with its scored sweeps (rsi over 199 periods: a set a unit), under each variant, every row
# bitwise against the cpu first; bench-ab-<variant>.json, read by gpu_check_tables.py ("ab").
step_bench_ab() {
    have_gpu || { detail "no GPU: nothing to compare"; return 77; }
    local v rc=0 half=$((STEP_TIMEOUT / 2)) sim=()
    $simulated && sim=(--gpu-sweep-rows 4 --gpu-call-limit 3600)
    for v in simple staged; do
        APPORTION_CUDA_KERNELS=$v run "$bin/apo-bench-kernels" --gpu-catalog \
            --kernels rsi,atr,adx,dema,t3,trix --gpu-sizes "$small,$big" --reps 3 "${sim[@]}" \
            --gpu-seconds $((half > 40 ? half - 20 : 20)) --json "$logs/bench-ab-$v.json" \
            >"$logs/bench-ab-$v.txt" || rc=1
    done
    detail "exit $rc; $(tables ab "$logs")"
    return $rc
}

# The runtime's own planning on cuda,cpu: profiles on, in the sandbox's profile folder (the
# machine's own are never touched), `apportion profile`, then bollinger on the largest series
# with the stored profile. It fails unless the report has a GPU with a share and elements,
# no failover and no failed device. Then the same series on each device alone, for the table
# "CPU+GPU against each alone" (run-cuda.json, run-cpu.json; profiles off, as elsewhere).
step_profile_run() {
    local profiles=$work/profiles check rc
    mkdir -p "$profiles"
    APPORTION_PROFILES=on APPORTION_PROFILE_DIR=$profiles APPORTION_USE_GPU=yes run \
        "$bin/apportion" profile --devices cuda,cpu --kernels bollinger,macd --sample-size "$mid" ||
        { detail "apportion profile failed"; return 1; }
    mkdir -p "$logs/profiles"
    cp "$profiles"/* "$logs/profiles/" 2>/dev/null
    APPORTION_PROFILES=on APPORTION_PROFILE_DIR=$profiles APPORTION_USE_GPU=yes run \
        "$bin/apportion" run --kernel bollinger --rows 1 --cols "$big" --devices cuda,cpu \
        --json >"$logs/run-cuda-cpu.json" || { detail "bollinger $big on cuda,cpu failed"; return 1; }
    cat "$logs/run-cuda-cpu.json"
    check=$(tables check-run "$logs/run-cuda-cpu.json")
    rc=$?
    echo "$check"
    detail "bollinger $big on cuda,cpu: $check"
    APPORTION_USE_GPU=yes run "$bin/apportion" run --kernel bollinger --rows 1 --cols "$big" \
        --devices cuda --json >"$logs/run-cuda.json" || echo "(cuda alone failed)"
    run "$bin/apportion" run --kernel bollinger --rows 1 --cols "$big" --devices cpu \
        --json >"$logs/run-cpu.json" || echo "(cpu alone failed)"
    return $rc
}

# Balancing on silicon (docs/scheduling.md, "Configurations and the guard"): after a profile
# of both devices, bollinger and macd over one series of $small, $mid and $big samples in
# pageable memory, and the rsi sweep of 500 series x 2,520 bars x 199 periods, each on
# cuda,cpu, cuda and cpu, one process each (the first call's pinning included, as a
# scheduled job pays it). The table sets cuda,cpu against the better device alone: within 5%
# (10% for the sweep), and the report of each pair says why a device got no share. Arrays
# pinned by the caller (apo_cuda_host_register) need a program of their own: not run here.
# Most important first: the sweep, then the largest sizes; a case cut by the cap is missing
# from the table.
step_balance() {
    local profiles=$work/balance-profiles dir=$logs/balance k n dev name gpu
    mkdir -p "$profiles" "$dir"
    export APPORTION_PROFILES=on APPORTION_PROFILE_DIR=$profiles
    APPORTION_USE_GPU=yes run "$bin/apportion" profile --devices cuda,cpu \
        --kernels bollinger,macd --sample-size "$mid" ||
        { detail "apportion profile failed"; return 1; }
    # `apportion profile` cannot profile a scored kernel: the sweep's models come from an
    # earlier run of it, as a scheduled job's would (the first is not in the table).
    local sweep=(--kernel rsi --rows 500 --cols 2520 --param timeperiod=2:200:1 --score rsi_zone)
    APPORTION_USE_GPU=yes run "$bin/apportion" run "${sweep[@]}" --devices cuda,cpu --json \
        >"$dir/sweep-first.txt" || echo "(the first rsi sweep on cuda,cpu failed)"
    # Each case five times, the configurations interleaved, one process a run (as a scheduled
    # job makes them): a single call of a few milliseconds moved by 2.5x from one process to
    # the next on the same configuration (docs/perf-log/2026-11-26-h100-third-run.md), and
    # three runs still left medians of a 2 to 9 ms call 1.3 to 2.5 times apart on the same
    # configuration (docs/perf-log/2026-11-26-h200-third-visit.md), so the table compares
    # medians of five. Run r's reports are in balance/r/.
    local rep
    for rep in 1 2 3 4 5; do
        mkdir -p "$dir/$rep"
        for dev in cuda,cpu cuda cpu; do
            gpu=yes
            [ "$dev" = cpu ] && gpu=no
            APPORTION_USE_GPU=$gpu run "$bin/apportion" run "${sweep[@]}" --devices "$dev" \
                --json >"$dir/$rep/sweep-rsi-${dev/,/+}.json" || echo "(the rsi sweep on $dev failed)"
        done
        for n in $big $mid $small; do
            for k in bollinger macd; do
                for dev in cuda,cpu cuda cpu; do
                    name=$k-$n-${dev/,/+}
                    gpu=yes
                    [ "$dev" = cpu ] && gpu=no
                    APPORTION_USE_GPU=$gpu run "$bin/apportion" run --kernel "$k" --rows 1 \
                        --cols "$n" --devices "$dev" --json >"$dir/$rep/$name.json" ||
                        echo "($k $n on $dev failed)"
                done
            done
        done
    done
    tables balance "$logs" >"$work/balance.txt"
    local rc=$?
    cat "$work/balance.txt"
    detail "$(sed -n 's/^within target: //p' "$work/balance.txt") cases within their target; $(tail -n 1 "$work/balance.txt")"
    return $rc
}

# What the host's memory gives the devices that share it (apo-bench-host): the copy rate at 1,
# 4, 8 and all threads, the cost of registering 16 MiB, 128 MiB and 1 GiB of resident memory,
# and bollinger over $big samples on cuda from pageable and from registered arrays against
# the cpu alone: the figures the replayed GPU takes as given (runtime/devices/replay_figures.c
# names each; docs/scheduling.md, "A replayed H100"), to replace with these.
step_host_memory() {
    run "$bin/apo-bench-host" --runs 5 --samples "$big" --json "$logs/host-memory.json" ||
        { detail "apo-bench-host failed"; return 1; }
    detail "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["copies"][-1]; print("copy %.1f GB/s on %d threads; pinning %s ms/MiB; bollinger cuda registered %s ms" % (c["copy_gbs"], c["threads"], ",".join("%.3f" % p["ms_per_mib"] for p in d.get("pinning", [])) or "-", d.get("bollinger_cuda_registered_ms", "-")))' "$logs/host-memory.json" 2>/dev/null)"
}

# Every kernel of the catalog (`apportion kernels`), then sweeps and scores, on the GPU
# (`--devices cuda`) and on the cpu alone, outputs compared bit for bit (cmp): one line per
# kernel, sweep and score in catalog/verdicts.txt, each GPU report kept as catalog/K-cuda.json
# for the throughput table. A kernel of one input runs on a generated series of $mid samples;
# one of several (open, high, low, close, volume; x, y) reads a CSV of $small rows made here
# (the open the previous close, high and low beyond both). Scores
# run on cuda,cpu (the GPU scores its share of the series with kernels/scores/scored.cu, the
# cpu the rest; each line keeps the GPU's share) and on cuda alone (macd_cross over 100
# series). The step's one cap bounds every command together.
step_gpu_catalog() {
    local cat=$logs/catalog dir=$work/catalog csv t0 cap=$STEP_TIMEOUT rc=0 k nin name
    local -a input
    t0=$(date +%s)
    mkdir -p "$cat" "$dir"
    : >"$cat/verdicts.txt"
    "$bin/apportion" kernels --json >"$cat/kernels.json" || { detail "apportion kernels failed"; return 1; }
    csv=$dir/ohlcv.csv
    awk -v n="$small" 'BEGIN {
        srand(20261123); print "open,high,low,close,volume,x,y"; c = 100
        for (i = 0; i < n; i++) {
            o = c; c += rand() - 0.5; if (c < 1) c = 1
            hi = (o > c ? o : c) + rand(); lo = (o < c ? o : c) - rand() * 0.9
            printf "%.6f,%.6f,%.6f,%.6f,%d,%.6f,%.6f\n", o, hi, lo, c,
                1000 + int(rand() * 9000), c, 0.5 * c + rand()
        }
    }' >"$csv"
    # cpu_and_gpu NAME DEVICES ARGS...: the run on DEVICES and on cpu, compared; 0 equal.
    cpu_and_gpu() {
        local name=$1 devices=$2 f differ=''
        shift 2
        STEP_TIMEOUT=$((cap - ($(date +%s) - t0)))
        [ "$STEP_TIMEOUT" -gt 0 ] || return 124
        rm -rf "$dir/gpu" "$dir/cpu"
        APPORTION_USE_GPU=yes run "$bin/apportion" run "$@" --devices "$devices" --no-learn \
            --output "$dir/gpu" --json >"$cat/$name-cuda.json" ||
            { echo "$name failed on $devices" >>"$cat/verdicts.txt"; return 1; }
        STEP_TIMEOUT=$((cap - ($(date +%s) - t0)))
        [ "$STEP_TIMEOUT" -gt 0 ] || return 124
        run "$bin/apportion" run "$@" --devices cpu --no-learn --output "$dir/cpu" --json \
            >"$work/cpu.json" || { echo "$name failed on cpu" >>"$cat/verdicts.txt"; return 1; }
        for f in "$dir"/cpu/*; do
            cmp -s "$f" "$dir/gpu/${f##*/}" || differ="$differ ${f##*/}"
        done
        local took
        took=$(grep -A3 '"kind": "cuda"' "$cat/$name-cuda.json" | grep -o '"share": [0-9.e+-]*' |
            awk '{ s += $2 } END { printf "%.3f", s }')
        if [ -n "$differ" ]; then
            echo "$name DIFFER:$differ (GPU share $took)" >>"$cat/verdicts.txt"
            return 1
        fi
        echo "$name equal ($(find "$dir/cpu" -type f | wc -l) files; GPU share $took)" >>"$cat/verdicts.txt"
    }
    while read -r k nin whole; do
        [ -z "$only_kernels" ] || [[ ",$only_kernels," == *",$k,"* ]] || continue
        # A kernel whose halo is the whole row runs as one serial chain per row on a GPU
        # (seconds per million samples for the Hilbert transforms): a series of $small / 10
        # samples (a CSV of as many rows) keeps the step's cap for the other kernels.
        if [ "$nin" -eq 1 ]; then
            input=(--rows 1 --cols "$([ "$whole" = 1 ] && echo $((small / 10)) || echo "$mid")")
        elif [ "$whole" = 1 ]; then
            head -n $((small / 10 + 1)) "$csv" >"$dir/short.csv"
            input=(--input "$dir/short.csv")
        else
            input=(--input "$csv")
        fi
        # bootstrap's default of 1000 replicates is 1e10 random draws on 1e7 samples: the
        # bench's 16, as apo-bench-kernels runs it.
        [ "$k" = bootstrap ] && input+=(--param replicates=16)
        cpu_and_gpu "$k" cuda --kernel "$k" "${input[@]}"
        case $? in 0) ;; 124) rc=124; break ;; *) rc=1 ;; esac
    done < <("$bin/apportion" kernels | awk '/^[^ ]/ { k = $1 } /^  inputs/ { n[k] = NF - 1; order[++c] = k }
        /^  halo +the whole row/ { w[k] = 1 } END { for (i = 1; i <= c; i++) print order[i], n[order[i]], w[order[i]] + 0 }')
    # Sweeps: one series cut through by sets, and many series by a grid (sets.csv compared too).
    [ $rc -ne 124 ] && {
        cpu_and_gpu sweep-bollinger cuda --kernel bollinger --rows 1 --cols "$small" \
            --param period=10:200:10 || rc=$((rc == 0 ? $? : rc))
        cpu_and_gpu sweep-macd cuda --kernel macd --rows 100 --cols $((small / 100)) \
            --param fast=8,12 --param slow=20:40:10 --param signal=5,9 || rc=$((rc == 0 ? $? : rc))
        cpu_and_gpu score-bollinger cuda,cpu --kernel bollinger --rows 1 --cols "$small" \
            --param period=10:100:10 --param nbdev_up=1,2,3 --score bands_revert ||
            rc=$((rc == 0 ? $? : rc))
        cpu_and_gpu score-rsi cuda,cpu --kernel rsi --rows 1 --cols "$small" \
            --param timeperiod=5:50:5 --score rsi_zone || rc=$((rc == 0 ? $? : rc))
        cpu_and_gpu score-macd cuda --kernel macd --rows 100 --cols $((small / 100)) \
            --param fast=8,12 --score macd_cross || rc=$((rc == 0 ? $? : rc))
    }
    cat "$cat/verdicts.txt"
    detail "$(grep -c ' equal ' "$cat/verdicts.txt") of $(wc -l <"$cat/verdicts.txt") kernels, sweeps and scores bitwise equal on the GPU and the cpu$(
        grep -v ' equal ' "$cat/verdicts.txt" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/^./; not: &/')"
    return $rc
}

# compute-sanitizer on a small selftest: every GPU path of it, at sizes the tools can afford.
# The tools slow kernels a hundredfold and serialise them, so the deadlines are lifted (a
# deadline is for a hung device, not a slow tool) and the selftest's overlap checks, which
# measure concurrency the tool itself removes, do not count here: the selftest step has
# judged them without a tool. The verdict is the tool's (exit 3: it found errors) and every
# other check of the selftest.
sanitize() {
    local sanitizer rc others
    sanitizer=$(tool compute-sanitizer) || { detail "compute-sanitizer not found"; return 77; }
    APPORTION_USE_GPU=yes APPORTION_DEADLINE_FLOOR=604800 run "$sanitizer" --tool "$1" \
        --error-exitcode 3 "$bin/apportion" selftest --sizes 4097,3x5001 --gpu-memory-mb 4 \
        >"$work/sanitize.out"
    rc=$?
    cat "$work/sanitize.out"
    others=$(awk '/ FAIL / && $1 != "overlap" { print $1 " " $2 }' "$work/sanitize.out" |
        tr '\n' ',' | sed 's/,$//')
    local summary
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$work/sanitize.out" | tail -n 1 | sed 's/^=* *//')
    # Only where the overlap checks are what failed: a selftest that failed otherwise (no
    # runtime, a GPU that passed nothing) has no FAIL line to blame and fails here too.
    if [ $rc -eq 1 ] && [ -z "$others" ] && grep -q '^overlap .* FAIL ' "$work/sanitize.out"; then
        detail "exit 1 from overlap checks only (not judged under the tool); $summary"
        return 0
    fi
    detail "exit $rc; $summary${others:+; failed: $others}"
    return $rc
}
step_memcheck() { sanitize memcheck; }
step_racecheck() { sanitize racecheck; }
step_synccheck() { sanitize synccheck; }
step_initcheck() { sanitize initcheck; }

# Stall sampling of the staged bollinger and macd (issue 51: it decides whether the step
# accounting of docs/cuda.md, "Staged kernels", holds before anything else is tuned), and of
# bollinger's pairs of warps (APPORTION_CUDA_KERNELS=split): ncu on the first 2 launches of
# each kernel in a $mid-sample run on cuda, with the sections
# that sample warp states (WarpStateStats: stall reasons per issued instruction;
# SourceCounters: the PC sampling of stall reasons, per SASS instruction in the report) beside
# the speed of light and occupancy. Each report is kept (ncu-stalls-K.ncu-rep, for the
# source view; K is bollinger, macd or bollinger-split) and its raw page as CSV
# (ncu-stalls-K.csv), from which
# scripts/gpu_check_tables.py stalls prints each launch's sampled stall reasons, largest
# first, beside what docs/cuda.md predicted.
step_ncu() {
    local ncu k rc=0 cap=$STEP_TIMEOUT t0
    ncu=$(tool ncu) || { detail "ncu not found"; return 77; }
    have_gpu || { detail "no GPU: nothing to sample"; return 77; }
    t0=$(date +%s)
    # variant:kernel:function; bollinger's pairs of warps (split) are sampled as its third.
    local what v f name
    for what in staged:bollinger:apo__bollinger_staged staged:macd:apo__macd_staged \
        split:bollinger:apo__bollinger_split; do
        IFS=: read -r v k f <<<"$what"
        name=$k
        [ "$v" = staged ] || name=$k-$v
        # The step's one cap bounds all the kernels' commands together.
        STEP_TIMEOUT=$((cap - ($(date +%s) - t0)))
        [ "$STEP_TIMEOUT" -gt 5 ] || { rc=124; break; }
        rm -f "$logs/ncu-stalls-$name.ncu-rep"
        APPORTION_CUDA_KERNELS=$v APPORTION_USE_GPU=yes run "$ncu" \
            --kernel-name "regex:$f" --launch-count 2 --section SpeedOfLight \
            --section Occupancy --section WarpStateStats --section SourceCounters \
            --export "$logs/ncu-stalls-$name" "$bin/apportion" run --kernel $k --rows 1 \
            --cols "$mid" --devices cuda >"$work/ncu-$name.out" 2>&1 || rc=1
        cat "$work/ncu-$name.out"
        run "$ncu" --import "$logs/ncu-stalls-$name.ncu-rep" --csv --page raw \
            >"$logs/ncu-stalls-$name.csv" || rc=1
    done
    tables stalls "$logs" | tee "$work/stalls.txt"
    detail "exit $rc; $(sed -n 's/^summary: //p' "$work/stalls.txt" | cut -c1-400)"
    return $rc
}

# Does apportion see a GPU? The variant steps skip without one (a --force run here).
have_gpu() { "$bin/apportion" devices 2>/dev/null | grep -q '^GPUs usable: [1-9]'; }

# The kernel variants (APPORTION_CUDA_KERNELS=simple|staged|split, docs/cuda.md "Staged
# kernels"; split differs from staged in bollinger alone, docs/cuda.md "bollinger in pairs of
# warps") side by side: apo-bench-kernels' GPU section under each, bitwise checked first, then
# the device-resident rows of all in one table (bench-variants.txt).
step_bench_variants() {
    have_gpu || { detail "no GPU: nothing to compare"; return 77; }
    local v ks rc=0
    for v in simple staged split; do
        # split differs from staged in bollinger alone.
        ks=bollinger,macd,returns_stats,bootstrap
        [ "$v" = split ] && ks=bollinger
        APPORTION_CUDA_KERNELS=$v run "$bin/apo-bench-kernels" \
            --kernels "$ks" --max-size "$big" --gpu-sizes "$mid,$big" \
            --reps 3 --stream-reps 2 --gpu-warmup 0 --json "$logs/bench-$v.json" \
            >"$logs/bench-$v.txt" || rc=1
    done
    # The device-resident table of each run (bench/gpu.c): its title line "# device-resident
    # (...)", then its column names on a line of their own that also starts with "#"
    # ("# kernel samples reps time_ms(med) min_ms GB/s %d2d #wrong"), then one row per kernel
    # and size; a row that was skipped says "skipped:" in place of its figures. The next line
    # starting with "#" that is not that header ends the table. Kept: kernel, samples, then
    # median and min ms.
    for v in simple staged split; do
        awk -v v=$v '/^# device-resident/ { on = 1; next } on && /^# kernel/ { next }
            /^#/ { on = 0 }
            on && NF >= 5 && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9.]+$/ { print $1, $2, v, $4, $5 }' \
            "$logs/bench-$v.txt"
    done | sort -k1,1 -k2,2n -k3,3 >"$logs/bench-variants.txt"
    echo "kernel samples variant median_ms min_ms (device-resident)"
    cat "$logs/bench-variants.txt"
    if [ ! -s "$logs/bench-variants.txt" ]; then
        # No rows is no comparison, whatever the bench's exit status said.
        detail "exit $rc; no device-resident rows in bench-simple.txt, bench-staged.txt or bench-split.txt"
        return 1
    fi
    detail "exit $rc; $(awk '{ printf "%s %s %s %s ms; ", $1, $2, $3, $4 }' "$logs/bench-variants.txt" |
        head -c 400)"
    return $rc
}

# ncu on the three variants, each built-in kernel on a 1e7-sample series: achieved DRAM bandwidth
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
    for v in simple staged split; do
        for k in bollinger macd returns_stats bootstrap; do
            # split differs from staged in bollinger alone.
            [ "$v" = split ] && [ "$k" != bollinger ] && continue
            APPORTION_CUDA_KERNELS=$v APPORTION_USE_GPU=yes run "$ncu" --csv \
                --kernel-name regex:apo__ --launch-count 4 --metrics "$metrics" \
                "$bin/apportion" run --kernel $k --rows 1 --cols "$mid" --devices cuda \
                >"$logs/ncu-$v-$k.csv" || rc=1
        done
    done
    # One line per profiled launch: variant, kernel function, DRAM % of peak, time, and
    # sectors per request of each access kind.
    for v in simple staged split; do
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

# The wanted steps that got no verdict of their own, as calls of `--only` whose caps add up
# to no more than a budget each (a step alone above it gets a call with a budget of its own).
plan() {
    local entry name cap sum=0 group='' fit=$((budget - 20)) opts=''
    $simulated && opts=' --simulated'
    $bundle_given && opts="$opts --bundle $bundle"
    for entry in "${steps[@]}"; do
        name=${entry%%:*} cap=${entry##*:}
        wanted "$name" || continue
        [[ "$finished" == *" $name "* ]] && continue
        if [ -n "$group" ] && [ $((sum + cap)) -gt "$fit" ]; then
            plan_call "$opts" "$group" "$sum"
            group='' sum=0
        fi
        group=${group:+$group,}$name
        sum=$((sum + cap))
    done
    [ -z "$group" ] || plan_call "$opts" "$group" "$sum"
}
plan_call() { # OPTIONS STEPS CAPS
    local b=$budget
    [ "$3" -gt $((budget - 20)) ] && b=$(($3 + 20))
    [ "$b" -ne "$default_budget" ] && set -- "$1 --budget $b" "$2" "$3"
    echo "next call: scripts/gpu-check.sh$1 --only $2   (caps ${3}s)"
}

# Tables, verdicts, plan and archive, once, also when a signal ends the run.
summary_done=false
summary() {
    $summary_done || ! $running && return
    summary_done=true
    local planned
    echo
    tables tables "$logs" | tee "$logs/tables.txt"
    echo
    echo "gpu-check: $gpu_line; $(elapsed)s; logs in $logs"
    for line in "${verdicts[@]}"; do
        echo "$line"
    done
    printf '%s\n' "${verdicts[@]}" >"$logs/verdicts.txt"
    echo "$n_pass passed, $n_fail failed, $n_skip skipped"
    planned=$(plan)
    if [ -n "$planned" ]; then
        echo "$planned" | tee "$logs/plan.txt"
    else
        echo "every wanted step ran"
    fi
    if tar -czf "$archive" -C "$(dirname "$logs")" "$(basename "$logs")"; then
        echo "gpu-check: archive $archive ($(du -h "$archive" | cut -f1))"
    else
        echo "gpu-check: could not write the archive $archive; the logs are in $logs"
    fi
}

running=true
for entry in "${steps[@]}"; do
    step "${entry%%:*}" "${entry##*:}"
done
[ "$n_fail" -eq 0 ]

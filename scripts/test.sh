#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Ends with "N passed, N failed",
# counting Criterion's test cases (and each other test as one).
#
# The suites (tests/README.md): `unit` first, then all the others (`slow`, `gpu`, `mpi`,
# `python`); a sanitizer build runs them all at once. In a build without sanitizers the
# unit suite must stay within its CPU budget (scripts/cpu-budget.py, APO_UNIT_CPU_BUDGET
# seconds, default below): over it, the run counts one failure.
#
#   scripts/test.sh                 # release build in build/
#   scripts/test.sh --unit          # the unit suite only (what a developer runs often)
#   scripts/test.sh --werror        # warnings are errors
#   scripts/test.sh --sanitize      # AddressSanitizer (with LeakSanitizer) + UBSan build (no CUDA)
#   scripts/test.sh --tsan          # ThreadSanitizer build (no CUDA): the host threads
#   scripts/test.sh --fuzz [SECONDS]  # each libFuzzer target for SECONDS (default 60), clang
#                                   # build in build-fuzz/; a target passes without a finding
#   scripts/test.sh --simulated-gpus  # the CUDA backend on simulated GPUs (docs/cuda.md), in
#                                   # build-simgpu/: the gpu suite, which may not skip,
#                                   # `apportion selftest` and the Python device arrays
#   APO_BUILD_DIR=dir scripts/test.sh ...
#   APO_GPU_ARCHS=80,90 scripts/test.sh ...  # CUDA architectures (default: 80,90 where a GPU is
#                                   # visible, else the PTX of 90 alone, a compile check; below)
set -euo pipefail
cd "$(dirname "$0")/.."

werror=false
sanitize=none
fuzz_seconds=
unit_only=false
simulated_gpus=false
while [ $# -gt 0 ]; do
    case "$1" in
    --werror) werror=true ;;
    --unit) unit_only=true ;;
    --sanitize) sanitize=address,undefined ;;
    --tsan) sanitize=thread ;;
    --simulated-gpus) simulated_gpus=true ;;
    --fuzz)
        fuzz_seconds=60
        # An optional number of seconds follows (scripts/fuzz.sh checks it).
        if [ $# -gt 1 ] && [[ "$2" =~ ^[0-9]+$ ]]; then
            fuzz_seconds=$2
            shift
        fi
        ;;
    -h | --help)
        sed -n '2,22p' "$0"
        exit 0
        ;;
    *)
        echo "scripts/test.sh: unknown option $1" >&2
        exit 2
        ;;
    esac
    shift
done

if [ -n "$fuzz_seconds" ]; then
    werror_opt=()
    $werror && werror_opt=(--werror)
    exec bash scripts/fuzz.sh "${werror_opt[@]}" "$fuzz_seconds"
fi

bash scripts/deps.sh

# The simulated GPUs (docs/cuda.md, "A simulated CUDA runtime"): a build folder of its own,
# since the library it builds reports simulated GPUs, and only the suites that use them.
# APPORTION_USE_GPU=yes makes a gpu case fail rather than skip when no GPU comes up.
if $simulated_gpus; then
    build=${APO_BUILD_DIR:-build-simgpu}
    # The sse2 path alone (meson_options.txt, vector_paths): the backend, not the CPU kernels'
    # vector paths, is what this build tests; the werror build runs every path.
    opts=(-Dwerror=$werror -Dsimulated_gpus=true -Dnccl=disabled -Dtests=enabled -Dvector_paths=sse2)
    if [ -f "$build/build.ninja" ]; then
        meson configure "$build" "${opts[@]}" >/dev/null
    else
        meson setup "$build" "${opts[@]}" >/dev/null
    fi
    # The tool and the gpu suite's executables, as meson lists them (only those: the rest of
    # the build is the other modes' business).
    gpu_targets=$(meson introspect --tests "$build" | python3 -c '
import json, os, sys
build = os.path.realpath(sys.argv[1])
for t in json.load(sys.stdin):
    if "apportion:gpu" in t["suite"] and t["cmd"][0].startswith(build + "/"):
        print(os.path.relpath(t["cmd"][0], build))' "$build")
    # shellcheck disable=SC2086 # one target a word
    ninja -C "$build" cli/apportion $gpu_targets
    sandbox=$(mktemp -d)
    trap 'rm -rf "$sandbox"' EXIT
    mkdir "$sandbox/home" "$sandbox/state" "$sandbox/tmp"
    export HOME=$sandbox/home XDG_STATE_HOME=$sandbox/state TMPDIR=$sandbox/tmp
    # The gpu suite's large workloads (1e8 samples, 2^31 elements, 160 million replicates)
    # would take most of an hour on simulated GPUs: left out (docs/cuda.md).
    export APPORTION_USE_GPU=yes APPORTION_PROFILES=off APPORTION_GPU_SUITE_SMALL=1
    # Kernels on simulated GPUs run through the SIMT layer on the host, hundreds of times
    # slower than a GPU and slower still on a busy machine (bootstrap over 1e6 samples took
    # three minutes beside two builds): the deadlines that abandon a hung device
    # (docs/env.md, "Deadlines and quarantine": 60 s at least) would abandon a working one
    # here. An hour each.
    export APPORTION_DEADLINE_FLOOR=3600
    # Two tests at a time, as the other builds run theirs: gpu and gpu_resident, a minute
    # each, had run one after the other (the suite took 132 s here, 114.5 s two at a time).
    status=0
    meson test -C "$build" --print-errorlogs --no-rebuild --num-processes 2 --suite gpu \
        --logbase simgpu || status=$?
    extra=()
    # The selftest's shapes up to 300,007 samples rather than its default 1,000,003: through
    # the SIMT layer bootstrap over 1e6 samples took 17 to 18 s a check and the default run
    # 182 s of the stage (79 s so, on the same build); 300,007 still splits bollinger and
    # macd into two chunks, so the repeat check still runs a pipeline of several chunks.
    "$build/cli/apportion" selftest --sizes 1,4095,4097,100003,300007,3x50001 ||
        extra+=(--failed "apportion selftest on simulated GPUs")
    # The Python package's device arrays (python/tests/test_device_arrays.py, docs/python.md
    # "Device arrays") and its outputs from the pinned host pool (test_host_pool.py,
    # docs/host-pool.md) on these GPUs: the extension of this build beside the package's
    # modules in a folder of the sandbox, run by the Python meson found (the python test's
    # interpreter; "--skip" where the package is not built). Seconds beyond the extension.
    read -r py_exe py_ext < <(meson introspect --tests --targets "$build" | python3 -c '
import json, os, sys
info, build = json.load(sys.stdin), os.path.realpath(sys.argv[1])
exe = next((t["cmd"][1] for t in info["tests"] if t["name"] == "python"), "--skip")
ext = next((os.path.relpath(t["filename"][0], build) for t in info["targets"] if t["name"].startswith("_core")), "")
print(exe, ext or "-")' "$build") || true
    if [ -n "${py_ext:-}" ] && [ "$py_exe" != --skip ] && [ "$py_ext" != - ] &&
        ! "$py_exe" -c 'import numpy, pytest' 2>/dev/null; then
        echo "python device arrays on simulated GPUs skipped: $py_exe cannot import pytest (scripts/deps.sh)"
    elif [ -n "${py_ext:-}" ] && [ "$py_exe" != --skip ] && [ "$py_ext" != - ]; then
        ninja -C "$build" "$py_ext"
        mkdir -p "$sandbox/python/apportion"
        cp python/apportion/*.py "$build/$py_ext" "$sandbox/python/apportion/"
        (cd "$sandbox" && PYTHONPATH=$sandbox/python PYTHONDONTWRITEBYTECODE=1 "$py_exe" -m pytest \
            -p no:cacheprovider -q -rs "$OLDPWD/python/tests/test_device_arrays.py" \
            "$OLDPWD/python/tests/test_host_pool.py") ||
            extra+=(--failed "python/tests/test_device_arrays.py or test_host_pool.py on simulated GPUs")
    fi
    python3 scripts/count-results.py "${extra[@]}" "$build/meson-logs/simgpu.json" || status=1
    exit $status
fi

default_dir=build
[ "$sanitize" != none ] && default_dir=build-sanitize
[ "$sanitize" = thread ] && default_dir=build-tsan
build=${APO_BUILD_DIR:-$default_dir}

opts=(-Dwerror=$werror -Db_sanitize=$sanitize -Dtests=enabled)
if [ "$sanitize" != none ]; then
    # Sanitizer runtimes need the symbols resolved at run time, and debug info for reports.
    opts+=(-Db_lundef=false -Dbuildtype=debugoptimized)
fi
# TSan watches the host threads (worker pool, device threads, online refinement, profile
# writes); the CUDA backend's own threads are outside its view, so it is left out.
# No CUDA backend under the sanitizers: they instrument host code only, the backend's host code
# runs only with a GPU (or on simulated GPUs, --simulated-gpus), and the kernels' device code
# compiles for several minutes a build; the SIMT layer still runs every kernel source here.
[ "$sanitize" != none ] && opts+=(-Dcuda=disabled)
# The sanitizer builds compile the sse2 path alone (meson_options.txt, vector_paths), not the
# per-path files that are the tree's costliest compiles (tests/README.md, "The CI's clean-clone
# time"). TSan looks at the threads around the kernels, the same on every path, and leaves
# tests/kernels/ out. Under ASan+UBSan the avx2 and avx512 files took about 980 of the
# build's 2,430 CPU seconds (a clean clone's ninja log, 2026-11-28), in a stage of 2,610 s
# that had brought the CI past its limit; what ASan no longer sees is those paths' own lane
# code (4 and 8 lanes, their alignment phases), which the plain build runs bit for bit
# against the scalar bodies on every path the CPU has.
[ "$sanitize" != none ] && opts+=(-Dvector_paths=sse2)
# Nor the benches and the Python extension: no test of a sanitizer build runs a bench, and the
# Python suite runs in the plain build alone (python/meson.build), so instrumented they were
# compiled for nothing: about 190 of the ASan+UBSan build's 1,810 s of ninja step time and 36
# of TSan's 480 (a clean clone's ninja logs, 2026-11-29, three compiles at a time on two cores).
[ "$sanitize" != none ] && opts+=(-Dbenches=false -Dpython=disabled)
# Without a GPU to run them, the kernels' device code is compiled to check that it compiles
# (warnings are errors under --werror), not to be run: one architecture does that, and as PTX
# alone (-Dgpu_ptx_only, meson_options.txt), without ptxas, which took 45 of volume.cu's 57 s
# and 149 of oscillators.cu's 201 s even at -O0 (nvcc --time, this machine), and without
# NVVM's optimizer (-Dgpu_device_opt=false): the C++ front end, where the errors and warnings
# come from, still reads every line, and the optimizer had become 53 of volume.cu's 58 s
# (1.6 s without it; the PTX files' compiles took 707 of the werror build's 2,796 s of
# compile time in one clean clone's ninja log). The default list would compile it all a second
# time for sm_80 (in the ninja log of a clean 80,90 build here, nvcc took 5,623 of 7,479 s of
# compile time, the machine shared). With a GPU, the default list as optimized cubins, so
# that the gpu suite runs what users get. APO_GPU_ARCHS overrides the list.
if [ "$sanitize" = none ]; then
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        opts+=(-Dgpu_archs="${APO_GPU_ARCHS:-80,90}" -Dgpu_ptx_only=false -Dgpu_device_opt=true)
    else
        opts+=(-Dgpu_archs="${APO_GPU_ARCHS:-90}" -Dgpu_ptx_only=true -Dgpu_device_opt=false)
    fi
fi

if [ -f "$build/build.ninja" ]; then
    meson configure "$build" "${opts[@]}" >/dev/null
else
    meson setup "$build" "${opts[@]}" >/dev/null
fi
ninja -C "$build"

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
test_opts=()
if [ "$sanitize" = thread ]; then
    # libgomp is not built for TSan: its thread pool hands work over through futexes TSan
    # cannot see, so every OpenMP region after the first gives false reports. A thread
    # limit of 1 makes every OpenMP team the calling thread alone (same code, no libgomp
    # threads), so each report left is about threads TSan sees start and synchronise. The
    # OpenMP loop itself (disjoint tiles) is covered by the determinism tests of the other
    # builds.
    export OMP_THREAD_LIMIT=1
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
    # TSan runs programs 5 to 15 times slower.
    test_opts+=(--timeout-multiplier 3)
fi
# No test may read or write the state of the user running it (profiles above all): the
# tests run with a HOME and an XDG_STATE_HOME of their own, fresh and empty, and anything
# found in them afterwards fails the suite. They are left writable on purpose: a profile
# write that fails is only a warning, which a test would never see, and root writes into a
# read-only folder anyway; a write that lands is what the check below catches.
# TMPDIR is private and empty too: every temporary file or folder a test makes goes there
# (the tests take TMPDIR, as mktemp and Python's tempfile do), and anything a test leaves
# behind, an empty folder included, fails the suite rather than piling up in /tmp.
sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT
mkdir "$sandbox/home" "$sandbox/state" "$sandbox/tmp"
# Like /tmp: the tests that drop root for another user (test_hostile, test_profile_store)
# make folders there that the other user must reach.
chmod 0755 "$sandbox"
chmod 1777 "$sandbox/tmp"
# The unit suite's budget, in CPU seconds (tests/README.md, "The budget"): CPU time, not
# wall-clock time, so that a busy machine cannot make the suite fail it.
unit_budget=${APO_UNIT_CPU_BUDGET:-180}
logs=("$build/meson-logs/unit.json" "$build/meson-logs/others.json" "$build/meson-logs/all.json")
rm -f "${logs[@]}" "$sandbox/budget"
run_suites() {
    HOME=$sandbox/home XDG_STATE_HOME=$sandbox/state TMPDIR=$sandbox/tmp \
        meson test -C "$build" --print-errorlogs --no-rebuild --num-processes 2 "${test_opts[@]}" "$@"
}
status=0
if [ "$sanitize" = none ]; then
    python3 scripts/cpu-budget.py --budget "$unit_budget" --name "unit suite" \
        --verdict "$sandbox/budget" -- \
        env HOME="$sandbox/home" XDG_STATE_HOME="$sandbox/state" TMPDIR="$sandbox/tmp" \
        meson test -C "$build" --print-errorlogs --no-rebuild --num-processes 2 "${test_opts[@]}" \
        --suite unit --logbase unit || status=$?
    if ! $unit_only; then
        run_suites --no-suite unit --logbase others || status=$?
    fi
elif $unit_only; then
    # The sanitizers make programs 2 to 15 times slower: the budget is for the plain build.
    run_suites --suite unit --logbase unit || status=$?
else
    # Every suite in one run, the longest first (meson's priority): run as the unit suite
    # and then the others, each run ended on its last test alone while the other core idled.
    run_suites --logbase all || status=$?
fi

extra=()
written=$(cd "$sandbox" && find home state -mindepth 1 | head -n 20)
if [ -n "$written" ]; then
    echo "scripts/test.sh: tests wrote into HOME or XDG_STATE_HOME (a private folder here):" >&2
    echo "$written" | sed 's/^/  /' >&2
    extra+=(--failed "no test writes into HOME or XDG_STATE_HOME")
fi
if [ -f "$sandbox/budget" ] && grep -q '^over ' "$sandbox/budget"; then
    read -r _ used budget <"$sandbox/budget"
    extra+=(--failed "the unit suite within its CPU budget ($used s of $budget s)")
fi
left=$(cd "$sandbox" && find tmp -mindepth 1 -maxdepth 2 | head -n 20)
if [ -n "$left" ]; then
    echo "scripts/test.sh: tests left these in their TMPDIR (a private folder here):" >&2
    echo "$left" | sed 's/^/  /' >&2
    extra+=(--failed "no test leaves anything in TMPDIR")
fi
found_logs=()
for log in "${logs[@]}"; do
    [ -f "$log" ] && found_logs+=("$log")
done
python3 scripts/count-results.py "${extra[@]}" "${found_logs[@]}" || status=1
exit $status

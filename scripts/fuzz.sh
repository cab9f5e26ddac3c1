#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan, and runs each for a
# bounded time on a copy of its seed corpus, so that the tree is never modified. Each target
# counts as one test: it passes when the run ends without a crash, a sanitizer report, a
# broken invariant, a leak, a timeout or running out of memory. Ends with "N passed, N
# failed" like scripts/test.sh, which calls this for --fuzz.
#
#   scripts/fuzz.sh [--werror] [SECONDS] [TARGET ...]   # default: 60 s for every target
#   APO_BUILD_DIR=dir scripts/fuzz.sh ...                # default build folder: build-fuzz
#   APO_FUZZ_JOBS=N scripts/fuzz.sh ...                  # targets at once (default: the CPUs)
#
# A finding is kept as BUILD/fuzz-run/TARGET/crash-* (or leak-*, timeout-*, oom-*); replay
# it with BUILD/tests/fuzz/TARGET FILE. Fix the parser, add the input to the target's corpus
# and a regression test to the Criterion suite of that parser.
set -euo pipefail
cd "$(dirname "$0")/.."

werror=false
seconds=60
targets=()
for arg in "$@"; do
    case "$arg" in
    --werror) werror=true ;;
    -h | --help)
        sed -n '2,14p' "$0"
        exit 0
        ;;
    fuzz_*) targets+=("$arg") ;;
    *)
        if [[ ! "$arg" =~ ^[1-9][0-9]*$ ]]; then
            echo "scripts/fuzz.sh: unknown argument $arg (seconds are a positive integer)" >&2
            exit 2
        fi
        seconds=$arg
        ;;
    esac
done
if [ ${#targets[@]} -eq 0 ]; then
    for src in tests/fuzz/fuzz_*.c; do
        targets+=("$(basename "$src" .c)")
    done
fi
for t in "${targets[@]}"; do
    [ -f "tests/fuzz/$t.c" ] || {
        echo "scripts/fuzz.sh: no target $t in tests/fuzz" >&2
        exit 2
    }
done

bash scripts/deps.sh --fuzz

build=${APO_BUILD_DIR:-build-fuzz}
# The fuzz build is a folder of its own: clang (libFuzzer) instead of the project's gcc,
# every object instrumented, no CUDA (the parsers do not touch a device), and the CPU
# kernels' sse2 path alone (meson_options.txt, vector_paths: no target runs a kernel's path).
opts=(-Dwerror=$werror -Db_sanitize=address,undefined -Db_lundef=false
    -Dbuildtype=debugoptimized -Dcuda=disabled -Dtests=disabled -Dfuzz=enabled -Dvector_paths=sse2)
if [ -f "$build/build.ninja" ]; then
    meson configure "$build" "${opts[@]}" >/dev/null
else
    CC=clang meson setup "$build" "${opts[@]}" >/dev/null
fi
ninja -C "$build" "${targets[@]/#/tests/fuzz/}"

# Sanitizer reports stop the run (the build also uses -fno-sanitize-recover) and carry a
# symbolized stack; libFuzzer itself checks for leaks after each input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target's run; its verdict goes to $work/verdict, what it prints to $work/report.
# Targets run side by side, as many at once as the machine has CPUs (APO_FUZZ_JOBS
# overrides): each still gets its full SECONDS of fuzzing, on a core of its own, and the
# stage takes SECONDS per round of targets rather than per target.
fuzz_target() {
    local t=$1 work="$build/fuzz-run/$1"
    rm -rf "$work"
    mkdir -p "$work/corpus"
    cp tests/fuzz/corpus/"$t"/* "$work/corpus/"
    local seeds corpus runs findings rc=0
    seeds=$(find "$work/corpus" -type f | wc -l)
    local dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    # -close_fd_mask=3: the CLI parsers print usage errors, which would drown the log;
    # libFuzzer and the sanitizers keep a descriptor of their own for reports.
    "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -close_fd_mask=3 -print_final_stats=1 "${dict[@]}" -artifact_prefix="$work/" \
        "$work/corpus" >"$work/log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
    corpus=$(find "$work/corpus" -type f | wc -l)
    findings=$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    if [ "$rc" -eq 0 ] && [ "$findings" -eq 0 ]; then
        echo passed >"$work/verdict"
        echo "fuzz $t: passed, ${runs:-?} executions in ${seconds}s, corpus $seeds -> $corpus inputs" \
            >"$work/report"
    else
        echo failed >"$work/verdict"
        {
            echo "fuzz $t: FAILED (exit $rc), ${runs:-?} executions; log $work/log:"
            grep -E 'ERROR|SUMMARY|invariant|Test unit written|^    #[0-9]+ ' "$work/log" | head -n 40
        } >"$work/report"
    fi
}

jobs=${APO_FUZZ_JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
    fuzz_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true
passed=0
failed=0
for t in "${targets[@]}"; do
    work="$build/fuzz-run/$t"
    cat "$work/report" 2>/dev/null || echo "fuzz $t: FAILED (no report)"
    if [ "$(cat "$work/verdict" 2>/dev/null)" = passed ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]

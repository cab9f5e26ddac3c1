#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Ends with "N passed, N failed",
# counting Criterion's test cases (and each other test as one).
#
#   scripts/test.sh                 # release build in build/
#   scripts/test.sh --werror        # warnings are errors
#   scripts/test.sh --sanitize      # AddressSanitizer + UndefinedBehaviorSanitizer build
#   scripts/test.sh --fuzz [SECONDS]  # each libFuzzer target for SECONDS (default 60), clang
#                                   # build in build-fuzz/; a target passes without a finding
#   APO_BUILD_DIR=dir scripts/test.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."

werror=false
sanitize=none
fuzz_seconds=
while [ $# -gt 0 ]; do
    case "$1" in
    --werror) werror=true ;;
    --sanitize) sanitize=address,undefined ;;
    --fuzz)
        fuzz_seconds=60
        # An optional number of seconds follows (scripts/fuzz.sh checks it).
        if [ $# -gt 1 ] && [[ "$2" =~ ^[0-9]+$ ]]; then
            fuzz_seconds=$2
            shift
        fi
        ;;
    -h | --help)
        sed -n '2,10p' "$0"
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

default_dir=build
[ "$sanitize" != none ] && default_dir=build-sanitize
build=${APO_BUILD_DIR:-$default_dir}

opts=(-Dwerror=$werror -Db_sanitize=$sanitize -Dtests=enabled)
if [ "$sanitize" != none ]; then
    # Sanitizer runtimes need the symbols resolved at run time, and debug info for reports.
    opts+=(-Db_lundef=false -Dbuildtype=debugoptimized)
fi

if [ -f "$build/build.ninja" ]; then
    meson configure "$build" "${opts[@]}" >/dev/null
else
    meson setup "$build" "${opts[@]}" >/dev/null
fi
ninja -C "$build"

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
status=0
meson test -C "$build" --print-errorlogs --no-rebuild --num-processes 2 || status=$?

python3 scripts/count-results.py "$build/meson-logs/testlog.json" || status=1
exit $status

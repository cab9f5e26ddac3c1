#!/usr/bin/env bash
# Fails when a C or CUDA source or header differs from what clang-format (.clang-format)
# makes of it.
#   scripts/check-format.sh          # check
#   scripts/check-format.sh --fix    # rewrite in place
#
# Only the files clang-format must see are given to it: the C and CUDA sources git tracks.
# They go to clang-format in batches, as many batches at once as there are cores, so that the
# check takes seconds on a quiet machine. The meson test that runs it (`format`) has a timeout
# of minutes, not seconds: a check of formatting must never fail because the machine is busy
# (docs/robustness.md). scripts/check-timeouts.py keeps every test's limit generous.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
    echo "check-format: clang-format not installed" >&2
    exit 77
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null ||
    find . \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) -not -path './build*')
[ ${#files[@]} -gt 0 ] || exit 0
jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" = --fix ]; then
    printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P "$jobs" clang-format -i
    exit 0
fi
# clang-format names each file that needs formatting in its diagnostics ("FILE:LINE:COL:
# error: code should be clang-formatted"); xargs exits non-zero when any batch did.
report=$(mktemp)
trap 'rm -f "$report"' EXIT
status=0
printf '%s\0' "${files[@]}" |
    xargs -0 -n 16 -P "$jobs" clang-format --dry-run -Werror 2>"$report" >/dev/null || status=$?
if [ $status -ne 0 ]; then
    named=$(grep -o '^[^:[:space:]]*:[0-9]*:[0-9]*: error: code should be clang-formatted' "$report" |
        cut -d: -f1 | sort -u)
    if [ -n "$named" ]; then
        echo "$named" | sed 's/^/needs formatting: /; s/$/ (run scripts\/check-format.sh --fix)/'
    else
        # clang-format failed for another reason (a file it cannot read, a bad .clang-format).
        cat "$report" >&2
    fi
    exit 1
fi
exit 0

#!/usr/bin/env bash
# Fails when a C source or header differs from what clang-format (.clang-format) makes of it.
#   scripts/check-format.sh          # check
#   scripts/check-format.sh --fix    # rewrite in place
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
    echo "check-format: clang-format not installed" >&2
    exit 77
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = --fix ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
bad=0
for f in "${files[@]}"; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "needs formatting: $f (run scripts/check-format.sh --fix)"
        bad=1
    fi
done
exit $bad

#!/usr/bin/env bash
# Runs apo-bench-busy (the default cpu device against one thread, bollinger over 1e6 bars)
# while two niced loops compile one large generated C file with gcc -O3, the load of
# docs/PERF.md, "The cpu device on a busy machine". Both loops and the generated file are
# removed on exit, also on failure and Ctrl-C. Extra arguments go to the bench.
#
#   scripts/busy-bench.sh [BUILD_DIR] [--rounds N] [--calls N] [--size N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    build=$1
    shift
fi
bench=$build/bench/apo-bench-busy
[ -x "$bench" ] || { echo "scripts/busy-bench.sh: $bench not built" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
        pkill -P "$p" 2>/dev/null || true # the gcc the loop was running
    done
    for p in "${pids[@]}"; do
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A large C file: 3000 small functions with loops for the optimiser (about 5 s at -O3 here).
{
    for i in $(seq 3000); do
        printf 'double f%d(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * %d.0 / (1.0 + x[i]); return s; }\n' "$i" "$i"
    done
} >"$work/big.c"
for l in 1 2; do
    nice -n 10 bash -c "while :; do gcc -O3 -c '$work/big.c' -o '$work/big$l.o'; done" &
    pids+=($!)
done
echo "# load: two loops of nice -n 10 gcc -O3 -c big.c (3000 functions)"
sleep 2
"$bench" "$@"

#!/usr/bin/env bash
# Runs apo-bench-busy (the default cpu device against one thread, bollinger over 1e6 bars)
# while two niced loops compile one large generated C file with gcc -O3, the load of
# docs/perf-log/2026-11-23-busy-machine.md, "The cpu device on a busy machine". Both loops and the generated file are
# removed on exit, also on failure and Ctrl-C. Extra arguments go to the bench.
#
#   scripts/busy-bench.sh [BUILD_DIR] [--own-sessions] [--settle S] [--rounds N] [--calls N]
#                         [--size N]
#
# --own-sessions starts each loop in a session of its own (setsid), as a compile started
# from another terminal runs. With the kernel's autogroup scheduling (Linux's default on
# desktops and on this machine: /proc/sys/kernel/sched_autogroup_enabled), each session is
# a group that gets an equal share of the CPUs, and `nice` only orders the threads inside
# a group: the loops then take two thirds of the machine whatever their nice value. Without
# it the loops share the bench's session, and nice makes them yield to it.
#
# --settle S: seconds between starting the loops and starting the bench (default 2). The
# machine's processor pressure, which the cpu device reads as the runtime opens it
# (docs/scheduling.md, "A machine busy from the start"), is a 10-second average: after 2 s
# it reads a few percent, after 6 s well over the device's threshold.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    build=$1
    shift
fi
own_sessions=0
if [ "${1:-}" = --own-sessions ]; then
    own_sessions=1
    shift
fi
settle=2
if [ "${1:-}" = --settle ]; then
    settle=${2:?--settle needs seconds}
    shift 2
fi
bench=$build/bench/apo-bench-busy
[ -x "$bench" ] || { echo "scripts/busy-bench.sh: $bench not built" >&2; exit 2; }

work=$(mktemp -d)
pids=()
# Kills a process and all its descendants, children first listed, so that no gcc, cc1 or
# as of a loop outlives the folder it writes into.
kill_tree() {
    local child
    for child in $(pgrep -P "$1" 2>/dev/null); do
        kill_tree "$child"
    done
    kill "$1" 2>/dev/null || true
}
cleanup() {
    for p in "${pids[@]}"; do
        kill -STOP "$p" 2>/dev/null || true # no new gcc while the tree is taken down
        kill_tree "$p"
        kill -CONT "$p" 2>/dev/null || true
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
    loop="while :; do gcc -O3 -c '$work/big.c' -o '$work/big$l.o'; done"
    if [ "$own_sessions" = 1 ]; then
        setsid nice -n 10 bash -c "$loop" &
    else
        nice -n 10 bash -c "$loop" &
    fi
    pids+=($!)
done
sessions=$([ "$own_sessions" = 1 ] && echo "each in a session of its own" || echo "in this session")
echo "# load: two loops of nice -n 10 gcc -O3 -c big.c (3000 functions), $sessions; the bench starts $settle s after them"
sleep "$settle"
echo "# processor pressure at the bench's start: $(grep '^some' /proc/pressure/cpu 2>/dev/null || echo none)"
"$bench" "$@"

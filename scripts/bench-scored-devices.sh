#!/usr/bin/env bash
# Scored sweeps at a strategy team's size on each device list, to see where a GPU pays
# (docs/perf-log/2026-11-25-h100-first-run.md, "First run on a GPU"): rsi, bollinger and macd over 500 series of 2520 bars
# (ten years of daily bars) and 112 to 199 parameter sets, one score per set, on `cuda`,
# `cpu` and `cuda,cpu`, each twice, in turn. Prints one line per run (the first piece's
# makespan and shares, as the report gives them; compute_ms of every piece) and whether the
# scores of the three device lists are equal.
#
#   scripts/bench-scored-devices.sh [--bin DIR] [--lib DIR] [--rows N] [--profile]
#
#   --bin DIR    where `apportion` is (default build/cli; a gpu-check bundle: BUNDLE/bin)
#   --lib DIR    prepended to LD_LIBRARY_PATH (a bundle: BUNDLE/lib)
#   --rows N     series per sweep (default 500)
#   --profile    first `apportion profile --devices cuda,cpu` of the three kernels, and run
#                with profiles on (in this script's own folder); without it profiles are off
#                and cuda,cpu splits equally
#
# Profiles, HOME and XDG_STATE_HOME live in a temporary folder: the user's are never read or
# written. Needs python3 (standard library) to read the reports.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

bin=build/cli lib= rows=500 profile=false
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin=${2:?--bin needs a folder}; shift ;;
    --lib) lib=${2:?--lib needs a folder}; shift ;;
    --rows) rows=${2:?--rows needs a number}; shift ;;
    --profile) profile=true ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "bench-scored-devices: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$rows" in '' | *[!0-9]*) echo "bench-scored-devices: --rows takes a whole number" >&2; exit 2 ;; esac
apportion=$(cd "$bin" 2>/dev/null && pwd)/apportion
[ -x "$apportion" ] || { echo "bench-scored-devices: no apportion in $bin" >&2; exit 2; }
[ -n "$lib" ] && export LD_LIBRARY_PATH=$(cd "$lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/state APPORTION_PROFILE_DIR=$work/profiles
mkdir -p "$HOME" "$XDG_STATE_HOME" "$APPORTION_PROFILE_DIR"
if $profile; then
    export APPORTION_PROFILES=on
    "$apportion" profile --devices cuda,cpu --kernels rsi,bollinger,macd ||
        { echo "bench-scored-devices: apportion profile failed" >&2; exit 1; }
else
    export APPORTION_PROFILES=off
fi
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -n), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); rows $rows, cols 2520; profiles $APPORTION_PROFILES"

report() { # FILE NAME DEVICES REP
    python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
# Each device: its share and wall, and for a GPU its kernels' time and chunks (one chunk for a
# piece's sets is one launch: docs/cuda.md, "Scored sweeps on a GPU").
devs = ' '.join('%s=%.3f/%.1fms%s' % (d['id'][:12], d['share'], d['wall_ms'],
                                      ' (kernels %.1fms in %d chunks)' % (d['kernel_ms'], d['chunks'])
                                      if d['kind'] == 'cuda' else '') for d in r['devices'])
print('%-10s %-9s rep %s  sets %4d pieces %d  makespan_ms(first piece) %8.1f  compute_ms(all) %8.1f  %s' % (
    sys.argv[2], sys.argv[3], sys.argv[4], r['sets'], r['pieces'], r['makespan_ms'],
    r['compute_ms'], devs))
PY
}
same_scores() {
    python3 - "$@" <<'PY'
import json, sys
s = [json.dumps(json.load(open(f))['scores'], sort_keys=True) for f in sys.argv[1:]]
print('  scores equal on cuda, cpu and cuda,cpu:', 'yes' if s[0] == s[1] == s[2] else 'NO')
sys.exit(0 if s[0] == s[1] == s[2] else 1)
PY
}

rc=0
sweep() { # NAME ARGS...
    local name=$1 rep d f
    shift
    for rep in 1 2; do
        for d in cuda cpu cuda,cpu; do
            f=$work/$name-$d-$rep.json
            if ! "$apportion" run "$@" --rows "$rows" --cols 2520 --devices "$d" --json >"$f" \
                2>"$work/err"; then
                echo "$name on $d failed: $(tail -n 2 "$work/err")"
                rc=1
                continue 2
            fi
            report "$f" "$name" "$d" "$rep"
        done
        same_scores "$work/$name-cuda-$rep.json" "$work/$name-cpu-$rep.json" \
            "$work/$name-cuda,cpu-$rep.json" || rc=1
    done
}
sweep rsi --kernel rsi --param timeperiod=2:200:1 --score rsi_zone
sweep bollinger --kernel bollinger --param period=10:200:5 --param nbdev_up=1,2,3 \
    --score bands_revert
sweep macd --kernel macd --param fast=5:20:1 --param slow=26:50:4 --score macd_cross
exit $rc

#!/usr/bin/env bash
# A 20-period bollinger sweep over a CSV of ROWS bars (default 1,000,000) in one process,
# against the same 20 periods run as 20 separate invocations: the command line's figure of
# docs/perf-log/2026-11-22-sweeps.md ("A sweep from the command line").
#
#   scripts/bench-cli-sweep.sh [--build DIR] [--rows N] [--rounds N] [--keep]
#   (defaults: build, 1000000, 5 rounds; --keep leaves the temporary folder in place)
#
# It writes a CSV with a date column and a close column (a seeded random walk) into a
# temporary folder, then, round by round, times
#   apportion run --kernel bollinger --input F --column close --param period=10:200:10 --output D1
# and the 20 runs `--param period=P --output D2/pP` (P = 10, 20, ..., 200), alternating
# which goes first, and prints each round's times, the medians and the ratio. Before any
# timing, every set's block of the sweep's files is checked to be byte-identical to its
# separate run's file (exit 1 otherwise).
#
# The runs keep their profiles in the temporary folder (HOME and XDG_STATE_HOME point
# there), never in the user's: the separate invocations read and write a profile as a
# user's runs would. The machine's load (uptime) is printed at the start and the end.
set -euo pipefail

build=build
rows=1000000
rounds=5
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-cli-sweep.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

cli=$(cd "$build" && pwd)/cli/apportion
if [ ! -x "$cli" ]; then
    echo "bench-cli-sweep.sh: $cli not found: build first (ninja -C $build)" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/apo-cli-sweep.XXXXXX")
if [ "$keep" = 0 ]; then
    trap 'rm -rf "$tmp"' EXIT
else
    echo "# keeping $tmp"
fi
export HOME=$tmp/home XDG_STATE_HOME=$tmp/home/.local/state
mkdir -p "$XDG_STATE_HOME"
unset APPORTION_DEVICES APPORTION_PROFILES || true

csv=$tmp/bars.csv
python3 - "$csv" "$rows" <<'EOF'
import datetime, random, sys
path, rows = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261122)
t = datetime.datetime(2020, 1, 1, 9, 30)
step = datetime.timedelta(minutes=1)
price = 100.0
with open(path, "w") as f:
    f.write("date,close\n")
    lines = []
    for i in range(rows):
        price *= 1.0 + (rng.random() - 0.5) * 1e-3
        lines.append(f"{(t + i * step).isoformat(sep=' ', timespec='minutes')},{price:.4f}\n")
        if len(lines) == 65536:
            f.writelines(lines)
            lines = []
    f.writelines(lines)
EOF
periods=$(seq 10 10 200)
n_sets=$(echo "$periods" | wc -l)

# A run's messages (the "no GPU" warning) go to a log, shown when a run fails.
run() {
    "$cli" run "$@" >/dev/null 2>"$tmp/stderr.log" || {
        echo "bench-cli-sweep.sh: apportion run $* failed:" >&2
        cat "$tmp/stderr.log" >&2
        return 1
    }
}
sweep() {
    rm -rf "$tmp/d1"
    run --kernel bollinger --input "$csv" --column close --param period=10:200:10 \
        --output "$tmp/d1"
}
separate() {
    rm -rf "$tmp/d2"
    for p in $periods; do
        run --kernel bollinger --input "$csv" --column close --param "period=$p" \
            --output "$tmp/d2/p$p" || return 1
    done
}
seconds() { # the wall time of "$@", in seconds
    local t0 t1
    t0=$(date +%s.%N)
    "$@" || return 1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}

echo "# $("$cli" --version 2>/dev/null | head -1): bollinger," \
    "$n_sets periods (10:200:10) over $rows bars of CSV ($(du -h "$csv" | cut -f1))"
echo "# load at the start: $(uptime)"

# Correctness, before any timing (and the warm-up of both).
sweep
separate
python3 - "$tmp" "$n_sets" <<'EOF'
import sys
tmp, n = sys.argv[1], int(sys.argv[2])
wrong = 0
for name in ("upper", "middle", "lower"):
    whole = open(f"{tmp}/d1/{name}.f64", "rb").read()
    block = len(whole) // n
    for s in range(n):
        one = open(f"{tmp}/d2/p{10 * (s + 1)}/{name}.f64", "rb").read()
        if whole[s * block:(s + 1) * block] != one:
            print(f"# MISMATCH: {name}, set {s} (period {10 * (s + 1)})")
            wrong += 1
if wrong:
    sys.exit(1)
print(f"# check: every set's block of the sweep's files equals its separate run's, byte for byte")
EOF

printf '%-6s %12s %14s\n' "# round" "sweep_s" "separate_s"
sw=()
sep=()
for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) = 1 ]; then
        a=$(seconds sweep) || exit 1
        b=$(seconds separate) || exit 1
    else
        b=$(seconds separate) || exit 1
        a=$(seconds sweep) || exit 1
    fi
    sw+=("$a")
    sep+=("$b")
    printf '%-6s %12.3f %14.3f\n' "$r" "$a" "$b"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_sw=$(median "${sw[@]}")
m_sep=$(median "${sep[@]}")
printf '# median: one sweep %.3f s, %d separate runs %.3f s: the sweep is %.1fx faster\n' \
    "$m_sw" "$n_sets" "$m_sep" "$(echo "$m_sep / $m_sw" | bc -l)"
echo "# load at the end: $(uptime)"

#!/usr/bin/env bash
# Renders the balancing figures of docs/PERF.md from a fresh apo-bench-balance run:
#   docs/img/balance_efficiency.png  efficiency call by call of the equal, profiled and online
#                                    strategies, for rates-1-2-8 and for slowdown
#   docs/img/timeline.png            per-device busy and waiting time in the last call of
#                                    rates-1-2-8, equal split against the profiled one
# Installs gnuplot through scripts/deps.sh when it is missing, builds when needed (APO_BUILD_DIR picks
# the build folder, default build/). Only the simulated scenarios run: they are on the
# virtual clock, so the figures are exact and the same on every machine.
#
#   scripts/plots.sh --real-clock CSV
# draws docs/img/balance_real_clock.png instead, from the --csv file of the run of record of
# `apo-bench-balance --real-clock` (wall-clock figures differ from run to run, so the plot is
# drawn from the run that docs/PERF.md quotes rather than from a new one).
#
#   scripts/plots.sh --cluster DIR
# draws docs/img/cluster_shares.png, rank 1's share call by call, balanced against the best
# static split, from the CSVs that `scripts/cluster-bench.sh --out DIR` kept of the run of
# record (cluster-A.csv ... cluster-D.csv), for the same reason.
set -euo pipefail
cd "$(dirname "$0")/.."

real_clock_csv=
if [ "${1:-}" = "--real-clock" ]; then
    real_clock_csv=${2:?--real-clock needs the CSV of apo-bench-balance --real-clock}
    [ -r "$real_clock_csv" ] || { echo "scripts/plots.sh: cannot read $real_clock_csv" >&2; exit 1; }
fi
cluster_dir=
if [ "${1:-}" = "--cluster" ]; then
    cluster_dir=${2:?--cluster needs the folder of scripts/cluster-bench.sh --out}
    ls "$cluster_dir"/cluster-*.csv >/dev/null 2>&1 ||
        { echo "scripts/plots.sh: no cluster-*.csv in $cluster_dir" >&2; exit 1; }
fi

# gnuplot is one of the project's dependencies: scripts/deps.sh installs what is missing.
command -v gnuplot >/dev/null 2>&1 || bash scripts/deps.sh

if [ -n "$cluster_dir" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    n=0
    plots=
    for csv in "$cluster_dir"/cluster-*.csv; do
        n=$((n + 1))
        name=$(basename "$csv" .csv)
        name=${name#cluster-}
        # call, rank 1's balanced share, its static share, and the share its quota q alone would
        # give it beside rank 0 at a whole core, q / (1 + q) (the MPI round trip left out).
        awk -F, 'NR > 1 { split($8, s, "/"); split($9, t, "/"); split($2, w, "/")
                          print $1, s[2], t[2], w[2] / (1 + w[2]) }' "$csv" >"$tmp/$name.dat"
        plots="$plots
set title \"scenario $name\"
plot \"$tmp/$name.dat\" using 1:2 title \"balanced by the runtime\" pt 7 ps 0.7, \\
     \"$tmp/$name.dat\" using 1:3 title \"best static split\" with steps lw 2 dt 2, \\
     \"$tmp/$name.dat\" using 1:4 title \"by quota, q / (1 + q)\" with steps lc rgb \"gray50\""
    done
    mkdir -p docs/img
    gnuplot <<EOF
set terminal pngcairo noenhanced size $((n * 330 + 60)),400 font "sans,10"
set output "docs/img/cluster_shares.png"
set multiplot layout 1,$n title "scripts/cluster-bench.sh: rank 1's share of each call (wall clock, loaded 2-core VM)"
set yrange [0:0.7]
set ylabel "rank 1's share"
set xlabel "call"
set grid
set key top right
set style data linespoints
$plots
unset multiplot
EOF
    echo "scripts/plots.sh: wrote docs/img/cluster_shares.png"
    exit 0
fi

if [ -n "$real_clock_csv" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # One data file per scenario and strategy: call, efficiency.
    scenarios=$(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$real_clock_csv")
    n=0
    plots=
    for scenario in $scenarios; do
        n=$((n + 1))
        for strategy in from-equal from-profile; do
            awk -F, -v s="$scenario" -v t="$strategy" 'NR > 1 && $1 == s && $2 == t { print $3, $5 }' \
                "$real_clock_csv" >"$tmp/$scenario-$strategy.dat"
        done
        plots="$plots
set title \"$scenario\"
plot \"$tmp/$scenario-from-equal.dat\" title \"from equal\" pt 7 ps 0.8, \\
     \"$tmp/$scenario-from-profile.dat\" title \"from a profile\" pt 5 ps 0.8, \\
     0.93 title \"target 0.93\" with lines dt 2 lc rgb \"gray40\""
    done
    mkdir -p docs/img
    gnuplot <<EOF
set terminal pngcairo noenhanced size $((n * 330 + 60)),400 font "sans,10"
set output "docs/img/balance_real_clock.png"
set multiplot layout 1,$n title "apo-bench-balance --real-clock: balance efficiency call by call (wall clock)"
set yrange [0.4:1.0]
set xrange [0.5:20.5]
set ylabel "balance efficiency"
set xlabel "call"
set grid
set key bottom right
set style data linespoints
$plots
unset multiplot
EOF
    echo "scripts/plots.sh: wrote docs/img/balance_real_clock.png"
    exit 0
fi

build=${APO_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
    bash scripts/deps.sh
    meson setup "$build" >/dev/null
fi
# Up to date in a moment when nothing changed; rebuilt when the library or the bench did.
ninja -C "$build" bench/apo-bench-balance >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The bench's exit status says whether every output was right; a missed target is only
# reported. A wrong output must not become a pretty picture.
"$build/bench/apo-bench-balance" --scenarios rates-1-2-8,slowdown \
    --csv "$tmp/calls.csv" --timeline "$tmp/timeline.csv" >"$tmp/bench.txt"

# One data file per scenario and strategy: call, efficiency.
for scenario in rates-1-2-8 slowdown; do
    for strategy in equal profiled online; do
        awk -F, -v s="$scenario" -v t="$strategy" \
            'NR > 1 && $1 == s && $2 == t { print $4, $6 }' "$tmp/calls.csv" \
            >"$tmp/$scenario-$strategy.dat"
    done
done

# Keys carry what the 0.5 .. 1.0 axis would hide: a strategy whose efficiency stays below it.
# The equal split is drawn wide underneath, so that a strategy on the same line (profiled in
# slowdown: both split 1:1 there) stays visible on top of it.
key() { # scenario strategy
    awk -v name="$2" '{ if (NR == 1 || $2 < min) min = $2; if (NR == 1 || $2 > max) max = $2 }
        END { if (max < 0.5) printf "%s (%.2f, below the axis)", name, max
              else if (min < 0.5) printf "%s (lowest %.2f, below the axis)", name, min
              else print name }' "$tmp/$1-$2.dat"
}
# The first slowed call of the online series, from the bench's table (re-reach column N@S).
slow_call=$(awk '$1 == "slowdown" && $2 == "online" { split($9, a, "@"); print a[2] }' \
    "$tmp/bench.txt")
slow_call=${slow_call:-11}

mkdir -p docs/img
gnuplot <<EOF
set terminal pngcairo noenhanced size 1200,480 font "sans,10"
set output "docs/img/balance_efficiency.png"
set multiplot layout 1,2 title "apo-bench-balance: balance efficiency call by call (virtual clock, returns_stats, 4e6 samples)"
set yrange [0.5:1.0]
set ylabel "balance efficiency"
set xlabel "call"
set grid
set key bottom right
set style data linespoints
set title "rates-1-2-8: sims at 1e8, 2e8, 8e8 elements/s"
set xrange [0.5:*]
plot "$tmp/rates-1-2-8-equal.dat" title "$(key rates-1-2-8 equal)" pt 7 ps 1.2 lw 4, \
     "$tmp/rates-1-2-8-profiled.dat" title "$(key rates-1-2-8 profiled)" pt 5 ps 0.6, \
     "$tmp/rates-1-2-8-online.dat" title "$(key rates-1-2-8 online)" pt 9 ps 0.8
set title "slowdown: sim:b halves its rate from its call $slow_call"
set arrow 1 from $slow_call, graph 0 to $slow_call, graph 1 nohead dt 2 lc rgb "gray40"
plot "$tmp/slowdown-equal.dat" title "$(key slowdown equal)" pt 7 ps 1.2 lw 4, \
     "$tmp/slowdown-profiled.dat" title "$(key slowdown profiled)" pt 5 ps 0.6, \
     "$tmp/slowdown-online.dat" title "$(key slowdown online)" pt 9 ps 0.8
unset multiplot
EOF

# Timeline bars: one row per device, busy from the call's start, then waiting for the
# slowest. boxxyerror takes x y xlow xhigh ylow yhigh.
# The equal split's devices at the bottom, the profiled ones above them after a gap of one.
n_dev=$(awk -F, 'NR > 1 && $1 == "equal"' "$tmp/timeline.csv" | wc -l)
awk -F, -v gap="$((n_dev + 1))" 'NR > 1 {
        y = ($1 == "equal" ? 0 : gap) + (++n[$1])
        printf "%s %d %s %.6f %.6f %.6f\n", $1, y, $2, $3, $3 + $4, $3 + $4 + $5
    }' "$tmp/timeline.csv" >"$tmp/timeline.dat"
xmax=$(awk '{ if ($6 > m) m = $6 } END { print m * 1.05 }' "$tmp/timeline.dat")
ytics=$(awk '{ printf "%s\"%s %s\" %d", (NR > 1 ? ", " : ""), $1, $3, $2 }' "$tmp/timeline.dat")

gnuplot <<EOF
set terminal pngcairo noenhanced size 1000,420 font "sans,10"
set output "docs/img/timeline.png"
set title "rates-1-2-8, last call: per-device busy and waiting time (virtual clock, 4e6 samples)"
set xlabel "time since the call started (ms)"
set xrange [0:$xmax]
set yrange [0:$((2 * n_dev + 2))]
set ytics ($ytics)
set grid xtics
set key outside right top
set style fill solid 0.8 border -1
plot "$tmp/timeline.dat" using (((\$4)+(\$5))/2):2:4:5:(\$2-0.35):(\$2+0.35) with boxxyerror lc rgb "#1f77b4" title "busy", \
     "$tmp/timeline.dat" using (((\$5)+(\$6))/2):2:5:6:(\$2-0.35):(\$2+0.35) with boxxyerror lc rgb "#dddddd" title "waiting"
EOF

echo "scripts/plots.sh: wrote docs/img/balance_efficiency.png and docs/img/timeline.png"

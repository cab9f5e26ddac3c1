#!/usr/bin/env bash
# Prints the SHA-256 of every output of a fixed set of runs: every built-in kernel, on the
# cpu alone and on cpu and simulated devices with several ratios, split by rows and by time.
# A change that must not move a bit (a refactor, a new code path that claims the same
# arithmetic) is checked by comparing this script's output before and after it.
#
#   scripts/output-hashes.sh [BUILD_DIR]      # default build/
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tool=$build/cli/apportion
[ -x "$tool" ] || { echo "scripts/output-hashes.sh: $tool not built" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export APPORTION_PROFILES=off XDG_STATE_HOME=$work/state HOME=$work/home
export APPORTION_LOG=off

kernels=(bollinger macd returns_stats bootstrap)
shapes=("--rows 1 --cols 100003" "--rows 7 --cols 20011")
setups=(
    "--devices cpu"
    "--devices cpu,sim:a:rate=1e9,sim:b:rate=3e8 --ratios cpu=0.5,sim:a=0.3,sim:b=0.2 --split rows"
    "--devices cpu,sim:a:rate=1e9,sim:b:rate=3e8 --ratios cpu=0.2,sim:a=0.7,sim:b=0.1 --split time"
)
for k in "${kernels[@]}"; do
    for shape in "${shapes[@]}"; do
        for setup in "${setups[@]}"; do
            out=$work/out
            rm -rf "$out"
            # shellcheck disable=SC2086
            "$tool" run --kernel "$k" $shape --seed 7 $setup --output "$out" >/dev/null
            for f in "$out"/*.f64; do
                printf '%s  %s | %s | %s | %s\n' "$(sha256sum <"$f" | cut -c1-16)" \
                    "$k" "$shape" "$setup" "$(basename "$f")"
            done
        done
    done
done

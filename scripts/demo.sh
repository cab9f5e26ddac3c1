#!/usr/bin/env bash
# Installs what is missing, builds, shows this machine's devices, runs the sample workloads
# across them and prints the reports. Then runs the same work on simulated devices of
# different speeds, and with one of them failing mid-run, to show the split and the
# failover, and checks that every run gave the same bits.
#
# The profile step writes this machine's models to the user's profile folder
# (~/.local/state/apportion/ unless APPORTION_PROFILE_DIR says otherwise), as a
# scheduled re-profiling job would; the runs after it are split by those models. Runs on
# simulated devices keep their models in a scratch folder instead: a simulated device is
# no device of this machine, and the user's profile must not list one.
set -euo pipefail
cd "$(dirname "$0")/.."

# Headings in bold on a terminal only: escape codes in a log file are noise.
if [ -t 1 ]; then
    step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
    step() { printf '\n== %s\n' "$*"; }
fi

step "Checking what the build needs (scripts/deps.sh)"
bash scripts/deps.sh
build=${APO_BUILD_DIR:-build}
# meson and ninja print their progress: the first build takes a minute or more.
if [ ! -f "$build/build.ninja" ]; then
    step "Setting up the build folder $build (meson)"
    meson setup "$build"
fi
step "Building (ninja; the first build takes a minute or more)"
ninja -C "$build"
apo="$build/cli/apportion"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

step "Devices on this machine"
"$apo" devices
# Without a GPU the line above said why; the runs below keep to the CPU by name, so that
# they do not say it again, each of them.
gpus=$("$apo" devices --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["gpu_count"])')
if [ "$gpus" -eq 0 ]; then
    echo "No GPU is usable here (why: above), so the runs below use the CPU: APPORTION_DEVICES=cpu."
    export APPORTION_DEVICES=cpu
fi

step "Profiling this machine's devices (bollinger and macd; skipped while younger than 1 day)"
"$apo" profile --kernels bollinger,macd --if-older-than 1d
"$apo" show

for kernel in bollinger macd returns_stats; do
    step "$kernel on 1000 x 10000 samples, this machine's devices"
    "$apo" run --kernel "$kernel" --rows 1000 --cols 10000 --seed 7 --output "$out/$kernel-local"
done
step "bootstrap: 1000 replicates of the mean return of 10 series of 10000 samples"
"$apo" run --kernel bootstrap --rows 10 --cols 10000 --param replicates=1000 --seed 7 \
    --output "$out/bootstrap-local"

# The simulated devices the user's profile lists now (left by earlier runs, not this demo's):
# the check at the end counts only those the runs below would add.
"$apo" show --json | python3 scripts/profile-sims.py list >"$out/sims-before"

# Every run with a simulated device below stores what it learns in a scratch folder.
sim_profiles="$out/sim-profiles"
sims="cpu,sim:fast:rate=300M:latency=1ms,sim:slow:rate=100M"
step "bollinger on one series of 4M samples: cpu beside two simulated devices, ratios 4:3:1"
APPORTION_PROFILE_DIR="$sim_profiles" "$apo" run --kernel bollinger --rows 1 --cols 4000000 \
    --seed 7 --devices "$sims" --ratios cpu=4,sim:fast=3,sim:slow=1 --output "$out/split"

step "The same, with a failure planted in sim:fast: it fails on purpose after its first task"
# fail_after=2 makes the simulated device fail from its second task on (docs/env.md):
# the FAILED line in the table below is this demo's doing, expected, and no fault of this
# machine.
echo "sim:fast is set up to fail (fail_after=2): expect its line to say FAILED, and its tiles"
echo "to move to cpu and sim:slow, with the outputs still bitwise those of the cpu alone."
APPORTION_PROFILE_DIR="$sim_profiles" "$apo" run --kernel bollinger --rows 1 --cols 4000000 \
    --seed 7 --devices "cpu,sim:fast:rate=300M:latency=1ms:fail_after=2,sim:slow:rate=100M" \
    --ratios cpu=4,sim:fast=3,sim:slow=1 --output "$out/failover"
echo "(The FAILED line above is the planted failure of the simulated sim:fast: nothing is wrong.)"

step "bollinger on one series of 4M samples, the cpu alone"
"$apo" run --kernel bollinger --rows 1 --cols 4000000 --seed 7 --devices cpu --output "$out/cpu"

step "Online refinement: five runs on simulated devices of rates 1:2:8 from an equal start"
# Each run stores what it measured (in a folder of its own here) and the next one starts
# from it.
for call in 1 2 3 4 5; do
    APPORTION_SIM_CLOCK=virtual APPORTION_PROFILE_DIR="$out/online" "$apo" run --kernel returns_stats \
        --rows 1 --cols 4000000 --seed 7 \
        --devices "sim:a:rate=100M,sim:b:rate=200M,sim:c:rate=800M" --json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("source %-7s efficiency %.3f shares %s" % (r["ratio_source"], r["balance_efficiency"], " ".join("%.3f" % d["share"] for d in r["devices"])))'
done

step "Determinism: the three runs above wrote the same bits"
for f in upper middle lower; do
    cmp "$out/cpu/$f.f64" "$out/split/$f.f64"
    cmp "$out/cpu/$f.f64" "$out/failover/$f.f64"
    echo "$f.f64: identical on cpu, on cpu+2 sims, and after a device failure"
done

# The user's profile holds this machine's devices only: the simulated runs above kept theirs
# in the scratch folder. Only what this demo's runs would have added counts: simulated
# devices a profile held before (an earlier release's examples) are reported, not failed on.
"$apo" show --json | python3 scripts/profile-sims.py new "$out/sims-before" ||
    { echo "scripts/demo.sh: the runs on simulated devices wrote into the profile"; exit 1; }
echo
echo "The tool is $apo; 'meson install -C $build' (as root) puts apportion on the PATH and the"
echo "library where programs built with pkg-config find it (README.md, Building by hand)."

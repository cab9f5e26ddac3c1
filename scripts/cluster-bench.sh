#!/usr/bin/env bash
# Runs apo-bench-balance --rank-series on two MPI ranks of unequal speed on this one
# machine (docs/perf-log/2026-11-23-ranks-unequal-speed.md, "Ranks of unequal speed"): rank 0 pinned to core 0 at full speed,
# rank 1 pinned to core 1 under a cgroup (v1) cpu quota, and, in the scenarios that cut or
# raise it, its quota rewritten while the series runs.
#
#   A  rank 1 at 30% of core 1
#   B  rank 1 at 60% of core 1
#   C  rank 1 at 100%, cut to 30% after call CUT (default 10)
#   D  rank 1 at 1% (the models starve it), raised to 100% after call RAISE (default 12)
#   N  not in the default list: rank 1 in a network namespace of its own, joined to rank 0
#      by a veth link that MPI's TCP transport uses; the link is deleted after call LINKCUT
#      (default 8). Rank 0 must give rank 1 up after APPORTION_MPI_TIMEOUT (5 s here) and
#      finish every call alone, with the same bits. A job whose end then hangs (rank 1 never
#      hears rank 0's goodbye) is ended by the script once rank 0 has printed everything,
#      and said so.
#
# Needs root and the cgroup v1 cpu and cpuset controllers (N: network namespaces); without
# them it says why and exits 77 (skipped). Everything it makes (the cgroups, the namespace,
# its veth link and the processes in it, a temporary folder with the weights file, Open
# MPI's session folder and the ranks' HOME, XDG_STATE_HOME and TMPDIR) is removed on exit,
# also on failure and Ctrl-C; the ranks' profile files are off. Figures decide
# nothing here: the bench prints them and whether each target was met.
#
#   scripts/cluster-bench.sh [BUILD_DIR] [--scenarios A,B,C,D,N] [--calls N] [--size N]
#                            [--kernel K]    # default bollinger, one series
#                            [--out DIR]     # keep each scenario's output and CSV in DIR
set -euo pipefail

# The wrapper each rank starts through (mpirun runs it, not a user): joins the two cgroups
# named, then becomes the bench, so that the quota applies to the rank and its threads.
if [ "${1:-}" = --enter ]; then
    cg=$2
    shift 3 # --enter CGROUP --
    echo $$ >"/sys/fs/cgroup/cpuset/$cg/cgroup.procs"
    echo $$ >"/sys/fs/cgroup/cpu/$cg/cgroup.procs"
    exec "$@"
fi
# The remote shell mpirun uses to start its daemon on the "host" that is the namespace, as
# ssh would on another machine: NAMESPACE HOST COMMAND... (the command is one shell line).
if [ "${1:-}" = --agent ]; then
    ns=$2
    shift 3 # --agent NAMESPACE HOST
    exec ip netns exec "$ns" /bin/sh -c "$*"
fi

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
    build=$1
    shift
fi
scenarios=A,B,C,D
calls=30
size=1e7
kernel=bollinger
out=
while [ $# -gt 0 ]; do
    case "$1" in
    --scenarios) scenarios=$2; shift ;;
    --calls) calls=$2; shift ;;
    --size) size=$2; shift ;;
    --kernel) kernel=$2; shift ;;
    --out) out=$2; shift ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "scripts/cluster-bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

skip() {
    echo "scripts/cluster-bench.sh: skipped: $*" >&2
    exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (it makes cgroups and sets their cpu quotas)"
if [ ! -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] || [ ! -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
    skip "needs the cgroup v1 cpu and cpuset controllers under /sys/fs/cgroup"
fi
[ "$(nproc --all)" -ge 2 ] || skip "needs two cores (one per rank)"
command -v mpirun >/dev/null || skip "needs mpirun (scripts/deps.sh installs Open MPI)"
bench=$build/bench/apo-bench-balance
[ -x "$bench" ] || { echo "scripts/cluster-bench.sh: $bench not built" >&2; exit 2; }
if [ -n "$out" ]; then
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
fi

work=$(mktemp -d)
groups=()
netns=
mpirun_pid=
# Ends the job: SIGTERM first (mpirun then ends its ranks), SIGKILL after 10 s, because an
# mpirun whose daemon sits behind a deleted link waits for it for ever (seen here).
# shellcheck disable=SC2317 # also run by the EXIT trap
stop_mpirun() {
    [ -n "$mpirun_pid" ] || return 0
    kill "$mpirun_pid" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$mpirun_pid" 2>/dev/null || break
        sleep 0.2
    done
    kill -9 "$mpirun_pid" 2>/dev/null || true
    wait "$mpirun_pid" 2>/dev/null || true
    mpirun_pid=
}
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    # The job first, then anything of ours still in our namespace and cgroups, by id, so
    # that they are empty and can go.
    stop_mpirun
    # The daemon and the rank that mpirun started in the namespace: they outlive mpirun
    # when the link to them is gone.
    if [ -n "$netns" ]; then
        for p in $(ip netns pids "$netns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip link del "acb$$h" 2>/dev/null || true
        ip netns del "$netns" 2>/dev/null || echo "scripts/cluster-bench.sh: could not remove netns $netns" >&2
    fi
    for g in "${groups[@]}"; do
        for c in cpu cpuset; do
            [ -d "/sys/fs/cgroup/$c/$g" ] || continue
            while read -r p; do kill -9 "$p" 2>/dev/null || true; done \
                <"/sys/fs/cgroup/$c/$g/cgroup.procs"
        done
    done
    for g in "${groups[@]}"; do
        for c in cpu cpuset; do
            d=/sys/fs/cgroup/$c/$g
            for _ in 1 2 3 4 5 6 7 8 9 10; do
                [ -d "$d" ] || break
                rmdir "$d" 2>/dev/null && break
                sleep 0.2 # a killed task leaves its cgroup a moment after the signal
            done
            [ ! -d "$d" ] || echo "scripts/cluster-bench.sh: could not remove $d" >&2
        done
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One cgroup per rank in both controllers: a cpuset of one core, and a cpu quota.
make_group() { # name core
    local g=apo-cluster-bench-$$-$1
    mkdir "/sys/fs/cgroup/cpu/$g" "/sys/fs/cgroup/cpuset/$g"
    groups+=("$g")
    cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset/$g/cpuset.mems"
    echo "$2" >"/sys/fs/cgroup/cpuset/$g/cpuset.cpus"
}
# Rank 1's quota in percent of one core, and the weights file the bench reads before each
# call (written whole, then renamed, so the bench never reads half of it). The quota is
# written first: the first call that sees the new weight runs wholly under the new quota.
set_speed() { # percent
    local g=/sys/fs/cgroup/cpu/apo-cluster-bench-$$-r1 period=10000
    # The kernel's smallest quota is 1 ms: 1% needs a period of 100 ms.
    [ "$1" -lt 10 ] && period=100000
    echo -1 >"$g/cpu.cfs_quota_us"
    echo "$period" >"$g/cpu.cfs_period_us"
    [ "$1" -ge 100 ] || echo $((period * $1 / 100)) >"$g/cpu.cfs_quota_us"
    printf '1 %s\n' "$(awk -v p="$1" 'BEGIN { printf "%.2f", p / 100 }')" >"$work/weights.new"
    mv "$work/weights.new" "$work/weights"
}
make_group r0 0
make_group r1 1
mkdir "$work/home" "$work/state" "$work/tmp"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run_scenario() { # name start_percent [change_after_call new_percent]
    local name=$1 dir=${out:-$work}
    set_speed "$2"
    local csv=$dir/cluster-$name.csv txt=$dir/cluster-$name.txt
    rm -f "$csv"
    local env=(-x APPORTION_DEVICES=cpu:threads=1 -x APPORTION_PROFILES=off
        -x HOME="$work/home" -x XDG_STATE_HOME="$work/state" -x TMPDIR="$work/tmp")
    local args=(--rank-series "$calls" --size "$size" --machine-kernel "$kernel" --csv "$csv" --weights "$work/weights")
    echo "# scenario $name: rank 0 core 0 at 100%, rank 1 core 1 at $2%${3:+, then $4% after call $3}; uptime: $(uptime)"
    # --bind-to none: the cpusets pin the ranks; mpirun's own binding would fight them.
    TMPDIR=$work/tmp mpirun --bind-to none --oversubscribe \
        -np 1 "${env[@]}" bash "$self" --enter "apo-cluster-bench-$$-r0" -- "$bench" "${args[@]}" \
        : -np 1 "${env[@]}" bash "$self" --enter "apo-cluster-bench-$$-r1" -- "$bench" "${args[@]}" \
        >"$txt" 2>&1 &
    mpirun_pid=$!
    if [ $# -ge 4 ]; then
        # The CSV gets one row per call, flushed: after the header and $3 rows, change.
        while kill -0 "$mpirun_pid" 2>/dev/null; do
            if [ -f "$csv" ] && [ "$(wc -l <"$csv")" -gt "$3" ]; then
                set_speed "$4"
                break
            fi
            sleep 0.05
        done
    fi
    local rc=0
    wait "$mpirun_pid" || rc=$?
    mpirun_pid=
    cat "$txt"
    echo "# scenario $name: exit status $rc; uptime: $(uptime)"
    return "$rc"
}

# Scenario N: rank 0 here, rank 1 in a namespace of its own behind a veth link, two "hosts"
# to mpirun, so that the ranks' messages go over TCP on that link rather than through shared
# memory; the link is deleted after call $1.
run_link_cut() { # cut_after_call
    if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
        echo "# scenario N: skipped: no network namespaces (ip netns) here"
        return 0
    fi
    local net=10.213.$(($$ % 250)) dir=${out:-$work} timeout_s=5
    netns=apo-cluster-bench-$$
    ip netns add "$netns"
    ip link add "acb$$h" type veth peer name "acb$$n"
    ip link set "acb$$n" netns "$netns"
    ip addr add "$net.1/24" dev "acb$$h"
    ip link set "acb$$h" up
    ip netns exec "$netns" ip addr add "$net.2/24" dev "acb$$n"
    ip netns exec "$netns" ip link set "acb$$n" up
    ip netns exec "$netns" ip link set lo up
    printf '%s slots=1\n%s slots=1\n' "$net.1" "$net.2" >"$work/hosts"
    local csv=$dir/cluster-N.csv txt=$dir/cluster-N.txt
    rm -f "$csv"
    echo "# scenario N: rank 1 in netns $netns over veth ($net.0/24, MPI over TCP), the link deleted after call $1; uptime: $(uptime)"
    TMPDIR=$work/tmp mpirun --hostfile "$work/hosts" -np 2 --bind-to none \
        --mca plm_rsh_agent "$self --agent $netns" \
        --mca oob_tcp_if_include "$net.0/24" --mca btl tcp,self --mca btl_tcp_if_include "$net.0/24" \
        -x APPORTION_DEVICES=cpu:threads=1 -x APPORTION_PROFILES=off -x APPORTION_MPI_TIMEOUT=$timeout_s \
        -x HOME="$work/home" -x XDG_STATE_HOME="$work/state" -x TMPDIR="$work/tmp" \
        "$bench" --rank-series "$calls" --size "$size" --machine-kernel "$kernel" --csv "$csv" \
        >"$txt" 2>&1 &
    mpirun_pid=$!
    local t0=$SECONDS cut_at='' done_at='' ended=exited
    while kill -0 "$mpirun_pid" 2>/dev/null; do
        if [ -z "$cut_at" ] && [ -f "$csv" ] && [ "$(wc -l <"$csv")" -gt "$1" ]; then
            ip link del "acb$$h" # both ends go
            cut_at=$((SECONDS - t0))
        fi
        # Rank 0 has printed its last line: the job has this long to end by itself (rank 0
        # gives a rank it gave up one more timeout at its exit).
        if [ -z "$done_at" ] && grep -q '^# load at the end' "$txt"; then
            done_at=$SECONDS
        fi
        if [ -n "$done_at" ] && [ $((SECONDS - done_at)) -gt $((4 * timeout_s + 10)) ]; then
            ended="hung after rank 0's last line: ended by the script $((SECONDS - done_at)) s after it"
            break
        fi
        if [ $((SECONDS - t0)) -gt 600 ]; then
            ended="hung before rank 0's last line: ended by the script after 600 s"
            break
        fi
        sleep 0.2
    done
    if [ "$ended" != exited ]; then
        for p in $(ip netns pids "$netns"); do kill -9 "$p" 2>/dev/null || true; done
        stop_mpirun
    else
        local rc=0
        wait "$mpirun_pid" || rc=$?
        mpirun_pid=
        ended="ended by itself, exit status $rc"
    fi
    cat "$txt"
    local rows=0
    [ -f "$csv" ] && rows=$(($(wc -l <"$csv") - 1))
    echo "# scenario N: link deleted ${cut_at:-never} s into the run; $rows of $calls calls in the CSV; job $ended"
    if ! grep -q "; 0 output element(s) not bitwise equal" "$txt" || [ "$rows" -ne "$calls" ]; then
        echo "# scenario N: FAILED: not every call completed with the same bits"
        return 1
    fi
    echo "# scenario N: every call completed with the same bits; uptime: $(uptime)"
}

status=0
echo "# scripts/cluster-bench.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc --all) cores, size $size, $calls calls per scenario"
echo "# uptime before: $(uptime)"
IFS=, read -r -a list <<<"$scenarios"
for s in "${list[@]}"; do
    case "$s" in
    A) run_scenario A 30 || status=1 ;;
    B) run_scenario B 60 || status=1 ;;
    C) run_scenario C 100 "${CUT:-10}" 30 || status=1 ;;
    D) run_scenario D 1 "${RAISE:-12}" 100 || status=1 ;;
    N) run_link_cut "${LINKCUT:-8}" || status=1 ;;
    *) echo "scripts/cluster-bench.sh: unknown scenario $s" >&2; status=2 ;;
    esac
done
echo "# uptime after: $(uptime)"
exit $status

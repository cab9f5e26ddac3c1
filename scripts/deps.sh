#!/usr/bin/env bash
# Installs what apportion needs to build and test, on Debian or Ubuntu, when it is missing.
# Run as root (or with sudo available). Does nothing when everything is already there.
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { pkg-config --exists "$1" 2>/dev/null; }

have_cmd gcc || need+=(gcc)
have_cmd meson || need+=(meson)
have_cmd ninja || need+=(ninja-build)
have_cmd pkg-config || need+=(pkg-config)
have_cmd python3 || need+=(python3)
have_cmd clang-format || need+=(clang-format)
have_cmd pkg-config && have_pc jansson || need+=(libjansson-dev)
have_cmd pkg-config && have_pc criterion || need+=(libcriterion-dev)
# Open MPI: ranks of an MPI job as devices, and mpirun for the mpi test suite (docs/cluster.md).
have_cmd mpirun || need+=(openmpi-bin)
have_cmd pkg-config && have_pc ompi-c || need+=(libopenmpi-dev)
# libgomp comes with gcc; its header omp.h is in the gcc package on Debian.

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi

echo "scripts/deps.sh: installing ${need[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    if have_cmd sudo; then
        sudo_cmd=(sudo)
    else
        echo "scripts/deps.sh: missing ${need[*]} and not root; install them and retry" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

#!/usr/bin/env bash
# Installs what apportion needs to build and test, on Debian or Ubuntu, when it is missing.
# Run as root (or with sudo available). Does nothing when everything is already there.
#
#   scripts/deps.sh          # the build and the tests (gcc, meson, jansson, Criterion, ...)
#   scripts/deps.sh --fuzz   # also clang with libFuzzer and its OpenMP (scripts/test.sh --fuzz)
set -euo pipefail

fuzz=false
case "${1:-}" in
--fuzz) fuzz=true ;;
"") ;;
*)
    echo "scripts/deps.sh: unknown option $1" >&2
    exit 2
    ;;
esac

have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { pkg-config --exists "$1" 2>/dev/null; }

# apt-get's own output is shown: a first install takes a minute or more, and a silent
# screen looks hung.
install() {
    [ $# -gt 0 ] || return 0
    echo "scripts/deps.sh: installing $* (apt-get; a first install takes a minute or more)" >&2
    local sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        if have_cmd sudo; then
            sudo_cmd=(sudo)
        else
            echo "scripts/deps.sh: missing $* and not root; install them and retry" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "$@"
    echo "scripts/deps.sh: installed $*" >&2
}

need=()
have_cmd gcc || need+=(gcc)
have_cmd meson || need+=(meson)
have_cmd ninja || need+=(ninja-build)
have_cmd pkg-config || need+=(pkg-config)
# meson installs the library into Debian's multiarch folder (lib/x86_64-linux-gnu), where the
# loader and pkg-config look, only when dpkg-architecture is there; without it, lib64.
have_cmd dpkg-architecture || need+=(dpkg-dev)
have_cmd python3 || need+=(python3)
have_cmd clang-format || need+=(clang-format)
have_cmd pkg-config && have_pc jansson || need+=(libjansson-dev)
have_cmd pkg-config && have_pc criterion || need+=(libcriterion-dev)
# gnuplot draws `run --score --plot` pictures and the figures of scripts/plots.sh.
have_cmd gnuplot || need+=(gnuplot-nox)
# Open MPI: ranks of an MPI job as devices, and mpirun for the mpi test suite (docs/cluster.md).
have_cmd mpirun || need+=(openmpi-bin)
have_cmd pkg-config && have_pc ompi-c || need+=(libopenmpi-dev)
# The Python package (python/, docs/python.md), built and tested by scripts/test.sh against
# Debian's python3: its headers, venv (with ensurepip), meson-python, numpy, and for the
# tests pandas, pytest and numba.
debian_python=/usr/bin/python3
have_py() { [ -x "$debian_python" ] && "$debian_python" -c "$1" >/dev/null 2>&1; }
have_py 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
    need+=(python3-dev)
have_py 'import venv, ensurepip' || need+=(python3-venv)
have_py 'import mesonpy' || need+=(python3-mesonpy)
have_py 'import numpy' || need+=(python3-numpy)
have_py 'import pandas' || need+=(python3-pandas)
have_py 'import pytest' || need+=(python3-pytest)
have_py 'import numba' || need+=(python3-numba)
# libgomp comes with gcc; its header omp.h is in the gcc package on Debian.
$fuzz && ! have_cmd clang && need+=(clang)
install "${need[@]}"
$fuzz || exit 0

# clang's runtimes are packaged per version (Debian 12: clang 14, libclang-rt-14-dev holds
# libFuzzer and the sanitizers, libomp-14-dev the OpenMP that `clang -fopenmp` links), and
# a missing one only shows when a program links, so each is checked by linking one.
links() { # links FLAGS... < C source
    local dir rc=0
    dir=$(mktemp -d)
    cat >"$dir/t.c"
    clang "$@" "$dir/t.c" -o "$dir/t" >/dev/null 2>&1 || rc=1
    rm -rf "$dir"
    return $rc
}
fuzzer_links() {
    links -fsanitize=fuzzer,address,undefined <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return size > 0 && data[0] == 0; }
EOF
}
openmp_links() {
    links -fopenmp <<'EOF'
#include <omp.h>
int main(void) { return omp_get_max_threads() < 1; }
EOF
}
version=$(clang -dumpversion | cut -d. -f1)
need=()
fuzzer_links || need+=("libclang-rt-$version-dev")
openmp_links || need+=("libomp-$version-dev")
install "${need[@]}"
if ! fuzzer_links || ! openmp_links; then
    echo "scripts/deps.sh: clang $version still cannot link libFuzzer with ASan/UBSan and OpenMP" >&2
    exit 1
fi

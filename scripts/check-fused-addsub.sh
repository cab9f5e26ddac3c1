#!/usr/bin/env bash
# The kernels are compiled with -ffp-contract=off so that every path rounds as sse2 and the
# GPU do (docs/determinism.md), yet GCC 12's SLP vectorizer still fuses a product pair into
# the adds and subtracts of a vfmaddsub or vfmsubadd where a sum and a difference of products
# have a complex product's shape (kernels/common/apo_hd.h, apo__unfused). The explicit fused
# steps (fma(), apo_tv_fma) compile to vfmadd and its plain kin, never to these two, so any
# of them in a library is such a fusion: this lists the functions holding one and fails.
#
# Usage: check-fused-addsub.sh LIBRARY_OR_OBJECT...
#        check-fused-addsub.sh --self-test   (an object holding one must be refused)
set -euo pipefail

check() {
    local found
    found=$(objdump -d --no-show-raw-insn "$@" |
        awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } /vfm(addsub|subadd)/ { print fn }' | sort -u)
    if [ -n "$found" ]; then
        echo "check-fused-addsub: fused add-subtracts (one rounding fewer than sse2 takes) in:"
        echo "$found"
        return 1
    fi
    echo "check-fused-addsub: none in $# files"
}

if [ "${1:-}" = "--self-test" ]; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    printf '\t.text\nfused:\n\tvfmaddsub231pd %%xmm1, %%xmm2, %%xmm3\n\tret\n' > "$dir/fused.s"
    printf '\t.text\nplain:\n\tvfmadd231pd %%xmm1, %%xmm2, %%xmm3\n\tret\n' > "$dir/plain.s"
    as -o "$dir/fused.o" "$dir/fused.s"
    as -o "$dir/plain.o" "$dir/plain.s"
    check "$dir/plain.o" > /dev/null || { echo "self-test: a plain vfmadd was refused"; exit 1; }
    if check "$dir/fused.o" > /dev/null; then
        echo "self-test: a vfmaddsub was not found"
        exit 1
    fi
    echo "check-fused-addsub: self-test passed"
    exit 0
fi

[ $# -gt 0 ] || { echo "usage: check-fused-addsub.sh LIBRARY_OR_OBJECT..." >&2; exit 2; }
check "$@"

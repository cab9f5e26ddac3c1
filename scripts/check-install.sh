#!/usr/bin/env bash
# Installs the build into a staging folder and builds the user-kernel example against the
# installed header, library and pkg-config file alone, then runs it: proof that
# `meson install` gives a usable library.
# Usage: check-install.sh BUILD_DIR SOURCE_DIR [SANITIZE]   (SANITIZE as in b_sanitize)
set -euo pipefail
build=$1
src=$2
sanitize=${3:-none}
flags=()
# A sanitized library needs its runtimes in the program that links it.
[ "$sanitize" != none ] && flags+=("-fsanitize=$sanitize")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >/dev/null
pc=$(dirname "$(find "$stage" -name apportion.pc | head -n 1)")
[ -n "$pc" ] || { echo "no apportion.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$stage
cc -std=c11 -Wall -Wextra -Werror "${flags[@]}" "$src/docs/examples/user_kernel.c" \
    -o "$stage/example" \
    $(pkg-config --cflags --libs apportion)
LD_LIBRARY_PATH="$pc/.." "$stage/example"

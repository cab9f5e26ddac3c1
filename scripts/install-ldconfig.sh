#!/bin/sh
# Run by `meson install` after it has copied the files (meson.build, add_install_script; meson
# skips it for a staged install into DESTDIR, whose package manager runs ldconfig on the
# target). Without it the loader's cache does not know libapportion's soname until the next
# ldconfig, and `apportion` and every program built with pkg-config fail to start with
# "error while loading shared libraries".
set -eu
[ -n "${MESON_INSTALL_DRY_RUN:-}" ] && exit 0
[ "$(uname -s)" = Linux ] || exit 0
libdir=${1:?usage: install-ldconfig.sh LIBDIR}
ldconfig=$(PATH="$PATH:/sbin:/usr/sbin" command -v ldconfig || true)
if [ -z "$ldconfig" ]; then
    echo "apportion: no ldconfig found: the loader's cache was not refreshed for $libdir" >&2
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "apportion: not root, so the loader's cache was not refreshed: run 'sudo ldconfig'" \
        "(or set LD_LIBRARY_PATH=$libdir)" >&2
    exit 0
fi
"$ldconfig"
echo "apportion: ran ldconfig: the loader finds libapportion in $libdir"

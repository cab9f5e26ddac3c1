#!/usr/bin/env bash
# Checks what `meson install` gives a user: the library, header and pkg-config file where the
# loader and pkg-config look without help, the loader's cache refreshed, and the tool on the
# PATH. Then it builds the user-kernel example the way the README says, with
# `cc ... $(pkg-config --cflags --libs apportion)` and no PKG_CONFIG_PATH or LD_LIBRARY_PATH,
# runs it, and runs `apportion --version` by its bare name.
#
# As root, where mount namespaces are allowed (CI), this is a real `meson install` into the
# configured prefix, inside a private mount namespace in which the prefix and /etc are
# overlays whose writes land in a temporary folder: the install script and ldconfig run for
# real and the machine is left as it was. Elsewhere the build is installed into a staging
# folder, and the folders it chose are checked against the search paths of pkg-config, the
# loader and the default PATH.
#
# Usage: check-install.sh BUILD_DIR SOURCE_DIR [SANITIZE]   (SANITIZE as in b_sanitize)
#        APO_CHECK_INSTALL_MODE=staged check-install.sh ...  (the staged check, also as root)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sanitize=${3:-none}
flags=()
# A sanitized library needs its runtimes in the program that links it.
[ "$sanitize" != none ] && flags+=("-fsanitize=$sanitize")
# The PATH a login shell gets on Debian and Ubuntu (/etc/login.defs, ENV_SUPATH).
user_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

fail() {
    echo "check-install: $*" >&2
    exit 1
}

option() {
    meson introspect --buildoptions "$build" | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}
prefix=$(option prefix)
libdir=$(option libdir)
bindir=$(option bindir)
[[ "$libdir" = /* ]] || libdir=$prefix/$libdir
[[ "$bindir" = /* ]] || bindir=$prefix/$bindir

# The loader's folders: /etc/ld.so.conf with its includes, and the trusted folders.
loader_dirs() {
    local file=$1 line pattern f
    [ -r "$file" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        line=$(echo "$line" | xargs)
        case "$line" in
        "") ;;
        include\ *)
            for pattern in ${line#include }; do
                for f in $pattern; do loader_dirs "$f"; done
            done
            ;;
        *) echo "$line" ;;
        esac
    done <"$file"
}
search_path_checks() {
    local pc_path pkgdir dirs
    pkgdir=$libdir/pkgconfig
    pc_path=$(pkg-config --variable pc_path pkg-config)
    case ":$pc_path:" in
    *":$pkgdir:"*) ;;
    *) fail "apportion.pc goes to $pkgdir, which pkg-config does not search ($pc_path):" \
        "'pkg-config apportion' would find nothing. On Debian and Ubuntu install dpkg-dev" \
        "(scripts/deps.sh does) and set up a new build folder, or configure --libdir" ;;
    esac
    dirs=$(
        loader_dirs /etc/ld.so.conf
        printf '%s\n' /lib /usr/lib /lib64 /usr/lib64
    )
    grep -qxF "$libdir" <<<"$dirs" ||
        fail "libapportion goes to $libdir, which the loader does not search" \
            "(/etc/ld.so.conf): programs built against it would not start"
    case ":$user_path:" in
    *":$bindir:"*) ;;
    *) fail "apportion goes to $bindir, which is not on the default PATH ($user_path)" ;;
    esac
}

# Builds and runs the example and the tool as a user would, in a clean environment. The
# profiles are off and HOME is private: a test never touches the user's state.
# The README's C example, as its text stands under "## Using the library": it must be a
# whole program that builds and runs as the README says.
readme_program() {
    awk '/^## Using the library/ { section = 1 }
         section && /^```c$/ { inside = 1; next }
         inside && /^```$/ { exit }
         inside' "$src/README.md"
}

use_it() { # use_it WORKDIR [NAME=VALUE ...]: extra environment for the staged case
    local dir=$1
    shift
    cp "$src/docs/examples/user_kernel.c" "$dir/app.c"
    readme_program >"$dir/readme.c"
    [ -s "$dir/readme.c" ] || fail "README.md has no C example under \"## Using the library\""
    env -i PATH="$user_path" HOME="$dir" APPORTION_PROFILES=off "$@" bash -c '
        set -euo pipefail
        cd "$1"
        shift
        cc -std=c11 -Wall -Wextra -Werror "$@" app.c -o app $(pkg-config --cflags --libs apportion)
        ./app >/dev/null
        cc -std=c11 -Wall -Wextra -Werror "$@" readme.c -o readme $(pkg-config --cflags --libs apportion)
        # Series of 0.0 .. 4.9 in steps of 0.1 over 100: the first window of 20 means 100.95.
        line=$(./readme)
        case "$line" in
        "middle[19] = 100.95 on "*) ;;
        *) echo "the README example printed: $line" >&2; exit 1 ;;
        esac
        # --cflags needs nothing but apportion.pc: jansson and MPI are for a static link
        # only, and a machine without their -dev packages still compiles against apportion.
        pcdir=$(pkg-config --variable=pcfiledir apportion)
        PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH= pkg-config --cflags apportion >/dev/null ||
            { echo "pkg-config --cflags apportion fails without the packages it links" >&2; exit 1; }
        version=$(apportion --version)
        case "$version" in
        "apportion "*" (libapportion "*")") echo "installed: $version ($(command -v apportion))" ;;
        *) echo "apportion --version printed: $version" >&2; exit 1 ;;
        esac' bash "$dir" "${flags[@]}"
}

# The folder the Python package goes to (none when it is not built), which the system's
# python3 (on the default PATH) must search: docs/python.md promises `import apportion`
# after `meson install`. A sanitized extension cannot load into an uninstrumented python3,
# so its import is not tried.
python_dir=$(meson introspect --installed "$build" | python3 -c '
import json, os, sys
for dest in json.load(sys.stdin).values():
    if os.path.basename(os.path.dirname(dest)) == "apportion" and os.path.basename(dest).startswith("_core."):
        print(os.path.dirname(os.path.dirname(dest)))
        break')
python_checks() {
    [ -n "$python_dir" ] || return 0
    env -i PATH="$user_path" python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$python_dir" ||
        fail "the Python package goes to $python_dir, which python3 on the default PATH does" \
            "not search: 'import apportion' would fail after the install"
}
import_it() { # import_it WORKDIR [NAME=VALUE ...]: imports the installed package as a user would
    local dir=$1
    shift
    [ -n "$python_dir" ] && [ "$sanitize" = none ] || return 0
    (cd "$dir" && env -i PATH="$user_path" HOME="$dir" APPORTION_PROFILES=off "$@" python3 -c '
import apportion, numpy, sys
got = apportion.bollinger(numpy.arange(40.0), period=20).middle[19]
sys.exit(int(got != 9.5))') || fail "python3 cannot use the installed package (import apportion, bollinger)"
}

can_use_namespace() {
    [ "$(id -u)" -eq 0 ] && [ -d "$prefix" ] && command -v unshare >/dev/null &&
        unshare -m --propagation private true 2>/dev/null || return 1
    # meson, cc and pkg-config must not live under the prefix that the overlay replaces.
    case "$(command -v meson)" in "$prefix"/*) return 1 ;; esac
    return 0
}

case "$prefix" in
/usr/local | /usr) search_path_checks && python_checks ;;
*) echo "check-install: prefix $prefix is not a system prefix: search paths not checked" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "${APO_CHECK_INSTALL_MODE:-}" != staged ] && can_use_namespace; then
    # The real install. Everything it writes under the prefix and /etc lands in the upper
    # folders of the overlays, on a tmpfs that disappears with the namespace.
    export -f use_it import_it fail readme_program
    export build src prefix libdir work user_path python_dir sanitize
    export flags_list="${flags[*]}"
    unshare -m --propagation private bash -euo pipefail -c '
        mount -t tmpfs tmpfs "$work"
        for target in "$prefix" /etc; do
            name=$(echo "$target" | tr / _)
            mkdir -p "$work/$name.upper" "$work/$name.work"
            mount -t overlay overlay \
                -o "lowerdir=$target,upperdir=$work/$name.upper,workdir=$work/$name.work" "$target"
        done
        meson install -C "$build" --no-rebuild >"$work/install.log" 2>&1 ||
            { cat "$work/install.log" >&2; exit 1; }
        cache=$(PATH="$PATH:/sbin:/usr/sbin" ldconfig -p)
        soname=$(objdump -p "$(ls "$libdir"/libapportion.so.* | head -n 1)" |
            awk "/SONAME/ { print \$2 }")
        grep -qF "$soname (" <<<"$cache" ||
            { echo "check-install: after meson install the loader cache has no $soname:" \
                "ldconfig did not run" >&2; exit 1; }
        mkdir "$work/app"
        read -r -a flags <<<"$flags_list"
        use_it "$work/app"
        import_it "$work/app"
    '
    echo "check-install: real install into $prefix (private mount namespace): usable"
    exit 0
fi

# Staged: the same files in a staging folder; the folders were checked above, so pointing
# pkg-config and the loader at the staged copies of exactly those folders stands in for
# the install.
stage=$work/stage
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >/dev/null
[ -f "$stage$libdir/pkgconfig/apportion.pc" ] ||
    fail "no apportion.pc in $libdir/pkgconfig (installed: $(cd "$stage" && find . -name '*.pc'))"
[ -x "$stage$bindir/apportion" ] || fail "no apportion in $bindir"
mkdir "$work/app"
use_it "$work/app" PATH="$stage$bindir:$user_path" PKG_CONFIG_PATH="$stage$libdir/pkgconfig" \
    PKG_CONFIG_SYSROOT_DIR="$stage" LD_LIBRARY_PATH="$stage$libdir"
[ -z "$python_dir" ] || import_it "$work/app" PYTHONPATH="$stage$python_dir"
echo "check-install: staged install (not root, or no mount namespace): usable"

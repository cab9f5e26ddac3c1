#!/usr/bin/env bash
# The test cases that need a private mount namespace skip where "/" is not a mount point (a
# container or a chroot: mount(NULL, "/", MS_REC | MS_PRIVATE) fails with EINVAL), and a
# skipped case must remove what it made, or "no test leaves anything in TMPDIR" fails the
# run of scripts/test.sh. This runs those cases in such a place and checks that their TMPDIR
# is empty afterwards: a chroot into a plain folder holding the machine's folders by bind
# mounts, inside a private mount namespace of this script's own, so that nothing it mounts
# is seen outside and nothing is left once it ends. Needs root and unshare(1); elsewhere it
# exits 77 (skipped), saying why.
#
# Usage: check-chroot-skips.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)

skip() {
    echo "check-chroot-skips: skipped: $*"
    exit 77
}

if [ "${APO_CHROOT_INNER:-}" = 1 ]; then
    # Inside the private namespace: the chroot's folders, then the cases in it. Folders are
    # bound whole (--rbind); top-level links (/lib -> usr/lib) are copied as links.
    root=$2
    for d in /*; do
        case "$d" in /lost+found | /media | /mnt | /srv | /opt | /home | /root | /boot) continue ;; esac
        if [ -L "$d" ]; then
            cp -P "$d" "$root$d"
        elif [ -d "$d" ]; then
            mkdir "$root$d"
            mount --rbind "$d" "$root$d"
        fi
    done
    exec chroot "$root" /bin/bash -c '
        set -u
        status=0
        while read -r exe filter; do
            TMPDIR=$1 HOME=$2 XDG_STATE_HOME=$2 "$exe" --filter "$filter" >"$3/log" 2>&1 || {
                echo "check-chroot-skips: $exe --filter $filter failed:"; cat "$3/log"; status=1; }
        done
        exit $status' bash "$3" "$4" "$5"
fi

[ "$(id -u)" = 0 ] || skip "a chroot needs root"
command -v unshare >/dev/null && command -v chroot >/dev/null || skip "no unshare or chroot"
unshare -m true 2>/dev/null || skip "no private mount namespace here"

# In /tmp itself, not under TMPDIR: the cases make their folders from TMPDIR in buffers of 64
# bytes (tests/cli/cli_fixtures.c, tests/runtime/profiles/hostile_fixtures.c), and under the
# private TMPDIR of scripts/test.sh the path would not fit (mkdtemp then fails with EINVAL).
# The trap below removes it whatever happens.
base=$(mktemp -d /tmp/apo-chroot-XXXXXX)
# The cases' TMPDIR, HOME and log, and the chroot's root, each a plain folder; the mounts
# under the root go away with the namespace, so only empty folders and links stay to remove.
mkdir "$base/root" "$base/tmp" "$base/home" "$base/log"
chmod 755 "$base" "$base/tmp"
cleanup() {
    find "$base/root" -mindepth 1 -maxdepth 1 -type l -delete
    find "$base/root" -mindepth 1 -maxdepth 1 -type d -empty -delete
    rm -rf "$base/tmp" "$base/home" "$base/log"
    rmdir "$base/root" "$base"
}
trap cleanup EXIT
status=0
APO_CHROOT_INNER=1 unshare -m "$0" "$build" "$base/root" "$base/tmp" "$base/home" "$base/log" <<CASES || status=1
$build/tests/runtime/test_hostile hostile/read_only_file_system
$build/tests/runtime/test_hostile hostile/full_disk
$build/tests/runtime/test_hostile_paths hostile/symlink_followed_only_when_the_user_owns_it_and_its_folder
$build/tests/cli/test_cli_run_files cli/output_set_on_a_full_disk_stays_whole
$build/tests/cli/test_cli_run_files cli/output_folder_that_cannot_be_written_fails_before_the_work
$build/tests/cli/test_cli_profile cli/profile_warns_of_the_load_only_when_it_measures
CASES
left=$(ls -A "$base/tmp")
if [ -n "$left" ]; then
    echo "check-chroot-skips: the cases left in their TMPDIR: $left"
    status=1
fi
[ $status = 0 ] && echo "check-chroot-skips: the skipped cases left nothing in TMPDIR"
exit $status

/*
 * A hostile environment around one runtime, its profile paths that are not plain files: a folder, a
 * FIFO (which must not block), symlinks followed only when the user owns them and their folder, a
 * symlink to something that is not a profile, a symlink swapped while waiting for the lock, and no
 * lock file beside a path that is not a file. test_hostile.c has the folders, disks and contents;
 * test_hostile_environment.c the variables.
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS, mount(), setgroups() for the privileged cases */

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/runtime.h"
#include "helpers.h"
#include "profiles/profile_store.h"

#include "hostile_fixtures.h"

TestSuite(hostile, .init = make_dir, .fini = remove_dir, .timeout = 120);

/* ---- paths that are not files ----------------------------------------------------------- */

/* A profile path that is a folder or a FIFO: reported once, ignored, never opened for
 * writing, left as it was; the runtime computes. */
static void expect_unreadable_path_ignored(const char *what) {
    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED, "%s: %s", what,
                 apo_profile_state_name(files.multigpu_state));
    cr_assert(strstr(files.multigpu_message, mpath) != NULL, "%s", files.multigpu_message);
    cr_assert_eq(warnings_naming(rt, mpath), 1, "%s: reported once", what);
    cr_assert_eq(run_compared(rt, NULL), 0, "%s: the call failed or differs: %s", what,
                 apo_last_error());
    static const char *const ids[1] = {"cpu"};
    const double one = 1;
    cr_assert_eq(apo_set_ratios(rt, "t", ids, &one, 1), APO_ERR_IO);
    cr_assert(strstr(apo_last_error(), mpath) != NULL, "%s", apo_last_error());
    apo_runtime_destroy(rt);
}

Test(hostile, profile_path_that_is_a_folder) {
    cr_assert_eq(mkdir(mpath, 0700), 0);
    char inside[300];
    snprintf(inside, sizeof inside, "%s/keep", mpath);
    write_text(inside, "mine");
    expect_unreadable_path_ignored("a folder");
    struct stat st;
    cr_assert_eq(stat(mpath, &st), 0);
    cr_assert(S_ISDIR(st.st_mode));
    char names[256];
    test_list_dir(mpath, names, sizeof names);
    cr_assert_str_eq(names, "keep");
}

Test(hostile, profile_path_that_is_a_fifo_does_not_block) {
    cr_assert_eq(mkfifo(mpath, 0600), 0);
    expect_unreadable_path_ignored("a FIFO");
    struct stat st;
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
}

/* Policy: a profile path that is a symbolic link of the user's own, in a folder of the
 * user's own, to a profile or to nothing yet, is followed. The file written is the link's
 * target, atomically in the target's folder and under the target's lock, so the link stays
 * a link and writers through the link and of the target serialise. */
Test(hostile, profile_path_that_is_a_symlink_is_followed) {
    char elsewhere[300], target[340], lock[360];
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", dir);
    cr_assert_eq(mkdir(elsewhere, 0700), 0);
    snprintf(target, sizeof target, "%s/real.json", elsewhere);
    write_text(target, good_multigpu());
    cr_assert_eq(symlink(target, mpath), 0);

    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_LOADED, "%s", files.multigpu_message);
    static const char *const ids[2] = {"cpu", "sim:a"};
    const double ratios[2] = {1, 1};
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, ratios, 2), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);

    struct stat st;
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    apo__multigpu p;
    char err[512];
    cr_assert_eq(apo__multigpu_load(target, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(p.n_workloads, 2, "the target holds the old entry and the new one");
    cr_assert_not_null(apo__multigpu_find(&p, "forced"));
    cr_assert_not_null(apo__multigpu_find(&p, "bollinger"));
    apo__multigpu_free(&p);
    snprintf(lock, sizeof lock, "%s.lock", target);
    cr_assert_eq(stat(lock, &st), 0, "the lock is the target's");
    char names[256];
    test_list_dir(elsewhere, names, sizeof names);
    cr_assert_str_eq(names, "real.json real.json.lock");

    /* A dangling link is refused for writing (no file is created anywhere) and reads as a
     * missing profile. */
    cr_assert_eq(unlink(mpath), 0);
    char gone[340];
    snprintf(gone, sizeof gone, "%s/gone/nothing.json", dir);
    cr_assert_eq(symlink(gone, mpath), 0);
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_MISSING);
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, ratios, 2), APO_ERR_IO);
    cr_assert(strstr(apo_last_error(), "symbolic link") != NULL, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode));
    cr_assert_neq(stat(gone, &st), 0, "a file was created through the dangling link");

    /* A link to a file that does not exist yet, in a folder that does, is followed: the
     * first write creates the file there. */
    cr_assert_eq(unlink(mpath), 0);
    char fresh[340];
    snprintf(fresh, sizeof fresh, "%s/fresh.json", elsewhere);
    cr_assert_eq(symlink(fresh, mpath), 0);
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, ratios, 2), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    cr_assert_eq(apo__multigpu_load(fresh, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_not_null(apo__multigpu_find(&p, "forced"));
    apo__multigpu_free(&p);
}

/* Forces ratios for the tag "forced" through a runtime whose multigpu.json is `multigpu`:
 * the write apo_set_ratios() makes. Returns its status, with the message in `msg`. Usable
 * in children: no assertions. */
static apo_status force_ratios_at(const char *multigpu, char *msg, size_t size) {
    apo_runtime *rt;
    msg[0] = '\0';
    apo_status st = profiled_runtime(multigpu, tpath, &rt);
    if (st != APO_OK) {
        snprintf(msg, size, "create: %s", apo_last_error());
        return st;
    }
    static const char *const ids[2] = {"cpu", "sim:a"};
    const double ratios[2] = {1, 1};
    st = apo_set_ratios(rt, "forced", ids, ratios, 2);
    if (st != APO_OK)
        snprintf(msg, size, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    return st;
}

/* One merge into thresholds.json at `path`, as profiling makes. */
static apo_status merge_threshold_at(const char *path, char *msg, size_t size) {
    apo__threshold add;
    memset(&add, 0, sizeof add);
    snprintf(add.key, sizeof add.key,
             "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, "
             "'size': 1000}");
    add.cpu_ms_avg = 0.1;
    add.gpu_ms_avg = NAN;
    add.samples = 1;
    add.cpu_samples = 1;
    msg[0] = '\0';
    return apo__thresholds_merge(path, &add, 1, NULL, msg, size);
}

/* A link (of the user's own, in the user's folder) to a file that is not a profile of the
 * kind written: refused, naming the path and the reason, and nothing is touched: the file
 * keeps its bytes and mode, is not set aside as .corrupt, and gets no lock beside it. Run
 * by root in a folder someone else can write, following it used to replace any file. */
Test(hostile, symlink_to_a_file_that_is_not_a_profile_is_refused_untouched) {
    char other[300], target[340], kind[340], msg[512];
    snprintf(other, sizeof other, "%s/other", dir);
    cr_assert_eq(mkdir(other, 0755), 0);
    snprintf(target, sizeof target, "%s/target", other);
    write_text(target, "root:x:0:0:not a profile at all\n");
    cr_assert_eq(chmod(target, 0644), 0);
    snprintf(kind, sizeof kind, "%s/thresholds.json", other);
    write_text(kind, good_thresholds);
    snapshot target_before = take(target), kind_before = take(kind);
    cr_assert_eq(symlink("other/target", mpath), 0); /* relative to the link's folder */
    char tlink[300];
    snprintf(tlink, sizeof tlink, "%s/tlink.json", dir);
    cr_assert_eq(symlink("other/target", tlink), 0);
    char dir_before[512], other_before[512], now[512];
    test_list_dir(dir, dir_before, sizeof dir_before);
    test_list_dir(other, other_before, sizeof other_before);

    cr_assert_eq(force_ratios_at(mpath, msg, sizeof msg), APO_ERR_IO, "%s", msg);
    cr_assert(strstr(msg, mpath) != NULL && strstr(msg, "not a multigpu.json profile") != NULL,
              "the message does not name the path and the reason: %s", msg);
    cr_assert_eq(merge_threshold_at(tlink, msg, sizeof msg), APO_ERR_IO, "%s", msg);
    cr_assert(strstr(msg, tlink) != NULL && strstr(msg, "not a thresholds.json profile") != NULL,
              "%s", msg);

    /* A profile of the other kind is not one to replace either. */
    cr_assert_eq(unlink(mpath), 0);
    cr_assert_eq(symlink(kind, mpath), 0);
    cr_assert_eq(force_ratios_at(mpath, msg, sizeof msg), APO_ERR_IO, "%s", msg);
    cr_assert(strstr(msg, "not a multigpu.json profile") != NULL, "%s", msg);

    cr_assert_eq(differs(&target_before, target), 0, "the target was changed");
    cr_assert_eq(differs(&kind_before, kind), 0, "the thresholds.json was changed");
    struct stat st;
    cr_assert_eq(stat(target, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644, "the target's mode changed");
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    test_list_dir(other, now, sizeof now);
    cr_assert_str_eq(now, other_before, "something was created beside the target");
    test_list_dir(dir, now, sizeof now);
    cr_assert_str_eq(now, dir_before, "something was created beside the link");
    free(target_before.bytes);
    free(kind_before.bytes);
}

/* Makes a symbolic link `link` -> `to` belonging to `uid`. */
static void link_of(const char *to, const char *link, uid_t uid) {
    CHILD_CHECK(symlink(to, link) == 0, "symlink %s: %s", link, strerror(errno));
    CHILD_CHECK(lchown(link, uid, uid) == 0, "lchown %s: %s", link, strerror(errno));
}

static void make_folder_of(const char *path, mode_t mode, uid_t uid) {
    CHILD_CHECK(mkdir(path, mode) == 0 && chown(path, uid, uid) == 0 && chmod(path, mode) == 0,
                "%s: %s", path, strerror(errno));
}

static void write_file_of(const char *path, const char *text, uid_t uid) {
    FILE *f = fopen(path, "w");
    CHILD_CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "%s: %s", path,
                strerror(errno));
    CHILD_CHECK(chown(path, uid, uid) == 0, "chown %s: %s", path, strerror(errno));
}

/* Expects the write through `link` refused with `says` in the message, and `file` (what the
 * link names) untouched, with nothing made beside it. */
static void expect_link_refused(const char *link, const char *says, const char *file) {
    char msg[512], folder[300], before[512], after[512];
    snapshot s = take(file);
    snprintf(folder, sizeof folder, "%s", file);
    *strrchr(folder, '/') = '\0';
    test_list_dir(folder, before, sizeof before);
    apo_status st = force_ratios_at(link, msg, sizeof msg);
    CHILD_CHECK(st == APO_ERR_IO && strstr(msg, link) != NULL && strstr(msg, says) != NULL,
                "%s as uid %lu: %s, \"%s\" (expected \"%s\")", link, (unsigned long)geteuid(),
                apo_status_name(st), msg, says);
    CHILD_CHECK(!differs(&s, file), "%s was changed through %s", file, link);
    test_list_dir(folder, after, sizeof after);
    CHILD_CHECK(strcmp(before, after) == 0, "%s: \"%s\" -> \"%s\"", folder, before, after);
    free(s.bytes);
}

/* Expects the write through `link` to land in `file`, the link staying a link. */
static void expect_link_followed(const char *link, const char *file) {
    char msg[512], err[512];
    apo_status st = force_ratios_at(link, msg, sizeof msg);
    CHILD_CHECK(st == APO_OK, "%s as uid %lu: %s", link, (unsigned long)geteuid(), msg);
    struct stat ls;
    CHILD_CHECK(lstat(link, &ls) == 0 && S_ISLNK(ls.st_mode), "%s is no longer a link", link);
    apo__multigpu p;
    CHILD_CHECK(apo__multigpu_load(file, &p, NULL, err, sizeof err) == APO_OK, "%s", err);
    CHILD_CHECK(apo__multigpu_find(&p, "forced") != NULL, "%s was not written", file);
    apo__multigpu_free(&p);
}

/* The owner rule, as root and as uid 65534, on a private tmpfs: a link is followed for
 * writing only when it and the folder holding it belong to the user writing. */
static void symlink_owner_rule(void) {
    const uid_t nobody = 65534;
    private_tmpfs("1m");
    CHILD_CHECK(chmod(dir, 0755) == 0, "chmod: %s", strerror(errno));
    char user[300], data[340], shared[300], secret[300], root_profile[340], a[400], b[400], c[400],
        fresh[400], link[400];
    snprintf(user, sizeof user, "%s/user", dir);
    snprintf(data, sizeof data, "%s/data", user);
    snprintf(shared, sizeof shared, "%s/shared", dir);
    snprintf(secret, sizeof secret, "%s/secret", dir);
    snprintf(root_profile, sizeof root_profile, "%s/profile.json", shared);
    make_folder_of(user, 0755, nobody);
    make_folder_of(data, 0755, nobody);
    make_folder_of(shared, 0777, 0); /* root's, but anyone may add to it */
    write_file_of(secret, "root's own file, not a profile\n", 0);
    write_file_of(root_profile, good_multigpu(), 0);

    /* Root, writing through links that uid 65534 placed (in its own folder, or in a folder
     * of root's that anyone may write): refused, even to a real profile. */
    snprintf(link, sizeof link, "%s/evil.json", user);
    link_of("../secret", link, nobody);
    expect_link_refused(link, "belongs to uid 65534", secret);
    snprintf(link, sizeof link, "%s/evil-profile.json", shared);
    link_of("profile.json", link, nobody);
    expect_link_refused(link, "belongs to uid 65534", root_profile);
    /* Root's own link, but in a folder of 65534's, who could have swapped it. */
    snprintf(link, sizeof link, "%s/roots.json", user);
    link_of("../shared/profile.json", link, 0);
    expect_link_refused(link, "a folder of uid 65534", root_profile);

    /* Now as uid 65534. */
    snprintf(a, sizeof a, "%s/a.json", data);
    snprintf(b, sizeof b, "%s/b.json", data);
    snprintf(c, sizeof c, "%s/c.json", data);
    snprintf(fresh, sizeof fresh, "%s/fresh.json", data);
    write_file_of(a, good_multigpu(), nobody);
    write_file_of(b, good_multigpu(), nobody);
    write_file_of(c, good_multigpu(), nobody);
    char own[400], foreign[400], placed[400], to_fresh[400], nowhere[400];
    snprintf(own, sizeof own, "%s/own.json", user);
    link_of("data/a.json", own, nobody);
    snprintf(foreign, sizeof foreign, "%s/foreign.json", user);
    link_of("data/b.json", foreign, 0);
    snprintf(placed, sizeof placed, "%s/placed.json", shared);
    link_of("../user/data/c.json", placed, nobody);
    snprintf(to_fresh, sizeof to_fresh, "%s/to-fresh.json", user);
    link_of("data/fresh.json", to_fresh, nobody);
    snprintf(nowhere, sizeof nowhere, "%s/nowhere.json", user);
    link_of("gone/x.json", nowhere, nobody);
    CHILD_CHECK(setgroups(0, NULL) == 0 && setgid(nobody) == 0 && setuid(nobody) == 0,
                "cannot become uid 65534: %s", strerror(errno));

    expect_link_followed(own, a);
    expect_link_refused(foreign, "belongs to uid 0", b);
    expect_link_refused(placed, "a folder of uid 0", c);
    expect_link_followed(to_fresh, fresh);
    char msg[512], gone[400];
    CHILD_CHECK(force_ratios_at(nowhere, msg, sizeof msg) == APO_ERR_IO &&
                    strstr(msg, "cannot be resolved") != NULL,
                "a link into a missing folder: %s", msg);
    snprintf(gone, sizeof gone, "%s/gone", user);
    CHILD_CHECK(access(gone, F_OK) != 0, "a folder was created through a link");
}

Test(hostile, symlink_followed_only_when_the_user_owns_it_and_its_folder) {
    if (geteuid() != 0)
        skip_removing_dir(
            "links of another user need root to make (lchown) and a private tmpfs; "
            "symlink_to_a_file_that_is_not_a_profile_is_refused_untouched runs anywhere");
    int status = in_child(symlink_owner_rule);
    if (status == SKIP_STATUS)
        skip_removing_dir("a private tmpfs needs a mount namespace, not allowed here");
    cr_assert_eq(status, 0, "the owner rule for symbolic links was not kept");
}

/* Whether process `pid` has `path` open (its /proc/PID/fd entries). */
static int has_open(pid_t pid, const char *path) {
    char fds[64], entry[400], to[400];
    snprintf(fds, sizeof fds, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(fds);
    if (d == NULL)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        snprintf(entry, sizeof entry, "%s/%s", fds, e->d_name);
        ssize_t n = readlink(entry, to, sizeof to - 1);
        if (n > 0) {
            to[n] = '\0';
            found = strcmp(to, path) == 0;
        }
    }
    closedir(d);
    return found;
}

/* A link swapped while its writer waits for the lock: the path is decided again under the
 * lock, and a writer that locked one file and would now write another is refused, leaving
 * both files as they were. (The writer, a thresholds.json merge, is a child; the test holds
 * the lock until the child has opened the lock file, then swaps the link and lets go.) */
Test(hostile, symlink_swapped_while_waiting_for_the_lock_is_refused) {
    char a[300], b[300], lock[310];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(lock, sizeof lock, "%s.lock", a);
    write_text(a, good_thresholds);
    write_text(b, good_thresholds);
    snapshot a_before = take(a), b_before = take(b);
    cr_assert_eq(symlink("a.json", tpath), 0);
    int held = open(lock, O_RDWR | O_CREAT, 0600);
    cr_assert_geq(held, 0);
    cr_assert_eq(flock(held, LOCK_EX), 0);
    int closed[2];
    cr_assert_eq(pipe(closed), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        /* The parent's descriptor keeps the lock; the child's inherited copy is closed
         * first (and the parent told), so that it cannot pass for the writer's own. */
        close(held);
        close(closed[0]);
        if (write(closed[1], "c", 1) != 1)
            child_fail("pipe: %s", strerror(errno));
        close(closed[1]);
        char msg[512];
        apo_status st = merge_threshold_at(tpath, msg, sizeof msg);
        if (st != APO_ERR_IO || strstr(msg, "changed while its lock was taken") == NULL)
            child_fail("%s: %s", apo_status_name(st), msg);
        _exit(0);
    }
    close(closed[1]);
    char byte;
    cr_assert_eq(read(closed[0], &byte, 1), 1);
    close(closed[0]);
    while (!has_open(pid, lock)) {
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the writer ended before the lock");
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    cr_assert_eq(unlink(tpath), 0);
    cr_assert_eq(symlink("b.json", tpath), 0);
    close(held);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the swapped link was written through");
    cr_assert_eq(differs(&a_before, a), 0);
    cr_assert_eq(differs(&b_before, b), 0);
    free(a_before.bytes);
    free(b_before.bytes);
}

/* A profile path (from the environment, as a user sets it) that is a FIFO, a folder, a
 * device, or a link to /dev/null: reported and ignored, writes refused, and no
 * `<path>.lock` (nor anything else) made beside it. */
Test(hostile, no_lock_file_beside_a_path_that_is_not_a_file) {
    char fifo[300], folder[300], device[300], to_null[300], msg[512];
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    snprintf(folder, sizeof folder, "%s/folder.json", dir);
    snprintf(device, sizeof device, "%s/zero.json", dir);
    snprintf(to_null, sizeof to_null, "%s/null.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(mkdir(folder, 0700), 0);
    cr_assert_eq(symlink("/dev/null", to_null), 0);
    /* A device node of our own (/dev/zero's numbers) where the system allows it (root with
     * CAP_MKNOD), so that the test never risks a file in the real /dev. */
    int have_device = mknod(device, S_IFCHR | 0600, makedev(1, 5)) == 0;
    int null_lock_before = access("/dev/null.lock", F_OK) == 0;
    const char *paths[4] = {fifo, folder, to_null, device};
    for (size_t i = 0; i < (have_device ? 4u : 3u); i++) {
        cr_assert_eq(setenv("APPORTION_MULTIGPU_PROFILE_PATH", paths[i], 1), 0);
        cr_assert_eq(setenv("APPORTION_THRESHOLD_PATH", paths[i], 1), 0);
        apo_config config = APO_CONFIG_INIT;
        config.devices = DEVICES;
        config.profiles = APO_SWITCH_ON;
        config.persist_interval_s = 86400;
        apo_runtime *rt = NULL;
        cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
        apo_profile_files files = APO_PROFILE_FILES_INIT;
        apo_profile_files_get(rt, &files);
        cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED, "%s: %s", paths[i],
                     files.multigpu_message);
        cr_assert_eq(run_compared(rt, NULL), 0, "%s: %s", paths[i], apo_last_error());
        static const char *const ids[1] = {"cpu"};
        const double one = 1;
        cr_assert_eq(apo_set_ratios(rt, "t", ids, &one, 1), APO_ERR_IO, "%s", paths[i]);
        cr_assert(strstr(apo_last_error(), paths[i]) != NULL &&
                      strstr(apo_last_error(), "nothing written") != NULL,
                  "%s", apo_last_error());
        apo_runtime_destroy(rt);
        cr_assert_eq(merge_threshold_at(paths[i], msg, sizeof msg), APO_ERR_IO, "%s", paths[i]);
        cr_assert(strstr(msg, paths[i]) != NULL, "%s", msg);
    }
    unsetenv("APPORTION_MULTIGPU_PROFILE_PATH");
    unsetenv("APPORTION_THRESHOLD_PATH");
    char names[512];
    test_list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names,
                     have_device ? "fifo.json folder.json null.json zero.json"
                                 : "fifo.json folder.json null.json",
                     "something was made beside a path that is not a file");
    test_list_dir(folder, names, sizeof names);
    cr_assert_str_eq(names, "");
    if (!null_lock_before)
        cr_assert_neq(access("/dev/null.lock", F_OK), 0, "/dev/null.lock was created");
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
}

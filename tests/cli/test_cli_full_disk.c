/*
 * `apportion run` on a full disk under the profile folder (docs/cli.md, "Exit status and
 * messages"): what the run learned cannot be stored, which it says on stderr while it exits
 * 0 (its outputs are whole: the job's work succeeded), with the old profile file left as it
 * was; and a profile valid in no format (ThreadX's field names holding what ThreadX never
 * writes), which a run keeps aside as .corrupt and learns past, run after run. The full
 * disk is a file-size limit of 0 (RLIMIT_FSIZE, SIGXFSZ ignored, so a write fails with EFBIG as it
 * would with ENOSPC): no mount, no root, nothing outside the test's own folder.
 */
#include <criterion/criterion.h>

#include "test_tmpdir.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A private folder under TMPDIR. */
static void make_dir(char *dir, size_t size) {
    cr_assert_eq(test_make_dir("apo-full-disk", dir, size), 0, "cannot make a folder in %s",
                 test_tmpdir());
}

static void remove_tree(const char *dir) {
    cr_assert_eq(test_remove_tree(dir), 0, "%s is not removed", dir);
}

/* Runs `apportion run ... [extra]` with the profiles in DIR/profiles and, when full, no
 * room for any byte of a file; returns the exit status, stderr in err. */
static int run_cli(const char *dir, int full, const char *extra, char *err, size_t err_size) {
    char profiles[4096];
    snprintf(profiles, sizeof profiles, "%s/profiles", dir);
    int pipe_err[2];
    cr_assert_eq(pipe(pipe_err), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(pipe_err[0]);
        dup2(pipe_err[1], 2);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        if (full) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit lim = {0, 0};
            if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
                _exit(99);
        }
        setenv("APPORTION_PROFILES", "on", 1);
        setenv("APPORTION_PROFILE_DIR", profiles, 1);
        setenv("HOME", dir, 1);
        setenv("XDG_STATE_HOME", dir, 1);
        execl(APO_CLI_PATH, "apportion", "run", "--kernel", "bollinger", "--cols", "20000",
              "--devices", "cpu", extra, (char *)NULL);
        _exit(98);
    }
    close(pipe_err[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < err_size && (got = read(pipe_err[0], err + n, err_size - 1 - n)) > 0)
        n += (size_t)got;
    err[n] = '\0';
    close(pipe_err[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "apportion ended by signal %d", WTERMSIG(status));
    return WEXITSTATUS(status);
}

static size_t read_file(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

Test(cli_full_disk, a_run_that_cannot_store_what_it_learned_says_so, .timeout = 120) {
    char dir[1024], err[8192], path[4096];
    static char before[1 << 16], after[1 << 16];
    make_dir(dir, sizeof dir);
    /* A first run stores its model. */
    cr_assert_eq(run_cli(dir, 0, NULL, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/profiles/multigpu.json", dir);
    const size_t n_before = read_file(path, before, sizeof before);
    cr_assert_gt(n_before, 0);

    /* The second learns more and cannot store it: its work is done, so it succeeds. */
    const int rc = run_cli(dir, 1, NULL, err, sizeof err);
    cr_assert_eq(rc, 0, "exit status %d; stderr: %s", rc, err);
    cr_assert_not_null(strstr(err, "apportion: warning: the run is complete, but what it learned "
                                   "could not be stored"),
                       "%s", err);
    cr_assert_not_null(strstr(err, "File too large"), "the reason is not given: %s", err);
    /* The old profile is intact, and no temporary file of the failed write is left. */
    const size_t n_after = read_file(path, after, sizeof after);
    cr_assert_eq(n_after, n_before);
    cr_assert_eq(memcmp(before, after, n_before), 0);
    snprintf(path, sizeof path, "%s/profiles", dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d);
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_assert(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                      strcmp(e->d_name, "multigpu.json") == 0 ||
                      strcmp(e->d_name, "multigpu.json.lock") == 0,
                  "left in the profile folder: %s", e->d_name);
    closedir(d);
    remove_tree(dir);
}

Test(cli_full_disk, a_run_that_learns_nothing_has_nothing_to_lose, .timeout = 120) {
    char dir[1024], err[8192];
    make_dir(dir, sizeof dir);
    const int rc = run_cli(dir, 1, "--no-learn", err, sizeof err);
    cr_assert_eq(rc, 0, "exit status %d; stderr: %s", rc, err);
    cr_assert_null(strstr(err, "could not be stored"), "%s", err);
    remove_tree(dir);
}

Test(cli_full_disk, a_profile_valid_in_no_format_is_kept_aside_and_learning_resumes,
     .timeout = 120) {
    char dir[1024], err[8192], path[2048], aside[4096];
    static char text[1 << 16];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/profiles", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/profiles/multigpu.json", dir);
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    static const char corrupt[] = "{\"updated_at\": 5, \"workload_tag\": [], \"ratios\": "
                                  "{\"cpu\": 1}}\n";
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(corrupt, f);
    fclose(f);
    for (int run = 0; run < 2; run++) {
        const int rc = run_cli(dir, 0, NULL, err, sizeof err);
        cr_assert_eq(rc, 0, "run %d: exit status %d; stderr: %s", run, rc, err);
        cr_assert_null(strstr(err, "could not be stored"), "%s", err);
    }
    /* The file is kept whole beside apportion's own, which now holds the run's model. */
    read_file(aside, text, sizeof text);
    cr_assert_str_eq(text, corrupt);
    read_file(path, text, sizeof text);
    cr_assert_not_null(strstr(text, "\"format\": \"apportion.multigpu/1\""), "%s", text);
    cr_assert_not_null(strstr(text, "\"bollinger\""), "%s", text);
    remove_tree(dir);
}

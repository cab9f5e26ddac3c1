/*
 * Temporary output files that no handler could remove (cli/output_files.c): a run killed by
 * SIGKILL leaves its hidden temporaries, with their space reserved, in the output folder;
 * the next set opened there removes them, and only them: a running process keeps its own,
 * and files that are not such temporaries stay.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output_files.h"
#include "test_tmpdir.h"

static const char *const names[] = {"upper", "lower"};
static const size_t rows[] = {4, 4}, cols[] = {1 << 16, 1 << 16};

/* A private folder under TMPDIR. */
static void make_dir(char *dir, size_t size) {
    cr_assert_eq(test_make_dir("apo-stale", dir, size), 0, "cannot make a folder in %s",
                 test_tmpdir());
}

static void remove_tree(const char *dir) {
    cr_assert_eq(test_remove_tree(dir), 0, "%s is not removed", dir);
}

/* Files in dir whose names start with `prefix`. */
static int count_files(const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void touch(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("kept\n", f);
    fclose(f);
}

/* A child that opens a set in dir (its temporaries created, space reserved), tells the
 * parent through `ready`, then either kills itself with SIGKILL or waits to be killed. */
static pid_t child_with_open_set(const char *dir, int die) {
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char err[512];
        close(ready[0]);
        if (cli_output_files_open(dir, CLI_FORMAT_F64, names, rows, cols, 2, err, sizeof err) != 0)
            _exit(3);
        if (write(ready[1], "x", 1) != 1)
            _exit(4);
        if (die)
            raise(SIGKILL);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    cr_assert_eq(read(ready[0], &c, 1), 1, "the child could not open its set");
    close(ready[0]);
    return pid;
}

static void reap(pid_t pid, int sig) {
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sig);
}

Test(output_stale, temporaries_of_a_killed_run_are_removed_by_the_next) {
    char dir[4096], err[512];
    make_dir(dir, sizeof dir);
    reap(child_with_open_set(dir, 1), SIGKILL);
    /* What kill -9 left: both hidden temporaries, their space reserved. */
    cr_assert_eq(count_files(dir, ".upper.f64."), 1);
    cr_assert_eq(count_files(dir, ".lower.f64."), 1);
    touch(dir, ".upper.f64.Ab12Cd"); /* an older version's name: no owner known, kept */
    touch(dir, ".hidden");
    touch(dir, "notes.txt");

    const char *const other[] = {"middle"};
    cr_assert_eq(cli_output_files_open(dir, CLI_FORMAT_F64, other, rows, cols, 1, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(count_files(dir, ".lower.f64."), 0, "the dead run's temporary is still there");
    cr_assert_eq(count_files(dir, ".upper.f64."), 1, "only the old-style name is left");
    cr_assert_eq(count_files(dir, ".upper.f64.Ab12Cd"), 1);
    cr_assert_eq(count_files(dir, ".hidden"), 1);
    cr_assert_eq(count_files(dir, "notes.txt"), 1);
    cr_assert_eq(count_files(dir, ".middle.f64."), 1, "this set's own temporary");
    cli_output_files_abort();
    cr_assert_eq(count_files(dir, ".middle.f64."), 0);
    remove_tree(dir);
}

Test(output_stale, a_running_process_keeps_its_temporaries) {
    char dir[4096], err[512];
    make_dir(dir, sizeof dir);
    pid_t pid = child_with_open_set(dir, 0);
    const char *const other[] = {"middle"};
    cr_assert_eq(cli_output_files_open(dir, CLI_FORMAT_F64, other, rows, cols, 1, err, sizeof err),
                 0, "%s", err);
    cli_output_files_abort();
    cr_assert_eq(count_files(dir, ".upper.f64."), 1, "a running run's temporary was removed");
    cr_assert_eq(count_files(dir, ".lower.f64."), 1);
    /* Once it is gone, the next set takes them away. */
    kill(pid, SIGKILL);
    reap(pid, SIGKILL);
    cr_assert_eq(cli_output_files_open(dir, CLI_FORMAT_F64, other, rows, cols, 1, err, sizeof err),
                 0, "%s", err);
    cli_output_files_abort();
    cr_assert_eq(count_files(dir, ".upper.f64."), 0);
    cr_assert_eq(count_files(dir, ".lower.f64."), 0);
    remove_tree(dir);
}

/*
 * What the three files of balancing's tests share (balance_fixtures.c): the case's private
 * profile folder (make_tmpdir and remove_tmpdir, the cases' .init and .fini), runtimes on
 * sim devices and the virtual clock, jobs and calls, and the plan and profile files a
 * runtime reports.
 */
#ifndef APO_TEST_BALANCE_FIXTURES_H
#define APO_TEST_BALANCE_FIXTURES_H

#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define SAMPLES 2000000

/* ---- set-up --------------------------------------------------------------------------- */

/* A temporary folder for the tests that use profile files, removed after each. */
extern char tmpdir[64];

extern char multigpu_path[128], thresholds_path[128];

void make_tmpdir(void);

int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw);

void remove_tmpdir(void);

/* A runtime on `devices` with the virtual sim clock. With `files`, profiles are on and
 * both paths point into the temporary folder; otherwise profiles are off. */
apo_runtime *runtime(const char *devices, apo_switch learn, int files);

/* One series of n samples of returns_stats, split along time. */
void job_init(test_job *job, apo_runtime *rt, const char *kernel, size_t n);

apo_report run(test_job *job, apo_runtime *rt);

/* Sets *job up as the call most balancing cases repeat, one series of SAMPLES samples of
 * returns_stats on rt (job_init), and returns rt; samples_job_close() frees the job and
 * destroys the runtime. */
apo_runtime *samples_job(test_job *job, apo_runtime *rt);
void samples_job_close(test_job *job, apo_runtime *rt);

apo_profile_files files_of(apo_runtime *rt);

#endif

/*
 * What the three files of the profile store's tests share (profile_store_fixtures.c):
 * test_profile_store.c (paths, reading, keys, timestamps), test_profile_store_writes.c
 * (writing, updating, merging) and test_profile_store_processes.c (many processes at once).
 * Folders made and removed, files read and written, exact comparisons of what was stored.
 */
#ifndef APO_TEST_PROFILE_STORE_FIXTURES_H
#define APO_TEST_PROFILE_STORE_FIXTURES_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profiles/profile_store.h"

/* The golden profile files (tests/data/profiles). */
#define DATA APO_TEST_DATA_DIR "/profiles/"

/* The id of the GPU in the golden files. */
#define H100 "GPU-9a1c4f3e-5b2d-4c8a-9e7f-1d2c3b4a5e6f"

/* Makes a private temporary folder; its path goes into dir. */
void make_tmp(char *dir, size_t size);

/* Makes a private temporary folder (into dir) and the path of a file `name` in it (into
 * path); the file itself is not made. */
void make_tmp_file(char *dir, size_t dir_size, char *path, size_t path_size, const char *name);

/* Removes a tree made by a test (giving folders back their write bit first). */
void rm_tree(const char *path);

/* A whole file, NUL-terminated (the caller frees it); *len gets its size when not NULL. */
char *read_all(const char *path, size_t *len);

/* Writes text to path, replacing the file. */
void write_text(const char *path, const char *text);

/* Doubles compared bit for bit (NaN equals NaN). */
int same_double(double a, double b);

/* Checks one stored device field by field, the doubles bit for bit. */
void assert_device(const apo__stored_device *d, const char *id, const char *label, double ratio,
                   double latency, double cost, uint64_t samples);

/* Checks two stored workloads are the same, field by field. */
void assert_same_workload(const apo__stored_workload *a, const apo__stored_workload *b);

/* Checks one stored threshold entry field by field. */
void assert_threshold(const apo__threshold *t, const char *key, double cpu, double gpu,
                      uint64_t samples, uint64_t cpu_samples, uint64_t gpu_samples);

/* Merges the n adds into the thresholds file at path, the merged thresholds into *t (the
 * caller frees them; NULL: not wanted); fails the test, with the store's message, unless the
 * merge succeeds. */
void merge_ok(const char *path, const apo__threshold *adds, size_t n, apo__thresholds *t);

/* A stored device with these values. */
apo__stored_device device(const char *id, const char *label, double ratio, double latency,
                          double cost, uint64_t samples);

/* A threshold sample to merge. */
apo__threshold add(const char *key, double cpu, double gpu, uint64_t samples);

/* Names in a folder other than . and .., sorted, joined by spaces (test_list_dir(),
 * helpers.h); asserts that the folder exists. */
void list_dir(const char *dir, char *out, size_t size);

#endif

/*
 * peers.c: fetches, builds and loads Tulip Indicators and TA-Lib for apo-bench-peers
 * (peers.h), from their PyPI packages, into a cache folder outside the repository; nothing
 * of them is part of apportion.
 *
 * Steps, each skipped when its result is already in the folder: a virtual environment of
 * python3 in <dir>/venv (for its pip: Debian's python3 has none of its own), `pip download`
 * of the two pinned packages (PyPI must be reachable), the wheel unpacked with python3's
 * zipfile and the sdist with `tar`, and the C compiler ($CC, else cc) to build Tulip's
 * amalgamation into a shared library with the release build's optimisation (-O3, nothing
 * else: the library's own code as a user would build it). TA-Lib is not built: the wheel's
 * own shared library (the C library as its maintainers build it, which exports TA-Lib's C
 * functions) is taken as it is. The libraries are then opened with dlopen and called
 * directly, with no Python in between. Commands run with fork and exec (no shell), with
 * their output appended to <dir>/build.log and a time limit.
 *
 * TA-Lib 0.6.0-dev, built from the npm package talib 1.1.6 by earlier versions of this file
 * as <dir>/libtalib.so, is loaded too where an older cache still holds it (npm is no longer
 * reachable, so nothing here makes it): the catalog tables then give it a column of its own.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "peers.h"

#define PEERS_FLAGS "-O3"
/* What the packages unpack into, and the names the libraries are kept under. */
#define TULIPY_DIR "tulipy-" BENCH_PEER_TULIPY_VERSION
#define TULIPY_SDIST TULIPY_DIR ".tar.gz"
#define TALIB_WHEEL_DIR "ta_lib-" BENCH_PEER_TALIB_VERSION "-wheel"
#define TALIB_WHEEL_PREFIX "ta_lib-" BENCH_PEER_TALIB_VERSION "-"
#define TULIP_LIB "libtulip-tulipy-" BENCH_PEER_TULIPY_VERSION ".so"
#define TALIB_LIB "libta-lib-pypi-" BENCH_PEER_TALIB_VERSION ".so"
/* The npm build of TA-Lib 0.6.0-dev that earlier versions of this file left in the cache. */
#define TALIB06_LIB "libtalib.so"

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* mkdir -p for the cache folder: every missing component is created. */
static int make_dirs(const char *path) {
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void log_line(const char *log, const char *fmt, const char *a, const char *b) {
    FILE *f = fopen(log, "a");
    if (f == NULL)
        return;
    fprintf(f, fmt, a, b);
    fclose(f);
}

/* Runs argv in `cwd` with stdout and stderr appended to `log`, for at most `limit_s`
 * seconds. Returns the exit status, 127 when the program could not be started, or -1 when
 * it was killed or could not be waited for. */
static int run(const char *cwd, char *const argv[], const char *log, double limit_s) {
    FILE *f = fopen(log, "a");
    if (f != NULL) {
        fprintf(f, "$ (cd %s &&", cwd);
        for (size_t i = 0; argv[i] != NULL; i++)
            fprintf(f, " %s", argv[i]);
        fprintf(f, ")\n");
        fclose(f);
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int out = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        int in = open("/dev/null", O_RDONLY);
        if (out < 0 || in < 0 || chdir(cwd) != 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    const double deadline = bench_now() + limit_s;
    for (;;) {
        int status;
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (got < 0)
            return -1;
        if (bench_now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            log_line(log, "%s%s: killed at its time limit\n", argv[0], "");
            return -1;
        }
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* Compiles `sources` (n of them) into <dir>/<lib> with the include folders `incs`. */
static int build_library(const bench_peers *p, const char *lib, const char *const *incs,
                         size_t n_incs, char **sources, size_t n, const char *log) {
    char out[640], tmp[660];
    snprintf(out, sizeof out, "%s/%s", p->dir, lib);
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    char **argv = calloc(n + n_incs + 12, sizeof *argv);
    if (argv == NULL)
        return -1;
    size_t a = 0;
    argv[a++] = (char *)p->cc;
    argv[a++] = (char *)PEERS_FLAGS;
    argv[a++] = (char *)"-fPIC";
    argv[a++] = (char *)"-shared";
    argv[a++] = (char *)"-w"; /* their warnings are not ours to read */
    for (size_t i = 0; i < n_incs; i++)
        argv[a++] = (char *)incs[i];
    argv[a++] = (char *)"-o";
    argv[a++] = tmp;
    for (size_t i = 0; i < n; i++)
        argv[a++] = sources[i];
    argv[a++] = (char *)"-lm";
    argv[a] = NULL;
    int rc = run(p->dir, argv, log, 1800);
    free(argv);
    /* Built under another name first, so that an interrupted build leaves nothing half. */
    return rc == 0 && rename(tmp, out) == 0 ? 0 : -1;
}

/* The first entry of folder `dir` whose name starts with `head` and has `part` in it after
 * that, into name; returns 0, or -1 when there is none. */
static int find_entry(const char *dir, const char *head, const char *part, char *name,
                      size_t name_size) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int rc = -1;
    for (struct dirent *e; rc != 0 && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, head, strlen(head)) == 0 &&
            strstr(e->d_name + strlen(head), part) != NULL &&
            snprintf(name, name_size, "%s", e->d_name) < (int)name_size)
            rc = 0;
    closedir(d);
    return rc;
}

/* Looks up `name` in `lib`; the POSIX way to turn dlsym's pointer into a function's. */
static int symbol(void *lib, const char *name, void *fn_ptr, char *why, size_t why_size) {
    void *sym = dlsym(lib, name);
    if (sym == NULL) {
        snprintf(why, why_size, "%s not found in the peer library", name);
        return -1;
    }
    memcpy(fn_ptr, &sym, sizeof sym);
    return 0;
}

int bench_peers_reps(int forced, size_t samples) {
    if (forced > 0)
        return forced;
    double r = 1e8 / (double)samples;
    return r > 41 ? 41 : r < 5 ? 5 : (int)r;
}

int bench_peers_find(const bench_peers *p, int talib, const char *name, void *fn_ptr) {
    char why[160];
    void *lib = talib == BENCH_PEER_LIB_TALIB06 ? p->talib06_lib
                : talib == BENCH_PEER_LIB_TALIB ? p->talib_lib
                                                : p->tulip_lib;
    return lib == NULL ? -1 : symbol(lib, name, fn_ptr, why, sizeof why);
}

int bench_peers_load(const char *cache_dir, int rebuild, bench_peers *p, char *why,
                     size_t why_size) {
    memset(p, 0, sizeof *p);
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache_dir != NULL)
        snprintf(p->dir, sizeof p->dir, "%s", cache_dir);
    else if (xdg != NULL && xdg[0] == '/')
        snprintf(p->dir, sizeof p->dir, "%s/apportion-peers", xdg);
    else if (home != NULL && home[0] == '/')
        snprintf(p->dir, sizeof p->dir, "%s/.cache/apportion-peers", home);
    else {
        snprintf(why, why_size, "no cache folder: HOME is not set (give --cache DIR)");
        return -1;
    }
    const char *cc = getenv("CC");
    snprintf(p->cc, sizeof p->cc, "%s", cc != NULL && cc[0] != '\0' ? cc : "cc");
    snprintf(p->flags, sizeof p->flags, "%s", PEERS_FLAGS);
    if (make_dirs(p->dir) != 0) {
        snprintf(why, why_size, "cannot create the cache folder %s: %s", p->dir, strerror(errno));
        return -1;
    }
    char log[640], path[700], name[256];
    snprintf(log, sizeof log, "%s/build.log", p->dir);

    /* 1. A pip: python3's own in a virtual environment of the cache (python3-venv, which
     * scripts/deps.sh installs), since Debian's python3 comes without one. */
    snprintf(path, sizeof path, "%s/venv/bin/pip", p->dir);
    if (!exists(path)) {
        char *const venv[] = {"python3", "-m", "venv", "venv", NULL};
        const int rc = run(p->dir, venv, log, 300);
        if (rc != 0 || !exists(path)) {
            snprintf(why, why_size,
                     rc == 127 ? "python3 is not installed: no pip to fetch the peers with (see %s)"
                               : "`python3 -m venv` failed: python3-venv is missing "
                                 "(scripts/deps.sh installs it; see %s)",
                     log);
            return -1;
        }
    }

    /* 2. The packages: TA-Lib's wheel for this machine and Python (its shared library is the
     * same C library whatever the Python), and tulipy's sdist, whose metadata pip prepares
     * in a build environment of its own (Cython and numpy wheels, some 30 s the first time). */
    snprintf(path, sizeof path, "%s/" TULIPY_SDIST, p->dir);
    if (find_entry(p->dir, TALIB_WHEEL_PREFIX, ".whl", name, sizeof name) != 0 || !exists(path)) {
        char *const talib[] = {"venv/bin/pip", "download", "--no-deps",      "--only-binary=:all:",
                               "--dest",       ".",        BENCH_PEER_TALIB, NULL};
        char *const tulipy[] = {"venv/bin/pip", "download", "--no-deps",       "--no-binary=tulipy",
                                "--dest",       ".",        BENCH_PEER_TULIPY, NULL};
        const int rc = run(p->dir, talib, log, 600);
        const int rc2 = rc == 0 ? run(p->dir, tulipy, log, 600) : rc;
        if (rc2 != 0 || find_entry(p->dir, TALIB_WHEEL_PREFIX, ".whl", name, sizeof name) != 0 ||
            !exists(path)) {
            snprintf(why, why_size,
                     "`pip download " BENCH_PEER_TALIB " " BENCH_PEER_TULIPY
                     "` failed: PyPI is not reachable from here, or no wheel of " BENCH_PEER_TALIB
                     " fits this machine (see %s)",
                     log);
            return -1;
        }
    }

    /* 3. Their contents: the wheel's bundled TA-Lib (ta_lib.libs/libta-lib-<hash>.so.*, as
     * auditwheel names it) moved to a name of its own; Tulip's amalgamation from the sdist. */
    snprintf(path, sizeof path, "%s/" TALIB_LIB, p->dir);
    if (!exists(path)) {
        char *const unzip[] = {"python3", "-m", "zipfile", "-e", name, TALIB_WHEEL_DIR, NULL};
        char libs[640], found[256], from[1000];
        snprintf(libs, sizeof libs, "%s/" TALIB_WHEEL_DIR "/ta_lib.libs", p->dir);
        if (run(p->dir, unzip, log, 300) != 0 ||
            find_entry(libs, "libta-lib", ".so", found, sizeof found) != 0 ||
            snprintf(from, sizeof from, "%s/%s", libs, found) >= (int)sizeof from ||
            rename(from, path) != 0) {
            snprintf(why, why_size,
                     "cannot unpack TA-Lib's library from %s/%s: the wheel has no "
                     "ta_lib.libs/libta-lib*.so (see %s)",
                     p->dir, name, log);
            return -1;
        }
    }
    snprintf(path, sizeof path, "%s/" TULIPY_DIR "/libindicators/tiamalgamation.c", p->dir);
    if (!exists(path)) {
        char *const tar[] = {"tar", "-xzf", TULIPY_SDIST, NULL};
        if (run(p->dir, tar, log, 300) != 0 || !exists(path)) {
            snprintf(why, why_size, "cannot unpack %s/" TULIPY_SDIST " (see %s)", p->dir, log);
            return -1;
        }
    }

    /* 4. Tulip built. */
    snprintf(path, sizeof path, "%s/" TULIP_LIB, p->dir);
    if (rebuild || !exists(path)) {
        char *src[] = {TULIPY_DIR "/libindicators/tiamalgamation.c"};
        if (build_library(p, TULIP_LIB, NULL, 0, src, 1, log) != 0) {
            snprintf(why, why_size, "building Tulip Indicators with %s failed (see %s)", p->cc,
                     log);
            return -1;
        }
    }

    /* 5. Loaded; kept open for the rest of the program. */
    snprintf(path, sizeof path, "%s/" TULIP_LIB, p->dir);
    void *tulip = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    snprintf(path, sizeof path, "%s/" TALIB_LIB, p->dir);
    void *talib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (tulip == NULL || talib == NULL) {
        snprintf(why, why_size, "cannot load the peer libraries: %s", dlerror());
        return -1;
    }
    p->tulip_lib = tulip;
    p->talib_lib = talib;
    const char *(*ti_version)(void), *(*ta_version)(void);
    int (*ta_initialize)(void);
    if (symbol(tulip, "ti_bbands", &p->ti_bbands, why, why_size) != 0 ||
        symbol(tulip, "ti_macd", &p->ti_macd, why, why_size) != 0 ||
        symbol(tulip, "ti_version", &ti_version, why, why_size) != 0 ||
        symbol(talib, "TA_BBANDS", &p->ta_bbands, why, why_size) != 0 ||
        symbol(talib, "TA_MACD", &p->ta_macd, why, why_size) != 0 ||
        symbol(talib, "TA_Initialize", &ta_initialize, why, why_size) != 0 ||
        symbol(talib, "TA_GetVersionString", &ta_version, why, why_size) != 0)
        return -1;
    /* TA-Lib's EMA reads its globals (the unstable periods), which TA_Initialize sets up. */
    if (ta_initialize() != 0) {
        snprintf(why, why_size, "TA_Initialize failed");
        return -1;
    }
    snprintf(p->tulip_version, sizeof p->tulip_version, "%s", ti_version());
    /* TA-Lib's string ends with the date and time it was compiled; the version is enough. */
    snprintf(p->talib_version, sizeof p->talib_version, "%s", ta_version());
    p->talib_version[strcspn(p->talib_version, " ")] = '\0';

    /* 6. TA-Lib 0.6.0-dev where an older cache still holds its npm build: a second TA-Lib
     * column, else none (p->talib06_lib stays NULL). */
    snprintf(path, sizeof path, "%s/" TALIB06_LIB, p->dir);
    void *talib06 = exists(path) ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (talib06 != NULL && symbol(talib06, "TA_Initialize", &ta_initialize, why, why_size) == 0 &&
        symbol(talib06, "TA_GetVersionString", &ta_version, why, why_size) == 0 &&
        ta_initialize() == 0) {
        p->talib06_lib = talib06;
        snprintf(p->talib06_version, sizeof p->talib06_version, "%s", ta_version());
        p->talib06_version[strcspn(p->talib06_version, " ")] = '\0';
    } else if (talib06 != NULL) {
        dlclose(talib06);
    }
    why[0] = '\0';
    return 0;
}

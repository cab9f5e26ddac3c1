/*
 * peers.c: fetches, builds and loads Tulip Indicators and TA-Lib for apo-bench-peers
 * (peers.h), from the C sources their npm packages bundle, into a cache folder outside the
 * repository; nothing of them is part of apportion.
 *
 * Steps, each skipped when its result is already in the folder: `npm pack` of the two
 * pinned packages (the registry must be reachable), `tar` to unpack them, and the C
 * compiler ($CC, else cc) to build each into a shared library with the release build's
 * optimisation (-O3, nothing else: the libraries' own code as a user would build it). The
 * libraries are then opened with dlopen. Commands run with fork and exec (no shell), with
 * their output appended to <dir>/build.log and a time limit.
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
#define TULIND_DIR "tulind-0.8.20"
#define TALIB_DIR "talib-1.1.6"

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

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* TA-Lib's sources: every .c file of ta_func and the three ta_common files they need,
 * as paths relative to the cache folder; the list is freed by the caller. */
static char **talib_sources(const char *dir, size_t *n) {
    char path[640];
    snprintf(path, sizeof path, "%s/" TALIB_DIR "/src/lib/src/ta_func", dir);
    DIR *d = opendir(path);
    if (d == NULL)
        return NULL;
    size_t cap = 256, count = 0;
    char **list = calloc(cap, sizeof *list);
    struct dirent *e;
    while (list != NULL && (e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".c"))
            continue;
        if (count + 4 >= cap) {
            char **grown = realloc(list, 2 * cap * sizeof *list);
            if (grown == NULL)
                break;
            list = grown;
            cap *= 2;
        }
        size_t len = strlen(e->d_name) + 64;
        list[count] = malloc(len);
        if (list[count] != NULL)
            snprintf(list[count++], len, TALIB_DIR "/src/lib/src/ta_func/%s", e->d_name);
    }
    closedir(d);
    static const char *const common[] = {"ta_global.c", "ta_retcode.c", "ta_version.c"};
    for (size_t i = 0; list != NULL && i < 3; i++) {
        list[count] = malloc(96);
        if (list[count] != NULL)
            snprintf(list[count++], 96, TALIB_DIR "/src/lib/src/ta_common/%s", common[i]);
    }
    *n = count;
    return list;
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
    void *lib = talib ? p->talib_lib : p->tulip_lib;
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
    char log[640], path[700];
    snprintf(log, sizeof log, "%s/build.log", p->dir);

    /* 1. The packages. */
    char tulind_tgz[640], talib_tgz[640];
    snprintf(tulind_tgz, sizeof tulind_tgz, "%s/tulind-0.8.20.tgz", p->dir);
    snprintf(talib_tgz, sizeof talib_tgz, "%s/talib-1.1.6.tgz", p->dir);
    if (!exists(tulind_tgz) || !exists(talib_tgz)) {
        char *const npm[] = {"npm", "pack", BENCH_PEER_TULIND, BENCH_PEER_TALIB, NULL};
        int rc = run(p->dir, npm, log, 300);
        if (rc != 0 || !exists(tulind_tgz) || !exists(talib_tgz)) {
            snprintf(why, why_size,
                     rc == 127 ? "npm is not installed: `npm pack " BENCH_PEER_TULIND
                                 " " BENCH_PEER_TALIB "` cannot run (see %s)"
                               : "`npm pack " BENCH_PEER_TULIND " " BENCH_PEER_TALIB
                                 "` failed: the npm registry is not reachable from here, or "
                                 "npm failed (see %s)",
                     log);
            return -1;
        }
    }

    /* 2. Their sources. */
    static const struct {
        const char *tgz, *dir, *probe;
    } unpack[] = {
        {"tulind-0.8.20.tgz", TULIND_DIR, TULIND_DIR "/external/tiamalgamation.c"},
        {"talib-1.1.6.tgz", TALIB_DIR, TALIB_DIR "/src/lib/src/ta_func/ta_BBANDS.c"},
    };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", p->dir, unpack[i].probe);
        if (exists(path))
            continue;
        snprintf(path, sizeof path, "%s/%s", p->dir, unpack[i].dir);
        char *const tar[] = {"tar",
                             "-xzf",
                             (char *)unpack[i].tgz,
                             "-C",
                             (char *)unpack[i].dir,
                             "--strip-components=1",
                             NULL};
        if (make_dirs(path) != 0 || run(p->dir, tar, log, 300) != 0) {
            snprintf(why, why_size, "cannot unpack %s/%s (see %s)", p->dir, unpack[i].tgz, log);
            return -1;
        }
    }

    /* 3. The libraries. */
    snprintf(path, sizeof path, "%s/libtulip.so", p->dir);
    if (rebuild || !exists(path)) {
        char *src[] = {TULIND_DIR "/external/tiamalgamation.c"};
        if (build_library(p, "libtulip.so", NULL, 0, src, 1, log) != 0) {
            snprintf(why, why_size, "building Tulip Indicators with %s failed (see %s)", p->cc,
                     log);
            return -1;
        }
    }
    snprintf(path, sizeof path, "%s/libtalib.so", p->dir);
    if (rebuild || !exists(path)) {
        static const char *const incs[] = {"-I" TALIB_DIR "/src/lib/include",
                                           "-I" TALIB_DIR "/src/lib/src/ta_common",
                                           "-I" TALIB_DIR "/src/lib/src/ta_func"};
        size_t n = 0;
        char **src = talib_sources(p->dir, &n);
        int rc = src != NULL && n > 3 ? build_library(p, "libtalib.so", incs, 3, src, n, log) : -1;
        for (size_t i = 0; src != NULL && i < n; i++)
            free(src[i]);
        free(src);
        if (rc != 0) {
            snprintf(why, why_size, "building TA-Lib with %s failed (see %s)", p->cc, log);
            return -1;
        }
    }

    /* 4. Loaded; kept open for the rest of the program. */
    snprintf(path, sizeof path, "%s/libtulip.so", p->dir);
    void *tulip = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    snprintf(path, sizeof path, "%s/libtalib.so", p->dir);
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
    return 0;
}

/*
 * Opens libnccl.so.2 once per process and resolves the calls of apo__nccl_api. The loader's
 * own search path (LD_LIBRARY_PATH, ld.so.cache) comes first, so a user can point at the
 * NCCL of their choice; the CUDA toolkit's library folders found at build time are the
 * fallback, because NVIDIA's packages put NCCL there, off the default path.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "devices/cuda/nccl_loader.h"

#ifdef APO_HAVE_NCCL
#include <dlfcn.h>

/* ncclSend and ncclRecv appeared in NCCL 2.7. */
#define APO_NCCL_MIN_VERSION 20700

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static apo__nccl_api api;
static int loaded;
static char load_problem[256];

static void *open_library(void) {
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (h != NULL)
        return h;
    char dirs[] = APO_NCCL_FALLBACK_DIRS;
    char *save = NULL;
    for (char *dir = strtok_r(dirs, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
        char path[1024];
        snprintf(path, sizeof path, "%s/libnccl.so.2", dir);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
    }
    return NULL;
}

/* Resolves `name` into the function pointer at `slot`; 0 when the library lacks it. The
 * pointer dlsym() returns is copied bytewise: POSIX guarantees that it converts to a
 * function pointer, and the copy does so without a cast C leaves undefined. */
static int resolve(void *h, const char *name, void *slot, size_t slot_size) {
    void *sym = dlsym(h, name);
    if (sym == NULL || slot_size != sizeof sym) {
        snprintf(load_problem, sizeof load_problem, "libnccl.so.2 has no %s", name);
        return 0;
    }
    memcpy(slot, &sym, sizeof sym);
    return 1;
}

#define RESOLVE(h, name, fn) resolve(h, name, &(fn), sizeof(fn))

static void load(void) {
    void *h = open_library();
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(load_problem, sizeof load_problem,
                 "libnccl.so.2 not found on the loader's path nor in %s (%s)",
                 APO_NCCL_FALLBACK_DIRS, e != NULL ? e : "no detail");
        return;
    }
    ncclResult_t (*get_version)(int *) = NULL;
    int ok = RESOLVE(h, "ncclGetVersion", get_version) &&
             RESOLVE(h, "ncclCommInitAll", api.comm_init_all) &&
             RESOLVE(h, "ncclCommDestroy", api.comm_destroy) &&
             RESOLVE(h, "ncclGroupStart", api.group_start) &&
             RESOLVE(h, "ncclGroupEnd", api.group_end) && RESOLVE(h, "ncclSend", api.send) &&
             RESOLVE(h, "ncclRecv", api.recv) && RESOLVE(h, "ncclGetErrorString", api.error_string);
    if (ok && (get_version(&api.version) != ncclSuccess || api.version < APO_NCCL_MIN_VERSION)) {
        snprintf(load_problem, sizeof load_problem,
                 "libnccl.so.2 is version code %d; send and receive need 2.7 or later",
                 api.version);
        ok = 0;
    }
    if (!ok) {
        dlclose(h);
        memset(&api, 0, sizeof api);
        return;
    }
    loaded = 1;
}

const apo__nccl_api *apo__nccl_load(char *why, size_t why_size) {
    pthread_once(&load_once, load);
    if (loaded)
        return &api;
    snprintf(why, why_size, "%s", load_problem);
    return NULL;
}

#else

const apo__nccl_api *apo__nccl_load(char *why, size_t why_size) {
    snprintf(why, why_size, "this build has no NCCL support (nccl.h was not found at build time)");
    return NULL;
}

#endif

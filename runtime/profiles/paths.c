/*
 * Where the profile files are (profile_store.h, docs/profiles.md): an explicit path, else
 * APPORTION_PROFILE_DIR, else the XDG state folder, else ~/.local/state; and the folder a
 * file is written in, created when missing. The inputs come from base/settings (the
 * environment, THREADX_* names included) or the config; nothing here reads the
 * environment itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "profiles/profile_store.h"
#include "profiles/text.h"

/* dir + "/" + rest (one slash between them), or -1 when it does not fit APO_PATH_MAX. */
static int join_path(char *out, const char *dir, const char *rest) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    int sep = !(len == 1 && dir[0] == '/');
    int n = snprintf(out, APO_PATH_MAX, "%.*s%s%s", (int)len, dir, sep ? "/" : "", rest);
    return (n < 0 || n >= APO_PATH_MAX) ? -1 : 0;
}

/* Whether a setting is given: not NULL and not empty. */
static int given(const char *s) { return s != NULL && s[0] != '\0'; }

static apo_status resolve_one(const apo__profile_location *loc, const char *explicit_path,
                              const char *name, char *out, char *err, size_t err_size) {
    out[0] = '\0';
    char file[32];
    snprintf(file, sizeof file, "%s.json", name);
    int failed;
    const char *from;
    if (given(explicit_path)) {
        from = "the explicit path";
        failed = snprintf(out, APO_PATH_MAX, "%s", explicit_path) >= APO_PATH_MAX;
    } else if (given(loc->profile_dir)) {
        from = "APPORTION_PROFILE_DIR";
        failed = join_path(out, loc->profile_dir, file);
    } else if (given(loc->xdg_state_home) && loc->xdg_state_home[0] == '/') {
        /* The XDG Base Directory specification says a relative value is invalid and is to
         * be ignored, so it falls through to HOME. */
        char rest[96];
        snprintf(rest, sizeof rest, "apportion/%s", file);
        from = "XDG_STATE_HOME";
        failed = join_path(out, loc->xdg_state_home, rest);
    } else if (given(loc->home)) {
        char rest[96];
        snprintf(rest, sizeof rest, ".local/state/apportion/%s", file);
        from = "HOME";
        failed = join_path(out, loc->home, rest);
    } else {
        apo__errf(err, err_size,
                  "no location for %s: no explicit path, and none of APPORTION_PROFILE_DIR, "
                  "XDG_STATE_HOME and HOME is set",
                  file);
        return APO_ERR_NOT_FOUND;
    }
    if (failed) {
        out[0] = '\0';
        apo__errf(err, err_size, "the path of %s from %s is longer than %d bytes", file, from,
                  APO_PATH_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

apo_status apo__profile_paths(const apo__profile_location *loc, char *multigpu, char *thresholds,
                              char *err, size_t err_size) {
    apo__errf(err, err_size, "%s", "");
    if (loc == NULL || multigpu == NULL || thresholds == NULL) {
        apo__errf(err, err_size, "apo__profile_paths: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    /* Both are resolved even when the first fails, so that a caller can still use the one
     * that has a location. */
    apo_status a = resolve_one(loc, loc->multigpu_path, "multigpu", multigpu, err, err_size);
    char err2[APO_LABEL_MAX * 2];
    apo_status b =
        resolve_one(loc, loc->thresholds_path, "thresholds", thresholds, err2, sizeof err2);
    if (a != APO_OK)
        return a;
    if (b != APO_OK)
        apo__errf(err, err_size, "%s", err2);
    return b;
}

apo_status apo__profile_make_dir(const char *path, char *err, size_t err_size) {
    char dir[APO_PATH_MAX];
    char why[128];
    if (path == NULL || !apo__fits(path, sizeof dir)) {
        apo__errf(err, err_size, "profile path missing or longer than %d bytes", APO_PATH_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return APO_OK; /* the current folder */
    while (slash > dir && slash[-1] == '/')
        slash--;
    if (slash == dir)
        return APO_OK; /* the root */
    *slash = '\0';

    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return APO_OK;
    /* Each missing component is made in turn; one that exists is fine as long as it is a
     * folder, which the next mkdir (ENOTDIR) or the final check finds out. */
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            apo__errf(err, err_size, "cannot create the folder %s: %s", dir,
                      apo__errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        apo__errf(err, err_size, "cannot use %s as the profile folder: it is not a folder", dir);
        return APO_ERR_IO;
    }
    return APO_OK;
}

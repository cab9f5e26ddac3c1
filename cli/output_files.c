/*
 * The output files of one run, written as a set (see output_files.h and docs/cli.md).
 */
#include "output_files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define ERR(...)                                                                                   \
    do {                                                                                           \
        if (err_size > 0)                                                                          \
            snprintf(err, err_size, __VA_ARGS__);                                                  \
    } while (0)

#define PATH_CAP 4096
#define N_SIGNALS 3

typedef struct output_file {
    char name[256];
    char path[PATH_CAP];
    char temp[PATH_CAP];
    /* temp may name a file of this set: remove it on abort. Set before mkstemp() creates
     * the file, so that a signal in between finds it (a name not created yet is harmless to
     * unlink: mkstemp() picks names nobody else has). */
    volatile sig_atomic_t armed;
    int fd;
    size_t rows, cols;
    size_t appended; /* values written by cli_output_files_append() */
    int written;
} output_file;

/* The open set. Everything the signal handler reads is here, in static storage. */
static struct {
    int open;
    cli_format format;
    size_t n;
    output_file files[CLI_OUTPUT_FILES_MAX];
    char dir[PATH_CAP];
    /* The folders the set created are the prefixes of dir whose length is at least this
     * (0: none). */
    volatile sig_atomic_t created_from;
    struct sigaction old[N_SIGNALS];
    int handled[N_SIGNALS];
} set;

static const int cleanup_signals[N_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};

/* Removes the temporary files and the folders the set created. Async-signal-safe: unlink(),
 * rmdir() and plain memory only. */
static void remove_what_the_set_made(void) {
    for (size_t i = 0; i < set.n; i++) {
        if (set.files[i].armed) {
            unlink(set.files[i].temp);
            set.files[i].armed = 0;
        }
    }
    if (set.created_from <= 0)
        return;
    /* The deepest created folder first; rmdir() leaves a folder that is not empty alone. */
    size_t len = 0;
    while (set.dir[len] != '\0')
        len++;
    while (len >= (size_t)set.created_from) {
        if (rmdir(set.dir) != 0)
            break;
        while (len > 0 && set.dir[len - 1] != '/')
            len--;
        while (len > 1 && set.dir[len - 1] == '/')
            len--;
        set.dir[len] = '\0';
    }
    set.created_from = 0;
}

/* SA_RESETHAND has restored the default action: raising the signal again, once this handler
 * returns, ends the process as the signal would have. */
static void on_signal(int sig) {
    remove_what_the_set_made();
    raise(sig);
}

static void catch_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < N_SIGNALS; k++)
        sigaddset(&sa.sa_mask, cleanup_signals[k]);
    for (int k = 0; k < N_SIGNALS; k++) {
        set.handled[k] = 0;
        if (sigaction(cleanup_signals[k], NULL, &set.old[k]) != 0)
            continue;
        /* A signal the caller ignores (nohup, a background job) stays ignored. */
        if (set.old[k].sa_handler == SIG_IGN)
            continue;
        set.handled[k] = sigaction(cleanup_signals[k], &sa, NULL) == 0;
    }
}

static void release_signals(void) {
    for (int k = 0; k < N_SIGNALS; k++)
        if (set.handled[k])
            sigaction(cleanup_signals[k], &set.old[k], NULL);
}

static void close_set(void) {
    for (size_t i = 0; i < set.n; i++) {
        if (set.files[i].fd >= 0)
            close(set.files[i].fd);
        set.files[i].fd = -1;
    }
    release_signals();
    set.open = 0;
}

void cli_output_files_abort(void) {
    if (!set.open)
        return;
    for (size_t i = 0; i < set.n; i++) {
        if (set.files[i].fd >= 0)
            close(set.files[i].fd);
        set.files[i].fd = -1;
    }
    remove_what_the_set_made();
    close_set();
}

/* Creates set.dir and its missing parents (mode 0755, less the umask), noting the first
 * folder created. */
static int make_dirs(char *err, size_t err_size) {
    char *path = set.dir;
    const size_t n = strlen(path);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && path[i] != '/')
            continue;
        if (i < n && path[i - 1] == '/')
            continue;
        const char saved = path[i];
        path[i] = '\0';
        const int made = mkdir(path, 0755) == 0;
        const int e = errno;
        path[i] = saved;
        if (made && set.created_from == 0)
            set.created_from = (sig_atomic_t)i;
        if (!made && e != EEXIST) {
            path[i] = '\0';
            ERR("cannot create directory %s: %s", path, strerror(e));
            path[i] = saved;
            return -1;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ERR("%s exists and is not a directory", path);
        return -1;
    }
    return 0;
}

/* This machine's name as it goes into a temporary file's name: letters, digits, '_' and
 * '-' only (no '.', which separates the name's fields), at most 63 of them. */
static void host_tag(char *out, size_t size) {
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        snprintf(host, sizeof host, "localhost");
    size_t n = 0;
    for (const char *c = host; *c != '\0' && n + 1 < size && n < 63; c++)
        out[n++] = isalnum((unsigned char)*c) || *c == '-' ? *c : '_';
    out[n] = '\0';
}

/* Whether `entry` is a temporary output file named as open_file() names them,
 * .NAME.EXT.HOST-PID.XXXXXX with EXT f64 or csv, of this machine (`host`) and of a process
 * other than this one; *pid is that process. */
static int temp_of_other_process(const char *entry, const char *host, pid_t *pid) {
    const size_t len = strlen(entry);
    if (entry[0] != '.' || len < 8 || entry[len - 7] != '.')
        return 0;
    /* Back from the random suffix: the HOST-PID field, then the extension. */
    size_t end = len - 7, start = end;
    while (start > 0 && entry[start - 1] != '.')
        start--;
    if (start < 6 || (strncmp(entry + start - 5, ".f64.", 5) != 0 &&
                      strncmp(entry + start - 5, ".csv.", 5) != 0))
        return 0;
    size_t dash = end;
    while (dash > start && entry[dash - 1] != '-')
        dash--;
    if (dash == start || dash == end || dash - 1 - start != strlen(host) ||
        strncmp(entry + start, host, dash - 1 - start) != 0)
        return 0;
    long long value = 0;
    for (size_t i = dash; i < end; i++) {
        if (!isdigit((unsigned char)entry[i]) || value > 1000000000LL)
            return 0;
        value = value * 10 + (entry[i] - '0');
    }
    if (value <= 0 || (pid_t)value == getpid())
        return 0;
    *pid = (pid_t)value;
    return 1;
}

/* Removes from set.dir the temporary output files that processes of this machine which no
 * longer run left there (kill -9, a crash, a power cut: nothing could remove them then, and
 * a raw output's are as large as its output). A process that runs, or whose state cannot be
 * told, keeps its files; so does any other file. Says on stderr what it removed. */
static void remove_stale_temps(void) {
    char host[64];
    host_tag(host, sizeof host);
    DIR *d = opendir(set.dir);
    if (d == NULL)
        return;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid;
        if (!temp_of_other_process(e->d_name, host, &pid))
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* running (EPERM: running as another user) */
        char path[PATH_CAP];
        struct stat st;
        const int n = snprintf(path, sizeof path, "%s/%s", set.dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlink(path) == 0)
            fprintf(stderr,
                    "apportion: removed %s (%lld bytes), a temporary output file that process %lld "
                    "left when it ended without finishing its run\n",
                    path, (long long)st.st_size, (long long)pid);
    }
    closedir(d);
}

static int open_file(output_file *f, const char *name, char *err, size_t err_size) {
    const char *ext = set.format == CLI_FORMAT_CSV ? "csv" : "f64";
    char host[64];
    host_tag(host, sizeof host);
    int w = snprintf(f->name, sizeof f->name, "%s", name);
    int p = snprintf(f->path, sizeof f->path, "%s/%s.%s", set.dir, name, ext);
    /* The host and pid tell a later run whether the file's process still runs
     * (remove_stale_temps). */
    int t = snprintf(f->temp, sizeof f->temp, "%s/.%s.%s.%s-%lld.XXXXXX", set.dir, name, ext, host,
                     (long long)getpid());
    if (w < 0 || (size_t)w >= sizeof f->name || p < 0 || (size_t)p >= sizeof f->path || t < 0 ||
        (size_t)t >= sizeof f->temp) {
        ERR("output path %s/%s.%s is too long", set.dir, name, ext);
        return -1;
    }
    struct stat st;
    if (lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        ERR("%s exists and is not a regular file", f->path);
        return -1;
    }
    f->armed = 1;
    f->fd = mkstemp(f->temp);
    if (f->fd < 0) {
        f->armed = 0;
        ERR("cannot create a file in %s: %s", set.dir, strerror(errno));
        return -1;
    }
    /* mkstemp() creates the file 0600; outputs are ordinary files readable by others. */
    if (fchmod(f->fd, 0644) != 0) {
        ERR("cannot set the mode of %s: %s", f->temp, strerror(errno));
        return -1;
    }
    if (set.format == CLI_FORMAT_F64) {
        /* The size of a raw output is known: reserving it now makes a disk without room
         * fail before the work. A file system that cannot reserve is left to the write. */
        const size_t bytes = f->rows * f->cols * sizeof(double);
        const int rc = bytes > 0 && (off_t)bytes > 0 ? posix_fallocate(f->fd, 0, (off_t)bytes) : 0;
        if (rc != 0 && rc != EINVAL && rc != EOPNOTSUPP) {
            ERR("no room for %s (%zu bytes): %s", f->path, bytes, strerror(rc));
            return -1;
        }
    }
    return 0;
}

int cli_output_files_open(const char *dir, cli_format format, const char *const *names,
                          const size_t *rows, const size_t *cols, size_t n, char *err,
                          size_t err_size) {
    if (set.open)
        cli_output_files_abort();
    memset(&set, 0, sizeof set);
    if (n == 0 || n > CLI_OUTPUT_FILES_MAX) {
        ERR("%zu outputs (1 to %d can be written)", n, CLI_OUTPUT_FILES_MAX);
        return -1;
    }
    size_t len = strlen(dir);
    if (len == 0) {
        ERR("empty output directory name");
        return -1;
    }
    if (len >= sizeof set.dir) {
        ERR("output directory name is too long");
        return -1;
    }
    memcpy(set.dir, dir, len + 1);
    /* "out/" and "out" are one folder; the names of its files have one separator. */
    while (len > 1 && set.dir[len - 1] == '/')
        set.dir[--len] = '\0';
    set.format = format;
    for (size_t i = 0; i < CLI_OUTPUT_FILES_MAX; i++)
        set.files[i].fd = -1;
    set.open = 1;
    catch_signals();
    if (make_dirs(err, err_size) != 0) {
        cli_output_files_abort();
        return -1;
    }
    remove_stale_temps();
    for (size_t i = 0; i < n; i++) {
        set.files[i].rows = rows[i];
        set.files[i].cols = cols[i];
        set.n = i + 1;
        if (open_file(&set.files[i], names[i], err, err_size) != 0) {
            cli_output_files_abort();
            return -1;
        }
    }
    return 0;
}

/* Writes one CSV number so that strtod() gives back the same double. */
int cli_output_put_number(FILE *f, double v) {
    if (isnan(v))
        return fputs("nan", f) < 0 ? -1 : 0;
    if (isinf(v))
        return fputs(v < 0 ? "-inf" : "inf", f) < 0 ? -1 : 0;
    return fprintf(f, "%.17g", v) < 0 ? -1 : 0;
}

/* CSV layout: one column per row of the output and one line per sample, under a header of
 * NAME (rows == 1) or NAME_0 .. NAME_{rows-1}. The file reads back with `--input`. */
static int write_csv(FILE *f, const char *name, const double *data, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; r++) {
        if (r > 0 && fputc(',', f) == EOF)
            return -1;
        if ((rows == 1 ? fprintf(f, "%s", name) : fprintf(f, "%s_%zu", name, r)) < 0)
            return -1;
    }
    if (fputc('\n', f) == EOF)
        return -1;
    for (size_t c = 0; c < cols; c++) {
        for (size_t r = 0; r < rows; r++) {
            if (r > 0 && fputc(',', f) == EOF)
                return -1;
            if (cli_output_put_number(f, data[r * cols + c]) != 0)
                return -1;
        }
        if (fputc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

/* A text field as CSV writes it: quoted (with "" for a quote) when it holds a comma, a
 * quote or a line break, as it is otherwise. */
int cli_output_put_text(FILE *f, const char *t) {
    if (strpbrk(t, ",\"\r\n") == NULL)
        return fputs(t, f) < 0 ? -1 : 0;
    if (fputc('"', f) == EOF)
        return -1;
    for (const char *c = t; *c != '\0'; c++)
        if ((*c == '"' && fputc('"', f) == EOF) || fputc(*c, f) == EOF)
            return -1;
    return fputc('"', f) == EOF ? -1 : 0;
}

/* The layout of named series (docs/cli/run.md, "Output files"): one column per series, each
 * preceded by its own index column when the index is not shared; line k holds sample k of
 * every series, with empty fields past the end of a shorter one. */
static int write_csv_columns(FILE *f, const cli_output_column *cols, size_t n,
                             const char *index_name, int shared_index) {
    size_t longest = 0;
    for (size_t j = 0; j < n; j++)
        if (cols[j].length > longest)
            longest = cols[j].length;
    const int any_index = index_name != NULL;
    if (any_index && shared_index &&
        (cli_output_put_text(f, index_name) != 0 || fputc(',', f) == EOF))
        return -1;
    for (size_t j = 0; j < n; j++) {
        if (j > 0 && fputc(',', f) == EOF)
            return -1;
        if (any_index && !shared_index) {
            char head[512];
            snprintf(head, sizeof head, "%s_%s", cols[j].name, index_name);
            if (cli_output_put_text(f, head) != 0 || fputc(',', f) == EOF)
                return -1;
        }
        if (cli_output_put_text(f, cols[j].name) != 0)
            return -1;
    }
    if (fputc('\n', f) == EOF)
        return -1;
    for (size_t k = 0; k < longest; k++) {
        if (any_index && shared_index &&
            (cli_output_put_text(f, cols[0].index[k]) != 0 || fputc(',', f) == EOF))
            return -1;
        for (size_t j = 0; j < n; j++) {
            if (j > 0 && fputc(',', f) == EOF)
                return -1;
            const int inside = k < cols[j].length;
            if (any_index && !shared_index &&
                ((inside && cli_output_put_text(f, cols[j].index[k]) != 0) || fputc(',', f) == EOF))
                return -1;
            if (inside && cli_output_put_number(f, cols[j].values[k]) != 0)
                return -1;
        }
        if (fputc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

static int write_f64(FILE *f, const double *data, size_t n) {
    if (cli_host_is_little_endian())
        return fwrite(data, sizeof *data, n, f) == n ? 0 : -1;
    double chunk[512];
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        memcpy(chunk, data + i, m * sizeof *chunk);
        cli_swap8(chunk, m);
        if (fwrite(chunk, sizeof *chunk, m, f) != m)
            return -1;
    }
    return 0;
}

/* Opens output i's temporary file as a stream and hands it to write(); then syncs it. */
typedef struct write_job {
    const double *data;
    const cli_output_column *cols;
    size_t n_cols;
    const char *index_name;
    int shared_index;
    cli_output_writer writer; /* a layout of the caller's, with its ctx */
    void *ctx;
} write_job;

static int write_output(size_t i, const write_job *job, char *err, size_t err_size);

int cli_output_files_write(size_t i, const double *data, char *err, size_t err_size) {
    write_job job = {.data = data};
    return write_output(i, &job, err, err_size);
}

int cli_output_files_append(size_t i, const double *data, size_t n, char *err, size_t err_size) {
    if (!set.open || i >= set.n || set.files[i].fd < 0 || set.files[i].written ||
        set.format != CLI_FORMAT_F64) {
        ERR("output %zu is not open for appending", i);
        return -1;
    }
    output_file *o = &set.files[i];
    if (n > o->rows * o->cols - o->appended) {
        ERR("%s: more values than its %zu x %zu", o->path, o->rows, o->cols);
        return -1;
    }
    /* A little-endian host writes the values as they lie, in as few calls as the system
     * takes: a piece is often hundreds of MiB, and 4 KiB at a time cost a system call and a
     * copy each. A big-endian host swaps them through a small buffer first. */
    const int swap = !cli_host_is_little_endian();
    double chunk[512];
    for (size_t k = 0; k < n;) {
        const size_t m = swap ? (n - k < 512 ? n - k : 512) : n - k;
        const char *p = (const char *)(data + k);
        if (swap) {
            memcpy(chunk, data + k, m * sizeof *chunk);
            cli_swap8(chunk, m);
            p = (const char *)chunk;
        }
        size_t left = m * sizeof *chunk;
        off_t at = (off_t)((o->appended + k) * sizeof *chunk);
        while (left > 0) {
            const ssize_t w = pwrite(o->fd, p, left, at);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                ERR("cannot write %s: %s", o->path, strerror(w < 0 ? errno : ENOSPC));
                return -1;
            }
            p += w;
            at += w;
            left -= (size_t)w;
        }
        k += m;
    }
    o->appended += n;
    if (o->appended == o->rows * o->cols) {
        const int rc = fsync(o->fd);
        const int e = errno;
        close(o->fd);
        o->fd = -1;
        if (rc != 0) {
            ERR("cannot write %s: %s", o->path, strerror(e));
            return -1;
        }
        o->written = 1;
    }
    return 0;
}

int cli_output_files_write_columns(size_t i, const cli_output_column *cols, size_t n,
                                   const char *index_name, int shared_index, char *err,
                                   size_t err_size) {
    if (set.open && set.format != CLI_FORMAT_CSV) {
        ERR("named series are written as CSV only");
        return -1;
    }
    write_job job = {
        .cols = cols, .n_cols = n, .index_name = index_name, .shared_index = shared_index};
    return write_output(i, &job, err, err_size);
}

int cli_output_files_write_with(size_t i, cli_output_writer writer, void *ctx, char *err,
                                size_t err_size) {
    if (set.open && set.format != CLI_FORMAT_CSV) {
        ERR("a layout of the caller's is written as CSV only");
        return -1;
    }
    write_job job = {.writer = writer, .ctx = ctx};
    return write_output(i, &job, err, err_size);
}

static int write_output(size_t i, const write_job *job, char *err, size_t err_size) {
    if (!set.open || i >= set.n || set.files[i].fd < 0 || set.files[i].written) {
        ERR("output %zu is not open for writing", i);
        return -1;
    }
    output_file *o = &set.files[i];
    FILE *f = fdopen(o->fd, "wb");
    if (f == NULL) {
        ERR("cannot write %s: %s", o->path, strerror(errno));
        return -1;
    }
    o->fd = -1; /* the stream owns it now */
    errno = 0;
    int rc = job->writer != NULL ? job->writer(f, job->ctx)
             : job->cols != NULL
                 ? write_csv_columns(f, job->cols, job->n_cols, job->index_name, job->shared_index)
             : set.format == CLI_FORMAT_CSV ? write_csv(f, o->name, job->data, o->rows, o->cols)
                                            : write_f64(f, job->data, o->rows * o->cols);
    if (rc == 0)
        rc = fflush(f);
    if (rc == 0)
        rc = fsync(fileno(f));
    const int saved = errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -1;
    if (rc != 0) {
        ERR("cannot write %s: %s", o->path, strerror(saved != 0 ? saved : errno));
        return -1;
    }
    o->written = 1;
    return 0;
}

int cli_output_files_commit(char *err, size_t err_size) {
    if (!set.open) {
        ERR("no output files are open");
        return -1;
    }
    for (size_t i = 0; i < set.n; i++) {
        if (!set.files[i].written) {
            ERR("%s was not written", set.files[i].path);
            cli_output_files_abort();
            return -1;
        }
    }
    /* Every output is complete: only now does any old file give way. */
    for (size_t i = 0; i < set.n; i++) {
        if (rename(set.files[i].temp, set.files[i].path) != 0) {
            const int e = errno;
            if (i == 0)
                ERR("cannot rename %s to %s: %s", set.files[i].temp, set.files[i].path,
                    strerror(e));
            else
                ERR("cannot rename %s to %s: %s (the %zu output file(s) before it are new, "
                    "the others old)",
                    set.files[i].temp, set.files[i].path, strerror(e), i);
            cli_output_files_abort();
            return -1;
        }
        set.files[i].armed = 0;
    }
    /* The renames themselves reach the disk with the folder. */
    const int fd = open(set.dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    set.created_from = 0;
    close_set();
    return 0;
}

const char *cli_output_files_path(size_t i) {
    return i < CLI_OUTPUT_FILES_MAX ? set.files[i].path : "";
}

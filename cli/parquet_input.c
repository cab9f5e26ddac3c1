/*
 * Parquet input through pyarrow (see parquet_input.h and docs/cli/run.md, "Parquet").
 *
 * Why CSV text on the pipe rather than binary columns: the tool's CSV reader already holds
 * every rule of its input (which column --column names, the index found by itself, groups,
 * the marks of a missing value, negative volume, the order of dates), so Parquet goes
 * through the same rules rather than a second copy of them, and its refusals are CSV's by
 * construction. Numbers lose nothing: pyarrow writes each double in the shortest text that
 * reads back as the same double, which strtod() reads back exactly.
 *
 * Why the helper is a string here rather than a file installed beside the tool: the tool
 * then finds it wherever `meson install` (or a copy) puts the binary, and no older helper
 * on disk can pair with a newer tool.
 */
#include "parquet_input.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ERR(...)                                                                                   \
    do {                                                                                           \
        if (err_size > 0)                                                                          \
            snprintf(err, err_size, __VA_ARGS__);                                                  \
    } while (0)

/* The helper's exit statuses, written into its source below so that the two cannot differ. */
#define HELPER_NO_PYARROW 3
#define HELPER_NOT_PARQUET 4
#define STR_(x) #x
#define STR(x) STR_(x)

/* Reads the file (argv[1], "-": standard input) with pyarrow and writes its table to standard
 * output as CSV, through pyarrow's CSV writer: numbers unquoted in the shortest text that
 * reads back as the same double (a float32 widened first), nulls as empty fields (so
 * --missing-as-nan decides, as in a CSV file), text quoted, dates as ISO 8601, and times in
 * the coarsest unit that holds them: a date alone when every time of a column without a
 * zone is midnight, with the column's zone as an offset (Z for UTC) when it has one. A
 * column the writer cannot write (a list, a struct, bytes that are not UTF-8) is left out,
 * so that it can be no value column and is never taken for the dates, while the file's other
 * columns read as ever. On failure: one line on standard error and a status that the tool
 * words. One line of Python a line of C, as the
 * interpreter reads it. */
// clang-format off
const char cli_parquet_helper_source[] =
    "import sys\n"
    "sys.path[:] = [p for p in sys.path if p not in ('', '.')]\n"
    "def fail(status, message):\n"
    "    sys.stderr.write(' '.join(str(message).split()) + '\\n')\n"
    "    sys.exit(status)\n"
    "try:\n"
    "    import pyarrow as pa\n"
    "    import pyarrow.compute as pc\n"
    "    import pyarrow.csv as pcsv\n"
    "    import pyarrow.parquet as pq\n"
    "except ImportError as e:\n"
    "    fail(" STR(HELPER_NO_PYARROW) ", e)\n"
    "def times(col):\n"
    "    zone = col.type.tz\n"
    "    for unit in ('s', 'ms', 'us', 'ns'):\n"
    "        try:\n"
    "            col = col.cast(pa.timestamp(unit, zone), safe=True)\n"
    "            break\n"
    "        except pa.ArrowInvalid:\n"
    "            pass\n"
    "    if zone is None and col.type.unit == 's':\n"
    "        days = col.cast(pa.date32())\n"
    "        if pc.all(pc.equal(days.cast(col.type), col)).as_py() is not False:\n"
    "            return days\n"
    "    return col\n"
    "def writable(col):\n"
    "    t = col.type\n"
    "    if pa.types.is_dictionary(t):\n"
    "        return writable(col.cast(t.value_type))\n"
    "    if pa.types.is_timestamp(t):\n"
    "        return times(col)\n"
    "    if pa.types.is_floating(t):\n"
    "        return col.cast(pa.float64())\n"
    "    binary = pa.types.is_binary(t) or pa.types.is_large_binary(t)\n"
    "    try:\n"
    "        if binary or pa.types.is_fixed_size_binary(t):\n"
    "            return col.cast(pa.string())\n"
    "        col.slice(0, 1).cast(pa.string())\n"
    "        return col\n"
    "    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):\n"
    "        return None\n"
    "try:\n"
    "    if sys.argv[1] == '-':\n"
    "        src = pa.BufferReader(sys.stdin.buffer.read())\n"
    "    else:\n"
    "        src = pa.OSFile(sys.argv[1])\n"
    "    table = pq.read_table(src)\n"
    "except Exception as e:\n"
    "    fail(" STR(HELPER_NOT_PARQUET) ", e)\n"
    "try:\n"
    "    kept = [(n, writable(c)) for n, c in zip(table.column_names, table.columns)]\n"
    "    kept = [(n, c) for n, c in kept if c is not None]\n"
    "    out = pa.Table.from_arrays([c for n, c in kept], names=[n for n, c in kept])\n"
    "    pcsv.write_csv(out, sys.stdout.buffer)\n"
    "    sys.stdout.flush()\n"
    "except BrokenPipeError:\n"
    "    sys.exit(1)\n"
    "except Exception as e:\n"
    "    fail(1, 'cannot write the table as CSV text: %s' % e)\n";
// clang-format on

/* The last line the helper wrote on standard error, without control bytes, in msg. */
static void last_line(FILE *f, char *msg, size_t size) {
    char line[512];
    msg[0] = '\0';
    rewind(f);
    while (fgets(line, sizeof line, f) != NULL) {
        size_t n = strcspn(line, "\r\n");
        if (n == 0)
            continue;
        line[n] = '\0';
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
                line[i] = '?';
        snprintf(msg, size, "%s", line);
    }
}

/* Reads fd to its end into *text (*len bytes). Returns 0, or -1 with errno set. */
static int read_pipe(int fd, char **text, size_t *len) {
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            const size_t c = cap ? cap * 2 : 65536;
            char *g = cap > SIZE_MAX / 2 ? NULL : realloc(b, c);
            if (g == NULL) {
                free(b);
                errno = ENOMEM;
                return -1;
            }
            b = g;
            cap = c;
        }
        const ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            const int e = errno;
            free(b);
            errno = e;
            return -1;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *text = b;
    *len = n;
    return 0;
}

/* Starts the helper on path with its standard output on out_fd and its standard error on
 * err_fd. Returns 0 with *pid, or an errno value. */
static int start_helper(const char *python, const char *path, int out_fd, int pipe_read, int err_fd,
                        pid_t *pid) {
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0)
        return rc;
    if ((rc = posix_spawn_file_actions_addclose(&fa, pipe_read)) == 0 &&
        (rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO)) == 0 &&
        (rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO)) == 0 &&
        (rc = posix_spawn_file_actions_addclose(&fa, out_fd)) == 0) {
        char *argv[] = {(char *)python, "-c", (char *)cli_parquet_helper_source, (char *)path,
                        NULL};
        rc = posix_spawnp(pid, python, &fa, NULL, argv, environ);
    }
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* The file must open and not be a folder, checked here so that these messages are the CSV
 * reader's (input.c) rather than Python's. */
static int check_file(const char *path, const char *name, char *err, size_t err_size) {
    if (strcmp(path, "-") == 0)
        return 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ERR("%s: cannot open: %s", name, strerror(errno));
        return -1;
    }
    struct stat st;
    const int dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    close(fd);
    if (dir) {
        ERR("%s: is a directory", name);
        return -1;
    }
    return 0;
}

/* The message for a helper that ended with `status` (waitpid's), having said `said`. */
static void helper_failed(const char *name, const char *python, int status, const char *said,
                          char *err, size_t err_size) {
    const char *how = said[0] != '\0' ? said : "it said nothing: is it a Python 3 interpreter?";
    if (WIFEXITED(status) && WEXITSTATUS(status) == HELPER_NO_PYARROW)
        ERR("%s: reading Parquet needs pyarrow, which %s cannot import (%s): pip install "
            "pyarrow, or set " CLI_PYTHON_VARIABLE " to a Python that has it",
            name, python, how);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == HELPER_NOT_PARQUET)
        ERR("%s: not a Parquet file that pyarrow can read: %s", name, how);
    else if (WIFEXITED(status))
        ERR("%s: the Parquet reader (%s, " CLI_PYTHON_VARIABLE ") failed with exit status %d: "
            "%s",
            name, python, WEXITSTATUS(status), how);
    else
        ERR("%s: the Parquet reader (%s, " CLI_PYTHON_VARIABLE ") was killed by signal %d", name,
            python, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int cli_parquet_read_as_csv(const char *path, const char *name, char **text, size_t *len, char *err,
                            size_t err_size) {
    *text = NULL;
    *len = 0;
    if (check_file(path, name, err, err_size) != 0)
        return -1;
    const char *python = getenv(CLI_PYTHON_VARIABLE);
    if (python == NULL || python[0] == '\0')
        python = CLI_PYTHON_DEFAULT;
    FILE *said = tmpfile();
    int fds[2];
    if (said == NULL || pipe(fds) != 0) {
        ERR("%s: cannot start the Parquet reader: %s", name, strerror(errno));
        if (said != NULL)
            fclose(said);
        return -1;
    }
    pid_t pid;
    const int spawn_rc = start_helper(python, path, fds[1], fds[0], fileno(said), &pid);
    close(fds[1]);
    if (spawn_rc != 0) {
        close(fds[0]);
        fclose(said);
        ERR("%s: cannot run %s to read Parquet through pyarrow: %s; set " CLI_PYTHON_VARIABLE
            " to a Python that has pyarrow",
            name, python, strerror(spawn_rc));
        return -1;
    }
    const int read_rc = read_pipe(fds[0], text, len);
    const int read_errno = errno;
    close(fds[0]); /* a helper still writing gets SIGPIPE rather than waiting for ever */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    char msg[512];
    last_line(said, msg, sizeof msg);
    fclose(said);
    if (read_rc != 0) {
        ERR("%s: cannot read the Parquet reader's output: %s", name, strerror(read_errno));
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(*text);
        *text = NULL;
        *len = 0;
        helper_failed(name, python, status, msg, err, err_size);
        return -1;
    }
    return 0;
}

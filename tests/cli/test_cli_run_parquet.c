/*
 * apportion run and stream on Parquet input (cli/parquet_input.c): the refusals, which need
 * no pyarrow. No interpreter, an interpreter without pyarrow, one that is not Python, a file
 * that pyarrow cannot read, a missing file and a folder: each exits 2 with a message that
 * says what to do, and writes nothing. What a Parquet file reads as (the same outputs as
 * the same data in CSV) is tested where pyarrow is installed, in
 * python/tests/test_cli_parquet.py. Each case runs the built tool as a subprocess
 * (cli_fixtures.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

/* A file named like Parquet (its bytes do not matter to the refusals before pyarrow). */
static void parquet_path(char *out, size_t size) {
    make_work_dir();
    snprintf(out, size, "%s/bars.parquet", work);
    write_text(out, "PAR1 not really\n");
}

/* Runs bollinger on input with the environment env; expects exit 2, stderr holding each of
 * the messages, and no output folder. */
static void refused(const char *const *env, const char *input, const char *const *messages) {
    const char *out = work_path("out");
    cli_result r = run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--devices", "cpu",
                                         "--input", input, "--output", out));
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    for (size_t i = 0; messages[i] != NULL; i++)
        assert_contains(r.err, messages[i]);
    cr_assert(!file_exists(out), "a refused run made its output folder");
    free_result(&r);
}

/* A stand-in package named pyarrow in work/fake, shadowing any real one through PYTHONPATH:
 * its __init__.py holds `init`, and its module pyarrow.parquet `parquet` (its modules
 * pyarrow.compute and pyarrow.csv are empty); env_out gets the PYTHONPATH entry. Skips the
 * case where no python3 is on PATH. */
static void fake_pyarrow(const char *init, const char *parquet, char *env_out, size_t size) {
    if (system("python3 -c '' >/dev/null 2>&1") != 0)
        cli_skip("no python3 on PATH");
    char path[256];
    snprintf(path, sizeof path, "%s/fake", work);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/fake/pyarrow", work);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/fake/pyarrow/__init__.py", work);
    write_text(path, init);
    const char *const empty[] = {"compute.py", "csv.py"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/fake/pyarrow/%s", work, empty[i]);
        write_text(path, "");
    }
    snprintf(path, sizeof path, "%s/fake/pyarrow/parquet.py", work);
    write_text(path, parquet);
    snprintf(env_out, size, "PYTHONPATH=%s/fake", work);
}

Test(cli, parquet_without_an_interpreter_names_the_variable, .timeout = 60) {
    char in[128];
    parquet_path(in, sizeof in);
    refused(ENV("APPORTION_PYTHON=/nonexistent/python3"), in,
            ARGS("bars.parquet: cannot run /nonexistent/python3 to read Parquet through pyarrow",
                 "No such file or directory",
                 "set APPORTION_PYTHON to a Python that has "
                 "pyarrow"));
}

Test(cli, parquet_without_pyarrow_says_pip_install, .timeout = 60) {
    char in[128], pythonpath[160];
    parquet_path(in, sizeof in);
    /* The default interpreter, python3, with a pyarrow that cannot be imported. */
    fake_pyarrow("raise ImportError(\"No module named 'pyarrow'\")\n", "", pythonpath,
                 sizeof pythonpath);
    refused(ENV(pythonpath), in,
            ARGS("bars.parquet: reading Parquet needs pyarrow, which python3 cannot import "
                 "(No module named 'pyarrow')",
                 "pip install pyarrow", "set APPORTION_PYTHON to a Python that has it"));
}

Test(cli, parquet_that_pyarrow_cannot_read_is_refused_with_its_reason, .timeout = 60) {
    char in[128], pythonpath[160];
    parquet_path(in, sizeof in);
    fake_pyarrow("class ArrowInvalid(Exception):\n    pass\n"
                 "def OSFile(path):\n    return path\n",
                 "def read_table(source):\n"
                 "    raise OSError('Parquet magic bytes not found in footer.\\nEither the file "
                 "is corrupted')\n",
                 pythonpath, sizeof pythonpath);
    /* The reason on one line, as pyarrow gave it. */
    refused(ENV(pythonpath), in,
            ARGS("bars.parquet: not a Parquet file that pyarrow can read: Parquet magic bytes "
                 "not found in footer. Either the file is corrupted\n"));
}

Test(cli, parquet_reader_that_is_not_python_is_refused, .timeout = 60) {
    char in[128];
    parquet_path(in, sizeof in);
    refused(ENV("APPORTION_PYTHON=false"), in,
            ARGS("bars.parquet: the Parquet reader (false, APPORTION_PYTHON) failed with exit "
                 "status 1: it said nothing: is it a Python 3 interpreter?"));
}

Test(cli, parquet_missing_file_or_folder_is_refused_before_python, .timeout = 60) {
    char in[128];
    make_work_dir();
    /* No interpreter either: the file is checked first, in CSV's words. */
    snprintf(in, sizeof in, "%s/none.parquet", work);
    refused(ENV("APPORTION_PYTHON=/nonexistent/python3"), in,
            ARGS("none.parquet: cannot open: No such file or directory"));
    snprintf(in, sizeof in, "%s/dir.parquet", work);
    mkdir(in, 0700);
    refused(ENV("APPORTION_PYTHON=/nonexistent/python3"), in, ARGS("dir.parquet: is a directory"));
}

Test(cli, input_format_parquet_is_an_input_format_only, .timeout = 60) {
    make_work_dir();
    /* --input-format parquet reads a file of any name as Parquet. */
    const char *in = work_path("bars.dat");
    write_text(in, "close\n1\n");
    run_cli_env_refused(ENV("APPORTION_PYTHON=/nonexistent/python3"),
                        ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", in,
                             "--input-format", "parquet"),
                        "bars.dat: cannot run /nonexistent/python3 to read Parquet");
    /* Outputs are never Parquet. */
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--format", "parquet"),
                    "--format 'parquet': expected f64 or csv");
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--input", in, "--input-format", "pq"),
                    "--input-format 'pq': expected f64, csv or parquet");
}

Test(cli, stream_on_parquet_without_an_interpreter_keeps_no_state, .timeout = 60) {
    char in[128];
    parquet_path(in, sizeof in);
    const char *state = work_path("s.state");
    cli_result r = run_cli_env(
        ENV("APPORTION_PYTHON=/nonexistent/python3"),
        ARGS("stream", "--state", state, "--kernel", "sma", "--input", in, "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    assert_contains(r.err, "bars.parquet: cannot run /nonexistent/python3 to read Parquet");
    cr_assert(!file_exists(state), "a refused stream wrote its state");
    cr_assert_eq(r.out_len, 0, "a refused stream wrote outputs: %s", r.out);
    free_result(&r);
}

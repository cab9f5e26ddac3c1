#!/usr/bin/env python3
"""Fails when a comment or a doc names a file of the project that does not exist.

Files move (runtime/ was cut into rooms, tests/ too) and comments that point at the old
place mislead the next reader. This check reads
- the comments of the C and CUDA sources and headers (/* ... */ and // ...),
- the # comments of the Python, shell and meson files, and Python's docstrings,
- the Markdown pages, outside fenced code blocks (which show a user's own files),
and takes every word that looks like a file of the project: a name ending in .c, .h, .cu,
.cuh, .py, .sh, .md or meson.build, with or without folders. Such a mention is good when a
file of the repository has that path, or ends with it after a folder boundary
("core/plan.h" names runtime/core/plan.h; a bare "plan.h" needs some file called plan.h).
Everything else is reported with the file and line that names it.

Names that are not the project's (system and library headers, files a user or a tool makes)
are listed in NOT_OURS below, each with its reason. Templates and globs ("test_<area>.c",
"fuzz_*.c") are not names and are skipped.

Usage:
  check-file-mentions.py SOURCE_ROOT      # check the tree (files git lists, or all files)
  check-file-mentions.py --self-test      # shows that a comment naming a missing file fails
"""
import os
import re
import subprocess
import sys
import tempfile

# Folders whose comments and docs are read, and top-level Markdown pages.
SCANNED_DIRS = ["runtime", "kernels", "cli", "bench", "checks", "include", "profiles", "tests",
                "python", "scripts", "docs"]
SCANNED_TOP = ["README.md", "meson.build", "meson_options.txt"]

# Names that are not files of this project.
NOT_OURS = {
    # C library, POSIX and compiler headers named in comments.
    "stdio.h", "stdlib.h", "string.h", "math.h", "fenv.h", "float.h", "stdint.h", "stddef.h",
    "stdatomic.h", "pthread.h", "unistd.h", "fcntl.h", "errno.h", "signal.h", "time.h",
    "immintrin.h", "cpuid.h", "dlfcn.h", "omp.h", "limits.h", "inttypes.h", "sys/file.h",
    # Libraries' headers: CUDA, NCCL, MPI, jansson, Criterion, Python, numpy.
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "nccl.h", "mpi.h", "jansson.h",
    "criterion.h", "criterion/criterion.h", "Python.h", "numpy/arrayobject.h",
    # Files of other projects or made by tools or users, named as examples.
    "setup.py", "conftest.py", "__init__.py", "__main__.py", "build.ninja",
    # The user's own program in the compile commands of the README and docs/api.md.
    "app.c", "example.c",
    # The headers of the peer libraries bench/ compares with (tulip indicators, TA-Lib).
    "indicators.h", "ta_func.h", "ta_libc.h", "ta_abstract.h", "tiamalgamation.c",
    # TA-Lib's regression tests, where the catalog's published values come from.
    "test_rsi.c", "test_ma.c",
    # Placeholders in the rooms check's description of an arrow ("x.c includes y.h").
    "x.c", "x.h", "x.cu", "y.c", "y.h",
}

EXT = r"(?:c|h|cu|cuh|py|sh|md)"
MENTION = re.compile(
    r"(?<![\w*<>{}$/.\-])"            # not in the middle of a longer word, glob or template
    r"((?:[\w.\-]+/)*(?:[\w\-]+(?:\.[\w\-]+)*\." + EXT + r"|meson\.build))"
    r"(?![\w*<>{}/\-]|\.\w)")          # nor followed by more of one ("x.c.o", "x.c/")

C_SUFFIXES = (".c", ".h", ".cu", ".cuh")
HASH_SUFFIXES = (".py", ".sh", ".build", ".txt", ".toml")


def c_comments(text):
    """(line, comment text) for each comment of a C source, strings skipped."""
    out = []
    for m in re.finditer(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                         text, re.S):
        if m.group(0).startswith("/"):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(0)))
    return out


def hash_comments(text, python):
    out = []
    for m in re.finditer(r'#[^\n]*', text):
        # A '#' inside a quoted string on the same line is not a comment; a rough guard that
        # is enough for this tree: the quotes before it on its line must pair up.
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start:m.start()]
        if before.count("'") % 2 or before.count('"') % 2:
            continue
        out.append((text.count("\n", 0, m.start()) + 1, m.group(0)))
    if python:
        for m in re.finditer(r'"""(.*?)"""', text, re.S):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return out


def markdown_text(text):
    out = []
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, line))
    return out


def listed_files(root):
    try:
        tracked = subprocess.run(
            ["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True, text=True).stdout.split("\n")
        files = [f for f in tracked if f and os.path.exists(os.path.join(root, f))]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for name in names:
            files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return files


def pieces(path, text):
    name = os.path.basename(path)
    if path.endswith(C_SUFFIXES):
        return c_comments(text)
    if path.endswith(".md"):
        return markdown_text(text)
    if path.endswith(HASH_SUFFIXES) or name in ("meson.build", "meson_options.txt"):
        return hash_comments(text, path.endswith(".py"))
    return []


def check(root):
    files = listed_files(root)
    paths = set(files)
    basenames = {os.path.basename(f) for f in files}

    def exists(mention):
        m = mention.lstrip("./")
        if "/" not in m:
            return m in basenames
        if m in paths:
            return True
        return any(p.endswith("/" + m) for p in paths)

    scanned = [f for f in files
               if f in SCANNED_TOP or (f.split("/")[0] in SCANNED_DIRS and
                                       "/data/" not in f and "/corpus/" not in f)]
    problems = []
    mentions = 0
    for f in sorted(scanned):
        try:
            with open(os.path.join(root, f), encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
        for lineno, chunk in pieces(f, text):
            for m in MENTION.finditer(chunk):
                name = m.group(1)
                if name in NOT_OURS or os.path.basename(name) in NOT_OURS:
                    continue
                mentions += 1
                if not exists(name):
                    line = lineno + chunk.count("\n", 0, m.start())
                    problems.append(f"{f}:{line}: names {name}, which does not exist")
    for p in problems:
        print(p)
    if problems:
        print(f"check-file-mentions: {len(problems)} mentions of files that do not exist "
              "(fix the name, or add it to NOT_OURS with its reason if it is not ours)")
        return 1
    print(f"check-file-mentions: {mentions} mentions of files in {len(scanned)} files, all exist")
    return 0


def self_test():
    """A small tree whose comments name files that exist pass; a C comment, a Python comment
    and a doc that each name a missing file fail, and each is reported."""
    good = {
        "runtime/core/plan.h": "/* The plan; see core/merge.c and docs/design.md. */\n",
        "runtime/core/merge.c": "const char *s = \"missing_in_string.c\"; // Uses plan.h.\n",
        "docs/design.md": "runtime/core/plan.h plans; `merge.c` merges.\n"
                          "```\ncc my_own_program.c\n```\nfuzz_*.c and test_<area>.c are globs.\n",
        "scripts/x.py": "# Runs on runtime/core/merge.c.\nprint('gone.c')\n",
    }
    bad = {
        "runtime/core/plan.h": "/* The plan; see runtime/solver.h. */\n",
        "scripts/x.py": "# Reads tests/test_cli.c.\n",
        "docs/design.md": "The merge lives in `merge_tree.c`.\n",
    }
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        def write(tree):
            for path, text in tree.items():
                full = os.path.join(tmp, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as fh:
                    fh.write(text)

        write(good)
        if check(tmp) != 0:
            failures.append("a tree whose mentions all exist was refused")
        for path, text in bad.items():
            write(good)
            write({path: text})
            if check(tmp) != 1:
                failures.append(f"a missing file named in {path} passed")
    for f in failures:
        print("self-test FAILED:", f)
    if not failures:
        print("self-test: comments and docs naming missing files are caught, "
              "existing names, strings, code blocks and globs pass")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1]))

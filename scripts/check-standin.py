#!/usr/bin/env python3
"""Fails when a test uses a Criterion macro that the sanitizer builds' stand-in for
Criterion (tests/sanitizer_runner/criterion/criterion.h) does not define. The stand-in is
only compiled by the sanitizer builds, so without this check a new macro breaks them long
after the test that used it passed in the ordinary build.

    scripts/check-standin.py [TESTS_DIR]      # default: tests/ beside this script
"""
import os
import re
import sys

USE = re.compile(r"\b(cr_[a-z_]+|Test|TestSuite|ParameterizedTest)\s*\(")
DEFINE = re.compile(r"^\s*#\s*define\s+(cr_[a-z_]+|Test|TestSuite|ParameterizedTest)\b", re.M)
# Functions of Criterion's API that the stand-in provides as functions, not macros.
FUNCTIONS = re.compile(r"^[a-z].*\b(cr_[a-z_]+)\s*\(", re.M)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    tests = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests")
    standin_dir = os.path.join(tests, "sanitizer_runner")
    provided = set()
    for dirpath, _, names in os.walk(standin_dir):
        for name in names:
            if name.endswith((".h", ".c")):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    text = f.read()
                provided.update(DEFINE.findall(text))
                provided.update(FUNCTIONS.findall(text))
    if not provided:
        print(f"check-standin: nothing defined under {standin_dir}")
        return 1
    missing = {}
    # The tests live in rooms (tests/README.md): every C file below tests/ but the stand-in
    # itself and the fuzz targets (which do not use Criterion) is read.
    for dirpath, dirs, names in os.walk(tests):
        dirs[:] = sorted(d for d in dirs if d not in ("sanitizer_runner", "fuzz", "data"))
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                for used in USE.findall(f.read()):
                    if used not in provided:
                        missing.setdefault(used, []).append(os.path.relpath(path, tests))
    for macro, files in sorted(missing.items()):
        print(f"check-standin: {macro} is used by {', '.join(sorted(set(files)))} but the "
              f"sanitizer stand-in for Criterion does not define it")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

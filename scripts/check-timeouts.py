#!/usr/bin/env python3
"""Fails when a test's time limit is one that a busy machine could break.

A time limit on a test is there to stop a hang, never to measure speed (speed is measured by
the bench executables, docs/PERF.md). On a machine shared with other work a test can take
several times as long as on a quiet one, so every limit must leave that room:

- every test meson registers has a timeout of at least MIN_SECONDS (meson's default, 30 s,
  is not enough: the `format` check once failed at 30.18 s on a busy machine), read from
  the build folder's meson-info/intro-tests.json, which is what `meson introspect --tests`
  prints; a timeout of 0 (none) is accepted;
- every Criterion case or suite in the C test sources has a `.timeout` of at least
  MIN_SECONDS, or none (Criterion then waits for the case as long as meson lets it).

Usage:
  check-timeouts.py BUILD_DIR TESTS_DIR     # check a configured build and the test sources
  check-timeouts.py --self-test             # shows that both kinds of tight limit are caught
"""
import json
import os
import re
import sys
import tempfile

MIN_SECONDS = 60

# `.timeout = 10` in Test(...) or TestSuite(...); the value may be written as 10, 10.0 or 1e1.
CRITERION_TIMEOUT = re.compile(r"\.timeout\s*=\s*([0-9][0-9.eE+]*)")


def meson_problems(build_dir):
    path = os.path.join(build_dir, "meson-info", "intro-tests.json")
    with open(path) as f:
        tests = json.load(f)
    problems = []
    for t in tests:
        timeout = t.get("timeout")
        if timeout is None or (timeout != 0 and timeout < MIN_SECONDS):
            problems.append(
                f"meson test '{t.get('name')}': timeout {timeout} s is under {MIN_SECONDS} s "
                f"(meson's default is 30 s: give test() an explicit timeout : 120 or more)")
    return problems, len(tests)


def criterion_problems(tests_dir):
    problems = []
    count = 0
    for root, dirs, files in os.walk(tests_dir):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    for m in CRITERION_TIMEOUT.finditer(line):
                        count += 1
                        try:
                            seconds = float(m.group(1))
                        except ValueError:
                            continue
                        if 0 < seconds < MIN_SECONDS:
                            problems.append(
                                f"{path}:{lineno}: Criterion .timeout = {m.group(1)} s is under "
                                f"{MIN_SECONDS} s")
    return problems, count


def check(build_dir, tests_dir):
    meson, n_tests = meson_problems(build_dir)
    criterion, n_timeouts = criterion_problems(tests_dir)
    for p in meson + criterion:
        print(p)
    if meson or criterion:
        print(f"check-timeouts: {len(meson) + len(criterion)} time limits a busy machine could "
              f"break (each must be at least {MIN_SECONDS} s)")
        return 1
    print(f"check-timeouts: {n_tests} meson tests and {n_timeouts} Criterion timeouts, "
          f"all at least {MIN_SECONDS} s")
    return 0


def self_test():
    """A build whose format check has meson's default 30 s and a case with .timeout = 10 must
    fail; the same with generous limits must pass."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        build = os.path.join(tmp, "build")
        tests = os.path.join(tmp, "tests", "cli")
        os.makedirs(os.path.join(build, "meson-info"))
        os.makedirs(tests)

        def write(meson_tests, source):
            with open(os.path.join(build, "meson-info", "intro-tests.json"), "w") as f:
                json.dump(meson_tests, f)
            with open(os.path.join(tests, "test_x.c"), "w") as f:
                f.write(source)

        tight = [{"name": "format", "timeout": 30}, {"name": "unit", "timeout": 600}]
        generous = [{"name": "format", "timeout": 300}, {"name": "none", "timeout": 0}]
        tight_case = "Test(x, y, .timeout = 10) {}\nTestSuite(x, .timeout = 1e1);\n"
        generous_case = "Test(x, y, .timeout = 60) {}\nTestSuite(x, .timeout = 120.0);\n"

        write(tight, generous_case)
        if len(meson_problems(build)[0]) != 1:
            failures.append("a meson test with the default 30 s timeout was not caught")
        write(generous, tight_case)
        if len(criterion_problems(os.path.join(tmp, "tests"))[0]) != 2:
            failures.append("a Criterion case and suite with .timeout = 10 were not both caught")
        write(generous, generous_case)
        if check(build, os.path.join(tmp, "tests")) != 0:
            failures.append("generous limits were refused")
        write(tight, tight_case)
        if check(build, os.path.join(tmp, "tests")) != 1:
            failures.append("tight limits passed the check")
    for f in failures:
        print("self-test FAILED:", f)
    if not failures:
        print("self-test: tight meson and Criterion limits are caught, generous ones pass")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1], sys.argv[2]))

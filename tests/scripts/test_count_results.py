#!/usr/bin/env python3
"""Tests scripts/count-results.py on a testlog.json written here: the counts, a skipped
test listed with its reason, the failures added with --failed, and the sum over two logs
(scripts/test.sh runs the unit suite and the others apart, each with its own log).

Usage: test_count_results.py PATH_TO_COUNT_RESULTS
"""
import json
import os
import subprocess
import sys
import tempfile

TESTS = [
    {"name": "csv", "result": "OK",
     "stdout": "[====] Synthesis: Tested: 3 | Passing: 3 | Failing: 0 | Crashing: 0 \n"},
    {"name": "install", "result": "OK", "stdout": "check-install: usable\n"},
    {"name": "cli", "result": "FAIL",
     "stdout": "\x1b[1m[====] Synthesis: Tested: 4 | Passing: 3 | Failing: 1 | Crashing: 0\n"},
    {"name": "gpu", "result": "SKIP", "stdout": "",
     "stderr": "test_gpu: skipped: no usable GPU (no NVIDIA driver)\n\n"},
]


def run(script, log, *extra):
    # Options first, then the logs: `extra` holds either options or more logs.
    logs = [log] + [e for e in extra if e.endswith(".json")]
    options = [e for e in extra if not e.endswith(".json")]
    done = subprocess.run([sys.executable, script, *options, *logs], capture_output=True,
                          text=True, check=False)
    return done.returncode, done.stdout.splitlines()


def main(script):
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    with tempfile.TemporaryDirectory() as folder:
        log = os.path.join(folder, "testlog.json")
        with open(log, "w") as f:
            for test in TESTS:
                f.write(json.dumps(test) + "\n")
        rc, lines = run(script, log)
        expect("exit status", rc, 1)
        expect("lines", lines, ["SKIPPED: gpu: test_gpu: skipped: no usable GPU (no NVIDIA driver)",
                                "7 passed, 1 failed, 1 skipped"])

        with open(log, "w") as f:
            for test in TESTS:
                if test["name"] != "cli":
                    f.write(json.dumps(test) + "\n")
        rc, lines = run(script, log)
        expect("exit status without failures", rc, 0)
        expect("last line without failures", lines[-1:], ["4 passed, 0 failed, 1 skipped"])
        rc, lines = run(script, log, "--failed", "no test writes into HOME")
        expect("exit status with --failed", rc, 1)
        expect("lines with --failed", lines[-2:],
               ["FAILED: no test writes into HOME", "4 passed, 1 failed, 1 skipped"])

        # Two logs, as scripts/test.sh writes them: the counts add up, and a failure in
        # either one fails the whole.
        unit, others = os.path.join(folder, "unit.json"), os.path.join(folder, "others.json")
        with open(unit, "w") as f:
            f.write(json.dumps(TESTS[0]) + "\n" + json.dumps(TESTS[1]) + "\n")
        with open(others, "w") as f:
            f.write(json.dumps(TESTS[2]) + "\n" + json.dumps(TESTS[3]) + "\n")
        rc, lines = run(script, unit, others)
        expect("exit status over two logs", rc, 1)
        expect("last line over two logs", lines[-1:], ["7 passed, 1 failed, 1 skipped"])
        rc, lines = run(script, unit)
        expect("exit status of the unit log alone", rc, 0)
        expect("last line of the unit log alone", lines[-1:], ["4 passed, 0 failed, 0 skipped"])
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

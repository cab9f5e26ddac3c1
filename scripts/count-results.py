#!/usr/bin/env python3
"""Counts test results from meson's testlog.json and prints "N passed, N failed".

A Criterion executable counts as its test cases (from its "Synthesis" line); any other
test counts as one. A test executable that crashed or timed out before its synthesis
counts as one failure, so nothing is lost from the count. A skipped test is listed with
its reason (the last line it printed), which meson itself keeps only in testlog.json. `--failed NAME` (repeatable)
adds one failed check that the caller made outside meson (scripts/test.sh: no test wrote
into HOME, or the unit suite over its CPU budget). scripts/test.sh runs the unit suite and
the others as two meson runs, each with its own log: the counts are summed over every log
given.

Usage: count-results.py [--failed NAME ...] TESTLOG_JSON [TESTLOG_JSON ...]
"""
import argparse
import json
import re
import sys

SYNTHESIS = re.compile(
    r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)")


def main(paths, extra_failures):
    passed = failed = skipped = 0
    records = []
    for path in paths:
        with open(path) as log:
            records.extend(line for line in log if line.strip())
    for record in records:
        test = json.loads(record)
        result = test.get("result")
        text = (test.get("stdout") or "") + (test.get("stderr") or "")
        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
        found = SYNTHESIS.findall(text)
        if result == "SKIP":
            skipped += 1
            lines = [l.strip() for l in text.splitlines() if l.strip()]
            reason = lines[-1] if lines else "no reason given"
            if len(reason) > 400:
                reason = reason[:400] + "..."
            print(f"SKIPPED: {test.get('name')}: {reason}")
        elif found:
            tested, passing, failing, crashing = map(int, found[-1])
            passed += passing
            failed += failing + crashing
            if result != "OK" and failing + crashing == 0:
                failed += 1  # the executable failed for another reason
        elif result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        else:
            failed += 1
    for name in extra_failures:
        print(f"FAILED: {name}")
        failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Counts the results of a meson test run.")
    parser.add_argument("--failed", action="append", default=[], metavar="NAME",
                        help="one more failed check, made outside meson")
    parser.add_argument("testlog", nargs="+", help="meson-logs/testlog.json (one or more)")
    args = parser.parse_args()
    sys.exit(main(args.testlog, args.failed))

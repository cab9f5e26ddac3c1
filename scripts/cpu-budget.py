#!/usr/bin/env python3
"""Runs a command and checks the CPU time it and its children used against a budget.

scripts/test.sh runs the `unit` suite through it, so that the suite a developer runs on
every change stays small (tests/README.md, "The budget"). The budget is counted in CPU
seconds (user + system of every process the command started and waited for: meson, the
test programs, Criterion's forked cases, the `apportion` subprocesses of the CLI tests),
not in wall-clock seconds: a machine busy with other work makes a suite take longer but
hardly changes the CPU time its own processes use, so the check cannot fail because of the
machine's load. It fails when the suite itself grew, which is what it is for.

Usage:
  cpu-budget.py --budget SECONDS [--name NAME] [--verdict FILE] -- COMMAND [ARGS...]
  cpu-budget.py --self-test

Exits with the command's status. The verdict ("within" or "over", then the CPU seconds and
the budget) is printed, and written to FILE when given, so that the caller can count a
suite over its budget as one failed check (scripts/test.sh does, through count-results.py).
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command, budget, name, verdict_path):
    before = children_cpu_seconds()
    status = subprocess.call(command)
    used = children_cpu_seconds() - before
    over = used > budget
    line = (f"{'over' if over else 'within'} {used:.1f} {budget:.1f}")
    print(f"cpu-budget: the {name} used {used:.1f} s of CPU, "
          f"{'OVER' if over else 'within'} its budget of {budget:g} s"
          + (" (move slow cases to the slow suite: tests/README.md)" if over else ""))
    if verdict_path:
        with open(verdict_path, "w") as f:
            f.write(line + "\n")
    return status, over


def self_test():
    """A command that burns about half a second of CPU is over a budget of 0.05 s and within
    one of 60 s; CPU time, not waiting, is what counts: a command that sleeps half a second
    uses next to none."""
    burn = [sys.executable, "-c",
            "import time\nt=time.process_time()\nwhile time.process_time()-t<0.5: pass"]
    sleep = [sys.executable, "-c", "import time; time.sleep(0.5)"]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        verdict = os.path.join(tmp, "verdict")
        status, over = run(burn, 0.05, "burning self-test", verdict)
        if status != 0 or not over or not open(verdict).read().startswith("over "):
            failures.append("half a second of CPU was not over a budget of 0.05 s")
        status, over = run(burn, 60, "burning self-test", verdict)
        if status != 0 or over or not open(verdict).read().startswith("within "):
            failures.append("half a second of CPU was over a budget of 60 s")
        status, over = run(sleep, 0.3, "sleeping self-test", None)
        if over:
            failures.append("half a second of sleep counted as CPU time")
        status, _ = run([sys.executable, "-c", "raise SystemExit(3)"], 60, "failing self-test",
                        None)
        if status != 3:
            failures.append(f"the command's status 3 came back as {status}")
    for f in failures:
        print("self-test FAILED:", f)
    if not failures:
        print("self-test: CPU over a budget is caught, sleep is not counted, status passes through")
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser(description="Runs a command within a CPU-time budget.")
    parser.add_argument("--budget", type=float, required=True, help="CPU seconds")
    parser.add_argument("--name", default="command", help="what the command is, for the message")
    parser.add_argument("--verdict", help="file to write 'within|over USED BUDGET' to")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    status, _ = run(command, args.budget, args.name, args.verdict)
    return status


if __name__ == "__main__":
    sys.exit(main())

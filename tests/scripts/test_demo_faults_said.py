"""scripts/demo.sh plants faults in simulated devices to show the failover; a user who runs
it must be told, before the FAILED line appears and after it, that the failure is the
demo's own and expected (issue 32, item 7). Every step whose command gives a simulated
device a fault (fail_after, flaky, hang_after, slow_after) must say "planted" in its
heading and echo, before and after the command, a line saying so."""

import re
import sys

FAULTS = re.compile(r"sim:[^\s\"',]*:(fail_after|flaky|hang_after|slow_after)=")


def steps(text):
    """(heading, lines) of each `step "..."` of the script, in order."""
    out, heading, lines = [], None, []
    for line in text.splitlines():
        m = re.match(r'\s*step "(.*)"\s*$', line)
        if m:
            if heading is not None:
                out.append((heading, lines))
            heading, lines = m.group(1), []
        elif heading is not None:
            lines.append(line)
    if heading is not None:
        out.append((heading, lines))
    return out


def check(text):
    problems, faulty = [], 0
    for heading, lines in steps(text):
        fault_at = [i for i, line in enumerate(lines) if FAULTS.search(line)]
        if not fault_at:
            continue
        faulty += 1
        said = [i for i, line in enumerate(lines) if line.lstrip().startswith("echo") and re.search(r"planted|on purpose|set up to fail", line)]
        if "planted" not in heading:
            problems.append(f"step {heading!r} plants a fault without saying so in its heading")
        if not any(i < fault_at[0] for i in said):
            problems.append(f"step {heading!r} does not say before the run that the failure is planted")
        if not any(i > fault_at[-1] for i in said):
            problems.append(f"step {heading!r} does not say after the run that the FAILED line is planted")
    if faulty == 0:
        problems.append("no step plants a fault: this check checks nothing (update it with the demo)")
    return problems


def self_test():
    bad = 'step "failing"\n"$apo" run --devices "cpu,sim:fast:fail_after=2"\n'
    assert len(check(bad)) == 3, check(bad)
    good = ('step "a planted failure"\necho "sim:fast is set up to fail"\n'
            '"$apo" run --devices "cpu,sim:fast:fail_after=2"\necho "(planted: nothing is wrong)"\n')
    assert check(good) == [], check(good)


if __name__ == "__main__":
    self_test()
    with open(sys.argv[1]) as f:
        problems = check(f.read())
    for p in problems:
        print("scripts/demo.sh:", p)
    sys.exit(1 if problems else 0)

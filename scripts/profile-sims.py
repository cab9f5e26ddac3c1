#!/usr/bin/env python3
"""The simulated devices a profile lists, for scripts/demo.sh's check that its own runs on
simulated devices left the user's profile alone (docs/profiles.md, "Simulated devices").

    apportion show --json | scripts/profile-sims.py list > before
    ... runs ...
    apportion show --json | scripts/profile-sims.py new before

`list` prints the ids of the sim devices in the profile's workload entries, one a line,
sorted. `new BEFORE` exits 1, naming them, when the profile lists a sim device that the
list in the file BEFORE did not: a device the runs in between wrote. Sims that were there
before (left by an earlier release, or kept on purpose in a named folder) are only
reported, as they are not the runs' doing."""

import json
import sys


def sims(show):
    workloads = (show.get("multigpu") or {}).get("workloads") or []
    return sorted({d["id"] for w in workloads for d in w.get("devices", []) if d["id"].startswith("sim:")})


def main(argv):
    if len(argv) < 2 or argv[1] not in ("list", "new") or (argv[1] == "new") != (len(argv) == 3):
        sys.exit("usage: profile-sims.py list | profile-sims.py new BEFORE  (apportion show --json on stdin)")
    now = sims(json.load(sys.stdin))
    if argv[1] == "list":
        for s in now:
            print(s)
        return 0
    with open(argv[2]) as f:
        before = {line.strip() for line in f if line.strip()}
    added = [s for s in now if s not in before]
    if before:
        print("note: the profile lists simulated devices from before these runs: " + ", ".join(sorted(before)))
    if added:
        print("the profile lists simulated devices that these runs wrote: " + ", ".join(added), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

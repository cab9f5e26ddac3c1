#!/usr/bin/env python3
"""The README's command-line examples, run as written (the ```sh block of "Using the command
line", `apportion` being the built tool), with a private HOME, XDG_STATE_HOME and TMPDIR, so
that the profile they use is the default one a user has. The commands before the first
`apportion show` make the profile (`apportion profile` measures this machine); the commands
after it force ratios on simulated devices, in a scratch profile folder of their own, and run
on them. They must show what they describe (the forced ratios stored and shown, then
cleared), leave nothing in TMPDIR, and leave the user's profile byte for byte: a simulated
device is no device of this machine (docs/profiles.md, "Simulated devices").

Then scripts/profile-sims.py, the check of scripts/demo.sh, is run on a profile that lists
sims left by earlier runs: those are reported, not failed on; a sim added since is.

Usage: test_readme_examples.py SOURCE_ROOT APPORTION_BINARY
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def readme_block(source, heading, language):
    with open(os.path.join(source, "README.md")) as f:
        text = f.read()
    section = text[text.index(heading):]
    m = re.search(r"```" + language + r"\n(.*?)```", section, re.S)
    return m.group(1)


def profile_files(state):
    folder = os.path.join(state, "apportion")
    got = {}
    for name in ("multigpu.json", "thresholds.json"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                got[name] = f.read()
    return got


def check(condition, message):
    if not condition:
        print("FAIL: " + message)
        sys.exit(1)


def readme_commands(source, binary):
    block = readme_block(source, "## Using the command line", "sh")
    split = block.index("apportion show")
    split = block.index("\n", split) + 1
    before, after = block[:split], block[split:]
    check("sim:" in after, "the README's commands after `apportion show` use simulated devices")
    work = tempfile.mkdtemp(prefix="apo-readme-")
    try:
        os.makedirs(os.path.join(work, "docs", "examples"))
        shutil.copy(os.path.join(source, "docs", "examples", "prices.csv"), os.path.join(work, "docs", "examples"))
        bindir = os.path.join(work, "bin")
        os.makedirs(bindir)
        os.symlink(os.path.abspath(binary), os.path.join(bindir, "apportion"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("APPORTION_", "THREADX_"))}
        tmp = os.path.join(work, "tmp")
        os.makedirs(tmp)
        env.update(HOME=os.path.join(work, "home"), XDG_STATE_HOME=os.path.join(work, "state"), TMPDIR=tmp,
                   PATH=bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin"), APPORTION_SIM_CLOCK="virtual")

        def run(script):
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work, env=env,
                                  capture_output=True, text=True, check=False)
            check(done.returncode == 0, f"the README's commands failed ({done.returncode}):\n{script}\n{done.stderr}")
            return done

        run(before)
        made = profile_files(env["XDG_STATE_HOME"])
        check("multigpu.json" in made, "`apportion profile` wrote the profile")
        check(b"sim:" not in made["multigpu.json"], "the profile lists only this machine's devices")
        done = run(after)
        check(profile_files(env["XDG_STATE_HOME"]) == made,
              "the README's runs on simulated devices changed the profile")
        # The set-ratios example shows what it describes: the ratios stored in the scratch
        # folder, `apportion show` listing them as forced, and --clear removing them.
        out = done.stdout
        check("not stored" not in done.stderr, "set-ratios stored nothing: " + done.stderr)
        check(re.search(r"stored in +" + re.escape(tmp) + r"/[^\n]*/multigpu\.json", out),
              "set-ratios stored the ratios in the scratch folder: " + out)
        check(re.search(r"workload bollinger\n +source +explicit\n", out), "show lists the forced ratios: " + out)
        check(re.search(r"\n +cpu +1\.000 .*\n +sim:fast +3\.000 ", out), "show lists cpu 1 and sim:fast 3: " + out)
        check("bollinger: forced ratios cleared" in out, "--clear clears them: " + out)
        check(not os.listdir(tmp), "the scratch folder is removed: " + repr(os.listdir(tmp)))
        check(not os.listdir(env["HOME"]) if os.path.exists(env["HOME"]) else True, "nothing in HOME")
    finally:
        shutil.rmtree(work)


def demo_check(source):
    script = os.path.join(source, "scripts", "profile-sims.py")

    def show(*ids):
        return json.dumps({"multigpu": {"workloads": [{"tag": "bollinger", "devices": [{"id": i} for i in ids]}]}})

    def new(before, now):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("".join(s + "\n" for s in before))
        try:
            return subprocess.run([sys.executable, script, "new", f.name], input=now, capture_output=True,
                                  text=True, check=False)
        finally:
            os.unlink(f.name)

    listed = subprocess.run([sys.executable, script, "list"], input=show("cpu", "sim:slow", "sim:fast"),
                            capture_output=True, text=True, check=True)
    check(listed.stdout == "sim:fast\nsim:slow\n", "list: " + listed.stdout)
    # Sims left by the README's examples of an earlier release: reported, not a failure.
    left = new(["sim:fast", "sim:slow"], show("cpu", "sim:fast", "sim:slow"))
    check(left.returncode == 0 and "sim:fast" in left.stdout, "leftover sims fail the demo: " + left.stderr)
    check(new([], show("cpu")).returncode == 0, "a profile of this machine's devices passes")
    added = new(["sim:fast"], show("cpu", "sim:fast", "sim:b"))
    check(added.returncode == 1 and "sim:b" in added.stderr and "sim:fast" not in added.stderr,
          "a sim added since is named: " + added.stderr)


if __name__ == "__main__":
    demo_check(sys.argv[1])
    readme_commands(sys.argv[1], sys.argv[2])
    print("ok: the README's examples leave the profile alone; demo.sh's check counts only its own sims")

"""The README's Python example, run as written in a fresh interpreter whose profile folder is
the default one (a private HOME and XDG_STATE_HOME, profiles on): its runtime over the cpu
and a simulated device must leave no profile behind, since a simulated device is no device
of this machine (docs/profiles.md, "Simulated devices"); the same code with a folder named
in APPORTION_PROFILE_DIR keeps what it learnt there, as asked."""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def readme_example():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text[text.index("## Using it from Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run_example(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("APPORTION_", "THREADX_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"), APPORTION_SIM_CLOCK="virtual", **extra)
    done = subprocess.run([sys.executable, "-c", readme_example()], env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    return done


def test_readme_example_leaves_the_default_profile_alone(tmp_path):
    code = readme_example()
    assert "sim:" in code, "the example runs beside a simulated device"
    run_example(tmp_path)
    # The module-level calls run on this machine's devices and may learn, as they should;
    # the runtime beside sim:b (the macd call) writes nothing.
    path = tmp_path / "state" / "apportion" / "multigpu.json"
    if path.exists():
        with open(path) as f:
            profile = json.load(f)
        devices = {d for w in profile["workloads"].values() for d in w.get("devices", {})}
        assert not any(d.startswith("sim:") for d in devices), devices
        assert "macd" not in profile["workloads"], "the call beside sim:b was stored"
    assert not (tmp_path / "home" / ".local").exists()


@pytest.mark.parametrize("named", ["APPORTION_PROFILE_DIR"])
def test_a_named_folder_keeps_what_simulated_devices_learn(tmp_path, named):
    run_example(tmp_path, **{named: str(tmp_path / "sims")})
    with open(tmp_path / "sims" / "multigpu.json") as f:
        assert "sim:b" in json.load(f)["workloads"]["macd"]["devices"]

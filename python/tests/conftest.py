"""Shared fixtures of the Python suite. No test may touch the real profile folder: profiles
are off unless a test names its own files, and HOME and XDG_STATE_HOME point at a folder
of this session before apportion is imported."""

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

_state = tempfile.mkdtemp(prefix="apportion-pytest-")
os.environ["APPORTION_PROFILES"] = "off"
os.environ["HOME"] = os.path.join(_state, "home")
os.environ["XDG_STATE_HOME"] = os.path.join(_state, "state")
for _name in ("APPORTION_PROFILE_DIR", "APPORTION_MULTIGPU_PROFILE_PATH", "APPORTION_THRESHOLD_PATH",
              "THREADX_MULTIGPU_PROFILE_PATH", "THREADX_GPU_THRESHOLD_PATH", "APPORTION_DEVICES"):
    os.environ.pop(_name, None)
# A sim device stands in for a second device; the virtual clock keeps it from sleeping.
os.environ["APPORTION_SIM_CLOCK"] = "virtual"

import apportion  # noqa: E402


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_state, ignore_errors=True)


@pytest.fixture(scope="session")
def rt():
    """A runtime of two devices (the cpu and a sim device), so that work is really split."""
    with apportion.Runtime("cpu,sim:b:rate=5e8", profiles=False, learn=False) as r:
        yield r


@pytest.fixture(scope="session")
def cpu_rt():
    with apportion.Runtime("cpu", profiles=False, learn=False) as r:
        yield r


@pytest.fixture
def walk():
    """rows x cols random walks (a price-like series), seeded."""

    def make(rows, cols, seed=7):
        rng = np.random.default_rng(seed)
        x = 100.0 + np.cumsum(rng.standard_normal((max(rows, 1), cols)), axis=1)
        return x[0].copy() if rows == 0 else x  # rows 0: one series, 1-D

    return make


@pytest.fixture(scope="session")
def cli():
    """Runs the apportion tool built beside the package (APPORTION_CLI, set by meson) on a
    float64 input and returns its outputs {name: array of the file's values}."""
    path = os.environ.get("APPORTION_CLI") or shutil.which("apportion")
    if not path:
        pytest.skip("the apportion tool is not known (APPORTION_CLI unset, none on PATH)")

    def run(kernel, x, params=(), seed=1, devices="cpu", outputs=()):
        x = np.asarray(x, dtype=np.float64)
        rows = 1 if x.ndim == 1 else x.shape[0]
        with tempfile.TemporaryDirectory(dir=_state) as d:
            src = os.path.join(d, "in.f64")
            x.astype("<f8").tofile(src)
            cmd = [path, "run", "--kernel", kernel, "--input", src, "--rows", str(rows), "--output", d,
                   "--seed", str(seed), "--devices", devices, "--no-learn"]
            for k, v in params:
                cmd += ["--param", f"{k}={v}"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, APPORTION_PROFILES="off"))
            return {name: np.fromfile(os.path.join(d, name + ".f64"), dtype="<f8") for name in outputs}

    return run


def bits(a):
    """The bit patterns of a float64 array, so that equality is bitwise (NaNs included)."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def assert_bitwise(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert a.size == b.size, (a.shape, b.shape)
    np.testing.assert_array_equal(bits(a.ravel()), bits(b.ravel()))

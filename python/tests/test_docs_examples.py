"""Every python example of docs/python.md runs as written, each in a fresh interpreter (so
that what one example or another test imported cannot make the next one pass: the
user-rule recipe's ``apportion.numba_kernels`` after ``import apportion`` alone), on small
inputs that stand for the names the text leaves to the reader (``frame``, ``closes``,
``rt``, ...). The README's example has a test of its own (test_readme_example.py)."""

import importlib.util
import os
import re
import subprocess
import sys

import pytest

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")

# The names the examples use without making them, as a reader would have them. A stream's
# frame has the stream's 5000 series as columns (a group's `latest`, the 5000 symbols as rows
# and the inputs as columns); elsewhere a frame is one ticker's bars.
GIVEN = """
import numpy as np, pandas as pd, apportion
_rng = np.random.default_rng(12)
prices = 100 + np.cumsum(_rng.standard_normal(3000))
x = c = prices
h, l = prices + 1, prices - 1
frame = pd.DataFrame({"High": h, "Low": l, "Close": c}, index=pd.date_range("2020-01-01", periods=3000))
closes = pd.DataFrame(100 + np.cumsum(_rng.standard_normal((600, 3)), axis=0), columns=["A", "B", "C"])
rt = apportion.Runtime("cpu", profiles=False, learn=False)
"""
# Where matplotlib is missing, an example's plot_equity() must say so (ImportError) and the
# rest of the example still runs.
NO_MATPLOTLIB = """
_plot_equity = apportion.plot_equity
def _plot_equity_says_why(*args, **kwargs):
    try:
        _plot_equity(*args, **kwargs)
    except ImportError as e:
        assert "matplotlib" in str(e), e
        return None
    raise AssertionError("plot_equity() drew without matplotlib")
apportion.plot_equity = _plot_equity_says_why
"""
STREAM = """
last_closes = 100 + _rng.standard_normal(5000)
block = 100 + _rng.standard_normal((3, 5000))
frame = pd.DataFrame(100 + _rng.standard_normal((2, 5000)), index=pd.date_range("2024-01-02", periods=2))
last_highs, last_lows = last_closes + 1, last_closes - 1
last_volumes = 1000 + 1000 * _rng.random(5000)
latest = pd.DataFrame({"Open": last_closes, "High": last_highs, "Low": last_lows, "Close": last_closes,
                       "Volume": last_volumes}, index=[f"S{i}" for i in range(5000)])
"""


def examples():
    with open(DOCS) as f:
        text = f.read()
    return [(text[: m.start()].count("\n") + 1, m.group(1)) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_the_page_has_its_examples():
    codes = [code for _, code in examples()]
    assert len(codes) >= 8
    assert any("register_rule" in code for code in codes), "the user-rule recipe is an example"


@pytest.mark.parametrize("line,code", examples(), ids=[f"line{line}" for line, _ in examples()])
def test_the_example_runs(tmp_path, line, code):
    if "numba" in code:
        pytest.importorskip("numba")
    if "import polars" in code:
        pytest.importorskip("polars", reason="polars is not installed (python/tests/run.sh installs it from PyPI when reachable)")
    given = GIVEN + (STREAM if "apportion.Stream(" in code else "")
    if "plot_equity(" in code and importlib.util.find_spec("matplotlib") is None:
        given += NO_MATPLOTLIB
    env = {k: v for k, v in os.environ.items() if not k.startswith(("APPORTION_", "THREADX_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"), APPORTION_PROFILES="off", APPORTION_SIM_CLOCK="virtual")
    done = subprocess.run([sys.executable, "-c", given + code], env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert done.returncode == 0, f"docs/python.md, the example at line {line}:\n{done.stderr}"

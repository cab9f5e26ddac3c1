"""Python is the CLI's equal where the CLI protects its user (issue 32, item 5): a warning for
outputs that are not finite although their inputs are, the refusal of macd on a series
shorter than its warm-up, a Python kernel's exception carried to the caller, and pandas'
nullable Float64 accepted."""

import os
import subprocess
import tempfile
import warnings

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise


def _cli_stderr(args, x):
    """Runs the apportion tool on the float64 series x; returns (exit status, stderr)."""
    path = os.environ.get("APPORTION_CLI")
    if not path:
        pytest.skip("the apportion tool is not known (APPORTION_CLI unset)")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.f64")
        np.asarray(x, dtype="<f8").tofile(src)
        p = subprocess.run(
            [path, "run", "--input", src, "--rows", "1", "--devices", "cpu", "--no-learn", *args],
            capture_output=True,
            text=True,
            env=dict(os.environ, APPORTION_PROFILES="off"),
        )
        return p.returncode, p.stderr


def _huge():
    """Forty samples near 1e160 (docs/kernels.md, "Range"): bollinger's variance overflows."""
    x = np.full(40, 1e160)
    x[::2] *= 1.5
    return x


def test_nonfinite_outputs_warn_with_the_cli_text(cpu_rt):
    x = _huge()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = apportion.bollinger(x, period=5, runtime=cpu_rt)
    ours = [w for w in caught if issubclass(w.category, apportion.NonFiniteOutputWarning)]
    assert len(ours) == 1
    w = ours[0]
    # Non-finite outputs from finite inputs: really there, and counted.
    assert np.isfinite(x).all()
    assert not np.isfinite(r.upper[4:]).all()
    assert w.message.count > 0 and w.message.kernel == "bollinger"
    assert issubclass(w.category, RuntimeWarning)
    assert w.filename == __file__  # the caller's line, not the package's
    rc, err = _cli_stderr(["--kernel", "bollinger", "--param", "period=5"], x)
    assert rc == 0
    lines = [line for line in err.splitlines() if "not finite" in line]
    assert lines == ["apportion: warning: " + str(w.message)]


def test_nonfinite_warning_can_be_an_error(cpu_rt):
    with warnings.catch_warnings():
        warnings.simplefilter("error", apportion.NonFiniteOutputWarning)
        with pytest.raises(apportion.NonFiniteOutputWarning):
            cpu_rt.compute("bollinger", _huge(), period=5)


def test_ordinary_input_gives_no_warning(cpu_rt, walk):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        apportion.bollinger(walk(0, 1000), runtime=cpu_rt)
        apportion.macd(walk(2, 1000), runtime=cpu_rt, axis=-1)


def test_macd_shorter_than_warmup_is_refused_as_by_the_cli(cpu_rt):
    x = np.linspace(1.0, 2.0, 30)  # 12/26/9 needs 34 samples
    with pytest.raises(apportion.BadParameterError) as e:
        apportion.macd(x, runtime=cpu_rt)
    assert "warm-up of 34 samples" in str(e.value) and "cols 30" in str(e.value)
    rc, err = _cli_stderr(["--kernel", "macd"], x)
    assert rc != 0
    assert str(e.value) in err


def test_macd_warmup_counts_the_largest_swept_value_and_the_shortest_row(cpu_rt):
    x = np.linspace(1.0, 2.0, 40)
    apportion.macd(x, runtime=cpu_rt)  # 34 <= 40: computed
    with pytest.raises(apportion.BadParameterError, match="warm-up of 44 samples"):
        apportion.macd(x, slow=[20, 36], runtime=cpu_rt)
    # Of series of different lengths, the one too short is NaN, with a warning.
    with pytest.warns(apportion.ShortSeriesWarning, match="warm-up of 34 samples .*cols 20"):
        got = apportion.macd([x, x[:20]], runtime=cpu_rt)
    assert np.isnan(got.hist[1]).all() and np.isfinite(got.hist[0][-1])
    with pytest.raises(apportion.BadParameterError):
        cpu_rt.compute("macd", x[:33])
    assert np.isfinite(cpu_rt.compute("macd", x[:34]).hist[-1])


def test_python_kernel_error_is_the_cause_and_printed_once(capfd):
    class Boom(Exception):
        pass

    def bad(inputs, outputs, row, begin, end, params, seed):
        raise Boom("tile %d..%d" % (begin, end))

    with apportion.Runtime("cpu", profiles=False, learn=False) as rt:
        rt.register_kernel("boom", bad)
        with pytest.raises(apportion.KernelFailedError) as e:
            rt.compute("boom", np.arange(200000.0))
        cause = e.value.__cause__
        assert isinstance(cause, Boom)
        assert cause.__traceback__ is not None
        assert e.value.__suppress_context__
        # Nothing went to stderr meanwhile: the traceback is shown once, with the exception.
        assert capfd.readouterr().err == ""
        # A later call that succeeds carries nothing over.
        rt.register_kernel("fine", lambda i, o, row, b, end, p, s: o[0].__setitem__((row, slice(b, end)), 1.0))
        assert (rt.compute("fine", np.arange(10.0)).out0 == 1.0).all()
        with pytest.raises(apportion.KernelFailedError) as again:
            rt.compute("boom", np.arange(10.0))
        assert isinstance(again.value.__cause__, Boom)


def test_pandas_nullable_float64_is_accepted_with_na_as_nan(cpu_rt, walk):
    pd = pytest.importorskip("pandas")
    x = walk(0, 500)
    x[[3, 100, 101]] = np.nan
    plain = pd.Series(x)
    nullable = plain.astype("Float64")
    assert nullable.isna().sum() == 3 and nullable.dtype.name == "Float64"
    got = apportion.bollinger(nullable, period=10, runtime=cpu_rt)
    want = apportion.bollinger(plain, period=10, runtime=cpu_rt)
    for g, w in zip(got, want):
        assert_bitwise(g.to_numpy(), w.to_numpy())
    frame = pd.DataFrame({"a": nullable, "b": pd.Series(np.arange(500), dtype="Int64")})
    got = apportion.macd(frame, runtime=cpu_rt)
    want = apportion.macd(pd.DataFrame({"a": x, "b": np.arange(500.0)}), runtime=cpu_rt)
    for g, w in zip(got, want):
        assert_bitwise(g.to_numpy(), w.to_numpy())


def test_pandas_text_column_is_still_refused(cpu_rt):
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="dtype"):
        apportion.bollinger(pd.Series(["1", "2", "x"] * 10, dtype="string"), runtime=cpu_rt)


def test_ctrl_c_stops_a_sweep_after_the_current_piece():
    """A SIGINT arriving during a large sweep raises KeyboardInterrupt after the piece that
    was running, not after the whole call. The signal comes from the first tile the kernel
    computes (no timing involved); the tiles computed by then show how far the call went.
    The kernel runs on a simulated device, whose tiles run on a thread of its own, so that no
    Python code runs on the main thread during the call: the signal is handled between
    pieces, as it is for a built-in kernel."""
    import _thread
    import threading

    tiles = []

    def kernel(inputs, outputs, row, begin, end, params, seed):
        assert threading.current_thread() is not threading.main_thread()
        if not tiles:
            _thread.interrupt_main()  # as Ctrl-C: Python's SIGINT handler runs on the main thread
        tiles.append(params[0])

    cols = 1 << 20  # one set is a quarter of a piece (docs/python.md): 4 sets a piece
    x = np.zeros(cols)
    with apportion.Runtime("sim:a:rate=1e9", profiles=False, learn=False, sim_clock="virtual") as rt:
        rt.register_kernel("count", kernel, params={"p": 0.0})
        with pytest.raises(KeyboardInterrupt):
            rt.compute("count", x, p=list(range(40)))
        assert tiles, "the kernel ran"
        assert max(tiles) < 4, "sets past the first piece were computed: %s" % sorted(set(tiles))
        # The runtime is usable after the interruption, and an uninterrupted sweep in pieces
        # computes every set.
        tiles.append(-1)
        rt.compute("count", x, p=list(range(40)))
        assert set(tiles) == set(range(40)) | {-1}


def test_a_sweep_in_pieces_is_bitwise_the_sweep_in_one_call(cpu_rt, walk):
    """Pieces are used only without a report; with one, the call runs whole: both the same."""
    x = walk(0, 1 << 18)  # 16 sets a piece: pieces of 16, 16 and 4 sets
    periods = list(range(5, 41))
    pieced = cpu_rt.compute("bollinger", x, period=periods)
    whole, rep = cpu_rt.compute("bollinger", x, period=periods, report=True)
    assert rep["sets"] == len(periods)
    for a, b in zip(pieced, whole):
        assert_bitwise(a, b)


def test_ctrl_c_inside_a_python_kernel_is_a_keyboard_interrupt():
    """On one cpu thread the kernel runs on the main thread, where Python runs the SIGINT
    handler inside the kernel: the call raises KeyboardInterrupt, not KernelFailedError."""
    import _thread

    def kernel(inputs, outputs, row, begin, end, params, seed):
        _thread.interrupt_main()
        sum(range(1000))  # bytecode, where the pending handler runs

    with apportion.Runtime("cpu:threads=1", profiles=False, learn=False) as rt:
        rt.register_kernel("interrupted", kernel)
        with pytest.raises(KeyboardInterrupt):
            rt.compute("interrupted", np.zeros(1000))

"""Kernel names in any case (docs/python.md, "Kernel names in any case"): ``compute("RSI")``,
``apportion.RSI``, a Stream of "Rsi" and a user kernel looked up in another case give what
the kernel's own name gives, bitwise; a user kernel cannot take a name that differs from
another's in case alone."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise


@pytest.fixture(scope="module")
def rt():
    with apportion.Runtime("cpu,sim:b:rate=5e8", profiles=False, learn=False) as r:
        yield r


def close_of(n, seed):
    return 100.0 + np.cumsum(np.random.default_rng(seed).normal(0.0, 1.0, n))


def test_compute_and_the_functions_take_any_case(rt):
    x = close_of(3000, 1)
    (want,) = rt.compute("rsi", x, timeperiod=9)
    for name in ("RSI", "Rsi", "rSi"):
        (got,) = rt.compute(name, x, timeperiod=9)
        assert_bitwise(np.asarray(got), np.asarray(want))
        (got,) = apportion.compute(name, x, timeperiod=9, runtime=rt)
        assert_bitwise(np.asarray(got), np.asarray(want))
    assert rt.kernel_info("RSI")["name"] == "rsi"
    assert apportion.RSI is apportion.rsi and apportion.Rsi is apportion.rsi
    assert apportion.BOLLINGER is apportion.bollinger
    from apportion import WILLR

    assert WILLR is apportion.willr
    (got,) = apportion.RSI(x, timeperiod=9, runtime=rt)
    assert_bitwise(np.asarray(got), np.asarray(want))
    # The aliases are looked up, not listed: `from apportion import *` brings lower case only.
    assert "RSI" not in apportion.__all__ and "RSI" not in dir(apportion)
    with pytest.raises(AttributeError):
        apportion.NOSUCHKERNEL
    with pytest.raises(AttributeError):
        apportion.RUNTIME  # only kernels' functions fold case


def test_a_stream_under_another_case(rt):
    x = close_of(500, 2)
    (want,) = rt.compute("ema", x, timeperiod=10)
    s = apportion.Stream("EMA", 1, runtime=rt, timeperiod=10)
    (got,) = s.update(x.reshape(1, -1), axis=1)  # one series, every bar at once
    assert_bitwise(np.asarray(got).ravel(), np.asarray(want))


def test_user_kernels_fold_case_and_cannot_differ_in_case_alone():
    with apportion.Runtime("cpu", profiles=False, learn=False) as rt:

        def copy(inputs, outputs, row, begin, end, params, seed):
            outputs[0][row, begin:end] = inputs[0][row, begin:end]

        rt.register_kernel("MyCopy", copy)
        x = close_of(100, 3)
        assert_bitwise(np.asarray(rt.compute("mycopy", x).out0), x)
        assert rt.kernel_info("MYCOPY")["name"] == "MyCopy"
        with pytest.raises(apportion.AlreadyExistsError):
            rt.register_kernel("MYCOPY", copy)
        with pytest.raises(apportion.AlreadyExistsError):
            rt.register_kernel("Sma", copy)

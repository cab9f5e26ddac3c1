"""Bad input raises a Python exception carrying the library's message; nothing crashes."""

import numpy as np
import pytest

import apportion


def test_wrong_dtype(rt):
    with pytest.raises(TypeError, match="complex128"):
        apportion.bollinger(np.ones(100, dtype=complex), runtime=rt)
    with pytest.raises(TypeError):
        apportion.bollinger(["a", "b", "c"], runtime=rt)


def test_wrong_number_of_dimensions(rt):
    with pytest.raises(ValueError, match="3 dimensions"):
        apportion.bollinger(np.ones((2, 2, 30)), runtime=rt)
    with pytest.raises(ValueError, match="0 dimensions"):
        apportion.bollinger(5.0, runtime=rt)


def test_bad_out(rt):
    x = np.ones(100)
    good = [np.empty(100) for _ in range(3)]
    with pytest.raises(ValueError, match="C-contiguous"):
        apportion.bollinger(x, out=(np.empty((100, 2))[:, 0],) + tuple(good[1:]), runtime=rt)
    with pytest.raises(TypeError, match="float64"):
        apportion.bollinger(x, out=(np.empty(100, dtype=np.float32),) + tuple(good[1:]), runtime=rt)
    with pytest.raises(ValueError, match="holds 99 values"):
        apportion.bollinger(x, out=(np.empty(99),) + tuple(good[1:]), runtime=rt)
    with pytest.raises(ValueError, match="3 outputs"):
        apportion.bollinger(x, out=good[:2], runtime=rt)
    ro = np.empty(100)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        apportion.bollinger(x, out=(ro,) + tuple(good[1:]), runtime=rt)


def test_out_overlapping_the_input_is_refused_by_the_library(rt):
    x = np.ones(100)
    with pytest.raises(apportion.InvalidArgumentError) as e:
        apportion.bollinger(x, out=(x, np.empty(100), np.empty(100)), runtime=rt)
    assert "overlap" in str(e.value)


def test_bad_parameters_carry_the_c_message(rt):
    x = np.ones(1000)
    with pytest.raises(apportion.BadParameterError, match="period") as e:
        apportion.bollinger(x, period=float("nan"), runtime=rt)
    assert e.value.status_name == "APO_ERR_BAD_PARAM"
    assert e.value.status == apportion._core.status_codes["APO_ERR_BAD_PARAM"]
    with pytest.raises(apportion.BadParameterError, match="period"):
        apportion.bollinger(x, period=2.5, runtime=rt)
    with pytest.raises(apportion.BadParameterError, match="no_such"):
        rt.compute("bollinger", x, no_such=3)
    with pytest.raises(apportion.BadParameterError):
        apportion.bollinger(np.ones(10), period=20, runtime=rt)  # period > samples
    assert isinstance(apportion.BadParameterError("m", 6), ValueError)


def test_unknown_kernel(rt):
    with pytest.raises(apportion.UnknownKernelError, match="no_such_kernel"):
        rt.compute("no_such_kernel", np.ones(10))
    with pytest.raises(apportion.UnknownKernelError):
        rt.plan("no_such_kernel", 100)


def test_empty_input(rt):
    with pytest.raises(apportion.InvalidArgumentError):
        apportion.returns_stats(np.ones((0, 10)), runtime=rt, axis=-1)


def test_bad_ratios_and_devices(rt):
    x = np.ones(1000)
    with pytest.raises(apportion.InvalidArgumentError):
        rt.compute("bollinger", x, ratios=[1.0, 2.0, 3.0])
    with pytest.raises(apportion.InvalidArgumentError):
        rt.compute("bollinger", x, ratios=[-1.0, 1.0])
    with pytest.raises(apportion.BadDeviceSpecError):
        apportion.Runtime("cpu,bogus:thing", profiles=False)


def test_closed_runtime(walk):
    r = apportion.Runtime("cpu", profiles=False)
    r.close()
    with pytest.raises(ValueError, match="closed"):
        apportion.bollinger(walk(0, 100), runtime=r)
    r.close()  # twice is fine


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_kernel_exception_fails_the_call(rt):
    def broken(inputs, outputs, row, begin, end, params, seed):
        raise ZeroDivisionError("on purpose")

    rt.register_kernel("broken_kernel", broken)
    with pytest.raises(apportion.KernelFailedError):
        rt.compute("broken_kernel", np.ones(100))
    with pytest.raises(apportion.AlreadyExistsError):
        rt.register_kernel("broken_kernel", broken)
    with pytest.raises(TypeError):
        rt.register_kernel("not_callable", 42)

"""User kernels from Python: a plain callable (holding the GIL) and a numba @cfunc (without
it), registered on a runtime and split across two devices; outputs against numpy
references and bitwise equal whatever the split."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise


def spread(inputs, outputs, row, begin, end, params, seed):
    """out0 = a - k*b, out1 = the one-step difference of a (halo 1)."""
    (k,) = params
    a, b = inputs
    outputs[0][row, begin:end] = a[row, begin:end] - k * b[row, begin:end]
    lo = max(begin, 1)
    outputs[1][row, lo:end] = a[row, lo:end] - a[row, lo - 1 : end - 1]
    if begin == 0:
        outputs[1][row, 0] = np.nan


def test_python_kernel(rt, walk):
    rt.register_kernel("py_spread", spread, n_inputs=2, outputs=("spread", "diff"), params={"k": 1.0}, halo=1, tile=512)
    info = rt.kernel_info("py_spread")
    assert info == {"name": "py_spread", "builtin": False, "n_inputs": 2, "inputs": ("in0", "in1"), "outputs": ("spread", "diff"), "params": {"k": 1.0}, "bounds": {"k": (-np.inf, np.inf, False)}}
    a, b = walk(3, 5000, seed=1), walk(3, 5000, seed=2)
    out = rt.compute("py_spread", a, b, k=0.5, axis=-1)
    assert_bitwise(out.spread, a - 0.5 * b)
    assert np.isnan(out.diff[:, 0]).all()
    assert_bitwise(out.diff[:, 1:], np.diff(a, axis=1))
    # The same bits on one device and on the other.
    for ratios in ([1.0, 0.0], [0.0, 1.0], [0.3, 0.7]):
        again, rep = rt.distribute("py_spread", (a, b), params={"k": 0.5}, ratios=ratios, axis=-1)
        assert_bitwise(again.spread, out.spread)
        assert_bitwise(again.diff, out.diff)
        assert [d["share"] > 0 for d in rep["devices"]] == [r > 0 for r in ratios]


def test_python_kernel_status(rt):
    rt.register_kernel("py_refuses", lambda *args: apportion._core.status_codes["APO_ERR_BAD_PARAM"])
    with pytest.raises(apportion.KernelFailedError, match="APO_ERR_BAD_PARAM"):
        rt.compute("py_refuses", np.ones(100))


def test_numba_cfunc_kernel(rt, walk):
    numba = pytest.importorskip("numba")
    from apportion.numba_kernels import call_info, cpu_signature, input_row, output_row, param

    @numba.cfunc(cpu_signature, nogil=True)
    def momentum(call, user):
        rows, cols, row, begin, end, seed = call_info(call)
        x = input_row(call, 0)
        y = output_row(call, 0)
        lag = np.int64(param(call, 0))
        for t in range(begin, end):
            y[t] = x[t] - x[t - lag] if t >= lag else np.nan
        return 0

    rt.register_kernel("nb_momentum", momentum, params={"lag": 5.0}, halo=64, tile=1000)
    x = walk(4, 20000)
    out = rt.compute("nb_momentum", x, lag=7, axis=-1)
    ref = np.full_like(x, np.nan)
    ref[:, 7:] = x[:, 7:] - x[:, :-7]
    assert_bitwise(out.out0, ref)
    for ratios in ([1.0, 0.0], [0.0, 1.0], [0.5, 0.5]):
        again, _ = rt.distribute("nb_momentum", x, params={"lag": 7}, ratios=ratios, split="time", axis=-1)
        assert_bitwise(again.out0, ref)


def test_numba_kernel_failure_status(rt):
    numba = pytest.importorskip("numba")
    from apportion.numba_kernels import cpu_signature

    @numba.cfunc(cpu_signature, nogil=True)
    def refuse(call, user):
        return 12  # APO_ERR_KERNEL_FAILED

    rt.register_kernel("nb_refuse", refuse)
    with pytest.raises(apportion.KernelFailedError):
        rt.compute("nb_refuse", np.ones(1000))

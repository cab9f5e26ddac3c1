"""Kernels of several named inputs (docs/python.md, "Several inputs"): a user kernel of two
inputs named close and volume, called with a DataFrame whose columns are found whatever
their case, with arrays by keyword, positionally and through the functions' path
(indicators._call); the results against numpy and bitwise equal whichever way the inputs
came; and the errors for a missing, ambiguous or unknown input."""

import numpy as np
import pytest

import apportion
from apportion import indicators
from conftest import assert_bitwise

pd = pytest.importorskip("pandas")


def flow(inputs, outputs, row, begin, end, params, seed):
    """out = close * volume * k: both inputs, in the kernel's order."""
    (k,) = params
    close, volume = inputs
    outputs[0][row, begin:end] = close[row, begin:end] * volume[row, begin:end] * k


@pytest.fixture(scope="module")
def flow_rt():
    """A runtime of the cpu and a sim device with the two-input kernel registered."""
    with apportion.Runtime("cpu,sim:b:rate=5e8", profiles=False, learn=False) as r:
        r.register_kernel("py_flow", flow, outputs=("flow",), params={"k": 1.0}, tile=256, inputs=("close", "volume"))
        yield r


def test_kernel_info_names_the_inputs(flow_rt):
    assert flow_rt.kernel_info("py_flow")["inputs"] == ("close", "volume")
    assert flow_rt.kernel_info("bollinger")["inputs"] == ("close",)


def test_every_way_of_giving_the_inputs_gives_the_same_bits(flow_rt, walk):
    close, volume = walk(0, 3000, seed=3), np.abs(walk(0, 3000, seed=4))
    want = close * volume * 0.5
    frame = pd.DataFrame({"Close": close, "VOLUME": volume, "other": close * 2})
    by_frame = flow_rt.compute("py_flow", frame, k=0.5)
    assert_bitwise(np.asarray(by_frame.flow), want)
    assert list(by_frame.flow.index) == list(frame.index)
    by_keyword = flow_rt.compute("py_flow", close=close, volume=volume, k=0.5)
    assert_bitwise(by_keyword.flow, want)
    by_position = flow_rt.compute("py_flow", close, volume, k=0.5)
    assert_bitwise(by_position.flow, want)
    by_mapping = flow_rt.compute("py_flow", {"close": close, "Volume": volume}, k=0.5)
    assert_bitwise(by_mapping.flow, want)
    # The functions' path: a kernel's function is one line over indicators._call.
    via_call = indicators._call("py_flow", None, {"k": 0.5}, None, flow_rt, False, named={"close": close, "volume": volume})
    assert_bitwise(via_call.flow, want)
    via_frame = indicators._call("py_flow", frame, {"k": 0.5}, None, flow_rt, False)
    assert_bitwise(np.asarray(via_frame.flow), want)


def test_split_and_sweep_with_two_inputs(flow_rt, walk):
    close, volume = walk(4, 2000, seed=5), np.abs(walk(4, 2000, seed=6))
    alone = flow_rt.compute("py_flow", close=close, volume=volume, k=2.0, axis=-1)
    for ratios in ([1.0, 0.0], [0.0, 1.0], [0.2, 0.8]):
        for split in ("rows", "time"):
            again = flow_rt.compute("py_flow", close=close, volume=volume, k=2.0, ratios=ratios, split=split, axis=-1)
            assert_bitwise(again.flow, alone.flow)
    swept = flow_rt.compute("py_flow", close=close, volume=volume, k=[1.0, 2.0], axis=-1)
    assert_bitwise(swept.flow[1], alone.flow)


def test_errors_name_the_input(flow_rt, walk):
    close = walk(0, 100)
    with pytest.raises(KeyError, match="volume"):
        flow_rt.compute("py_flow", pd.DataFrame({"close": close}))
    with pytest.raises(KeyError, match="volume"):
        flow_rt.compute("py_flow", close=close)
    with pytest.raises(ValueError, match="close"):
        flow_rt.compute("py_flow", pd.DataFrame({"close": close, "CLOSE": close, "volume": close}))
    with pytest.raises(TypeError, match="not both"):
        indicators._call("py_flow", pd.DataFrame({"close": close, "volume": close}), {}, None, flow_rt, False, named={"close": close})
    with pytest.raises(TypeError, match="takes the inputs close, volume"):
        indicators._call("py_flow", close, {}, None, flow_rt, False)

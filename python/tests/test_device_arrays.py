"""Device arrays (docs/python.md, "Device arrays"): objects exporting
__cuda_array_interface__ or DLPack on a GPU go to the library as device pointers and come
back as apportion.DeviceArray, with the bits of the same call on numpy arrays. The
exporters here are the tests' own, wrapping memory the runtime allocated
(Runtime.to_device), so that the suite needs neither CuPy nor a GPU: on the simulated GPUs
(docs/cuda.md, "A simulated CUDA runtime") the real backend runs them; in a build without
a GPU every such call must be refused with APO_ERR_NO_DEVICE, never read."""

import sys

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise


def _has_gpu():
    with apportion.Runtime(profiles=False, learn=False) as r:
        return any(d["kind"] == "cuda" for d in r.devices())


HAS_GPU = _has_gpu()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no GPU in this build or machine (the simulated GPUs run these)")
without_gpu = pytest.mark.skipif(HAS_GPU, reason="checks the refusal of a build without a GPU")


@pytest.fixture(scope="module")
def host_rt():
    """The cpu alone, whose bits on numpy arrays the device calls must give; use_gpu=False
    so that it opens where APPORTION_USE_GPU=yes requires a GPU of every other runtime
    (scripts/test.sh --simulated-gpus: there, finding no GPU fails this file instead of
    skipping it)."""
    with apportion.Runtime("cpu", use_gpu=False, profiles=False, learn=False) as r:
        yield r


@pytest.fixture(scope="module")
def gpu_rt():
    with apportion.Runtime(profiles=False, learn=False) as r:
        yield r


class ArrayInterface:
    """An exporter of __cuda_array_interface__ over a DeviceArray (kept alive), with any
    field of the interface overridden, as CuPy or numba would give it."""

    def __init__(self, base, **fields):
        self.base = base
        cai = dict(base.__cuda_array_interface__)
        cai.update(fields)
        self.__cuda_array_interface__ = cai
        self.shape = tuple(cai["shape"])


class DLPackExporter:
    """A DLPack producer over a DeviceArray: records the stream it was asked for, and may
    hand out one capsule for every call (a producer that breaks the protocol)."""

    def __init__(self, base, same_capsule=False):
        self.base = base
        self.shape = base.shape
        self.streams = []
        self.capsule = base.__dlpack__() if same_capsule else None

    def __dlpack_device__(self):
        return self.base.__dlpack_device__()

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.capsule if self.capsule is not None else self.base.__dlpack__()


class FakeDevice:
    """An array interface pointing at an address nothing allocated: reading it would crash."""

    shape = (1000,)
    __cuda_array_interface__ = {"version": 3, "shape": (1000,), "typestr": "<f8", "data": (0x1000, False), "strides": None, "stream": None}


class FakeDLPack:
    """A DLPack object on GPU 0 whose capsule must never be asked for without a GPU."""

    shape = (1000,)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("__dlpack__ called by a runtime without a GPU")


def _walk(n, rows=0, seed=3):
    rng = np.random.default_rng(seed)
    x = 100.0 + np.cumsum(rng.standard_normal((max(rows, 1), n)), axis=1)
    return x[0].copy() if rows == 0 else x


# ---- without a GPU: refused in the library's words, never read -------------------------------


@without_gpu
def test_a_device_array_without_a_gpu_is_no_device(host_rt):
    with pytest.raises(apportion.NoDeviceError, match="no CUDA backend|no GPU"):
        apportion.bollinger(FakeDevice(), runtime=host_rt)
    with pytest.raises(apportion.NoDeviceError):
        apportion.sma(FakeDLPack(), runtime=host_rt)
    with pytest.raises(apportion.NoDeviceError):
        host_rt.to_device(np.zeros(4))


# ---- on a GPU (the simulated ones where there is none) ---------------------------------------


@needs_gpu
def test_an_address_no_gpu_holds_is_refused_not_read(gpu_rt):
    with pytest.raises(apportion.ApportionError, match="not device memory"):
        apportion.bollinger(FakeDevice(), runtime=gpu_rt)


@needs_gpu
def test_device_array_round_trip(gpu_rt):
    x = _walk(100, rows=3)
    d = gpu_rt.to_device(x)
    assert isinstance(d, apportion.DeviceArray)
    assert d.shape == (3, 100) and d.dtype == np.float64
    assert gpu_rt.devices()[d.device]["kind"] == "cuda"
    assert_bitwise(d.copy_to_host(), x)
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == "<f8" and cai["shape"] == (3, 100)
    assert cai["strides"] is None and cai["data"][1] is False and cai["data"][0] != 0
    assert d.__dlpack_device__()[0] == 2


@needs_gpu
@pytest.mark.parametrize("version", [2, 3])
def test_array_interface_input_gives_the_host_bits(gpu_rt, host_rt, version):
    x = _walk(3000)
    src = ArrayInterface(gpu_rt.to_device(x), version=version)
    if version == 2:  # no stream in version 2
        del src.__cuda_array_interface__["stream"]
    got = apportion.bollinger(src, period=20, runtime=gpu_rt)
    want = apportion.bollinger(x, period=20, runtime=host_rt)
    for g, w in zip(got, want):
        assert isinstance(g, apportion.DeviceArray) and g.shape == w.shape
        assert g.device == src.base.device
        assert_bitwise(g.copy_to_host(), w)


@needs_gpu
def test_rows_of_series_and_two_inputs(gpu_rt, host_rt):
    x, y = _walk(2000, rows=2, seed=1), _walk(2000, rows=2, seed=2)
    got = apportion.compute("add", gpu_rt.to_device(x), gpu_rt.to_device(y), runtime=gpu_rt, axis=1)
    assert got[0].shape == (2, 2000)
    assert_bitwise(got[0].copy_to_host(), apportion.compute("add", x, y, runtime=host_rt, axis=1)[0])
    with pytest.raises(ValueError, match="one series a row"):
        apportion.compute("add", gpu_rt.to_device(x), gpu_rt.to_device(y), runtime=gpu_rt, axis=0)


@needs_gpu
def test_an_array_on_the_second_gpu_of_another_runtime(gpu_rt, host_rt):
    """The GPU comes from the pointer, not from the index another runtime gave it: a
    DeviceArray of a runtime whose devices are in another order, on its last GPU."""
    x = _walk(2000)
    with apportion.Runtime("cpu,cuda", profiles=False, learn=False) as other:
        gpus = [i for i, d in enumerate(other.devices()) if d["kind"] == "cuda"]
        d = other._to_device(x, gpus[-1])
        got = apportion.sma(d, timeperiod=7, runtime=gpu_rt)[0]
        assert gpu_rt.devices()[got.device]["id"] == other.devices()[d.device]["id"]
        assert_bitwise(got.copy_to_host(), apportion.sma(x, timeperiod=7, runtime=host_rt)[0])
        del got, d


@needs_gpu
def test_the_callers_stream_is_taken(gpu_rt, host_rt):
    """Version 3's stream (2: the per-thread default stream) orders the call; 0 is
    forbidden by the specification."""
    x = _walk(2000)
    got = apportion.sma(ArrayInterface(gpu_rt.to_device(x), stream=2), timeperiod=10, runtime=gpu_rt)
    assert_bitwise(got[0].copy_to_host(), apportion.sma(x, timeperiod=10, runtime=host_rt)[0])
    with pytest.raises(ValueError, match="stream.*is 0"):
        apportion.sma(ArrayInterface(gpu_rt.to_device(x), stream=0), runtime=gpu_rt)


@needs_gpu
def test_out_of_device_arrays_is_written_in_place(gpu_rt, host_rt):
    x = _walk(2000)
    out = tuple(gpu_rt.to_device(np.zeros(2000)) for _ in range(3))
    got = apportion.bollinger(gpu_rt.to_device(x), period=15, out=out, runtime=gpu_rt)
    assert all(g is o for g, o in zip(got, out))
    want = apportion.bollinger(x, period=15, runtime=host_rt)
    for o, w in zip(out, want):
        assert_bitwise(o.copy_to_host(), w)


@needs_gpu
def test_refusals(gpu_rt):
    d = gpu_rt.to_device(_walk(2000))
    with pytest.raises(TypeError, match="typestr '<f4'; float64"):
        apportion.sma(ArrayInterface(d, typestr="<f4"), runtime=gpu_rt)
    with pytest.raises(ValueError, match="strided"):
        apportion.sma(ArrayInterface(d, shape=(1000,), strides=(16,)), runtime=gpu_rt)
    with pytest.raises(ValueError, match="version 1"):
        apportion.sma(ArrayInterface(d, version=1), runtime=gpu_rt)
    with pytest.raises(ValueError, match="host array and the call's others are device"):
        apportion.compute("add", d, np.zeros(2000), runtime=gpu_rt)
    with pytest.raises(ValueError, match="device array and the call's others are host"):
        apportion.compute("add", np.zeros(2000), d, runtime=gpu_rt)
    readonly = ArrayInterface(gpu_rt.to_device(np.zeros(2000)), data=(d.__cuda_array_interface__["data"][0], True))
    with pytest.raises(ValueError, match="read-only"):
        apportion.sma(d, out=readonly, runtime=gpu_rt)
    with pytest.raises(ValueError, match="holds 10 values"):
        apportion.sma(d, out=gpu_rt.to_device(np.zeros(10)), runtime=gpu_rt)
    with pytest.raises(TypeError, match="sweep"):
        apportion.sma(d, timeperiod=[5, 10], runtime=gpu_rt)


@needs_gpu
def test_dlpack_input_gives_the_host_bits_and_runs_the_deleter(gpu_rt, host_rt):
    x = _walk(2000)
    base = gpu_rt.to_device(x)
    src = DLPackExporter(base)
    before = sys.getrefcount(base)
    got = apportion.sma(src, timeperiod=12, runtime=gpu_rt)
    assert_bitwise(got[0].copy_to_host(), apportion.sma(x, timeperiod=12, runtime=host_rt)[0])
    # The legacy default stream is asked for, and the tensor handed back (its deleter drops
    # the reference DeviceArray.__dlpack__ took) once the call is done.
    assert src.streams == [1]
    assert sys.getrefcount(base) == before


@needs_gpu
def test_a_dlpack_capsule_is_consumed_once(gpu_rt):
    src = DLPackExporter(gpu_rt.to_device(_walk(2000)), same_capsule=True)
    apportion.sma(src, runtime=gpu_rt)
    with pytest.raises(ValueError, match="consumed already"):
        apportion.sma(src, runtime=gpu_rt)


@needs_gpu
def test_an_unconsumed_capsule_releases_its_array(gpu_rt):
    base = gpu_rt.to_device(np.zeros(8))
    before = sys.getrefcount(base)
    capsule = base.__dlpack__(stream=1)
    assert sys.getrefcount(base) == before + 1
    del capsule
    assert sys.getrefcount(base) == before


def _numba_cuda():
    try:
        from numba import cuda
    except ImportError:
        return None
    return cuda if cuda.is_available() else None


@needs_gpu
@pytest.mark.skipif(_numba_cuda() is None, reason="numba.cuda with a real GPU is needed")
def test_numba_device_arrays(gpu_rt, host_rt):
    cuda = _numba_cuda()
    x = _walk(100000)
    got = apportion.bollinger(cuda.to_device(x), period=20, runtime=gpu_rt)
    upper = cuda.as_cuda_array(got.upper)  # zero copy, through __cuda_array_interface__
    assert_bitwise(upper.copy_to_host(), apportion.bollinger(x, period=20, runtime=host_rt).upper)

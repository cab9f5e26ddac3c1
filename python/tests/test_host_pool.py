"""Output arrays from the runtime's pool of pinned host blocks (docs/host-pool.md): on a
runtime with a GPU, the outputs a call allocates (1 MiB or more) lie in pinned blocks, whose
base object (apportion._core.HostBlock) returns them to the pool when the array goes, also
after the runtime is closed; the bits are the cpu's. Without a GPU the outputs are plain
numpy arrays. On the simulated GPUs (docs/cuda.md, "A simulated CUDA runtime") the real
backend runs these; a build without a GPU runs the plain case."""

import gc
import threading

import numpy as np
import pytest

import apportion
from apportion import _core
from conftest import assert_bitwise


def _has_gpu():
    with apportion.Runtime(profiles=False, learn=False) as r:
        return any(d["kind"] == "cuda" for d in r.devices())


HAS_GPU = _has_gpu()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no GPU in this build or machine (the simulated GPUs run these)")

# 200,000 samples: 1.6 MB an output, above the pool's 1 MiB floor.
N = 200_000


def _walk(n, seed=3):
    return 100.0 + np.cumsum(np.random.default_rng(seed).standard_normal(n))


@pytest.fixture(scope="module")
def host_rt():
    with apportion.Runtime("cpu", use_gpu=False, profiles=False, learn=False) as r:
        yield r


def _in_pool(a):
    return isinstance(a.base, _core.HostBlock) and a.base.pinned


def test_without_a_gpu_outputs_are_plain_numpy_arrays(host_rt):
    got = apportion.bollinger(_walk(N), runtime=host_rt)
    assert not any(isinstance(a.base, _core.HostBlock) for a in got)
    with pytest.raises(apportion.NoDeviceError):
        host_rt.host_pool()


@needs_gpu
def test_outputs_come_from_the_pool_with_the_cpu_bits(host_rt):
    x = _walk(N)
    want = apportion.bollinger(x, runtime=host_rt)
    with apportion.Runtime("cuda", profiles=False, learn=False) as rt:
        got = apportion.bollinger(x, runtime=rt)
        assert all(_in_pool(a) for a in got)
        assert all(a.base.nbytes == N * 8 and a.flags.c_contiguous and a.flags.writeable for a in got)
        for g, w in zip(got, want):
            assert_bitwise(g, w)
        first = rt.host_pool()
        assert first["blocks_in_use"] == 3 and first["pinned_new"] >= 3
        assert first["pinned_bytes"] <= first["limit_bytes"]
        del got, g
        gc.collect()
        assert rt.host_pool()["blocks_in_use"] == 0
        # The next call takes the blocks the last one gave back.
        again = apportion.bollinger(x, runtime=rt)
        assert rt.host_pool()["reused"] >= first["reused"] + 3
        for g, w in zip(again, want):
            assert_bitwise(g, w)
        # Small outputs stay plain numpy arrays; out= is written where it lies.
        small = apportion.bollinger(x[:1000], runtime=rt)
        assert not any(isinstance(a.base, _core.HostBlock) for a in small)
        out = tuple(np.empty(N) for _ in range(3))
        res = apportion.bollinger(x, runtime=rt, out=out)
        assert all(r is o for r, o in zip(res, out))


@needs_gpu
def test_arrays_dropped_after_the_runtime_is_closed(host_rt):
    x = _walk(N, seed=5)
    want = apportion.sma(x, runtime=host_rt)
    rt = apportion.Runtime("cuda", profiles=False, learn=False)
    kept = apportion.sma(x, runtime=rt)
    dropped = apportion.bollinger(x, runtime=rt)
    assert _in_pool(kept[0])
    del dropped
    rt.close()
    del rt
    gc.collect()
    # The blocks outlive the runtime: readable, writable, and freed when they go.
    assert_bitwise(kept[0], want[0])
    kept[0][:] = 1.0
    assert float(kept[0].sum()) == N
    del kept
    gc.collect()
    # A new runtime runs as before.
    with apportion.Runtime("cuda", profiles=False, learn=False) as rt2:
        assert_bitwise(apportion.sma(x, runtime=rt2)[0], want[0])


@needs_gpu
def test_a_pool_at_its_bound_gives_plain_memory_with_the_same_bits(host_rt):
    x = _walk(N, seed=7)
    want = apportion.bollinger(x, runtime=host_rt)
    with apportion.Runtime("cuda", profiles=False, learn=False) as rt:
        info = rt.host_pool(limit_bytes=0)
        assert info["limit_bytes"] == 0
        got = apportion.bollinger(x, runtime=rt)
        assert all(isinstance(a.base, _core.HostBlock) and not a.base.pinned for a in got)
        for g, w in zip(got, want):
            assert_bitwise(g, w)
        assert rt.host_pool()["plain"] >= 3 and rt.host_pool()["pinned_bytes"] == 0


@needs_gpu
def test_threads_taking_outputs_at_once(host_rt):
    x = _walk(N, seed=9)
    want = apportion.rsi(x, runtime=host_rt)
    errors = []
    with apportion.Runtime("cuda", profiles=False, learn=False) as rt:

        def run():
            try:
                for _ in range(3):
                    got = apportion.rsi(x, runtime=rt)
                    assert _in_pool(got[0])
                    assert_bitwise(got[0], want[0])
            except Exception as e:  # noqa: BLE001 - reported below, on the main thread
                errors.append(e)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        gc.collect()
        assert rt.host_pool()["blocks_in_use"] == 0
    assert not errors, errors

"""Array handling: zero copy for C-contiguous float64 (the kernel sees the caller's memory),
out= written in place, array-likes converted, 1-D and 2-D shapes."""

import numpy as np

import apportion
from conftest import assert_bitwise


def test_out_is_written_in_place(rt, walk):
    x = walk(2, 5000)
    out = tuple(np.empty_like(x) for _ in range(3))
    b = apportion.bollinger(x, period=20, out=out, runtime=rt, axis=-1)
    for got, mine in zip(b, out):
        assert got is mine
        assert np.shares_memory(got, mine)
    assert_bitwise(out[1], apportion.bollinger(x, period=20, runtime=rt, axis=-1).middle)


def test_out_for_a_reduction_and_a_sweep(rt, walk):
    x = walk(2, 5000)
    out = tuple(np.empty(2) for _ in range(5))
    s = apportion.returns_stats(x, out=out, runtime=rt, axis=-1)
    assert np.shares_memory(s.mean, out[1])
    sweep_out = tuple(np.empty((3, 2, 5000)) for _ in range(3))
    apportion.bollinger(x, period=[10, 20, 30], out=sweep_out, runtime=rt, axis=-1)
    assert_bitwise(sweep_out[0][2], apportion.bollinger(x, period=30, runtime=rt, axis=-1).upper)


def test_input_is_not_copied(rt, walk):
    """A Python kernel sees the input arrays the library was given: for C-contiguous
    float64 they are the caller's own memory."""
    seen = []

    def probe(inputs, outputs, row, begin, end, params, seed):
        seen.append(inputs[0])
        outputs[0][row, begin:end] = 0.0

    rt.register_kernel("probe_zero_copy", probe)
    x = walk(2, 1000)
    rt.compute("probe_zero_copy", x, axis=-1)
    assert seen and all(np.shares_memory(v, x) for v in seen)
    seen.clear()
    rt.compute("probe_zero_copy", np.asfortranarray(x), axis=-1)  # converted: a copy
    assert seen and not any(np.shares_memory(v, x) for v in seen)


def test_array_likes(rt):
    lst = [float(i % 7) for i in range(200)]
    a = apportion.bollinger(lst, period=5, runtime=rt)
    b = apportion.bollinger(np.array(lst), period=5, runtime=rt)
    assert_bitwise(a.middle, b.middle)
    ints = apportion.bollinger(np.arange(200, dtype=np.int32) % 7, period=5, runtime=rt)
    assert_bitwise(ints.middle, b.middle)
    f32 = apportion.bollinger(np.array(lst, dtype=np.float32), period=5, runtime=rt)
    assert_bitwise(f32.middle, b.middle)


def test_shapes(rt, walk):
    x1 = walk(0, 3000)
    x2 = walk(4, 3000)
    assert apportion.bollinger(x1, runtime=rt).upper.shape == (3000,)
    assert apportion.bollinger(x2, runtime=rt, axis=-1).upper.shape == (4, 3000)
    s1 = apportion.returns_stats(x1, runtime=rt)
    assert np.ndim(s1.mean) == 0
    assert apportion.returns_stats(x2, runtime=rt, axis=-1).mean.shape == (4,)
    bs = apportion.bootstrap(x2, replicates=32, seed=1, runtime=rt, axis=-1)
    assert bs.means.shape == (4, 32) and bs.stderr.shape == (4,)
    # Each row of a 2-D call is the 1-D call of that row, bit for bit.
    assert_bitwise(apportion.bollinger(x2, runtime=rt, axis=-1).lower[2], apportion.bollinger(x2[2].copy(), runtime=rt).lower)


def test_gil_is_released(rt, walk):
    """The call releases the GIL: with every tile on the sim device, a Python kernel runs
    on that device's worker thread, which must take the GIL while the calling thread is
    inside the library (held there, this would never finish)."""
    import threading

    threads = set()

    def where(inputs, outputs, row, begin, end, params, seed):
        threads.add(threading.get_ident())
        outputs[0][row, begin:end] = inputs[0][row, begin:end]

    rt.register_kernel("probe_gil", where)
    x = walk(2, 10000)
    result = []
    t = threading.Thread(target=lambda: result.append(rt.compute("probe_gil", x, ratios=[0.0, 1.0], axis=-1)))
    t.start()
    t.join(120)  # a deadlock, not a slow machine, is what this bound catches
    assert not t.is_alive(), "the call did not finish: the GIL was held"
    assert_bitwise(result[0].out0, x)
    assert t.ident not in threads

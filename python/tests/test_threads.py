"""Threads calling one runtime at once: every output is bitwise that of a single-threaded
run; module-level functions create their default runtime once."""

import threading

import numpy as np

import apportion
from conftest import assert_bitwise


def test_many_threads_one_runtime(rt, walk):
    inputs = [walk(r % 3 + 1, 4000 + 500 * r, seed=r) for r in range(8)]
    calls = [("bollinger", {"period": 10 + r}) if r % 2 else ("macd", {"fast": 5 + r}) for r in range(8)]
    want = [rt.compute(k, x, **p, axis=-1) for (k, p), x in zip(calls, inputs)]
    got = [[None] * 8 for _ in range(6)]
    errors = []

    def worker(t):
        try:
            for i in range(8):
                j = (i + t) % 8
                k, p = calls[j]
                got[t][j] = rt.compute(k, inputs[j], **p, axis=-1)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for t in range(6):
        for j in range(8):
            for a, b in zip(got[t][j], want[j]):
                assert_bitwise(a, b)


def test_default_runtime_created_once():
    seen = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        seen.append(apportion.default_runtime())

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(r) for r in seen}) == 1
    assert apportion.default_runtime() is seen[0]
    x = np.linspace(1, 2, 500)
    assert apportion.bollinger(x).middle.shape == (500,)

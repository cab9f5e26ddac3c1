"""Stream.peek and Stream.fork (docs/streaming.md, "Peek", "Fork"; docs/python.md, "Streams")
for every kernel of the catalog and bollinger and macd, on series with NaN gaps: a peek at
the next bars gives the batch call's bits and leaves ``bytes(stream)`` as it was, a peek at
other bars too; a fork fed other bars leaves the original as it was; the original and a fork
then fed the same bars both give the batch call's bits."""

import numpy as np
import pytest

import apportion
from test_stream_refusals import HEAD, KERNELS, SERIES, history, update


def same_bits(a, b):
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.parametrize("kernel", KERNELS)
def test_peek_and_fork_give_the_batch_bits_and_leave_the_stream(cpu_rt, kernel):
    s = apportion.Stream(kernel, SERIES, runtime=cpu_rt)
    inputs = history(s.inputs, seed=len(kernel) + 1)
    want = cpu_rt.compute(kernel, **inputs, axis=-1)
    update(s, inputs, 0, HEAD)
    before = bytes(s)
    other = {k: v * 1.01 for k, v in inputs.items()}
    for block, check in ((other, False), (inputs, True)):
        peeked = s.peek(axis=0, **{k: v[:, HEAD : HEAD + 5].T for k, v in block.items()})
        assert bytes(s) == before, f"{kernel}: a peek changed the state"
        for name, p, w in zip(s.outputs, peeked, want):
            assert not check or same_bits(p.T, w[:, HEAD : HEAD + 5]), f"{kernel}: peeked {name}"
    f = s.fork()
    assert bytes(f) == before and f.outputs == s.outputs
    update(f, other, HEAD, HEAD + 5)
    assert bytes(s) == before, f"{kernel}: feeding a fork changed the original"
    g = s.fork()
    for stream in (s, g):
        tail = update(stream, inputs, HEAD, HEAD + 5)
        for name, w in zip(s.outputs, want):
            assert same_bits(tail[name], w[:, HEAD : HEAD + 5]), f"{kernel}: {name}"
    assert bytes(s) == bytes(g)

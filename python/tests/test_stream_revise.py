"""Stream.revise and Stream.resume (docs/streaming.md, "Revise", "Resume from a window";
docs/python.md, "Streams") for every kernel of the catalog and bollinger and macd that keeps
bars, on series with NaN gaps: bars fed wrong and then revised give the batch call's bits,
and ``bytes(stream)`` is that of a stream fed the true bars; a revise of more bars than
``revise_bars`` raises with the state unchanged; a stream resumed from the last bars of the
histories goes on with the batch call's bits; the kernels that carry their state from the
first bar (obv, ad, sar, the Hilbert transforms, ...; tests/runtime/streaming/test_stream_revise.c
counts them) revise as the others and refuse a resume."""

import numpy as np
import pytest

import apportion
from test_stream_refusals import HEAD, KERNELS, SERIES, history, update

KEEP = 6


def _carries(kernel):
    """Whether a stream of the kernel carries its state from the first bar, which no window of
    bars holds: it refuses a resume."""
    with apportion.Runtime("cpu", profiles=False, learn=False) as rt:
        inputs = history(apportion.Stream(kernel, SERIES, runtime=rt).inputs, seed=5)
        try:
            apportion.Stream.resume(kernel, {k: v[:, :10] for k, v in inputs.items()}, first=0, axis=1, runtime=rt)
        except apportion.InvalidArgumentError as e:
            assert "carries its state" in str(e), str(e)
            return True
    return False


CARRIED = [k for k in KERNELS if _carries(k)]


def same_bits(a, b):
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.parametrize("kernel", KERNELS)
def test_revise_and_resume_give_the_batch_bits(cpu_rt, kernel):
    s = apportion.Stream(kernel, SERIES, runtime=cpu_rt, revise_bars=KEEP)
    plain = apportion.Stream(kernel, SERIES, runtime=cpu_rt, revise_bars=KEEP)
    inputs = history(s.inputs, seed=len(kernel) + 3)
    want = cpu_rt.compute(kernel, **inputs, axis=-1)
    update(plain, inputs, 0, HEAD + 5)
    update(s, inputs, 0, HEAD)
    wrong = {k: v * 1.01 for k, v in inputs.items()}
    update(s, wrong, HEAD, HEAD + 5)
    revised = s.revise(axis=0, **{k: v[:, HEAD - 1 : HEAD + 5].T for k, v in inputs.items()})
    for name, got, w in zip(s.outputs, revised, want):
        assert same_bits(got.T, w[:, HEAD - 1 : HEAD + 5]), f"{kernel}: revised {name}"
    assert bytes(s) == bytes(plain), f"{kernel}: the revised state is not the true bars'"
    before = bytes(s)
    with pytest.raises(apportion.InvalidArgumentError, match="cannot be revised"):
        s.revise(axis=0, **{k: v[:, :KEEP + 1].T for k, v in inputs.items()})
    assert bytes(s) == before
    if kernel in CARRIED:  # no window holds the run from bar 0
        with pytest.raises(apportion.InvalidArgumentError, match="carries its state"):
            apportion.Stream.resume(kernel, {k: v[:, 3:10] for k, v in inputs.items()}, first=3, axis=1, runtime=cpu_rt)
        return
    # These short histories lie within their first tile, whose window is every bar: a resume
    # short of bar 0 is refused, one from bar 0 goes on.
    with pytest.raises(apportion.InvalidArgumentError, match=f"{HEAD + 5} bars long, needs its last {HEAD + 5}"):
        apportion.Stream.resume(kernel, {k: v[:, 1 : HEAD + 5] for k, v in inputs.items()}, first=1, axis=1, runtime=cpu_rt)
    r = apportion.Stream.resume(kernel, {k: v[:, : HEAD + 5] for k, v in inputs.items()}, first=0, axis=1, runtime=cpu_rt, revise_bars=KEEP)
    assert list(r.bars) == [HEAD + 5] * SERIES
    tail = update(r, inputs, HEAD + 5, HEAD + 9)
    for name, w in zip(r.outputs, want):
        assert same_bits(tail[name], w[:, HEAD + 5 : HEAD + 9]), f"{kernel}: resumed {name}"


def test_the_kernels_that_carry_their_state_are_found():
    assert {"obv", "ad", "sar", "nvi", "ht_sine", "maxindex"} <= set(CARRIED), CARRIED

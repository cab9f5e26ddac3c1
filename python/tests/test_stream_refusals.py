"""A refused Stream.update changes nothing (docs/streaming.md, "Errors"; docs/python.md,
"Streams"), for every kernel of the catalog and bollinger and macd, and every cause the
package or the library refuses an update for: a series count other than the stream's,
inputs of different shapes, a missing or unknown input, a 2-D block without ``axis``, a
dtype that is not a number, a negative volume in the last series. After each refusal
``bytes(stream)`` is what it was; then the refused stream and one that saw no refusal take
the same tail, and both give the batch call's bits over the whole history."""

import numpy as np
import pytest

import apportion
from apportion import catalog

SERIES = 3
BARS = 300
HEAD = 170
KERNELS = ["bollinger", "macd"] + list(catalog.__all__)


def history(names, seed):
    """{input: series x bars} by the inputs' names: a random walk as close, bars whose high
    is above their low, positive volumes, a pair x, y that moves together, mavp's periods
    from 2 to 30; NaN gaps in series 1."""
    rng = np.random.default_rng(seed)
    close = 100.0 + np.cumsum(rng.standard_normal((SERIES, BARS)), axis=1)
    spread = np.abs(rng.standard_normal((SERIES, BARS)))
    made = {
        "close": close,
        "open": np.roll(close, 1, axis=1),
        "high": close + spread,
        "low": close - spread,
        "volume": 1000.0 + 9000.0 * rng.random((SERIES, BARS)),
        "x": close,
        "y": 0.5 * close + rng.random((SERIES, BARS)),
        "periods": rng.integers(2, 31, (SERIES, BARS)).astype(np.float64),  # mavp's
    }
    out = {name: made[name].copy() for name in names}
    for arr in out.values():
        arr[1, 40:47] = np.nan
    return out


def update(stream, inputs, start, stop):
    """Feeds bars start .. stop - 1 of every series (a bars x series block, or one value a
    series) and returns {output: series x bars}."""
    if stop - start == 1:
        block, axis = {k: v[:, start] for k, v in inputs.items()}, None
    else:
        block, axis = {k: v[:, start:stop].T for k, v in inputs.items()}, 0
    out = stream.update(axis=axis, **block)
    return {name: (o.reshape(SERIES, 1) if o.ndim == 1 else o.T) for name, o in zip(stream.outputs, out)}


def refusals(inputs):
    """(what, the update's keyword arguments, the error it raises), each a block of the next
    four bars that the stream must refuse whole."""
    names = list(inputs)
    good = {k: v[:, HEAD : HEAD + 4].T.copy() for k, v in inputs.items()}
    cases = [
        ("a series too few", {**good, names[0]: good[names[0]][:, :2]}, ValueError),
        ("every input a series too few", {k: v[:, :2] for k, v in good.items()}, ValueError),
        ("an unknown input", {**good, "nonsense": good[names[0]]}, TypeError),
        ("a dtype that is not a number", {**good, names[0]: good[names[0]].astype(str)}, (TypeError, ValueError)),
    ]
    if len(names) > 1:
        missing = {k: v for k, v in good.items() if k != names[-1]}
        cases.append(("an input missing", missing, (TypeError, KeyError)))
        cases.append(("inputs of other shapes", {**good, names[-1]: good[names[-1]][:3]}, ValueError))
    if "volume" in names:
        bad = {k: v.copy() for k, v in good.items()}
        bad["volume"][-1, -1] = -1.0
        cases.append(("a negative volume in the last series", bad, apportion.InvalidArgumentError))
    return cases


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_refused_update_leaves_the_state_and_the_later_bits(cpu_rt, kernel):
    refused = apportion.Stream(kernel, SERIES, runtime=cpu_rt)
    clean = apportion.Stream(kernel, SERIES, runtime=cpu_rt)
    inputs = history(refused.inputs, seed=len(kernel))
    want = cpu_rt.compute(kernel, **inputs, axis=-1)
    got_refused = [update(refused, inputs, 0, HEAD)]
    got_clean = [update(clean, inputs, 0, HEAD)]
    before = bytes(refused)
    for what, block, error in refusals(inputs):
        with pytest.raises(error):
            refused.update(axis=0, **block)
        assert bytes(refused) == before, f"{kernel}: refused for {what}, the state changed"
    with pytest.raises((TypeError, ValueError)):
        refused.update(np.ones((SERIES, 2)))  # 2-D without axis; several inputs by position
    assert bytes(refused) == before
    for s, got in ((refused, got_refused), (clean, got_clean)):
        got.append(update(s, inputs, HEAD, HEAD + 1))
        got.append(update(s, inputs, HEAD + 1, BARS))
    for name, w in zip(refused.outputs, want):
        for got in (got_refused, got_clean):
            streamed = np.ascontiguousarray(np.concatenate([g[name] for g in got], axis=1))
            assert streamed.tobytes() == np.ascontiguousarray(w).tobytes(), f"{kernel}: {name}"

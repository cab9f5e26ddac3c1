"""Sweeps: a parameter given as a range or list runs every set in one call; each set's block
is bitwise the outputs of a call with that set alone, and the tool's sweep agrees."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise


@pytest.mark.parametrize("rows", [0, 2])
def test_range_sweep_equals_per_set_calls(rt, walk, rows):
    x = walk(rows, 20000)
    periods = range(10, 201, 10)
    swept = rt.compute("bollinger", x, period=periods, nbdev_up=2, axis=-1)
    lead = (len(periods),) + x.shape
    assert swept.upper.shape == lead
    for s, p in enumerate(periods):
        one = rt.compute("bollinger", x, period=p, nbdev_up=2, axis=-1)
        for name in one._fields:
            assert_bitwise(getattr(swept, name)[s], getattr(one, name))


def test_grid_of_two_parameters(rt, walk):
    x = walk(0, 8000)
    swept = apportion.bollinger(x, period=[10, 30], nbdev_up=[1.5, 2.0, 3.0], runtime=rt)
    assert swept.middle.shape == (6, 8000)
    # The first swept parameter varies slowest: set 4 is (30, 2.0).
    one = apportion.bollinger(x, period=30, nbdev_up=2.0, runtime=rt)
    assert_bitwise(swept.upper[4], one.upper)


def test_sweep_of_a_reduction(rt, walk):
    x = walk(3, 5000)
    swept = rt.compute("bootstrap", x, replicates=[16], seed=4, axis=-1)
    one = rt.compute("bootstrap", x, replicates=16, seed=4, axis=-1)
    assert swept.mean.shape == (1, 3)
    assert_bitwise(swept.mean[0], one.mean)
    assert_bitwise(swept.means[0], one.means)


def test_sweep_equals_cli_sweep(rt, cli, walk):
    x = walk(2, 10000)
    swept = rt.compute("macd", x, fast=[8, 12], slow=26, axis=-1)
    want = cli("macd", x, [("fast", "8,12"), ("slow", 26)], outputs=swept._fields)
    for name in swept._fields:
        assert_bitwise(getattr(swept, name), want[name])


def test_sweep_with_a_bad_set_names_it(rt, walk):
    x = walk(0, 1000)
    with pytest.raises(apportion.BadParameterError, match="sweep set 1"):
        rt.compute("bollinger", x, period=[10, 1])


def test_some_sets_of_a_grid(rt, walk):
    """first_set and n_sets_run run sets 2 .. 4 of a 2 x 3 grid (the first parameter varying
    slowest), each bitwise the call of that set alone."""
    x = walk(2, 6000)
    grid = [(p, k) for p in (10, 30) for k in (1.5, 2.0, 3.0)]
    part = rt.compute("bollinger", x, period=[10, 30], nbdev_up=[1.5, 2.0, 3.0], first_set=2, n_sets_run=3, axis=-1)
    assert part.upper.shape == (3,) + x.shape
    for i, (p, k) in enumerate(grid[2:5]):
        one = rt.compute("bollinger", x, period=p, nbdev_up=k, axis=-1)
        for name in one._fields:
            assert_bitwise(getattr(part, name)[i], getattr(one, name))
    # n_sets_run 0: every set from first_set to the grid's end.
    rest = rt.compute("bollinger", x, period=[10, 30], nbdev_up=[1.5, 2.0, 3.0], first_set=4, axis=-1)
    assert rest.lower.shape == (2,) + x.shape
    assert_bitwise(rest.lower[0], part.lower[2])
    assert_bitwise(rest.lower[1], rt.compute("bollinger", x, period=30, nbdev_up=3.0, axis=-1).lower)


def test_some_sets_of_a_sweep_cut_into_pieces(rt, walk):
    """A range of sets larger than the binding's pieces (2**22 elements: 10 sets of 2 x
    200,000 here) runs as pieces of that range, each set where the range puts it."""
    x = walk(2, 200_000)
    periods = list(range(10, 40))
    part = rt.compute("sma", x, timeperiod=periods, first_set=5, n_sets_run=17, axis=-1)
    assert part.sma.shape == (17,) + x.shape
    for i, p in enumerate(periods[5:22]):
        assert_bitwise(part.sma[i], rt.compute("sma", x, timeperiod=p, axis=-1).sma)


def test_some_sets_keep_their_labels(rt, walk):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(walk(2, 500).T, columns=["a", "b"])
    part = rt.compute("sma", frame, timeperiod=[5, 10, 20, 40], first_set=1, n_sets_run=2)
    assert list(part.sma.columns.get_level_values(0).unique()) == [10, 20]
    assert_bitwise(part.sma[20].to_numpy(), rt.compute("sma", frame, timeperiod=20).sma.to_numpy())


def test_some_sets_refused_outside_the_grid_or_without_a_sweep(rt, walk):
    x = walk(0, 1000)
    with pytest.raises(apportion.InvalidArgumentError, match="first_set"):
        rt.compute("sma", x, timeperiod=[5, 10], first_set=2)
    with pytest.raises(apportion.InvalidArgumentError, match="first_set"):
        rt.compute("sma", x, timeperiod=[5, 10], first_set=1, n_sets_run=2)
    with pytest.raises(TypeError, match="first_set and n_sets_run choose sets of a sweep"):
        rt.compute("sma", x, timeperiod=5, first_set=1)
    with pytest.raises(ValueError, match=">= 0"):
        rt.compute("sma", x, timeperiod=[5, 10], first_set=-1)

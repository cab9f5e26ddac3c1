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
    swept = rt.compute("bollinger", x, period=periods, nbdev_up=2)
    lead = (len(periods),) + x.shape
    assert swept.upper.shape == lead
    for s, p in enumerate(periods):
        one = rt.compute("bollinger", x, period=p, nbdev_up=2)
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
    swept = rt.compute("bootstrap", x, replicates=[16], seed=4)
    one = rt.compute("bootstrap", x, replicates=16, seed=4)
    assert swept.mean.shape == (1, 3)
    assert_bitwise(swept.mean[0], one.mean)
    assert_bitwise(swept.means[0], one.means)


def test_sweep_equals_cli_sweep(rt, cli, walk):
    x = walk(2, 10000)
    swept = rt.compute("macd", x, fast=[8, 12], slow=26)
    want = cli("macd", x, [("fast", "8,12"), ("slow", 26)], outputs=swept._fields)
    for name in swept._fields:
        assert_bitwise(getattr(swept, name), want[name])


def test_sweep_with_a_bad_set_names_it(rt, walk):
    x = walk(0, 1000)
    with pytest.raises(apportion.BadParameterError, match="sweep set 1"):
        rt.compute("bollinger", x, period=[10, 1])

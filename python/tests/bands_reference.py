"""bollinger's band rules read literally from docs/kernels.md, in long double, for the tests
of scores (test_scores.py) and of ranges (test_score_ranges.py): positions from flat at the
first bar, then returns after the first bar whose bands are all finite. Written from the
definition, not from the library's code."""

import math

import numpy as np


def walks(rows, n, seed):
    """rows random walks of n bars with a gap (NaN) at bar 1234 of every series."""
    rng = np.random.default_rng(seed)
    x = 100.0 + np.cumsum(rng.uniform(-0.5, 0.5, (rows, n)), axis=1)
    x[:, 1234] = np.nan
    return x


def first_finite(upper, middle, lower):
    """The first bar whose bands are all finite (len(upper) when none is)."""
    n = len(upper)
    return next((t for t in range(n) if all(math.isfinite(b[t]) for b in (upper, middle, lower))), n)


def positions(rule, close, upper, middle, lower):
    """bands_zone's or bands_revert's position at every bar, from flat; a bar without a
    close keeps the position before it."""
    n = len(close)
    pos = [0] * n
    for t in range(n):
        prev = pos[t - 1] if t else 0
        c = close[t]
        if not math.isfinite(c):
            pos[t] = prev
        elif rule == "bands_zone":
            pos[t] = 1 if c < lower[t] else -1 if c > upper[t] else 0
        elif any(math.isnan(b[t]) for b in (upper, middle, lower)):
            pos[t] = 0
        elif prev == 0:
            pos[t] = 1 if c < lower[t] else -1 if c > upper[t] else 0
        elif prev == 1:
            pos[t] = 0 if c >= middle[t] else 1
        else:
            pos[t] = 0 if c <= middle[t] else -1
    return pos


def returns(pos, close, first, cost):
    """The returns of the bars after `first` whose close and the one before are finite, net
    of `cost` a unit of position changed; with the count of trades and of exposed bars."""
    rets, trades, exposed = [], 0, 0
    for t in range(first + 1, len(close)):
        if not (math.isfinite(close[t]) and math.isfinite(close[t - 1])):
            continue
        r = np.longdouble(pos[t - 1]) * (np.longdouble(close[t]) / np.longdouble(close[t - 1]) - 1)
        rets.append(r - np.longdouble(cost) * abs(pos[t] - pos[t - 1]))
        trades += pos[t] != pos[t - 1]
        exposed += pos[t] != 0
    return np.array(rets, dtype=np.longdouble), trades, exposed

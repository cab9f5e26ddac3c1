"""The catalog's functions (apportion.catalog; docs/python.md, "The catalog"): one per kernel
the library lists, with the kernel's parameters and defaults; their results against numpy
evaluations of the definitions in docs/kernels.md, written here from the definitions; and
the inputs of several-input kernels taken from a DataFrame in any case, a mapping or
keywords, bitwise alike."""

import inspect
import types

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

pd = pytest.importorskip("pandas")

BUILTINS = {"bollinger", "macd", "returns_stats", "bootstrap"}


@pytest.fixture(scope="module")
def rt():
    with apportion.Runtime("cpu,sim:b:rate=5e8", profiles=False, learn=False) as r:
        yield r


def bars(n, seed):
    """A random OHLCV walk: high above and low below open and close, positive volume."""
    g = np.random.default_rng(seed)
    close = 100.0 + np.cumsum(g.normal(0.0, 1.0, n))
    open_ = np.concatenate(([close[0]], close[:-1]))
    high = np.maximum(open_, close) + g.uniform(0.0, 1.0, n)
    low = np.minimum(open_, close) - g.uniform(0.0, 1.0, n)
    volume = g.uniform(1e3, 1e4, n)
    return open_, high, low, close, volume


def expected_signature(info):
    """A kernel's function's signature as docs/python.md ("The catalog") writes the rule,
    from the descriptor: the input (x) or the frame of inputs (bars=None) first, the
    parameters with their defaults (a whole number as an int), the inputs of a kernel of
    several by keyword, then out, runtime, use_dynamic and axis."""
    P = inspect.Parameter
    several = len(info["inputs"]) > 1
    params = [P("bars", P.POSITIONAL_OR_KEYWORD, default=None) if several else P("x", P.POSITIONAL_OR_KEYWORD)]
    for name, default in info["params"].items():
        params.append(P(name, P.POSITIONAL_OR_KEYWORD, default=int(default) if default == int(default) else default))
    if several:
        params += [P(i, P.KEYWORD_ONLY, default=None) for i in info["inputs"]]
    params += [P("out", P.KEYWORD_ONLY, default=None), P("runtime", P.KEYWORD_ONLY, default=None)]
    params += [P("use_dynamic", P.KEYWORD_ONLY, default=False), P("axis", P.KEYWORD_ONLY, default=None)]
    params += [P("by", P.KEYWORD_ONLY, default=None), P("time", P.KEYWORD_ONLY, default=None)]
    return inspect.Signature(params)


def test_every_catalog_kernel_has_a_function_made_from_its_descriptor(rt):
    """Over the runtime's own list, so a kernel added to the C catalog is checked here with
    no edit of this file."""
    kernels = [k for k in rt.kernels() if k not in BUILTINS]
    assert len(kernels) >= 35
    assert apportion.catalog.unexpressible == {}
    for name in kernels:
        info = rt.kernel_info(name)
        fn = getattr(apportion, name, None)
        assert fn is not None and fn is getattr(apportion.catalog, name), name
        assert name in apportion.__all__ and name in apportion.catalog.__all__, name
        assert (fn.__name__, fn.__qualname__, fn.__module__) == (name, name, "apportion.catalog")
        want = expected_signature(info)
        assert inspect.signature(fn) == want, name
        # The code's own arguments, not only the __signature__ it declares.
        bare = types.FunctionType(fn.__code__, {}, name, fn.__defaults__)
        bare.__kwdefaults__ = fn.__kwdefaults__
        assert inspect.signature(bare) == want, name
        doc = fn.__doc__
        assert "Defined in docs/kernels.md" in doc, name
        for word in (*info["inputs"], *info["outputs"]):
            assert word in doc, (name, word)
        for param, default in info["params"].items():
            shown = int(default) if default == int(default) else default
            assert f"{param}={shown}" in doc, (name, param)
        assert getattr(apportion, name.upper()) is fn and getattr(apportion.catalog, name.upper()) is fn


def test_the_35_first_functions_keep_their_signatures():
    """The signatures the hand-written functions had before the catalog was generated, as
    programs call them (by position too); keyword-only options may be added at the end (by=
    and time=, for long Arrow frames), which no positional call can reach."""
    one = "(x, timeperiod={}, *, out=None, runtime=None, use_dynamic=False, axis=None, by=None, time=None)"
    opts = "out=None, runtime=None, use_dynamic=False, axis=None, by=None, time=None)"
    hlc = "(bars=None, timeperiod=14, *, high=None, low=None, close=None, " + opts
    hlcv = "(bars=None, timeperiod=14, *, high=None, low=None, close=None, volume=None, " + opts
    want = {
        "sma": one.format(30), "ema": one.format(30), "wma": one.format(30), "dema": one.format(30),
        "tema": one.format(30), "mom": one.format(10), "roc": one.format(10), "rsi": one.format(14),
        "cmo": one.format(14), "willr": hlc, "cci": hlc,
        "stochf": "(bars=None, fastk_period=5, fastd_period=3, fastd_matype=0, *, high=None, low=None, close=None, " + opts,
        "stoch": "(bars=None, fastk_period=5, slowk_period=3, slowk_matype=0, slowd_period=3, slowd_matype=0, *, high=None, low=None, close=None, " + opts,
        "stddev": "(x, timeperiod=5, nbdev=1, *, " + opts, "var": "(x, timeperiod=5, nbdev=1, *, " + opts,
        "max": one.format(30), "min": one.format(30), "linearreg": one.format(14), "linearreg_slope": one.format(14),
        "correl": "(bars=None, timeperiod=30, *, x=None, y=None, " + opts,
        "beta": "(bars=None, timeperiod=5, *, x=None, y=None, " + opts,
        "trange": "(bars=None, *, high=None, low=None, close=None, " + opts,
        "atr": hlc, "natr": hlc, "aroon": "(bars=None, timeperiod=14, *, high=None, low=None, " + opts,
        "zscore": one.format(20), "plus_di": hlc, "minus_di": hlc, "adx": hlc, "mfi": hlcv, "mvwap": hlcv,
        "kama": one.format(30),
        "adosc": "(bars=None, fastperiod=3, slowperiod=10, *, high=None, low=None, close=None, volume=None, " + opts,
        "obv": "(bars=None, *, close=None, volume=None, " + opts,
        "ad": "(bars=None, *, high=None, low=None, close=None, volume=None, " + opts,
        # TA-Lib 0.8's VWAP from the first bar since the windowed one became mvwap (docs/kernels.md).
        "vwap": "(bars=None, *, high=None, low=None, close=None, volume=None, " + opts,
    }
    assert len(want) == 36
    for name, text in want.items():
        assert str(inspect.signature(getattr(apportion, name))) == text, name
    from apportion.catalog import rsi

    assert rsi is apportion.rsi


def test_a_function_runs_by_position_and_by_keyword_alike(rt):
    _, high, low, close, _ = bars(800, 9)
    a = apportion.stochf(None, 7, 4, 0, high=high, low=low, close=close, runtime=rt)
    b = apportion.stochf(high=high, low=low, close=close, fastk_period=7, fastd_period=4, runtime=rt)
    assert a._fields == ("fastk", "fastd")
    for got, want in zip(a, b):
        assert_bitwise(np.asarray(got), np.asarray(want))
    (five,) = apportion.rsi(close, 5, runtime=rt)
    (fourteen,) = apportion.rsi(close, runtime=rt)
    assert np.isnan(five[4]) and not np.isnan(five[5]) and np.isnan(fourteen[13])
    with pytest.raises(TypeError):
        apportion.rsi(close, 14, 3)  # one parameter, not two
    with pytest.raises(TypeError):
        apportion.rsi(close, period=14)  # TA-Lib's names only


def test_ha_gives_its_four_candles_by_name(rt):
    """The catalog's one kernel of four outputs: a named tuple of four arrays, alike from a
    DataFrame and from keywords, each the definition's (docs/kernels/transforms.md,
    "Heikin-Ashi (TA-Lib 0.8)") evaluated here in plain floats, bar by bar; 1,000 bars are one
    tile, which runs the definition from bar 0, so the bits are the loop's."""
    open_, high, low, close, _ = bars(1000, 12)
    frame = pd.DataFrame({"Open": open_, "High": high, "Low": low, "Close": close})
    a = apportion.ha(frame, runtime=rt)
    b = apportion.ha(open=open_, high=high, low=low, close=close, runtime=rt)
    assert a._fields == ("haopen", "hahigh", "halow", "haclose")
    want = np.empty((4, len(close)))
    for t in range(len(close)):
        o, h, l, c = float(open_[t]), float(high[t]), float(low[t]), float(close[t])
        body_open = (o + c) / 2 if t == 0 else (want[0, t - 1] + want[3, t - 1]) / 2
        body_close = (((o + h) + l) + c) / 4
        want[:, t] = (body_open, max(h, body_open, body_close), min(l, body_open, body_close),
                      body_close)
    for got, other, expected in zip(a, b, want):
        assert_bitwise(np.asarray(got), np.asarray(other))
        assert_bitwise(np.asarray(got), expected)


def windows(x, p):
    return np.lib.stride_tricks.sliding_window_view(x, p)


def test_sma_and_max_against_numpy_windows(rt):
    _, _, _, close, _ = bars(5000, 1)
    p = 30
    (sma,) = apportion.sma(close, timeperiod=p, runtime=rt)
    (mx,) = apportion.max(close, timeperiod=p, runtime=rt)
    assert np.isnan(sma[: p - 1]).all() and np.isnan(mx[: p - 1]).all()
    want = np.array([np.sum(w, dtype=np.longdouble) / p for w in windows(close, p)], dtype=np.float64)
    assert np.max(np.abs(sma[p - 1 :] - want)) <= 1e-12 * np.max(np.abs(close))
    assert np.array_equal(mx[p - 1 :], windows(close, p).max(axis=1))


def test_atr_against_wilders_definition_from_a_frame_in_any_case(rt):
    _, high, low, close, _ = bars(3000, 2)
    p = 14
    frame = pd.DataFrame({"High": high, "LOW": low, "close": close})
    (atr,) = apportion.atr(frame, timeperiod=p, runtime=rt)
    (by_keyword,) = apportion.atr(high=high, low=low, close=close, timeperiod=p, runtime=rt)
    assert_bitwise(np.asarray(atr), np.asarray(by_keyword))
    # True range from the second bar; ATR seeded by the mean of the first p true ranges, then
    # Wilder's smoothing, all in long double.
    prev = close[:-1].astype(np.longdouble)
    h, lo = high[1:].astype(np.longdouble), low[1:].astype(np.longdouble)
    tr = np.maximum(h - lo, np.maximum(np.abs(h - prev), np.abs(lo - prev)))
    want = np.full(len(close), np.nan, dtype=np.longdouble)
    a = np.sum(tr[:p]) / p
    want[p] = a
    for t in range(p + 1, len(close)):
        a = (a * (p - 1) + tr[t - 1]) / p
        want[t] = a
    atr = np.asarray(atr)
    assert np.isnan(atr[:p]).all()
    assert np.max(np.abs(atr[p:] - want[p:].astype(np.float64))) <= 1e-12 * np.max(np.abs(close))


def test_correl_of_a_pair_by_mapping_against_numpy(rt):
    g = np.random.default_rng(3)
    x = np.cumsum(g.normal(size=2000))
    y = 0.5 * x + np.cumsum(g.normal(size=2000))
    p = 30
    (c,) = apportion.correl({"x": x, "y": y}, timeperiod=p, runtime=rt)
    c = np.asarray(c)
    want = np.array([np.corrcoef(a, b)[0, 1] for a, b in zip(windows(x, p), windows(y, p))])
    assert np.isnan(c[: p - 1]).all()
    assert np.max(np.abs(c[p - 1 :] - want)) <= 1e-10


def test_a_missing_input_is_named(rt):
    _, high, low, _, _ = bars(100, 4)
    with pytest.raises(KeyError, match="close"):
        apportion.willr(pd.DataFrame({"high": high, "low": low}), runtime=rt)


def test_a_swept_period_gives_each_set_its_own_call(rt):
    _, _, _, close, _ = bars(4000, 5)
    (swept,) = apportion.rsi(close, timeperiod=[7, 14, 21], runtime=rt)
    for i, p in enumerate((7, 14, 21)):
        (alone,) = apportion.rsi(close, timeperiod=p, runtime=rt)
        assert_bitwise(np.asarray(swept)[i], np.asarray(alone))


def test_obv_and_ad_against_talibs_definition_with_a_gap_and_across_splits(rt):
    _, high, low, close, volume = bars(200_000, 6)
    close[9::9] = close[8:-1:9]  # ties, where obv leaves its sum as it is
    high[5000] = np.nan  # a gap in ad's inputs only
    close[7000] = np.nan  # a gap in both
    frame = pd.DataFrame({"High": high, "Low": low, "Close": close, "Volume": volume})
    (obv,) = apportion.obv(frame, runtime=rt)
    (ad,) = apportion.ad(high=high, low=low, close=close, volume=volume, runtime=rt)
    obv, ad = np.asarray(obv), np.asarray(ad)
    # The definitions over the bars left once the gap bars are taken out, in long double.
    want_obv = np.full(len(close), np.nan)
    keep = np.flatnonzero(np.isfinite(close) & np.isfinite(volume))
    c, v = close[keep], volume[keep].astype(np.longdouble)
    step = np.where(c[1:] > c[:-1], v[1:], np.where(c[1:] < c[:-1], -v[1:], 0))
    want_obv[keep] = np.cumsum(np.concatenate(([v[0]], step))).astype(np.float64)
    want_ad = np.full(len(close), np.nan)
    keep = np.flatnonzero(np.isfinite(high) & np.isfinite(low) & np.isfinite(close))
    h, lo, c = (a[keep].astype(np.longdouble) for a in (high, low, close))
    flow = np.where(h > lo, ((c - lo) - (h - c)) / np.where(h > lo, h - lo, 1) * volume[keep], 0)
    want_ad[keep] = np.cumsum(flow).astype(np.float64)
    for got, want in ((obv, want_obv), (ad, want_ad)):
        assert np.array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        assert np.max(np.abs(got[ok] - want[ok])) <= 1e-12 * np.max(np.abs(want[ok]))
    # Running sums from the first bar, yet the same bits on other devices and ratios, along
    # time (tiles of 65,536 bars, each re-running the sum from the row's start).
    with apportion.Runtime("cpu,sim:a:rate=1e8,sim:c:rate=3e8", profiles=False, learn=False) as multi:
        outs, _ = multi.distribute("obv", [close, volume], ratios=[0.1, 0.3, 0.6], split="time")
        assert_bitwise(np.asarray(outs[0]), obv)
        (again,) = apportion.ad(frame, runtime=multi)
        assert_bitwise(np.asarray(again), ad)


def test_a_negative_volume_is_refused_by_calls_and_streams(rt):
    """docs/kernels.md, "Negative volume": the library refuses it, naming the row and bar, and
    Python raises its message; a missing volume (NaN) stays a gap; a refused stream update
    leaves the stream where it was."""
    _, high, low, close, volume = bars(300, 9)
    volume[120] = -500000.0
    frame = pd.DataFrame({"high": high, "low": low, "close": close, "volume": volume})
    for kernel in ("mfi", "mvwap", "vwap", "obv", "ad", "adosc"):
        with pytest.raises(apportion.errors.InvalidArgumentError, match="is -500000 at row 0, bar 120"):
            getattr(apportion, kernel)(frame, runtime=rt)
    with pytest.raises(ValueError, match="is -500000 at row 0, bar 120"):
        rt.compute("mfi:mfi_zone", high, low, close, volume)
    volume[120] = np.nan
    (mfi,) = apportion.mfi(frame.assign(volume=volume), runtime=rt)
    assert np.isnan(np.asarray(mfi)[120])
    s = apportion.Stream("obv", series=2, runtime=rt)
    # Blocks of bars x series: the bars run along axis 0 (docs/python.md, "Inputs").
    s.update(close=np.ones((3, 2)), volume=np.full((3, 2), 10.0), axis=0)
    with pytest.raises(ValueError, match=r"is -7 at series 1, bar 1"):
        s.update(close=np.ones((2, 2)), volume=np.array([[5.0, 5.0], [5.0, -7.0]]), axis=0)
    (out,) = s.update(close=np.ones((2, 2)), volume=np.full((2, 2), 5.0), axis=0)
    assert np.asarray(out).shape == (2, 2)

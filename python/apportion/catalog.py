"""The indicator catalog as functions, one per kernel, with TA-Lib's names, parameters and
defaults (docs/kernels.md, "The catalog", defines each).

A kernel of one input takes it first: one series (1-D), rows x samples (2-D) or a pandas
Series or DataFrame whose columns are the series, as ``bollinger`` does. A kernel of
several inputs (``high``, ``low``, ``close``, ``volume``; ``x`` and ``y`` for pairs) takes
a DataFrame or mapping holding them by name, in any case, as its first argument, or the
arrays by keyword (docs/python.md, "Several inputs"). Every function returns a named tuple
of the kernel's outputs; a parameter given as a range or list is swept; ``out=``,
``runtime=``, ``use_dynamic=`` and ``axis=`` (a 2-D array's bars axis) are those of
``bollinger``.
"""

from .indicators import _call

# max and min keep TA-Lib's names; inside this module they shadow the builtins, which no
# function here uses.
__all__ = [
    "sma",
    "ema",
    "wma",
    "dema",
    "tema",
    "mom",
    "roc",
    "rsi",
    "cmo",
    "willr",
    "cci",
    "stochf",
    "stoch",
    "stddev",
    "var",
    "max",
    "min",
    "linearreg",
    "linearreg_slope",
    "correl",
    "beta",
    "trange",
    "atr",
    "natr",
    "aroon",
    "zscore",
    "plus_di",
    "minus_di",
    "adx",
    "mfi",
    "vwap",
    "kama",
    "adosc",
    "obv",
    "ad",
]


def sma(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Simple moving average of ``timeperiod`` closes. Input: close. Outputs: (sma)."""
    return _call("sma", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def ema(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Exponential moving average, k = 2 / (timeperiod + 1), seeded with the SMA of the first
    ``timeperiod`` closes (TA-Lib's). Input: close. Outputs: (ema)."""
    return _call("ema", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def wma(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Linearly weighted moving average of ``timeperiod`` closes, the newest weighted most.
    Input: close. Outputs: (wma)."""
    return _call("wma", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def dema(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Double exponential moving average: 2 EMA - EMA(EMA). Input: close. Outputs: (dema)."""
    return _call("dema", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def tema(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Triple exponential moving average: 3 EMA - 3 EMA(EMA) + EMA(EMA(EMA)). Input: close.
    Outputs: (tema)."""
    return _call("tema", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def mom(x, timeperiod=10, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Momentum: close - close ``timeperiod`` bars earlier. Input: close. Outputs: (mom)."""
    return _call("mom", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def roc(x, timeperiod=10, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rate of change in percent: (close / close ``timeperiod`` bars earlier - 1) * 100. Input:
    close. Outputs: (roc)."""
    return _call("roc", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def rsi(x, timeperiod=14, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Relative strength index, Wilder's smoothing of gains and losses (0 to 100). Input: close.
    Outputs: (rsi)."""
    return _call("rsi", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def cmo(x, timeperiod=14, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Chande momentum oscillator, Wilder's smoothing of gains and losses (-100 to 100). Input:
    close. Outputs: (cmo)."""
    return _call("cmo", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def willr(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Williams' %R over ``timeperiod`` bars (-100 to 0). Inputs: high, low, close. Outputs:
    (willr)."""
    return _call("willr", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def cci(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Commodity channel index of the typical price over ``timeperiod`` bars. Inputs: high, low,
    close. Outputs: (cci)."""
    return _call("cci", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def stochf(bars=None, fastk_period=5, fastd_period=3, fastd_matype=0, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Fast stochastic: (fastk, fastd); fastd is the SMA of fastk (matype 0 only). Inputs: high,
    low, close. Outputs: (fastk, fastd)."""
    return _call("stochf", bars, {"fastk_period": fastk_period, "fastd_period": fastd_period, "fastd_matype": fastd_matype}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def stoch(bars=None, fastk_period=5, slowk_period=3, slowk_matype=0, slowd_period=3, slowd_matype=0, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Slow stochastic: (slowk, slowd), SMAs of the fast %K (matypes 0 only). Inputs: high, low,
    close. Outputs: (slowk, slowd)."""
    return _call("stoch", bars, {"fastk_period": fastk_period, "slowk_period": slowk_period, "slowk_matype": slowk_matype, "slowd_period": slowd_period, "slowd_matype": slowd_matype}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def stddev(x, timeperiod=5, nbdev=1, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rolling population standard deviation of ``timeperiod`` closes, times ``nbdev``. Input:
    close. Outputs: (stddev)."""
    return _call("stddev", x, {"timeperiod": timeperiod, "nbdev": nbdev}, out, runtime, use_dynamic, axis=axis)


def var(x, timeperiod=5, nbdev=1, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rolling population variance of ``timeperiod`` closes (``nbdev`` is TA-Lib's and unused).
    Input: close. Outputs: (var)."""
    return _call("var", x, {"timeperiod": timeperiod, "nbdev": nbdev}, out, runtime, use_dynamic, axis=axis)


def max(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Highest close of the last ``timeperiod`` bars. Input: close. Outputs: (max)."""
    return _call("max", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def min(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Lowest close of the last ``timeperiod`` bars. Input: close. Outputs: (min)."""
    return _call("min", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def linearreg(x, timeperiod=14, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """The least-squares line through the last ``timeperiod`` closes, at the newest bar. Input:
    close. Outputs: (linearreg)."""
    return _call("linearreg", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def linearreg_slope(x, timeperiod=14, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """The slope of the least-squares line through the last ``timeperiod`` closes. Input: close.
    Outputs: (linearreg_slope)."""
    return _call("linearreg_slope", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def correl(bars=None, timeperiod=30, *, x=None, y=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rolling Pearson correlation of x and y over ``timeperiod`` bars. Inputs: x, y. Outputs:
    (correl)."""
    return _call("correl", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"x": x, "y": y})


def beta(bars=None, timeperiod=5, *, x=None, y=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rolling beta of x's returns on y's returns over ``timeperiod`` bars (TA-Lib's). Inputs:
    x, y. Outputs: (beta)."""
    return _call("beta", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"x": x, "y": y})


def trange(bars=None, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """True range: the largest of high - low and the distances of high and low from the previous
    close. Inputs: high, low, close. Outputs: (trange)."""
    return _call("trange", bars, {}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def atr(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Average true range, Wilder's smoothing over ``timeperiod`` bars. Inputs: high, low,
    close. Outputs: (atr)."""
    return _call("atr", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def natr(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Normalised average true range: ATR / close * 100. Inputs: high, low, close. Outputs:
    (natr)."""
    return _call("natr", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def aroon(bars=None, timeperiod=14, *, high=None, low=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Aroon: (aroondown, aroonup), how recent the lowest low and highest high of ``timeperiod``
    + 1 bars are (0 to 100). Inputs: high, low. Outputs: (aroondown, aroonup)."""
    return _call("aroon", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low})


def zscore(x, timeperiod=20, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rolling z-score: (close - SMA) / population sd over ``timeperiod`` closes. Input: close.
    Outputs: (zscore)."""
    return _call("zscore", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def plus_di(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Plus directional indicator, Wilder's smoothing over ``timeperiod`` bars. Inputs: high,
    low, close. Outputs: (plus_di)."""
    return _call("plus_di", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def minus_di(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Minus directional indicator, Wilder's smoothing over ``timeperiod`` bars. Inputs: high,
    low, close. Outputs: (minus_di)."""
    return _call("minus_di", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def adx(bars=None, timeperiod=14, *, high=None, low=None, close=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Average directional movement index, Wilder's smoothing over ``timeperiod`` bars. Inputs:
    high, low, close. Outputs: (adx)."""
    return _call("adx", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close})


def mfi(bars=None, timeperiod=14, *, high=None, low=None, close=None, volume=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Money flow index over ``timeperiod`` bars (0 to 100). Inputs: high, low, close, volume.
    Outputs: (mfi)."""
    return _call("mfi", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close, "volume": volume})


def vwap(bars=None, timeperiod=14, *, high=None, low=None, close=None, volume=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Rolling volume-weighted average of the typical price over ``timeperiod`` bars. Inputs:
    high, low, close, volume. Outputs: (vwap)."""
    return _call("vwap", bars, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close, "volume": volume})


def kama(x, timeperiod=30, *, out=None, runtime=None, use_dynamic=False, axis=None):
    """Kaufman adaptive moving average over ``timeperiod`` bars. Input: close. Outputs: (kama)."""
    return _call("kama", x, {"timeperiod": timeperiod}, out, runtime, use_dynamic, axis=axis)


def adosc(bars=None, fastperiod=3, slowperiod=10, *, high=None, low=None, close=None, volume=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Chaikin A/D oscillator: EMA(fastperiod) - EMA(slowperiod) of the
    accumulation/distribution line. Inputs: high, low, close, volume. Outputs: (adosc)."""
    return _call("adosc", bars, {"fastperiod": fastperiod, "slowperiod": slowperiod}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close, "volume": volume})


def obv(bars=None, *, close=None, volume=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """On balance volume (TA-Lib's): the first bar's volume, then plus each bar's volume where
    the close rose, minus it where the close fell, unchanged where equal; a running sum from
    the series' first bar, with the same bits however the work is split. A bar with a NaN
    close or volume gives NaN and adds nothing. Inputs: close, volume. Outputs: (obv)."""
    return _call("obv", bars, {}, out, runtime, use_dynamic, axis=axis, named={"close": close, "volume": volume})


def ad(bars=None, *, high=None, low=None, close=None, volume=None, out=None, runtime=None, use_dynamic=False, axis=None):
    """Chaikin accumulation/distribution line (TA-Lib's): the running sum from the series' first
    bar of ((close - low) - (high - close)) / (high - low) * volume, adding nothing where high
    is not above low, with the same bits however the work is split. A bar with a NaN input
    gives NaN and adds nothing. Inputs: high, low, close, volume. Outputs: (ad)."""
    return _call("ad", bars, {}, out, runtime, use_dynamic, axis=axis, named={"high": high, "low": low, "close": close, "volume": volume})

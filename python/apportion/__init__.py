"""apportion: numpy and pandas over libapportion, which splits array computations across
the devices of a machine and merges the results bitwise identically however the work was
split. docs/python.md is the guide; ``apportion.threadx`` keeps ThreadX's calls.

    import apportion
    upper, middle, lower = apportion.bollinger(prices, period=20)
"""

from . import _core
from ._default import default_runtime, set_default_runtime
from .errors import *  # noqa: F401,F403  (the exception classes)
from .errors import ApportionError, NonFiniteOutputWarning, ShortSeriesWarning
from . import catalog
from .catalog import *  # noqa: F401,F403  (one function per catalog kernel)
from .indicators import bollinger, bootstrap, compute, macd, returns_stats
from .runtime import Runtime
from ._core import DeviceArray
from .scores import MORE_SCORES, SCORES, follow, score, walk_forward
from .ranking import rank
from .positions import plot_equity, positions
from .scores_plot import plot_scores
from .stream import Stream
from .stream_group import StreamGroup

__version__ = _core.version()


_KERNEL_FUNCTIONS = {"bollinger": bollinger, "macd": macd, "returns_stats": returns_stats, "bootstrap": bootstrap}


def __getattr__(name):
    """The numba helpers (``apportion.numba_kernels``) on first use: importing them imports
    numba, which takes a second and is optional, so ``import apportion`` does not. And a
    kernel's function under its name in another case, as TA-Lib's users write it:
    ``apportion.RSI`` is ``apportion.rsi`` (docs/python.md, "Kernel names in any case")."""
    if name == "numba_kernels":
        import importlib

        return importlib.import_module(".numba_kernels", __name__)
    if name != name.lower():
        fn = catalog.find(name) or _KERNEL_FUNCTIONS.get(name.lower())
        if fn is not None:
            return fn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ApportionError",
    "NonFiniteOutputWarning",
    "ShortSeriesWarning",
    "Runtime",
    "DeviceArray",
    "bollinger",
    "bootstrap",
    "compute",
    "default_runtime",
    "macd",
    "returns_stats",
    "score",
    "walk_forward",
    "rank",
    "positions",
    "plot_equity",
    "MORE_SCORES",
    "SCORES",
    "follow",
    "plot_scores",
    "Stream",
    "StreamGroup",
    "set_default_runtime",
    "catalog",
] + catalog.__all__

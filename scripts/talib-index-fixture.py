#!/usr/bin/env python3
"""Writes tests/data/talib_index.bin: a deterministic series full of ties, and TA-Lib's own
MAXINDEX, MININDEX and MINMAXINDEX of it at several periods, which
tests/kernels/transforms/test_index.c compares with the catalog's, bar for bar.

Pinned: the PyPI package ta-lib==0.8.2 (which bundles TA-Lib 0.8.1's C library) and numpy.
    python3 -m venv /tmp/venv-talib && /tmp/venv-talib/bin/pip install ta-lib==0.8.2 numpy
    /tmp/venv-talib/bin/python scripts/talib-index-fixture.py tests/data/talib_index.bin

The series: prices on a grid of whole ticks, a walk whose steps are mostly 0 (flat stretches
of every length, from one bar to several windows), +-1 and now and then a jump, with runs up
and down that make TA-Lib scan again at every bar; a lone NaN, a run of NaN and an infinity in
the middle (none in the first bars: the Python wrapper would shift the indices past a NaN
lead). The generator is SplitMix64 written out in splitmix64.py, so the file does not
depend on numpy's.

The file, little-endian:
    "APOIDX1\\0"                magic
    uint32 n, uint32 periods
    int16 x[n]                  the series in ticks; -32768 NaN, 32767 +inf
    per period:
        uint32 period
        4 x uint8[n]            t - index of MAXINDEX, MININDEX, MINMAXINDEX's minidx and its
                                maxidx at bar t (255 before the lookback, where TA-Lib has none)
"""
import struct
import sys

import numpy as np
import talib

from splitmix64 import SplitMix64

N = 3000
PERIODS = (2, 3, 5, 14, 30, 100)
NAN_TICKS, INF_TICKS = -32768, 32767


def series():
    rng = SplitMix64(52)
    ticks, level, t = [], 400, 0
    while len(ticks) < N:
        kind = rng.below(10)
        length = 1 + rng.below(40 if kind < 4 else 12)
        for _ in range(length):
            if kind < 4:  # flat
                step = 0
            elif kind < 6:  # a run up or down, every bar a new extreme
                step = 1 if kind == 4 else -1
            elif kind < 9:  # a walk of small steps, ties all over
                step = (0, 0, 1, -1, 2, -2)[rng.below(6)]
            else:  # jumps
                step = rng.below(41) - 20
            level = min(max(level + step, 1), 30000)
            ticks.append(level)
            t += 1
    ticks = ticks[:N]
    for i in (N // 3, N // 2, N // 2 + 1, N // 2 + 2, 2 * N // 3 + 7):
        ticks[i] = NAN_TICKS
    ticks[3 * N // 4] = INF_TICKS
    return ticks


def main(path):
    ticks = series()
    x = np.array(
        [np.nan if v == NAN_TICKS else np.inf if v == INF_TICKS else v / 4.0 for v in ticks]
    )
    out = bytearray(b"APOIDX1\0")
    out += struct.pack("<II", N, len(PERIODS))
    out += struct.pack("<%dh" % N, *ticks)
    for p in PERIODS:
        mn, mx = talib.MINMAXINDEX(x, timeperiod=p)
        outputs = (talib.MAXINDEX(x, timeperiod=p), talib.MININDEX(x, timeperiod=p), mn, mx)
        out += struct.pack("<I", p)
        for o in outputs:
            back = [255 if t < p - 1 else t - int(o[t]) for t in range(N)]
            assert all(0 <= b < p or b == 255 for b in back)
            out += bytes(back)
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main(sys.argv[1])

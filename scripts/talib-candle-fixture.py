#!/usr/bin/env python3
"""Writes tests/data/talib_candles.bin: a deterministic OHLC series built to trigger every one
of TA-Lib's 61 candlestick patterns, and TA-Lib's own outputs of each pattern on it, which
tests/kernels/candles/test_candles.c compares with the catalog's, bar for bar.

Pinned: the PyPI package ta-lib==0.8.2 (which bundles TA-Lib 0.8.1's C library) and numpy.
    python3 -m venv /tmp/venv-talib && /tmp/venv-talib/bin/pip install ta-lib==0.8.2 numpy
    /tmp/venv-talib/bin/python scripts/talib-candle-fixture.py tests/data/talib_candles.bin

The series: bars of whole ticks of 1/16 (so every price, body, shadow and sum of ranges
TA-Lib forms is exact in double, and its running sums of the settings' ranges equal the
catalog's fresh sums bit for bit), a random walk with runs of one colour, many dojis and equal
prices, gaps up and down, inside bars, long shadows and marubozu, and every 40 bars on average
one of a few textbook shapes (stars, babies, crows, three methods, ...), which random bars
produce too rarely. The generator is SplitMix64 written out in splitmix64.py, so the file
does not depend on numpy's generators.

The file, little-endian:
    "APOCDL1\\0"                 magic
    uint32 n, uint32 patterns, uint32 ticks per unit (16)
    int16 open[n], high[n], low[n], close[n]   the prices in ticks
    per pattern, in TA-Lib's alphabetical order:
        char name[24]              the catalog's name, NUL-padded
        double penetration         the parameter TA-Lib ran with (-1: none)
        uint32 records             the pairs that follow
        records x (uint8 bars since the last event, int8 value / 10), the first counted from
        bar 0; a skip of 255 bars or more is written as (255, 0) pairs before the event
TA-Lib's outputs are 0 before the lookback; the catalog's are NaN there, which the test expects.
"""
import struct
import sys

import numpy as np
import talib

from splitmix64 import SplitMix64

N = 20000
TICKS = 16
PENETRATION = {
    "CDLABANDONEDBABY": 0.3,
    "CDLDARKCLOUDCOVER": 0.5,
    "CDLEVENINGDOJISTAR": 0.3,
    "CDLEVENINGSTAR": 0.3,
    "CDLMATHOLD": 0.5,
    "CDLMORNINGDOJISTAR": 0.3,
    "CDLMORNINGSTAR": 0.3,
}


def shadow(rng):
    r = rng.below(100)
    if r < 35:
        return 0
    if r < 65:
        return rng.between(1, 3)
    if r < 90:
        return rng.between(3, 15)
    return rng.between(15, 60)


def body_size(rng):
    r = rng.below(100)
    if r < 20:
        return rng.between(0, 1)
    if r < 50:
        return rng.between(1, 6)
    if r < 80:
        return rng.between(5, 20)
    return rng.between(20, 60)


class Walk:
    """The bars, appended one by one, each from the last."""

    def __init__(self, rng):
        self.rng = rng
        self.o, self.h, self.l, self.c = [], [], [], []
        self.trend = 1

    def add(self, o, h, l, c):
        assert l <= min(o, c) and h >= max(o, c), (o, h, l, c)
        self.o.append(o)
        self.h.append(h)
        self.l.append(l)
        self.c.append(c)

    def random_bar(self):
        rng = self.rng
        if not self.c:
            self.add(1600, 1610, 1590, 1600)
            return
        po, ph, pl, pc = self.o[-1], self.h[-1], self.l[-1], self.c[-1]
        # Pull the walk back towards 1600 ticks (100.0), so the ticks fit an int16.
        if rng.chance(0.2):
            self.trend = -self.trend
        drift = 1 if pc < 1200 else -1 if pc > 2400 else self.trend
        r = rng.below(100)
        if r < 45:
            o = pc
        elif r < 60:
            o = rng.between(min(po, pc), max(po, pc))
        elif r < 70:
            o = ph + rng.between(1, 10)
        elif r < 80:
            o = pl - rng.between(1, 10)
        else:
            o = pc + rng.between(-3, 3)
        size = body_size(rng)
        c = o + (size if (drift > 0) == rng.chance(0.7) else -size)
        h = max(o, c) + shadow(rng)
        l = min(o, c) - shadow(rng)
        if rng.chance(0.08) and ph - pl > 4:
            # An inside bar: its whole range strictly within the last one's.
            l = pl + rng.between(1, (ph - pl) // 4)
            h = ph - rng.between(1, (ph - pl) // 4)
            o = rng.between(l, h)
            c = rng.between(l, h)
        self.add(o, h, l, c)

    def shape(self):
        """One of a few textbook shapes, scaled from the last bar's close; sign picks the
        bullish or bearish version."""
        rng = self.rng
        pc = self.c[-1]
        s = rng.between(2, 4)  # the scale of a long body, in units of 8 ticks
        up = rng.chance(0.5)
        d = 1 if up else -1
        big = 8 * s
        kind = rng.below(10)
        if kind == 0:  # star: long, small gapping away, long back into the first
            self.add(pc, pc + 1 if d > 0 else pc + big + 1, pc - big - 1 if d > 0 else pc - 1,
                     pc - d * big)
            c1 = pc - d * big
            o2 = c1 - d * rng.between(2, 6)
            c2 = o2 + rng.between(-1, 1)
            self.add(o2, max(o2, c2) + rng.between(0, 3), min(o2, c2) - rng.between(0, 3), c2)
            o3 = c2 + d * rng.between(2, 6)
            c3 = pc - d * rng.between(0, big // 3)
            self.add(o3, max(o3, c3) + 1, min(o3, c3) - 1, c3)
        elif kind == 1:  # three soldiers or crows with short shadows
            o = pc
            for _ in range(3):
                c = o + d * big
                self.add(o, max(o, c) + rng.between(0, 1), min(o, c) - rng.between(0, 1), c)
                o = c - d * rng.between(0, big // 2)
        elif kind == 2:  # three methods: long, three small drifting back, long beyond
            o = pc
            c = o + d * big
            self.add(o, max(o, c) + 1, min(o, c) - 1, c)
            top = c
            for k in range(3):
                oo = top - d * (2 + 2 * k)
                cc = oo - d * 3
                self.add(oo, max(oo, cc) + 1, min(oo, cc) - 1, cc)
            c5 = pc + d * (big + big // 2)
            o5 = cc + d * 1
            self.add(o5, max(o5, c5) + 1, min(o5, c5) - 1, c5)
        elif kind == 3 and rng.chance(0.5):  # marubozu of opposite colours, a gap (kicking)
            o = pc
            c = o - d * big
            self.add(o, max(o, c), min(o, c), c)
            o2 = max(o, c) + 2 if d > 0 else min(o, c) - 2
            c2 = o2 + d * big
            self.add(o2, max(o2, c2), min(o2, c2), c2)
        elif kind == 3:  # long bodies of opposite colours closing together (counterattack)
            o = pc
            c = o - d * big
            self.add(o, max(o, c) + 1, min(o, c) - 1, c)
            o2 = c - d * big
            self.add(o2, max(o2, c) + 1, min(o2, c) - 1, c)
        elif kind == 4:  # concealing baby swallow and ladder bottom: falling black marubozu
            o = pc
            for _ in range(3):
                c = o - big
                self.add(o, o, c, c)
                o = c - rng.between(0, 3)
            o4 = c - rng.between(1, 4)
            c4 = o4 - rng.between(2, 6)
            self.add(o4, c + rng.between(1, 4), c4 - rng.between(0, 2), c4)
            if rng.chance(0.5):
                o5 = o4 + rng.between(1, 4)
                self.add(o5, o5 + big + 4, c4 - 2, o5 + big + 2)
            else:
                o5 = o4 + 6
                self.add(o5, o5 + 1, c4 - 8, c4 - 6)
        elif kind == 5:  # mat hold: long white, small black gap up, two small, long white
            o = pc
            c = o + big
            self.add(o, c + 1, o - 1, c)
            self.add(c + 6, c + 7, c + 2, c + 3)
            self.add(c + 2, c + 3, c - 2, c - 1)
            self.add(c + 1, c + 2, c - 3, c - 2)
            self.add(c - 1, c + big + 2, c - 2, c + big)
        elif kind == 6:  # breakaway
            o = pc
            c = o + d * big
            self.add(o, max(o, c) + 1, min(o, c) - 1, c)
            o2 = c + d * 4
            for k in range(3):
                cc = o2 + d * 4
                self.add(o2, max(o2, cc) + 1, min(o2, cc) - 1, cc)
                o2 = cc + d * 1
            o5 = cc
            c5 = c + d * 2
            self.add(o5, max(o5, c5) + 1, min(o5, c5) - 1, c5)
        elif kind == 7:  # three stars in the south, unique three river
            o = pc
            c = o - big
            self.add(o, o + 1, c - big - 2, c)
            o2 = c + rng.between(1, 4)
            c2 = o2 - big // 2
            self.add(o2, o2 + 1, c - big + rng.between(0, 3), c2)
            o3 = c2 + rng.between(0, 2)
            c3 = o3 - 1
            self.add(o3, o3, c3, c3)
        elif kind == 8:  # two crows and upside gap two crows
            o = pc
            c = o + big
            self.add(o, c + 1, o - 1, c)
            o2 = c + 6
            c2 = o2 - 3
            self.add(o2, o2 + 1, c2 - 1, c2)
            if rng.chance(0.5):  # upside gap two crows: engulfing the second, above the first
                o3, c3 = o2 + rng.between(1, 2), c2 - rng.between(1, 2)
            else:  # two crows: inside the second's body, closing inside the first's
                o3, c3 = o2 - 1, c - rng.between(1, big - 1)
            self.add(o3, max(o3, c3) + 1, min(o3, c3) - 1, c3)
        else:  # tasuki and side-by-side gaps: a gap, then two bars of the same body
            o = pc
            c = o + d * big
            self.add(o, max(o, c) + 1, min(o, c) - 1, c)
            o2 = c + d * 8
            c2 = o2 + 6
            self.add(o2, c2 + 1, o2 - 1, c2)
            o3 = o2 + rng.between(-1, 1) if rng.chance(0.5) else c2 - 2
            c3 = o3 + 6 if rng.chance(0.5) else o3 - 6
            self.add(o3, max(o3, c3) + 1, min(o3, c3) - 1, c3)


def series():
    rng = SplitMix64(20261127)
    w = Walk(rng)
    while len(w.c) < N:
        if len(w.c) > 20 and rng.chance(1 / 40):
            w.shape()
        else:
            w.random_bar()
    cols = [np.array(x[:N], dtype=np.int64) for x in (w.o, w.h, w.l, w.c)]
    for col in cols:
        assert col.min() > -32768 and col.max() < 32768
    return cols


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ticks = series()
    o, h, l, c = (t.astype(np.float64) / TICKS for t in ticks)
    names = talib.get_function_groups()["Pattern Recognition"]
    assert len(names) == 61, names
    out = bytearray(b"APOCDL1\0")
    out += struct.pack("<III", N, len(names), TICKS)
    for t in ticks:
        out += t.astype("<i2").tobytes()
    weak = []
    for name in names:
        pen = PENETRATION.get(name)
        values = getattr(talib, name)(o, h, l, c, **({"penetration": pen} if pen else {}))
        bars = np.nonzero(values)[0]
        assert np.all(values[bars] % 10 == 0)
        out += name.lower().encode().ljust(24, b"\0")
        records = bytearray()
        last = 0
        for t in bars:
            skip = int(t) - last
            while skip >= 255:
                records += struct.pack("<Bb", 255, 0)
                skip -= 255
            records += struct.pack("<Bb", skip, int(values[t] // 10))
            last = int(t)
        out += struct.pack("<dI", pen if pen else -1.0, len(records) // 2) + records
        kinds = sorted(set(values[bars].tolist()))
        counts = {k: int((values == k).sum()) for k in kinds}
        print(f"{name.lower():22s} {counts}")
        if len(bars) < 3:
            weak.append(name)
    with open(sys.argv[1], "wb") as f:
        f.write(out)
    print(f"{len(out)} bytes; patterns firing fewer than 3 times: {weak or 'none'}")


if __name__ == "__main__":
    main()

"""SplitMix64 written out, for the fixture writers (talib-candle-fixture.py,
talib-index-fixture.py): their series depend on this sequence alone, not on numpy's
generators, so that a fixture can be written again bit for bit."""

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def chance(self, p):
        return self.next() < int(p * (1 << 64))

    def between(self, lo, hi):
        return lo + self.below(hi - lo + 1)

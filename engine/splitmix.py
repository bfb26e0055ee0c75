"""splitmix64, in pure Python, for the reference engines: the generator every engine's state
carries (``engine/rng.pxd`` in C), written once here so that the references draw exactly what
the Cython engines draw."""
from __future__ import annotations

MASK64 = (1 << 64) - 1


class SplitMix64:
    """splitmix64 generator over a 64-bit state (the exact algorithm the engines share);
    ``state`` is that state."""

    def __init__(self, seed: int):
        self.state = seed % (1 << 64)

    def next(self) -> int:
        """Next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def bounded(self, n: int) -> int:
        """Uniform int in [0, n) by rejection: draw until x < 2**64 - (2**64 % n), return x % n."""
        if n < 1:
            raise ValueError("bounded(n) needs n >= 1")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place: for i = len-1 down to 1, swap items[i] with items[bounded(i+1)]."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]

"""Deriving independent 64-bit seeds from a seed and a path of integers (splitmix64 mixing)."""

_MASK = (1 << 64) - 1


def _mix(z):
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def derive(seed, *path):
    """A seed for the stream at `path` under `seed`: derive(s, 3, 1) != derive(s, 1, 3)."""
    z = _mix(seed & _MASK)
    for p in path:
        z = _mix(z ^ (p & _MASK))
    return z

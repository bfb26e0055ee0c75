# Seeded random numbers for engines and bots: splitmix64, unbiased bounded draws, Fisher-Yates.
# The exact algorithm is part of the determinism contract (the pure-Python reference engines,
# engine/<game>/reference*.py, redo it in engine/splitmix.py): same seed, same stream, bit for bit,
# on every platform.
from libc.stdint cimport uint64_t

ctypedef uint64_t rng_t   # the whole generator state is one 64-bit word


cdef inline uint64_t rng_next(rng_t* s) noexcept nogil:
    """splitmix64: advance the state by the golden gamma and mix it."""
    s[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t rng_bounded(rng_t* s, uint64_t n) noexcept nogil:
    """Uniform integer in [0, n), n >= 1, by rejection (no modulo bias). n == 0 gives 0 without
    drawing, so no caller can divide by zero (callers check for empty action lists first)."""
    if n == 0:
        return 0
    # limit = 2**64 - (2**64 mod n); (-n) % n == 2**64 mod n in unsigned arithmetic.
    cdef uint64_t rem = (<uint64_t>0 - n) % n
    cdef uint64_t x = rng_next(s)
    if rem != 0:
        while x >= <uint64_t>0 - rem:
            x = rng_next(s)
    return x % n


cdef inline double rng_uniform(rng_t* s) noexcept nogil:
    """Uniform double in [0, 1) from the top 53 bits."""
    return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0)


ctypedef fused byte_t:
    signed char
    unsigned char


cdef inline void rng_shuffle(rng_t* s, byte_t* a, int n) noexcept nogil:
    """Fisher-Yates from the end: for i = n-1 .. 1, swap a[i] with a[bounded(i + 1)]."""
    cdef int i, j
    cdef byte_t t
    for i in range(n - 1, 0, -1):
        j = <int>rng_bounded(s, <uint64_t>(i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t

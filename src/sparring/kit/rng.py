"""Counter-free xorshift64* random numbers stored in an env's record.

Every env record carries its generator state in the ``rng`` field (uint64), so
snapshot/restore and determinism come for free: the stream depends only on the
record, never on the batch or on global state. Kernels call these helpers with
the record itself, e.g. ``rand_int(s, 4)``.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STAR = np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, inline="always", error_model="numpy")
def mix_seed(seed, index):
    """SplitMix64 of (seed, index): a well-spread, never-zero generator state."""
    z = np.uint64(seed) + (np.uint64(index) + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = _GOLDEN
    return z


@njit(cache=True, inline="always", error_model="numpy")
def rand_u64(s):
    """Advance the record's generator and return 64 random bits."""
    x = s.rng
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    s.rng = x
    return x * _STAR


@njit(cache=True, inline="always", error_model="numpy")
def rand_int(s, n):
    """Uniform integer in [0, n) (n > 0), from the record's generator."""
    return np.int64((rand_u64(s) >> np.uint64(11)) % np.uint64(n))


@njit(cache=True, inline="always", error_model="numpy")
def rand_float(s):
    """Uniform float in [0, 1), from the record's generator."""
    return (rand_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)

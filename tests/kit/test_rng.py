"""The record-held generator: in range, roughly uniform, seeded apart."""

import numpy as np
from numba import njit

from sparring.kit.rng import mix_seed, rand_float, rand_int

DT = np.dtype([("rng", np.uint64)])


@njit(cache=True)
def _draw_ints(rec, n, count):
    out = np.empty(count, np.int64)
    for k in range(count):
        out[k] = rand_int(rec[0], n)
    return out


@njit(cache=True)
def _draw_floats(rec, count):
    out = np.empty(count)
    for k in range(count):
        out[k] = rand_float(rec[0])
    return out


def _record(seed):
    rec = np.zeros(1, DT)
    rec["rng"] = mix_seed(seed, 0)
    return rec


def test_ints_cover_the_range_evenly():
    draws = _draw_ints(_record(1), 7, 70000)
    assert draws.min() == 0 and draws.max() == 6
    counts = np.bincount(draws, minlength=7)
    assert np.all(np.abs(counts - 10000) < 500), counts


def test_floats_in_unit_interval_with_mean_half():
    draws = _draw_floats(_record(2), 50000)
    assert 0.0 <= draws.min() and draws.max() < 1.0
    assert abs(draws.mean() - 0.5) < 0.01


def test_same_seed_same_stream_different_seed_different_stream():
    assert np.array_equal(_draw_ints(_record(3), 100, 50), _draw_ints(_record(3), 100, 50))
    assert not np.array_equal(_draw_ints(_record(3), 100, 50), _draw_ints(_record(4), 100, 50))
    assert mix_seed(0, 0) != 0 and mix_seed(0, 0) != mix_seed(0, 1)

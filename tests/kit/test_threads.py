"""SlicePool: every slice's call, in order, errors after all calls finish, threads that stop with the pool."""

import gc
import threading

import numpy as np
import pytest
from numba import njit

from sparring.kit.threads import SlicePool


@njit(nogil=True)
def _fill(header, out):
    for i in range(header[0], header[1]):
        out[i] = header[2]
    return header[1] - header[0]


def _headers(bounds):
    return [np.array([lo, hi, k + 1], np.int64) for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))]


def test_each_header_runs_once_and_results_come_in_order():
    pool = SlicePool(_fill, _headers([0, 3, 10, 11]))
    out = np.zeros(11, np.int64)
    for _ in range(50):
        out[:] = 0
        assert pool.run(out) == [3, 7, 1]
        assert out.tolist() == [1] * 3 + [2] * 7 + [3]
    pool.close()


def test_an_error_in_a_worker_is_raised_after_every_slice_finished():
    broken = [True]

    def fail_on_second(header, out):
        if header[2] == 2 and broken[0]:
            raise RuntimeError("slice 2 broke")
        return _fill(header, out)

    pool = SlicePool(fail_on_second, _headers([0, 2, 4, 6]))
    out = np.zeros(6, np.int64)
    with pytest.raises(RuntimeError, match="slice 2 broke"):
        pool.run(out)
    assert out.tolist() == [1, 1, 0, 0, 3, 3]
    broken[0] = False
    assert pool.run(out) == [2, 2, 2]  # the pool still serves after an error
    assert out.tolist() == [1, 1, 2, 2, 3, 3]
    pool.close()


def test_workers_stop_when_the_pool_goes():
    before = threading.active_count()
    pool = SlicePool(_fill, _headers([0, 1, 2, 3, 4]))
    assert threading.active_count() == before + 3  # the caller's thread runs the first slice
    del pool
    gc.collect()
    assert threading.active_count() == before


def test_needs_two_slices():
    with pytest.raises(ValueError, match="at least 2 headers"):
        SlicePool(_fill, _headers([0, 4]))

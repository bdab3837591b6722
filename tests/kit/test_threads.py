"""SlicePool: every piece once, results in order, errors after all pieces finish, threads that stop with the pool."""

import gc
import threading
import time

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


def test_each_piece_runs_once_and_results_come_in_order():
    pool = SlicePool(_fill, _headers([0, 3, 10, 11, 15, 16]), threads=3)
    out = np.zeros(16, np.int64)
    for _ in range(200):
        out[:] = 0
        assert pool.run(out) == [3, 7, 1, 4, 1]
        assert out.tolist() == [1] * 3 + [2] * 7 + [3] + [4] * 4 + [5]
    pool.close()


def test_a_slow_worker_leaves_its_pieces_to_the_others():
    who = {}

    def note(header, out):
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.05)  # a worker the OS runs late
        who[int(header[2])] = threading.current_thread().name
        return _fill(header, out)

    pool = SlicePool(note, _headers(list(range(0, 41, 4))), threads=2)
    out = np.zeros(40, np.int64)
    assert pool.run(out) == [4] * 10 and out.tolist() == [k // 4 + 1 for k in range(40)]
    assert sum(name == "MainThread" for name in who.values()) >= 8  # the caller took most pieces
    pool.close()


def test_an_error_in_a_worker_is_raised_after_every_piece_finished():
    broken = [True]

    def fail_on_second(header, out):
        if header[2] == 2 and broken[0]:
            raise RuntimeError("piece 2 broke")
        return _fill(header, out)

    pool = SlicePool(fail_on_second, _headers([0, 2, 4, 6]), threads=2)
    out = np.zeros(6, np.int64)
    with pytest.raises(RuntimeError, match="piece 2 broke"):
        pool.run(out)
    assert out.tolist() == [1, 1, 0, 0, 3, 3]
    broken[0] = False
    assert pool.run(out) == [2, 2, 2]  # the pool still serves after an error
    assert out.tolist() == [1, 1, 2, 2, 3, 3]
    pool.close()


def test_workers_stop_when_the_pool_goes():
    before = threading.active_count()
    pool = SlicePool(_fill, _headers([0, 1, 2, 3, 4]), threads=4)
    assert threading.active_count() == before + 3  # the caller's thread is the fourth
    del pool
    gc.collect()
    assert threading.active_count() == before


def test_threads_must_fit_the_pieces():
    with pytest.raises(ValueError, match="2 <= threads <= pieces"):
        SlicePool(_fill, _headers([0, 4, 8]), threads=3)

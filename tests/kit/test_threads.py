"""SlicePool: every piece once, statuses in order, late workers harmless, errors raised, threads that stop."""

import gc
import threading
import time

import numpy as np
import pytest
from numba import njit

from sparring.kit.threads import SlicePool
from sparring.kit.unowned import fetch_add


@njit(nogil=True)
def _fill_pieces(pieces, out, progress):
    while True:
        k = fetch_add(progress, 0, 1)
        if k >= pieces.shape[0]:
            return 0
        lo, hi = pieces[k, 0], pieces[k, 1]
        for i in range(lo, hi):
            out[i] += k + 1  # += : a piece run twice would show
        progress[2 + k] = hi - lo
        fetch_add(progress, 1, 1)


def _pieces(bounds):
    return np.array([[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:])], np.int64)


def test_each_piece_runs_once_and_statuses_come_in_order():
    pool = SlicePool(_fill_pieces, _pieces([0, 3, 10, 11, 15, 16]), threads=3)
    out = np.zeros(16, np.int64)
    for _ in range(300):
        out[:] = 0
        assert pool.run(out).tolist() == [3, 7, 1, 4, 1]
        assert out.tolist() == [1] * 3 + [2] * 7 + [3] + [4] * 4 + [5]
    pool.close()


def test_a_late_worker_leaves_its_pieces_to_the_caller():
    def slow_workers(pieces, out, progress):
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.05)  # a worker the OS runs late
        return _fill_pieces(pieces, out, progress)

    pool = SlicePool(slow_workers, _pieces(list(range(0, 41, 4))), threads=2)
    for _ in range(3):  # the late worker of one call wakes into the next: it must not step a piece twice
        out = np.zeros(40, np.int64)
        assert pool.run(out).tolist() == [4] * 10
        assert out.tolist() == [k // 4 + 1 for k in range(40)]
    pool.close()


def test_an_error_in_a_worker_is_raised_by_the_caller():
    def fail_in_worker(pieces, out, progress):
        if threading.current_thread() is not threading.main_thread():
            progress[0] += 1  # takes a piece, then fails before finishing it
            raise RuntimeError("worker broke")
        time.sleep(0.05)  # let the worker take its piece first
        return _fill_pieces(pieces, out, progress)

    pool = SlicePool(fail_in_worker, _pieces([0, 2, 4, 6]), threads=2)
    with pytest.raises(RuntimeError, match="worker broke"):
        pool.run(np.zeros(6, np.int64))
    pool.close()


def test_workers_stop_when_the_pool_goes():
    before = threading.active_count()
    pool = SlicePool(_fill_pieces, _pieces([0, 1, 2, 3, 4]), threads=4)
    assert threading.active_count() == before + 3  # the caller's thread is the fourth
    del pool
    gc.collect()
    assert threading.active_count() == before


def test_threads_must_fit_the_pieces():
    with pytest.raises(ValueError, match="2 <= threads <= pieces"):
        SlicePool(_fill_pieces, _pieces([0, 4, 8]), threads=3)

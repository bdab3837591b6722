"""Borrowed views see and change the caller's memory; the atomic counter loses no add across threads."""

import threading

import numpy as np
from numba import njit

from sparring.kit.unowned import fetch_add, spin_until, unowned


@njit(cache=True)
def _fill_rows(a):
    view = unowned(a)
    for i in range(view.shape[0]):
        row = view[i : i + 1]
        row[0, :] = i
    return view.sum()


def test_writes_through_and_reads_back():
    for dtype in (np.uint8, np.float32, np.int32):
        a = np.zeros((5, 3), dtype)
        total = _fill_rows(a)
        assert a[:, 0].tolist() == [0, 1, 2, 3, 4] and total == 30


@njit(nogil=True)
def _count(counts, times):
    for _ in range(times):
        fetch_add(counts, 0, 1)
    return counts[0]


def test_fetch_add_loses_no_increment_across_threads():
    counts = np.zeros(2, np.int64)
    threads = [threading.Thread(target=_count, args=(counts, 200_000)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts.tolist() == [600_000, 0]


def test_spin_until_sees_another_threads_count():
    counts = np.zeros(2, np.int64)
    assert not spin_until(counts, 1, 1, 1000)
    timer = threading.Timer(0.01, _count, args=(counts[1:], 1))
    timer.start()
    assert spin_until(counts, 1, 1, 10**12)  # returns once the other thread's add lands
    timer.join()

"""Borrowed views see and change the caller's memory; a local record copy keeps its writes until kept; the
atomics lose no add and give each value to one thread."""

import threading

import numpy as np
from numba import njit

from sparring.kit.unowned import compare_and_swap, fetch_add, keep_changes, local_copy, spin_until, unowned


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


@njit
def _copy_and_change(records, add, keep):
    copy = local_copy(records[0])
    copy.a += add  # changes the copy only
    seen = (copy.a, copy.b, records[0].a)
    if keep:
        keep_changes(records[0], copy)
    return seen


def test_local_copy_reads_the_record_and_keeps_its_writes_until_kept():
    records = np.zeros(1, np.dtype([("a", np.int32), ("b", np.float64)], align=True))
    records[0] = (3, 2.5)
    assert _copy_and_change(records, 5, False) == (8, 2.5, 3)
    assert records[0]["a"] == 3
    assert _copy_and_change(records, 5, True) == (8, 2.5, 3)
    assert records[0]["a"] == 8


def test_keep_changes_sees_a_change_in_the_last_odd_byte():
    records = np.zeros(1, np.dtype([("b", np.float64), ("c", np.int8, 4), ("a", np.int8)]))  # 13 bytes: words, bytes
    assert records.dtype.itemsize == 13
    _copy_and_change(records, 7, True)
    assert records[0]["a"] == 7 and records[0]["b"] == 0.0


@njit(nogil=True)
def _claim(board, claims, times):
    won = 0
    for _ in range(times):
        while True:
            seen = board[0]
            if compare_and_swap(board, 0, seen, seen + 1):
                claims[seen] += 1
                won += 1
                break
    return won


@njit
def _swap(board, expected, value):
    return compare_and_swap(board, 0, expected, value)


def test_compare_and_swap_gives_each_value_to_one_thread():
    board, claims = np.zeros(1, np.int64), np.zeros(90_000, np.int64)
    threads = [threading.Thread(target=_claim, args=(board, claims, 30_000)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert board[0] == 90_000 and (claims == 1).all()
    assert not _swap(board, 5, 6) and _swap(board, 90_000, 7) and board[0] == 7

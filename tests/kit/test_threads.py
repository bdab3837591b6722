"""SlicePool: every piece once, statuses in order, stale workers harmless, bounded polling, errors raised, threads
that stop."""

import gc
import threading
import time

import numpy as np
import pytest
from numba import njit

from sparring.kit.threads import ARG, DONE, ROWS, STATUS, WORD, SlicePool, protocol


@njit(nogil=True)
def _fill_piece(piece, out):
    for i in range(piece[0], piece[1]):
        out[i, 0] += piece[2]  # += : a piece run twice would show
    return piece[1] - piece[0]


def _pieces(bounds):
    return np.array([[lo, hi, k + 1] for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))], np.int64)


CALLS = protocol(_fill_piece, heads=1, name="test_threads_protocol")


def test_each_piece_runs_once_and_statuses_come_in_order():
    pool = SlicePool(CALLS, _pieces([0, 3, 10, 11, 15, 16]), threads=3)
    out = np.zeros((16, 1), np.int32)
    for _ in range(300):
        out[:] = 0
        assert pool.run(out).tolist() == [3, 7, 1, 4, 1]
        assert out[:, 0].tolist() == [1] * 3 + [2] * 7 + [3] + [4] * 4 + [5]
    pool.close()


def test_calls_after_a_pause_still_reach_every_piece():
    pool = SlicePool(CALLS, _pieces(list(range(0, 41, 4))), threads=2)
    for pause in (0.0, 0.01, 0.0, 0.05):  # the worker polls, then sleeps on its lock, then is woken
        time.sleep(pause)
        out = np.zeros((40, 1), np.int32)
        assert pool.run(out).tolist() == [4] * 10
        assert out[:, 0].tolist() == [k // 4 + 1 for k in range(40)]
    pool.close()


def _board(pieces, call, next_piece, out):
    board = np.zeros(STATUS + len(pieces), np.int64)
    board[WORD] = (call << 32) | next_piece
    board[ARG], board[ROWS] = out.ctypes.data, out.shape[0]
    return board


def test_a_worker_that_read_an_earlier_call_claims_no_piece_of_a_later_one():
    pieces, out = _pieces([0, 2, 4]), np.zeros((4, 1), np.int32)
    board = _board(pieces, 8, 0, out)  # call 8 is posted, no piece taken yet
    assert CALLS.serve_calls(pieces, board, 8, 100) == 8  # a worker that served call 8 already: nothing new
    CALLS._take_pieces(pieces, board, 7)  # one still holding call 7
    assert out[:, 0].tolist() == [0, 0, 0, 0] and board[DONE] == 0
    assert CALLS.serve_calls(pieces, board, 7, 100) == 8  # polling sees call 8 and takes its pieces
    assert out[:, 0].tolist() == [1, 1, 2, 2] and board[DONE] == 2 and board[WORD] == (8 << 32) | 2


def test_an_idle_worker_stops_polling_after_its_spins():
    pieces, out = _pieces([0, 2]), np.zeros((2, 1), np.int32)
    board = _board(pieces, 3, 1, out)
    start = time.perf_counter()
    assert CALLS.serve_calls(pieces, board, 3, 10_000) == 3
    assert time.perf_counter() - start < 1.0 and out[:, 0].tolist() == [0, 0]


def test_an_error_in_a_worker_is_raised_by_the_caller():
    class Failing:
        post_call, take_pieces, _take_pieces = CALLS.post_call, CALLS.take_pieces, CALLS._take_pieces

        @staticmethod
        def serve_calls(pieces, board, seen, spins):
            raise RuntimeError("worker broke")

    pool = SlicePool(Failing, _pieces([0, 2, 4, 6]), threads=2)
    out = np.zeros((6, 1), np.int32)
    with pytest.raises(RuntimeError, match="worker broke"):
        pool.run(out)  # the caller may finish this call before the worker wakes and fails
        time.sleep(0.05)
        pool.run(out)
    pool.close()


def test_workers_stop_when_the_pool_goes():
    before = set(threading.enumerate())  # an earlier test's thread may end meanwhile: follow the pool's own
    pool = SlicePool(CALLS, _pieces([0, 1, 2, 3, 4]), threads=4)
    pool.run(np.zeros((4, 1), np.int32))  # workers now poll the board
    workers = set(threading.enumerate()) - before
    assert len(workers) == 3  # the caller's thread is the fourth
    del pool
    gc.collect()
    assert not [t for t in workers if t.is_alive()]


def test_threads_must_fit_the_pieces():
    with pytest.raises(ValueError, match="2 <= threads <= pieces"):
        SlicePool(CALLS, _pieces([0, 4, 8]), threads=3)

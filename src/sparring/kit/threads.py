"""Persistent worker threads for the kit's threaded step: every thread takes pieces of the batch in compiled code.

A :class:`~sparring.kit.batch.BatchedEnv` with ``num_threads`` > 1 cuts its envs into pieces
(runs of whole 16-env chunks, several per thread), each with its own step header
(:mod:`sparring.kit.codegen`). A threaded step posts the call on a board (an int64 array the
pool keeps: the call's number, the next piece to take, the pieces done, the actions' address,
each piece's status), wakes the workers that sleep, and takes pieces itself; every thread
claims pieces with an atomic compare-and-swap on one word that holds the call's number and
the next piece, so a thread that read an earlier call can claim none of a later one. The
caller then waits until every piece is counted done. Which thread runs a piece never changes
a result: a piece writes only its own envs and its own episode-stat rows.

Between calls a worker polls the board for the next call in compiled code, without the GIL,
for :data:`WORKER_SPINS` reads (about 20 us here), then blocks on its lock. So back-to-back
steps (a benchmark, a rollout with no inference between steps) reach the workers within a
microsecond, where waking a blocked thread takes the OS tens of microseconds (more in a virtual
machine whose idle core has halted), and no GIL is handed between threads inside a burst of
steps. How it shares cores with torch: when torch's threads run inference between env steps
(the trainer's ``env_threads``), each worker polls for at most one such period after each step,
then sleeps until the next step wakes it (a lock it finds released for a call it already served
does not make it poll again). That is about 20 us of one core per step against the milliseconds
of inference, bounded whatever the step rate.

A worker that the OS has not woken yet costs nothing: the others take its share. On a machine
whose cores other processes keep busy, threads do not pay: a worker preempted while it runs a
piece holds it for a scheduler slice while the others wait, and a polling worker is one more
thread that wants a core (here, with two CPU-bound processes on the 2 cores, 2 threads ran
squared at 4096 envs at 0.4-0.65x of 1 thread, duel and gauntlet at 0.7-1.3x; the workers that
blocked between calls, before the board, 0.7-1.0x). Use 1 thread there.

Expected scaling (a model from single-core measurements on the 2-core build machine, not a
many-core measurement): a step of T threads costs about ``s0 + 0.6 us x T + W / T``, where W
is the one-thread step (at 4096 envs: squared 71 us, duel 1.37 ms, gauntlet 1.32 ms of CPU
time), 0.6 us per thread was waking it and its one call under the GIL (a worker that polls the
board now skips both; one that sleeps pays an OS wake-up instead), and s0 the serial rest
(the action check, summing the chunks' episode stats, Python: squared 5 us, duel 17 us,
gauntlet 12 us). So duel and gauntlet at 4096 envs: about 7x on 8 cores, 12x on 16, 17-18x on
32 or 64, where the serial part takes over; bigger batches scale further. A fast env like
squared tops out near 4x at 8-16 threads: give it more envs per thread. Threads only help on
cores nobody else uses (above).
"""

from __future__ import annotations

import os
import threading
import time
import types
import weakref

import numpy as np
from numba import njit

from sparring.kit.unowned import borrowed, compare_and_swap, fetch_add, load_acquire, spin_until

SPINS = 5_000  # reads (several microseconds) before the caller yields its core while it waits
WORKER_SPINS = 30_000  # reads of the board (0.6 ns each here: about 20 us) before an idle worker blocks
# the board: the call word (call number << 32 | next piece), pieces done, stop, the actions' address and rows,
# then each piece's status
WORD, DONE, STOP, ARG, ROWS, STATUS = range(6)

PROTOCOL = """

@njit(cache=CACHE, no_cfunc_wrapper=True, error_model="numpy", nogil=True)
def _take_pieces(pieces, board, call):
    # take pieces of call number `call` until none is left or a later call is posted
    actions = borrowed(board[3], (board[4], HEADS), np.int32)
    while True:
        word = load_acquire(board, 0)
        k = word & 0xFFFFFFFF
        if word >> 32 != call or k >= pieces.shape[0]:
            return
        if compare_and_swap(board, 0, word, word + 1):
            board[5 + k] = _run_piece(pieces[k], actions)
            fetch_add(board, 1, 1)


@njit(cache=CACHE, no_cfunc_wrapper=True, error_model="numpy", nogil=True)
def post_call(pieces, board, actions):
    # a new call: its arguments first, then its number (an atomic add: workers read the arguments after it)
    board[3] = actions.ctypes.data
    board[4] = actions.shape[0]
    board[1] = 0
    word = board[0]
    fetch_add(board, 0, (((word >> 32) + 1) << 32) - word)


@njit(cache=CACHE, no_cfunc_wrapper=True, error_model="numpy", nogil=True)
def take_pieces(pieces, board, spins):
    # the caller's share of the posted call; whether every piece is done within `spins` reads after it
    _take_pieces(pieces, board, board[0] >> 32)
    return spin_until(board, 1, pieces.shape[0], spins)


@njit(cache=CACHE, no_cfunc_wrapper=True, error_model="numpy", nogil=True)
def serve_calls(pieces, board, seen, spins):
    # a worker: take pieces of each call after call `seen` until none comes within `spins` reads of the board
    idle = 0
    while idle < spins and load_acquire(board, 2) == 0:
        call = load_acquire(board, 0) >> 32
        if call != seen:
            seen = call
            _take_pieces(pieces, board, call)
            idle = 0
        else:
            idle += 1
    return seen
"""


def protocol(run_piece, heads: int, name: str = "sparring_threads_protocol") -> types.ModuleType:
    """The protocol's compiled functions (``post_call``, ``take_pieces``, ``serve_calls``), uncached, for a
    ``run_piece(piece, actions)`` that returns a piece's status, with actions of ``heads`` columns.
    (The kit's generated step modules include :data:`PROTOCOL` in their cached source instead.)"""
    module = types.ModuleType(name)
    module.__dict__.update(
        np=np,
        njit=njit,
        CACHE=False,
        HEADS=int(heads),
        _run_piece=run_piece,
        borrowed=borrowed,
        compare_and_swap=compare_and_swap,
        fetch_add=fetch_add,
        load_acquire=load_acquire,
        spin_until=spin_until,
    )
    exec(compile(PROTOCOL, f"<{name}>", "exec"), module.__dict__)
    return module


class _Box:
    """What the caller and its workers share besides the board: a worker's error, the stop flag."""

    def __init__(self):
        self.error: BaseException | None = None
        self.stop = False


def _work(serve, pieces: np.ndarray, board: np.ndarray, go: threading.Lock, box: _Box, seen: int) -> None:
    while True:
        if box.stop:
            return
        # block unless a call was posted since this worker last served: a free lock alone may be the release
        # for a call it already served while polling
        if not go.acquire(blocking=False) or int(board[WORD]) >> 32 == seen:
            if box.stop:
                return
            go.acquire()
        if box.stop:
            return
        try:
            seen = serve(pieces, board, seen, WORKER_SPINS)
        except BaseException as exc:  # handed to the caller, which raises it
            box.error = exc


def _stop(box: _Box, board: np.ndarray, gos: list, threads: list) -> None:
    box.stop = True
    board[STOP] = 1
    for go in gos:
        if go.locked():
            go.release()
    for thread in threads:
        thread.join(timeout=1.0)


class SlicePool:
    """Run one call over ``pieces`` on ``threads`` threads at once, the caller's one of them.

    ``calls`` holds the compiled functions of :data:`PROTOCOL` (``post_call``, ``take_pieces``,
    ``serve_calls``), from a generated step module or :func:`protocol`. :meth:`run` returns every
    piece's status in piece order.
    """

    def __init__(self, calls, pieces: np.ndarray, threads: int):
        if not 2 <= threads <= len(pieces):
            raise ValueError(f"a SlicePool needs 2 <= threads <= pieces ({len(pieces)}), got {threads} threads")
        self.calls, self.pieces, self.threads = calls, pieces, int(threads)
        self._board = np.zeros(STATUS + len(pieces), np.int64)
        self._start()

    def _start(self) -> None:
        self._pid = os.getpid()
        self._box = _Box()
        self._board[STOP] = 0
        self._go = [threading.Lock() for _ in range(self.threads - 1)]
        for go in self._go:
            go.acquire()  # released by the caller to wake its worker
        seen = int(self._board[WORD]) >> 32
        self._workers = [
            threading.Thread(
                target=_work,
                args=(self.calls.serve_calls, self.pieces, self._board, go, self._box, seen),
                name=f"sparring-step-{k + 1}",
                daemon=True,
            )
            for k, go in enumerate(self._go)
        ]
        for thread in self._workers:
            thread.start()
        self._finalizer = weakref.finalize(self, _stop, self._box, self._board, self._go, self._workers)

    def run(self, actions: np.ndarray) -> np.ndarray:
        """Every piece's status, in piece order (a view overwritten by the next call)."""
        if os.getpid() != self._pid:  # a forked child has the locks but not the threads
            self._finalizer.detach()
            self._start()
        box, board = self._box, self._board
        self.calls.post_call(self.pieces, board, actions)
        for go in self._go:
            if go.locked():  # else the worker has not taken the last wake-up yet: it will see this call
                go.release()
        done = self.calls.take_pieces(self.pieces, board, SPINS)
        while not done and box.error is None:  # pieces that workers are still running
            time.sleep(0)
            done = spin_until(board, DONE, len(self.pieces), SPINS)
        if box.error is not None:
            error, box.error = box.error, None
            raise error
        return board[STATUS:]

    def close(self) -> None:
        """Stop the worker threads (also done when the pool is collected)."""
        self._finalizer()

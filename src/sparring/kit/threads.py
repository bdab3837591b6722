"""Persistent worker threads for the kit's threaded step: every thread takes pieces of the batch in compiled code.

A :class:`~sparring.kit.batch.BatchedEnv` with ``num_threads`` > 1 cuts its envs into pieces
(runs of whole 16-env chunks, several per thread), each with its own step header
(:mod:`sparring.kit.codegen`). One call of the compiled ``batch_step_pieces`` takes pieces
with an atomic counter and steps them until none is left, the GIL released. A threaded step
wakes the workers, makes that call on the calling thread too, and waits until every piece is
counted done. So the GIL is taken once per thread and call, never per piece, and pieces can be
small enough to balance the threads.

A worker that the OS has not woken yet costs nothing: the others take its share, so a busy
machine degrades to the one-thread speed instead of waiting on a sleeping thread, and the
caller waits only for pieces that a worker is running. Each call gets a fresh progress array,
so a worker that wakes late and still holds an earlier call's arguments finds that call's
pieces all taken. Which thread runs a piece never changes a result: a piece writes only its
own envs and its own episode-stat rows.

Workers are woken with a plain lock each (released for a call unless a wake-up from an earlier
call is still pending, which serves as well: the worker reads the current call when it wakes).
Between calls they block and spend no CPU, so they share cores with torch's threads when a
rollout alternates inference and env steps (see the trainer's ``env_threads``). Workers hold
the compiled function and the shared box, never the env: when the env is collected, its pool
is too, and a finalizer stops the threads.

Expected scaling (a model from single-core measurements on the 2-core build machine, not a
many-core measurement): a step of T threads costs about ``s0 + 0.6 us x T + W / T``, where W
is the one-thread step (at 4096 envs: squared 71 us, duel 1.37 ms, gauntlet 1.32 ms of CPU
time), 0.6 us per thread is waking it and its one call under the GIL, and s0 the serial rest
(the action check, summing the chunks' episode stats, Python: squared 5 us, duel 17 us,
gauntlet 12 us). So duel and gauntlet at 4096 envs: about 7x on 8 cores, 12x on 16, 17-18x on
32 or 64, where the serial part takes over; bigger batches scale further. A fast env like
squared tops out near 4x at 8-16 threads: give it more envs per thread. Threads only help on
cores nobody else uses: a worker preempted by another process holds its piece for a
scheduler slice (milliseconds) while the others wait, so on a busy machine use 1.
"""

from __future__ import annotations

import os
import threading
import time
import weakref

import numpy as np

from sparring.kit.unowned import spin_until

SPINS = 5_000  # reads (several microseconds) before the caller yields its core while it waits


class _Box:
    """What the caller and its workers share: this call's arguments, a worker's error, the stop flag."""

    def __init__(self):
        self.args = None
        self.error: BaseException | None = None
        self.stop = False


def _work(fn, go: threading.Lock, box: _Box) -> None:
    while True:
        go.acquire()
        if box.stop:
            return
        args = box.args
        if args is None:  # a late wake-up after its call ended
            continue
        try:
            fn(*args)
        except BaseException as exc:  # handed to the caller, which raises it
            box.error = exc


def _stop(box: _Box, gos: list, threads: list) -> None:
    box.stop = True
    for go in gos:
        if go.locked():
            go.release()
    for thread in threads:
        thread.join(timeout=1.0)


class SlicePool:
    """Run ``fn(pieces, arg, progress)`` on ``threads`` threads at once, the caller's one of them.

    ``fn`` must release the GIL (a ``nogil`` Numba function) and take pieces ``k`` (rows of
    ``pieces``) by atomically adding 1 to ``progress[0]`` until ``k >= len(pieces)``, write each
    piece's status to ``progress[2 + k]`` and then atomically add 1 to ``progress[1]``
    (``codegen``'s ``batch_step_pieces``). :meth:`run` returns the statuses in piece order.
    """

    def __init__(self, fn, pieces: np.ndarray, threads: int):
        if not 2 <= threads <= len(pieces):
            raise ValueError(f"a SlicePool needs 2 <= threads <= pieces ({len(pieces)}), got {threads} threads")
        self.fn, self.pieces, self.threads = fn, pieces, int(threads)
        self._start()

    def _start(self) -> None:
        self._pid = os.getpid()
        self._box = _Box()
        self._go = [threading.Lock() for _ in range(self.threads - 1)]
        for go in self._go:
            go.acquire()  # released by the caller to wake its worker
        self._workers = [
            threading.Thread(target=_work, args=(self.fn, go, self._box), name=f"sparring-step-{k + 1}", daemon=True)
            for k, go in enumerate(self._go)
        ]
        for thread in self._workers:
            thread.start()
        self._finalizer = weakref.finalize(self, _stop, self._box, self._go, self._workers)

    def run(self, arg) -> np.ndarray:
        """Every piece's status (what ``fn`` wrote to ``progress[2 + k]``), in piece order."""
        if os.getpid() != self._pid:  # a forked child has the locks but not the threads
            self._finalizer.detach()
            self._start()
        box, count = self._box, len(self.pieces)
        progress = np.zeros(2 + count, np.int64)
        box.args = (self.pieces, arg, progress)
        for go in self._go:
            if go.locked():  # else the worker has not taken the last wake-up yet: it will see this call
                go.release()
        self.fn(self.pieces, arg, progress)
        while not spin_until(progress, 1, count, SPINS):  # pieces that workers are still running
            if box.error is not None:
                break
            time.sleep(0)
        box.args = None
        if box.error is not None:
            error, box.error = box.error, None
            raise error
        return progress[2:]

    def close(self) -> None:
        """Stop the worker threads (also done when the pool is collected)."""
        self._finalizer()

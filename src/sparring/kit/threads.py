"""Persistent worker threads for the kit's threaded step: compiled calls over pieces of the batch, GIL released.

A :class:`~sparring.kit.batch.BatchedEnv` with ``num_threads`` > 1 cuts its envs into
pieces (a few per thread); each piece has its own step header (:mod:`sparring.kit.codegen`)
and the compiled step is ``nogil``, so pieces run at once. The calling thread works too, so
``num_threads`` threads step and ``num_threads - 1`` are started here.

Pieces are handed out on demand: every thread, the caller's included, takes the next
piece from one shared iterator until none is left (``next`` on a list iterator is atomic
under the GIL). A worker that the OS has not woken yet therefore costs nothing: the others
take its share, so a busy machine degrades to the one-thread speed instead of waiting on a
sleeping thread. The caller then waits only for pieces that a worker is running. Which
thread runs a piece never changes a result: each piece writes only its own envs and its own
episode-stat rows.

The handoff is a lock per worker (the caller releases it for each call unless a wake-up from an
earlier call is still pending; a pending one serves as well, since the worker reads the current
pieces when it wakes) and a lock per piece (released by the worker that ran it, taken back by
the caller): plain C locks, no queue, no futures.
Workers block between calls and spend no CPU, so they share cores with torch's threads when a
rollout alternates inference and env steps (see the trainer's ``env_threads``). Workers hold
the compiled function, the headers and the shared box, never the env: when the env is
collected, its pool is too, and a finalizer stops the threads.
"""

from __future__ import annotations

import os
import threading
import weakref


class _Box:
    """What the caller and its workers share: this call's argument and pieces, each piece's result."""

    def __init__(self, pieces: int):
        self.arg = None
        self.tasks = iter(())
        self.results: list = [None] * pieces
        self.stop = False


def _run_pieces(fn, headers, box: _Box, done: list | None) -> list[int]:
    """Run pieces of ``box.tasks`` until none is left; the indices run (``done``: release each piece's lock)."""
    ran = []
    for k in box.tasks:
        try:
            box.results[k] = fn(headers[k], box.arg)
        except BaseException as exc:  # handed to the caller, which raises it
            box.results[k] = exc
        ran.append(k)
        if done is not None:
            done[k].release()
    return ran


def _work(fn, headers, go: threading.Lock, done: list, box: _Box) -> None:
    while True:
        go.acquire()
        if box.stop:
            return
        _run_pieces(fn, headers, box, done)


def _stop(box: _Box, gos: list, threads: list) -> None:
    box.stop = True
    for go in gos:
        if go.locked():
            go.release()
    for thread in threads:
        thread.join(timeout=1.0)


class SlicePool:
    """Call ``fn(headers[k], arg)`` for every piece k, on ``threads`` threads at once (the caller's one of them).

    ``fn`` must release the GIL (a ``nogil`` Numba function) for the calls to overlap.
    :meth:`run` returns the results in header order and raises the first exception any call
    raised, after every call has finished.
    """

    def __init__(self, fn, headers: list, threads: int):
        if not 2 <= threads <= len(headers):
            raise ValueError(f"a SlicePool needs 2 <= threads <= pieces ({len(headers)}), got {threads} threads")
        self.fn, self.headers, self.threads = fn, list(headers), int(threads)
        self._start()

    def _start(self) -> None:
        self._pid = os.getpid()
        self._box = _Box(len(self.headers))
        self._go = [threading.Lock() for _ in range(self.threads - 1)]
        self._done = [threading.Lock() for _ in self.headers]
        for lock in (*self._go, *self._done):
            lock.acquire()  # go: released by the caller to wake a worker; done: by the worker that runs the piece
        self._workers = [
            threading.Thread(
                target=_work,
                args=(self.fn, self.headers, go, self._done, self._box),
                name=f"sparring-step-{k + 1}",
                daemon=True,
            )
            for k, go in enumerate(self._go)
        ]
        for thread in self._workers:
            thread.start()
        self._finalizer = weakref.finalize(self, _stop, self._box, self._go, self._workers)

    def run(self, arg) -> list:
        """Every piece's ``fn(header, arg)``, in header order."""
        if os.getpid() != self._pid:  # a forked child has the locks but not the threads
            self._finalizer.detach()
            self._start()
        box = self._box
        box.arg = arg
        box.tasks = iter(range(len(self.headers)))
        for go in self._go:
            if go.locked():  # else the worker has not taken the last wake-up yet: it will see these pieces
                go.release()
        mine = set(_run_pieces(self.fn, self.headers, box, None))
        for k, done in enumerate(self._done):
            if k not in mine:
                done.acquire()  # a worker ran piece k: wait until it finished
        results, box.arg = list(box.results), None
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return results

    def close(self) -> None:
        """Stop the worker threads (also done when the pool is collected)."""
        self._finalizer()

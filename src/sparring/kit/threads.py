"""Persistent worker threads for the kit's threaded step: one compiled call per slice, the GIL released.

A :class:`~sparring.kit.batch.BatchedEnv` with ``num_threads`` > 1 cuts its envs into
slices; each slice has its own step header (:mod:`sparring.kit.codegen`) and the compiled
step is ``nogil``, so the slices run at once. The caller's thread steps the first slice
itself, so ``num_threads`` threads work and ``num_threads - 1`` are started here.

The handoff is two plain locks per worker (``go`` released by the caller, ``done``
released by the worker): no queue, no futures, no Python objects built per step, so a
step pays a few microseconds of wake-up, not the tens of a ``concurrent.futures`` pool.
Workers block in ``acquire`` between steps and spend no CPU, so they can share cores with
torch's threads when a rollout alternates inference and env steps (see the trainer's
``env_threads``).

Workers hold only the compiled function, their header and the shared box, never the env:
when the env is collected, its pool is too, and a finalizer stops the threads.
"""

from __future__ import annotations

import os
import threading
import weakref


class _Box:
    """What the caller and its workers share: this step's argument, each worker's result, the stop flag."""

    def __init__(self, workers: int):
        self.arg = None
        self.results: list = [None] * workers
        self.stop = False


def _work(fn, header, go: threading.Lock, done: threading.Lock, box: _Box, k: int) -> None:
    while True:
        go.acquire()
        if box.stop:
            return
        try:
            box.results[k] = fn(header, box.arg)
        except BaseException as exc:  # handed to the caller, which raises it
            box.results[k] = exc
        done.release()


def _stop(box: _Box, gos: list, threads: list) -> None:
    box.stop = True
    for go in gos:
        go.release()
    for thread in threads:
        thread.join(timeout=1.0)


class SlicePool:
    """Call ``fn(headers[k], arg)`` for every k at once: k = 0 on the calling thread, the rest on workers.

    ``fn`` must release the GIL (a ``nogil`` Numba function) for the calls to overlap.
    :meth:`run` returns the results in header order and raises the first exception any
    call raised, after every call has finished.
    """

    def __init__(self, fn, headers: list):
        if len(headers) < 2:
            raise ValueError(f"a SlicePool needs at least 2 headers (one per thread), got {len(headers)}")
        self.fn, self.headers = fn, list(headers)
        self._start()

    def _start(self) -> None:
        workers = len(self.headers) - 1
        self._pid = os.getpid()
        self._box = _Box(workers)
        self._go = [threading.Lock() for _ in range(workers)]
        self._done = [threading.Lock() for _ in range(workers)]
        for lock in (*self._go, *self._done):
            lock.acquire()
        self._threads = [
            threading.Thread(
                target=_work,
                args=(self.fn, self.headers[k + 1], self._go[k], self._done[k], self._box, k),
                name=f"sparring-step-{k + 1}",
                daemon=True,
            )
            for k in range(workers)
        ]
        for thread in self._threads:
            thread.start()
        self._finalizer = weakref.finalize(self, _stop, self._box, self._go, self._threads)

    @property
    def size(self) -> int:
        """Threads that work in a call, the caller's included."""
        return len(self.headers)

    def run(self, arg) -> list:
        """Every slice's ``fn(header, arg)``, in header order."""
        if os.getpid() != self._pid:  # a forked child has the locks but not the threads
            self._finalizer.detach()
            self._start()
        box = self._box
        box.arg = arg
        for go in self._go:
            go.release()
        try:
            first = self.fn(self.headers[0], arg)
        finally:
            for done in self._done:
                done.acquire()
            box.arg = None
        for result in box.results:
            if isinstance(result, BaseException):
                raise result
        return [first, *box.results]

    def close(self) -> None:
        """Stop the worker threads (also done when the pool is collected)."""
        self._finalizer()

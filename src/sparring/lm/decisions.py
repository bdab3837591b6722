"""How many turns local and remote models have played in this process, for the progress lines of long commands.

Every text brain adds its turns to :data:`COUNT` as it plays them (a *decision* is a turn the model was asked
for; a turn the compact prompt let go on undecided is a turn but no decision). A :class:`Meter` reads the
count from its creation on: ``progress.watch(meter.figures)`` shows the turns done and the decisions a second
on every progress line, and :meth:`Meter.summary` is the command's last line about the model.
"""

from __future__ import annotations

import contextlib
import threading
import time


class DecisionCount:
    """A thread-safe running count of model turns and decisions, with the time of the last one."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.turns = self.decisions = 0
        self.last = clock()
        self.loading_s = 0.0
        """Seconds spent loading models (:meth:`loading`): no meter counts them as play."""
        self._lock = threading.Lock()

    def add(self, turns: int, decisions: int) -> None:
        """Count ``turns`` played, ``decisions`` of them asked of a model."""
        if turns or decisions:
            with self._lock:
                self.turns, self.decisions, self.last = self.turns + turns, self.decisions + decisions, self.clock()

    def read(self) -> tuple[int, int, float, float]:
        """``(turns, decisions, time of the last count, seconds spent loading models)``."""
        with self._lock:
            return self.turns, self.decisions, self.last, self.loading_s

    @contextlib.contextmanager
    def loading(self):
        """Time a model's loading, so that a judge loading a model for each pairing reports play alone."""
        began = self.clock()
        try:
            yield
        finally:
            with self._lock:
                self.loading_s += self.clock() - began


COUNT = DecisionCount()
"""The process's count, which every text brain adds to."""


class Meter:
    """The models' turns and decisions a second from its creation (or :meth:`restart`) on, the time spent loading
    models left out (``count``: :data:`COUNT`)."""

    def __init__(self, count: DecisionCount | None = None):
        self.count = count or COUNT
        self.restart()

    def restart(self) -> None:
        """Count from now on (a new phase of play: a GRPO iteration's)."""
        turns, decisions, _, loading = self.count.read()
        self.start, self._turns, self._decisions, self._loading = self.count.clock(), turns, decisions, loading

    def read(self) -> tuple[int, int, float]:
        """``(turns, decisions, seconds)`` since the meter began, up to the last decision, less model loading."""
        turns, decisions, last, loading = self.count.read()
        return turns - self._turns, decisions - self._decisions, max(0.0, last - self.start - loading + self._loading)

    def report(self) -> dict:
        """``{"turns", "decisions", "seconds", "decisions_per_s"}`` for a JSON report (empty before the first)."""
        turns, decisions, seconds = self.read()
        if not turns:
            return {}
        rate = decisions / seconds if seconds > 0 else 0.0
        return {"turns": turns, "decisions": decisions, "seconds": seconds, "decisions_per_s": rate}

    def figures(self) -> dict:
        """``{"model turns": N, "decisions/s": R}`` for a progress line; empty before the first turn. The rate is
        over the time up to the last decision, so it stands still (and writes no new line) while none is made."""
        turns, decisions, seconds = self.read()
        if not turns:
            return {}
        return {"model turns": turns, "decisions/s": round(decisions / seconds, 2) if seconds > 0 else 0.0}

    def summary(self) -> str:
        """``model: 179 turns, 150 decisions in 9.0 s of play (16.6 decisions/s)``; empty before the first turn."""
        turns, decisions, seconds = self.read()
        if not turns:
            return ""
        rate = f" ({decisions / seconds:.1f} decisions/s)" if seconds > 0 else ""
        return f"model: {turns} turns, {decisions} decisions in {seconds:.1f} s of play{rate}"

"""How many turns local and remote models have played in this process, for the progress lines of long commands.

Every text brain adds its turns to :data:`COUNT` as it plays them (a *decision* is a turn the model was asked
for; a turn the compact prompt let go on undecided is a turn but no decision). A :class:`Meter` reads the
count from its creation on: ``progress.watch(meter.figures)`` shows the turns done and the decisions a second
on every progress line, and :meth:`Meter.summary` is the command's last line about the model.
"""

from __future__ import annotations

import threading
import time


class DecisionCount:
    """A thread-safe running count of model turns and decisions, with the time of the last one."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.turns = self.decisions = 0
        self.last = clock()
        self._lock = threading.Lock()

    def add(self, turns: int, decisions: int) -> None:
        """Count ``turns`` played, ``decisions`` of them asked of a model."""
        if turns or decisions:
            with self._lock:
                self.turns, self.decisions, self.last = self.turns + turns, self.decisions + decisions, self.clock()

    def read(self) -> tuple[int, int, float]:
        """``(turns, decisions, time of the last count)``."""
        with self._lock:
            return self.turns, self.decisions, self.last


COUNT = DecisionCount()
"""The process's count, which every text brain adds to."""


class Meter:
    """The models' turns and decisions a second from its creation on (``count``: :data:`COUNT`)."""

    def __init__(self, count: DecisionCount | None = None):
        self.count = count or COUNT
        turns, decisions, _ = self.count.read()
        self.start, self._turns, self._decisions = self.count.clock(), turns, decisions

    def read(self) -> tuple[int, int, float]:
        """``(turns, decisions, seconds)`` since the meter began, up to the last decision."""
        turns, decisions, last = self.count.read()
        return turns - self._turns, decisions - self._decisions, max(0.0, last - self.start)

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

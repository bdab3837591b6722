"""Per-seat counts an env keeps only per env, and the analyses an env declares on them, for the judge.

An env with more than two seats (town) may declare ``tally = MyTally``, a
subclass of :class:`SeatTally` that follows a batch through the judge's episodes
(``start`` when envs begin one, ``observe`` after each step, ``finish`` when
they end, before their reset) and returns its counts per finished episode with
:meth:`SeatTally.arrays`. The judge of many-seat envs
(:mod:`sparring.evaluate.crowd_judge`) reports every array named in
:attr:`SeatTally.per_seat` as a mean per seat (focal and background apart) and
every env metric named in :attr:`SeatTally.per_episode` as a mean per episode,
each with a bootstrap interval. An env may also declare an analysis over the
same arrays (town's emergence): ``emergence(arrays, focal, seed) -> dict``,
``format_emergence(report, number) -> str`` and ``emergence_plots(report,
folder) -> list[str]``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np


class SeatTally:
    """Base of an env's tally: counts nothing; subclasses override what they count (see the module docstring)."""

    per_seat: ClassVar[dict[str, str]] = {}
    """Report key -> array name: arrays [episodes, seats] reported per seat, e.g. town's
    ``{"trades_per_character": "trades"}``."""
    per_episode: ClassVar[dict[str, str]] = {}
    """Report key -> env metric: metrics reported as a mean per episode, e.g. town's ``{"coin_gini": "coin_gini"}``."""
    labels: ClassVar[dict[str, tuple[str, int]]] = {}
    """Report key -> (words, digits) for the judge's tables (default: the key's words, 3 digits)."""
    episode: ClassVar[str] = "episode"
    """What one episode is called in the tables (town: "town")."""

    def __init__(self, env):
        self.env = env

    def start(self, idx) -> None:
        """Envs ``idx`` (indices) begin an episode."""

    def observe(self) -> None:
        """After each step."""

    def finish(self, idx) -> None:
        """Envs ``idx`` ended an episode, before their reset."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The counts of every finished episode, in the order they finished."""
        return {}

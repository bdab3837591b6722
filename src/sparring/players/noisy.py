"""A player with a handicap: another player's actions, each row's replaced by uniformly random legal play with a
given probability (the "noisy planner" a league or a judge puts beside the planner)."""

from __future__ import annotations

import numpy as np

from sparring.kit.check.play import allowed_actions


class NoisyPlayer:
    """``inner``'s actions, except that each row, each tick, with probability ``noise`` takes a uniformly random
    allowed value on every head instead. The dice are the player's own (seeded), not the env's."""

    def __init__(self, inner, noise: float, seed: int = 0):
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"{inner.name}: the noise must be a probability in [0, 1], got {noise:g}")
        self.inner, self.noise = inner, float(noise)
        self.name = f"{inner.name}:{noise:g}"
        self._rng = np.random.default_rng(seed)

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        """``inner``'s actions for ``rows``, a random share ``noise`` of them replaced by random allowed ones."""
        rows = np.asarray(rows, np.int64)
        out = self.inner.act(env, rows)
        flip = np.flatnonzero(self._rng.random(len(rows)) < self.noise)
        if len(flip):
            draws = self._rng.random((len(flip), len(env.heads.sizes)))
            out[flip] = allowed_actions(env.mask[rows[flip]], env.heads.sizes, draws)
        return out

"""Players without a network: an env's scripted policy, and uniformly random legal play."""

from __future__ import annotations

import numpy as np

from sparring.kit.check.play import allowed_actions


class ScriptedPlayer:
    """The env's scripted policy ``script`` (see ``Env.scripted``), deterministic given the state."""

    def __init__(self, env, script: str):
        self.script = script
        self.name = f"scripted:{script}"
        self._out = env.scripted_actions(script)  # fails here, naming the known policies, for an unknown name

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        """The script's actions for ``rows`` in the env's current states."""
        if self._out.shape[0] != env.rows:
            self._out = env.scripted_actions(self.script)
        return env.scripted_actions(self.script, out=self._out)[np.asarray(rows, np.int64)].copy()


class RandomPlayer:
    """Uniform over the values each head's mask allows, from its own seeded generator (not the env's dice)."""

    name = "random"

    def __init__(self, seed: int | list[int] = 0):
        self._rng = np.random.default_rng(seed)

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        """Per row and head, a value drawn uniformly among those its mask allows (0 where none is)."""
        rows = np.asarray(rows, np.int64)
        return allowed_actions(env.mask[rows], env.heads.sizes, self._rng.random((len(rows), len(env.heads.sizes))))

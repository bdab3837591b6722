"""Who plays the exploration returns: uniformly random legal actions, or a trained checkpoint
(:class:`~sparring.explore.policy_agent.PolicyAgent`, which needs torch).

Both drive every row of a BatchedEnv and share one small interface: ``state_shape`` (the
recurrent state stored per cell, ``()`` for none), ``act()`` -> actions [rows, heads],
``after_step(done)``, ``states(done)`` -> per-env states to archive (or None), and
``load(envs, states)`` to carry on from states stored in the archive.
"""

from __future__ import annotations

import numpy as np


def random_actions(mask: np.ndarray, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row and head, a uniformly drawn value among those the mask allows (0 if it allows none)."""
    out = np.zeros((mask.shape[0], len(sizes)), np.int32)
    start = 0
    for h, size in enumerate(sizes):
        allowed = mask[:, start:start + size]
        out[:, h] = np.argmax(np.where(allowed, rng.random(allowed.shape), -1.0), axis=1)
        start += size
    return out


class RandomAgent:
    """Uniformly random legal actions; no recurrent state."""

    state_shape: tuple = ()
    name = "random"

    def __init__(self, env, seed: int = 0):
        self.env, self.rng = env, np.random.default_rng([int(seed), 11])

    def act(self) -> np.ndarray:
        """Actions [rows, heads] for the env's current masks."""
        return random_actions(self.env.mask, self.env.heads.sizes, self.rng)

    def after_step(self, done: np.ndarray) -> None:
        """Nothing to carry."""

    def states(self, done: np.ndarray) -> None:
        """No state to archive."""
        return None

    def load(self, envs: np.ndarray, states: np.ndarray) -> None:
        """No state to restore."""

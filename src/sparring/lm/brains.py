"""What a text brain sees: :class:`Observations`, each character's view in words and as the env's
structured observation and action mask.

Brains are :class:`~sparring.players.Player` s (``act(env, rows)``); the text brains
(:mod:`sparring.lm.text_brain`) build these views of the rows they are asked to act for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from sparring.kit.batch import BatchedEnv

TextFn = Callable[[BatchedEnv, int, int], str]


@dataclasses.dataclass
class Observations:
    """What ``n`` characters see now: one entry per agent row of ``env`` listed in ``rows``."""

    rows: np.ndarray
    """Agent rows of the env (``env_index * num_agents + agent``), int64 [n]."""
    texts: list[str]
    """Each character's view in words (the prompt of a text brain)."""
    obs: np.ndarray
    """Structured observations [n, obs_size]."""
    mask: np.ndarray
    """Flat action masks [n, sum(heads)]: True where a head's value is allowed."""
    heads: tuple[int, ...]
    """Size of each action head."""
    env: BatchedEnv | None = None
    """The env the characters live in (scripted brains and answer parsers read its records)."""

    @classmethod
    def from_env(cls, env: BatchedEnv, rows=None, text: TextFn | None = None) -> Observations:
        """The current view of ``rows`` (default: every agent row) of ``env``.

        ``text(env, env_index, agent)`` words each view; without it the env's own
        ``describe`` is used when it has one, and the texts are empty otherwise.
        """
        rows = np.arange(env.rows, dtype=np.int64) if rows is None else np.atleast_1d(np.asarray(rows, np.int64))
        if rows.size and (rows.min() < 0 or rows.max() >= env.rows):
            raise IndexError(f"rows must be in [0, {env.rows}), got {rows.tolist()[:8]}")
        if text is None and hasattr(env.env_cls, "describe"):
            text = lambda e, i, a: e.describe(i, a)  # noqa: E731
        texts = [text(env, int(r) // env.num_agents, int(r) % env.num_agents) if text else "" for r in rows]
        return cls(rows, texts, env.obs[rows].copy(), env.mask[rows].copy(), tuple(env.heads.sizes), env)

    def __len__(self) -> int:
        return len(self.rows)

    def allows(self, i: int, action: np.ndarray) -> bool:
        """Whether ``action`` (one value per head) is in range and allowed by character ``i``'s mask."""
        if len(action) != len(self.heads):
            return False
        start = 0
        for value, size in zip(action, self.heads):
            if not 0 <= value < size or not self.mask[i, start + value]:
                return False
            start += size
        return True

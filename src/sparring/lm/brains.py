"""Brains: whatever picks actions for a batch of characters, behind one protocol.

A :class:`Brain` gets :class:`Observations` (each character's view in words and as
the env's structured observation and action mask) and returns actions
``[n, heads]``. :class:`ScriptedBrain` and :class:`CheckpointBrain` read the
structured side; the text brains (:mod:`sparring.lm.text_brain`) read the words.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.record.policy import ScriptedPolicy

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


@runtime_checkable
class Brain(Protocol):
    """Picks actions for a batch of characters."""

    name: str

    def act(self, batch: Observations) -> np.ndarray:
        """Actions [len(batch), heads] int32, one row per character of ``batch``."""


class ScriptedBrain:
    """The env's scripted policy ``script`` (see ``Env.scripted``), for whichever rows are asked."""

    def __init__(self, env: BatchedEnv, script: str):
        self._policy = ScriptedPolicy(env, script)  # fails here, naming the known policies, for an unknown name
        self.name = self._policy.name

    def act(self, batch: Observations) -> np.ndarray:
        """The scripted actions of ``batch``'s rows in its env's current states."""
        if batch.env is None:
            raise ValueError("ScriptedBrain needs Observations with their env (Observations.from_env)")
        return self._policy(batch.env)[batch.rows]


class CheckpointBrain:
    """A PPO checkpoint of ``sparring train`` (sampling unless ``greedy``), for the env it was trained on.

    A recurrent policy keeps one memory per agent row; a row's memory restarts when
    its env's tick does not follow the previous call's (a new episode or a restored state).
    """

    def __init__(self, env: BatchedEnv, path: str, greedy: bool = False, seed: int = 0):
        import torch

        from sparring.train.checkpoint import load_policy

        self._torch = torch
        self.net, meta = load_policy(path, env.env_cls.name, env)
        self.net.eval()
        self.greedy = bool(greedy)
        self.name = f"checkpoint:{os.path.abspath(path)}@step{meta['step']}" + (":greedy" if greedy else "")
        torch.manual_seed(seed)  # the sampling noise comes from torch's global generator
        self._state = self.net.initial_state(env.rows)
        self._last_tick = np.full(env.rows, -2, np.int64)

    def act(self, batch: Observations) -> np.ndarray:
        """The policy's actions for ``batch`` (its memory advanced for those rows only)."""
        torch = self._torch
        rows_t = torch.from_numpy(batch.rows)
        state, reset = (), None
        if self.net.recurrent:
            if batch.env is None:
                raise ValueError("a recurrent CheckpointBrain needs Observations with their env (ticks)")
            ticks = batch.env.records["tick"][batch.rows // batch.env.num_agents].astype(np.int64)
            reset = torch.from_numpy(ticks != self._last_tick[batch.rows] + 1)
            self._last_tick[batch.rows] = ticks
            state = tuple(s[rows_t] for s in self._state)
        with torch.inference_mode():
            act, _, _, state = self.net.act(torch.from_numpy(batch.obs), torch.from_numpy(batch.mask), state, reset,
                                            greedy=self.greedy)
        for full, part in zip(self._state, state):
            full[rows_t] = part
        return act.numpy().astype(np.int32)

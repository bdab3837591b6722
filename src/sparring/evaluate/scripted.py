"""An env's scripted policy as the evaluated player (``sparring eval --policy scripted:NAME``)."""

from __future__ import annotations

import numpy as np
import torch


class ScriptedPlayer:
    """The env's scripted policy ``name`` for the rows ``rows``, behind the interface of a trained policy
    that :func:`~sparring.evaluate.episodes.play_episodes` drives (``act``, ``initial_state``, ``recurrent``)."""

    recurrent = False

    def __init__(self, env, name: str, rows: np.ndarray):
        self.env, self.name, self.rows = env, name, np.asarray(rows, np.int64)
        self._out = env.scripted_actions(name)  # fails here, naming the known policies, for an unknown name

    def initial_state(self, batch: int, device=None) -> tuple:
        """No memory: an empty state."""
        return ()

    def act(self, obs, mask, state=(), reset=None, greedy: bool = False):
        """The script's actions for the rows (``obs`` and ``mask`` are read from the env's records instead):
        (actions [rows, heads], zero logprob, zero value, state)."""
        acts = torch.from_numpy(self.env.scripted_actions(self.name, out=self._out)[self.rows].astype(np.int64))
        zeros = torch.zeros(len(acts))
        return acts, zeros, zeros, state


def parse_policy(spec: str) -> str:
    """The scripted policy name of ``scripted:NAME``, or a ValueError saying what ``--policy`` takes."""
    kind, _, name = spec.partition(":")
    if kind != "scripted" or not name:
        raise ValueError(f"--policy {spec!r}: expected scripted:NAME (one of the env's scripted policies); "
                         "evaluate a trained policy with --checkpoint instead")
    return name

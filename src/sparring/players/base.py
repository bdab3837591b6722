"""The one protocol of everything that acts in an env: a :class:`Player` picks actions for a set of rows.

Scripted policies, uniform random play, trained checkpoints and the text brains of
:mod:`sparring.lm` all implement it, so every command that plays (train's opponents,
eval, watch, record, fork, explore, the town's brains) drives them the same way.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Player(Protocol):
    """Picks actions for agent rows of a :class:`~sparring.kit.BatchedEnv`.

    ``act(env, rows)`` returns int32 actions ``[len(rows), heads]`` for the env's
    current state; ``rows`` are agent rows (``env_index * num_agents + seat``).
    A player with memory (a recurrent network) keeps it per row and starts it
    afresh for a row whose env tick does not follow its previous call's (a new
    episode or a restored state). ``name`` describes the player in recordings and
    reports.
    """

    name: str

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        """Actions [len(rows), heads] int32 for ``rows`` of ``env``."""

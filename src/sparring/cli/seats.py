"""The arguments shared by every command that plays episodes (train, eval, watch, record, fork, play, explore)."""

from __future__ import annotations

import argparse


def add_seat_args(p: argparse.ArgumentParser, *, seed: int | None = 0, opponent: str | None = None) -> None:
    """Add who plays the seats and the episode seed to ``p``.

    ``seed`` is the ``--seed`` default, or None for a command whose seed is a ``--train`` key;
    ``opponent`` is the help of ``--opponent``, or None for a command that does not take it.
    """
    if opponent is not None:
        p.add_argument("--opponent", help=opponent)
    if seed is not None:
        p.add_argument("--seed", type=int, default=seed)

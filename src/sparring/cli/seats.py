"""The arguments shared by every command that plays episodes (train, eval, watch, record, fork, play, explore)."""

from __future__ import annotations

import argparse

from sparring.cli.values import seed as seed_type
from sparring.cli.values import text

SEAT_HELP = (
    "who plays the seat NAME (repeatable): random, scripted:NAME, checkpoint:RUN{knob}; `sparring list` names the seats"
)


def add_seat_args(
    p: argparse.ArgumentParser, *, seed: int | None = 0, opponent: str | None = None, seat: bool = True
) -> None:
    """Add who plays the seats and the episode seed to ``p``.

    ``seed`` is the ``--seed`` default, or None for a command whose seed is a ``--train`` key;
    ``opponent`` is the help of ``--opponent``, or None for a command that does not take it
    (then ``--seat`` takes only players, not the env's knob); ``seat`` adds ``--seat NAME=PLAYER``.
    """
    if opponent is not None:
        p.add_argument("--opponent", type=text("an opponent (a knob value, scripted policy or 'self')"), help=opponent)
    if seat:
        knob = ", or a value of the env's opponent knob for a seat the env plays itself" if opponent else ""
        p.add_argument(
            "--seat",
            action="append",
            type=text("NAME=PLAYER"),
            metavar="NAME=PLAYER",
            help=SEAT_HELP.format(knob=knob),
        )
    if seed is not None:
        p.add_argument("--seed", type=seed_type(), default=seed)

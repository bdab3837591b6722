"""Who plays the seats a learner or an evaluated player does not: ``--opponent`` resolved for an env.

An env may play its other seats itself, inside the kernels, as its ``opponent`` knob says
(duel: ``robot``...). With two or more learner seats, the first learner seat is the one
trained or evaluated and the others are played from outside: by one of the env's scripted
policies, or by past versions of the learner (``self``, the pool of :mod:`sparring.train`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sparring.kit.config import make_config
from sparring.players.make import make_player

SELF_PLAY = "self"


def opponent_choices(env_cls) -> tuple[str, ...]:
    """The values of the env's ``opponent`` knob (who the env plays its other seats with); () without one."""
    for f in dataclasses.fields(env_cls.Config):
        if f.name == "opponent" and "choices" in f.metadata:
            return f.metadata["choices"]
    return ()


def resolve_opponent(env_cls, name: str | None, env_config: dict,
                     explicit: dict | None = None) -> tuple[dict, str | None]:
    """``--opponent NAME`` as (env config, player spec of the other learner seats or None).

    None or a value of the env's knob sets the knob (the env plays the other seats); a
    different ``opponent`` among the user's ``explicit`` env overrides (default: all of
    ``env_config``) is an error that names both. A scripted policy name gives
    ``"scripted:NAME"`` and ``"self"`` gives ``"self"``; both need two learner seats.
    """
    env_config = dict(env_config)
    explicit = env_config if explicit is None else explicit
    knob = opponent_choices(env_cls)
    if name is None or name in knob:
        if name is not None:
            given = explicit.get("opponent")
            if given is not None and str(given) != name:
                raise ValueError(f"--opponent {name!r} conflicts with --env.opponent {given!r}; give one of them")
            env_config["opponent"] = name
        return env_config, None
    if name in env_cls.scripted or name == SELF_PLAY:
        seats = env_cls.learner_seats(make_config(env_cls, env_config))
        if len(seats) < 2:
            raise ValueError(f"--opponent {name!r} needs an env with two learner seats; {env_cls.name!r} has "
                             f"{len(seats)} with this config" + (f"; its opponent knob takes {list(knob)}" if knob else ""))
        return env_config, name if name == SELF_PLAY else f"scripted:{name}"
    raise ValueError(f"unknown opponent {name!r} for env {env_cls.name!r}; valid: {[*knob, *env_cls.scripted, SELF_PLAY]}")


def split_rows(env, other: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(rows of the trained or evaluated seat, rows of the opponent's seats) of a BatchedEnv.

    Without an outside opponent (``other`` None) every learner row is the player's; else the
    first learner seat is, and the other learner seats are the opponent's.
    """
    rows = np.flatnonzero(env.learner_rows)
    if other is None:
        return rows, rows[:0]
    seat = rows % env.num_agents
    first = seat.min()
    return rows[seat == first], rows[seat != first]


def seat_players(env, player, other: str | None, self_player=None) -> list:
    """``[(player, rows), ...]`` for :func:`~sparring.evaluate.episodes.play_episodes`: ``player`` in its seat, and
    the opponent ``other`` (see :func:`resolve_opponent`) in the others; ``self_player`` plays them for ``"self"``."""
    rows, other_rows = split_rows(env, other)
    if other is None:
        return [(player, rows)]
    if other == SELF_PLAY and self_player is None:
        raise ValueError("opponent 'self' needs the trained policy's weights; give a checkpoint, not a script")
    return [(player, rows), (self_player if other == SELF_PLAY else make_player(other, env), other_rows)]

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


def resolve_opponent(
    env_cls, name: str | None, env_config: dict, explicit: dict | None = None
) -> tuple[dict, str | None]:
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
            raise ValueError(
                f"--opponent {name!r} needs an env with two learner seats; {env_cls.name!r} has "
                f"{len(seats)} with this config" + (f"; its opponent knob takes {list(knob)}" if knob else "")
            )
        return env_config, name if name == SELF_PLAY else f"scripted:{name}"
    valid = list(dict.fromkeys([*knob, *env_cls.scripted, SELF_PLAY]))  # the knob and scripted players share names
    raise ValueError(f"unknown opponent {name!r} for env {env_cls.name!r}; valid: {valid}")


def parse_seats(values: list[str] | None) -> dict[str, str]:
    """``["runner=checkpoint:RUN", "chaser=scripted:bfs"]`` (from ``--seat NAME=PLAYER``) -> {seat: player spec}."""
    seats: dict[str, str] = {}
    for value in values or ():
        name, eq, spec = value.partition("=")
        if not eq or not name or not spec:
            raise ValueError(f"--seat {value!r}: expected NAME=PLAYER, e.g. --seat opponent=scripted:robot")
        if name in seats:
            raise ValueError(f"--seat {name} is given twice ({seats[name]!r} and {spec!r}); give it once")
        seats[name] = spec
    return seats


def _env_played(env_cls, env_config: dict, knob_value: str) -> set[int]:
    """The seats the env plays itself when its opponent knob is ``knob_value``."""
    learner = env_cls.learner_seats(make_config(env_cls, {**env_config, "opponent": knob_value}))
    return set(range(env_cls.num_agents)) - set(learner)


def _is_player_spec(spec: str) -> bool:
    kind, _, arg = spec.partition(":")
    return spec == "random" or (kind in ("scripted", "checkpoint") and bool(arg))


def resolve_seats(
    env_cls, seats: dict[str, str], opponent: str | None, env_config: dict, explicit: dict | None = None
) -> tuple[dict, str | None, dict[int, str]]:
    """``--seat`` and ``--opponent`` together: (env config, the other seats' player as :func:`resolve_opponent`
    gives it, {seat index: player spec} of the seats ``--seat`` names).

    A ``--seat`` value that is a value of the env's opponent knob hands that seat to the env
    (like ``--opponent``), unless an explicit ``--env.opponent`` already says otherwise: then a
    player spec of the same name (``random``) is that player, and anything else a conflict.
    Any other value is a player spec (``random``, ``scripted:NAME``, ``checkpoint:PATH``) for
    a seat the env takes from outside.
    """
    knob = opponent_choices(env_cls)
    given = (env_config if explicit is None else explicit).get("opponent")
    assigned = {}
    for name, spec in seats.items():
        if name not in env_cls.seats:
            raise ValueError(
                f"--seat {name}={spec}: env {env_cls.name!r} has no seat {name!r}; valid: {list(env_cls.seats)}"
            )
        seat = env_cls.seats.index(name)
        if spec in knob and (given is None or str(given) == spec) and seat in _env_played(env_cls, env_config, spec):
            if opponent is not None and opponent != spec:
                raise ValueError(f"--seat {name}={spec} conflicts with --opponent {opponent!r}; give one of them")
            opponent = spec
        elif spec in knob and not _is_player_spec(spec):
            if given is not None and str(given) != spec:
                raise ValueError(f"--seat {name}={spec} conflicts with --env.opponent {given!r}; give one of them")
            raise ValueError(
                f"--seat {name}={spec}: {spec!r} is a value of the env's opponent knob, which plays "
                f"{[env_cls.seats[k] for k in sorted(_env_played(env_cls, env_config, spec))]}, not {name!r}"
            )
        else:
            assigned[seat] = spec
    env_config, other = resolve_opponent(env_cls, opponent, env_config, explicit)
    learner = env_cls.learner_seats(make_config(env_cls, env_config))
    for seat, spec in assigned.items():
        if seat not in learner:
            hint = " (hand it out with --env.opponent learner)" if "learner" in knob else ""
            raise ValueError(
                f"--seat {env_cls.seats[seat]}={spec}: the env plays seat {env_cls.seats[seat]!r} "
                f"itself with this config{hint}; seats taken from outside: "
                f"{[env_cls.seats[k] for k in learner]}"
            )
    return env_config, other, assigned


def seat_rows(env, other: str | None, assigned: dict[int, str], who: str = "the evaluated player"):
    """(rows of the player, rows of the opponent ``other``) among the seats taken from outside that ``assigned``
    leaves free: the player gets the first free seat, the opponent the others (the player all of them when
    ``other`` is None); a clear error when ``--seat`` took them all (``who`` names the player)."""
    learner = np.flatnonzero(env.learner_rows[: env.num_agents]).tolist()
    free = [seat for seat in learner if seat not in assigned]
    if not free:
        raise ValueError(
            f"every seat taken from outside has a --seat player; leave one of "
            f"{[env.env_cls.seats[k] for k in learner]} for {who}"
        )
    seat_of = np.arange(env.rows) % env.num_agents
    mine = free if other is None else free[:1]
    return np.flatnonzero(np.isin(seat_of, mine)), np.flatnonzero(np.isin(seat_of, free[len(mine) :]))


def seat_players(
    env, player, other: str | None, self_player=None, assigned: dict[int, str] | None = None, seed: int = 0
) -> list:
    """``[(player, rows), ...]``: ``player`` in the first learner seat ``assigned`` leaves free, the opponent
    ``other`` (see :func:`resolve_opponent`; ``self_player`` plays ``"self"``) in the other free learner seats
    (``player`` itself without one), and each ``assigned`` seat's player in its seat."""
    assigned = assigned or {}
    mine, theirs = seat_rows(env, other, assigned)
    seated = [(player, mine)]
    if other is not None:
        if other == SELF_PLAY and self_player is None:
            raise ValueError("opponent 'self' needs the trained policy's weights; give a checkpoint, not a script")
        if len(theirs):
            seated.append((self_player if other == SELF_PLAY else make_player(other, env, seed), theirs))
    return seated + assigned_players(env, assigned, seed)


def assigned_players(env, assigned: dict[int, str], seed: int = 0) -> list:
    """``[(player, rows), ...]`` of the seats ``--seat`` names, each with the player its spec makes."""
    seat_of = np.arange(env.rows) % env.num_agents
    return [(make_player(spec, env, seed), np.flatnonzero(seat_of == seat)) for seat, spec in sorted(assigned.items())]


class Seating:
    """Players in their seats as one :class:`~sparring.players.Player` (for a recorder): each acts for its rows.

    ``name`` lists who plays each seat (``seat=player; ...``), so a recording says it;
    ``logp``/``value`` are those of the players that have them (NaN for the others' rows).
    """

    def __init__(self, env, seated):
        self.seated = [(player, np.asarray(rows, np.int64)) for player, rows in seated]
        self.name = "; ".join(f"{seat}={who}" for seat, who in who_plays(env, self.seated).items())
        self.logp = self.value = np.zeros(0, np.float32)

    def act(self, env, rows) -> np.ndarray:
        """Each seated player's actions for its share of ``rows``."""
        rows = np.asarray(rows, np.int64)
        out = np.zeros((len(rows), len(env.heads.sizes)), np.int32)
        self.logp, self.value = np.full(len(rows), np.nan, np.float32), np.full(len(rows), np.nan, np.float32)
        for player, mine in self.seated:
            sel = np.isin(rows, mine)
            if sel.any():
                out[sel] = player.act(env, rows[sel])
                if len(getattr(player, "logp", ())) == sel.sum():
                    self.logp[sel], self.value[sel] = player.logp, player.value
        return out


def who_plays(env, seated) -> dict[str, str]:
    """Seat name -> the name of who plays it: a seated player's, or ``env:<opponent knob>`` (``env``) for a seat the
    env plays itself inside its kernels."""
    knob = getattr(env.config, "opponent", None) if opponent_choices(env.env_cls) else None
    names = {seat: "env" + (f":{knob}" if knob is not None else "") for seat in env.env_cls.seats}
    for player, rows in seated:
        for seat in np.unique(np.asarray(rows, np.int64) % env.num_agents):
            names[env.env_cls.seats[seat]] = player.name
    return names

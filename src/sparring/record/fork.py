"""Fork a recorded episode: restore its state at a tick and play on with another policy or seed."""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from sparring.kit.rng import mix_seed
from sparring.players import make_player
from sparring.players.opponents import Seating, resolve_seats, seat_players
from sparring.record.reader import Recording
from sparring.record.recorder import Recorder


def fork(
    path: str,
    episode: int,
    tick: int,
    policy: str,
    out: str,
    *,
    episodes: int = 1,
    seed: int = 0,
    reseed: int | None = None,
    greedy: bool = False,
    group_rows: int = 4096,
    seats: dict | None = None,
) -> int:
    """Record ``episodes`` continuations of ``episode`` of ``path`` from its state at ``tick``.

    "What if the agent had done something else here?": each continuation
    starts from the recorded state (its generator included, so the env's own
    dice repeat) and is played by ``policy`` (a :func:`~sparring.players.make_player` spec,
    seeded with ``seed``, ``greedy`` for checkpoints) to the episode's end. With
    ``reseed`` the env's generator of continuation ``k`` is reseeded from
    ``(reseed, k)`` so the dice differ too. The new recording (at ``out``)
    starts at ``tick`` and names its source in the metadata (``forked_from``).
    ``seats`` puts other players in named seats the env takes from outside
    (``{"runner": "random"}``); the env config stays the recording's. Returns the
    number of episodes written.
    """
    if episodes < 1:
        raise ValueError(f"episodes must be a positive int, got {episodes}")
    rec = Recording(path)
    ep = rec.episode(episode)
    at = np.flatnonzero(ep.ticks[:-1] == tick)
    if at.size == 0:
        raise ValueError(
            f"episode {episode} of {path} can be forked at ticks {int(ep.ticks[0])}.."
            f"{int(ep.ticks[-2])} (its last tick is final), got {tick}"
        )
    start = ep.states[at[0] : at[0] + 1]
    env = rec.make_env(num_envs=1, seed=seed)
    recorded = dataclasses.asdict(rec.config)
    config, _, assigned = resolve_seats(env.env_cls, seats or {}, None, recorded, explicit={})
    if config != recorded:
        raise ValueError(
            f"fork keeps the recording's env config ({recorded}); --seat takes players (random, "
            "scripted:NAME, checkpoint:RUN) for seats the env takes from outside, not the env's knob"
        )
    play = Seating(env, seat_players(env, make_player(policy, env, seed, greedy), None, None, assigned, seed))
    source = {"file": os.path.abspath(path), "episode": int(episode), "tick": int(tick)}
    with Recorder(env, out, policy=play.name, group_rows=group_rows, forked_from=source) as recorder:
        for k in range(episodes):
            state = start.copy()
            if reseed is not None:
                state["rng"] = mix_seed(np.uint64(reseed), np.uint64(k))
            recorder.restore([0], state)
            while recorder.episodes == k:
                recorder.play(play)
    return recorder.episodes

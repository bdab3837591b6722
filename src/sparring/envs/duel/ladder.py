"""Matches between tiers of the scripted ladder, for the ladder test and ``benchmarks/duel_ladder.py``."""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv

TIERS = ("random", "reactive", "tribrid", "robot")
# (stronger seat-1 opponent, its foresight, weaker seat-0 policy)
PAIRINGS = (("reactive", 0.0, "random"), ("tribrid", 0.0, "reactive"), ("robot", 0.0, "tribrid"),
            ("robot", 0.0, "random"), ("robot", 0.5, "robot"))


def match(low: str, high: str, episodes: int, seed: int = 0, foresight: float = 0.0,
          max_ticks: int | None = None) -> dict:
    """Play ``episodes`` first episodes of ``high`` (seat 1, inside the env) against ``low`` (seat 0).

    Each env of a batch of ``episodes`` contributes its first episode, so short
    and long fights count alike. Returns the fractions ``high``, ``low`` (won by
    that side) and ``draw``, and the mean ``ticks``.
    """
    from sparring.envs.duel.env import Duel

    config = {"opponent": high, "foresight": foresight}
    if max_ticks is not None:
        config["max_ticks"] = max_ticks
    env = BatchedEnv(Duel, num_envs=episodes, seed=seed, **config)
    outcome = np.zeros(episodes, np.float64)
    ticks = np.zeros(episodes, np.float64)
    open_ = np.ones(episodes, np.bool_)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    while open_.any():
        tick = env.records["tick"] + 1
        env.scripted_actions(low, out=acts)
        env.step(acts)
        ended = env.done & open_
        outcome[ended] = env.rewards[0::2][ended]
        ticks[ended] = tick[ended]
        open_ &= ~env.done
    return {"high": float(np.mean(outcome < 0)), "low": float(np.mean(outcome > 0)),
            "draw": float(np.mean(outcome == 0)), "ticks": float(ticks.mean())}


def table(episodes: int, seed: int = 0) -> list[tuple[str, dict]]:
    """Every pairing of :data:`PAIRINGS` as (label, :func:`match` result)."""
    rows = []
    for high, foresight, low in PAIRINGS:
        label = f"{high}{f' (foresight {foresight})' if foresight else ''} vs {low}"
        rows.append((label, match(low, high, episodes, seed, foresight)))
    return rows

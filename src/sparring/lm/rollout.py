"""Character 0 of many towns as a learner: its towns, its goal, its progress, and the turns a model plays.

The rest of each town is the planner inside the env (``background =
characters - 1``), so one batched step moves every town. The model's play
(GRPO's rollouts and the evaluation) is :mod:`sparring.lm.learners`, for one
learner or several.
"""

from __future__ import annotations

import dataclasses

from sparring.envs.town.world import (
    GATHER_OTHERS,
    GOAL_COINS,
    GOAL_NAMES,
    HOUSE,
    HOUSE_COINS,
    HOUSE_WOOD,
    PLACE_COL,
    PLACE_ROW,
    RICH,
    TAVERN,
    WOOD,
)
from sparring.kit import registry
from sparring.kit.batch import BatchedEnv

LEARNER = 0
GOALS = ("any",) + GOAL_NAMES


@dataclasses.dataclass
class TurnSample:
    """One learner turn: which town it was played in, the tokens read, the line chosen and its log-probability."""

    env: int
    prompt: list[int]
    lines: list[list[int]]
    choice: int
    logp: float


def learner_env(num_envs: int, seed: int, env: str = "town", goal: str = "any", **config) -> BatchedEnv:
    """Towns whose character 0 is the learner (the rest the in-env planner), waiting at their first tick."""
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {list(GOALS)}, got {goal!r}")
    cls = registry.get(env)
    batch = BatchedEnv(
        cls, num_envs=num_envs, seed=seed, autoreset=False, **{**config, "background": cls.num_agents - 1}
    )
    set_goal(batch, goal)
    return batch


def set_goal(batch: BatchedEnv, goal: str) -> None:
    """Give character 0 of every town ``goal`` (unless "any") and refresh the observations."""
    if goal != "any":
        recs = batch.snapshot()
        recs["goal"][:, LEARNER] = GOAL_NAMES.index(goal)
        batch.restore(None, recs)


def progress(s, agent: int = LEARNER) -> float:
    """How far character ``agent`` is towards its goal now, in [0, 0.9] (1 once it is done): coins held (rich),
    wood and coins held (house), being at the tavern and the others there with it (gathering)."""
    if s["goal_done"][agent]:
        return 1.0
    goal = int(s["goal"][agent])
    coins = float(s["coins"][agent])
    if goal == RICH:
        return min(coins / GOAL_COINS, 1.0) * 0.9
    if goal == HOUSE:
        return 0.45 * (min(float(s["goods"][agent][WOOD]) / HOUSE_WOOD, 1.0) + min(coins / HOUSE_COINS, 1.0))
    here = (s["row"] == s["row"][agent]) & (s["col"] == s["col"][agent]) & (s["alive"] == 1)
    at_tavern = s["row"][agent] == PLACE_ROW[TAVERN] and s["col"][agent] == PLACE_COL[TAVERN]
    return 0.3 + 0.6 * min((int(here.sum()) - 1) / GATHER_OTHERS, 1.0) if at_tavern else 0.0

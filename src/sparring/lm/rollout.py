"""Playing character 0 of many towns at once with a line-scoring model: GRPO's rollouts and its evaluation.

The rest of each town is the planner inside the env (``background =
characters - 1``), so one batched step moves every town, and a tick asks the
model once for every standing learner.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

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
from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.town import SAFE_ACTION, turn

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


@dataclasses.dataclass
class Rollout:
    """What :func:`play_out` played: turns, and per town its success and shaped progress."""

    turns: list[TurnSample]
    success: np.ndarray
    progress: np.ndarray
    tokens: int
    """Prompt and candidate tokens the model read."""
    unfit: int
    """Turns whose prompt did not fit the model's context (the safe action was taken)."""
    decisions: int
    """Turns the model was asked to play (unfit ones included)."""
    seconds: float


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


def play_out(
    scorer: LineScorer,
    batch: BatchedEnv,
    temperature: float,
    rng: np.random.Generator,
    turns: int = 0,
    batch_size: int = 16,
    keep: bool = True,
) -> Rollout:
    """Play every town of ``batch`` for ``turns`` ticks (0: to the episode end) with the model as character 0."""
    started = time.perf_counter()
    samples: list[TurnSample] = []
    tokens = unfit = ticks = decisions = 0
    best = np.zeros(batch.num_envs)
    while not batch.done.all() and (turns <= 0 or ticks < turns):
        envs = [e for e in range(batch.num_envs) if not batch.done[e] and batch.records["alive"][e][LEARNER]]
        actions = np.full((batch.rows, 1), SAFE_ACTION, np.int32)
        if envs:
            ts = [turn(batch.records[e], batch.config, LEARNER) for e in envs]
            picked = choose_lines(scorer, [t.text for t in ts], [t.lines for t in ts], temperature, rng, batch_size)
            tokens += picked.tokens
            decisions += len(envs)
            for j, (e, t, k) in enumerate(zip(envs, ts, picked.index)):
                if k < 0:
                    unfit += 1
                    continue
                actions[e * batch.num_agents + LEARNER, 0] = t.actions[k]
                if keep:
                    samples.append(TurnSample(e, picked.prompts[j], picked.lines[j], k, picked.logp[j]))
        batch.step(actions)
        ticks += 1
        best = np.maximum(best, [progress(s) for s in batch.records])
    success = batch.records["goal_done"][:, LEARNER].astype(np.float64)
    return Rollout(samples, success, best, tokens, unfit, decisions, time.perf_counter() - started)


def evaluate(
    scorer: LineScorer,
    episodes: int,
    seed: int,
    temperature: float = 1.0,
    goal: str = "any",
    num_envs: int = 64,
    batch_size: int = 16,
    env: str = "town",
    **config,
) -> dict:
    """Goal success of the model as character 0 over ``episodes`` full episodes with fixed seeds, 95% Wilson CI."""
    from sparring.evaluate.wilson import wilson_interval

    rng = np.random.default_rng(seed)
    wins = tokens = unfit = decisions = 0
    seconds = 0.0
    for start in range(0, episodes, num_envs):
        n = min(num_envs, episodes - start)
        batch = learner_env(n, seed + start, env, goal, **config)  # env i is seeded from (seed + start, i)
        out = play_out(scorer, batch, temperature, rng, 0, batch_size, keep=False)
        wins += int(out.success.sum())
        tokens, unfit, seconds = tokens + out.tokens, unfit + out.unfit, seconds + out.seconds
        decisions += out.decisions
    low, high = wilson_interval(wins, episodes)
    return {
        "episodes": episodes,
        "successes": wins,
        "success_rate": wins / episodes,
        "ci95": [low, high],
        "tokens_per_s": tokens / max(seconds, 1e-9),
        "decisions_per_s": decisions / max(seconds, 1e-9),
        "unfit_turns": unfit,
        "seconds": seconds,
    }

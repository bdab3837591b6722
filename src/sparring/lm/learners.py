"""Several learning characters in one town, each with its own brain: multi-learner GRPO's rollouts and evaluation.

The ``learners`` are character indices; each is played by its own brain (a
:class:`~sparring.lm.choice.LineScorer` sampling its lines, or a player such as
the noisy planner). The characters after the last learner are the planner
inside the env (``background``); characters before it that are not learners
are the planner too, asked here. One learner is ``learners = [0]``.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from sparring.envs.town.world import GOAL_NAMES
from sparring.kit import registry
from sparring.kit.batch import BatchedEnv
from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.rollout import GOALS, TurnSample, progress
from sparring.lm.town import SAFE_ACTION, turn
from sparring.players import ScriptedPlayer


@dataclasses.dataclass
class LearnersRollout:
    """What :func:`play_learners` played: per learner its turns, and per town and learner success and progress."""

    turns: list[list[TurnSample]]
    """Per learner (in the order of ``learners``), its turns."""
    success: np.ndarray
    """(towns, learners) goal completion, 0 or 1."""
    progress: np.ndarray
    """(towns, learners) best progress towards the goal (see :func:`sparring.lm.rollout.progress`)."""
    tokens: int
    unfit: np.ndarray
    """Per learner, turns whose prompt did not fit its model's context (the safe action was taken)."""
    decisions: np.ndarray
    """Per learner, turns it was asked to play (unfit ones included)."""
    seconds: float


def check_learners(learners, env: str = "town") -> list[int]:
    """``learners`` as a list of distinct character indices of ``env``; a clear error otherwise."""
    n = registry.get(env).num_agents
    out = [int(c) for c in learners]
    if not out or len(set(out)) != len(out) or not all(0 <= c < n for c in out):
        raise ValueError(f"learners must be distinct character indices in [0, {n - 1}] for {env}, got {list(learners)}")
    return out


def set_goals(records: np.ndarray, learners: list[int], goal: str) -> None:
    """Give every learner of ``records`` (in place) ``goal``, unless it is "any"."""
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {list(GOALS)}, got {goal!r}")
    if goal != "any":
        for c in learners:
            records["goal"][:, c] = GOAL_NAMES.index(goal)


def learners_env(num_envs: int, seed: int, learners: list[int], env: str = "town", goal: str = "any", **config):
    """Towns whose ``learners`` play from outside (the characters after the last one are the in-env planner), with
    every learner given ``goal``, waiting at their first tick."""
    learners = check_learners(learners, env)
    cls = registry.get(env)
    background = cls.num_agents - 1 - max(learners)
    batch = BatchedEnv(cls, num_envs=num_envs, seed=seed, autoreset=False, **{**config, "background": background})
    if goal != "any":
        recs = batch.snapshot()
        set_goals(recs, learners, goal)
        batch.restore(None, recs)
    return batch


def play_learners(
    brains: list,
    batch: BatchedEnv,
    learners: list[int],
    temperature: float,
    rng: np.random.Generator,
    turns: int = 0,
    batch_size: int = 16,
    keep: bool = True,
) -> LearnersRollout:
    """Play every town of ``batch`` for ``turns`` ticks (0: to the episode end), learner ``learners[j]`` by
    ``brains[j]``: a LineScorer samples at ``temperature`` from ``rng`` (its turns kept with ``keep``), anything
    else is a player (``act(batch, rows)``)."""
    started = time.perf_counter()
    n, agents = batch.num_envs, batch.num_agents
    fill = [a for a in range(max(learners) + 1) if a not in learners]
    planner = ScriptedPlayer(batch, "planner") if fill else None
    samples: list[list[TurnSample]] = [[] for _ in learners]
    unfit, decisions = np.zeros(len(learners), np.int64), np.zeros(len(learners), np.int64)
    tokens = ticks = 0
    best = np.zeros((n, len(learners)))
    while not batch.done.all() and (turns <= 0 or ticks < turns):
        actions = np.full((batch.rows, 1), SAFE_ACTION, np.int32)
        alive = batch.records["alive"]
        for j, (c, brain) in enumerate(zip(learners, brains)):
            envs = [e for e in range(n) if not batch.done[e] and alive[e][c]]
            if not envs:
                continue
            decisions[j] += len(envs)
            if not isinstance(brain, LineScorer):
                rows = np.array([e * agents + c for e in envs], np.int64)
                actions[rows] = brain.act(batch, rows)
                continue
            ts = [turn(batch.records[e], batch.config, c) for e in envs]
            picked = choose_lines(brain, [t.text for t in ts], [t.lines for t in ts], temperature, rng, batch_size)
            tokens += picked.tokens
            for i, (e, t, k) in enumerate(zip(envs, ts, picked.index)):
                if k < 0:
                    unfit[j] += 1
                    continue
                actions[e * agents + c, 0] = t.actions[k]
                if keep:
                    samples[j].append(TurnSample(e, picked.prompts[i], picked.lines[i], k, picked.logp[i]))
        if planner is not None:
            rows = np.array([e * agents + a for e in range(n) if not batch.done[e] for a in fill], np.int64)
            if rows.size:
                actions[rows] = planner.act(batch, rows)
        batch.step(actions)
        ticks += 1
        best = np.maximum(best, [[progress(s, c) for c in learners] for s in batch.records])
    success = batch.records["goal_done"][:, learners].astype(np.float64)
    return LearnersRollout(samples, success, best, tokens, unfit, decisions, time.perf_counter() - started)


def evaluate_learners(
    brains: list,
    learners: list[int],
    episodes: int,
    seed: int,
    temperature: float = 1.0,
    goal: str = "any",
    num_envs: int = 64,
    batch_size: int = 16,
    env: str = "town",
    **config,
) -> list[dict]:
    """Goal success of each learner (played by its brain, all in the same towns) over ``episodes`` full episodes
    with fixed seeds, with 95% Wilson intervals, tokens and decisions per second: one dict per learner."""
    from sparring.evaluate.wilson import wilson_interval

    rng = np.random.default_rng(seed)
    wins = np.zeros(len(learners), np.int64)
    unfit, decisions = np.zeros(len(learners), np.int64), np.zeros(len(learners), np.int64)
    tokens, seconds = 0, 0.0
    for start in range(0, episodes, num_envs):
        batch = learners_env(min(num_envs, episodes - start), seed + start, learners, env, goal, **config)
        out = play_learners(brains, batch, learners, temperature, rng, 0, batch_size, keep=False)
        wins += out.success.sum(axis=0).astype(np.int64)
        unfit, decisions = unfit + out.unfit, decisions + out.decisions
        tokens, seconds = tokens + out.tokens, seconds + out.seconds
    results = []
    for j, c in enumerate(learners):
        low, high = wilson_interval(int(wins[j]), episodes)
        results.append(
            {
                "character": c,
                "episodes": episodes,
                "successes": int(wins[j]),
                "success_rate": int(wins[j]) / episodes,
                "ci95": [low, high],
                "tokens_per_s": tokens / max(seconds, 1e-9),
                "decisions_per_s": int(decisions.sum()) / max(seconds, 1e-9),
                "unfit_turns": int(unfit[j]),
                "seconds": seconds,
            }
        )
    return results


def intervals_overlap(a: dict, b: dict) -> bool:
    """Whether the 95% intervals (``ci95``) of two evaluations overlap."""
    return not (a["ci95"][1] < b["ci95"][0] or b["ci95"][1] < a["ci95"][0])

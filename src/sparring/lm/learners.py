"""Several learning seats in one env, each with its own brain: GRPO's rollouts and the evaluation, for any env
with a text face.

The ``learners`` are seat indices; each is played by its own brain (a
:class:`~sparring.lm.choice.LineScorer` sampling its lines, or a player such as
a noisy scripted teacher). The face's ``configure`` hands what it can of the
other seats to the env itself (town: the planner plays every character after
the last learner; duel: its ``opponent``); other seats fed from outside are the
env's best scripted player, asked here. One learner is ``learners = [0]``.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from sparring.kit import registry
from sparring.kit.batch import BatchedEnv
from sparring.kit.config import make_config
from sparring.kit.text import check_goal, require_face
from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.specs import Continuing, turn
from sparring.players import RandomPlayer, ScriptedPlayer


@dataclasses.dataclass
class TurnSample:
    """One learner turn: which env it was played in, the tokens read, the line chosen and its log-probability."""

    env: int
    prompt: list[int]
    lines: list[list[int]]
    choice: int
    logp: float


@dataclasses.dataclass
class LearnersRollout:
    """What :func:`play_learners` played: per learner its turns, and per env and learner success, return and
    progress."""

    turns: list[list[TurnSample]]
    """Per learner (in the order of ``learners``), its turns."""
    success: np.ndarray
    """(envs, learners) success by the face (town: goal completed), 0 or 1."""
    returns: np.ndarray
    """(envs, learners) the seat's return over the ticks played."""
    progress: np.ndarray
    """(envs, learners) best progress by the face (see :meth:`sparring.kit.text.TextFace.progress`)."""
    tokens: int
    unfit: np.ndarray
    """Per learner, turns whose prompt did not fit its model's context (the first legal line was taken)."""
    decisions: np.ndarray
    """Per learner, turns it was asked to play (unfit ones included)."""
    kept: np.ndarray
    """Per learner, turns whose previous action went on undecided (the compact prompt's ``continues``)."""
    seconds: float


def learner_config(env: str, learners, config: dict) -> dict:
    """The env config under which ``learners`` (distinct seat indices) act from outside: the face's
    ``configure``; a one-line error when a learner is a seat the env plays itself, or not a seat."""
    cls = registry.get(env)
    face = require_face(cls)
    out = [int(c) for c in learners]
    if not out or len(set(out)) != len(out) or not all(0 <= c < cls.num_agents for c in out):
        raise ValueError(
            f"learners must be distinct seat indices in [0, {cls.num_agents - 1}] for {env}, got {list(learners)}"
        )
    configured = face.configure(cls, config, out)
    outside = cls.learner_seats(make_config(cls, configured))
    inside = [c for c in out if c not in outside]
    if inside:
        raise ValueError(
            f"{env} plays seat(s) {[cls.seats[c] for c in inside]} itself with this config; a learner must be "
            f"one of {[cls.seats[c] for c in outside]} (e.g. change the env's opponent knob)"
        )
    return configured


def check_learners(learners, env: str = "town", config: dict | None = None) -> list[int]:
    """``learners`` as a list of distinct seat indices of ``env`` that act from outside; a clear error otherwise."""
    learner_config(env, learners, config or {})
    return [int(c) for c in learners]


def set_goals(env_cls, records: np.ndarray, learners: list[int], goal: str) -> None:
    """Give every learner of ``records`` (in place) ``goal`` by the env's face, unless it is "any"."""
    face = require_face(env_cls)
    check_goal(face, goal)
    if goal != "any":
        for c in learners:
            face.set_goal(records, c, goal)


def learners_env(num_envs: int, seed: int, learners: list[int], env: str = "town", goal: str = "any", **config):
    """Envs whose ``learners`` play from outside (see :func:`learner_config`), with every learner given
    ``goal``, waiting at their first tick."""
    cls = registry.get(env)
    batch = BatchedEnv(
        cls, num_envs=num_envs, seed=seed, autoreset=False, **learner_config(env, learners, dict(config))
    )
    give_goal(batch, learners, goal)
    return batch


def give_goal(batch: BatchedEnv, learners: list[int], goal: str) -> None:
    """Give every learner of every env of ``batch`` ``goal`` (unless "any") and refresh the observations."""
    if goal != "any":
        recs = batch.snapshot()
        set_goals(batch.env_cls, recs, learners, goal)
        batch.restore(None, recs)


def filler(batch: BatchedEnv, learners: list[int], seed: int = 0):
    """The seats fed from outside that are not learners, and the player that plays them (the env's best scripted
    player, or a random one seeded by ``seed`` where it has none; None when there are no such seats)."""
    fill = [int(a) for a in np.flatnonzero(batch.learner_rows[: batch.num_agents]) if a not in learners]
    if not fill:
        return [], None
    best = batch.env_cls.best_scripted
    return fill, ScriptedPlayer(batch, best) if best else RandomPlayer(seed)


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
    """Play every env of ``batch`` for ``turns`` ticks (0: to the episode end), learner ``learners[j]`` by
    ``brains[j]``: a LineScorer samples at ``temperature`` from ``rng`` (its turns kept with ``keep``), anything
    else is a player (``act(batch, rows)``)."""
    started = time.perf_counter()
    cls, cfg = batch.env_cls, batch.config
    face = require_face(cls)
    n, agents = batch.num_envs, batch.num_agents
    fill, outside = filler(batch, learners)
    samples: list[list[TurnSample]] = [[] for _ in learners]
    unfit, decisions, kept = (np.zeros(len(learners), np.int64) for _ in range(3))
    tokens = ticks = 0
    best = np.zeros((n, len(learners)))
    continuing = Continuing()
    while not batch.done.all() and (turns <= 0 or ticks < turns):
        actions = np.zeros((batch.rows, len(batch.heads.sizes)), np.int32)
        for j, (c, brain) in enumerate(zip(learners, brains)):
            envs = [e for e in range(n) if not batch.done[e] and face.acting(batch.records[e], cfg, c)]
            if not envs:
                continue
            if not isinstance(brain, LineScorer):
                decisions[j] += len(envs)
                rows = np.array([e * agents + c for e in envs], np.int64)
                actions[rows] = brain.act(batch, rows)
                continue
            if brain.prompt == "compact":  # a walk in progress goes on undecided
                going = {e: continuing.kept(face, batch.records[e], cfg, c, (e, c)) for e in envs}
                for e, action in going.items():
                    if action is not None:
                        actions[e * agents + c] = action
                kept[j] += sum(a is not None for a in going.values())
                envs = [e for e in envs if going[e] is None]
            decisions[j] += len(envs)
            ts = [turn(cls, batch.records[e], cfg, c, brain.prompt) for e in envs]
            picked = choose_lines(brain, [t.text for t in ts], [t.lines for t in ts], temperature, rng, batch_size)
            tokens += picked.tokens
            for i, (e, t, k) in enumerate(zip(envs, ts, picked.index)):
                actions[e * agents + c] = t.actions[max(k, 0)]
                if k < 0:
                    unfit[j] += 1
                elif keep:
                    samples[j].append(TurnSample(e, picked.prompts[i], picked.lines[i], k, picked.logp[i]))
        if outside is not None:
            rows = np.array([e * agents + a for e in range(n) if not batch.done[e] for a in fill], np.int64)
            if rows.size:
                actions[rows] = outside.act(batch, rows)
        for e in range(n):
            for c in learners:
                continuing.took((e, c), batch.records[e], actions[e * agents + c])
        batch.step(actions)
        ticks += 1
        best = np.maximum(best, [[face.progress(s, cfg, c) for c in learners] for s in batch.records])
    success = np.array([[face.success(cls, s, cfg, c) for c in learners] for s in batch.records], np.float64)
    returns = batch.records["ep_return"][:, learners].astype(np.float64)
    return LearnersRollout(
        samples, success, returns, best, tokens, unfit, decisions, kept, time.perf_counter() - started
    )


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
    """Success of each learner (played by its brain, all in the same envs) over ``episodes`` full episodes with
    fixed seeds, with 95% Wilson intervals, mean return, tokens, model decisions and turns (decided or kept) per
    second: one dict per learner."""
    from sparring.kit.stats import wilson_interval

    rng = np.random.default_rng(seed)
    wins = np.zeros(len(learners), np.int64)
    returns = np.zeros(len(learners))
    unfit, decisions, kept = (np.zeros(len(learners), np.int64) for _ in range(3))
    tokens, seconds = 0, 0.0
    for start in range(0, episodes, num_envs):
        batch = learners_env(min(num_envs, episodes - start), seed + start, learners, env, goal, **config)
        out = play_learners(brains, batch, learners, temperature, rng, 0, batch_size, keep=False)
        wins += out.success.sum(axis=0).astype(np.int64)
        returns += out.returns.sum(axis=0)
        unfit, decisions, kept = unfit + out.unfit, decisions + out.decisions, kept + out.kept
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
                "mean_return": float(returns[j] / episodes),
                "tokens_per_s": tokens / max(seconds, 1e-9),
                "decisions_per_s": int(decisions.sum()) / max(seconds, 1e-9),
                "turns_per_s": int(decisions.sum() + kept.sum()) / max(seconds, 1e-9),
                "kept_turns": int(kept[j]),
                "unfit_turns": int(unfit[j]),
                "seconds": seconds,
            }
        )
    return results


def intervals_overlap(a: dict, b: dict) -> bool:
    """Whether the 95% intervals (``ci95``) of two evaluations overlap."""
    return not (a["ci95"][1] < b["ci95"][0] or b["ci95"][1] < a["ci95"][0])

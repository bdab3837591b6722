"""Stall audit: in each seat taken from outside, an episode that ends at the time limit must not pay that seat more
than one that ends in its loss sooner (else the learner learns to stall).

The policies are the reward audit's (noop, random, constant actions, every scripted policy) and the best scripted
policy with one action value taken away (``scripted:NAME without HEAD=V``: that value becomes the head's no-op), which
finds the near-miss players that avoid the end: a fighter that dodges but never attacks, one that never moves.
Each policy plays the first episode of ``episodes`` envs, the other seats played as in the reward audit.

An episode ends at the time limit when the seat's row is truncated, or, for an env with a ``max_ticks`` knob, when
it lasts ``max_ticks`` ticks (a limit paid as a terminal is still a limit). Per policy, the time-limit endings the
seat did not win (by ``Env.outcome``) are compared with the losses that came sooner: the audit warns when the first
pay more on average, by more than ``MARGIN`` and by more than their 95% interval. Where the best scripted policy
itself plays to the limit in most episodes (town's days), the limit is the game's length, not a stall limit, and
there is no sooner end to compare with.
"""

from __future__ import annotations

import math

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.audit import _policies, _seated, audited_seats
from sparring.kit.check.report import Report
from sparring.kit.config import make_config

MARGIN = 0.05  # a time-limit ending may out-pay a loss by this much before the audit warns (progress differs)
GAME_LENGTH = 0.5  # the best scripted policy reaching the limit in this share of episodes: the limit is the game
LIMIT_KNOB = "max_ticks"


def _without(cls, name: str, most: int):
    """(name, policy) of scripted ``name`` with one head value replaced by the head's no-op, at most ``most``."""
    out = []
    for h, size in enumerate(cls.actions.sizes):
        for v in range(1, int(size)):

            def play(env, h=h, v=v):
                act = env.scripted_actions(name).copy()
                col = act[:, h]
                col[col == v] = 0
                return act

            out.append((f"scripted:{name} without {cls.actions.names[h]}={v}", play))
    return out[:most]


def first_endings(cls, config: dict, seed: int, seat: int, policy, episodes: int, max_steps: int):
    """Play the first episode of ``episodes`` envs, ``policy`` in ``seat``; per finished episode ``seat``'s return,
    whether it ended at the time limit, and its outcome (0 win, 1 loss, 2 draw); and how many did not finish."""
    env = BatchedEnv(cls, num_envs=episodes, seed=seed, autoreset=False, **config)
    limit = getattr(env.config, LIMIT_KNOB, None)
    limit = int(limit) if isinstance(limit, (int, np.integer)) and not isinstance(limit, bool) else None
    play = _seated(cls, env.rows, seat, policy)
    returns = np.zeros(episodes)
    at_limit = np.zeros(episodes, np.bool_)
    metrics = np.zeros((episodes, max(1, len(cls.metrics))))
    open_ = np.ones(episodes, np.bool_)
    for _ in range(max_steps):
        env.step(play(env))
        ended = env.done & open_
        if ended.any():
            idx = np.flatnonzero(ended)
            returns[idx] = env.records["ep_return"][idx, seat]
            metrics[idx] = env.records["metrics"][idx]
            at_limit[idx] = env.truncations[idx * cls.num_agents + seat]
            if limit is not None:
                at_limit[idx] |= env.records["tick"][idx] >= limit
            open_ &= ~ended
            if not open_.any():
                break
    done = ~open_
    outcome = cls.outcome(seat, returns[done], metrics[done, : len(cls.metrics)])
    return returns[done], at_limit[done], np.asarray(outcome), int(open_.sum())


def _mean(x: np.ndarray) -> str:
    return f"{x.mean():+.3f} (n={len(x)})" if len(x) else "- (n=0)"


def stall_audit(
    report: Report,
    cls,
    config: dict,
    seed: int,
    episodes: int = 200,
    max_steps: int | None = None,
    most_variants: int = 16,
) -> None:
    """Per audited seat, warn with the figures when a policy's time-limit endings (not won) pay that seat more
    than its losses before the limit (see the module docstring)."""
    cfg = make_config(cls, config)
    if max_steps is None:
        limit = getattr(cfg, LIMIT_KNOB, None)
        max_steps = int(limit) + 1 if isinstance(limit, (int, np.integer)) and not isinstance(limit, bool) else 5000
    for seat in audited_seats(cls, config):
        _audit_seat(report, cls, config, seed, seat, episodes, max_steps, most_variants)


def _audit_seat(
    report: Report, cls, config: dict, seed: int, seat: int, episodes: int, max_steps: int, most_variants: int
) -> None:
    where = f"stall audit ({cls.seats[seat]})" if cls.num_agents > 1 else "stall audit"
    best = f"scripted:{cls.best_scripted}"
    policies = sorted(_policies(cls, episodes * cls.num_agents), key=lambda p: p[0] != best)  # the best first
    if cls.best_scripted:
        policies += _without(cls, cls.best_scripted, most_variants)
    rows, warned, limits, unfinished = [], [], 0, 0
    for name, policy in policies:
        r, lim, out, left = first_endings(cls, config, seed, seat, policy, episodes, max_steps)
        unfinished += left
        limits += int(lim.sum())
        if name == best and len(lim) and lim.mean() >= GAME_LENGTH:
            report.add(
                where,
                "pass",
                f"the time limit is the game's length: {name} plays to it in "
                f"{lim.mean():.0%} of {len(lim)} episodes, so there is no sooner end to compare with",
            )
            return
        stalled, lost = r[lim & (out != 0)], r[~lim & (out == 1)]
        if len(stalled) == 0:
            continue
        line = f"{name}: time limit {_mean(stalled)}, loss before it {_mean(lost)}"
        rows.append(line)
        if len(lost) == 0:
            continue
        spread = np.var(r, ddof=1) if len(r) > 1 else 0.0
        half = 1.96 * math.sqrt(spread / len(stalled) + spread / len(lost))
        if stalled.mean() - lost.mean() > max(MARGIN, half):
            warned.append(line)
    note = f"; {unfinished} episodes did not end in {max_steps} steps" if unfinished else ""
    if warned:
        report.add(
            where,
            "warn",
            "reaching the time limit pays more than losing sooner, so a policy that avoids "
            f"the end scores better than one that ends the same way sooner: {'; '.join(warned)}{note}",
        )
    elif limits == 0:
        report.add(where, "pass", f"no episode of {len(policies)} policies reached the time limit{note}")
    else:
        report.add(where, "pass", f"the time limit never pays more than losing sooner: {'; '.join(rows)}{note}")

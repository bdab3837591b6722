"""Reward audit: in each seat, trivial policies next to the env's best scripted policy, the other seats played by
that scripted policy or by the env itself."""

from __future__ import annotations

import math

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions
from sparring.kit.check.report import Report
from sparring.kit.config import make_config


def _policies(cls, rows: int, max_constants: int = 12):
    """(name, function of env -> actions) for noop, random, constant actions and scripted policies."""
    n_heads = len(cls.actions.sizes)
    rng = np.random.default_rng(0)
    out = [
        ("noop", lambda env: np.zeros((rows, n_heads), np.int32)),
        ("random", lambda env: allowed_actions(env.mask, env.heads.sizes, rng.random((rows, n_heads)))),
    ]
    constants = [(h, v) for h, size in enumerate(cls.actions.sizes) for v in range(1, int(size))]
    for h, v in constants[:max_constants]:
        act = np.zeros((rows, n_heads), np.int32)
        act[:, h] = v
        out.append((f"always {cls.actions.names[h]}={v}", lambda env, a=act: a))
    for name in cls.scripted:
        out.append((f"scripted:{name}", lambda env, n=name: env.scripted_actions(n)))
    return out


def episode_returns(env: BatchedEnv, policy, episodes: int, max_steps: int, seat: int = 0) -> np.ndarray:
    """``seat``'s return in the first ``episodes`` episodes that finish within ``max_steps`` steps.

    ``env`` must not auto-reset: a finished env is read, then restarted here.
    """
    returns: list[float] = []
    for _ in range(max_steps):
        env.step(policy(env))
        if env.done.any():
            ended = np.flatnonzero(env.done)
            returns.extend(env.records["ep_return"][ended, seat].tolist())
            if len(returns) >= episodes:
                break
            env.reset_envs(ended)
    return np.asarray(returns[:episodes])


def _seated(cls, rows: int, seat: int, policy):
    """``policy`` in ``seat``; every other seat plays the env's best scripted policy (random without one)."""
    n_heads = len(cls.actions.sizes)
    rng = np.random.default_rng(1)
    mine = np.arange(rows) % cls.num_agents == seat

    def others(env):
        if cls.best_scripted:
            return env.scripted_actions(cls.best_scripted)
        return allowed_actions(env.mask, env.heads.sizes, rng.random((rows, n_heads)))

    def play(env):
        out = others(env).copy() if cls.num_agents > 1 else np.zeros((rows, n_heads), np.int32)
        out[mine] = policy(env)[mine]
        return out

    return play


def audited_seats(cls, config: dict, most: int = 4) -> tuple[int, ...]:
    """The seats the audit plays: every seat taken from outside, or only the first when there are more than
    ``most`` (many alike characters, as in town)."""
    learner = tuple(cls.learner_seats(make_config(cls, config)))
    return learner if len(learner) <= most else learner[:1]


def reward_audit(
    report: Report, cls, config: dict, seed: int, episodes: int = 200, num_envs: int = 32, max_steps: int = 5000
) -> None:
    """Per audited seat (:func:`audited_seats`), its mean return with a 95% interval per policy, the other seats
    played by the env's best scripted policy (or the env itself); warn when a trivial one matches the best
    scripted in that seat."""
    for seat in audited_seats(cls, config):
        _audit_seat(report, cls, config, seed, seat, episodes, num_envs, max_steps)


def _audit_seat(
    report: Report, cls, config: dict, seed: int, seat: int, episodes: int, num_envs: int, max_steps: int
) -> None:
    rows = num_envs * cls.num_agents
    where = f"reward audit ({cls.seats[seat]})" if cls.num_agents > 1 else "reward audit"
    stats = {}
    for name, policy in _policies(cls, rows):
        env = BatchedEnv(cls, num_envs=num_envs, seed=seed, autoreset=False, **config)
        r = episode_returns(env, _seated(cls, rows, seat, policy), episodes, max_steps, seat)
        if len(r) == 0:
            report.add(
                where, "warn", f"policy {name!r} finished no episode in {max_steps} steps: is there a time limit?"
            )
            continue
        half = 1.96 * r.std(ddof=1) / math.sqrt(len(r)) if len(r) > 1 else float("inf")
        stats[name] = (r.mean(), half, len(r))
    table = "; ".join(f"{n} {m:+.3f}±{h:.3f} (n={k})" for n, (m, h, k) in stats.items())
    best = f"scripted:{cls.best_scripted}" if cls.best_scripted else None
    if best is None or best not in stats:
        report.add(where, "warn", f"no best scripted policy to compare against; mean returns: {table}")
        return
    b_mean, b_half, _ = stats[best]
    trivial = [n for n in stats if not n.startswith("scripted:")]
    matched = [n for n in trivial if stats[n][0] + stats[n][1] >= b_mean - b_half]
    if matched:
        report.add(
            where,
            "warn",
            f"trivial policies {matched} score as well as {best} "
            f"(intervals overlap): is the reward honest? mean returns: {table}",
        )
    else:
        report.add(where, "pass", f"{best} beats every trivial policy; mean returns: {table}")

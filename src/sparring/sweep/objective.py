"""One trial of a sweep or an ablation: train PPO in-process for a budget, then score the policy by evaluation."""

from __future__ import annotations

from collections.abc import Callable

import torch

from sparring.evaluate.episodes import play_episodes, summarize
from sparring.players.network import NetworkPlayer
from sparring.players.opponents import resolve_seats, seat_players
from sparring.kit import BatchedEnv, registry
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer

EVAL_SEED = 12345  # the seed `sparring eval` uses by default: no training run sees these episodes
BUILTIN_METRICS = ("win_rate", "episode_return", "episode_length")


def metric_names(env_cls) -> list[str]:
    """Metrics a trial can be scored by: win rate, episode return and length, and the env's episode metrics."""
    return [*BUILTIN_METRICS, *env_cls.metrics]


def check_metric(env_cls, metric: str) -> str:
    """``metric`` if the env can be scored by it, else a ValueError listing the valid ones."""
    if metric not in metric_names(env_cls):
        valid = ", ".join(metric_names(env_cls))
        raise ValueError(f"unknown metric {metric!r} for env {env_cls.name!r}; valid: {valid}")
    return metric


def score(trainer: Trainer, metric: str, episodes: int, seed: int = EVAL_SEED) -> float:
    """``metric`` of ``trainer``'s policy over ``episodes`` fresh episodes (same seed for every trial)."""
    env_cls = trainer.env.env_cls
    env_config, other, assigned = resolve_seats(env_cls, trainer.seats, trainer.opponent_name, trainer.env_config)
    env = BatchedEnv(env_cls, num_envs=min(128, episodes), seed=seed, autoreset=False, **env_config)
    player, mirror = NetworkPlayer(trainer.policy, "trainer"), NetworkPlayer(trainer.policy, "self")
    data = play_episodes(env, seat_players(env, player, other, mirror, assigned, seed), episodes)
    report = summarize(env_cls, data)
    return float(report["win"]["rate"] if metric == "win_rate" else report["means"][metric])


def train_and_score(
    env_name: str,
    train_overrides: dict,
    env_config: dict | None = None,
    opponent: str | None = None,
    metric: str = "win_rate",
    episodes: int = 256,
    rungs: int = 1,
    report: Callable[[float, int], None] | None = None,
    on_iteration: Callable[[float], None] | None = None,
) -> float:
    """Train with ``train_overrides`` (a budget among them), scoring ``rungs`` times at equal budget fractions.

    After each scoring ``report(value, rung)`` is called (it may raise to prune the trial);
    the value of the last rung is returned. ``on_iteration(fraction)`` is called after each
    training iteration with the part of the budget used (for a progress display). Nothing is
    written to disk.
    """
    env_cls = registry.get(env_name)
    check_metric(env_cls, metric)
    if rungs < 1 or episodes < 1:
        raise ValueError(f"rungs and episodes must be >= 1, got rungs={rungs}, episodes={episodes}")
    cfg = make_train_config(env_cls, {"eval_episodes": 0, "tensorboard": False, **train_overrides})
    if cfg.steps <= 0 and cfg.minutes <= 0:
        raise ValueError("a trial needs a budget: train.steps or train.minutes")
    threads = torch.get_num_threads()
    trainer = Trainer(env_name, cfg, env_config, opponent)
    value = float("nan")
    try:
        for rung in range(1, rungs + 1):
            while trainer.progress() < rung / rungs and not trainer.finished():
                trainer.iterate()
                if on_iteration is not None:
                    on_iteration(trainer.progress())
            value = score(trainer, metric, episodes)
            if report is not None:
                report(value, rung)
    finally:
        trainer.close()
        torch.set_num_threads(threads)  # the Trainer sets the process-wide thread count
    return value

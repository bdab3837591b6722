"""Play the first episode of every env with one of the env's scripted policies (ladders, benchmarks)."""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv


def first_episodes(env_cls: type, policy: str, episodes: int, seed: int = 0, **config) -> dict:
    """Run ``episodes`` envs of ``env_cls`` without auto-reset, every agent playing scripted ``policy``,
    until each env's first episode ends.

    Returns per episode: ``metrics`` (float64 [episodes, metrics], columns in ``env_cls.metrics``
    order), ``phase`` (the phase index it ended in) and ``ticks`` (its length).
    """
    env = BatchedEnv(env_cls, num_envs=episodes, seed=seed, autoreset=False, **config)
    metrics = np.zeros((episodes, len(env_cls.metrics)), np.float64)
    phase = np.zeros(episodes, np.int64)
    ticks = np.zeros(episodes, np.int64)
    open_ = np.ones(episodes, np.bool_)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    while open_.any():
        env.scripted_actions(policy, out=acts)
        env.step(acts)
        ended = env.done & open_
        metrics[ended] = env.records["metrics"][ended]
        phase[ended] = env.records["phase"][ended]
        ticks[ended] = env.records["tick"][ended]
        open_ &= ~env.done
    return {"metrics": metrics, "phase": phase, "ticks": ticks}

"""Fights of a scripted player, for the scripted-player test and ``benchmarks/serpent_scripted.py``."""

from __future__ import annotations

from collections import Counter

import numpy as np

from sparring.kit.batch import BatchedEnv


def fights(policy: str, episodes: int, seed: int = 0, **config) -> dict:
    """Play the first fight of each of ``episodes`` envs with the scripted player ``policy``.

    Returns the counts ``kills``, ``deaths`` and ``timeouts``, ``episodes``, the
    mean of every episode metric (``metrics``), the mean kill time over kills
    (``kill_time``, None without a kill) and the phase labels of the deaths
    (``death_phases``, a Counter).
    """
    from sparring.envs.serpent.env import Serpent

    env = BatchedEnv(Serpent, num_envs=episodes, seed=seed, autoreset=False, **config)
    names = list(Serpent.metrics)
    metrics = np.zeros((episodes, len(names)), np.float64)
    phase = np.zeros(episodes, np.int64)
    open_ = np.ones(episodes, np.bool_)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    while open_.any():
        env.scripted_actions(policy, out=acts)
        env.step(acts)
        ended = env.done & open_
        metrics[ended] = env.records["metrics"][ended]
        phase[ended] = env.records["phase"][ended]
        open_ &= ~env.done
    win, draw = metrics[:, names.index("win")] > 0.5, metrics[:, names.index("draw")] > 0.5
    died = ~win & ~draw
    return {"policy": policy, "episodes": episodes, "kills": int(win.sum()), "deaths": int(died.sum()),
            "timeouts": int(draw.sum()),
            "kill_time": float(metrics[win, names.index("kill_time")].mean()) if win.any() else None,
            "metrics": {n: float(metrics[:, k].mean()) for k, n in enumerate(names)},
            "death_phases": Counter(Serpent.phases[p] for p in phase[died])}

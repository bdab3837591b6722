"""State sets of `gauntlet`: records at wave k, for curricula and for ``BatchedEnv.set_reset_pool``.

Three builders: :func:`worn_states` draws records from the reset kernel with
``start_wave=k`` (a player worn in proportion to the waves behind it, pillars
damaged or down); :func:`scripted_states` plays a scripted player from wave 1
and keeps each run's record on the tick wave k begins (its real hp, doses and
pillars, its metrics so far); :func:`arrival_states` does that for every wave at
once (``benchmarks/gauntlet_states.py`` saves its result as a state set). Any
result loads with ``env.set_reset_pool(records, prob)`` or ``env.restore(indices, records)``.
"""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv


def _check_wave(wave: int) -> None:
    from sparring.envs.gauntlet.world import WAVES

    if not isinstance(wave, (int, np.integer)) or not 1 <= wave <= WAVES:
        raise ValueError(f"wave must be an int in 1..{WAVES}, got {wave!r}")


def worn_states(wave: int, n: int, seed: int = 0, **config) -> np.ndarray:
    """``n`` fresh records at ``wave`` drawn by the reset kernel (``start_wave=wave``)."""
    from sparring.envs.gauntlet.env import Gauntlet

    _check_wave(wave)
    config = {**config, "start_wave": wave, "start_spread": 0}
    return BatchedEnv(Gauntlet, num_envs=n, seed=seed, **config).snapshot()


def scripted_states(
    wave: int, n: int, policy: str = "competent", seed: int = 0, num_envs: int = 256, max_steps: int = 20000, **config
) -> np.ndarray:
    """Up to ``n`` records of scripted runs on the tick they reached ``wave`` (one per run; fresh ones for wave 1).

    Runs that die sooner are replaced by new ones; stops after ``max_steps``
    batched steps, so a wave the player rarely reaches may give fewer than ``n``.
    """
    from sparring.envs.gauntlet.env import Gauntlet

    _check_wave(wave)
    if wave == 1:
        return worn_states(1, n, seed, **config)
    env = BatchedEnv(Gauntlet, num_envs=num_envs, seed=seed, **config)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    kept, count = [], 0
    for _ in range(max_steps):
        if count >= n:
            break
        before = env.records["wave"].copy()
        env.scripted_actions(policy, out=acts)
        env.step(acts)
        arrived = (env.records["wave"] == wave) & (before == wave - 1) & ~env.done
        if arrived.any():
            kept.append(env.records[arrived])
            count += int(arrived.sum())
    return np.concatenate(kept)[:n] if kept else np.zeros(0, Gauntlet.record_dtype)


def arrival_states(per_wave: int, policy="expert", seed: int = 0, runs: int | None = None, **config) -> np.ndarray:
    """Up to ``per_wave`` records of a player's runs at every wave, each on the tick its run reached that wave.

    ``policy``: a scripted player's name, or a function ``policy(env, acts)`` that fills ``acts`` for every row
    of the batch ``env`` (e.g. a trained network's, which this module cannot load itself).

    ``runs`` runs (``2 * per_wave`` by default) play from ``config``'s start (wave 1 by default) to their end,
    and every run's record is kept on arriving at each wave (its fresh start counts as arriving at its first
    wave); then each wave keeps a uniform draw of ``per_wave`` of its arrivals (all of them where it has fewer),
    so no wave favours the runs that got there first. A wave the player rarely reaches may have few or none.
    Records come ordered by wave.
    """
    from sparring.envs.gauntlet.env import Gauntlet
    from sparring.envs.gauntlet.world import WAVES

    runs = 2 * per_wave if runs is None else runs
    for name, value in (("per_wave", per_wave), ("runs", runs)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    env = BatchedEnv(Gauntlet, num_envs=runs, seed=seed, autoreset=False, **config)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    kept = [env.records.copy()]
    open_ = np.ones(runs, np.bool_)
    while open_.any():
        before = env.records["wave"].copy()
        if callable(policy):
            policy(env, acts)
        else:
            env.scripted_actions(policy, out=acts)
        env.step(acts)
        arrived = open_ & ~env.done & (env.records["wave"] > before)
        if arrived.any():
            kept.append(env.records[arrived])
        open_ &= ~env.done
    arrivals = np.concatenate(kept)
    pick = np.random.default_rng(seed)  # which arrivals to keep; the runs' own dice are in their records
    chosen = []
    for w in range(1, WAVES + 1):
        at = np.flatnonzero(arrivals["wave"] == w)
        chosen.append(np.sort(pick.choice(at, per_wave, replace=False)) if len(at) > per_wave else at)
    return arrivals[np.concatenate(chosen)]

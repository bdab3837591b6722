"""Runs of a scripted player, for the scripted-player tests and ``benchmarks/gauntlet_scripted.py``."""

from __future__ import annotations

from collections import Counter

import numpy as np

from sparring.kit.scripted_episodes import first_episodes


def runs(policy: str, episodes: int, seed: int = 0, **config) -> dict:
    """Play the first run of each of ``episodes`` envs with the scripted player ``policy``.

    Returns ``clears``, ``deaths``, ``timeouts``, ``episodes``, the wave each run
    reached (``waves``, an array), the mean of every episode metric
    (``metrics``), the mean length in ticks (``ticks``) and the phase labels of the
    deaths (``death_phases``, a Counter).
    """
    from sparring.envs.gauntlet.env import Gauntlet

    played = first_episodes(Gauntlet, policy, episodes, seed, **config)
    names, metrics, phase, ticks = list(Gauntlet.metrics), played["metrics"], played["phase"], played["ticks"]
    clear = metrics[:, names.index("win")] > 0.5
    timed_out = metrics[:, names.index("timed_out")] > 0.5
    died = ~clear & ~timed_out
    return {"policy": policy, "episodes": episodes, "clears": int(clear.sum()), "deaths": int(died.sum()),
            "timeouts": int(timed_out.sum()), "waves": metrics[:, names.index("wave")].astype(np.int64),
            "ticks": float(ticks.mean()), "metrics": {n: float(metrics[:, k].mean()) for k, n in enumerate(names)},
            "death_phases": Counter(Gauntlet.phases[p] for p in phase[died])}


def wave_table(waves: np.ndarray, total: int) -> list[tuple[int, int, float]]:
    """(wave, runs that ended there, fraction that reached it) for every wave from the lowest reached."""
    counts = np.bincount(waves, minlength=total + 1)
    reached = np.cumsum(counts[::-1])[::-1]
    return [(w, int(counts[w]), reached[w] / len(waves)) for w in range(int(waves.min()), total + 1)]

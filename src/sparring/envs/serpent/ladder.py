"""Fights of a scripted player, for the scripted-player test and ``benchmarks/serpent_scripted.py``."""

from __future__ import annotations

from collections import Counter

from sparring.kit.scripted_episodes import first_episodes


def fights(policy: str, episodes: int, seed: int = 0, **config) -> dict:
    """Play the first fight of each of ``episodes`` envs with the scripted player ``policy``.

    Returns the counts ``kills``, ``deaths`` and ``timeouts``, ``episodes``, the
    mean of every episode metric (``metrics``), the mean kill time over kills
    (``kill_time``, None without a kill) and the phase labels of the deaths
    (``death_phases``, a Counter).
    """
    from sparring.envs.serpent.env import Serpent

    played = first_episodes(Serpent, policy, episodes, seed, **config)
    names, metrics, phase = list(Serpent.metrics), played["metrics"], played["phase"]
    win, draw = metrics[:, names.index("win")] > 0.5, metrics[:, names.index("draw")] > 0.5
    died = ~win & ~draw
    return {"policy": policy, "episodes": episodes, "kills": int(win.sum()), "deaths": int(died.sum()),
            "timeouts": int(draw.sum()),
            "kill_time": float(metrics[win, names.index("kill_time")].mean()) if win.any() else None,
            "metrics": {n: float(metrics[:, k].mean()) for k, n in enumerate(names)},
            "death_phases": Counter(Serpent.phases[p] for p in phase[died])}

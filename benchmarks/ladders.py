"""Scripted-player matches and runs: what the ladder benchmarks print and the env tests assert.

Measurement code, not env code: ``benchmarks/duel_ladder.py``,
``benchmarks/serpent_scripted.py`` and ``benchmarks/gauntlet_scripted.py``
print these figures; ``tests/envs`` (whose conftest puts this folder on the
import path) checks the ladder order with them.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from sparring.envs.duel.env import Duel
from sparring.envs.gauntlet.env import Gauntlet
from sparring.envs.gauntlet.world import (
    DRINK_HEAL,
    DRINK_RESTORE,
    HEAL_HP,
    MAX_HP,
    NO_SUPPLY,
    PRAY_MAX,
    RESTORE_PP,
    SUPPLY,
    WAVES,
)
from sparring.envs.serpent.env import Serpent
from sparring.kit.batch import BatchedEnv
from sparring.kit.scripted_episodes import first_episodes

# (stronger seat-1 opponent, its foresight, weaker seat-0 policy)
DUEL_PAIRINGS = (
    ("reactive", 0.0, "random"),
    ("tribrid", 0.0, "reactive"),
    ("robot", 0.0, "tribrid"),
    ("robot", 0.0, "random"),
    ("robot", 0.5, "robot"),
)


def duel_match(
    low: str, high: str, episodes: int, seed: int = 0, foresight: float = 0.0, max_ticks: int | None = None
) -> dict:
    """Play ``episodes`` first episodes of duel tier ``high`` (seat 1, inside the env) against ``low`` (seat 0).

    Each env of a batch of ``episodes`` contributes its first episode, so short
    and long fights count alike. Returns the fractions ``high``, ``low`` (won by
    that side by knockout), ``draw`` (a double knockout) and ``timeout`` (the tick
    limit: a loss for both), and the mean ``ticks``.
    """
    config = {"opponent": high, "foresight": foresight}
    if max_ticks is not None:
        config["max_ticks"] = max_ticks
    env = BatchedEnv(Duel, num_envs=episodes, seed=seed, autoreset=False, **config)
    metrics = np.zeros((episodes, len(Duel.metrics)), np.float64)
    ticks = np.zeros(episodes, np.float64)
    open_ = np.ones(episodes, np.bool_)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    while open_.any():
        tick = env.records["tick"] + 1
        env.scripted_actions(low, out=acts)
        env.step(acts)
        ended = env.done & open_
        metrics[ended] = env.records["metrics"][ended]
        ticks[ended] = tick[ended]
        open_ &= ~env.done
    names = list(Duel.metrics)
    low_won, draw, timeout = (metrics[:, names.index(n)] > 0.5 for n in ("win", "draw", "timed_out"))
    return {
        "high": float(np.mean(~low_won & ~draw & ~timeout)),
        "low": float(np.mean(low_won)),
        "draw": float(np.mean(draw)),
        "timeout": float(np.mean(timeout)),
        "ticks": float(ticks.mean()),
    }


def duel_table(episodes: int, seed: int = 0) -> list[tuple[str, dict]]:
    """Every pairing of :data:`DUEL_PAIRINGS` as (label, :func:`duel_match` result)."""
    rows = []
    for high, foresight, low in DUEL_PAIRINGS:
        label = f"{high}{f' (foresight {foresight})' if foresight else ''} vs {low}"
        rows.append((label, duel_match(low, high, episodes, seed, foresight)))
    return rows


def serpent_fights(policy: str, episodes: int, seed: int = 0, **config) -> dict:
    """Play the first serpent fight of each of ``episodes`` envs with the scripted player ``policy``.

    Returns the counts ``kills``, ``deaths`` and ``timeouts``, ``episodes``, the
    mean of every episode metric (``metrics``), the mean kill time over kills
    (``kill_time``, None without a kill) and the phase labels of the deaths
    (``death_phases``, a Counter).
    """
    played = first_episodes(Serpent, policy, episodes, seed, **config)
    names, metrics, phase = list(Serpent.metrics), played["metrics"], played["phase"]
    win, timed_out = metrics[:, names.index("win")] > 0.5, metrics[:, names.index("timed_out")] > 0.5
    died = ~win & ~timed_out
    return {
        "policy": policy,
        "episodes": episodes,
        "kills": int(win.sum()),
        "deaths": int(died.sum()),
        "timeouts": int(timed_out.sum()),
        "kill_time": float(metrics[win, names.index("kill_time")].mean()) if win.any() else None,
        "metrics": {n: float(metrics[:, k].mean()) for k, n in enumerate(names)},
        "death_phases": Counter(Serpent.phases[p] for p in phase[died]),
    }


def _gauntlet_actor(policy: str, env: BatchedEnv, frugal: bool = False, seed: int = 0):
    """A function that fills ``acts`` for every row of ``env``: the scripted player ``policy``, or for
    ``checkpoint:RUN`` the checkpoint's policy (its actions sampled from torch's generator seeded with ``seed``, as
    training plays); ``frugal``: a dose the
    checkpoint's policy drinks with more than ``MAX_HP - HEAL_HP`` hp (``PRAY_MAX - RESTORE_PP`` prayer) becomes
    no dose, to measure what its wasted doses cost."""
    if not policy.startswith("checkpoint:"):
        return lambda acts: env.scripted_actions(policy, out=acts)
    import torch

    from sparring.players.load import load_policy

    net, _ = load_policy(policy.split(":", 1)[1], "gauntlet", env=env)
    torch.manual_seed(seed)  # the sampling noise, as checkpoint players seed it: a rerun plays the same runs
    memory = [net.initial_state(env.rows)]

    def act(acts: np.ndarray) -> None:
        with torch.inference_mode():
            actions, _, _, memory[0] = net.act(torch.from_numpy(env.obs), torch.from_numpy(env.mask), memory[0], None)
        acts[:] = actions.numpy()
        if frugal:
            supply, r = acts[:, SUPPLY], env.records
            supply[(supply == DRINK_HEAL) & (r["hp"] > MAX_HP - HEAL_HP)] = NO_SUPPLY
            supply[(supply == DRINK_RESTORE) & (r["pp"] > PRAY_MAX - RESTORE_PP)] = NO_SUPPLY

    return act


def gauntlet_runs(policy: str, episodes: int, seed: int = 0, frugal: bool = False, **config) -> dict:
    """Play the first gauntlet run of each of ``episodes`` envs with ``policy``: a scripted player's name, or
    ``checkpoint:RUN`` (a trained policy, sampled; with ``frugal`` its doses above the point where they would
    waste some are refused).

    Returns ``clears``, ``deaths``, ``timeouts``, ``episodes``, the wave each run
    reached (``waves``, an array), which runs were cleared (``cleared``, bool), the
    mean of every episode metric (``metrics``), the mean length in ticks (``ticks``),
    the phase labels of the deaths (``death_phases``, a Counter), the wall time
    (``seconds``), what the runs had on arriving at each wave (``arrivals``: per
    wave 0..30, the number of runs that arrived and their mean ``hp``, ``pp``,
    ``heals``, ``restores`` and ``tick``; a run's first wave counts as arrived at its
    start), the share of all played ticks spent in each wave (``time``), and the heal
    doses drunk in all (``heals``) and with more than ``MAX_HP - HEAL_HP`` hp, so that
    part of the dose was wasted (``overheals``).
    """
    start = time.perf_counter()
    env = BatchedEnv(Gauntlet, num_envs=episodes, seed=seed, autoreset=False, **config)
    act = _gauntlet_actor(policy, env, frugal, seed)
    names = list(Gauntlet.metrics)
    metrics = np.zeros((episodes, len(names)), np.float64)
    phase, ticks = np.zeros(episodes, np.int64), np.zeros(episodes, np.int64)
    fields = ("hp", "pp", "heals", "restores", "tick")
    sums = np.zeros((len(fields), WAVES + 1), np.float64)
    count, played = np.zeros(WAVES + 1, np.int64), np.zeros(WAVES + 1, np.int64)
    heals = overheals = 0

    def arrive(rows: np.ndarray) -> None:
        waves = env.records["wave"][rows]
        np.add.at(count, waves, 1)
        for f, field in enumerate(fields):
            np.add.at(sums[f], waves, env.records[field][rows])

    open_ = np.ones(episodes, np.bool_)
    arrive(np.arange(episodes))
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    while open_.any():
        before = env.records[["wave", "hp", "heals"]].copy()
        np.add.at(played, before["wave"][open_], 1)
        act(acts)
        env.step(acts)
        drank = open_ & (env.records["heals"] < before["heals"])
        heals += int(drank.sum())
        overheals += int((drank & (before["hp"] > MAX_HP - HEAL_HP)).sum())
        arrive(np.flatnonzero(open_ & ~env.done & (env.records["wave"] > before["wave"])))
        ended = env.done & open_
        metrics[ended] = env.records["metrics"][ended]
        phase[ended] = env.records["phase"][ended]
        ticks[ended] = env.records["tick"][ended]
        open_ &= ~env.done
    clear = metrics[:, names.index("win")] > 0.5
    timed_out = metrics[:, names.index("timed_out")] > 0.5
    died = ~clear & ~timed_out
    means = sums / np.maximum(count, 1)
    return {
        "policy": policy + (" (frugal)" if frugal and policy.startswith("checkpoint:") else ""),
        "episodes": episodes,
        "clears": int(clear.sum()),
        "deaths": int(died.sum()),
        "timeouts": int(timed_out.sum()),
        "waves": metrics[:, names.index("wave")].astype(np.int64),
        "cleared": clear,
        "ticks": float(ticks.mean()),
        "metrics": {n: float(metrics[:, k].mean()) for k, n in enumerate(names)},
        "death_phases": Counter(Gauntlet.phases[p] for p in phase[died]),
        "arrivals": {"count": count, **{field: means[f] for f, field in enumerate(fields)}},
        "time": played / max(played.sum(), 1),
        "heals": heals,
        "overheals": overheals,
        "seconds": time.perf_counter() - start,
    }


def gauntlet_passive(episodes: int, seed: int = 0, **config) -> dict:
    """The first gauntlet run of each of ``episodes`` envs with a player who never acts (every head 0).

    Returns ``episodes``, ``timeouts`` (runs that reached the tick limit), ``unhurt`` (runs in which it took no
    damage), ``cleared`` (runs whose first wave was cleared without it, by a falling pillar) and the mean ``ticks``.
    """
    env = BatchedEnv(Gauntlet, num_envs=episodes, seed=seed, autoreset=False, **config)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    while not env.done.all():
        env.step(acts)
    names, metrics = list(Gauntlet.metrics), env.records["metrics"]
    taken = metrics[:, names.index("taken_melee") : names.index("taken_melee") + 6].sum(1)
    first = int(env.config.start_wave)  # with start_spread 0, every run's first wave
    return {
        "episodes": episodes,
        "timeouts": int((metrics[:, names.index("timed_out")] > 0.5).sum()),
        "unhurt": int((taken == 0).sum()),
        "cleared": int((metrics[:, names.index("wave")] > first).sum()),
        "ticks": float(env.records["tick"].mean()),
    }


def wave_table(waves: np.ndarray, total: int) -> list[tuple[int, int, float]]:
    """(wave, runs that ended there, fraction that reached it) for every wave from the lowest reached."""
    counts = np.bincount(waves, minlength=total + 1)
    reached = np.cumsum(counts[::-1])[::-1]
    return [(w, int(counts[w]), reached[w] / len(waves)) for w in range(int(waves.min()), total + 1)]

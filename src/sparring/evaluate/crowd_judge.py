"""The judge of many-seat envs (town): a focal brain plays some seats of every episode, a background brain the
others.

Each (focal, background) pairing plays its episodes with the focal brain on ``focal`` consecutive
seats, the block rotating with the env (env ``e`` starts it at seat ``e % n``), so no brain keeps
the same seats (town: homes). Figures per pairing, for the focal and the background seats apart:
the success rate (``goal_rate``; the env's text face says what success is, town: its goal
completed) and the share still acting at the end (``survival``; town: not fainted) per seat with
95% Wilson intervals (seats of one episode share it, so when their outcomes move together the
interval is somewhat narrow); the env tally's per-seat counts (:mod:`sparring.kit.tally`; town:
trades taken part in and gifts given), a mean per episode over the group's seats with a 95%
bootstrap interval over episodes; the tally's episode-wide metrics (town: trades per town, the
coins' Gini coefficient at the end) likewise. The cross-play matrix is the focal seats' success
rate per pairing.

Ratings: each episode is rated as paired two-player games between the focal and the background
brain, not as one free-for-all or team match. Its focal and background seats are matched one to
one at random (``min(focal, n - focal)`` pairs); a pair is a win for the brain whose seat
succeeded while the other's did not, else a draw. Ranking the two groups by their share of
successes would favour the smaller group whenever most succeed (one focal character among seven
comes first every time it succeeds and any of the seven fails), so two copies of one brain would
get different ratings; paired games are symmetric. A pairing of a brain with itself gives figures
but no games.
"""

from __future__ import annotations

import numpy as np

from sparring.evaluate.matchup import Tallied, batch_size, keep_finished, play_pair
from sparring.evaluate.ratings import rate
from sparring.kit import BatchedEnv
from sparring.kit.progress import silent
from sparring.kit.stats import bootstrap_ci, wilson_interval
from sparring.kit.tally import SeatTally


def judge_crowd(
    env_cls,
    config: dict,
    focal: list[str],
    backgrounds: list[str],
    episodes: int,
    focal_count: int | None = None,
    seed: int = 12345,
    num_envs: int = 256,
    greedy: bool = False,
    model_options: dict | None = None,
    progress=None,
    emergence: bool = False,
) -> dict:
    """Every focal brain against every background brain (player specs), ``episodes`` episodes each, the focal
    brain on ``focal_count`` seats (default: half). ``config`` must leave every seat to be played from outside.
    Returns the pairings' figures, the cross-play matrix and the ratings of every brain; ``emergence`` adds
    each pairing's figures of the env's declared analysis (``env_cls.emergence``; town: work, division of
    labour, trade network, prices and goal rates per character). Ctrl-C after the first pairing reports the
    pairings finished (``interrupted`` True, the others' cells None)."""
    n = env_cls.num_agents
    k = n // 2 if focal_count is None else focal_count
    if not 1 <= k <= n - 1:
        raise ValueError(f"--focal must be in [1, {n - 1}] for {n} seats (the rest are background), got {k}")
    if episodes < 1:
        raise ValueError(f"episodes per pairing must be >= 1, got {episodes}")
    progress = progress or silent()
    brains = list(dict.fromkeys([*focal, *backgrounds]))
    pairings = [(f, b) for f in focal for b in backgrounds]
    progress.start(len(pairings) * episodes, unit="town")
    rng = np.random.default_rng(seed)
    results, games = [], []
    with keep_finished(results, len(pairings), progress, "pairings"):
        for p, (f, b) in enumerate(pairings):
            label = f"{f} among {b}"
            progress.status(f"playing {label}")
            env = BatchedEnv(env_cls, num_envs=batch_size(num_envs, episodes, n), seed=seed, autoreset=False, **config)
            first = focal_seats(env.num_envs, n, k)
            tally = Tallied(env, progress, p * episodes, label)
            data, envs = play_pair(env, (f, b), first, episodes, tally, seed, greedy, model_options)
            chars = tally.arrays()
            mine = first[envs]
            pairing = _pairing(env_cls, f, b, data, chars, mine)
            if emergence:
                progress.status(f"measuring emergence in {label}")
                pairing["emergence"] = env_cls.emergence(chars, mine, seed=seed)
            if f != b:
                games.append(_paired_games(brains.index(f), brains.index(b), chars["success"], mine, rng))
            results.append(pairing)  # last: an interrupted pairing leaves neither its figures nor its games
    a, b, score = (np.concatenate(part) for part in zip(*games)) if games else ([], [], [])
    rates = {(r["focal_brain"], r["background_brain"]): r["focal"]["goal_rate"] for r in results}
    return {
        "kind": "crowd",
        "env": env_cls.name,
        "characters": n,
        "focal_characters": k,
        "focal": list(focal),
        "backgrounds": list(backgrounds),
        "episodes_per_pairing": episodes,
        "seed": seed,
        "pairings": results,
        "interrupted": len(results) < len(pairings),
        "matrix": [[rates.get((f, b)) for b in backgrounds] for f in focal],
        "ratings": rate(brains, a, b, score, seed),
    }


def focal_seats(num_envs: int, characters: int, focal: int) -> np.ndarray:
    """[num_envs, characters] bool, True where the focal brain plays: env ``e`` gives it characters
    ``e % characters`` to ``e % characters + focal - 1`` (wrapping), so the block visits every home."""
    offset = np.arange(num_envs)[:, None] % characters
    return (np.arange(characters)[None, :] - offset) % characters < focal


def _rate(successes: int, trials: int) -> dict:
    return {
        "successes": successes,
        "trials": trials,
        "rate": successes / trials,
        "ci95": list(wilson_interval(successes, trials)),
    }


def _mean(values: np.ndarray) -> dict:
    return {"mean": float(np.mean(values)), "ci95": list(bootstrap_ci(values))}


def _group(tally: type, chars: dict, mask: np.ndarray) -> dict:
    """The figures of the seats ``mask`` picks ([episodes, seats])."""
    size = mask.sum(1)
    return {
        "goal_rate": _rate(int(chars["success"][mask].sum()), int(mask.sum())),
        "survival": _rate(int(chars["standing"][mask].sum()), int(mask.sum())),
        **{key: _mean((chars[name] * mask).sum(1) / size) for key, name in tally.per_seat.items()},
    }


def _pairing(env_cls, focal: str, background: str, data: np.ndarray, chars: dict, mine: np.ndarray) -> dict:
    """One pairing's figures: focal and background seats apart, and the episode-wide ones."""
    names, tally = list(env_cls.metrics), getattr(env_cls, "tally", None) or SeatTally
    return {
        "focal_brain": focal,
        "background_brain": background,
        "towns": len(data),
        "focal": _group(tally, chars, mine),
        "background": _group(tally, chars, ~mine),
        **{key: _mean(data[:, 3 + names.index(metric)]) for key, metric in tally.per_episode.items()},
    }


def _paired_games(f: int, b: int, goal: np.ndarray, mine: np.ndarray, rng) -> tuple:
    """The paired games of every town (see the module's docstring): (first brain, second brain, score)."""
    scores = []
    for done, focal in zip(goal, mine):
        ours, theirs = rng.permutation(np.flatnonzero(focal)), rng.permutation(np.flatnonzero(~focal))
        m = min(len(ours), len(theirs))
        scores.append(0.5 + 0.5 * (done[ours[:m]] - done[theirs[:m]]))
    score = np.concatenate(scores)
    return np.full(len(score), f), np.full(len(score), b), score

"""The judge of a two-seat env: a round robin between brains, each pair playing both seats.

For every pair of brains, half the envs of a batch seat the first brain in seat 0 and half in
seat 1. A game is won by the brain whose seat the env's rule (``Env.outcome``) calls a win while
the other seat's is not; every other game has no winner: a draw (both seats drawn) or both lost
(duel's tick limit). So for every pair ``win(A, B) + win(B, A) + no winner = 1``, and the games
rate as wins, losses and draws (:mod:`sparring.evaluate.ratings`).
"""

from __future__ import annotations

import itertools

import numpy as np

from sparring.evaluate.episodes import seat_outcomes
from sparring.evaluate.matchup import Finished, batch_size, keep_finished, play_pair
from sparring.evaluate.ratings import rate
from sparring.kit.stats import wilson_interval
from sparring.kit import BatchedEnv
from sparring.kit.progress import silent


def round_robin(
    env_cls,
    config: dict,
    brains: list[str],
    episodes: int,
    seed: int = 12345,
    num_envs: int = 256,
    greedy: bool = False,
    model_options: dict | None = None,
    progress=None,
) -> dict:
    """Every pair of ``brains`` (player specs) plays ``episodes`` games, half in each seating; ``config`` must
    have both seats played from outside. Returns the pairs' counts, the cross-play matrix of win rates with 95%
    Wilson intervals (``matrix[i][j]``: brain ``i`` against brain ``j``) and the ratings of every brain. Ctrl-C after
    the first pair reports the pairs finished (``interrupted`` True, the others' cells None)."""
    if len(brains) < 2:
        raise ValueError(f"a round robin needs at least two brains, got {len(brains)}")
    if episodes < 2:
        raise ValueError(f"each pair plays both seats: episodes per pair must be >= 2, got {episodes}")
    progress = progress or silent()
    pairs = list(itertools.combinations(range(len(brains)), 2))
    progress.start(len(pairs) * episodes, unit="game")
    results, games = [], []
    with keep_finished(results, len(pairs), progress, "pairs"):
        for k, (i, j) in enumerate(pairs):
            label = f"{brains[i]} vs {brains[j]}"
            progress.status(f"playing {label}")
            env = BatchedEnv(env_cls, num_envs=batch_size(num_envs, episodes, 2), seed=seed, autoreset=False, **config)
            first = np.zeros((env.num_envs, 2), bool)
            first[np.arange(env.num_envs), np.arange(env.num_envs) % 2] = True  # env e: brain i in seat e % 2
            tracker = Finished(env, progress, k * episodes, label)
            data, envs = play_pair(env, (brains[i], brains[j]), first, episodes, tracker, seed, greedy, model_options)
            a_seat = envs % 2
            seat0, seat1 = seat_outcomes(env_cls, data, 0), seat_outcomes(env_cls, data, 1)
            a_out, b_out = np.where(a_seat == 0, seat0, seat1), np.where(a_seat == 0, seat1, seat0)
            score = np.where((a_out == 0) & (b_out != 0), 1.0, np.where((b_out == 0) & (a_out != 0), 0.0, 0.5))
            games.append((np.full(len(score), i), np.full(len(score), j), score))
            results.append(
                {
                    "a": brains[i],
                    "b": brains[j],
                    "games": len(score),
                    "a_wins": int((score == 1).sum()),
                    "b_wins": int((score == 0).sum()),
                    "draws": int(((score == 0.5) & (a_out == 2) & (b_out == 2)).sum()),
                    "both_lost": int(((score == 0.5) & ~((a_out == 2) & (b_out == 2))).sum()),
                    "a_in_seat0": int((a_seat == 0).sum()),
                }
            )
    a, b, score = (np.concatenate(part) for part in zip(*games))
    return {
        "kind": "round_robin",
        "env": env_cls.name,
        "brains": list(brains),
        "episodes_per_pair": episodes,
        "seed": seed,
        "pairs": results,
        "interrupted": len(results) < len(pairs),
        "matrix": cross_play(brains, results),
        "ratings": rate(brains, a, b, score, seed),
    }


def cross_play(brains: list[str], pairs: list[dict]) -> list[list[dict | None]]:
    """``matrix[i][j]``: brain ``i``'s wins against brain ``j`` over their games, with the rate and its 95%
    Wilson interval; None on the diagonal."""
    index = {name: k for k, name in enumerate(brains)}
    matrix: list[list[dict | None]] = [[None] * len(brains) for _ in brains]
    for pair in pairs:
        i, j, n = index[pair["a"]], index[pair["b"]], pair["games"]
        for row, col, wins in ((i, j, pair["a_wins"]), (j, i, pair["b_wins"])):
            matrix[row][col] = {"wins": wins, "games": n, "rate": wins / n, "ci95": list(wilson_interval(wins, n))}
    return matrix

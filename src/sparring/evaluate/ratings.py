"""Ratings of brains from individual game outcomes, by openskill's Plackett-Luce model (Weng-Lin, 2011).

Every game is a two-player match between two brains: a win, a loss, or a draw (equal ranks).
The brains do not learn while they are judged, so the model's dynamics term is 0 (``tau=0``):
sigma then only shrinks as evidence accumulates. The model updates game by game, so the
games are taken in a seeded random order rather than matchup by matchup (which would let the
last matchup played weigh most). ``ordinal`` is the conservative estimate mu - 3 sigma that
ranks the brains.
"""

from __future__ import annotations

import numpy as np


def rate(brains: list[str], a, b, score, seed: int = 0) -> list[dict]:
    """Ratings of ``brains`` from games ``a[k]`` vs ``b[k]`` (indices into ``brains``) with ``score[k]`` 1 (a
    won), 0 (b won) or 0.5 (a draw); a list of ``{brain, mu, sigma, ordinal, rank, games}``, best first."""
    from openskill.models import PlackettLuce  # lazy: only a judge needs it

    a, b, score = (np.asarray(x) for x in (a, b, score))
    if not len(a) == len(b) == len(score):
        raise ValueError(f"rate needs as many scores as games, got {len(a)}, {len(b)} and {len(score)}")
    if len(a) and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= len(brains) or (a == b).any()):
        raise ValueError(f"rate: each game needs two different brains among the {len(brains)} given")
    if not np.isin(score, (0.0, 0.5, 1.0)).all():
        raise ValueError("rate: scores must be 1 (first brain won), 0 (second won) or 0.5 (a draw)")
    model = PlackettLuce(tau=0.0)
    ratings = [model.rating(name=name) for name in brains]
    for k in np.random.default_rng(seed).permutation(len(a)):
        i, j, s = int(a[k]), int(b[k]), float(score[k])
        ranks = [0, 0] if s == 0.5 else ([0, 1] if s == 1.0 else [1, 0])
        [[ratings[i]], [ratings[j]]] = model.rate([[ratings[i]], [ratings[j]]], ranks=ranks)
    games = np.bincount(np.concatenate([a, b]).astype(np.int64), minlength=len(brains))
    table = [
        {"brain": name, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal(), "games": int(games[k])}
        for k, (name, r) in enumerate(zip(brains, ratings))
    ]
    table.sort(key=lambda row: -row["ordinal"])
    for rank, row in enumerate(table, 1):
        row["rank"] = rank
    return table


def format_ratings(table: list[dict]) -> str:
    """The ratings as a text table, best first."""
    width = max(5, *(len(row["brain"]) for row in table))
    lines = [f"  {'rank':>4}  {'brain':<{width}}  {'mu':>7} {'sigma':>6} {'mu-3sigma':>9} {'games':>7}"]
    lines += [
        f"  {row['rank']:>4}  {row['brain']:<{width}}  {row['mu']:7.2f} {row['sigma']:6.2f} {row['ordinal']:9.2f} "
        f"{row['games']:>7}"
        for row in table
    ]
    return "\n".join(lines)

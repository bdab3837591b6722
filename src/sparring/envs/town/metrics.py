"""Town metrics written into the record when an episode ends (``s.metrics``, named in ``Town.metrics``).

Goal rate, survival and faints count learner characters; specialisation is
the mean over learners who worked of the normalised entropy of what they
worked at (0: one trade only, 1: all three equally); trades, prices, coin
inequality (Gini), friendships and houses describe the whole town.
"""

import numpy as np

from sparring.envs.town.world import FRIENDS, SKILLS
from sparring.kit import helper, kernel

# indices into s.metrics, in the order of Town.metrics
(
    GOAL_RATE,
    SURVIVAL,
    FAINTS,
    TRADES,
    TRADE_COINS,
    MEAN_PRICE,
    SPEC_ENTROPY,
    COIN_GINI,
    FRIENDSHIPS,
    HOUSES,
    SHAPING_NEEDS,
    SHAPING_TEAM,
) = range(12)


@kernel
def work_entropy(s, a):
    """Entropy of character ``a``'s work counts over the three trades, divided by log(3); -1 if it never worked."""
    total = 0
    for k in range(SKILLS):
        total += s.worked[a, k]
    if total == 0:
        return -1.0
    h = 0.0
    for k in range(SKILLS):
        if s.worked[a, k] > 0:
            p = s.worked[a, k] / total
            h -= p * np.log(p)
    return h / np.log(SKILLS)


@kernel
def gini(s):
    """Gini coefficient of everyone's coins (0: equal; 0 when nobody has any)."""
    n = s.coins.shape[0]
    diff, total = 0.0, 0.0
    for a in range(n):
        total += s.coins[a]
        for b in range(n):
            diff += abs(s.coins[a] - s.coins[b])
    return 0.0 if total == 0 else diff / (2.0 * n * total)


@helper
def finish(s, learners):
    """Final values of the episode metrics."""
    n = s.alive.shape[0]
    done, standing, spec, workers = 0, 0, 0.0, 0
    for a in range(learners):
        done += s.goal_done[a]
        standing += s.alive[a]
        h = work_entropy(s, a)
        if h >= 0.0:
            spec += h
            workers += 1
    s.metrics[GOAL_RATE] = done / learners
    s.metrics[SURVIVAL] = standing / learners
    s.metrics[MEAN_PRICE] = s.metrics[TRADE_COINS] / s.metrics[TRADES] if s.metrics[TRADES] > 0 else 0.0
    s.metrics[SPEC_ENTROPY] = spec / workers if workers > 0 else 0.0
    s.metrics[COIN_GINI] = gini(s)
    friends, houses = 0, 0
    for a in range(n):
        houses += s.built[a]
        for b in range(a + 1, n):
            if s.rel[a, b] >= FRIENDS and s.rel[b, a] >= FRIENDS:
                friends += 1
    s.metrics[FRIENDSHIPS] = friends
    s.metrics[HOUSES] = houses

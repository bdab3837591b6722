"""Generalised advantage estimation, compiled with Numba (one pass backwards over time)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def compute_gae(rewards, values, dones, truncated, final_values, last_value, gamma, lam, advantages):
    """Fill ``advantages`` [T, N] and return nothing.

    ``rewards``, ``values``, ``dones`` are [T, N] float32, where ``dones[t]``
    means the episode ended with the step taken at ``t`` (so ``values[t + 1]``
    belongs to a new episode and is never bootstrapped). Where ``truncated[t]``
    (bool [T, N]) the episode was cut off by a time limit rather than ended by the
    game: step ``t`` then bootstraps from ``final_values[t]``, the value of that
    episode's final observation, instead of counting as a terminal (the advantage
    chain still stops there). ``last_value`` [N] is the value of the observation
    after the last step.
    """
    horizon, n = rewards.shape
    for i in range(n):
        running = np.float32(0.0)
        next_value = last_value[i]
        for t in range(horizon - 1, -1, -1):
            keep = np.float32(1.0) - dones[t, i]
            if truncated[t, i]:
                future = gamma * final_values[t, i]
            else:
                future = gamma * next_value * keep
            delta = rewards[t, i] + future - values[t, i]
            running = delta + gamma * lam * keep * running
            advantages[t, i] = running
            next_value = values[t, i]

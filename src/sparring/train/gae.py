"""Generalised advantage estimation, compiled with Numba (one pass backwards over time)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def compute_gae(rewards, values, dones, last_value, gamma, lam, advantages):
    """Fill ``advantages`` [T, N] and return nothing.

    ``rewards``, ``values``, ``dones`` are [T, N] float32, where ``dones[t]``
    means the episode ended with the step taken at ``t`` (so ``values[t + 1]``
    belongs to a new episode and is not bootstrapped). ``last_value`` [N] is the
    value of the observation after the last step.
    """
    horizon, n = rewards.shape
    for i in range(n):
        running = np.float32(0.0)
        next_value = last_value[i]
        for t in range(horizon - 1, -1, -1):
            keep = np.float32(1.0) - dones[t, i]
            delta = rewards[t, i] + gamma * next_value * keep - values[t, i]
            running = delta + gamma * lam * keep * running
            advantages[t, i] = running
            next_value = values[t, i]

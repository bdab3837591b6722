"""Toy walks whose kernels allocate a known number of arrays: per step, per observation, per reset, in a helper."""

import numpy as np

from sparring.kit import helper, kernel
from tests.kit import toys


@kernel
def scratch_step(s, cfg, act, rew, term, trunc):
    toys.walk_step(s, cfg, act, rew, term, trunc)
    scratch = np.empty(3)  # one array per env-step, used so the compiler keeps it
    scratch[0] = s.pos
    scratch[1] = s.goal
    scratch[2] = s.tick
    if scratch.sum() < 0:
        s.pos = 0


class StepAllocates(toys.Walk):
    """``step`` allocates one array per env-step."""

    name = "toy_step_allocates"
    step = scratch_step


@kernel
def copying_observe(s, cfg, obs, mask):
    toys.walk_observe(s, cfg, obs, mask)
    a = np.zeros(2)
    a[0] = s.pos
    b = a * 2.0  # a second array
    obs[0, 0] = b[0] / (2.0 * toys.LENGTH)


class ObserveAllocates(toys.Walk):
    """``observe`` allocates two arrays per call (so per env-step, and per reset)."""

    name = "toy_observe_allocates"
    observe = copying_observe


@helper
def goals(n):
    return np.arange(n) + 2  # two arrays (the range, the sum), made in a separately compiled helper


@kernel
def listing_reset(s, cfg):
    toys.walk_reset(s, cfg)
    s.goal = goals(toys.LENGTH - 2)[s.goal - 2]


class ResetAllocates(toys.Walk):
    """``reset`` allocates two arrays (in a helper), so two per episode end of stepping."""

    name = "toy_reset_allocates"
    reset = listing_reset

"""Gymnasium spaces for an env's per-agent observation and action."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from sparring.kit.spec import Heads, Obs


def observation_space(obs: Obs, seed: int | None = None) -> spaces.Box:
    """A Box of ``obs.size`` values with the declared dtype and bounds."""
    low, high = obs.low, obs.high
    if np.issubdtype(obs.dtype, np.integer):
        info = np.iinfo(obs.dtype)
        low = info.min if not np.isfinite(low) else low
        high = info.max if not np.isfinite(high) else high
    return spaces.Box(low=low, high=high, shape=(obs.size,), dtype=obs.dtype, seed=seed)


def action_space(heads: Heads, seed: int | None = None) -> spaces.Space:
    """Discrete for a single head, MultiDiscrete for several."""
    if len(heads.sizes) == 1:
        return spaces.Discrete(int(heads.sizes[0]), seed=seed)
    return spaces.MultiDiscrete(heads.sizes.astype(np.int64), seed=seed)


def to_rows(action, heads: Heads) -> np.ndarray:
    """One agent's action (int or per-head array) as a row of head values."""
    row = np.asarray(action, dtype=np.int64).reshape(-1)
    if row.shape != (len(heads.sizes),):
        raise ValueError(f"an action must have {len(heads.sizes)} head value(s) {list(heads.names)}, got {action!r}")
    return row

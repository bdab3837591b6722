"""Gymnasium spaces for an env's per-agent observation and action, and action masks in their conventions.

The kit keeps one flat bool mask of ``sum(heads)`` entries per agent row. Gymnasium's
``space.sample(mask=...)`` (and PettingZoo's tests, which call it) want int8: one array for a
``Discrete`` space, a tuple of one array per head for ``MultiDiscrete``. sb3-contrib's
``MaskablePPO`` wants the flat bool array itself (its ``action_masks()``).
"""

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


def space_mask(flat: np.ndarray, heads: Heads) -> np.ndarray | tuple[np.ndarray, ...]:
    """One agent's flat bool mask as its action space's ``sample(mask=...)`` takes it (a copy).

    int8 ``[size]`` for a single head; a tuple of int8 arrays, one per head, for several.
    """
    mask = flat.astype(np.int8)
    if len(heads.sizes) == 1:
        return mask
    return tuple(np.split(mask, heads.offsets[1:]))


def space_masks(flat: np.ndarray, heads: Heads) -> np.ndarray:
    """Masks of many agents (flat bool ``[n, sum(heads)]``) as one array of ``n`` entries, a vector env's info value.

    int8 ``[n, size]`` for a single head. For several, an object array of per-agent tuples (what
    Gymnasium's ``SyncVectorEnv`` makes of the single env's tuples): ``tuple(masks)`` is then the
    mask the vector env's ``action_space.sample(mask=...)`` takes.
    """
    masks = flat.astype(np.int8)
    if len(heads.sizes) == 1:
        return masks
    per_head = np.split(masks, heads.offsets[1:], axis=1)
    return np.fromiter(zip(*per_head), dtype=object, count=len(masks))  # each entry one tuple, never unpacked


def to_rows(action, heads: Heads) -> np.ndarray:
    """One agent's action (int or per-head array) as a row of head values."""
    row = np.asarray(action, dtype=np.int64).reshape(-1)
    if row.shape != (len(heads.sizes),):
        raise ValueError(f"an action must have {len(heads.sizes)} head value(s) {list(heads.names)}, got {action!r}")
    return row

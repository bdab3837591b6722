"""Random play that respects masks, reproducible across batch sizes."""

from __future__ import annotations

import numpy as np


def uniform_table(seed: int, steps: int, rows: int, heads: int) -> np.ndarray:
    """Uniform draws [steps, rows, heads]; row r at step t gets the same draw whatever the batch."""
    return np.random.default_rng(seed).random((steps, rows, heads))


def allowed_actions(mask: np.ndarray, sizes: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each row and head, the allowed value at quantile ``u`` (0 if a head allows nothing)."""
    out = np.zeros((mask.shape[0], len(sizes)), np.int32)
    start = 0
    for h, size in enumerate(sizes):
        m = mask[:, start : start + size]
        count = m.sum(1)
        k = np.minimum((u[:, h] * count).astype(np.int64), np.maximum(count - 1, 0))
        out[:, h] = np.where(count > 0, np.argmax(np.cumsum(m, 1) > k[:, None], 1), 0)
        start += size
    return out

"""The Go-Explore cell of `gauntlet`: wave, final-boss stage, hp bucket, pillars standing, supplies bucket.

:func:`cell_keys` packs the five small ints into one int64 per record the way
:mod:`sparring.explore.cells` asks (one byte per field, the first, the wave, in
the highest byte used), vectorised over an array of records;
:func:`cell_tuple` gives the same numbers for one record, for printing.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.gauntlet.world import FINAL_WAVE, HEALS, MAX_HP, RESTORES

CELL_FIELDS = ("wave", "stage", "hp", "pillars", "supplies")


def _fields(records) -> list[np.ndarray]:
    recs = np.atleast_1d(records)
    wave = recs["wave"].astype(np.int64)
    stage = np.maximum(recs["phase"].astype(np.int64) - (FINAL_WAVE - 1), 0)  # 0 before the final wave
    hp = np.clip(recs["hp"].astype(np.int64) * 4 // (MAX_HP + 1), 0, 3)  # quarters
    pillars = (recs["pil_hp"] > 0).sum(axis=1).astype(np.int64)
    supplies = (recs["heals"].astype(np.int64) + recs["restores"]) * 4 // (HEALS + RESTORES + 1)  # quarters
    return [wave, stage, hp, pillars, supplies]


def cell_keys(records) -> np.ndarray:
    """One int64 cell key per record: wave, final-boss stage (0 before the final wave), hp quarter,
    pillars standing, supplies quarter, one byte each, the wave most significant."""
    key = np.zeros(np.atleast_1d(records).shape[0], np.int64)
    for values in _fields(records):
        key = (key << 8) | values
    return key


def cell_tuple(record) -> tuple:
    """The :data:`CELL_FIELDS` values of one record."""
    return tuple(int(v[0]) for v in _fields(record))

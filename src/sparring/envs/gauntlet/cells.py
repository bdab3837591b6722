"""The Go-Explore cell of `gauntlet`: wave, final-boss stage, hp bucket, pillars standing, supplies bucket.

:func:`cell_keys` packs the five small ints into one int64 per record,
vectorised over an array of records (what an archive keys states by);
:func:`cell_tuple` gives the same numbers for one record, for printing.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.gauntlet.rules import FINAL_WAVE, HEALS, MAX_HP, RESTORES

CELL_FIELDS = ("wave", "stage", "hp_bucket", "pillars", "supplies")
# how many values each field takes (the last field varies fastest in a key)
CELL_SIZES = (64, 8, 4, 4, 4)


def _fields(records) -> list[np.ndarray]:
    recs = np.atleast_1d(records)
    wave = recs["wave"].astype(np.int64)
    stage = np.maximum(recs["phase"].astype(np.int64) - (FINAL_WAVE - 1), 0)
    hp_bucket = np.clip(recs["hp"].astype(np.int64) * 4 // (MAX_HP + 1), 0, 3)
    pillars = (recs["pil_hp"] > 0).sum(axis=1).astype(np.int64)
    supplies = (recs["heals"].astype(np.int64) + recs["restores"]) * 4 // (HEALS + RESTORES + 1)
    return [wave, stage, hp_bucket, pillars, supplies]


def cell_keys(records) -> np.ndarray:
    """One int64 cell key per record: wave, stage (0 before the final wave), hp quarter, pillars standing,
    supplies quarter, packed in that order (see :data:`CELL_SIZES`; :func:`unpack` reverses it)."""
    key = np.zeros(np.atleast_1d(records).shape[0], np.int64)
    for values, size in zip(_fields(records), CELL_SIZES):
        key = key * size + values
    return key


def unpack(keys) -> dict[str, np.ndarray]:
    """The :data:`CELL_FIELDS` values of cell keys, as arrays."""
    rest = np.asarray(keys, np.int64).copy()
    out = {}
    for name, size in zip(reversed(CELL_FIELDS), reversed(CELL_SIZES)):
        out[name] = rest % size
        rest //= size
    return {name: out[name] for name in CELL_FIELDS}


def cell_tuple(record) -> tuple:
    """The :data:`CELL_FIELDS` values of one record."""
    return tuple(int(v[0]) for v in _fields(record))

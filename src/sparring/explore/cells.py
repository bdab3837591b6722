"""The cell contract between an env and the Go-Explore archive.

An env opts in with two class attributes:

- ``cell_fields``: the names of the fields of its cell, most significant first; the first
  field is the progress measure (wave, damage dealt...), the one "deepest" refers to.
- ``cell_keys(records) -> np.ndarray[int64]`` (a static method): one key per record, each
  field an int in [0, 255] packed into one byte, the first field in the highest byte used:
  ``key = sum(field_i << 8 * (len(fields) - 1 - i))``. At most 8 fields.

Keys then sort by progress first, and :func:`decode` turns them back into fields for tables.
"""

from __future__ import annotations

import numpy as np

MAX_FIELDS = 8


def has_cells(env_cls: type) -> bool:
    """Whether the env implements the cell contract (``cell_fields`` and a callable ``cell_keys``)."""
    return callable(getattr(env_cls, "cell_keys", None)) and bool(getattr(env_cls, "cell_fields", None))


def cell_fields(env_cls: type) -> tuple[str, ...]:
    """The env's cell field names; a clear error if the env does not implement the cell contract."""
    fields = getattr(env_cls, "cell_fields", None)
    if not has_cells(env_cls):
        raise ValueError(
            f"env {env_cls.name!r} has no Go-Explore cells: it needs `cell_fields` (field names) and a "
            "static `cell_keys(records)` returning one int64 key per record (see sparring.explore.cells)"
        )
    fields = tuple(str(f) for f in fields)
    if len(fields) > MAX_FIELDS:
        raise ValueError(f"env {env_cls.name!r} declares {len(fields)} cell fields; at most {MAX_FIELDS} fit a key")
    return fields


def keys_of(env_cls: type, records: np.ndarray) -> np.ndarray:
    """The env's cell keys of ``records``, checked for shape and dtype."""
    keys = np.asarray(env_cls.cell_keys(records))
    if keys.shape != (len(records),) or not np.issubdtype(keys.dtype, np.integer):
        raise ValueError(
            f"{env_cls.name}.cell_keys must return one integer key per record, got dtype {keys.dtype} "
            f"and shape {keys.shape} for {len(records)} records"
        )
    return keys.astype(np.int64, copy=False)


def decode(keys: np.ndarray, n_fields: int) -> np.ndarray:
    """[len(keys), n_fields] field values of packed keys (inverse of the packing above)."""
    keys = np.asarray(keys, np.int64)
    shifts = 8 * np.arange(n_fields - 1, -1, -1, dtype=np.int64)
    return (keys[:, None] >> shifts[None, :]) & 0xFF


def depth(keys: np.ndarray, n_fields: int) -> np.ndarray:
    """The first (progress) field of each key."""
    return decode(keys, n_fields)[:, 0]

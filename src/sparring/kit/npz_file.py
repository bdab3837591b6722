"""A ``.npz`` file of named NumPy arrays with its JSON metadata inside, checksummed and written all at once.

State sets, Go-Explore archives and the curricula's checkpoint files share this layout: each array
under its own name, plus a ``meta`` entry, the UTF-8 bytes (a uint8 array) of a JSON object whose
``checksum`` is :func:`~sparring.kit.files.arrays_checksum` of the arrays. :func:`write_npz` writes
it through :func:`~sparring.kit.atomic.atomic_file` (a crash mid-write leaves the old file);
:func:`read_npz` reads it back without unpickling anything, and whatever is wrong with the file is
a :class:`~sparring.kit.files.DamagedFile` naming it. What the arrays and the other keys mean, and
how they are checked, is the caller's.
"""

from __future__ import annotations

import json
import os

import numpy as np

from sparring.kit.atomic import atomic_file
from sparring.kit.files import DamagedFile, arrays_checksum, check_keys, check_regular, reading

META = "meta"
"""The entry of the metadata; no array may have this name."""


def write_npz(path: str | os.PathLike, arrays: dict, meta: dict) -> dict:
    """Write ``arrays`` (name: array, none of them pickled objects) and ``meta`` (a JSON-able dict) to ``path``
    all at once; returns the metadata written: ``meta`` with the arrays' ``checksum`` added as its last key."""
    if META in arrays:
        raise ValueError(f"an array of an .npz file cannot be named {META!r}: that entry holds the metadata")
    objects = sorted(name for name, array in arrays.items() if np.asarray(array).dtype.hasobject)
    if objects:
        raise ValueError(f"arrays {objects} hold Python objects, which would be pickled; give arrays of plain dtypes")
    meta = {**meta, "checksum": arrays_checksum(arrays)}
    with atomic_file(path, "wb") as fh:
        np.savez(fh, **{META: np.frombuffer(json.dumps(meta).encode(), np.uint8)}, **arrays)
    return meta


def read_npz(path: str | os.PathLike, what: str, remedy: str = "", keys: dict | None = None) -> tuple[dict, dict]:
    """The metadata and the arrays of the file ``path`` (a ``what``, e.g. "state set") that :func:`write_npz` wrote.

    The metadata must have the keys of ``keys`` (a :func:`~sparring.kit.files.check_keys` schema)
    and a checksum that the arrays match; a file without metadata, or any other fault, is a
    :class:`~sparring.kit.files.DamagedFile` naming ``path``, with ``remedy`` (what to do) when given.
    """
    meta, arrays = load_npz(path, what, remedy)
    if meta is None:
        raise DamagedFile(path, f"has no {META!r} entry, the metadata every {what} has", remedy)
    check_keys(meta, {**(keys or {}), "checksum": str}, path, f"{what}'s metadata", remedy)
    verify_npz(path, meta, arrays, remedy)
    return meta, arrays


def load_npz(path: str | os.PathLike, what: str, remedy: str = "") -> tuple[dict | None, dict]:
    """The metadata (None when the file has no ``meta`` entry) and the arrays of the ``.npz`` file ``path``, its
    checksum not checked yet (see :func:`verify_npz`): for a reader of files written before they held metadata."""
    kind = f"{what} (NumPy .npz)"
    check_regular(path, kind, remedy)
    with reading(path, kind, remedy), np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    if META not in arrays:
        return None, arrays
    with reading(path, f"{what} metadata (the JSON text of its {META!r} entry)", remedy):
        meta = json.loads(arrays.pop(META).tobytes().decode("utf-8"))
    if not isinstance(meta, dict):
        raise DamagedFile(path, f"its metadata is a JSON {type(meta).__name__}, not a JSON object", remedy)
    return meta, arrays


def verify_npz(path: str | os.PathLike, meta: dict, arrays: dict, remedy: str = "") -> None:
    """Check that ``arrays`` (read from ``path``) match the ``checksum`` in their metadata ``meta``; else a
    :class:`~sparring.kit.files.DamagedFile`."""
    if arrays_checksum(arrays) != meta.get("checksum"):
        raise DamagedFile(path, "its arrays do not match the checksum in its metadata: the file is damaged", remedy)

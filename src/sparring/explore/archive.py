"""The Go-Explore archive: the best state seen per cell, and how thin the policy is there.

Per cell: the best record (higher score, ties to the shorter trajectory), its score and
trajectory length (the record's tick), visits, times chosen, the policy's recurrent state
when that record was seen (zeros for a feed-forward policy: an empty state), and the
outcomes of episodes restarted from it (restarts that ended, successes among them).

Selection favours cells where the policy is thin. A cell's weight is

    w = 1 / sqrt(1 + chosen) + 1 / sqrt(1 + visits) + (1 - successes / restarts)

(the last term is 1 while no restart from the cell has ended): rarely chosen, rarely
visited, or rarely won from. Cells are drawn with probability w / sum(w). A ``frontier``
bias b > 0 multiplies w by exp(b * (progress - deepest)), progress being the cell's first
field: b = 1 makes a cell one wave behind the deepest one e times less likely, so restarts
gather where the policy has only just arrived.
"""

from __future__ import annotations

import json
import os

import numpy as np

from sparring.explore.cells import cell_fields, decode, keys_of
from sparring.kit.atomic import atomic_file, clean_stale
from sparring.kit.files import DamagedFile, check_keys, read_json
from sparring.kit.npz_file import load_npz, verify_npz, write_npz
from sparring.kit.trust import validate_states

FORMAT = 2  # 1: without the metadata and checksum inside archive.npz (still read)
_COUNTS = ("visits", "chosen", "restarts", "successes")


class Archive:
    """Cells of one env, each with its best record and statistics.

    Args:
      env_cls: the env class (implements the cell contract of :mod:`sparring.explore.cells`).
      state_shape: shape of the recurrent state stored per cell (``()``: none).
    """

    def __init__(self, env_cls: type, state_shape: tuple = ()):
        self.env_cls = env_cls
        self.fields = cell_fields(env_cls)
        self.state_shape = tuple(int(d) for d in state_shape)
        self.index: dict[int, int] = {}
        self.keys = np.zeros(0, np.int64)
        self.records = np.zeros(0, env_cls.record_dtype)
        self.score = np.zeros(0, np.float64)
        self.length = np.zeros(0, np.int64)
        self.states = np.zeros((0, *self.state_shape), np.float32)
        for name in _COUNTS:
            setattr(self, name, np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.index)

    # -- growing ----------------------------------------------------------------------
    def insert(self, records: np.ndarray, scores, states: np.ndarray | None = None) -> int:
        """Count a visit of each record's cell, keep it where it beats the cell's best; returns new cells."""
        records = np.asarray(records)
        if records.dtype != self.env_cls.record_dtype:
            raise TypeError(f"archive of env {self.env_cls.name!r} got records of dtype {records.dtype}")
        if not len(records):
            return 0
        scores = np.broadcast_to(np.asarray(scores, np.float64), (len(records),))
        lengths = records["tick"].astype(np.int64)
        keys = keys_of(self.env_cls, records)
        order = np.lexsort((lengths, -scores, keys))  # per key: best score first, then shortest
        first = np.flatnonzero(np.r_[True, keys[order][1:] != keys[order][:-1]])
        best = order[first]
        counts = np.diff(np.r_[first, len(order)])
        cells = self._cells_for(keys[best])
        is_new = self.visits[cells] == 0
        better = (
            is_new
            | (scores[best] > self.score[cells])
            | ((scores[best] == self.score[cells]) & (lengths[best] < self.length[cells]))
        )
        self.visits[cells] += counts
        cells, best = cells[better], best[better]
        self.records[cells] = records[best]
        self.score[cells], self.length[cells] = scores[best], lengths[best]
        if self.state_shape:
            if states is None:
                raise ValueError(f"this archive stores recurrent states of shape {self.state_shape}; pass `states`")
            self.states[cells] = np.asarray(states, np.float32)[best]
        return int(is_new.sum())

    def _cells_for(self, keys: np.ndarray) -> np.ndarray:
        fresh = [int(k) for k in keys if int(k) not in self.index]
        if fresh:
            start = len(self.index)
            self.index.update((k, start + i) for i, k in enumerate(fresh))
            self._grow(len(fresh))
            self.keys[start:] = fresh
        return np.fromiter((self.index[int(k)] for k in keys), np.int64, len(keys))

    def _grow(self, n: int) -> None:
        for name in ("keys", "records", "score", "length", "states", *_COUNTS):
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.zeros((n, *old.shape[1:]), old.dtype)]))

    # -- choosing -------------------------------------------------------------------------
    def success_rate(self) -> np.ndarray:
        """Successes / restarts per cell (0 where no restart has ended)."""
        return self.successes / np.maximum(self.restarts, 1)

    def weights(self, frontier: float = 0.0) -> np.ndarray:
        """Selection weight per cell, with the ``frontier`` bias (see the module docstring)."""
        w = 1.0 / np.sqrt(1.0 + self.chosen) + 1.0 / np.sqrt(1.0 + self.visits) + (1.0 - self.success_rate())
        if frontier > 0 and len(self):
            progress = self.field_values()[:, 0].astype(np.float64)
            w = w * np.exp(frontier * (progress - progress.max()))
        return w

    def select(
        self, n: int, rng: np.random.Generator, frontier: float = 0.0, among: np.ndarray | None = None
    ) -> np.ndarray:
        """Draw ``n`` cells (indices) by weight (``frontier``: see the module docstring), and count them as chosen;
        ``among`` (a bool per cell) limits the draw to those cells."""
        if not len(self):
            raise ValueError("the archive is empty: insert records before selecting cells")
        if frontier < 0:
            raise ValueError(f"the frontier bias must be >= 0 (0: none), got {frontier}")
        w = self.weights(frontier)
        if among is not None:
            w = w * np.asarray(among, np.bool_)
        cells = rng.choice(len(self), size=int(n), p=w / w.sum())
        np.add.at(self.chosen, cells, 1)
        return cells

    def record_outcomes(self, cells: np.ndarray, successes: np.ndarray) -> None:
        """Count ended restarts of ``cells`` and which of them succeeded."""
        cells = np.asarray(cells, np.int64)
        np.add.at(self.restarts, cells, 1)
        np.add.at(self.successes, cells, np.asarray(successes, np.int64))

    # -- reading ----------------------------------------------------------------------------
    def field_values(self) -> np.ndarray:
        """[cells, fields] decoded cell fields."""
        return decode(self.keys, len(self.fields))

    def deepest(self) -> int:
        """The largest value of the first (progress) field among the cells (-1 when empty)."""
        return int(self.field_values()[:, 0].max()) if len(self) else -1

    # -- files ------------------------------------------------------------------------------
    def save(self, folder: str, extra: dict | None = None) -> None:
        """Write ``archive.npz``, then ``archive.json``, into ``folder``, each all at once (:mod:`sparring.kit.atomic`).

        The npz is the whole archive: its arrays and, as its ``meta`` entry, the metadata with a
        SHA-256 of the arrays (``checksum``). archive.json is a copy of that metadata for people and
        tools, so a save interrupted between the two files still leaves a loadable archive.
        """
        os.makedirs(folder, exist_ok=True)
        clean_stale(folder, ARCHIVE_FILES)
        arrays = {name: getattr(self, name) for name in _ARRAYS}
        arrays["records"] = self.records.view(np.uint8).reshape(len(self), self.records.dtype.itemsize)
        meta = {
            "format": FORMAT,
            "env": self.env_cls.name,
            "fields": list(self.fields),
            "cells": len(self),
            "record_dtype": str(self.records.dtype.descr),
            "state_shape": list(self.state_shape),
            "extra": extra or {},
        }
        meta = write_npz(os.path.join(folder, "archive.npz"), arrays, meta)
        with atomic_file(os.path.join(folder, "archive.json")) as fh:
            json.dump(meta, fh, indent=1)

    @classmethod
    def load(cls, folder: str, env_cls: type, config=None) -> tuple["Archive", dict]:
        """The archive saved in ``folder`` and its ``extra`` dict; errors name a wrong env or a damaged file.

        Every cell's record is checked (:func:`sparring.kit.trust.validate_states`) against ``config``,
        the env config the records will run under (a Config, a dict of overrides, or None for the
        env's defaults): a value out of range or a broken invariant is a BadState naming the cell.
        """
        meta, arrays, where = read_archive(folder)
        if meta["env"] != env_cls.name:
            raise ValueError(
                f"archive in {folder!r} was built for env {meta['env']!r}, not {env_cls.name!r}; "
                f"use it with `{meta['env']}` or explore {env_cls.name!r} anew"
            )
        if meta["record_dtype"] != str(env_cls.record_dtype.descr):
            raise ValueError(
                f"archive in {folder!r} holds {meta['env']!r} records of another layout (the env's state "
                "changed since it was saved); explore anew"
            )
        archive = cls(env_cls, tuple(meta["state_shape"]))
        if list(archive.fields) != meta["fields"]:
            raise ValueError(
                f"archive in {folder!r} has cells of fields {meta['fields']}, but {env_cls.name!r} now "
                f"declares {list(archive.fields)}; explore anew"
            )
        _check_arrays(arrays, meta, archive, where)
        for name in _ARRAYS:
            setattr(archive, name, arrays[name].copy())
        archive.records = arrays["records"].copy().view(env_cls.record_dtype).reshape(-1)
        archive.index = {int(k): i for i, k in enumerate(archive.keys)}
        values = archive.field_values()
        validate_states(
            env_cls,
            config,
            archive.records,
            os.path.join(folder, "archive.npz"),
            lambda i: f"cell {i} (" + ", ".join(f"{name} {int(v)}" for name, v in zip(archive.fields, values[i])) + ")",
        )
        return archive, meta["extra"]


ARCHIVE_FILES = ("archive.npz", "archive.json")
_ARRAYS = ("keys", "score", "length", "states", *_COUNTS)
_META_KEYS = {
    "format": int,
    "env": str,
    "fields": list,
    "cells": int,
    "record_dtype": str,
    "state_shape": list,
    "extra": dict,
}
REMEDY = "save it again, or explore anew (sparring explore ENV --out DIR)"


def read_archive(folder: str) -> tuple[dict, dict, str]:
    """The metadata, arrays and the metadata's file of the archive in ``folder``, each checked for damage.

    The metadata is archive.npz's own (``meta``; archive.json must still be readable JSON), or, for an
    archive of format 1, archive.json. Raises ValueError when there is no archive, DamagedFile when a
    file is damaged.
    """
    npz, json_path = (os.path.join(folder, name) for name in ARCHIVE_FILES)
    if not os.path.exists(npz) and not os.path.exists(json_path):
        raise ValueError(
            f"no archive in {folder!r}: expected archive.json and archive.npz (written by "
            "`sparring explore` or saved with a `sparring train --archive` checkpoint)"
        )
    clean_stale(folder, ARCHIVE_FILES)
    described = read_json(json_path, "archive metadata", REMEDY) if os.path.exists(json_path) else None
    meta, arrays = load_npz(npz, "archive", REMEDY)
    where = npz
    if meta is None:  # format 1: the metadata is archive.json's alone
        if described is None:
            raise DamagedFile(json_path, "is missing, and archive.npz (of format 1) has no metadata of its own", REMEDY)
        meta, where = described, json_path
    if where == npz and described is not None:
        _check_copy(described, meta, json_path)
    check_keys(meta, _META_KEYS, where, "archive's metadata", REMEDY)
    if meta["format"] not in (1, FORMAT):
        raise DamagedFile(
            where, f"has archive format {meta['format']}; this version reads formats 1 and {FORMAT}", REMEDY
        )
    if meta["format"] == FORMAT:
        check_keys(meta, {"checksum": str}, where, "archive's metadata", REMEDY)
        verify_npz(npz, meta, arrays, REMEDY)
    return meta, arrays, where


def _check_copy(described, meta: dict, json_path: str) -> None:
    """archive.json is written as a copy of archive.npz's metadata: one that differs while naming the same arrays
    (the same checksum) was edited or damaged. One of other arrays is a copy a save did not get to rewrite."""
    if not isinstance(described, dict):
        raise DamagedFile(json_path, "is not a JSON object (a copy of archive.npz's metadata)", REMEDY)
    if described.get("checksum") != meta.get("checksum"):
        return  # a save interrupted between its two files: the npz is the newer and whole
    differs = [key for key in sorted(set(described) | set(meta)) if described.get(key) != meta.get(key)]
    if differs:
        key = differs[0]
        raise DamagedFile(
            json_path,
            f"says {key}={described.get(key)!r} where archive.npz's own metadata says {meta.get(key)!r}: the copy "
            "was edited or is damaged (delete archive.json to load archive.npz as it is)",
            REMEDY,
        )


def _check_arrays(arrays: dict, meta: dict, archive: Archive, where: str) -> None:
    """Check the arrays of a saved archive against its metadata: names, dtypes, shapes, counts."""
    n = meta["cells"]
    want = {name: (getattr(archive, name).dtype, (n, *getattr(archive, name).shape[1:])) for name in _ARRAYS}
    want["records"] = (np.dtype(np.uint8), (n, archive.records.dtype.itemsize))
    for name, (dtype, shape) in want.items():
        if name not in arrays:
            raise DamagedFile(where, f"archive.npz lacks the array {name!r}", REMEDY)
        if arrays[name].dtype != dtype or arrays[name].shape != shape:
            got = arrays[name]
            problem = (
                f"archive.npz has {len(got)} cells but the metadata says {n} (a save was interrupted)"
                if got.shape[:1] != (n,)
                else f"array {name!r} is {got.dtype} of shape {list(got.shape)}"
            )
            raise DamagedFile(where, f"{problem}; expected {dtype} of shape {list(shape)}", REMEDY)
    counts = [arrays[name] for name in ("length", *_COUNTS)]
    if (
        len(np.unique(arrays["keys"])) != n
        or any((c < 0).any() for c in counts)
        or (arrays["successes"] > arrays["restarts"]).any()
        or not np.isfinite(arrays["score"]).all()
    ):
        raise DamagedFile(
            where,
            "archive.npz holds repeated cells, negative counts, more successes than restarts or non-finite scores",
            REMEDY,
        )

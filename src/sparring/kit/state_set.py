"""State sets: env records saved to one file, to start episodes from (curricula, forks, GRPO groups, eval).

A state set is one ``.npz`` file: the records as raw bytes, an optional int64 ``groups`` array (a key
per record, e.g. gauntlet's wave), and a JSON ``meta`` entry naming the env, its record layout, the
env config the states were played under, the group key's name, free-form ``extra`` facts, and a
SHA-256 of the arrays. Loading checks all of it and names the file in any error; it never unpickles.
Every record is also checked against its env's valid ranges and invariants (:mod:`sparring.kit.trust`).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from sparring.kit.config import make_config
from sparring.kit.files import DamagedFile
from sparring.kit.npz_file import read_npz, write_npz
from sparring.kit.trust import validate_states

FORMAT = 1
_META_KEYS = {
    "format": int,
    "env": str,
    "record_dtype": str,
    "count": int,
    "env_config": dict,
    "group_key": str,
    "extra": dict,
}
REMEDY = "write the state set again"


@dataclasses.dataclass
class StateSet:
    """Records of one env, with a group key per record and the facts saved beside them."""

    records: np.ndarray
    """The env's records (``env_cls.record_dtype``), one per start state."""
    groups: np.ndarray
    """int64 group key per record (all 0 when the set has no groups)."""
    env_config: dict
    """The env config the states were played under."""
    group_key: str
    """What the group keys mean (e.g. ``"wave"``; ``""`` for none)."""
    extra: dict
    """Free-form facts (who played, seeds...)."""


def save_state_set(
    path: str | os.PathLike,
    env_cls: type,
    records: np.ndarray,
    env_config: dict | None = None,
    groups: np.ndarray | None = None,
    group_key: str = "",
    extra: dict | None = None,
) -> str:
    """Write ``records`` of ``env_cls`` (and their ``groups``) to the state set ``path`` all at once; returns it."""
    records = np.asarray(records)
    if records.dtype != env_cls.record_dtype:
        raise ValueError(
            f"records are not {env_cls.name!r} records (dtype {records.dtype}); expected the env's record_dtype"
        )
    groups = np.zeros(len(records), np.int64) if groups is None else np.asarray(groups, np.int64)
    if groups.shape != (len(records),):
        raise ValueError(f"groups must hold one key per record ({len(records)}), got shape {groups.shape}")
    arrays = {"records": records.view(np.uint8).reshape(len(records), env_cls.record_dtype.itemsize), "groups": groups}
    meta = {
        "format": FORMAT,
        "env": env_cls.name,
        "record_dtype": str(env_cls.record_dtype.descr),
        "count": len(records),
        "env_config": dict(env_config or {}),
        "group_key": group_key,
        "extra": dict(extra or {}),
    }
    write_npz(path, arrays, meta)
    return os.fspath(path)


def load_state_set(path: str | os.PathLike, env_cls: type, config=None) -> StateSet:
    """The state set at ``path`` for ``env_cls``; a damaged file, another env or another layout is one clear error.

    Every record is checked (:func:`sparring.kit.trust.validate_states`) against the env config it
    will run under: ``config`` (a Config or a dict of overrides), by default the one the set was
    saved with. A value out of range or a broken invariant is a BadState naming the file and the state.
    """
    meta, arrays = read_npz(path, "state set", REMEDY, _META_KEYS)
    if meta["env"] != env_cls.name:
        raise ValueError(f"state set {os.fspath(path)!r} holds {meta['env']!r} states, not {env_cls.name!r} ones")
    if meta["record_dtype"] != str(env_cls.record_dtype.descr):
        raise ValueError(
            f"state set {os.fspath(path)!r} holds {env_cls.name!r} records of another layout (the env's "
            "state changed since it was saved); write it again"
        )
    if set(arrays) != {"records", "groups"}:
        raise DamagedFile(path, f"holds the arrays {sorted(arrays)}, not ['groups', 'records']", REMEDY)
    raw, groups = arrays["records"], arrays["groups"]
    size = env_cls.record_dtype.itemsize
    if (
        raw.dtype != np.uint8
        or raw.shape != (meta["count"], size)
        or groups.shape != (meta["count"],)
        or groups.dtype != np.int64
    ):
        raise DamagedFile(
            path,
            f"its arrays have shapes {raw.shape} and {groups.shape}, not ({meta['count']}, "
            f"{size}) and ({meta['count']},)",
            REMEDY,
        )
    records = np.ascontiguousarray(raw).view(env_cls.record_dtype).reshape(-1).copy()
    if config is None:
        try:
            config = make_config(env_cls, meta["env_config"])
        except ValueError as exc:
            raise DamagedFile(path, f"its env_config does not fit env {env_cls.name!r} ({exc})", REMEDY) from None
    key = meta["group_key"]
    validate_states(
        env_cls,
        config,
        records,
        os.fspath(path),
        lambda i: f"state {i}" + (f" ({key} {int(groups[i])})" if key else ""),
    )
    return StateSet(records, groups.copy(), meta["env_config"], key, meta["extra"])

"""Where a start-state curriculum's states come from: the ``train.curriculum`` spec, its sources loaded and checked.

The spec is a comma-separated list of ``KIND:PATH`` entries (paths cannot hold commas):

- ``states:FILE``: a state set (``.npz``, :func:`sparring.kit.state_set.save_state_set`), every record;
- ``archive:DIR``: a Go-Explore archive folder (``sparring explore --out DIR``, or a checkpoint of a
  ``--archive`` run), the record of every cell;
- ``recording:FILE``: a recording (``.parquet``), every recorded state but each episode's final one;
- ``own:N``: no file: the learner's own records on arriving in each group during the run, the newest
  ``N`` per group (:mod:`sparring.train.curriculum_pool`; needs an env that declares start groups);
- ``replay:N``: no file and no groups: prioritized restarts from the learner's own states, the ``N``
  of highest |advantage| kept (:mod:`sparring.train.curriculum_replay`; any env). It stands alone.

All states of all sources are pooled, then grouped by the env's start group (``Env.start_groups``;
a state set saved with the env's own ``start_group_key`` keeps its saved groups). A source holding
more than :data:`MAX_STATES` states keeps that many, evenly spaced. Every state is checked against
the run's env config before a kernel sees it (:func:`sparring.kit.trust.validate_states`: the kit's
fields, the env's declared bounds and invariants). A missing file, a source of another env or
record layout, or a bad state is one ValueError naming it.
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np

from sparring.kit.config import make_config
from sparring.kit.state_set import load_state_set
from sparring.kit.trust import validate_states

MAX_STATES = 50_000
KINDS = {
    "states": "a state set .npz (sparring.kit.state_set)",
    "archive": "an archive folder (sparring explore --out DIR, or a --archive checkpoint)",
    "recording": "a recording .parquet (sparring record)",
    "own": "the learner's own arrivals in each group, the newest N kept per group",
    "replay": "the learner's own states of highest |advantage|, N kept (alone)",
}
OWN, REPLAY = "own", "replay"
SYNTAX = "KIND:PATH[,KIND:PATH...] with KIND " + ", ".join(f"{k} ({v})" for k, v in KINDS.items())


@dataclasses.dataclass
class StartStates:
    """The pooled start states of a curriculum, grouped."""

    records: np.ndarray
    """Every state (the env's record dtype)."""
    group: np.ndarray
    """Per state, the index of its group in :attr:`keys` (int64)."""
    keys: np.ndarray
    """The distinct group keys, ascending (int64)."""
    key_name: str
    """What the keys mean (the env's ``start_group_key``; ``""``: one group)."""
    sources: list
    """``(entry, states taken)`` per source, in spec order."""
    own: int = 0
    """With ``own:N``: the learner's own arrivals kept per group during the run (else 0)."""
    replay: int = 0
    """With ``replay:N``: the learner's own states kept by |advantage| (else 0; then there are no other sources)."""

    def labels(self) -> list[str]:
        """A metric name part per group: ``<key name>_<key>`` (``group_<key>`` when the env names none)."""
        return [f"{self.key_name or 'group'}_{int(k)}" for k in self.keys]


def parse_spec(spec: str) -> list[tuple[str, str]]:
    """The ``(kind, path)`` entries of a ``train.curriculum`` spec; a malformed one is a ValueError naming it."""
    entries = [entry.strip() for entry in spec.split(",")]
    if not any(entries):
        raise ValueError(f"train.curriculum {spec!r} names no source; write {SYNTAX}")
    out = []
    for entry in entries:
        kind, sep, path = entry.partition(":")
        if not sep or kind.strip() not in KINDS or not path.strip():
            raise ValueError(f"train.curriculum entry {entry!r} is not KIND:PATH; write {SYNTAX}")
        out.append((kind.strip(), path.strip()))
    return out


def load_start_states(spec: str, env_cls: type, env_config: dict | None = None) -> StartStates:
    """Parse ``spec``, load every source for ``env_cls`` (run with ``env_config``), check and group the states."""
    config = make_config(env_cls, env_config)
    records, groups, taken = [np.zeros(0, env_cls.record_dtype)], [np.zeros(0, np.int64)], []
    own = 0
    entries = parse_spec(spec)
    if any(kind == REPLAY for kind, _ in entries):
        if len(entries) > 1:
            raise ValueError(f"train.curriculum {spec!r}: replay:N stands alone; give it without other sources")
        path = entries[0][1]
        if not path.isdigit() or int(path) < 1:
            raise ValueError(
                f"train.curriculum source replay:{path}: N must be a positive int (states kept), e.g. replay:4096"
            )
        empty = np.zeros(0, np.int64)
        return StartStates(records[0], empty, empty, "", [(f"replay:{path}", 0)], replay=int(path))
    for kind, path in entries:
        where = f"train.curriculum source {kind}:{path}"
        if kind == OWN:
            if own:
                raise ValueError(f"train.curriculum names own:N twice ({spec!r}); give it once")
            own = _own_capacity(path, env_cls, where)
            taken.append((f"{kind}:{path}", 0))
            continue
        recs, saved_groups = _LOADERS[kind](path, env_cls, config, where)
        if not len(recs):
            raise ValueError(f"{where} holds no states; give a source with at least one")
        if len(recs) > MAX_STATES:
            keep = np.linspace(0, len(recs) - 1, MAX_STATES).astype(np.int64)
            recs, saved_groups = recs[keep], None if saved_groups is None else saved_groups[keep]
        records.append(recs)
        groups.append(np.asarray(env_cls.start_groups(recs), np.int64) if saved_groups is None else saved_groups)
        taken.append((f"{kind}:{path}", len(recs)))
    records, groups = np.concatenate(records), np.concatenate(groups)
    if groups.shape != (len(records),):
        raise ValueError(f"env {env_cls.name!r}: start_groups gave shape {groups.shape} for {len(records)} records")
    keys, group = np.unique(groups, return_inverse=True)
    return StartStates(
        records, group.astype(np.int64).reshape(-1), keys.astype(np.int64), env_cls.start_group_key, taken, own
    )


def _own_capacity(text: str, env_cls: type, where: str) -> int:
    """The N of ``own:N``: a positive int, for an env whose records tell their start group."""
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{where}: N must be a positive int (the arrivals kept per group), e.g. own:256")
    if not env_cls.start_group_key:
        raise ValueError(
            f"{where}: env {env_cls.name!r} declares no start groups (Env.start_group_key), so it has no arrivals "
            "to keep; use states:, archive: or recording: sources"
        )
    return int(text)


def _file(path: str, where: str, folder: bool = False) -> None:
    if not (os.path.isdir(path) if folder else os.path.isfile(path)):
        raise ValueError(f"{where}: no such {'folder' if folder else 'file'} {path!r}")


def _warn_config(saved: dict, config, where: str) -> None:
    """Warn (once, one line) when the states were played under env settings other than this run's."""
    now = dataclasses.asdict(config)
    differ = sorted(k for k, v in saved.items() if k in now and now[k] != v)
    if differ:
        warnings.warn(
            f"{where} was played under other env settings ({', '.join(f'{k}={saved[k]!r}' for k in differ)}"
            f"; this run has {', '.join(f'{k}={now[k]!r}' for k in differ)})",
            stacklevel=3,
        )


# each loader checks every state against the run's env config (sparring.kit.trust) before a kernel sees it
def _state_set(path: str, env_cls: type, config, where: str) -> tuple[np.ndarray, np.ndarray | None]:
    _file(path, where)
    states = load_state_set(path, env_cls, config)
    _warn_config(states.env_config, config, where)
    own = bool(states.group_key) and states.group_key == env_cls.start_group_key
    return states.records, states.groups if own else None


def _archive(path: str, env_cls: type, config, where: str) -> tuple[np.ndarray, None]:
    from sparring.explore.archive import Archive

    _file(path, where, folder=True)
    return Archive.load(path, env_cls, config)[0].records, None


def _recording(path: str, env_cls: type, config, where: str) -> tuple[np.ndarray, None]:
    from sparring.record.reader import Recording

    _file(path, where)
    recording = Recording(path, env_cls.name)
    _warn_config(dataclasses.asdict(recording.config), config, where)
    # each episode is checked against the recording's config as it is read, the states kept against the run's
    states = [recording.episode(k).states[:-1] for k in recording.episode_ids()]  # the last state is an end
    states = np.concatenate(states) if states else np.zeros(0, env_cls.record_dtype)
    validate_states(env_cls, config, states, path, lambda i: f"state {i} (episodes' last states left out)")
    return states, None


_LOADERS = {"states": _state_set, "archive": _archive, "recording": _recording}

"""A bounded store of exact env states, each named by an unguessable id: the server's side of restored groups.

A snapshot is a copy of one env record (its random generator included) with what is
needed to play on from it (the env config, the learning seat, the tick). The store keeps
at most ``max_count`` snapshots and ``max_bytes`` bytes, evicting the oldest first; it
remembers the ids it evicted (a bounded list of names only) so a client is told "evicted",
not "unknown". Ids start with the env's name, so an id of another env's server is named as
such. Thread-safe: OpenEnv runs each session on its own thread.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import secrets
import threading

import numpy as np

from sparring.serve.errors import RequestError

ID_PATTERN = re.compile(r"^([a-z][a-z0-9_]*)-([A-Za-z0-9_-]{8,64})$")


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One stored state: the env's name, its config (as given to the env), the learning seat, the goal, the record
    (a one-element structured array, never shared with a live env), whether its episode is over, and its tick."""

    env: str
    config: tuple
    seat: int
    goal: str
    record: np.ndarray
    done: bool
    tick: int

    @property
    def nbytes(self) -> int:
        """The bytes it holds (the record's)."""
        return int(self.record.nbytes)


class SnapshotStore:
    """At most ``max_count`` snapshots and ``max_bytes`` bytes, the oldest evicted first."""

    def __init__(self, max_count: int = 4096, max_bytes: int = 256 << 20, remember_evicted: int = 65536):
        if max_count < 1 or max_bytes < 1:
            raise ValueError(f"a snapshot store needs max_count and max_bytes >= 1, got {max_count}, {max_bytes}")
        self.max_count, self.max_bytes = int(max_count), int(max_bytes)
        self._items: collections.OrderedDict[str, Snapshot] = collections.OrderedDict()
        self._evicted: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._remember = int(remember_evicted)
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    @property
    def nbytes(self) -> int:
        """Bytes held now."""
        return self._bytes

    def put(self, snap: Snapshot) -> str:
        """Store ``snap`` (its record copied) and return its new id, ``<env>-<random token>``."""
        if snap.nbytes > self.max_bytes:
            raise RequestError(413, f"a state of {snap.nbytes} bytes exceeds the snapshot store's {self.max_bytes}")
        snap = dataclasses.replace(snap, record=np.array(snap.record, copy=True).reshape(1))
        sid = f"{snap.env}-{secrets.token_urlsafe(12)}"
        with self._lock:
            self._items[sid] = snap
            self._bytes += snap.nbytes
            while len(self._items) > self.max_count or self._bytes > self.max_bytes:
                old, gone = self._items.popitem(last=False)
                self._bytes -= gone.nbytes
                self._evicted[old] = None
                if len(self._evicted) > self._remember:
                    self._evicted.popitem(last=False)
        return sid

    def get(self, sid, env: str) -> Snapshot:
        """The snapshot named ``sid`` for a server of ``env``; a :class:`RequestError` when it is not text, not an
        id, of another env (400), evicted (410) or unknown (404)."""
        if not isinstance(sid, str):
            raise RequestError(422, f"snapshot must be a snapshot id (text), got {type(sid).__name__}")
        found = ID_PATTERN.match(sid)
        if not found:
            raise RequestError(400, f"snapshot {sid[:80]!r} is not a snapshot id (ids look like '{env}-<token>')")
        if found.group(1) != env:
            raise RequestError(
                400, f"snapshot {sid!r} is a state of env {found.group(1)!r}; this server serves {env!r}"
            )
        with self._lock:
            snap = self._items.get(sid)
            evicted = sid in self._evicted
        if snap is None:
            if evicted:
                raise RequestError(
                    410,
                    f"snapshot {sid!r} was evicted (the store keeps the newest {self.max_count} snapshots, "
                    f"{self.max_bytes} bytes at most); take a new one with state()",
                )
            raise RequestError(404, f"no snapshot {sid!r} on this server (ids come from state().snapshot)")
        return snap

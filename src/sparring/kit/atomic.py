"""Writing a file or a folder all at once: into a temporary sibling, flushed to disk, then renamed into place.

A reader, or a process killed in the middle of a write, sees the old content or the
new one, never a part. On an error the temporary file or folder is removed and the
old one is left as it was. Temporary names start with a dot and hold ``.tmp``; a
process killed outright (SIGKILL, power loss) may leave one behind, never in place
of the real name: the writer holds a lock on its temporary file or folder, and the
next write of the same name (or :func:`clean_stale`) removes leftovers that are
unlocked and over a minute old. :func:`new_folder` claims a fresh, timestamped
folder (a run's) that no other process gets.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from typing import IO

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # reading the umask means setting it: done once, at import, not while threads write
STALE_S = 60.0  # a temporary name unlocked and this old was left by a process that died
# .NAME.XXXXXXXX.tmp[.EXT] (mkstemp's 8 characters), and .NAME.XXXXXXXX.tmp.old of a folder being replaced
_TEMP = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp(?P<rest>.*)")


def _mode(path: str, default: int) -> int:
    """The permissions ``path`` has now, or ``default`` less the umask for a new one (mkstemp makes them private)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return default & ~_UMASK


def _sync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _locked(path: str) -> int:
    """An open descriptor of ``path`` holding an exclusive lock, which ends with the process (or ``os.close``)."""
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _stale(folder: str, entry: str, older_than: float = STALE_S) -> bool:
    """Whether ``entry`` of ``folder`` is a temporary name of this module left by a dead writer."""
    match = _TEMP.fullmatch(entry)
    if not match or match["rest"] not in ("", ".old", os.path.splitext(match["name"])[1]):
        return False
    path = os.path.join(folder, entry)
    if match["rest"] == ".old" and not os.path.exists(os.path.join(folder, match["name"])):
        return False  # the only copy left by a crash between atomic_folder's two renames: keep it
    try:
        info = os.lstat(path)
        if os.path.islink(path) or time.time() - info.st_mtime < older_than:
            return False
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a live writer holds it
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def clean_stale(folder: str | os.PathLike, names=None, older_than: float = STALE_S) -> list[str]:
    """Remove this module's temporary files and folders in ``folder`` that a killed writer left; returns them.

    Only names of this module's pattern (``.NAME.XXXXXXXX.tmp[.EXT]``), and of those only
    the ones for targets in ``names`` when given, unlocked (no live writer) and over
    ``older_than`` seconds old (default :data:`STALE_S`: a writer between creating its temporary
    name and locking it is not mistaken for a dead one; a process that owns ``folder``, such as a
    run resuming in its own folder, may pass 0). Nothing else in ``folder`` is touched; errors are ignored.
    """
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    wanted = None if names is None else set(names)
    removed = []
    for entry in entries:
        match = _TEMP.fullmatch(entry)
        if match and (wanted is None or match["name"] in wanted) and _stale(os.fspath(folder), entry, older_than):
            path = os.path.join(folder, entry)
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            removed.append(path)
    return removed


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a new temporary path beside ``path``, with the same extension, for a writer that takes a path.

    On success the file written there is flushed to disk and replaces ``path`` in one
    rename (keeping the permissions of the file it replaces); on an error it is
    removed and ``path`` is untouched. Missing folders on the way to ``path`` are created.
    """
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    clean_stale(folder, [name])
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp" + os.path.splitext(name)[1], dir=folder)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield tmp
        os.chmod(tmp, _mode(path, 0o666))
        _sync(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    finally:
        os.close(fd)
    _sync(folder)  # the rename itself survives a crash


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w", **open_args) -> Iterator[IO]:
    """Yield a file opened with ``mode`` ("w" or "wb", and ``open_args``) that replaces ``path`` when the block ends.

    As :func:`atomic_path`: on an error nothing of the write remains and ``path`` is untouched.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_file writes a whole file: mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as tmp, open(tmp, mode, **open_args) as fh:
        yield fh


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike) -> Iterator[str]:
    """Yield a new, empty temporary folder beside ``path``; when the block ends it becomes ``path``.

    On success every file in it is flushed to disk, an existing ``path`` is renamed
    aside, the new folder renamed into place and the old one deleted; a crash between
    the two renames leaves the old folder under its hidden name, never a half-written
    one under ``path``. On an error the temporary folder is removed and ``path`` is
    untouched. Missing folders on the way to ``path`` are created.
    """
    path = os.path.abspath(path)
    parent, name = os.path.split(path)
    os.makedirs(parent, exist_ok=True)
    clean_stale(parent, [name])
    tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
    old = tmp + ".old"
    lock = _locked(tmp)
    try:
        os.chmod(tmp, _mode(path, 0o777))
        yield tmp
        for folder, _, files in os.walk(tmp):
            for file in files:
                if not os.path.islink(os.path.join(folder, file)):
                    _sync(os.path.join(folder, file))
            _sync(folder)
        if os.path.exists(path):
            os.rename(path, old)
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.exists(old) and not os.path.exists(path):
            os.rename(old, path)
        raise
    finally:
        os.close(lock)
    _sync(parent)
    shutil.rmtree(old, ignore_errors=True)


def new_folder(parent: str | os.PathLike, prefix: str) -> str:
    """Create and return a new folder ``<parent>/<prefix>-<YYYYmmdd-HHMMSS>``, suffixed -1, -2, ... when taken.

    Each name is claimed by an exclusive ``mkdir``, so two processes started in the
    same second get two folders. ``parent`` is created when missing.
    """
    base = os.path.join(parent, f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(parent, exist_ok=True)
    path, k = base, 1
    while True:
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            path, k = f"{base}-{k}", k + 1

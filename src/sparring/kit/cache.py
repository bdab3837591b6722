"""Numba's on-disk cache for kit-compiled code, invalidated by a change anywhere in the env's folder or the kit.

Numba stamps a cached function with its own source file only. A ``helper`` in
``env.py`` that inlines a ``kernel`` from ``rules.py`` therefore kept running
the old rules after ``rules.py`` changed. Functions compiled through the kit
carry a marker; for them, a locator placed first in Numba's list stamps the
cache entry with a digest of every ``.py`` file in the function's folder and
in the kit.
"""

from __future__ import annotations

import functools
import hashlib
import os

from numba.core import caching

KIT_DIR = os.path.dirname(os.path.abspath(__file__))
MARKER = "_sparring_cached"


def cache_root() -> str:
    """The cache folder: ``NUMBA_CACHE_DIR`` when set, else ``~/.cache/sparring/numba``."""
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "sparring", "numba")


def source_digest(*folders: str) -> str:
    """Hash of the names and contents of every ``.py`` file directly in ``folders``."""
    h = hashlib.sha256()
    for folder in folders:
        for fname in sorted(os.listdir(folder)):
            if fname.endswith(".py"):
                with open(os.path.join(folder, fname), "rb") as fh:
                    h.update(fname.encode() + b"\0" + fh.read())
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _folder_stamp(folder: str) -> str:
    return source_digest(folder, KIT_DIR)


class FolderStampedLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator for kit-compiled functions: stamped by their folder and the kit, not their file."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(cache_root(), self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return _folder_stamp(os.path.dirname(os.path.abspath(self._py_file)))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not getattr(py_func, MARKER, False):
            return None
        return super().from_function(py_func, py_file)


def mark(fn):
    """Flag ``fn`` so that its Numba cache entry uses :class:`FolderStampedLocator`."""
    setattr(fn, MARKER, True)
    return fn


if FolderStampedLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, FolderStampedLocator)

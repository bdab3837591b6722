"""Numba's on-disk cache for kit-compiled code, invalidated by a change to any file the code can depend on.

Numba stamps a cached function with its own source file only. A ``helper`` in
``env.py`` that inlines a ``kernel`` from ``rules.py`` therefore kept running
the old rules after ``rules.py`` changed. Functions compiled through the kit
carry a marker; for them, a locator placed first in Numba's list stamps the
cache entry with a digest of the function's file, of every file of its folder
that file imports (directly or through other files of the folder: a compiled
function can only reach code and constants of modules its module imports), and
of the kit. Editing ``observe.py`` then recompiles what imports it, while the
rules' helpers in files that never import it load from the cache.
"""

from __future__ import annotations

import ast
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


def _imported_files(path: str, package: str) -> set[str]:
    """The files of ``path``'s folder that it imports, ``package`` being the folder's dotted module name."""
    folder = os.path.dirname(path)
    with open(path, "rb") as fh:
        tree = ast.parse(fh.read(), path)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative to the folder's package
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    found = set()
    for name in names:
        if package and name == package:
            found.add(os.path.join(folder, "__init__.py"))
        elif package and name.startswith(package + "."):
            found.add(os.path.join(folder, name[len(package) + 1 :].split(".")[0] + ".py"))
        elif not package:  # a top-level module: its siblings are top-level modules too
            found.add(os.path.join(folder, name.split(".")[0] + ".py"))
    return {f for f in found if os.path.isfile(f)}


@functools.lru_cache(maxsize=None)
def _kit_digest() -> str:
    return source_digest(KIT_DIR)


@functools.lru_cache(maxsize=None)
def _file_stamp(path: str, package: str) -> str:
    """Digest of ``path``, the files of its folder it imports (transitively) and the kit."""
    seen, todo = set(), [path]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(_imported_files(current, package) - seen)
    h = hashlib.sha256()
    for name in sorted(seen):
        with open(name, "rb") as fh:
            h.update(os.path.basename(name).encode() + b"\0" + fh.read())
    h.update(_kit_digest().encode())
    return h.hexdigest()


class FolderStampedLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator for kit-compiled functions: stamped by their file, the files of its folder it imports,
    and the kit (see the module docstring)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        module = py_func.__module__
        self._package = module if os.path.basename(py_file) == "__init__.py" else module.rpartition(".")[0]
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(cache_root(), self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return _file_stamp(os.path.abspath(self._py_file), self._package)

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

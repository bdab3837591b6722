"""Env registry: names to env classes, lazily imported, plus the ``sparring.envs`` entry points."""

from __future__ import annotations

import importlib

_REGISTRY: dict[str, object] = {}
ENTRY_POINT_GROUP = "sparring.envs"


def register(name: str, target, replace: bool = False) -> None:
    """Register an env class, or a ``"module:Class"`` string imported on first use, as ``name``.

    A name already taken by another env is refused (a ValueError) unless ``replace``. Registering
    the same target again (a class and its ``"module:Class"`` string are the same target), as a
    module imported twice does, is fine.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"env name must be a non-empty string, got {name!r}")
    if not isinstance(target, type) and not (isinstance(target, str) and ":" in target):
        raise ValueError(f"env {name!r} must be registered as an env class or a 'module:Class' string, got {target!r}")
    if not replace and name in _REGISTRY and _spelled(_REGISTRY[name]) != _spelled(target):
        raise ValueError(
            f"env name {name!r} is taken by {_spelled(_REGISTRY[name])}; choose another name, or pass "
            f"replace=True to register {_spelled(target)} in its place"
        )
    _REGISTRY[name] = target


def _spelled(target) -> str:
    """A registry target as ``"module:Class"``, whether it is that string or the class it names."""
    return target if isinstance(target, str) else f"{target.__module__}:{target.__qualname__}"


def _load_entry_points() -> None:
    from importlib.metadata import entry_points  # about 50 ms: only when names are looked up

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _REGISTRY.setdefault(ep.name, ep.value)  # an installed package never replaces a registered env


def names() -> list[str]:
    """Every registered env name, sorted."""
    _load_entry_points()
    return sorted(_REGISTRY)


def target(name: str):
    """What ``name`` was registered as: a ``"module:Class"`` string not imported yet, or the env class."""
    if name not in _REGISTRY:
        _load_entry_points()
    if name not in _REGISTRY:
        raise LookupError(f"unknown env {name!r}; known envs: {', '.join(names()) or '(none)'}")
    return _REGISTRY[name]


def get(name: str) -> type:
    """The env class registered as ``name``; unknown names list the known ones."""
    _load_entry_points()
    if name not in _REGISTRY:
        raise LookupError(f"unknown env {name!r}; known envs: {', '.join(names()) or '(none)'}")
    target = _REGISTRY[name]
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        target = getattr(importlib.import_module(module), attr)
        _REGISTRY[name] = target
    return target


def make(name: str, num_envs: int = 1, seed: int = 0, num_threads: int = 1, **config):
    """A :class:`~sparring.kit.batch.BatchedEnv` of the env registered as ``name`` (``num_threads``: threads
    stepping slices of the batch)."""
    from sparring.kit.batch import BatchedEnv  # Numba loads here, not for the registry's names

    return BatchedEnv(get(name), num_envs=num_envs, seed=seed, num_threads=num_threads, **config)

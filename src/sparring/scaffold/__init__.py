"""Env authoring: ``sparring new`` templates and the ``sparring list`` summary.

The names load on first use (module ``__getattr__``), so ``sparring list`` does not import the templates.
"""

import importlib

_HOMES = {"Scaffold": "new", "new_env": "new", "env_summary": "listing"}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """``sparring.scaffold.NAME``: the name from its module, imported now."""
    if name not in _HOMES:
        raise AttributeError(f"module 'sparring.scaffold' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"sparring.scaffold.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))

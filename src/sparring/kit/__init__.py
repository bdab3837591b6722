"""The env kit: declare mechanics, get batching, snapshots, adapters and checks.

The names below load on first use (module ``__getattr__``), so importing ``sparring.kit`` or one of
its light modules (the registry, files, progress) does not import Numba: ``sparring --help`` and
``sparring list`` start fast.
"""

import importlib

_HOMES = {
    "BatchedEnv": "batch",
    "get": "registry",
    "make": "registry",
    "names": "registry",
    "register": "registry",
    "rand_float": "rng",
    "rand_int": "rng",
    "rand_u64": "rng",
    "Env": "spec",
    "Heads": "spec",
    "NoConfig": "spec",
    "Obs": "spec",
    "choice": "spec",
    "helper": "spec",
    "kernel": "spec",
    "knob": "spec",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """``sparring.kit.NAME``: the name from its module, imported now."""
    if name not in _HOMES:
        raise AttributeError(f"module 'sparring.kit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"sparring.kit.{_HOMES[name]}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))

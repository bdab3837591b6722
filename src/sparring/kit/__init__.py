"""The env kit: declare mechanics, get batching, snapshots, adapters and checks.

The names below load on first use (module ``__getattr__``), so importing ``sparring.kit`` or one of
its light modules (the registry, files, progress) does not import Numba: ``sparring --help`` and
``sparring list`` start fast.
"""

from sparring.kit.lazy import lazy_names

_HOMES = {
    "BatchedEnv": "sparring.kit.batch",
    "get": "sparring.kit.registry",
    "make": "sparring.kit.registry",
    "names": "sparring.kit.registry",
    "register": "sparring.kit.registry",
    "rand_float": "sparring.kit.rng",
    "rand_int": "sparring.kit.rng",
    "rand_u64": "sparring.kit.rng",
    "Env": "sparring.kit.spec",
    "Heads": "sparring.kit.spec",
    "NoConfig": "sparring.kit.spec",
    "Obs": "sparring.kit.spec",
    "choice": "sparring.kit.spec",
    "helper": "sparring.kit.spec",
    "kernel": "sparring.kit.spec",
    "knob": "sparring.kit.spec",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_names(__name__, _HOMES)

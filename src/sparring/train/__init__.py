"""PPO training: policies, rollouts, updates, opponents, checkpoints, run folders.

``sparring.train.run.train`` is what ``sparring train`` calls; ``Trainer`` is the loop's core.
Names load lazily, so env worker processes (``sparring.train.vec``) start without importing torch.
"""

import importlib

_EXPORTS = {
    "TrainConfig": "sparring.train.config",
    "make_train_config": "sparring.train.config",
    "Trainer": "sparring.train.trainer",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sparring.train' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)

"""PPO training: policies, rollouts, updates, opponents, checkpoints, run folders.

``sparring.train.run.train`` is what ``sparring train`` calls; ``Trainer`` is the loop's core.
Names load lazily, so env worker processes (``sparring.train.vec``) start without importing torch.
"""

from sparring.kit.lazy import lazy_names

_EXPORTS = {
    "TrainConfig": "sparring.train.config",
    "make_train_config": "sparring.train.config",
    "Trainer": "sparring.train.trainer",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_names(__name__, _EXPORTS)

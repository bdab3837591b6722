"""PPO training: policies, rollouts, updates, opponents, checkpoints, run folders.

``sparring.train.run.train`` is what ``sparring train`` calls; ``Trainer`` is the loop's core.
"""

from sparring.train.config import TrainConfig, make_train_config
from sparring.train.trainer import Trainer

__all__ = ["TrainConfig", "Trainer", "make_train_config"]

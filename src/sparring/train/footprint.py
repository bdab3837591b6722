"""The memory a training run will take, checked before anything is allocated: a size too big for the machine is
one line naming the settings to lower, not a MemoryError halfway through building the trainer."""

from __future__ import annotations

from sparring.kit.batch import env_bytes
from sparring.kit.config import make_config
from sparring.kit.memory import check_fits
from sparring.players.policy import onehot_values
from sparring.train.config import TrainConfig

_FLOAT = 4


def training_bytes(env_cls: type, env_config: dict, cfg: TrainConfig) -> int:
    """About the bytes of the env batch, the rollout buffers, the policy with its gradients and Adam moments, and
    one minibatch's inputs of a run of ``cfg`` on ``env_cls`` (an upper estimate: every row counted as a learner)."""
    spec = env_cls.obs_spec(make_config(env_cls, env_config))
    rows = cfg.num_envs * env_cls.num_agents
    heads = len(env_cls.actions.sizes)
    sample = spec.size * spec.dtype.itemsize + env_cls.actions.total + 8 * heads + 5 * _FLOAT
    inputs = spec.size * max(1, onehot_values(spec, cfg.onehot_obs))
    encoders = 2 if cfg.critic == "separate" else 1
    params = (
        encoders * (inputs * cfg.hidden + cfg.layers * cfg.hidden * cfg.hidden)
        + cfg.hidden * (env_cls.actions.total + 1)
        + (8 * cfg.hidden * cfg.hidden if cfg.recurrence != "none" else 0)
    )
    minibatch = min(cfg.minibatch_size, cfg.horizon * rows) * inputs * _FLOAT * 2
    return cfg.num_envs * env_bytes(env_cls, spec) + cfg.horizon * rows * sample + 4 * _FLOAT * params + minibatch


def check_training_memory(env_cls: type, env_config: dict, cfg: TrainConfig) -> None:
    """Raise ValueError when a run of ``cfg`` on ``env_cls`` would need more memory than is available."""
    check_fits(
        training_bytes(env_cls, env_config, cfg),
        f"training {env_cls.name!r} (env config {env_config or 'default'}) with num_envs={cfg.num_envs}, "
        f"horizon={cfg.horizon}, hidden={cfg.hidden}, minibatch_size={cfg.minibatch_size}",
        "lower --train.num_envs, --train.horizon, --train.hidden or --train.minibatch_size, or the env's size "
        "(--env.KEY)",
    )

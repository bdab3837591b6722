"""The env batch of a ``train.vec`` backend: in-process, multi-process, or Ray actors."""

from __future__ import annotations

from sparring.kit.batch import BatchedEnv


def make_env(env_cls: type, num_envs: int, seed: int, vec: str = "inprocess", workers: int = 2,
             ray_address: str = "", **config):
    """The env batch of the ``vec`` backend: ``inprocess`` (BatchedEnv), ``multiprocess``, or ``ray``
    (actors on the Ray cluster at ``ray_address``, or on a local Ray instance when it is empty)."""
    if vec == "inprocess":
        return BatchedEnv(env_cls, num_envs=num_envs, seed=seed, **config)
    if vec == "multiprocess":
        from sparring.train.vec import MultiprocessEnv

        return MultiprocessEnv(env_cls, num_envs=num_envs, seed=seed, workers=workers, **config)
    if vec == "ray":
        from sparring.train.vec_ray import RayEnv

        return RayEnv(env_cls, num_envs=num_envs, seed=seed, workers=workers, address=ray_address, **config)
    raise ValueError(f"unknown env backend {vec!r}; valid: inprocess, multiprocess, ray")

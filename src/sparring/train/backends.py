"""The env batch of a ``train.vec`` backend: in-process or multi-process (``ray`` is data-parallel training,
:mod:`sparring.train.parallel`, whose workers each hold an in-process batch)."""

from __future__ import annotations

from sparring.kit.batch import BatchedEnv


def make_env(
    env_cls: type,
    num_envs: int,
    seed: int,
    vec: str = "inprocess",
    workers: int = 2,
    keep_final: bool = False,
    num_threads: int = 1,
    **config,
):
    """The env batch of the ``vec`` backend: ``inprocess`` (BatchedEnv) or ``multiprocess``.
    ``keep_final``: finished envs also write their final observation to ``final_obs`` (a rollout
    bootstraps truncated episodes from it). ``num_threads``: threads stepping the in-process batch
    (the other backends split the batch over processes instead and take 1)."""
    if vec != "inprocess" and num_threads != 1:
        raise ValueError(
            f"env threads ({num_threads}) step the inprocess backend only; with vec={vec!r} set train.env_threads "
            "to 1 (or 0) and split the batch with train.workers"
        )
    if vec == "inprocess":
        return BatchedEnv(
            env_cls, num_envs=num_envs, seed=seed, keep_final=keep_final, num_threads=num_threads, **config
        )
    if vec == "multiprocess":
        from sparring.train.vec import MultiprocessEnv

        return MultiprocessEnv(env_cls, num_envs=num_envs, seed=seed, workers=workers, keep_final=keep_final, **config)
    if vec == "ray":
        raise ValueError(
            "vec 'ray' is data-parallel training (sparring.train.parallel.ParallelTrainer), not an env batch of one "
            "learner; valid env backends: inprocess, multiprocess"
        )
    raise ValueError(f"unknown env backend {vec!r}; valid: inprocess, multiprocess")

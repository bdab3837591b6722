"""One data-parallel PPO worker, run as a Ray actor: a whole trainer over its slice of the envs.

Rank ``r`` of ``K`` holds envs ``[lo, hi)`` of the batch (env ``i`` seeded from ``(seed, i)`` as
in-process), its own copy of the policy and optimizer, and a :class:`~sparring.train.trainer.Trainer`
over them: it plays the full rollout, computes GAE where the data is, and takes its shard of every
minibatch in the update, whose gradients the group averages (:mod:`sparring.train.distributed`). Nothing
but the iteration's step count goes in and its metrics come out; weights move only at the start, on a
resume and at a checkpoint.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from sparring.kit.batch import BatchedEnv
from sparring.kit.rng import mix_seed
from sparring.train.config import TrainConfig
from sparring.train.distributed import DataParallel, free_port, init_group
from sparring.train.trainer import Trainer

RANK_SEED = 7919  # rank r > 0 samples actions from torch seed (seed + r * RANK_SEED); rank 0 from the run's seed


def seed_slice(env: BatchedEnv, seed: int, first: int) -> None:
    """Start fresh episodes with env ``j`` of this slice seeded from (seed, first + j), as in-process."""
    env.seed = int(seed)
    base = np.uint64(env.seed % 2**64)
    env.records["rng"][:] = [mix_seed(base, np.uint64(first + j)) for j in range(env.num_envs)]
    env.reset_envs(None)


class Worker:
    """Rank ``rank`` of ``world``: envs ``[lo, hi)`` of a run of ``cfg`` (see the module's docstring).

    The actor's constructor only keeps its arguments; :meth:`build` makes the trainer, so that a bad setting is
    a task's error the run reports as itself, not an actor that died while it was made.
    """

    def __init__(self, rank: int, world: int, lo: int, hi: int):
        self.rank, self.world, self.lo, self.hi = rank, world, lo, hi
        self.trainer: Trainer | None = None

    def build(self, env_name: str, cfg: TrainConfig, env_config: dict, opponent, seats: dict) -> None:
        """This slice's trainer: its envs seeded as in-process, its policy and optimizer."""
        local = dataclasses.replace(
            cfg, vec="inprocess", num_envs=self.hi - self.lo, threads=max(1, cfg.threads), init=""
        )
        self.trainer = Trainer(env_name, local, env_config, opponent, seats, warm=False)
        seed_slice(self.trainer.env, cfg.seed, self.lo)
        if self.rank:  # the initial weights are every rank's alike (the same seed drew them); the actions are not
            torch.manual_seed(cfg.seed + self.rank * RANK_SEED)

    def rendezvous(self) -> tuple[str, int]:
        """Rank 0's node address and a port free there, for the group's ``tcp://`` initialisation."""
        import ray

        host = ray.util.get_node_ip_address()
        return host, free_port(host)

    def join(self, host: str, port: int, backend: str) -> None:
        """Join the process group (returns once every rank has)."""
        init_group(host, port, self.rank, self.world, backend)
        self.trainer.parallel = DataParallel()

    def describe(self) -> dict:
        """Where this worker runs and the shapes a checkpoint of the whole run needs from it."""
        import ray

        rollout = self.trainer.rollout
        return {
            "node": ray.get_runtime_context().get_node_id(),
            "rows": len(rollout.rows_np),
            "state": [tuple(s.shape) for s in rollout.state],
        }

    def iterate(self, global_step: int, elapsed: float) -> dict:
        """One rollout and this rank's part of the update, at the run's ``global_step`` and ``elapsed`` seconds
        (they set the learning rate and the env anneal alike on every rank); returns the iteration's metrics."""
        trainer = self.trainer
        trainer.global_step, trainer.elapsed = global_step, elapsed
        metrics = trainer.iterate()
        metrics["perf/comm_s"] = trainer.parallel.drain_comm_s()
        return metrics

    def weights(self) -> tuple[dict, dict]:
        """The policy's weights and the optimizer's state (every rank's are the same)."""
        trainer = self.trainer
        weights = {k: v.detach().cpu() for k, v in trainer.policy.state_dict().items()}
        return weights, trainer.optimizer.state_dict()

    def state(self) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """This slice's env records, its trained rows' ``just_done`` and recurrent memory."""
        trainer = self.trainer
        rollout = trainer.rollout
        return (
            trainer.env.snapshot(),
            rollout.just_done.cpu().numpy(),
            [s.cpu().numpy() for s in rollout.state],
        )

    def load(self, weights: dict, optimizer: dict | None, progress: dict | None) -> None:
        """Set the weights (and the optimizer's state); with ``progress`` (records, just_done and recurrent
        memory of this slice, and the step counts) the rollout goes on from there."""
        trainer = self.trainer
        trainer.policy.load_state_dict(weights)
        if optimizer is not None:
            trainer.optimizer.load_state_dict(optimizer)
        if progress is not None:
            progress = dict(progress, recurrent_state=[torch.from_numpy(s) for s in progress["recurrent_state"]])
            trainer.load_train_state({**progress, "opponent": None})

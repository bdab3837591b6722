"""Data-parallel PPO on Ray: ``train.workers`` whole workers, each with its envs and its policy copy.

:class:`ParallelTrainer` is the run's side of ``--train.vec ray``. It places K
:class:`~sparring.train.parallel_worker.Worker` actors in one Ray placement group (a bundle of
``max(1, train.threads)`` CPUs, and a GPU with ``train.device cuda``, per worker, spread over the
nodes), joins them in one ``torch.distributed`` group (gloo, or NCCL on GPUs), and then sends each
iteration nothing but the step count: every worker plays the full rollout of its slice, computes its
GAE, and takes its shard of every minibatch, gradients averaged by an all-reduce
(:mod:`sparring.train.distributed`), so the K policies stay identical without any weight broadcast.
The algorithm is in-process PPO's: the same rollout length, minibatch size, epochs and losses, with
each minibatch the union of the workers' equal shards (see :func:`~sparring.train.ppo.ppo_update`).

It has the interface the run loop and checkpoints use (``iterate``, ``train_state``,
``load_train_state``, ``policy``, ``optimizer``, ``env``, ...): a checkpoint holds the whole batch's
env records and memory in in-process order, so a run resumes on any worker count that divides
``num_envs``. A worker that dies raises :class:`~sparring.kit.remote.WorkerLost`; :meth:`restart` starts the
group anew, and the run loop then loads its last checkpoint (:func:`sparring.train.run.train`).
"""

from __future__ import annotations

import time
import uuid

import numpy as np
import torch

from sparring.kit import registry
from sparring.kit.batch import BatchedEnv
from sparring.kit.config import make_config
from sparring.kit.remote import gather
from sparring.players.policy import policy_for
from sparring.train.config import TrainConfig
from sparring.train.opponents import make_opponent
from sparring.train.optim import make_optimizer
from sparring.train.ray_cluster import init_ray
from sparring.train.schedule import parse_anneal
from sparring.train.teacher import load_init
from sparring.train.trainer import Budget

START_TIMEOUT_S = 120.0  # workers that cannot be placed (too few CPUs) would otherwise wait forever


def check_parallel(cfg: TrainConfig, opponent: str | None) -> None:
    """One line naming a setting data-parallel training does not run, and what would."""
    refused = [
        (
            cfg.policies != "shared" or cfg.league or cfg.league_seats,
            "populations and leagues (train.policies, league)",
        ),
        (opponent == "self", "self-play against a pool of past policies (--opponent self)"),
        (cfg.curriculum, "start-state curricula (train.curriculum)"),
        (cfg.archive_fraction > 0 or cfg.archive_start, "Go-Explore restarts (train.archive_fraction, --archive)"),
        (cfg.imitate, "the cloning warm start (train.imitate; clone in-process, then --train.init the clone)"),
        (cfg.kl_teacher, "the KL teacher (train.kl_teacher)"),
    ]
    for bad, what in refused:
        if bad:
            raise ValueError(f"--train.vec ray does not run {what} yet; use --train.vec inprocess for it")
    if not 1 <= cfg.workers <= cfg.num_envs or cfg.num_envs % cfg.workers:
        raise ValueError(
            f"--train.workers {cfg.workers}: data-parallel workers take equal slices of --train.num_envs "
            f"{cfg.num_envs}; use a worker count that divides it"
        )


class WorkerEnvs:
    """The run's env batch as a checkpoint sees it: the whole batch's config and layout, and the envs of each
    worker's slice, ``bounds[r]:bounds[r + 1]`` (the envs themselves live in the workers)."""

    def __init__(self, env_cls: type, num_envs: int, workers: int, config: dict):
        self.env_cls, self.config = env_cls, make_config(env_cls, config)
        self.num_envs = int(num_envs)
        self.obs_spec, self.heads = env_cls.obs_spec(self.config), env_cls.actions
        self.bounds = np.arange(workers + 1, dtype=np.int64) * (self.num_envs // workers)


class _Memory:
    """The rollout state a checkpoint is shaped by: ``just_done`` and recurrent memory of every trained row."""

    def __init__(self, rows: int, shapes: list[tuple]):
        self.just_done = torch.zeros(rows, dtype=torch.bool)
        self.state = tuple(torch.zeros((rows, *shape[1:])) for shape in shapes)


def merge_metrics(parts: list[dict]) -> dict:
    """One iteration's metrics from every worker's: episode means weighted by each worker's episodes, timings
    the slowest worker's, losses and the rest the mean."""
    out = {}
    episodes = [p.get("env/episodes", 0) for p in parts]
    for key in {k for p in parts for k in p}:
        values = [p[key] for p in parts if key in p]
        if key == "env/episodes":
            out[key] = sum(values)
        elif key.startswith("env/"):
            weights = [n for p, n in zip(parts, episodes) if key in p]
            out[key] = sum(v * w for v, w in zip(values, weights)) / max(1, sum(weights))
        elif key.startswith("perf/"):
            out[key] = max(values)
        else:
            out[key] = sum(values) / len(values)
    return out


class ParallelTrainer(Budget):
    """PPO on ``env_name`` over ``cfg.workers`` Ray workers (the arguments of :class:`~sparring.train.Trainer`)."""

    population = restarts = curriculum = teacher = opponent = None  # refused by check_parallel

    def __init__(
        self,
        env_name: str,
        cfg: TrainConfig,
        env_config: dict | None = None,
        opponent: str | None = None,
        seats: dict | None = None,
        warm: bool = True,
    ):
        check_parallel(cfg, opponent)
        parse_anneal(cfg.env_anneal)  # a bad entry is one line before any worker starts
        self.env_name, self.cfg, self.opponent_name, self.seats = env_name, cfg, opponent, dict(seats or {})
        env_cls = registry.get(env_name)
        self.env_config, _ = make_opponent(env_cls, opponent, dict(env_config or {}), cfg, seats=self.seats)
        torch.manual_seed(cfg.seed)
        probe = BatchedEnv(env_cls, 1, cfg.seed, **self.env_config)
        self.env = WorkerEnvs(env_cls, cfg.num_envs, cfg.workers, self.env_config)
        self.policy = policy_for(probe, cfg)  # the weights every worker starts from, and a checkpoint's copy
        if cfg.init and warm:
            load_init(self.policy, cfg.init, env_name, probe)
        self.optimizer = make_optimizer(self.policy, cfg.optimizer, cfg.lr)
        self.global_step, self.iteration, self.elapsed = 0, 0, 0.0
        self._workers, self._group = [], None
        init_ray(cfg.ray_address, cfg.workers * max(1, cfg.threads))  # a local instance has a bundle for each
        self._start()
        self._push(optimizer=False)

    @property
    def batch_size(self) -> int:
        """Learner agent-steps per iteration, over every worker."""
        return self.cfg.horizon * len(self.rollout.just_done)

    def _start(self) -> None:
        """Place the workers, build their trainers and join them in one process group."""
        import ray
        from ray.util.placement_group import placement_group, remove_placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        from sparring.train.parallel_worker import Worker

        cfg, k = self.cfg, self.cfg.workers
        gpu = cfg.device == "cuda"
        bundle = {"CPU": max(1, cfg.threads), **({"GPU": 1} if gpu else {})}
        self._group = placement_group([bundle] * k, strategy="SPREAD")
        try:
            ray.get(self._group.ready(), timeout=START_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            remove_placement_group(self._group)
            self._group = None
            raise RuntimeError(
                f"{k} data-parallel workers of {bundle} each could not be placed within {START_TIMEOUT_S:g} s; "
                f"the Ray cluster has {ray.cluster_resources()}: use fewer --train.workers (or --train.threads)"
            ) from None
        actor = ray.remote(Worker)
        bounds, group = self.env.bounds, uuid.uuid4().hex[:8]
        self._workers = [
            actor.options(
                name=f"sparring-{self.env_name}-{group}-rank{r}",  # `ray list actors` shows whose it is
                num_cpus=bundle["CPU"],
                num_gpus=bundle.get("GPU", 0),
                scheduling_strategy=PlacementGroupSchedulingStrategy(self._group, placement_group_bundle_index=r),
            ).remote(r, k, bounds[r], bounds[r + 1])
            for r in range(k)
        ]
        try:
            setting = (self.env_name, cfg, self.env_config, self.opponent_name, self.seats)
            self._get([w.build.remote(*setting) for w in self._workers])
            host, port = self._get([self._workers[0].rendezvous.remote()])[0]
            self._get([w.join.remote(host, port, "nccl" if gpu else "gloo") for w in self._workers])
            described = self._get([w.describe.remote() for w in self._workers])
        except BaseException:
            self.close()
            raise
        self.rollout = _Memory(sum(d["rows"] for d in described), described[0]["state"])
        self._rows = np.cumsum([0] + [d["rows"] for d in described])

    def _get(self, refs: list) -> list:
        """The workers' results (:func:`sparring.kit.remote.gather`: a dead worker is :class:`WorkerLost`)."""
        return gather(refs, "data-parallel worker")

    def iterate(self) -> dict:
        """One iteration on every worker (rollout, GAE and the shared update); returns its metrics."""
        start = time.perf_counter()
        parts = self._get([w.iterate.remote(self.global_step, self.elapsed) for w in self._workers])
        end = time.perf_counter()
        metrics = merge_metrics(parts)
        self.elapsed += end - start
        self.global_step += self.batch_size
        self.iteration += 1
        metrics.update(
            {
                "train/step": self.global_step,
                "train/iteration": self.iteration,
                "train/sps": self.batch_size / (end - start),
                "train/elapsed_s": self.elapsed,
                "perf/iteration_s": end - start,
            }
        )
        return metrics

    def train_state(self) -> dict:
        """The whole run's state for a checkpoint (rank 0's weights and optimizer are copied into ``policy`` and
        ``optimizer``, which the checkpoint writes)."""
        (weights, optimizer), *_ = self._get([self._workers[0].weights.remote()])
        self.policy.load_state_dict(weights)
        self.optimizer.load_state_dict(optimizer)
        parts = self._get([w.state.remote() for w in self._workers])
        return {
            "global_step": self.global_step,
            "iteration": self.iteration,
            "elapsed": self.elapsed,
            "just_done": np.concatenate([p[1] for p in parts]),
            "records": np.concatenate([p[0] for p in parts]),
            "recurrent_state": [torch.from_numpy(np.concatenate(s)) for s in zip(*(p[2] for p in parts))],
            "opponent": None,
        }

    def load_train_state(self, state: dict) -> None:
        """Restore what :meth:`train_state` returned (after ``policy`` and ``optimizer`` were loaded): every
        worker gets the weights, the optimizer's state and its slice of the records and memory."""
        self.global_step, self.iteration, self.elapsed = state["global_step"], state["iteration"], state["elapsed"]
        self._push(
            progress={
                "records": np.asarray(state["records"]),
                "just_done": np.asarray(state["just_done"], np.bool_),
                "recurrent_state": [np.asarray(s) for s in state["recurrent_state"]],
            }
        )

    def _push(self, optimizer: bool = True, progress: dict | None = None) -> None:
        """Send ``policy``'s weights (and ``optimizer``'s state, and each worker's slice of ``progress``: the
        records, ``just_done`` and recurrent memory of the whole batch)."""
        weights = {k: v.detach().cpu() for k, v in self.policy.state_dict().items()}
        opt = self.optimizer.state_dict() if optimizer else None
        steps = {"global_step": self.global_step, "iteration": self.iteration, "elapsed": self.elapsed}
        refs = []
        for r, worker in enumerate(self._workers):
            part = None
            if progress is not None:
                envs, rows = slice(self.env.bounds[r], self.env.bounds[r + 1]), slice(self._rows[r], self._rows[r + 1])
                part = {
                    **steps,
                    "records": progress["records"][envs],
                    "just_done": progress["just_done"][rows],
                    "recurrent_state": [s[rows] for s in progress["recurrent_state"]],
                }
            refs.append(worker.load.remote(weights, opt, part))
        self._get(refs)

    def restart(self) -> None:
        """Stop every worker and start the group anew from ``policy``'s weights (a run loop then loads the
        last checkpoint into it)."""
        self.close()
        self._start()
        self._push(optimizer=False)

    def close(self) -> None:
        """Stop the workers and free their placement group (idempotent; the Ray instance stays up)."""
        import ray
        from ray.util.placement_group import remove_placement_group

        for worker in self._workers:
            ray.kill(worker)
        self._workers = []
        if self._group is not None:
            remove_placement_group(self._group)
            self._group = None

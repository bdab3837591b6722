"""The PPO trainer: one env batch, one policy, rollouts and updates, resumable state."""

from __future__ import annotations

import os
import time

import numpy as np
import torch

from sparring.kit import registry
from sparring.players.policy import policy_for
from sparring.kit.batch import BatchedEnv
from sparring.train.config import TrainConfig
from sparring.train.curriculum import Curriculum
from sparring.train.curriculum_replay import ReplayRestarts
from sparring.train.curriculum_sources import load_start_states
from sparring.train.opponents import make_opponent
from sparring.train.optim import make_optimizer
from sparring.train.populations import SHARED, populate
from sparring.train.ppo import ppo_update
from sparring.train.rollout import Rollout
from sparring.train.schedule import EnvAnneal, parse_anneal
from sparring.train.teacher import TeacherKL, check_teacher, load_init


def pick_device(name: str) -> torch.device:
    """``auto`` picks cuda, then mps, then cpu; other names are checked for availability."""
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        return torch.device("mps" if mps is not None and mps.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("train device 'cuda' is not available here; valid: auto, cpu")
    if name == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError("train device 'mps' is not available here; valid: auto, cpu")
    return torch.device(name)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, so ``taskset`` and container limits count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def torch_threads_for(cfg: TrainConfig) -> int:
    """Torch's CPU threads: ``cfg.threads``, or with 0 every usable core.

    The rollout alternates inference and env steps and the update runs alone, so torch's threads
    and the env's never compete for a core (see :func:`env_threads_for`); leaving a core idle only
    loses its share of the update.
    """
    return cfg.threads or usable_cores()


def env_threads_for(cfg: TrainConfig, torch_threads: int) -> int:
    """Threads for the env batch: ``cfg.env_threads``, or with 0 the torch thread count.

    Torch and the env share the cores by taking turns: in a rollout, inference for step t runs,
    then the env steps, then inference for step t + 1; the update uses torch alone. So each may
    use every core it is given without the two oversubscribing the machine.
    """
    return cfg.env_threads or torch_threads


class Budget:
    """How far a trainer is through its budget, from ``cfg`` (steps, minutes), ``global_step`` and ``elapsed``."""

    def progress(self) -> float:
        """Fraction of the budget used (steps or minutes, whichever is further along); 0 without a budget."""
        parts = []
        if self.cfg.steps > 0:
            parts.append(self.global_step / self.cfg.steps)
        if self.cfg.minutes > 0:
            parts.append(self.elapsed / (60.0 * self.cfg.minutes))
        return min(1.0, max(parts)) if parts else 0.0

    def finished(self) -> bool:
        """Whether the budget is spent (never without a budget)."""
        return (self.cfg.steps > 0 or self.cfg.minutes > 0) and self.progress() >= 1.0


class Trainer(Budget):
    """PPO on the env registered as ``env_name``.

    Args:
      env_name: registry name; cfg: a :class:`TrainConfig`; env_config: env config
      overrides; opponent: ``None`` (the env's default), a value of the env's
      ``opponent`` knob, one of its scripted policies, or ``"self"`` (past-policy pool);
      seats: ``{seat name: player spec}`` for seats played by a fixed player (``--seat``);
      warm: load the weights of ``cfg.init`` when set (a resume passes False: its checkpoint's weights come instead).

    ``restarts`` holds the Go-Explore restarts (``train.archive_fraction`` > 0) and ``curriculum``
    the start-state curriculum (``train.curriculum``; :mod:`sparring.train.curriculum`, or for ``replay:N``
    :mod:`sparring.train.curriculum_replay`), else None;
    with both, the curriculum is the rollout's episode-end hook and offers every end to the archive first.
    ``teacher`` is the frozen teacher of ``train.kl_teacher`` (:mod:`sparring.train.teacher`), made at the first
    PPO update, else None. With ``train.vec ray`` this class is what each data-parallel worker runs over its slice
    of the envs (:mod:`sparring.train.parallel_worker`); the run itself is a
    :class:`~sparring.train.parallel.ParallelTrainer`.
    """

    def __init__(
        self,
        env_name: str,
        cfg: TrainConfig,
        env_config: dict | None = None,
        opponent: str | None = None,
        seats: dict | None = None,
        warm: bool = True,
    ):
        if cfg.vec != "inprocess":
            raise ValueError(
                f"train.vec {cfg.vec!r} trains with sparring.train.parallel.ParallelTrainer (sparring.train.run."
                "make_trainer picks it); Trainer trains in-process"
            )
        self.env_name, self.cfg = env_name, cfg
        check_teacher(cfg)
        torch.manual_seed(cfg.seed)
        torch_threads = torch_threads_for(cfg)
        torch.set_num_threads(torch_threads)
        self.env_threads = env_threads_for(cfg, torch_threads)
        self.device = pick_device(cfg.device)
        env_cls = registry.get(env_name)
        self.opponent_name, self.seats = opponent, dict(seats or {})
        env_config, self.opponent_factory = make_opponent(
            env_cls, opponent, dict(env_config or {}), cfg, seats=self.seats
        )
        self.env_config = env_config
        anneal = parse_anneal(cfg.env_anneal)
        starts = load_start_states(cfg.curriculum, env_cls, env_config) if cfg.curriculum else None  # checked too
        # keep_final: truncated episodes bootstrap from their final observation (see train.rollout)
        self.env = BatchedEnv(
            env_cls, cfg.num_envs, cfg.seed, keep_final=True, num_threads=self.env_threads, **env_config
        )
        self.policy = policy_for(self.env, cfg).to(self.device)
        self.policy.heads.to(self.device)
        if cfg.init and warm:
            try:
                load_init(self.policy, cfg.init, env_name, self.env)
            except Exception:
                self.close()
                raise
        self.optimizer = make_optimizer(self.policy, cfg.optimizer, cfg.lr)
        self.teacher: TeacherKL | None = None
        self.opponent, train_rows = self.opponent_factory(self.env, self.policy, self.device)
        self.population = None  # several policies (train.policies other than shared; sparring.train.populations)
        if cfg.policies != SHARED or cfg.league or cfg.league_seats:
            self.opponent, train_rows, self.population = populate(self, train_rows)
        self.rollout = Rollout(self.env, self.policy, cfg.horizon, train_rows, self.opponent, self.device)
        if self.population is not None:
            self.rollout.stats = self.population.stats  # a warm start's episodes and the population's, one log
        self.restarts = None  # Go-Explore restarts, the rollout's episode-end hook (train.archive_fraction > 0)
        if cfg.archive_fraction > 0:
            from sparring.explore.restarts import ArchiveRestarts

            self.restarts = ArchiveRestarts(
                self.env,
                self.rollout.rows_np,
                self.rollout.state,
                cfg.archive_fraction,
                cfg.archive_every,
                cfg.seed,
                cfg.archive_frontier,
                cfg.archive_start,
            )
            self.rollout.episode_end = self.restarts
        elif cfg.archive_start:
            raise ValueError(
                f"train.archive_start {cfg.archive_start!r} needs restarts to use it: set "
                "train.archive_fraction (or --archive F) above 0"
            )
        # the start-state curriculum owns the archive's hook when both are on (see train.curriculum)
        self.curriculum = None if starts is None else self._curriculum(starts)
        if self.curriculum is not None:
            self.rollout.episode_end = self.curriculum
        self.anneal = EnvAnneal(self.env, anneal) if anneal else None
        self.parallel = None  # a data-parallel worker's group (sparring.train.distributed): its update is a shard
        self.global_step = 0
        self.iteration = 0
        self.elapsed = 0.0  # seconds spent training, carried across resumes

    def _curriculum(self, starts):
        """The start-state curriculum of ``train.curriculum``: prioritized restarts (``replay:N``) or the group
        curriculum over the sources' states; it owns the archive's hook when both are on."""
        cfg = self.cfg
        if not starts.replay:
            return Curriculum(
                self.env,
                self.rollout.rows_np,
                self.rollout.state,
                starts,
                cfg.curriculum_true,
                cfg.curriculum_floor,
                cfg.curriculum_window,
                cfg.seed,
                archive=self.restarts,
            )
        return ReplayRestarts(
            self.env,
            self.rollout.rows_np,
            self.rollout.state,
            starts.replay,
            cfg.horizon,
            cfg.curriculum_every,
            cfg.curriculum_true,
            cfg.curriculum_fade,
            cfg.seed,
            archive=self.restarts,
        )

    def score_restarts(self) -> None:
        """After a rollout (PPO's or a warm start's): prioritized restarts (``replay:N``) score its snapshots."""
        if isinstance(self.curriculum, ReplayRestarts):
            self.curriculum.score_rollout(self.rollout, self.cfg.gamma, self.cfg.gae_lambda)

    def close(self) -> None:
        """Nothing to release in-process (a :class:`~sparring.train.parallel.ParallelTrainer` stops its workers)."""

    @property
    def batch_size(self) -> int:
        """Learner agent-steps per iteration."""
        return self.cfg.horizon * len(self.rollout.rows_np)

    def iterate(self) -> dict:
        """One rollout and one PPO update; returns this iteration's metrics."""
        start = time.perf_counter()
        lr = self.cfg.lr * (1.0 - self.progress()) if self.cfg.anneal_lr else self.cfg.lr
        knobs = self.anneal.apply(self.progress()) if self.anneal is not None else {}
        if self.population is None:
            self.optimizer.set_lr(lr)
            perf = self.rollout.collect()
            self.score_restarts()
            collected = time.perf_counter()
            if self.cfg.kl_teacher and self.teacher is None:  # PPO starts here, after any warm start
                self.teacher = TeacherKL(self.policy, self.cfg.kl_teacher, self.cfg.kl_teacher_until, self.global_step)
            coef = self.teacher.coef(self.global_step) if self.teacher is not None else 0.0
            teacher = self.teacher if coef > 0 else None  # faded out: the teacher's pass is skipped
            losses = ppo_update(self.policy, self.optimizer, self.rollout, self.cfg, teacher, coef, self.parallel)
        else:
            if self.iteration == 0 and self.global_step > 0:  # a warm start cloned policy 0 on every trained row
                self.population.broadcast(self.rollout)
            perf = self.population.collect()
            collected = time.perf_counter()
            losses = self.population.update(self.cfg, lr)
        if self.restarts is not None:
            losses.update(self.restarts.metrics())
        if self.curriculum is not None:
            losses.update(self.curriculum.metrics())
        end = time.perf_counter()
        self.elapsed += end - start
        self.global_step += self.batch_size
        self.iteration += 1
        if self.opponent is not None:
            self.opponent.after_update(self.iteration)
        metrics = {
            "train/step": self.global_step,
            "train/iteration": self.iteration,
            "train/lr": lr,
            "train/sps": self.batch_size / (end - start),
            "train/elapsed_s": self.elapsed,
            "perf/rollout_s": collected - start,
            "perf/update_s": end - collected,
            **perf,
            **losses,
            **knobs,
        }
        metrics.update(self.rollout.stats.drain())
        if self.opponent is not None:
            metrics.update(self.opponent.metrics())
        return metrics

    def train_state(self) -> dict:
        """Everything beyond weights and optimizer that a resume needs (JSON-able, plus arrays)."""
        return {
            "global_step": self.global_step,
            "iteration": self.iteration,
            "elapsed": self.elapsed,
            "just_done": self.rollout.just_done.cpu().numpy(),
            "records": self.env.snapshot(),
            "recurrent_state": [s.cpu() for s in self.rollout.state],
            "opponent": self.opponent.state() if self.opponent is not None else None,
        }

    def load_train_state(self, state: dict) -> None:
        """Restore what :meth:`train_state` returned (after weights and optimizer)."""
        self.global_step, self.iteration, self.elapsed = state["global_step"], state["iteration"], state["elapsed"]
        self.env.restore(None, state["records"])
        self.rollout.just_done = torch.from_numpy(np.asarray(state["just_done"], np.bool_)).to(self.device)
        self.rollout.state = tuple(s.to(self.device) for s in state["recurrent_state"])
        if self.opponent is not None and state.get("opponent") is not None:
            self.opponent.load_state(state["opponent"])

"""Go-Explore inside PPO: restart a fraction of episodes from archive cells where the policy is thin.

How it fits the rollout (``train.archive_fraction`` > 0): :class:`ArchiveRestarts` is the
rollout's episode-end hook (``sparring.train.rollout.EpisodeEndHook``):

- after every env step (:meth:`ArchiveRestarts.after_step`): restarted episodes that ended
  are counted against their cell (success = the episode's return is positive, i.e. a win or
  clear under a terminal reward); every ``archive_every`` steps the batch's records enter the
  archive with the policy's recurrent state of that moment;
- at the end of each rollout (:meth:`ArchiveRestarts.restart`): each env whose episode ended
  during the rollout (it now plays a fresh start) is restarted with probability ``fraction``
  from a cell drawn by :meth:`Archive.select`. Restarts happen between rollouts so a recurrent
  policy's stored state becomes the rollout's initial state, which PPO's training pass replays
  exactly; the fresh episode they cut short was bootstrapped with its value like any rollout end.

A restart loads the cell's record but keeps the env's own generator state, so restarts from
one cell see different dice. Restarted episodes count in the ``env/`` episode metrics like any
other (their return includes what the cell's trajectory earned before it).

Metrics per update: ``archive/cells``, ``archive/deepest`` (largest first cell field),
``archive/restarts`` (this update) and ``archive/restarts_total``, ``archive/restart_success``
(share of the restarted episodes that ended in the last rollout with a positive return).
"""

from __future__ import annotations

import os

import numpy as np

from sparring.explore.archive import REMEDY, Archive
from sparring.kit.files import reading


class ArchiveRestarts:
    """Archive upkeep and restarts for one trainer's env: the episode-end hook of its rollout.

    Args:
      env: the trainer's env (any vec backend); rows: the rollout's trained rows (grouped by env);
      state: the policy's recurrent state of those rows at the start (tensors [rows, hidden]; ``()``: none);
      fraction: probability that an ended episode's env restarts from the archive (0..1);
      every: env steps between snapshots into the archive; seed: seed of the cell draws;
      frontier: the selection's bias towards the deepest cells (:meth:`Archive.weights`);
      start: a folder saved by ``sparring explore`` whose cells, records and counts the archive
      begins with ("": none). Its cells carry no recurrent state, so a recurrent policy restarted
      from one starts from a zero state; its scores are compared with the run's as they are.
    """

    def __init__(
        self,
        env,
        rows: np.ndarray,
        state: tuple,
        fraction: float,
        every: int,
        seed: int,
        frontier: float = 0.0,
        start: str = "",
    ):
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"train.archive_fraction must be in (0, 1] to use the archive, got {fraction}")
        if every < 1:
            raise ValueError(f"train.archive_every must be a positive number of steps, got {every}")
        if frontier < 0:
            raise ValueError(f"train.archive_frontier must be >= 0 (0: no bias), got {frontier}")
        self.env, self.fraction, self.every = env, float(fraction), int(every)
        self.frontier = float(frontier)
        self.rows_per_env = rows_per_env(np.asarray(rows), env.num_envs, env.num_agents)
        self.seats = np.flatnonzero(np.asarray(env.learner_rows[: env.num_agents]))
        shape = (len(state), self.rows_per_env, state[0].shape[-1]) if state else ()
        self.archive = Archive(env.env_cls, shape) if not start else _explored(start, env.env_cls, shape, env.config)
        self.rng = np.random.default_rng([int(seed), 7])
        self.from_cell = np.full(env.num_envs, -1, np.int64)
        self.ticks = 0
        self.restarted = self.last_restarts = self.outcomes = self.wins = 0
        self._insert(np.zeros(env.num_envs, np.bool_), state)

    def scores(self, records: np.ndarray) -> np.ndarray:
        """Return so far of each record, averaged over the learner seats."""
        return records["ep_return"][:, self.seats].mean(axis=1)

    def after_step(self, done: np.ndarray, state: tuple) -> None:
        """After an env step: count ended restarts, and snapshot into the archive every ``every`` steps."""
        if done.any():
            ended = np.flatnonzero(done)
            mine = ended[self.from_cell[ended] >= 0]
            if mine.size:
                wins = np.asarray(self.env.ended_return)[mine] > 0
                self.archive.record_outcomes(self.from_cell[mine], wins)
                self.from_cell[mine] = -1
                self.outcomes += mine.size
                self.wins += int(wins.sum())
        self.ticks += 1
        if self.ticks % self.every == 0:
            self._insert(done, state)

    def _insert(self, done: np.ndarray, state: tuple) -> None:
        records = self.env.snapshot()
        states = None
        if self.archive.state_shape:
            # a finished env already shows its fresh start, which begins from a zero state
            keep = ~np.repeat(done, self.rows_per_env)[:, None]
            rows = [(s.detach().cpu().numpy() * keep).reshape(self.env.num_envs, self.rows_per_env, -1) for s in state]
            states = np.stack(rows, 1)
        self.archive.insert(records, self.scores(records), states)

    def restart(self, ended: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Restart a ``fraction`` of the ``ended`` envs from drawn cells; returns them and their recurrent states."""
        picked = ended[self.rng.random(ended.size) < self.fraction]
        self.last_restarts = int(picked.size)
        self.restarted += self.last_restarts
        if not picked.size:
            return picked, ()
        return picked, self.load_cells(picked, self.archive.select(picked.size, self.rng, self.frontier))

    def load_cells(self, envs: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, ...]:
        """Load the records of ``cells`` into ``envs`` (keeping their generators); returns the cells' recurrent
        states, one array [trained rows of ``envs``, hidden] per part of the policy's state."""
        records = self.archive.records[cells].copy()
        records["rng"] = self.env.snapshot(envs)["rng"]
        self.env.restore(envs, records)
        self.from_cell[envs] = cells
        if not self.archive.state_shape:
            return ()
        states = self.archive.states[cells]
        return tuple(states[:, k].reshape(-1, states.shape[-1]) for k in range(states.shape[1]))

    def metrics(self) -> dict:
        """``archive/`` metrics of the last rollout (restarts at its end, outcomes of restarts that ended in it)."""
        metrics = {
            "archive/cells": len(self.archive),
            "archive/deepest": self.archive.deepest(),
            "archive/restarts": self.last_restarts,
            "archive/restarts_total": self.restarted,
        }
        if self.outcomes:
            metrics["archive/restart_success"] = self.wins / self.outcomes
        self.outcomes, self.wins = 0, 0
        return metrics

    # -- checkpoints ------------------------------------------------------------------------
    def save(self, folder: str) -> None:
        """Write the archive and this controller's state into a checkpoint folder."""
        self.archive.save(
            folder,
            {
                "rng": self.rng.bit_generator.state,
                "from_cell": self.from_cell.tolist(),
                "ticks": self.ticks,
                "restarted": self.restarted,
            },
        )

    def load(self, folder: str) -> None:
        """Resume from what :meth:`save` wrote into ``folder``."""
        archive, extra = Archive.load(folder, self.env.env_cls, self.env.config)
        if archive.state_shape != self.archive.state_shape:
            raise ValueError(
                f"archive in {folder!r} stores recurrent states of shape {archive.state_shape}, this "
                f"run's policy has {self.archive.state_shape}"
            )
        with reading(os.path.join(folder, "archive.npz"), "checkpoint archive: its restart state", REMEDY):
            from_cell = np.asarray(extra["from_cell"], np.int64)
            if from_cell.shape != self.from_cell.shape or not (from_cell < len(archive)).all():
                raise ValueError(f"from_cell holds {from_cell.shape} cells for {self.from_cell.shape} envs")
            self.rng.bit_generator.state = extra["rng"]
            self.ticks, self.restarted = int(extra["ticks"]), int(extra["restarted"])
        self.archive, self.from_cell = archive, from_cell


def _explored(folder: str, env_cls: type, state_shape: tuple, config=None) -> Archive:
    """The archive saved in ``folder`` (by ``sparring explore``), with zero states of ``state_shape`` per cell;
    its records checked against the env ``config`` they will run under."""
    archive = Archive.load(folder, env_cls, config)[0]
    if archive.state_shape == state_shape:
        return archive
    if archive.state_shape:
        raise ValueError(
            f"archive in {folder!r} stores recurrent states of shape {archive.state_shape}, this run's "
            f"policy has {state_shape or 'none'}"
        )
    archive.state_shape = state_shape
    archive.states = np.zeros((len(archive), *state_shape), np.float32)
    return archive


def rows_per_env(rows: np.ndarray, num_envs: int, num_agents: int, what: str = "archive") -> int:
    """Trained rows per env, when every env has the same seats trained (rows grouped by env, in order); ``what``
    names the restarts that need it in the error (the archive, a curriculum)."""
    per_env = len(rows) // num_envs
    if per_env * num_envs != len(rows) or not np.array_equal(
        rows // num_agents, np.repeat(np.arange(num_envs), per_env)
    ):
        raise ValueError(
            f"the {what} needs the same trained seats in every env (rows grouped by env); this run "
            f"trains an uneven set of rows, e.g. a self-play pool seat: train without the {what}"
        )
    return per_env

"""Archive exploration (Go-Explore's first phase): choose a cell, return to it, explore from it.

Each env of a batch loads a cell chosen by :meth:`Archive.select` (a return by restore, not
by replaying actions), plays on with random or policy actions for up to ``segment`` ticks
or until its episode ends, and then loads another cell. After every step the batch's records
enter the archive. A restart whose episode ends counts as an outcome of its cell (success: a
positive return).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from sparring.explore.archive import Archive
from sparring.kit import registry
from sparring.kit.progress import silent
from sparring.players import RandomPlayer
from sparring.players.load import checkpoint_env_config
from sparring.players.opponents import resolve_seats, seat_players


def explore_player(spec: str, env, seed: int = 0):
    """``"random"`` or a checkpoint path (a run folder or checkpoints/step-N) as the player of every row."""
    if spec == "random":
        return RandomPlayer([int(seed), 11])
    from sparring.players.network import checkpoint_player  # torch loads only for a checkpoint

    return checkpoint_player(spec, env, seed)


def memory_shape(player, env) -> tuple:
    """The recurrent state the archive stores per env for ``player``: (parts, agents, hidden), or () for none."""
    memory = player.memory(env, np.arange(env.num_agents)) if hasattr(player, "memory") else None
    return () if memory is None else (memory.shape[1], env.num_agents, memory.shape[2])


def player_env_config(spec: str, env_name: str) -> dict:
    """The env config a checkpoint player was trained with ({} for random)."""
    if spec == "random":
        return {}
    try:
        return checkpoint_env_config(spec, env_name)
    except ValueError as exc:
        raise ValueError(f"explore --policy is 'random' or a checkpoint; {exc}") from None


class Explorer:
    """Archive exploration on ``num_envs`` envs of ``env_name``.

    Args:
      env_name: registered env; policy: ``"random"`` or a checkpoint path; num_envs: envs
      explored at once; seed: seed of the envs, cell draws and actions; segment: ticks
      explored from a cell before choosing another; env_config: env overrides;
      archive: an archive to continue (default: a new one holding the start states);
      seats: ``{seat name: player spec}`` for seats taken from outside that another player
      plays (the explored player plays the rest).
    """

    def __init__(
        self,
        env_name: str,
        policy: str = "random",
        num_envs: int = 64,
        seed: int = 0,
        segment: int = 100,
        env_config: dict | None = None,
        archive: Archive | None = None,
        seats: dict | None = None,
    ):
        if segment < 1:
            raise ValueError(f"explore segment must be a positive number of ticks, got {segment}")
        config = {**player_env_config(policy, env_name), **(env_config or {})}
        config, _, assigned = resolve_seats(registry.get(env_name), seats or {}, None, config)
        self.env = registry.make(env_name, num_envs=num_envs, seed=seed, **config)
        self.player = explore_player(policy, self.env, seed)
        self.seated = seat_players(self.env, self.player, None, None, assigned, seed)
        self.rows = np.arange(self.env.rows)
        self._actions = np.zeros((self.env.rows, len(self.env.heads.sizes)), np.int32)
        shape = memory_shape(self.player, self.env)
        self.archive = archive if archive is not None else Archive(self.env.env_cls, shape)
        if self.archive.state_shape != shape:
            raise ValueError(
                f"the archive stores recurrent states of shape {self.archive.state_shape}, but policy "
                f"{policy!r} has {shape}; explore it with a matching policy"
            )
        self.segment, self.rng = int(segment), np.random.default_rng([int(seed), 13])
        self.seats = np.flatnonzero(self.env.learner_rows[: self.env.num_agents])
        self.from_cell = np.full(num_envs, -1, np.int64)
        self.age = np.zeros(num_envs, np.int64)
        self.steps = 0
        self.outcomes = self.wins = 0
        self._insert()

    def _insert(self) -> int:
        records = self.env.snapshot()
        return self.archive.insert(records, records["ep_return"][:, self.seats].mean(axis=1), self._memory())

    def _memory(self) -> np.ndarray | None:
        """Per env, the player's memory entering the next tick, [envs, parts, agents, hidden] (None without)."""
        if not self.archive.state_shape:
            return None
        memory = self.player.memory(self.env, self.rows)
        return memory.reshape(self.env.num_envs, self.env.num_agents, *memory.shape[1:]).transpose(0, 2, 1, 3)

    def run(
        self, steps: int, on_save: Callable[["Explorer"], None] | None = None, every_s: float = 60.0, progress=None
    ) -> "Explorer":
        """Explore for ``steps`` env steps (one env stepping once counts one); ``on_save(self)`` is called every
        ``every_s`` seconds (to save the archive while a long exploration runs). ``progress`` (a
        :class:`~sparring.kit.progress.Progress`) counts the steps, with the cells found and the restarts."""
        if steps < 1:
            raise ValueError(f"explore steps must be a positive number, got {steps}")
        progress = progress or silent()
        env, first, goal, saved = self.env, self.steps, self.steps + int(steps), time.monotonic()
        progress.start(int(steps), unit="step")
        while self.steps < goal:
            self._return(np.flatnonzero(self.age == 0))
            for player, rows in self.seated:
                self._actions[rows] = player.act(env, rows)
            env.step(self._actions)
            done = env.done.copy()
            self._count_outcomes(np.flatnonzero(done))
            self._insert()
            self.age += 1
            self.age[done | (self.age >= self.segment)] = 0
            self.from_cell[self.age == 0] = -1
            self.steps += env.num_envs
            progress.update(
                self.steps - first, {"cells": len(self.archive), "restarts_ended": self.outcomes, "won": self.wins}
            )
            if on_save is not None and self.steps < goal and time.monotonic() - saved >= every_s:
                on_save(self)
                saved = time.monotonic()
        return self

    def _return(self, envs: np.ndarray) -> None:
        if not envs.size:
            return
        cells = self.archive.select(envs.size, self.rng)
        records = self.archive.records[cells].copy()
        records["rng"] = self.env.records["rng"][envs]  # own dice: returns to one cell diverge
        self.env.restore(envs, records)
        if self.archive.state_shape:
            rows = (envs[:, None] * self.env.num_agents + np.arange(self.env.num_agents)).reshape(-1)
            memory = self.archive.states[cells].transpose(0, 2, 1, 3)  # [envs, agents, parts, hidden]
            self.player.load_memory(self.env, rows, memory.reshape(len(rows), *memory.shape[2:]))
        self.from_cell[envs] = cells

    def _count_outcomes(self, ended: np.ndarray) -> None:
        mine = ended[self.from_cell[ended] >= 0]
        if mine.size:
            wins = self.env.ended_return[mine] > 0
            self.archive.record_outcomes(self.from_cell[mine], wins)
            self.outcomes += mine.size
            self.wins += int(wins.sum())

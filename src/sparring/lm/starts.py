"""Where GRPO's groups start: fresh episodes, the ticks of a recording, or the cells of a Go-Explore archive.

A spec is one of:

- ``fresh``: a new episode per group, seeded by the run;
- ``recording:PATH``: a ``sparring record`` / ``sparring play town --record`` Parquet file of the
  same env and config; each group starts from a recorded tick drawn uniformly;
- ``archive:DIR``: an archive folder (``sparring explore town --out DIR``, or a training
  checkpoint's); each group starts from a cell drawn by the archive's own selection (thin cells
  first). The archive does not keep the env config: use one made with the run's ``days``.

Recorded and archived states are drawn only where character 0 is alive with its goal not yet
done, so GRPO can practise the middle of a day without playing its morning again. A state
keeps its own dice, so a group's copies still differ only by the model's choices.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.town.world import GOAL_NAMES
from sparring.lm.rollout import LEARNER, learner_env

SPECS = "fresh, recording:PATH or archive:DIR"


class StartStates:
    """Draws the start records of GRPO's groups from the source ``spec`` names (see the module docstring)."""

    def __init__(self, spec: str, env: str, env_config: dict):
        self.spec, self.env, self.env_config = spec, env, dict(env_config)
        kind, _, path = spec.partition(":")
        self.pool = self.archive = None
        if kind == "recording" and path:
            self.pool = recorded_states(path, env, self.env_config)
        elif kind == "archive" and path:
            self.archive, self.playable = archived_states(path, env, self.env_config)
        elif kind != "fresh" or path:
            raise ValueError(f"unknown start states {spec!r}; valid: {SPECS}")

    def draw(self, n: int, rng: np.random.Generator, goal: str) -> np.ndarray:
        """``n`` start records with character 0's goal set to ``goal`` (unless "any")."""
        if self.archive is not None:
            records = self.archive.records[self.archive.select(n, rng, among=self.playable)].copy()
        elif self.pool is not None:
            records = self.pool[rng.integers(0, len(self.pool), n)].copy()
        else:
            return learner_env(n, int(rng.integers(2**31)), self.env, goal, **self.env_config).snapshot()
        if goal != "any":
            records["goal"][:, LEARNER] = GOAL_NAMES.index(goal)
        return records


def _playable(states: np.ndarray) -> np.ndarray:
    """Where character 0 is alive with its goal not yet done."""
    return (states["alive"][:, LEARNER] == 1) & (states["goal_done"][:, LEARNER] == 0)


def archived_states(folder: str, env: str, env_config: dict | None = None):
    """The archive in ``folder`` and which of its cells are playable (its records checked against the run's
    ``env_config``); a clear error when none is."""
    from sparring.explore.archive import Archive
    from sparring.kit import registry

    archive, _ = Archive.load(folder, registry.get(env), env_config)
    playable = _playable(archive.records)
    if not playable.any():
        raise ValueError(f"archive {folder} has no cell where character 0 is alive with its goal not yet done")
    return archive, playable


def recorded_states(path: str, env: str, env_config: dict) -> np.ndarray:
    """Every recorded non-final tick of ``path`` where character 0 is alive with its goal not yet done."""
    from sparring.record.reader import Recording

    rec = Recording(path, env)
    for key, value in env_config.items():
        recorded = getattr(rec.config, key, None)
        if recorded != value:
            raise ValueError(
                f"recording {path} was made with {key}={recorded!r}, this run has {key}={value!r}; "
                "record with the same env config, or change the run's"
            )
    parts = []
    for k in rec.episode_ids():
        states = rec.episode(k).states[:-1]
        parts.append(states[_playable(states)])
    pool = np.concatenate(parts) if parts else np.zeros(0, rec.env_cls.record_dtype)
    if not len(pool):
        raise ValueError(f"recording {path} has no tick where character 0 is alive with its goal not yet done")
    return pool

"""Where GRPO's groups start: fresh episodes, the ticks of a recording, or the cells of a Go-Explore archive.

A spec is one of:

- ``fresh``: a new episode per group, seeded by the run;
- ``recording:PATH``: a ``sparring record`` / ``sparring play ENV --brain ... --record`` Parquet file of
  the same env and config; each group starts from a recorded tick drawn uniformly;
- ``archive:DIR``: an archive folder (``sparring explore ENV --out DIR``, or a training
  checkpoint's); each group starts from a cell drawn by the archive's own selection (thin cells
  first). The archive does not keep the env config: use one made with the run's config.

Recorded and archived states are drawn only where every learner still acts and has not yet succeeded
(by the env's text face: in town, standing with its goal not yet done), so GRPO can practise the middle
of an episode without playing its start again. A state keeps its own dice, so a group's copies still
differ only by the model's choices.
"""

from __future__ import annotations

import numpy as np

from sparring.kit import registry
from sparring.kit.text import require_face
from sparring.lm.learners import learners_env, set_goals

SPECS = "fresh, recording:PATH or archive:DIR"


class StartStates:
    """Draws the start records of GRPO's groups from the source ``spec`` names (see the module docstring)."""

    def __init__(self, spec: str, env: str, env_config: dict, learners: list[int] = (0,)):
        self.spec, self.env, self.env_config, self.learners = spec, env, dict(env_config), list(learners)
        kind, _, path = spec.partition(":")
        self.pool = self.archive = None
        if kind == "recording" and path:
            self.pool = recorded_states(path, env, self.env_config, self.learners)
        elif kind == "archive" and path:
            self.archive, self.playable = archived_states(path, env, self.env_config, self.learners)
        elif kind != "fresh" or path:
            raise ValueError(f"unknown start states {spec!r}; valid: {SPECS}")

    def draw(self, n: int, rng: np.random.Generator, goal: str) -> np.ndarray:
        """``n`` start records with every learner's goal set to ``goal`` (unless "any")."""
        if self.archive is not None:
            records = self.archive.records[self.archive.select(n, rng, among=self.playable)].copy()
        elif self.pool is not None:
            records = self.pool[rng.integers(0, len(self.pool), n)].copy()
        else:
            seed = int(rng.integers(2**31))
            return learners_env(n, seed, self.learners, self.env, goal, **self.env_config).snapshot()
        set_goals(registry.get(self.env), records, self.learners, goal)
        return records


def playable(env_cls, states: np.ndarray, config, learners: list[int]) -> np.ndarray:
    """Where every learner still acts and has not yet succeeded, by the env's text face."""
    face = require_face(env_cls)
    return np.array(
        [all(face.acting(s, config, c) and not face.success(env_cls, s, config, c) for c in learners) for s in states],
        bool,
    )


def _none_left(where: str, learners: list[int]) -> ValueError:
    return ValueError(f"{where} has no state where learner(s) {learners} still act and have not yet succeeded")


def archived_states(folder: str, env: str, env_config: dict | None = None, learners: list[int] = (0,)):
    """The archive in ``folder`` and which of its cells are playable (its records checked against the run's
    ``env_config``); a clear error when none is."""
    from sparring.explore.archive import Archive
    from sparring.kit.config import make_config

    cls = registry.get(env)
    archive, _ = Archive.load(folder, cls, env_config)
    ok = playable(cls, archive.records, make_config(cls, dict(env_config or {})), list(learners))
    if not ok.any():
        raise _none_left(f"archive {folder}", list(learners))
    return archive, ok


def recorded_states(path: str, env: str, env_config: dict, learners: list[int] = (0,)) -> np.ndarray:
    """Every recorded non-final tick of ``path`` where every learner still acts and has not yet succeeded."""
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
        parts.append(states[playable(rec.env_cls, states, rec.config, list(learners))])
    pool = np.concatenate(parts) if parts else np.zeros(0, rec.env_cls.record_dtype)
    if not len(pool):
        raise _none_left(f"recording {path}", list(learners))
    return pool

"""What the sliced env backends share: the batch cut into env slices, each held by one BatchedEnv.

The multi-process backend (:mod:`sparring.train.vec`) builds on :class:`SlicedEnv`, and data-parallel training
(:mod:`sparring.train.parallel`) uses it for the layout of its workers' slices: the config, the learner
rows, the slice bounds, the checks on actions and env indices, and the routing of a
``restore`` to the slices. A slice's BatchedEnv is seeded with :func:`seed_slice` so env
``i`` of the batch starts from ``(seed, i)`` as in-process, and the per-slice step infos are
merged with :func:`merge_infos`.
"""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.config import make_config
from sparring.kit.rng import mix_seed

ROW_BUFFERS = ("obs", "mask", "rewards", "terminals", "truncations")  # one entry per row
ENV_BUFFERS = ("done", "ended_return")  # one entry per env
FINAL_BUFFER = "final_obs"  # one entry per row, with keep_final: meaningful in the rows of envs that just ended


def row_buffers(keep_final: bool) -> tuple[str, ...]:
    """The row buffers a slice shares: ``ROW_BUFFERS``, and ``final_obs`` with ``keep_final``."""
    return (*ROW_BUFFERS, FINAL_BUFFER) if keep_final else ROW_BUFFERS


def seed_slice(env: BatchedEnv, seed: int, first: int) -> None:
    """Start fresh episodes with env ``j`` of this slice seeded from (seed, first + j), as in-process."""
    env.seed = int(seed)
    base = np.uint64(env.seed % 2**64)
    env.records["rng"][:] = [mix_seed(base, np.uint64(first + j)) for j in range(env.num_envs)]
    env.reset_envs(None)


def merge_infos(infos: list) -> dict:
    """One step's info over slices: counts summed, means weighted by each slice's episodes."""
    infos = [i for i in infos if i]
    if len(infos) <= 1:
        return infos[0] if infos else {}
    total = sum(i["episodes"] for i in infos)
    return {
        key: total
        if key == "episodes"
        else sum(i[key] for i in infos)
        if key.startswith("phase/")
        else sum(i[key] * i["episodes"] for i in infos) / total
        for key in infos[0]
    }


class SlicedEnv:
    """The config, the learner rows and the env slices of a sliced backend (subclasses step the slices).

    ``bounds[k]:bounds[k + 1]`` are the envs of slice ``k`` (``workers`` slices, near-equal sizes).
    Subclasses provide ``close``; the context manager calls it. With ``keep_final`` the slices write
    the final observation of finished envs to ``final_obs`` as a BatchedEnv does; without it
    ``final_obs`` is empty, as there.
    """

    def __init__(self, env_cls: type, num_envs: int, seed: int, workers: int, config: dict, keep_final: bool = False):
        if not isinstance(workers, (int, np.integer)) or not 1 <= workers <= num_envs:
            raise ValueError(f"workers must be an int in [1, num_envs={num_envs}], got {workers!r}")
        self.env_cls, self.config = env_cls, make_config(env_cls, config)
        self.num_envs, self.num_agents = int(num_envs), int(env_cls.num_agents)
        self.rows, self.seed, self.workers = self.num_envs * self.num_agents, int(seed), int(workers)
        self.obs_spec, self.heads = env_cls.obs_spec(self.config), env_cls.actions
        self.keep_final = bool(keep_final)
        self.final_obs = np.zeros((0, self.obs_spec.size), self.obs_spec.dtype)  # replaced with keep_final
        self.learner_rows = np.zeros(self.rows, np.bool_)
        for seat in env_cls.learner_seats(self.config):
            self.learner_rows[seat :: self.num_agents] = True
        self.bounds = np.linspace(0, self.num_envs, self.workers + 1).astype(np.int64)

    def _checked_actions(self, actions) -> np.ndarray:
        """``actions`` as an integer array [rows, heads], checked before any slice steps (slices stay in lockstep)."""
        acts = np.asarray(actions)
        if acts.ndim == 1 and len(self.heads.sizes) == 1:
            acts = acts.reshape(-1, 1)
        shape = (self.rows, len(self.heads.sizes))
        if acts.shape != shape:
            raise ValueError(
                f"actions must have shape {shape} = (num_envs*num_agents, heads "
                f"{list(self.heads.names)}), got {acts.shape}"
            )
        if not np.issubdtype(acts.dtype, np.integer):
            raise TypeError(f"actions must be integers, got dtype {acts.dtype}")
        bad = (acts < 0) | (acts >= self.heads.sizes)
        if bad.any():
            row, sizes = int(np.flatnonzero(bad.any(axis=1))[0]), dict(zip(self.heads.names, self.heads.sizes.tolist()))
            raise ValueError(
                f"action row {row} is {acts[row].tolist()}; head sizes are {sizes} (valid values 0..size-1)"
            )
        return acts

    def _indices(self, indices) -> np.ndarray:
        if indices is None:
            return np.arange(self.num_envs, dtype=np.int64)
        idx = np.atleast_1d(np.asarray(indices))
        if not np.issubdtype(idx.dtype, np.integer) or (idx.size and (idx.min() < 0 or idx.max() >= self.num_envs)):
            raise IndexError(f"env indices must be integers in [0, {self.num_envs}), got {idx.tolist()[:8]}")
        return idx.astype(np.int64)

    def _per_slice(self, indices, records) -> list[tuple[np.ndarray, np.ndarray]]:
        """(slice-local indices, records) per slice for a ``restore`` of ``records`` into env ``indices``."""
        idx = self._indices(indices)
        recs = np.atleast_1d(np.asarray(records))
        if len(recs) != len(idx):
            raise ValueError(f"restore got {len(recs)} records for {len(idx)} indices")
        owner = np.searchsorted(self.bounds, idx, side="right") - 1
        return [(idx[owner == w] - self.bounds[w], recs[owner == w]) for w in range(self.workers)]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

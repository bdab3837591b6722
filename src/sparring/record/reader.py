"""Reading recordings: :func:`load` gives the Arrow table, :class:`Recording` gives episodes as NumPy arrays."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparring.kit.batch import BatchedEnv
from sparring.kit.files import reading
from sparring.kit.trust import validate_states
from sparring.record.schema import Meta, RecordingError, check_columns
from sparring.record.store import read_table


def load(path: str, env: str | None = None) -> pa.Table:
    """The recording at ``path`` as a pyarrow Table (its schema metadata says env, config, layout).

    A recording that was killed before closing is recovered from its completed
    row groups, with a warning. Raises :class:`RecordingError` for a file of
    another schema version, or of another env than ``env`` when given.
    """
    table = read_table(path)
    Meta.from_arrow(table.schema.metadata, os.fspath(path)).check_env(env, os.fspath(path))
    return table


@dataclasses.dataclass
class Episode:
    """One recorded episode as arrays; ``T`` moves, so ``T + 1`` states (the last one final).

    Attributes: ``id``; ``ticks``, ``phases`` (indices) and ``states`` (env
    records) of shape [T+1]; ``obs`` [T+1, agents, obs] and ``mask`` [T+1,
    agents, mask]; ``actions`` [T, agents, heads]; ``rewards``, ``terminals``,
    ``truncations``, ``logp``, ``value`` [T, agents] (NaN where not recorded);
    ``learner`` [agents]; ``obs_text`` [T+1][agents] or None.
    """

    id: int
    ticks: np.ndarray
    phases: np.ndarray
    states: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminals: np.ndarray
    truncations: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    learner: np.ndarray
    obs_text: list | None

    @property
    def length(self) -> int:
        """Number of recorded moves (ticks stepped)."""
        return len(self.actions)


def _matrix(col: pa.ChunkedArray, shape: tuple) -> np.ndarray:
    return np.asarray(col.combine_chunks().flatten()).reshape(shape)


class Recording:
    """A recording opened for replay: its metadata, env class, config and episodes.

    Args:
      path: the ``.parquet`` file (or the path of a killed recording).
      env: the env name the caller expects; another one raises RecordingError.
    """

    def __init__(self, path: str, env: str | None = None):
        self.path = os.fspath(path)
        self.table = load(self.path, env)
        self.meta = Meta.from_arrow(self.table.schema.metadata, self.path)
        self.env_cls = self.meta.env_class(self.path)
        try:
            self.config = self.meta.env_config(self.env_cls)
        except ValueError as exc:
            raise RecordingError(
                f"{self.path}: its recorded env config does not fit env {self.meta.env!r} ({exc}); record it again"
            ) from None
        check_columns(self.table.schema, self.env_cls, self.config, self.path)

    def episode_ids(self) -> list[int]:
        """The ids of the recorded episodes, ascending."""
        return sorted(pc.unique(self.table["episode"]).to_pylist())

    def make_env(self, num_envs: int = 1, seed: int = 0, **kw) -> BatchedEnv:
        """A live env with the recorded config (for restoring recorded states)."""
        return BatchedEnv(self.env_cls, num_envs=num_envs, seed=seed, **kw, **dataclasses.asdict(self.config))

    def episode(self, k: int) -> Episode:
        """Episode ``k`` as arrays; an unknown id lists the valid ones."""
        rows = self.table.filter(pc.equal(self.table["episode"], k))
        if rows.num_rows == 0:
            ids = self.episode_ids()
            shown = f"{ids[0]}..{ids[-1]}" if ids else "none: the recording is empty"
            raise RecordingError(f"{self.path} has no episode {k}; recorded episodes: {shown}")
        a = self.env_cls.num_agents
        ticks_n = rows.num_rows // a
        if ticks_n * a != rows.num_rows or ticks_n < 2:
            raise RecordingError(f"{self.path}: episode {k} has {rows.num_rows} rows, not whole ticks of {a} agents")
        with reading(self.path, f"recording: its episode {k}", "record it again"):
            episode = self._episode(k, rows, ticks_n)
        # the states may be restored into kernels (fork, GRPO starts): every one is checked, the final one too
        validate_states(
            self.env_cls, self.config, episode.states, self.path, lambda i: f"episode {k} tick {int(episode.ticks[i])}"
        )
        return episode

    def _episode(self, k: int, rows: pa.Table, ticks_n: int) -> Episode:
        a, n_heads = self.env_cls.num_agents, len(self.env_cls.actions.sizes)
        moves = rows.slice(0, (ticks_n - 1) * a)
        dtype = self.env_cls.record_dtype
        state = rows["state"].combine_chunks()
        raw = np.frombuffer(state.buffers()[1], np.uint8)[state.offset * dtype.itemsize :]
        states = raw[: rows.num_rows * dtype.itemsize].view(dtype)[::a].copy()
        phase_names = list(self.env_cls.phases)
        per_tick = rows.filter(pc.equal(rows["agent"], 0))

        def floats(name):
            return np.asarray(moves[name].to_numpy(zero_copy_only=False), np.float32).reshape(-1, a)

        return Episode(
            id=int(k),
            ticks=per_tick["tick"].to_numpy(),
            states=states,
            phases=np.array([phase_names.index(p) for p in per_tick["phase"].to_pylist()], np.int32),
            obs=_matrix(rows["obs"], (ticks_n, a, -1)),
            mask=_matrix(rows["mask"], (ticks_n, a, -1)),
            actions=_matrix(moves["action"], (ticks_n - 1, a, n_heads)).astype(np.int32),
            rewards=floats("reward"),
            logp=floats("logp"),
            value=floats("value"),
            terminals=floats("terminal").astype(bool),
            truncations=floats("truncated").astype(bool),
            learner=rows["learner"].to_numpy()[:a],
            obs_text=(
                np.array(rows["obs_text"].to_pylist(), dtype=object).reshape(ticks_n, a).tolist()
                if "obs_text" in rows.column_names
                else None
            ),
        )

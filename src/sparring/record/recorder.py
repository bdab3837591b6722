"""The recorder: wraps a BatchedEnv and writes each completed episode to a crash-safe Parquet file."""

from __future__ import annotations

import dataclasses
import warnings
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from sparring.kit.batch import BatchedEnv
from sparring.kit.progress import silent
from sparring.record.schema import action_text, arrow_schema, meta_for
from sparring.record.store import SegmentWriter


class _Step(NamedTuple):
    """Copies of one batched step: the inputs it saw, the action, what it returned."""

    records: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    logp: np.ndarray | None
    value: np.ndarray | None
    rewards: np.ndarray
    terminals: np.ndarray
    truncations: np.ndarray


def _rows(value, rows: int, name: str) -> np.ndarray | None:
    if value is None:
        return None
    arr = np.asarray(value, np.float32).reshape(-1)
    if arr.shape != (rows,):
        raise ValueError(f"{name} must have one value per agent row ({rows}), got shape {np.shape(value)}")
    return arr.copy()


def _fixed_list(flat: np.ndarray, size: int, null_rows: np.ndarray | None = None) -> pa.Array:
    mask = None if null_rows is None else pa.array(null_rows)
    return pa.FixedSizeListArray.from_arrays(pa.array(flat.reshape(-1)), size, mask=mask)


class Recorder:
    """Record every episode a :class:`~sparring.kit.batch.BatchedEnv` plays to the Parquet file ``out``.

    Call :meth:`step` instead of ``env.step``; episodes are written when they
    end (incomplete ones are dropped at :meth:`close`), from the state each env
    is in when the recorder starts or after :meth:`restore`. Rows are buffered
    into row groups of about ``group_rows`` rows, each written as its own segment
    so a killed recording loses only the group in progress.

    Args:
      env: a batched env. With ``autoreset=True`` the recorder replays the last
        step of an ended episode on a private env to keep its final state; with
        ``autoreset=False`` a finished env is skipped until ``env.reset_envs``.
      out: path of the ``.parquet`` file written at :meth:`close`.
      policy: a description of who chose the actions, kept in the metadata.
      text: also store ``describe`` text per row (default: when the env has ``describe``).
      group_rows: rows per row group.
      max_episodes: write at most this many episodes (``full`` then turns True).
      forked_from: ``{"file", "episode", "tick"}`` of the recording this one forks.
    """

    def __init__(
        self,
        env: BatchedEnv,
        out: str,
        *,
        policy: str = "unknown",
        text: bool | None = None,
        group_rows: int = 4096,
        max_episodes: int | None = None,
        forked_from: dict | None = None,
    ):
        if group_rows < 1:
            raise ValueError(f"group_rows must be a positive int, got {group_rows}")
        cls = env.env_cls
        self.text = hasattr(cls, "describe") if text is None else bool(text)
        if self.text and not hasattr(cls, "describe"):
            raise ValueError(f"text=True needs env {cls.name!r} to define describe(s, cfg, agent)")
        self.env, self.group_rows, self.max_episodes = env, int(group_rows), max_episodes
        self.meta = meta_for(env, policy, forked_from)
        self.schema = arrow_schema(env, self.meta, self.text)
        self._side = (
            BatchedEnv(cls, num_envs=1, autoreset=False, **dataclasses.asdict(env.config)) if env.autoreset else None
        )
        self._writer = SegmentWriter(out, self.schema)
        self._steps: list[_Step] = []  # kept while an open episode still needs them
        self._base = 0  # global index of self._steps[0]
        self._start = np.zeros(env.num_envs, np.int64)  # global step where each env's open episode began
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self.episodes = 0

    @property
    def full(self) -> bool:
        """True once ``max_episodes`` episodes have been recorded."""
        return self.max_episodes is not None and self.episodes >= self.max_episodes

    def step(self, actions, logp=None, value=None):
        """``env.step(actions)``, recording it; ``logp``/``value`` per agent row are optional.

        Returns what ``env.step`` returns.
        """
        env = self.env
        frozen = None if env.autoreset else env.done.copy()  # finished envs wait for reset_envs
        logp, value = _rows(logp, env.rows, "logp"), _rows(value, env.rows, "value")  # check before stepping
        pre = env.records.copy(), env.obs.copy(), env.mask.copy()
        result = env.step(actions)  # validates actions before they are narrowed below
        acts = np.asarray(actions).reshape(env.rows, len(env.heads.sizes)).astype(np.int32)
        self._steps.append(
            _Step(*pre, acts, logp, value, env.rewards.copy(), env.terminals.copy(), env.truncations.copy())
        )
        now = self._base + len(self._steps) - 1
        for i in np.flatnonzero(env.done if frozen is None else env.done & ~frozen):
            if not self.full:
                self._finish(int(i), now)
            self._start[i] = now + 1
        if frozen is not None:
            self._start[frozen] = now + 1
        self._forget()
        if self._pending_rows >= self.group_rows:
            self.flush()
        return result

    def play(self, player):
        """One recorded step with a :class:`~sparring.players.Player`'s actions for every row (and its ``logp``
        and ``value``, when it has them)."""
        actions = player.act(self.env, np.arange(self.env.rows))
        return self.step(actions, getattr(player, "logp", None), getattr(player, "value", None))

    def restore(self, indices, records: np.ndarray) -> None:
        """``env.restore``; the envs' open episodes are dropped and new ones start from ``records``."""
        self.env.restore(indices, records)
        idx = np.arange(self.env.num_envs) if indices is None else np.atleast_1d(indices)
        self._start[idx] = self._base + len(self._steps)
        self._forget()

    def _forget(self) -> None:
        drop = int(self._start.min()) - self._base
        if drop > 0:
            del self._steps[:drop]
            self._base += drop

    def _final(self, last: _Step, i: int):
        """The state, obs and mask after the last step of env ``i``'s episode."""
        a = self.env.num_agents
        lo, hi = i * a, (i + 1) * a
        if self._side is None:  # no auto-reset: the env itself still holds the final state
            env = self.env
            return env.records[i : i + 1].copy(), env.obs[lo:hi].copy(), env.mask[lo:hi].copy()
        side = self._side
        side.restore([0], last.records[i : i + 1])
        side.step(last.actions[lo:hi])
        if not (side.done[0] and np.array_equal(side.rewards, last.rewards[lo:hi])):
            warnings.warn(
                f"env {self.env.env_cls.name!r} is not deterministic: replaying the last step of an "
                f"episode gave other rewards or end flags; its recorded final state may be wrong "
                f"(run `sparring check {self.env.env_cls.name}`)",
                RuntimeWarning,
                stacklevel=3,
            )
        return side.records[0:1].copy(), side.obs.copy(), side.mask.copy()

    def _finish(self, i: int, now: int) -> None:
        env, a = self.env, self.env.num_agents
        lo, hi = i * a, (i + 1) * a
        steps = self._steps[self._start[i] - self._base : now - self._base + 1]
        final, fobs, fmask = self._final(steps[-1], i)
        states = np.concatenate([s.records[i : i + 1] for s in steps] + [final])
        cols = {
            "obs": np.concatenate([np.stack([s.obs[lo:hi] for s in steps]), fobs[None]]),
            "mask": np.concatenate([np.stack([s.mask[lo:hi] for s in steps]), fmask[None]]),
            "actions": np.stack([s.actions[lo:hi] for s in steps]),
        }
        for name in ("rewards", "terminals", "truncations", "logp", "value"):
            parts = [getattr(s, name) for s in steps]
            cols[name] = None if any(p is None for p in parts) else np.stack([p[lo:hi] for p in parts])
        self._pending.append(self._episode_table(states, cols, env.learner_rows[lo:hi]))
        self._pending_rows += len(states) * a
        self.episodes += 1

    def _episode_table(self, states: np.ndarray, cols: dict, learner: np.ndarray) -> pa.Table:
        env, cls = self.env, self.env.env_cls
        a, ticks = env.num_agents, len(states)
        n, moves = ticks * a, (ticks - 1) * a
        final_row = np.arange(n) >= moves
        phase = np.repeat(states["phase"], a)
        if phase.min() < 0 or phase.max() >= len(cls.phases):
            raise ValueError(
                f"env {cls.name!r} set phase {int(phase.max())} (or {int(phase.min())}); "
                f"valid phase indices are 0..{len(cls.phases) - 1} for {list(cls.phases)}"
            )
        last = states[-1]

        def padded(x, dtype):  # a per-move column with a null entry per final row
            return pa.array(np.concatenate([x.reshape(-1), np.zeros(a, dtype)]).astype(dtype), mask=final_row)

        def optional(x):
            return pa.nulls(n, pa.float32()) if x is None else padded(x, np.float32)

        arrays = {
            "env": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)), pa.array([cls.name])),
            "episode": pa.array(np.full(n, self.episodes, np.int64)),
            "tick": pa.array(np.repeat(states["tick"], a).astype(np.int32)),
            "agent": pa.array(np.tile(np.arange(a, dtype=np.int16), ticks)),
            "final": pa.array(final_row),
            "learner": pa.array(np.tile(learner, ticks)),
            "phase": pa.DictionaryArray.from_arrays(pa.array(phase.astype(np.int8)), pa.array(list(cls.phases))),
            "obs": _fixed_list(cols["obs"], env.obs_spec.size),
            "mask": _fixed_list(cols["mask"], env.heads.total),
            "action": _fixed_list(
                np.concatenate(
                    [cols["actions"].reshape(-1, len(env.heads.sizes)), np.zeros((a, len(env.heads.sizes)), np.int32)]
                ),
                len(env.heads.sizes),
                null_rows=final_row,
            ),
            "reward": padded(cols["rewards"], np.float32),
            "terminal": padded(cols["terminals"], np.bool_),
            "truncated": padded(cols["truncations"], np.bool_),
            "logp": optional(cols["logp"]),
            "value": optional(cols["value"]),
            "episode_return": pa.array(np.tile(last["ep_return"], ticks).astype(np.float32)),
            "episode_length": pa.array(np.full(n, int(last["tick"]), np.int32)),
            **{f"metric_{m}": pa.array(np.full(n, last["metrics"][k], np.float32)) for k, m in enumerate(cls.metrics)},
            "state": pa.Array.from_buffers(
                pa.binary(states.dtype.itemsize), n, [None, pa.py_buffer(np.repeat(states, a).tobytes())]
            ),
        }
        if self.text:
            arrays["obs_text"] = pa.array([cls.describe(s, env.config, k) for s in states for k in range(a)])
            texts = [action_text(env.heads.names, act) for act in cols["actions"].reshape(-1, len(env.heads.sizes))]
            arrays["action_text"] = pa.array(texts + [None] * a, pa.string())
        return pa.Table.from_arrays([arrays[f.name] for f in self.schema], schema=self.schema)

    def flush(self) -> None:
        """Write the finished episodes not yet written as one row group (segment)."""
        if self._pending:
            self._writer.write(pa.concat_tables(self._pending))
            self._pending, self._pending_rows = [], 0

    def close(self) -> None:
        """Write what is pending and merge the segments into ``out``; open episodes are dropped."""
        self.flush()
        self._writer.close()

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()  # also on errors: every completed episode is worth keeping


def record_episodes(env: BatchedEnv, player, episodes: int, out: str, progress=None, **recorder_kw) -> int:
    """Play ``player`` (a :class:`~sparring.players.Player` for every row) in ``env`` until ``episodes`` episodes
    are recorded to ``out``; returns the count. Its ``name`` describes it in the metadata. ``progress`` (a
    :class:`~sparring.kit.progress.Progress`) counts the episodes. Keyword arguments go to :class:`Recorder`.
    """
    progress = progress or silent()
    if episodes < 1:
        raise ValueError(f"episodes must be a positive int, got {episodes}")
    if not env.autoreset:
        raise ValueError(
            "record_episodes needs a BatchedEnv with autoreset=True; with autoreset=False, step a "
            "Recorder yourself and reset finished envs between steps"
        )
    with Recorder(env, out, policy=player.name, max_episodes=episodes, **recorder_kw) as rec:
        progress.start(episodes, unit="episode")
        while not rec.full:
            rec.play(player)
            progress.update(rec.episodes)
    return rec.episodes

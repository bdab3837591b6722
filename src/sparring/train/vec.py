"""A multi-process env backend: worker processes step slices of the batch into shared memory.

:class:`MultiprocessEnv` splits ``num_envs`` into ``workers`` contiguous slices, each held by a
:class:`~sparring.kit.batch.BatchedEnv`: slice 0 in the calling process (it steps while the
others do, saving a wake-up per step), the rest in ``workers - 1`` spawned processes. The
row buffers (``obs``, ``mask``, ``rewards``, ``terminals``, ``truncations``, the actions,
and ``final_obs`` with ``keep_final``) and the per-env ``done`` / ``ended_return`` live in
one ``multiprocessing.shared_memory`` block laid out as the in-process ``[rows, ...]``
buffers; each worker's BatchedEnv writes straight into its slice. Commands travel over
Pipes: the parent and the workers block in ``recv`` (no spinning). Env ``i`` is seeded
from ``(seed, i)`` as in-process, so both backends produce the same episodes for the same
actions. What it shares with the Ray backend (slices, checks, seeding) is
:mod:`sparring.train.vec_slices`.

Spawned workers re-import the caller's ``__main__``: scripts need the ``if __name__ == "__main__"`` guard.
"""

from __future__ import annotations

import multiprocessing as mp
import weakref
from multiprocessing import shared_memory

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.train.vec_slices import ENV_BUFFERS, FINAL_BUFFER, SlicedEnv, merge_infos, row_buffers, seed_slice


def _layout(rows: int, num_envs: int, obs_spec, heads, keep_final: bool) -> dict:
    """name -> (shape, dtype, byte offset) of every shared buffer, 64-byte aligned."""
    n_heads = len(heads.sizes)
    shapes = {
        "obs": ((rows, obs_spec.size), obs_spec.dtype),
        "mask": ((rows, heads.total), np.bool_),
        "rewards": ((rows,), np.float32),
        "terminals": ((rows,), np.bool_),
        "truncations": ((rows,), np.bool_),
        "actions": ((rows, n_heads), np.int32),
        "scripted": ((rows, n_heads), np.int32),
        "done": ((num_envs,), np.bool_),
        "ended_return": ((num_envs,), np.float64),
    }
    if keep_final:
        shapes[FINAL_BUFFER] = ((rows, obs_spec.size), obs_spec.dtype)
    layout, offset = {}, 0
    for name, (shape, dtype) in shapes.items():
        layout[name] = (shape, np.dtype(dtype), offset)
        offset += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // 64) * 64
    return layout


def _views(buf, layout: dict) -> dict:
    return {name: np.ndarray(shape, dtype, buffer=buf, offset=off) for name, (shape, dtype, off) in layout.items()}


def _worker(conn, shm_name: str, layout: dict, env_cls, lo: int, hi: int, seed: int, config: dict) -> None:
    """Serve commands for envs [lo, hi) until told to close or the parent's end of the pipe closes."""
    shm = shared_memory.SharedMemory(name=shm_name)
    try:
        commands = _slice_commands(_views(shm.buf, layout), env_cls, lo, hi, seed, config, FINAL_BUFFER in layout)
        _reply(conn, "ok", None)
    except Exception as exc:
        _reply(conn, "error", exc)
        return
    while True:
        try:
            cmd, arg = conn.recv()
        except EOFError:  # the parent died
            return
        if cmd == "close":
            return
        try:
            _reply(conn, "ok", commands[cmd](arg))
        except Exception as exc:  # report to the parent, keep serving
            _reply(conn, "error", exc)


def _slice_commands(views: dict, env_cls, lo: int, hi: int, seed: int, config: dict, keep_final: bool) -> dict:
    """A BatchedEnv over envs [lo, hi) writing into the shared ``views``; command name -> handler."""
    env = BatchedEnv(env_cls, hi - lo, seed, keep_final=keep_final, **config)
    rows = slice(lo * env.num_agents, hi * env.num_agents)
    for name in (*row_buffers(keep_final), *ENV_BUFFERS):  # the kernels write wherever these attributes point
        view = views[name][slice(lo, hi) if name in ENV_BUFFERS else rows]
        view[:] = getattr(env, name)  # keeps what the kernels never write (e.g. an all-ones mask)
        setattr(env, name, view)
    actions, scripted = views["actions"][rows], views["scripted"][rows]
    seed_slice(env, seed, lo)

    def scripted_into(name):
        env.scripted_actions(name, out=scripted)

    return {
        "step": lambda _: env.step(actions)[-1],
        "reset": lambda s: seed_slice(env, s, lo),
        "scripted": scripted_into,
        "snapshot": lambda _: env.snapshot(),
        "restore": lambda arg: env.restore(*arg),
    }


def _reply(conn, status: str, value) -> None:
    try:
        conn.send((status, value))
    except Exception as exc:  # an exception that does not pickle
        conn.send(("error", RuntimeError(f"{type(value).__name__}: {value} ({exc})")))


def _shutdown(procs, conns, shm) -> None:
    """Tell workers to exit, wait (then terminate stragglers), unlink the shared block."""
    for conn in conns:
        try:
            conn.send(("close", None))
        except OSError:  # that worker is gone already
            pass
    for proc, conn in zip(procs, conns):
        proc.join(timeout=5)
        if proc.is_alive():
            proc.terminate()
            proc.join()
        conn.close()
    shm.unlink()  # the mapping itself goes with the last array view (see _Block)


class _Block(shared_memory.SharedMemory):
    """The parent's shared block, never unmapped explicitly: the mapping lives while any array view does,
    so buffers kept after ``close()`` (e.g. by a Rollout) read stale values instead of crashing."""

    def __del__(self):
        pass


class MultiprocessEnv(SlicedEnv):
    """``num_envs`` instances of ``env_cls`` in ``workers`` slices (one here, the rest in child processes).

    Supports ``step``, ``reset``, ``scripted_actions``, ``snapshot`` and ``restore`` and the
    attributes ``obs``, ``mask``, ``rewards``, ``terminals``, ``truncations``, ``final_obs``, ``done``,
    ``ended_return``, ``learner_rows``, ``rows``, ``num_envs``, ``num_agents``, ``heads``,
    ``obs_spec``, ``env_cls``, ``config``. Buffers are shared views, overwritten by each step.
    Use as a context manager or call :meth:`close`; workers also exit when the parent dies.
    """

    def __init__(
        self, env_cls: type, num_envs: int = 1, seed: int = 0, workers: int = 2, keep_final: bool = False, **config
    ):
        super().__init__(env_cls, num_envs, seed, workers, config, keep_final)
        layout = _layout(self.rows, self.num_envs, self.obs_spec, self.heads, self.keep_final)
        size = max(off + int(np.prod(shape)) * dt.itemsize for shape, dt, off in layout.values())
        self._shm = _Block(create=True, size=size)
        views = _views(self._shm.buf, layout)
        for name in (*row_buffers(self.keep_final), *ENV_BUFFERS):
            setattr(self, name, views[name])
        self._actions, self._scripted = views["actions"], views["scripted"]
        ctx = mp.get_context("spawn")
        self._procs, self._conns = [], []
        self._finalizer = weakref.finalize(self, _shutdown, self._procs, self._conns, self._shm)
        for w in range(1, self.workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(
                target=_worker,
                daemon=True,
                name=f"sparring-env-{w}",
                args=(
                    child,
                    self._shm.name,
                    layout,
                    env_cls,
                    int(self.bounds[w]),
                    int(self.bounds[w + 1]),
                    self.seed,
                    config,
                ),
            )
            proc.start()
            child.close()
            self._procs.append(proc)
            self._conns.append(parent)
        try:  # slice 0 runs here while the workers start (and later, while they step)
            self._local = _slice_commands(views, env_cls, 0, int(self.bounds[1]), self.seed, config, self.keep_final)
            self._gather([])
        except BaseException:
            self.close()
            raise

    def _call(self, cmd: str, args=None) -> list:
        """Run ``cmd`` on every slice (``args``: one argument for all, or a list per slice); gather the results."""
        if not self._finalizer.alive:
            raise RuntimeError("this MultiprocessEnv is closed")
        per = args if isinstance(args, list) else [args] * self.workers
        for conn, arg in zip(self._conns, per[1:]):
            conn.send((cmd, arg))
        try:
            local = [self._local[cmd](per[0])]
        except Exception as exc:
            self._gather([])  # keep the pipes in step before raising
            raise exc
        return self._gather(local)

    def _gather(self, results: list) -> list:
        """``results`` followed by each worker's reply; raises the first worker error."""
        error = None
        for w, conn in enumerate(self._conns, start=1):
            try:
                status, value = conn.recv()
            except EOFError:
                raise RuntimeError(f"env worker {w} exited (exit code {self._procs[w - 1].exitcode})") from None
            if status == "error" and error is None:
                error = value
            results.append(value)
        if error is not None:
            raise error
        return results

    def step(self, actions):
        """Advance every env one tick with ``actions`` [rows, heads]; same returns as ``BatchedEnv.step``."""
        self._actions[:] = self._checked_actions(actions)
        info = merge_infos(self._call("step"))
        return self.obs, self.rewards, self.terminals, self.truncations, self.mask, info

    def reset(self, seed: int | None = None):
        """Start fresh episodes in every env (env ``i`` from (seed, i)); returns ``(obs, mask)``."""
        if seed is not None:
            self.seed = int(seed)
        self._call("reset", self.seed)
        return self.obs, self.mask

    def scripted_actions(self, name: str, out: np.ndarray | None = None) -> np.ndarray:
        """Actions [rows, heads] of the env's scripted policy ``name`` for the current states."""
        self._call("scripted", name)
        if out is None:
            return self._scripted.copy()
        out[:] = self._scripted
        return out

    def snapshot(self, indices=None) -> np.ndarray:
        """Copies of the records of ``indices`` (all envs by default)."""
        records = np.concatenate(self._call("snapshot"))
        return records if indices is None else records[self._indices(indices)]

    def restore(self, indices, records: np.ndarray) -> None:
        """Assign ``records`` to env ``indices`` (all when None) and refresh their observations."""
        self._call("restore", self._per_slice(indices, records))

    def close(self) -> None:
        """Stop the workers and free the shared memory (idempotent)."""
        self._finalizer()

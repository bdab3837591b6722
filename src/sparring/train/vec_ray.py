"""A Ray env backend: slices of the batch stepped by Ray actors (one BatchedEnv each), the learner local.

:class:`RayEnv` has the interface of the multi-process backend (``step``, ``reset``,
``scripted_actions``, ``snapshot``, ``restore``, the row buffers) and shares its slices, checks
and seeding through :mod:`sparring.train.vec_slices`. Each step sends every actor its slice of
the actions and copies the slices it returns into local buffers, so a Rollout reads them like
in-process ones. With ``keep_final`` an actor also sends the final observations of its envs
that just ended (those rows only), written to the same rows of ``final_obs``. Env ``i`` is
seeded from ``(seed, i)`` as in-process: for the same actions both backends produce the same
episodes.

Without an address it starts (or joins, if this process has one) a local Ray instance; with
``address`` it connects to that cluster, whose nodes must have this package installed (or be
given it through a Ray runtime environment). Every actor asks Ray for one CPU.
"""

from __future__ import annotations

import os

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.train.vec_slices import ENV_BUFFERS, ROW_BUFFERS, SlicedEnv, merge_infos, seed_slice

START_TIMEOUT_S = 120.0  # actors that cannot be placed (too few CPUs) would otherwise wait forever


class _Slice:
    """Envs [lo, hi) of the batch in one actor."""

    def __init__(self, env_cls, lo: int, hi: int, seed: int, config: dict, keep_final: bool = False):
        self.env, self.lo = BatchedEnv(env_cls, hi - lo, seed, keep_final=keep_final, **config), lo
        seed_slice(self.env, seed, lo)

    def buffers(self) -> tuple:
        env = self.env
        return tuple(getattr(env, name) for name in (*ROW_BUFFERS, *ENV_BUFFERS))

    def step(self, actions: np.ndarray) -> tuple:
        """The buffers, the final observations of the rows of envs that ended (None without keep_final), info."""
        env = self.env
        info = env.step(actions)[-1]
        final = env.final_obs[np.repeat(env.done, env.num_agents)] if env.keep_final else None
        return (*self.buffers(), final, info)

    def reset(self, seed: int) -> tuple:
        seed_slice(self.env, seed, self.lo)
        return self.buffers()

    def scripted(self, name: str) -> np.ndarray:
        return self.env.scripted_actions(name)

    def snapshot(self) -> np.ndarray:
        return self.env.snapshot()

    def restore(self, indices: np.ndarray, records: np.ndarray) -> tuple:
        if len(indices):
            self.env.restore(indices, records)
        return self.buffers()


def init_ray(address: str = "", min_cpus: int = 1) -> None:
    """Connect to the Ray cluster at ``address``, or start a local instance with at least ``min_cpus`` CPUs."""
    import ray

    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
    else:  # workers inherit this environment, NUMBA_CACHE_DIR included, so they load compiled kernels warm
        ray.init(num_cpus=max(min_cpus, os.cpu_count() or 1), include_dashboard=False, log_to_driver=False)


class RayEnv(SlicedEnv):
    """``num_envs`` instances of ``env_cls`` in ``workers`` Ray actors; the interface of the multi-process backend."""

    def __init__(
        self,
        env_cls: type,
        num_envs: int = 1,
        seed: int = 0,
        workers: int = 2,
        address: str = "",
        keep_final: bool = False,
        **config,
    ):
        super().__init__(env_cls, num_envs, seed, workers, config, keep_final)
        import ray

        self._row_slices = [
            slice(lo * self.num_agents, hi * self.num_agents) for lo, hi in zip(self.bounds[:-1], self.bounds[1:])
        ]
        self._env_slices = [slice(lo, hi) for lo, hi in zip(self.bounds[:-1], self.bounds[1:])]
        init_ray(address, self.workers)
        self._ray = ray
        actor = ray.remote(num_cpus=1)(_Slice)
        self._actors = [
            actor.remote(env_cls, int(lo), int(hi), self.seed, config, self.keep_final)
            for lo, hi in zip(self.bounds[:-1], self.bounds[1:])
        ]
        probe = BatchedEnv(env_cls, 1, seed, **config)  # the buffers' shapes and dtypes
        for name in ROW_BUFFERS:
            row = getattr(probe, name)
            setattr(self, name, np.zeros((self.rows, *row.shape[1:]), row.dtype))
        if self.keep_final:
            self.final_obs = np.zeros_like(self.obs)
        for name in ENV_BUFFERS:
            setattr(self, name, np.zeros(self.num_envs, getattr(probe, name).dtype))
        self._closed = False
        try:
            self._store(self._get([a.buffers.remote() for a in self._actors], timeout=START_TIMEOUT_S))
        except ray.exceptions.GetTimeoutError:
            self.close()
            cpus = ray.cluster_resources().get("CPU", 0)
            raise RuntimeError(
                f"{self.workers} env actors (one CPU each) did not start within {START_TIMEOUT_S} s; "
                f"the Ray cluster has {cpus:g} CPUs in all: use fewer workers"
            ) from None
        except BaseException:
            self.close()
            raise

    def _get(self, refs: list, timeout: float | None = None) -> list:
        if self._closed:
            raise RuntimeError("this RayEnv is closed")
        try:
            return self._ray.get(refs, timeout=timeout)
        except self._ray.exceptions.RayTaskError as exc:
            raise exc.as_instanceof_cause() from None  # the env's own error (e.g. a ValueError), not a wrapper

    def _store(self, parts: list) -> None:
        """Copy each actor's buffers into its slice of the local ones."""
        for part, rows, envs in zip(parts, self._row_slices, self._env_slices):
            for name, value in zip((*ROW_BUFFERS, *ENV_BUFFERS), part):
                getattr(self, name)[rows if name in ROW_BUFFERS else envs] = value

    def step(self, actions):
        """Advance every env one tick with ``actions`` [rows, heads]; same returns as ``BatchedEnv.step``."""
        acts = np.ascontiguousarray(self._checked_actions(actions), np.int32)
        parts = self._get([a.step.remote(acts[rows]) for a, rows in zip(self._actors, self._row_slices)])
        self._store([p[:-2] for p in parts])
        if self.keep_final:
            for part, rows, envs in zip(parts, self._row_slices, self._env_slices):
                if len(part[-2]):
                    self.final_obs[rows][np.repeat(self.done[envs], self.num_agents)] = part[-2]
        return self.obs, self.rewards, self.terminals, self.truncations, self.mask, merge_infos([p[-1] for p in parts])

    def reset(self, seed: int | None = None):
        """Start fresh episodes in every env (env ``i`` from (seed, i)); returns ``(obs, mask)``."""
        if seed is not None:
            self.seed = int(seed)
        self._store(self._get([a.reset.remote(self.seed) for a in self._actors]))
        return self.obs, self.mask

    def scripted_actions(self, name: str, out: np.ndarray | None = None) -> np.ndarray:
        """Actions [rows, heads] of the env's scripted policy ``name`` for the current states."""
        acts = np.concatenate(self._get([a.scripted.remote(name) for a in self._actors]))
        if out is None:
            return acts
        out[:] = acts
        return out

    def snapshot(self, indices=None) -> np.ndarray:
        """Copies of the records of ``indices`` (all envs by default)."""
        records = np.concatenate(self._get([a.snapshot.remote() for a in self._actors]))
        return records if indices is None else records[self._indices(indices)]

    def restore(self, indices, records: np.ndarray) -> None:
        """Assign ``records`` to env ``indices`` (all when None) and refresh their observations."""
        refs = [a.restore.remote(*part) for a, part in zip(self._actors, self._per_slice(indices, records))]
        self._store(self._get(refs))

    def close(self) -> None:
        """Stop the actors (idempotent); the Ray instance itself stays up for whoever else uses it."""
        if self._closed:
            return
        self._closed = True
        for actor in self._actors:
            self._ray.kill(actor)

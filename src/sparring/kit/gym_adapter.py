"""Gymnasium adapters: one env instance as an ``Env``, a batch as a ``VectorEnv``."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from sparring.kit.batch import BatchedEnv
from sparring.kit.registry import get
from sparring.kit.spaces import action_space, observation_space, to_rows


def _env_cls(env):
    return get(env) if isinstance(env, str) else env


class GymEnv(gymnasium.Env):
    """One env instance seen from one agent seat.

    The other seats play ``others``: ``"noop"`` (all heads 0) or the name of one
    of the env's scripted policies. ``info["action_mask"]`` holds the seat's mask.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}

    def __init__(self, env, seat: int = 0, others: str = "noop", render_mode: str | None = None, **config):
        cls = _env_cls(env)
        if not 0 <= seat < cls.num_agents:
            raise ValueError(f"seat must be in [0, {cls.num_agents}) for env {cls.name!r}, got {seat}")
        if others != "noop" and others not in cls.scripted:
            raise ValueError(f"others must be 'noop' or one of {sorted(cls.scripted)}, got {others!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.batch = BatchedEnv(cls, num_envs=1, autoreset=False, **config)
        self.seat, self.others, self.render_mode = seat, others, render_mode
        self.observation_space = observation_space(self.batch.obs_spec)
        self.action_space = action_space(cls.actions)
        self._acts = np.zeros((cls.num_agents, len(cls.actions.sizes)), np.int32)
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; without a seed, continue the generator seeded before."""
        super().reset(seed=seed)
        self.batch.reset(int(self.np_random.integers(2**62)))
        self._over = False
        return self._obs(), {"action_mask": self.batch.mask[self.seat].copy()}

    def step(self, action):
        """Act for the seat; other seats act as ``others``."""
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        if self.others == "noop":
            self._acts[:] = 0
        else:
            self.batch.scripted_actions(self.others, out=self._acts)
        self._acts[self.seat] = to_rows(action, self.batch.heads)
        _, rew, term, trunc, mask, _ = self.batch.step(self._acts)
        terminated, truncated = bool(term[self.seat]), bool(trunc[self.seat])
        self._over = bool(self.batch.done[0]) or terminated or truncated
        return self._obs(), float(rew[self.seat]), terminated, truncated, {"action_mask": mask[self.seat].copy()}

    def render(self):
        """ANSI text or an RGB array, per ``render_mode``."""
        cls, rec = self.batch.env_cls, self.batch.records[0]
        if self.render_mode == "ansi":
            return cls.render_ansi(rec, self.batch.config)
        if self.render_mode == "rgb_array":
            return cls.render_rgb(rec, self.batch.config)
        return None

    def _obs(self) -> np.ndarray:
        return self.batch.obs[self.seat].copy()


class GymVectorEnv(VectorEnv):
    """A batched env as a Gymnasium ``VectorEnv``: one sub-env per agent row.

    Autoreset is same-step: a finished row's next observation starts the new
    episode and its last one is in ``info["final_obs"]`` (``info["_final_obs"]``
    marks those rows).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env, num_envs: int = 1, seed: int = 0, **config):
        cls = _env_cls(env)
        self.batch = BatchedEnv(cls, num_envs=num_envs, seed=seed, keep_final=True, **config)
        self.num_envs = self.batch.rows
        self.single_observation_space = observation_space(self.batch.obs_spec)
        self.single_action_space = action_space(cls.actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._agents = cls.num_agents

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Fresh episodes everywhere; returns ``(obs, {"action_mask": ...})``."""
        obs, mask = self.batch.reset(seed)
        return obs.copy(), {"action_mask": mask.copy()}

    def step(self, actions):
        """Step every row; returns copies of the batch's buffers."""
        acts = np.asarray(actions).reshape(self.num_envs, -1)
        obs, rew, term, trunc, mask, episodes = self.batch.step(acts)
        info = {"action_mask": mask.copy()}
        if episodes:
            info["episode"] = episodes
        if self.batch.done.any():
            ended = np.repeat(self.batch.done, self._agents)
            final = np.empty(self.num_envs, dtype=object)
            for r in np.flatnonzero(ended):
                final[r] = self.batch.final_obs[r].copy()
            info["final_obs"], info["_final_obs"] = final, ended
        return obs.copy(), rew.copy(), term.copy(), trunc.copy(), info

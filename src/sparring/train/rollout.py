"""Rollouts over the in-process BatchedEnv into preallocated [horizon, rows] buffers.

Only the trained rows are stored; the env's other rows get their actions from an
opponent (or are ignored by the env when a scripted seat plays inside the kernels).
"""

from __future__ import annotations

import time

import numpy as np
import torch

_TORCH_DTYPES = {np.dtype(np.uint8): torch.uint8, np.dtype(np.int8): torch.int8, np.dtype(np.int16): torch.int16,
                 np.dtype(np.int32): torch.int32, np.dtype(np.float32): torch.float32,
                 np.dtype(np.float64): torch.float64, np.dtype(np.bool_): torch.bool}


class EpisodeStats:
    """Sums of the env's per-step episode info, averaged on ``drain``."""

    def __init__(self):
        self.sums: dict[str, float] = {}
        self.episodes = 0

    def add(self, info: dict) -> None:
        """Fold in one ``info`` dict from ``BatchedEnv.step``."""
        n = info["episodes"]
        self.episodes += n
        for key, value in info.items():
            if key == "episodes":
                continue
            # phase entries are counts already; the rest are means over this step's episodes
            self.sums[key] = self.sums.get(key, 0.0) + (value if key.startswith("phase/") else value * n)

    def drain(self) -> dict:
        """``env/...`` metrics of the episodes seen since the last drain ({} if none ended)."""
        if not self.episodes:
            return {}
        out = {"env/episodes": self.episodes}
        for key, total in self.sums.items():
            out[f"env/{key}"] = total / self.episodes
        self.sums, self.episodes = {}, 0
        return out


class Rollout:
    """Collects ``horizon`` steps of ``policy`` on ``env`` for the rows in ``train_rows``.

    Args:
      env: a BatchedEnv; policy: a :class:`~sparring.train.policy.Policy`;
      horizon: steps per rollout; train_rows: int array of the rows to learn from;
      opponent: fills the actions of the other learner rows (or None); device: torch device.
    """

    def __init__(self, env, policy, horizon: int, train_rows: np.ndarray, opponent=None, device="cpu"):
        self.env, self.policy, self.horizon, self.opponent = env, policy, int(horizon), opponent
        self.device = torch.device(device)
        self.rows_np = np.asarray(train_rows, np.int64)
        self.all_rows = len(self.rows_np) == env.rows
        self.rows = torch.from_numpy(self.rows_np)
        n, t, spec = len(self.rows_np), self.horizon, env.obs_spec
        dev = self.device
        self.obs = torch.zeros((t, n, spec.size), dtype=_TORCH_DTYPES[np.dtype(spec.dtype)], device=dev)
        self.mask = torch.zeros((t, n, env.heads.total), dtype=torch.bool, device=dev)
        self.actions = torch.zeros((t, n, len(env.heads.sizes)), dtype=torch.int64, device=dev)
        self.logprob, self.values, self.rewards, self.dones = (torch.zeros((t, n), device=dev) for _ in range(4))
        self.resets = torch.zeros((t, n), dtype=torch.bool, device=dev)
        self.last_value = torch.zeros(n, device=dev)
        self.env_actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
        self.state = policy.initial_state(n, dev)
        self.state0 = self.state
        self.just_done = torch.zeros(n, dtype=torch.bool, device=dev)
        self.stats = EpisodeStats()
        self.steps = 0
        self.on_step = None  # called as on_step(self) after every env step (the Go-Explore archive uses it)
        self._obs_np, self._mask_np = env.obs, env.mask

    def _take(self, array: np.ndarray) -> torch.Tensor:
        tensor = torch.from_numpy(array)
        tensor = tensor if self.all_rows else tensor.index_select(0, self.rows)
        return tensor.to(self.device, non_blocking=True)

    def collect(self) -> dict:
        """Run one rollout; returns timings ``perf/env_s``, ``perf/infer_s``."""
        env, policy, env_s, infer_s = self.env, self.policy, 0.0, 0.0
        self.state0 = tuple(s.clone() for s in self.state)
        recurrent = policy.recurrent
        with torch.inference_mode():
            for t in range(self.horizon):
                start = time.perf_counter()
                self.obs[t].copy_(self._take(self._obs_np))
                self.mask[t].copy_(self._take(self._mask_np))
                self.resets[t] = self.just_done
                reset = self.just_done if recurrent else None
                actions, logprob, value, self.state = policy.act(self.obs[t], self.mask[t], self.state, reset)
                self.actions[t], self.logprob[t], self.values[t] = actions, logprob, value
                acts = actions.cpu().numpy()
                if self.all_rows:
                    self.env_actions[:] = acts
                else:
                    self.env_actions[self.rows_np] = acts
                if self.opponent is not None:
                    self.opponent.fill(self.env_actions)
                mid = time.perf_counter()
                _, rew, term, trunc, _, info = env.step(self.env_actions)
                done = term | trunc
                if env.num_agents > 1:
                    done |= np.repeat(env.done, env.num_agents)
                if info:
                    self.stats.add(info)
                if self.on_step is not None:
                    self.on_step(self)
                if self.opponent is not None:
                    self.opponent.after_step(rew, env.done)
                self.rewards[t] = self._take(rew)
                self.just_done = self._take(done)
                self.dones[t] = self.just_done
                end = time.perf_counter()
                env_s += end - mid
                infer_s += mid - start
            if recurrent:
                # the state entering the next rollout must already be reset where an episode ended
                self.state = tuple(s * (~self.just_done).unsqueeze(-1) for s in self.state)
            obs = self._take(self._obs_np)
            self.last_value = policy.value(obs, self.state) if recurrent else policy.value(obs)
        self.steps += self.horizon * len(self.rows_np)
        return {"perf/env_s": env_s, "perf/infer_s": infer_s}

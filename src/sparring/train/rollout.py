"""Rollouts over an env batch into preallocated [horizon, rows] buffers, with an episode-end hook.

Only the trained rows are stored; the env's other rows get their actions from an
opponent (or are ignored by the env when a scripted seat plays inside the kernels).
An :class:`EpisodeEndHook` (e.g. Go-Explore restarts) may restart ended episodes from
states of its own between rollouts.

Episode ends come in two kinds. A termination (the env's ``terminals``) is an end the game
itself decides: its step is worth its reward alone. A truncation (``truncations``, and not
``terminals`` in the same step) is a time limit cutting off an episode that could have gone
on: its step bootstraps from the value of the episode's final observation, which the env
writes to ``final_obs`` when built with ``keep_final=True`` (the trainer's envs are). A
recurrent policy values that observation with the memory it had before the reset. Only the
truncated rows of a step are valued, and only in steps where some row truncated.
"""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np
import torch

_TORCH_DTYPES = {
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.int16): torch.int16,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.bool_): torch.bool,
}


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


class EpisodeEndHook(Protocol):
    """An extension of :class:`Rollout` where episodes end: it watches every step and may restart ended episodes.

    Set it as ``rollout.episode_end`` (Go-Explore's :class:`~sparring.explore.restarts.ArchiveRestarts`
    is one; a start-state curriculum could be another). The rollout calls:

    - :meth:`after_step` after every env step, before the opponent and the buffers see its results;
    - :meth:`restart` once at the end of each rollout, after the bootstrap values are computed,
      with the envs whose episode ended during the rollout (they now play a fresh start).

    The hook may change env records (``env.restore``) only in :meth:`restart`, and only those
    of the envs it is given. It never writes the rollout: the rollout updates its own
    bookkeeping from what :meth:`restart` returns, so the restored envs' rows carry on at the
    next rollout (their recurrent memory is not reset at its first step) from the returned
    memory, which PPO's training pass replays exactly.
    """

    def after_step(self, done: np.ndarray, state: tuple[torch.Tensor, ...]) -> None:
        """Observe one env step.

        Args:
          done: bool [num_envs], the envs whose episode ended in this step (they already show
            their fresh start; the env's ``ended_return`` holds what they earned);
          state: the policy's recurrent state after this step's action, one tensor
            [trained rows, hidden] per part (``()`` without memory). Read only; the rollout
            zeroes the rows of ``done`` envs at the next step.
        """

    def restart(self, ended: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Restart some of the ``ended`` envs (sorted env indices) from records of the hook's choosing.

        Returns ``(envs, states)``: the envs (a subset of ``ended``) that now continue
        from a restored record, and their recurrent memory: one float array
        [trained rows of ``envs``, hidden] per part of the rollout's state, rows in the
        rollout's order (``()`` for a policy without memory).
        """


def play_tick(env, rollouts, env_actions: np.ndarray, opponent, stats, t: int, note_ends=None) -> tuple[float, float]:
    """Tick ``t`` of a rollout (inside ``torch.inference_mode``): every rollout's policy acts on its rows of
    ``env_actions``, the opponent fills its rows, one env step, then the episode stats, ``note_ends`` (the
    episode-end hook), the opponent's bookkeeping and every rollout's store; returns (inference s, env s)."""
    start = time.perf_counter()
    for rollout in rollouts:
        rollout.act(t, env_actions)
    if opponent is not None:
        opponent.fill(env_actions)
    mid = time.perf_counter()
    _, rew, term, trunc, _, info = env.step(env_actions)
    if info:
        stats.add(info)
    if note_ends is not None:
        note_ends()
    if opponent is not None:
        opponent.after_step(rew, env.done)
    for rollout in rollouts:
        rollout.store_step(t, rew, term, trunc)
    return mid - start, time.perf_counter() - mid


class Rollout:
    """Collects ``horizon`` steps of ``policy`` on ``env`` for the rows in ``train_rows``.

    Args:
      env: a BatchedEnv; policy: a :class:`~sparring.players.policy.Policy`;
      horizon: steps per rollout; train_rows: int array of the rows to learn from;
      opponent: fills the actions of the other learner rows (or None); device: torch device.

    ``episode_end`` (None by default) is the rollout's :class:`EpisodeEndHook`; set it before collecting.
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
        # where a time limit cut the episode off at step t: the value of its final observation, to bootstrap from
        self.truncated = torch.zeros((t, n), dtype=torch.bool, device=dev)
        self.final_values = torch.zeros((t, n), device=dev)
        self.resets = torch.zeros((t, n), dtype=torch.bool, device=dev)
        self.last_value = torch.zeros(n, device=dev)
        self.env_actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
        self.state = policy.initial_state(n, dev)
        self.state0 = self.state
        self.just_done = torch.zeros(n, dtype=torch.bool, device=dev)
        self.stats = EpisodeStats()
        self.steps = 0
        self.episode_end: EpisodeEndHook | None = None
        self.ended = np.zeros(env.num_envs, np.bool_)  # envs whose episode ended in this rollout (for the hook)
        self._obs_np, self._mask_np = env.obs, env.mask

    def _take(self, array: np.ndarray) -> torch.Tensor:
        tensor = torch.from_numpy(array)
        tensor = tensor if self.all_rows else tensor.index_select(0, self.rows)
        return tensor.to(self.device, non_blocking=True)

    def begin(self) -> None:
        """Start filling the buffers: keep the entering recurrent state, clear last rollout's truncations."""
        self.state0 = tuple(s.clone() for s in self.state)
        self.truncated.zero_()
        self.final_values.zero_()

    def store_step(self, t: int, rew: np.ndarray, term: np.ndarray, trunc: np.ndarray) -> None:
        """Store the outcome of step ``t`` (the env's row buffers, read before its next step) for the trained rows.

        Must follow the policy's action at ``t`` (``self.state`` is the memory after it): rows that
        truncated get the value of their final observation under that memory.
        """
        done = term | trunc
        if self.env.num_agents > 1:
            done |= np.repeat(self.env.done, self.env.num_agents)
        self.rewards[t] = self._take(rew)
        self.just_done = self._take(done)
        self.dones[t] = self.just_done
        if trunc.any():
            self._bootstrap(t, term, trunc)

    def _bootstrap(self, t: int, term: np.ndarray, trunc: np.ndarray) -> None:
        """``final_values[t]`` of the trained rows that truncated (and did not terminate) in step ``t``."""
        env = self.env
        cut = trunc & ~term
        at = np.flatnonzero(cut if self.all_rows else cut[self.rows_np])  # positions among the trained rows
        if not at.size:
            return
        final = getattr(env, "final_obs", None)
        if final is None or len(final) != env.rows:
            raise ValueError(
                f"env {env.env_cls.name!r} truncated an episode, and bootstrapping it needs the final "
                "observation: build the env with keep_final=True"
            )
        rows = self.rows_np[at]
        # an env that ended shows its next episode in obs; a row cut off alone (its env goes on) shows its own
        ended = env.done[rows // env.num_agents]
        obs = final[rows] if ended.all() else np.where(ended[:, None], final[rows], env.obs[rows])
        obs = torch.from_numpy(obs).to(self.device)
        pos = torch.from_numpy(at).to(self.device)
        if self.policy.recurrent:
            value = self.policy.value(obs, tuple(s.index_select(0, pos) for s in self.state))
        else:
            value = self.policy.value(obs)
        self.truncated[t, pos] = True
        self.final_values[t, pos] = value

    def collect(self) -> dict:
        """Run one rollout; returns timings ``perf/env_s``, ``perf/infer_s``."""
        env, env_s, infer_s = self.env, 0.0, 0.0
        self.begin()
        with torch.inference_mode():
            for t in range(self.horizon):
                infer, stepped = play_tick(env, (self,), self.env_actions, self.opponent, self.stats, t, self.note_ends)
                infer_s, env_s = infer_s + infer, env_s + stepped
            self.finish()
            self.restart_ended()
        self.steps += self.horizon * len(self.rows_np)
        return {"perf/env_s": env_s, "perf/infer_s": infer_s}

    def act(self, t: int, env_actions: np.ndarray) -> None:
        """Step ``t``'s observations, the policy's actions, log-probs and values for the trained rows (inside
        ``torch.inference_mode``); the actions also go into their rows of ``env_actions``."""
        self.obs[t].copy_(self._take(self._obs_np))
        self.mask[t].copy_(self._take(self._mask_np))
        self.resets[t] = self.just_done
        reset = self.just_done if self.policy.recurrent else None
        actions, logprob, value, self.state = self.policy.act(self.obs[t], self.mask[t], self.state, reset)
        self.actions[t], self.logprob[t], self.values[t] = actions, logprob, value
        acts = actions.cpu().numpy()
        if self.all_rows:
            env_actions[:] = acts
        else:
            env_actions[self.rows_np] = acts

    def finish(self) -> None:
        """After the last step (inside ``torch.inference_mode``): reset the memory of rows whose episode ended and
        value the observations the next rollout starts from (``last_value``)."""
        recurrent = self.policy.recurrent
        if recurrent:
            # the state entering the next rollout must already be reset where an episode ended
            self.state = tuple(s * (~self.just_done).unsqueeze(-1) for s in self.state)
        obs = self._take(self._obs_np)
        self.last_value = self.policy.value(obs, self.state) if recurrent else self.policy.value(obs)

    def note_ends(self) -> None:
        """After an env step (and before ``store_step``): tell the episode-end hook, if any, which envs ended."""
        if self.episode_end is not None:
            self.ended |= self.env.done
            self.episode_end.after_step(np.asarray(self.env.done), self.state)

    def restart_ended(self) -> None:
        """At a rollout's end: let the hook, if any, restart envs that ended in it; their rows carry on from the
        memory it returns."""
        if self.episode_end is None:
            return
        envs, states = self.episode_end.restart(np.flatnonzero(self.ended))
        self.ended[:] = False
        if not len(envs):
            return
        rows = torch.from_numpy(np.flatnonzero(np.isin(self.rows_np // self.env.num_agents, envs))).to(self.device)
        self.just_done[rows] = False  # the restored state carries on; its memory must not be zeroed
        for s, stored in zip(self.state, states):
            s[rows] = torch.from_numpy(stored).to(s.device, s.dtype)

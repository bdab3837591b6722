"""A trained policy as the exploration agent (the interface of :mod:`sparring.explore.agents`)."""

from __future__ import annotations

import numpy as np
import torch


class PolicyAgent:
    """A trained policy sampling actions for every row; its recurrent state is archived per env."""

    def __init__(self, env, policy, name: str = "checkpoint"):
        self.env, self.policy, self.name = env, policy, name
        self.agents = env.num_agents
        self.state = policy.initial_state(env.rows)
        self.reset = torch.zeros(env.rows, dtype=torch.bool)
        self.state_shape = (len(self.state), self.agents, self.state[0].shape[-1]) if self.state else ()

    def act(self) -> np.ndarray:
        """Sampled actions [rows, heads] of the policy."""
        with torch.inference_mode():
            obs, mask = torch.from_numpy(self.env.obs), torch.from_numpy(self.env.mask)
            reset = self.reset if self.policy.recurrent else None
            actions, _, _, self.state = self.policy.act(obs, mask, self.state, reset)
        return actions.numpy().astype(np.int32)

    def after_step(self, done: np.ndarray) -> None:
        """Rows of finished episodes start their next tick from a zero state."""
        self.reset = torch.from_numpy(np.repeat(np.asarray(done), self.agents))

    def states(self, done: np.ndarray) -> np.ndarray | None:
        """[envs, *state_shape] states entering the next tick (zero for envs that just finished)."""
        if not self.state:
            return None
        keep = ~np.repeat(np.asarray(done), self.agents)[:, None]
        return np.stack([(s.numpy() * keep).reshape(self.env.num_envs, self.agents, -1) for s in self.state], 1)

    def load(self, envs: np.ndarray, states: np.ndarray) -> None:
        """Carry on in ``envs`` from archived ``states`` [len(envs), *state_shape]."""
        rows = torch.from_numpy((envs[:, None] * self.agents + np.arange(self.agents)).reshape(-1))
        with torch.inference_mode():
            self.reset[rows] = False
            for k, s in enumerate(self.state):
                s[rows] = torch.from_numpy(np.ascontiguousarray(states[:, k])).reshape(-1, s.shape[-1])

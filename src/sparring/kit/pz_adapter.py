"""PettingZoo adapter: one env instance as a ``ParallelEnv`` (one agent per learner seat)."""

from __future__ import annotations

import numpy as np
from pettingzoo import ParallelEnv

from sparring.kit.batch import BatchedEnv
from sparring.kit.registry import get
from sparring.kit.spaces import action_space, observation_space, space_mask, to_rows


class PettingZooEnv(ParallelEnv):
    """Agents are the env's learner seats under this config: ``agent_I`` is seat ``I`` (named
    ``env_cls.seats[I]``; PettingZoo asks for names like ``player_0``). Seats the env plays itself
    (duel's scripted opponent) are not agents. An agent leaves ``agents`` once it is done; agents
    that are gone act noop inside the env until the episode ends. ``infos[agent]["action_mask"]``
    holds each agent's mask as its action space's ``sample(mask=...)`` takes it (int8; a tuple of
    one array per head for several heads), so ``parallel_to_aec`` and PettingZoo's ``api_test``
    work. ``options`` of ``reset`` are not used.
    """

    metadata = {"render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, env, render_mode: str | None = None, **config):
        cls = get(env) if isinstance(env, str) else env
        self.metadata = {**self.metadata, "name": cls.name}
        self.batch = BatchedEnv(cls, num_envs=1, autoreset=False, **config)
        self._seat = {f"agent_{i}": int(i) for i in np.flatnonzero(self.batch.learner_rows)}
        self.possible_agents = list(self._seat)
        self.agents: list[str] = []
        self.render_mode = render_mode
        self._obs_space = observation_space(self.batch.obs_spec)
        self._act_space = action_space(cls.actions)
        self._acts = np.zeros((cls.num_agents, len(cls.actions.sizes)), np.int32)
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        """The same Box for every agent."""
        return self._obs_space

    def action_space(self, agent):
        """The same action space for every agent."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start an episode; without a seed, draw one from the adapter's generator."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.batch.reset(int(self._rng.integers(2**62)))
        self.agents = list(self.possible_agents)
        return self._obs(), self._infos()

    def step(self, actions: dict):
        """Act for every live agent; missing agents play noop."""
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise ValueError(f"actions for agents not in play: {sorted(unknown)}; in play: {self.agents}")
        self._acts[:] = 0
        for agent, action in actions.items():
            self._acts[self._seat[agent]] = to_rows(action, self.batch.heads)
        _, rew, term, trunc, _, _ = self.batch.step(self._acts)
        live = list(self.agents)
        obs, infos = self._obs(live), self._infos(live)
        rewards = {a: float(rew[self._seat[a]]) for a in live}
        terms = {a: bool(term[self._seat[a]]) for a in live}
        truncs = {a: bool(trunc[self._seat[a]]) for a in live}
        self.agents = [a for a in live if not (terms[a] or truncs[a])]
        return obs, rewards, terms, truncs, infos

    def render(self):
        """ANSI text of the current state."""
        if self.render_mode == "ansi":
            return self.batch.render_ansi(0)
        return None

    def _obs(self, agents=None) -> dict:
        return {a: self.batch.obs[self._seat[a]].copy() for a in (agents or self.agents)}

    def _infos(self, agents=None) -> dict:
        heads = self.batch.heads
        return {a: {"action_mask": space_mask(self.batch.mask[self._seat[a]], heads)} for a in (agents or self.agents)}

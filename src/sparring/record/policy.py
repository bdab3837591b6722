"""Policies for recording and forking: ``scripted:NAME``, ``random``, or a trained checkpoint."""

from __future__ import annotations

import os

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions


class ScriptedPolicy:
    """The env's scripted policy ``name`` (deterministic given the state)."""

    def __init__(self, env: BatchedEnv, name: str):
        self.name = f"scripted:{name}"
        self._script = name
        self._out = env.scripted_actions(name)  # fails here, naming the known policies, for an unknown name

    def __call__(self, env: BatchedEnv) -> np.ndarray:
        """Actions [rows, heads] for the env's current states."""
        return env.scripted_actions(self._script, out=self._out).copy()


class RandomPolicy:
    """Uniform over the values each head's mask allows, from its own seeded generator."""

    def __init__(self, env: BatchedEnv, seed: int = 0):
        self.name = "random"
        self._rng = np.random.default_rng(seed)

    def __call__(self, env: BatchedEnv) -> np.ndarray:
        """Actions [rows, heads], each head's value drawn among those its mask allows."""
        return allowed_actions(env.mask, env.heads.sizes, self._rng.random((env.rows, len(env.heads.sizes))))


class CheckpointPolicy:
    """The trained policy of a checkpoint (see :mod:`sparring.train.checkpoint`), sampling unless ``greedy``.

    A recurrent policy's memory restarts for every env whose tick does not
    follow the previous call's (a new episode, or a state restored by a fork).
    Returns ``(actions, logp, value)``, so both are recorded.
    """

    def __init__(self, env: BatchedEnv, path: str, seed: int = 0, greedy: bool = False):
        import torch

        from sparring.train.checkpoint import load_policy

        self._torch = torch
        self.net, meta = load_policy(path, env.env_cls.name, env)
        self.net.eval()
        self.greedy = bool(greedy)
        self.name = f"checkpoint:{os.path.abspath(path)}@step{meta['step']}" + (":greedy" if greedy else "")
        torch.manual_seed(seed)  # the sampling noise comes from torch's global generator
        self._state = self.net.initial_state(env.rows)
        self._last_tick = None

    def __call__(self, env: BatchedEnv):
        """``(actions [rows, heads], logp [rows], value [rows])`` for the env's current observations."""
        torch, ticks = self._torch, env.records["tick"].copy()
        reset = None
        if self.net.recurrent and self._last_tick is not None:
            fresh = ticks != self._last_tick + 1
            reset = torch.from_numpy(np.repeat(fresh, env.num_agents))
        self._last_tick = ticks
        with torch.inference_mode():
            act, logp, value, self._state = self.net.act(torch.from_numpy(env.obs), torch.from_numpy(env.mask),
                                                         self._state, reset, greedy=self.greedy)
        return act.numpy().astype(np.int32), logp.numpy(), value.numpy()


def checkpoint_env_config(path: str, env_name: str) -> dict:
    """The env config a checkpoint was trained with (empty if it was trained on another env)."""
    from sparring.train.checkpoint import read_meta

    meta = read_meta(path)
    return dict(meta["env_config"]) if meta["env"] == env_name else {}


def make_policy(spec: str, env: BatchedEnv, seed: int = 0, greedy: bool = False):
    """The policy named by ``spec`` for ``env``: ``"scripted:NAME"``, ``"random"`` or ``"checkpoint:PATH"``.

    A policy is called with the env and returns actions [rows, heads] (or
    ``(actions, logp, value)``); its ``name`` goes into the recording's metadata.
    ``greedy`` makes a checkpoint take its most likely actions.
    """
    kind, _, arg = spec.partition(":")
    if kind == "scripted" and arg:
        return ScriptedPolicy(env, arg)
    if kind == "checkpoint" and arg:
        return CheckpointPolicy(env, arg, seed, greedy)
    if spec == "random":
        return RandomPolicy(env, seed)
    scripted = ", ".join(f"scripted:{n}" for n in sorted(env.env_cls.scripted))
    raise ValueError(f"unknown policy {spec!r}; valid: random, checkpoint:PATH{', ' + scripted if scripted else ''}")

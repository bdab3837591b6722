"""A trained actor-critic as a :class:`~sparring.players.base.Player`, and the checkpoints that hold one."""

from __future__ import annotations

import os

import numpy as np
import torch

from sparring.players.load import load_policy, load_population, read_meta
from sparring.players.seats import SeatPlayers


class NetworkPlayer:
    """A :class:`~sparring.players.policy.Policy` network acting for any rows of one env, sampling unless ``greedy``.

    A recurrent network keeps one memory per agent row; a row's memory restarts when its
    env's tick does not follow the previous call's (a new episode, or a state restored from
    a file or an archive), unless :meth:`load_memory` set it. After each call, ``logp`` and
    ``value`` hold the chosen actions' log-probabilities and the value estimates of the rows.
    """

    def __init__(self, net, name: str, greedy: bool = False):
        self.net = net
        self._device = next(net.parameters()).device
        self.name = name + (":greedy" if greedy else "")
        self.greedy = bool(greedy)
        self.logp = self.value = np.zeros(0, np.float32)
        self._memory: tuple = ()
        self._last_tick = np.zeros(0, np.int64)

    @property
    def recurrent(self) -> bool:
        """Whether the network carries memory between ticks."""
        return self.net.recurrent

    def _bind(self, env) -> None:
        if len(self._last_tick) != env.rows:
            self._memory = self.net.initial_state(env.rows, self._device)
            self._last_tick = np.full(env.rows, -2, np.int64)

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        """The network's actions for ``rows`` (its memory advanced for those rows only)."""
        self._bind(env)
        rows = np.asarray(rows, np.int64)
        rows_t = torch.from_numpy(rows)
        state, reset = (), None
        if self.recurrent:
            ticks = env.records["tick"][rows // env.num_agents].astype(np.int64)
            reset = torch.from_numpy(ticks != self._last_tick[rows] + 1)
            self._last_tick[rows] = ticks
            state = tuple(s[rows_t.to(self._device)] for s in self._memory)
        with torch.inference_mode():
            obs, mask = torch.from_numpy(env.obs[rows]), torch.from_numpy(env.mask[rows])
            act, logp, value, state = self.net.act(
                obs.to(self._device),
                mask.to(self._device),
                state,
                None if reset is None else reset.to(self._device),
                greedy=self.greedy,
            )
        for full, part in zip(self._memory, state):
            full[rows_t.to(self._device)] = part
        self.logp, self.value = logp.cpu().numpy(), value.cpu().numpy()
        return act.cpu().numpy().astype(np.int32)

    def memory(self, env, rows: np.ndarray) -> np.ndarray | None:
        """The memory ``rows`` enter their next tick with, [len(rows), parts, hidden]; None without recurrence.

        A row whose env has restarted since its last call (see :meth:`act`) gets zeros.
        """
        if not self.recurrent:
            return None
        self._bind(env)
        rows = np.asarray(rows, np.int64)
        ticks = env.records["tick"][rows // env.num_agents].astype(np.int64)
        fresh = torch.from_numpy(ticks != self._last_tick[rows] + 1)[:, None]
        parts = [torch.where(fresh, 0.0, part[torch.from_numpy(rows).to(self._device)].cpu()) for part in self._memory]
        return torch.stack(parts, 1).numpy()

    def load_memory(self, env, rows: np.ndarray, memory: np.ndarray) -> None:
        """Continue ``rows`` from ``memory`` (as :meth:`memory` returns it) at their env's current tick."""
        if not self.recurrent:
            return
        self._bind(env)
        rows = np.asarray(rows, np.int64)
        rows_t = torch.from_numpy(rows)
        with torch.inference_mode():
            for k, s in enumerate(self._memory):
                part = torch.from_numpy(np.ascontiguousarray(memory[:, k], np.float32))
                s[rows_t.to(self._device)] = part.to(s.device)
        self._last_tick[rows] = env.records["tick"][rows // env.num_agents].astype(np.int64) - 1


def checkpoint_player(path: str, env, seed: int = 0, greedy: bool = False):
    """The trained policy of the checkpoint at ``path`` (a run folder or checkpoints/step-N) for ``env``: a
    :class:`NetworkPlayer`, or for a checkpoint of several policies (``--train.policies``) a
    :class:`~sparring.players.seats.SeatPlayers` that plays each seat with its policy.

    ``seed`` seeds torch's global generator, which the sampling noise comes from.
    """
    if read_meta(path).get("policies") is not None:
        nets, seats, meta = load_population(path, env.env_cls.name, env)
        name = f"checkpoint:{os.path.abspath(path)}@step{meta['step']}"
        players = [NetworkPlayer(net.eval(), f"{name}#{i}", greedy) for i, net in enumerate(nets)]
        torch.manual_seed(seed)
        return SeatPlayers({s: players[p] for s, p in enumerate(seats) if p >= 0}, name + (":greedy" if greedy else ""))
    net, meta = load_policy(path, env.env_cls.name, env)
    torch.manual_seed(seed)
    return NetworkPlayer(net.eval(), f"checkpoint:{os.path.abspath(path)}@step{meta['step']}", greedy)

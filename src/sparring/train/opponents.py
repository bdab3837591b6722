"""Who plays the seats the learner does not train: the env's own opponent knob, a scripted policy, or a
pool of past policies sampled by prioritised fictitious self-play (PFSP, the part only training has)."""

from __future__ import annotations

import copy

import numpy as np
import torch

from sparring.players import ScriptedPlayer
from sparring.players.opponents import SELF_PLAY, assigned_players, resolve_seats, seat_rows

GROUPS = 4  # env groups, each facing one pool member per update: few forwards per step, varied opponents


def pfsp_draw(rng: np.random.Generator, wins: list[float], games: list[float], groups: int = GROUPS) -> np.ndarray:
    """Prioritised fictitious self-play: one member per env group, member ``i`` with weight (1 - p_i)^2 + 1e-6,
    p_i = (wins_i + 1) / (games_i + 2) the learner's smoothed win rate against it (the members it loses to
    come most often, the ones it always beats almost never)."""
    p = (np.asarray(wins) + 1.0) / (np.asarray(games) + 2.0)
    weight = (1.0 - p) ** 2 + 1e-6
    return rng.choice(len(wins), size=groups, p=weight / weight.sum())


def credit(wins: list[float], games: list[float], choice: np.ndarray, groups: np.ndarray, returns: np.ndarray) -> None:
    """Score ended episodes for the members that played them: ``groups[k]`` is the env group of the k-th ended
    episode, ``returns[k]`` the learner's return in it (a win above 0, a loss below, a draw counts half);
    ``choice[g]`` is group g's member. Adds to ``wins`` and ``games`` in place."""
    score = np.where(returns > 0, 1.0, np.where(returns < 0, 0.0, 0.5))
    for g in range(len(choice)):
        sel = groups == g
        wins[choice[g]] += float(score[sel].sum())
        games[choice[g]] += float(sel.sum())


def make_opponent(
    env_cls, name: str | None, env_config: dict, cfg, explicit: dict | None = None, seats: dict | None = None
):
    """Resolve ``--opponent NAME`` and ``--seat NAME=PLAYER`` (see :func:`~sparring.players.opponents.resolve_seats`)
    into (env config, factory(env, policy, device) -> (opponent or None, trained rows)).

    The learner trains the first seat taken from outside that no ``--seat`` names; with an
    opponent (a script or ``self``) the other free seats are the opponent's, else the learner's
    too. Each named seat is played by its player throughout.
    """
    env_config, other, assigned = resolve_seats(env_cls, seats or {}, name, env_config, explicit)

    def factory(env, policy, device):
        train, opp_rows = seat_rows(env, other, assigned, who="the learner")
        opponent = None
        if other is not None:
            opponent = (
                PoolOpponent(env, policy, opp_rows, cfg.pool_size, cfg.pool_every, cfg.seed, device)
                if other == SELF_PLAY
                else ScriptedOpponent(env, other.partition(":")[2], opp_rows)
            )
        if assigned:
            opponent = SeatedOpponents(env, opponent, assigned_players(env, assigned, cfg.seed))
        return opponent, train

    return env_config, factory


class SeatedOpponents:
    """The ``--seat`` players in their seats, next to the opponent of the other seats (if any), as one opponent."""

    def __init__(self, env, opponent, fixed: list):
        self.env, self.opponent, self.fixed = env, opponent, fixed

    def fill(self, actions: np.ndarray) -> None:
        """Each player's actions for its seat's rows, then the opponent's."""
        for player, rows in self.fixed:
            actions[rows] = player.act(self.env, rows)
        if self.opponent is not None:
            self.opponent.fill(actions)

    def after_step(self, rewards, env_done) -> None:
        """The opponent's bookkeeping (fixed players keep their own memory by tick)."""
        if self.opponent is not None:
            self.opponent.after_step(rewards, env_done)

    def after_update(self, iteration: int) -> None:
        """The opponent's update (fixed players do not change)."""
        if self.opponent is not None:
            self.opponent.after_update(iteration)

    def metrics(self) -> dict:
        """The opponent's metrics."""
        return self.opponent.metrics() if self.opponent is not None else {}

    def state(self) -> dict:
        """The opponent's state (fixed players are rebuilt from their specs)."""
        return self.opponent.state() if self.opponent is not None else {"json": {}, "tensors": {}}

    def load_state(self, state: dict) -> None:
        """Restore the opponent's state."""
        if self.opponent is not None:
            self.opponent.load_state(state)


class ScriptedOpponent:
    """A scripted policy of the env plays the non-trained learner seats."""

    def __init__(self, env, script: str, rows: np.ndarray):
        self.env, self.rows = env, rows
        self.player = ScriptedPlayer(env, script)
        self.name = script

    def fill(self, actions: np.ndarray) -> None:
        """Write the opponent's actions into the env action array."""
        actions[self.rows] = self.player.act(self.env, self.rows)

    def after_step(self, rewards, env_done) -> None:
        """Scripted opponents learn nothing."""

    def after_update(self, iteration: int) -> None:
        """Scripted opponents do not change."""

    def metrics(self) -> dict:
        """No opponent metrics."""
        return {}

    def state(self) -> dict:
        """Nothing to save."""
        return {"json": {}, "tensors": {}}

    def load_state(self, state: dict) -> None:
        """Nothing to restore."""


class PoolOpponent:
    """Past versions of the learner play the other seats; PFSP picks the ones the learner loses to.

    Envs are split into a few groups; each group faces one pool member, re-drawn after every update
    with weight (1 - p)^2, p the learner's smoothed win rate against that member (draws count half).
    """

    def __init__(self, env, policy, rows, pool_size: int, pool_every: int, seed: int, device):
        self.env, self.policy, self.rows, self.device = env, policy, rows, device
        self.pool_size, self.pool_every = max(1, pool_size), max(1, pool_every)
        self.rng = np.random.default_rng(seed)
        self.pool: list[dict] = []
        self.wins: list[float] = []
        self.games: list[float] = []
        self.net = copy.deepcopy(policy)
        self._add(policy)
        envs = rows // env.num_agents
        self.group_of_env = np.arange(env.num_envs) % GROUPS
        self.group_rows = [torch.from_numpy(rows[self.group_of_env[envs] == g]) for g in range(GROUPS)]
        self.learner_rows = np.flatnonzero(env.learner_rows)
        self.learner_rows = self.learner_rows[np.isin(self.learner_rows, rows, invert=True)]
        self.returns = np.zeros(env.num_envs, np.float64)
        self.states = [policy.initial_state(len(r), device) for r in self.group_rows]
        self._draw()

    def _add(self, policy) -> None:
        self.pool.append({k: v.detach().clone() for k, v in policy.state_dict().items()})
        self.wins.append(0.0)
        self.games.append(0.0)
        if len(self.pool) > self.pool_size:
            for seq in (self.pool, self.wins, self.games):
                seq.pop(0)

    def _draw(self) -> None:
        self.choice = pfsp_draw(self.rng, self.wins, self.games)
        self._build_nets()

    def _build_nets(self) -> None:
        self.nets = []
        for member in self.choice:
            net = copy.deepcopy(self.net)
            net.load_state_dict(self.pool[member])
            self.nets.append(net)

    def fill(self, actions: np.ndarray) -> None:
        """Write each group's pool member's actions into the env action array."""
        obs, mask = torch.from_numpy(self.env.obs), torch.from_numpy(self.env.mask)
        with torch.inference_mode():
            for g, rows in enumerate(self.group_rows):
                if len(rows):
                    a, _, _, self.states[g] = self.nets[g].act(
                        obs[rows].to(self.device), mask[rows].to(self.device), self.states[g]
                    )
                    actions[rows.numpy()] = a.cpu().numpy()

    def after_step(self, rewards, env_done) -> None:
        """Track the learner's return per env; score finished episodes against the member faced."""
        np.add.at(self.returns, self.learner_rows // self.env.num_agents, rewards[self.learner_rows])
        if not env_done.any():
            return
        done = np.flatnonzero(env_done)
        credit(self.wins, self.games, self.choice, self.group_of_env[done], self.returns[done])
        self.returns[done] = 0.0
        keep = torch.from_numpy(~np.repeat(env_done, self.env.num_agents))
        self.states = [tuple(s * keep[r].unsqueeze(-1) for s in st) for st, r in zip(self.states, self.group_rows)]

    def after_update(self, iteration: int) -> None:
        """Snapshot the learner into the pool every ``pool_every`` updates; redraw opponents."""
        if iteration % self.pool_every == 0:
            self._add(self.policy)
        self._draw()

    def metrics(self) -> dict:
        """Pool size and the learner's smoothed win rate against the whole pool."""
        return {"selfplay/pool": len(self.pool), "selfplay/win_rate": (sum(self.wins) + 1.0) / (sum(self.games) + 2.0)}

    def state(self) -> dict:
        """Pool weights (tensors) and PFSP statistics (JSON)."""
        tensors = {f"pool.{i}.{k}": v for i, member in enumerate(self.pool) for k, v in member.items()}
        return {
            "json": {
                "wins": self.wins,
                "games": self.games,
                "size": len(self.pool),
                "rng": self.rng.bit_generator.state,
                "choice": self.choice.tolist(),
            },
            "tensors": tensors,
        }

    def load_state(self, state: dict) -> None:
        """Restore what :meth:`state` returned."""
        meta, tensors = state["json"], state["tensors"]
        self.pool = [
            {k.split(".", 2)[2]: v for k, v in tensors.items() if k.startswith(f"pool.{i}.")}
            for i in range(meta["size"])
        ]
        self.wins, self.games = list(meta["wins"]), list(meta["games"])
        self.rng.bit_generator.state = meta["rng"]
        self.choice = np.asarray(meta["choice"], np.int64)
        self._build_nets()

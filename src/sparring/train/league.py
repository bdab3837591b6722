"""A league: fixed brains and snapshots of the run's own policies play some characters of every env.

``--train.league`` names the members: player specs (``scripted:planner``, ``scripted:planner:0.2``,
``random``, ``checkpoint:RUN``) and ``self``, the run's own policies as they were every
``pool_every`` updates (the newest ``pool_size`` snapshots kept; a snapshot plays each of its
rows with the policy of that row's seat). ``--train.league_seats K`` gives the league K
characters of every env: a block of consecutive trained seats that starts at seat ``e * K`` of
env ``e`` (wrapping around), so every seat is the league's in some envs and trains in the others.

The envs are split into groups as for self-play, and each group's member is re-drawn after
every update by the PFSP weight of :mod:`sparring.train.opponents` (the members the learners
score worst against come most often), scored the same way: an episode is a win when the
trained rows of its env earned more than 0 together, a loss below 0, a draw at 0.
"""

from __future__ import annotations

import copy

import numpy as np

from sparring.players.make import check_player, make_player
from sparring.players.network import NetworkPlayer
from sparring.players.seats import SeatPlayers
from sparring.train.opponents import GROUPS, credit, pfsp_draw

SELF = "self"


def parse_league(spec: str, env_cls) -> tuple[list[str], bool]:
    """``--train.league`` as (fixed brains' player specs, whether snapshots of the run's policies join)."""
    entries = [e.strip() for e in spec.split(",") if e.strip()]
    brains = [e for e in entries if e != SELF]
    for brain in brains:
        check_player(brain, env_cls)
    if len(set(entries)) != len(entries):
        raise ValueError(f"--train.league {spec!r} names a member twice; give each once")
    return brains, SELF in entries


def league_rows(env, trained: list[int], k: int) -> np.ndarray:
    """The rows the league plays: in env ``e``, ``k`` consecutive seats of ``trained`` from position ``e * k``."""
    if not 1 <= k < len(trained):
        raise ValueError(
            f"--train.league_seats {k}: the league needs 1..{len(trained) - 1} of the {len(trained)} trained seats "
            "(the others must train)"
        )
    seats = np.asarray(trained, np.int64)
    envs = np.arange(env.num_envs)
    pos = (envs[:, None] * k + np.arange(k)[None, :]) % len(seats)
    return np.sort((envs[:, None] * env.num_agents + seats[pos]).ravel())


class League:
    """The opponent (see :mod:`sparring.train.opponents`) that plays ``rows`` with league members.

    Args:
      env: the BatchedEnv; policies: the run's policies; seat_policy: each seat's policy number;
      rows: the league's rows; learners: the trained rows (whose returns score the members);
      brains: fixed members' specs; snapshots: whether the run's own policies join;
      pool_size, pool_every: snapshots kept and updates between them; seed; device.
    """

    def __init__(
        self, env, policies, seat_policy, rows, learners, brains, snapshots, pool_size, pool_every, seed, device
    ):
        self.env, self.policies, self.seat_policy, self.device = env, policies, np.asarray(seat_policy), device
        self.rows, self.learners = np.asarray(rows, np.int64), np.asarray(learners, np.int64)
        self.brain_names = list(brains)
        self.brains = [make_player(spec, env, seed + i) for i, spec in enumerate(brains)]
        self.snapshots_on, self.pool_size, self.pool_every = snapshots, max(1, pool_size), max(1, pool_every)
        self.rng = np.random.default_rng([seed, 0x1EA6])
        self.snapshots: list[list[dict]] = []
        self.wins = [0.0] * len(self.brains)
        self.games = [0.0] * len(self.brains)
        if snapshots and not self.brains:
            self._snapshot()  # the only member until the first snapshot of training
        if not self.wins:
            raise ValueError("--train.league needs a member: a player spec or self")
        self.group_of_env = np.arange(env.num_envs) % GROUPS
        self.group_rows = [self.rows[self.group_of_env[self.rows // env.num_agents] == g] for g in range(GROUPS)]
        self.returns = np.zeros(env.num_envs, np.float64)
        self._draw()

    def _snapshot(self) -> None:
        self.snapshots.append([{k: v.detach().clone() for k, v in p.state_dict().items()} for p in self.policies])
        self.wins.append(0.0)
        self.games.append(0.0)
        if len(self.snapshots) > self.pool_size:
            self.snapshots.pop(0)
            at = len(self.brains)
            del self.wins[at], self.games[at]

    def names(self) -> list[str]:
        """The members' names in PFSP order: the brains, then the snapshots oldest first."""
        return self.brain_names + [f"self:{k}" for k in range(len(self.snapshots))]

    def _draw(self) -> None:
        self.choice = pfsp_draw(self.rng, self.wins, self.games)
        self._build_players()

    def _build_players(self) -> None:
        """The player of each member drawn (a snapshot's networks afresh, so their memory starts at the draw)."""
        self.players = {}
        for member in np.unique(self.choice):
            if member < len(self.brains):
                self.players[member] = self.brains[member]
                continue
            nets = []
            for policy, weights in zip(self.policies, self.snapshots[member - len(self.brains)]):
                net = copy.deepcopy(policy)
                net.load_state_dict(weights)
                nets.append(NetworkPlayer(net.eval(), f"self:{member - len(self.brains)}"))
            by_seat = {s: nets[p] for s, p in enumerate(self.seat_policy) if p >= 0}
            self.players[member] = SeatPlayers(by_seat, f"self:{member - len(self.brains)}")

    def fill(self, actions: np.ndarray) -> None:
        """Each drawn member's actions for its groups' rows (one call per member)."""
        for member, player in self.players.items():
            rows = np.concatenate([self.group_rows[g] for g in np.flatnonzero(self.choice == member)])
            if len(rows):
                actions[rows] = player.act(self.env, rows)

    def after_step(self, rewards, env_done) -> None:
        """Track the trained rows' return per env; score ended episodes for the member their group faced."""
        np.add.at(self.returns, self.learners // self.env.num_agents, rewards[self.learners])
        if not env_done.any():
            return
        done = np.flatnonzero(env_done)
        credit(self.wins, self.games, self.choice, self.group_of_env[done], self.returns[done])
        self.returns[done] = 0.0

    def after_update(self, iteration: int) -> None:
        """Snapshot the policies every ``pool_every`` updates (with ``self``); redraw the members."""
        if self.snapshots_on and iteration % self.pool_every == 0:
            self._snapshot()
        self._draw()

    def metrics(self) -> dict:
        """Members, the learners' smoothed win rate against the league, and the share of groups on snapshots."""
        return {
            "league/members": len(self.wins),
            "league/win_rate": (sum(self.wins) + 1.0) / (sum(self.games) + 2.0),
            "league/self_share": float(np.mean(self.choice >= len(self.brains))),
        }

    def state(self) -> dict:
        """Snapshot weights (tensors) and PFSP statistics (JSON)."""
        tensors = {
            f"snap.{j}.{i}.{k}": v
            for j, snap in enumerate(self.snapshots)
            for i, weights in enumerate(snap)
            for k, v in weights.items()
        }
        meta = {
            "brains": self.brain_names,
            "snapshots": len(self.snapshots),
            "wins": self.wins,
            "games": self.games,
            "rng": self.rng.bit_generator.state,
            "choice": self.choice.tolist(),
            "returns": self.returns.tolist(),
            # the dice of noisy and random brains are their own generators, so a resume continues them too
            "brain_rng": [_dice(b).bit_generator.state if _dice(b) is not None else None for b in self.brains],
        }
        return {"json": meta, "tensors": tensors}

    def load_state(self, state: dict) -> None:
        """Restore what :meth:`state` returned; a league of other brains is refused."""
        meta, tensors = state["json"], state["tensors"]
        if meta["brains"] != self.brain_names:
            raise ValueError(f"the checkpoint's league has brains {meta['brains']}, this run {self.brain_names}")
        self.snapshots = [
            [
                {k.split(".", 3)[3]: v for k, v in tensors.items() if k.startswith(f"snap.{j}.{i}.")}
                for i in range(len(self.policies))
            ]
            for j in range(meta["snapshots"])
        ]
        self.wins, self.games = list(meta["wins"]), list(meta["games"])
        self.rng.bit_generator.state = meta["rng"]
        self.choice = np.asarray(meta["choice"], np.int64)
        self.returns = np.asarray(meta["returns"], np.float64)
        for brain, dice in zip(self.brains, meta["brain_rng"]):
            if dice is not None:
                _dice(brain).bit_generator.state = dice
        self._build_players()


def _dice(player) -> np.random.Generator | None:
    """The generator a noisy or random player draws from (None for a deterministic one)."""
    return getattr(player, "_rng", None)

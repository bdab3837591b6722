"""One player made of several: each row is played by the player of its seat (a population of policies)."""

from __future__ import annotations

import numpy as np


class SeatPlayers:
    """A :class:`~sparring.players.base.Player` that hands each row to ``by_seat[row % num_agents]``.

    A checkpoint trained with several policies (``--train.policies``) plays this way, each
    character with the policy of its seat, as does a league's snapshot of them. ``logp`` and
    ``value`` hold the seat players' figures row by row after each call (NaN where a player has none).
    """

    def __init__(self, by_seat: dict, name: str):
        self.by_seat, self.name = dict(by_seat), name
        self.logp = self.value = np.zeros(0, np.float32)

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        """Each seat player's actions for the rows of its seat."""
        rows = np.asarray(rows, np.int64)
        seats = rows % env.num_agents
        missing = sorted(set(seats.tolist()) - set(self.by_seat))
        if missing:
            raise ValueError(
                f"{self.name} has no policy for seat(s) {[env.env_cls.seats[s] for s in missing]}; it plays "
                f"{[env.env_cls.seats[s] for s in sorted(self.by_seat)]}"
            )
        out = np.zeros((len(rows), len(env.heads.sizes)), np.int32)
        self.logp, self.value = np.full(len(rows), np.nan, np.float32), np.full(len(rows), np.nan, np.float32)
        # seats sharing one player act in one call
        players = {}
        for seat in np.unique(seats):
            players.setdefault(id(self.by_seat[seat]), (self.by_seat[seat], []))[1].append(seat)
        for player, its_seats in players.values():
            sel = np.isin(seats, its_seats)
            out[sel] = player.act(env, rows[sel])
            if len(getattr(player, "logp", ())) == sel.sum():
                self.logp[sel], self.value[sel] = player.logp, player.value
        return out

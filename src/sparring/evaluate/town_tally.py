"""Per-character counts of a town episode that the env keeps only per town: trades taken part in and gifts given.

Each tick's choices are in the record (``last``: what each character chose, legal when chosen),
but a choice can still fail at its turn within the tick (what it needs went to someone earlier
in the tick), so a choice counts only where the record shows its effect:

- trades: the env counts them exactly per town (metric ``trades``), so each tick's count is
  shared out among that town's accepted offers: first those whose buyer's coins fell (a buyer's
  coins fall only by paying), then those whose buyer holds more of the offered good (which a gift
  of the same good would also explain), then any other. Per town the characters' trades (as buyer
  or seller) add up to twice the env's count; a rare tick where two accepts are told apart by
  neither sign may credit the wrong buyer.
- gifts: the env does not count them. A gift counts when the giver holds less of the given good
  after the tick than before, less a unit it sold to an accepted offer the same tick. A gift
  missed: one made by a giver who received the same good as a gift in the same tick.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.town.metrics import TRADES
from sparring.envs.town.world import ACCEPT, GIVE, GOOD, KIND
from sparring.evaluate.matchup import Finished

_FIELDS = ("inbox", "out_good", "goods", "coins")


class TownTally(Finished):
    """A :func:`~sparring.evaluate.episodes.play_episodes` tracker for town: per finished episode (in order),
    each character's goal completed, standing at the end, trades taken part in (as buyer or seller) and gifts
    given (see :meth:`arrays`)."""

    def __init__(self, env, progress=None, done_before: int = 0, label: str = ""):
        super().__init__(env, progress, done_before, label)
        shape = (env.num_envs, env.num_agents)
        self.trades, self.gifts = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        self.active = np.zeros(env.num_envs, bool)
        self._parts: dict[str, list[np.ndarray]] = {"goal": [], "alive": [], "trades": [], "gifts": []}
        self._snapshot()

    def _snapshot(self) -> None:
        recs = self.env.records
        self._before = {name: recs[name].copy() for name in _FIELDS}
        self._made = recs["metrics"][:, TRADES].copy()

    def start(self, idx) -> None:
        """Envs ``idx`` begin an episode: their counts start at 0."""
        self.trades[idx] = self.gifts[idx] = 0
        self.active[idx] = True
        self._snapshot()

    def observe(self) -> None:
        """After a step: count the trades and gifts the tick carried out in envs still playing."""
        recs, before = self.env.records, self._before
        last, goods = recs["last"], recs["goods"]
        kind = KIND[last]
        live = self.active[:, None]
        e, buyer = np.nonzero((kind == ACCEPT) & live)
        seller = before["inbox"][e, buyer]
        good = before["out_good"][e, seller]
        paid = recs["coins"][e, buyer] < before["coins"][e, buyer]
        got = goods[e, buyer, good] > before["goods"][e, buyer, good]
        made = np.rint(recs["metrics"][:, TRADES] - self._made).astype(np.int64)
        took = _first_per_env(e, 2 * paid + got, made)
        np.add.at(self.trades, (e[took], buyer[took]), 1)
        np.add.at(self.trades, (e[took], seller[took]), 1)
        sold = np.zeros_like(goods)
        np.add.at(sold, (e[took], seller[took], good[took]), 1)
        e, giver = np.nonzero((kind == GIVE) & live)
        good = GOOD[last[e, giver]]
        gave = goods[e, giver, good] + sold[e, giver, good] < before["goods"][e, giver, good]
        np.add.at(self.gifts, (e[gave], giver[gave]), 1)
        self._snapshot()

    def finish(self, idx) -> None:
        """Envs ``idx`` ended an episode: keep every character's figures."""
        recs = self.env.records[idx]
        for name, values in (
            ("goal", recs["goal_done"]),
            ("alive", recs["alive"]),
            ("trades", self.trades[idx]),
            ("gifts", self.gifts[idx]),
        ):
            self._parts[name].append(np.asarray(values, np.int64).copy())
        self.active[idx] = False
        super().finish(idx)

    def arrays(self) -> dict[str, np.ndarray]:
        """``goal``, ``alive``, ``trades``, ``gifts``: [finished episodes, characters] each."""
        n = self.env.num_agents
        return {k: np.concatenate(v) if v else np.zeros((0, n), np.int64) for k, v in self._parts.items()}


def _first_per_env(env: np.ndarray, priority: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Which candidates (each of env ``env[i]``) are taken: per env its ``count`` of highest ``priority``."""
    order = np.lexsort((-priority, env))
    ranked = env[order]
    rank = np.arange(len(order)) - np.searchsorted(ranked, ranked, "left")
    taken = np.zeros(len(env), bool)
    taken[order] = rank < count[ranked]
    return taken

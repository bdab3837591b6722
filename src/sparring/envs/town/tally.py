"""Per-character counts of a town episode that the env keeps only per town: trades taken part in, gifts given and
talk, each with whom (and each trade's good, price and tick).

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
- talk: the env does not count it either. It counts where the talker's regard for the one it
  addressed rose (or was already full): a talk carried out always raises it, and otherwise only
  the other's talk, a trade between them or the other's gift the same tick would.

:func:`sparring.envs.town.render.events` draws the same events one tick of one town at a time, by the same rules.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.town.metrics import TRADES
from sparring.envs.town.world import ACCEPT, ARG, GIVE, GOOD, KIND, TALK
from sparring.kit.tally import SeatTally

_FIELDS = ("inbox", "out_good", "out_price", "goods", "coins", "slots", "rel")
PAIRS = ("trade_pairs", "gift_pairs", "talk_pairs")


class TownTally(SeatTally):
    """Town's tally for the judge (:mod:`sparring.kit.tally`): per finished episode (in order),
    each character's goal and whether it completed it, standing at the end, work per skill, trades taken part
    in (as buyer or seller) and gifts given, who traded, gave and talked with whom, and every trade (see
    :meth:`arrays`)."""

    per_seat = {"trades_per_character": "trades", "gifts_per_character": "gifts"}
    per_episode = {"trades_per_town": "trades", "coin_gini": "coin_gini"}
    labels = {"trades_per_town": ("trades per town", 1), "coin_gini": ("coin Gini", 3)}
    episode = "town"

    def __init__(self, env):
        super().__init__(env)
        shape, n = (env.num_envs, env.num_agents), env.num_agents
        self.trades, self.gifts = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        self.pairs = {name: np.zeros((env.num_envs, n, n), np.int32) for name in PAIRS}
        self.active = np.zeros(env.num_envs, bool)
        self.serial = np.zeros(env.num_envs, np.int64)  # which episode each env plays, numbered as they start
        self._started = 0
        self._log: list[np.ndarray] = []  # trades: (serial, tick, seller, buyer, good, price) rows
        self._ended: list[np.ndarray] = []  # serials in the order the episodes finished
        names = ("goal", "goal_kind", "alive", "trades", "gifts", "worked", *PAIRS)
        self._parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
        self._snapshot()

    def _snapshot(self) -> None:
        recs = self.env.records
        self._before = {name: recs[name].copy() for name in _FIELDS}
        self._made = recs["metrics"][:, TRADES].copy()

    def start(self, idx) -> None:
        """Envs ``idx`` (indices) begin an episode: their counts start at 0."""
        self.trades[idx] = self.gifts[idx] = 0
        for pairs in self.pairs.values():
            pairs[idx] = 0
        self.active[idx] = True
        idx = np.asarray(idx, np.int64)
        self.serial[idx] = self._started + np.arange(len(idx))
        self._started += len(idx)
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
        e, buyer, seller, good = e[took], buyer[took], seller[took], good[took]
        np.add.at(self.trades, (e, buyer), 1)
        np.add.at(self.trades, (e, seller), 1)
        np.add.at(self.pairs["trade_pairs"], (e, seller, buyer), 1)
        if len(e):
            price = before["out_price"][e, seller]
            self._log.append(np.stack([self.serial[e], recs["tick"][e], seller, buyer, good, price], 1))
        sold = np.zeros_like(goods)
        np.add.at(sold, (e, seller, good), 1)
        e, giver = np.nonzero((kind == GIVE) & live)
        good, taker = GOOD[last[e, giver]], before["slots"][e, giver, ARG[last[e, giver]]]
        gave = goods[e, giver, good] + sold[e, giver, good] < before["goods"][e, giver, good]
        np.add.at(self.gifts, (e[gave], giver[gave]), 1)
        np.add.at(self.pairs["gift_pairs"], (e[gave], giver[gave], taker[gave]), 1)
        e, talker = np.nonzero((kind == TALK) & live)
        heard = before["slots"][e, talker, ARG[last[e, talker]]]
        regard = before["rel"][e, talker, heard]
        talked = (recs["rel"][e, talker, heard] > regard) | (regard >= 1.0)
        np.add.at(self.pairs["talk_pairs"], (e[talked], talker[talked], heard[talked]), 1)
        self._snapshot()

    def finish(self, idx) -> None:
        """Envs ``idx`` ended an episode: keep every character's figures."""
        recs = self.env.records[idx]
        for name, values in (
            ("goal", recs["goal_done"]),
            ("goal_kind", recs["goal"]),
            ("alive", recs["alive"]),
            ("trades", self.trades[idx]),
            ("gifts", self.gifts[idx]),
            ("worked", recs["worked"]),
            *((name, self.pairs[name][idx]) for name in PAIRS),
        ):
            self._parts[name].append(np.asarray(values, np.int64).copy())
        self._ended.append(self.serial[idx].copy())
        self.active[idx] = False

    def arrays(self) -> dict[str, np.ndarray]:
        """Per finished episode (in order), per character: ``goal`` (1: completed), ``goal_kind`` (which goal, an
        index into :data:`~sparring.envs.town.world.GOAL_NAMES`), ``alive``, ``trades``, ``gifts``
        ([episodes, characters] each); ``worked`` ([episodes, characters, skills]: work per skill);
        ``trade_pairs`` (seller, buyer), ``gift_pairs`` (giver, receiver), ``talk_pairs`` (talker, listener)
        ([episodes, characters, characters]: counts); and ``trade_log``, one row per trade: (episode, tick
        after it, seller, buyer, good, price)."""
        n = self.env.num_agents
        shapes = {"worked": (0, n, 3), **{name: (0, n, n) for name in PAIRS}}
        out = {k: np.concatenate(v) if v else np.zeros(shapes.get(k, (0, n)), np.int64) for k, v in self._parts.items()}
        log = np.concatenate(self._log) if self._log else np.zeros((0, 6), np.int64)
        ended = np.concatenate(self._ended) if self._ended else np.zeros(0, np.int64)
        order = np.full(self._started, -1, np.int64)
        order[ended] = np.arange(len(ended))
        log = log.astype(np.int64)
        log[:, 0] = order[log[:, 0]]
        out["trade_log"] = log[log[:, 0] >= 0]  # trades of episodes still unfinished are left out
        return out


def _first_per_env(env: np.ndarray, priority: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Which candidates (each of env ``env[i]``) are taken: per env its ``count`` of highest ``priority``."""
    order = np.lexsort((-priority, env))
    ranked = env[order]
    rank = np.arange(len(order)) - np.searchsorted(ranked, ranked, "left")
    taken = np.zeros(len(env), bool)
    taken[order] = rank < count[ranked]
    return taken

"""Emergence in town: what the characters' work, trade and prices show, from the episodes a
:class:`~sparring.evaluate.town_tally.TownTally` followed.

The figures, for the focal and the background characters apart where a town has both:

- **work entropy**, how concentrated a character's work is: the entropy of its work over the
  three skills (farming, baking, woodcutting) divided by log 3, so 0 when it worked at one
  only and 1 when at all three equally; per town the mean over the group's characters who
  worked (the env's metric ``spec_entropy`` is this mean over every character), then a mean
  over towns with a 95% bootstrap interval; and the group's **work shares** per skill, pooled;
- **division of labour** across a town's characters: the mutual information between who
  worked and at what, divided by the entropy of what was worked at, I(character; skill) /
  H(skill) (Gorelick, Bertram, Killeen and Fewell, 2004, "Normalized mutual entropy in
  biology: quantifying division of labor", The American Naturalist 164(5)). 0 when every
  character splits its work over the skills as the town does, 1 when each character works at
  one skill only (and not all at the same one; a town whose work is all one skill has none to
  divide and is left out). Few work acts inflate it, so each town's figure comes with a
  **shuffled** one: the same acts with their skills shuffled among the town's characters
  (keeping each character's count and each skill's), the division a town of characters who
  took their work at random would show. Means over towns with bootstrap intervals;
- the **trade network**: trades per town from seller to buyer, by character (seat) and between
  the groups (focal to focal, focal to background, ...), with bootstrap intervals over towns, and
  between roles, a role being a group and a goal (``focal rich``, ``background house``, ...):
  goals are drawn per town, so who trades with whom by goal shows roles a seat cannot; gifts
  and talk per town likewise;
- **prices over time**: per good, the mean price of a trade per window of ``window`` ticks
  (with the count and a bootstrap interval over the window's trades), per day, and the trend,
  the least-squares slope of price against time in coins per day with its 95% interval
  (``scipy.stats.linregress``; trades of one town are not independent, so the interval is
  somewhat narrow); the market's own prices beside them;
- **goal rates per character** (seat), for each group, with 95% Wilson intervals.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.town.names import NAMES
from sparring.envs.town.world import BUY_PRICE, DAY, GOAL_NAMES, GOOD_NAMES, SELL_PRICE, SKILL_NAMES
from sparring.kit.stats import bootstrap_ci, wilson_interval

SHUFFLES = 20  # shuffles per town for the division of labour of random work
FEW = 2_000  # bootstrap resamples for the many price windows (10,000 elsewhere)


def emergence(chars: dict, focal: np.ndarray, window: int = DAY // 4, seed: int = 0) -> dict:
    """The emergence figures (see the module's doc) of the towns in ``chars`` (:meth:`TownTally.arrays`), the
    focal characters where ``focal`` ([towns, characters] bool) is True; ``window`` ticks per price window."""
    if window < 1:
        raise ValueError(f"the price window must be >= 1 tick, got {window}")
    towns, n = chars["goal"].shape
    if towns == 0:
        raise ValueError("emergence needs at least one finished town")
    groups = {"focal": focal, "background": ~focal}
    rng = np.random.default_rng(seed)
    division = [_division(w, rng) for w in chars["worked"]]
    kept = [d for d in division if d is not None]
    return {
        "towns": towns,
        "work": {g: _work(chars["worked"], m) for g, m in groups.items() if m.any()},
        "work_by_goal": {
            GOAL_NAMES[k]: _shares(chars["worked"][chars["goal_kind"] == k]) for k in range(len(GOAL_NAMES))
        },
        "division_of_labour": {
            "towns": len(kept),
            "mean": _mean([d[0] for d in kept]),
            "shuffled": _mean([d[1] for d in kept]),
        },
        "trade_network": {**_network(chars["trade_pairs"], groups), **_roles(chars, focal)},
        "gifts_per_town": _mean(chars["gift_pairs"].sum((1, 2))),
        "talk_per_town": _mean(chars["talk_pairs"].sum((1, 2))),
        "prices": _prices(chars["trade_log"], window),
        "characters": [_character(chars, groups, a) for a in range(n)],
    }


def _mean(values, resamples: int = 10_000) -> dict | None:
    """Mean with its 95% bootstrap interval; None for no values."""
    values = np.asarray(values, np.float64)
    if values.size == 0:
        return None
    return {
        "mean": float(values.mean()),
        "ci95": list(bootstrap_ci(values, resamples=resamples)),
        "n": int(values.size),
    }


def _rate(successes: int, trials: int) -> dict:
    rate = successes / trials if trials else None
    return {"successes": successes, "trials": trials, "rate": rate, "ci95": list(wilson_interval(successes, trials))}


def _shares(worked: np.ndarray) -> dict:
    """Work acts per skill, pooled over ``worked`` ([..., skills]), as shares (None without work)."""
    total = worked.reshape(-1, len(SKILL_NAMES)).sum(0)
    acts = int(total.sum())
    return {"acts": acts, **{s: (float(total[k] / acts) if acts else None) for k, s in enumerate(SKILL_NAMES)}}


def work_entropy(worked: np.ndarray) -> np.ndarray:
    """Normalised entropy (0: one skill, 1: all equally) of each row of work counts ``worked`` ([..., skills]);
    NaN where a character never worked. The env's ``spec_entropy`` metric is its mean over those who worked."""
    worked = np.asarray(worked, np.float64)
    total = worked.sum(-1, keepdims=True)
    p = np.divide(worked, total, out=np.zeros_like(worked), where=total > 0)
    h = -(p * np.log(p, out=np.zeros_like(p), where=p > 0)).sum(-1) / np.log(worked.shape[-1])
    return np.where(total[..., 0] > 0, h, np.nan)


def _work(worked: np.ndarray, mask: np.ndarray) -> dict:
    """A group's work: mean entropy per town (over its characters who worked), share who worked, shares per skill."""
    h = np.where(mask, work_entropy(worked), np.nan)
    has = ~np.isnan(h).all(1)
    per_town = np.nanmean(h[has], 1) if has.any() else np.zeros(0)
    working = int((worked.sum(2) > 0)[mask].sum())
    return {"entropy": _mean(per_town), "worked": _rate(working, int(mask.sum())), "shares": _shares(worked[mask])}


def _mutual_share(counts: np.ndarray) -> float | None:
    """I(character; skill) / H(skill) of a [characters, skills] count table; None when H(skill) is 0."""
    total = counts.sum()
    if total == 0:
        return None
    joint = counts / total
    skill = joint.sum(0)
    h_skill = -sum(p * np.log(p) for p in skill if p > 0)
    if h_skill <= 1e-12:
        return None
    who = joint.sum(1)
    nz = joint > 0
    mutual = float((joint[nz] * np.log(joint[nz] / np.outer(who, skill)[nz])).sum())
    return mutual / h_skill


def _division(worked: np.ndarray, rng) -> tuple[float, float] | None:
    """One town's division of labour and its mean over :data:`SHUFFLES` shuffles of its work acts' skills."""
    observed = _mutual_share(worked)
    if observed is None:
        return None
    who = np.repeat(np.arange(worked.shape[0]), worked.sum(1))
    skill = np.repeat(np.tile(np.arange(worked.shape[1]), worked.shape[0]), worked.ravel())
    shuffled = []
    for _ in range(SHUFFLES):
        table = np.zeros_like(worked)
        np.add.at(table, (who, rng.permutation(skill)), 1)
        shuffled.append(_mutual_share(table))
    return observed, float(np.mean(shuffled))


def _network(pairs: np.ndarray, groups: dict) -> dict:
    """Trades from seller to buyer: per character pair summed over towns, and per town between the groups."""
    between = {}
    for g, mask in groups.items():
        for h, other in groups.items():
            if mask.any() and other.any():
                flows = (pairs * (mask[:, :, None] & other[:, None, :])).sum((1, 2))
                between[f"{g}->{h}"] = _mean(flows)
    return {"per_town": _mean(pairs.sum((1, 2))), "between_groups": between, "pairs": pairs.sum(0).tolist()}


def _roles(chars: dict, focal: np.ndarray) -> dict:
    """Trades per town from seller role to buyer role, a role being a group and a goal (``focal rich``, ...), and
    the characters per town in each role: who trades with whom when the seats' goals change from town to town."""
    pairs, role = chars["trade_pairs"], np.where(focal, 0, len(GOAL_NAMES)) + chars["goal_kind"]
    size = 2 * len(GOAL_NAMES)
    e, seller, buyer = np.nonzero(pairs)
    flows = np.zeros((size, size))
    np.add.at(flows, (role[e, seller], role[e, buyer]), pairs[e, seller, buyer])
    return {
        "roles": [f"{g} {name}" for g in ("focal", "background") for name in GOAL_NAMES],
        "roles_per_town": (flows / len(pairs)).tolist(),
        "characters_per_role": (np.bincount(role.ravel(), minlength=size) / len(pairs)).tolist(),
    }


def _trend(ticks: np.ndarray, prices: np.ndarray) -> dict | None:
    """Least-squares slope of price against time in coins per day, with its 95% interval (None: too few trades
    or all at one tick)."""
    from scipy import stats  # lazy: scipy is slow to import

    if len(ticks) < 3 or np.ptp(ticks) == 0:
        return None
    if np.ptp(prices) == 0:  # one price throughout: no trend, and linregress's error would be undefined
        return {"per_day": 0.0, "ci95": [0.0, 0.0]}
    fit = stats.linregress(ticks / DAY, prices)
    half = stats.t.ppf(0.975, len(ticks) - 2) * fit.stderr
    return {"per_day": float(fit.slope), "ci95": [float(fit.slope - half), float(fit.slope + half)]}


def _prices(log: np.ndarray, window: int) -> dict:
    """Per good: trades, mean price, per window and per day, the trend, and the market's prices."""
    out = {"window_ticks": window}
    tick, good, price = log[:, 1], log[:, 4], log[:, 5].astype(np.float64)
    for g, name in enumerate(GOOD_NAMES):
        mine = good == g
        t, p = tick[mine], price[mine]
        # the tick after the trade is 1.. days*DAY: tick - 1 is when it was made
        slot, day = (t - 1) // window, (t - 1) // DAY
        out[name] = {
            "trades": int(mine.sum()),
            "mean": _mean(p),
            "windows": [{"start_tick": int(w * window), **_mean(p[slot == w], FEW)} for w in np.unique(slot)],
            "days": [{"day": int(d) + 1, **_mean(p[day == d], FEW)} for d in np.unique(day)],
            "trend": _trend(t, p),
            "market_pays": int(SELL_PRICE[g]),
            "market_charges": int(BUY_PRICE[g]),
        }
    return out


def _character(chars: dict, groups: dict, a: int) -> dict:
    """One seat: its goal rate and work shares for each group that played it."""
    out = {"name": NAMES[a]}
    for g, mask in groups.items():
        here = mask[:, a]
        if here.any():
            out[g] = {
                "goal_rate": _rate(int(chars["goal"][here, a].sum()), int(here.sum())),
                "work": _shares(chars["worked"][here, a]),
            }
    return out

"""Structured observations (floats in [-1, 1]) and masks, one row per character.

Layout (``OBS_SIZE`` values), with honest presence flags for every optional block:
  self (SELF): standing, 4 needs, coins/50, 3 goods/10, 3 skills, row, column,
    hour of the day, episode progress, night, goal one-hot (3), goal done, goal
    progress, house built, own offer open, slept last tick (the planner keeps
    resting until rested);
  places (7 x PLACE): offset row and column /15, standing on it, open now;
  nearest characters (SLOTS x SLOT, nearest first): present, offset row and
    column /15, adjacent, one's regard for them, their goal one-hot (3), their
    goal done, their 3 goods/10, their inbox free (an offer can reach them);
  inbox (INBOX): an offer present, good one-hot (3), price/6, offerer's offset
    row and column /15, affordable;
  others at the tavern /8; own open offer's good one-hot (3) and price/6.
A character who fainted sees zeros and may only noop.
"""

import numpy as np

from sparring.envs.town.legal import at_place, dist, is_night, place_col, place_row, write_mask
from sparring.envs.town.world import (
    BAKERY,
    DAY,
    FARM,
    FOREST,
    GATHER_OTHERS,
    GOAL_COINS,
    GOALS,
    GOODS,
    HOUSE,
    HOUSE_COINS,
    HOUSE_WOOD,
    KIND,
    MARKET,
    MAX_PRICE,
    NEEDS,
    PLACES,
    RICH,
    SIZE,
    SKILLS,
    SLEEP,
    SLOTS,
    TAVERN,
    WOOD,
)
from sparring.kit import helper, kernel

SELF = 1 + NEEDS + 1 + GOODS + SKILLS + 2 + 3 + GOALS + 5
PLACE, SLOT, INBOX = 4, 10 + GOALS, 8
OBS_SIZE = SELF + PLACES * PLACE + SLOTS * SLOT + INBOX + 1 + GOODS + 1
SPAN = SIZE - 1


@kernel
def progress(s, a, others):
    """How far character ``a`` is towards its goal, in [0, 1]; ``others``: others at the tavern."""
    if s.goal[a] == RICH:
        return min(1.0, s.coins[a] / GOAL_COINS)
    if s.goal[a] == HOUSE:
        if s.built[a] == 1:
            return 1.0
        return 0.5 * min(1.0, s.goods[a, WOOD] / HOUSE_WOOD) + 0.5 * min(1.0, s.coins[a] / HOUSE_COINS)
    return min(1.0, others / GATHER_OTHERS) if at_place(s, a, TAVERN) else 0.0


@kernel
def self_block(s, a, t, days, others, row):
    """The SELF values of character ``a``; returns the next index."""
    row[0] = 1.0
    for k in range(NEEDS):
        row[1 + k] = s.needs[a, k]
    k = 1 + NEEDS
    row[k] = min(1.0, s.coins[a] / 50.0)
    for g in range(GOODS):
        row[k + 1 + g] = min(1.0, s.goods[a, g] / 10.0)
    k += 1 + GOODS
    for j in range(SKILLS):
        row[k + j] = s.skill[a, j]
    k += SKILLS
    row[k] = s.row[a] / SPAN
    row[k + 1] = s.col[a] / SPAN
    row[k + 2] = (t % DAY) / DAY
    row[k + 3] = min(1.0, t / (days * DAY))
    row[k + 4] = 1.0 if is_night(t) else 0.0
    k += 5
    for g in range(GOALS):
        row[k + g] = 1.0 if s.goal[a] == g else 0.0
    k += GOALS
    row[k] = s.goal_done[a]
    row[k + 1] = progress(s, a, others)
    row[k + 2] = s.built[a]
    row[k + 3] = 1.0 if s.out_to[a] >= 0 else 0.0
    row[k + 4] = 1.0 if KIND[s.last[a]] == SLEEP else 0.0
    return k + 5


@kernel
def places_block(s, a, t, row, k):
    """Offsets to every place, whether ``a`` stands on it and whether it is open now."""
    night = is_night(t)
    for p in range(PLACES):
        row[k] = (place_row(a, p) - s.row[a]) / SPAN
        row[k + 1] = (place_col(a, p) - s.col[a]) / SPAN
        row[k + 2] = 1.0 if at_place(s, a, p) else 0.0
        closed = night and (p == FARM or p == BAKERY or p == FOREST or p == MARKET)
        row[k + 3] = 0.0 if closed else 1.0
        k += PLACE
    return k


@kernel
def slots_block(s, a, row, k):
    """The nearest characters, nearest first; absent slots stay zero."""
    for j in range(SLOTS):
        b = s.slots[a, j]
        if b >= 0:
            row[k] = 1.0
            row[k + 1] = (s.row[b] - s.row[a]) / SPAN
            row[k + 2] = (s.col[b] - s.col[a]) / SPAN
            row[k + 3] = 1.0 if dist(s, a, b) <= 1 else 0.0
            row[k + 4] = s.rel[a, b]
            for g in range(GOALS):
                row[k + 5 + g] = 1.0 if s.goal[b] == g else 0.0
            row[k + 5 + GOALS] = s.goal_done[b]
            for g in range(GOODS):
                row[k + 6 + GOALS + g] = min(1.0, s.goods[b, g] / 10.0)
            row[k + 6 + GOALS + GOODS] = 1.0 if s.inbox[b] < 0 else 0.0
        k += SLOT
    return k


@kernel
def inbox_block(s, a, others, row, k):
    """The offer addressed to ``a``, if any, then the tavern count and a's own open offer."""
    b = s.inbox[a]
    if b >= 0:
        row[k] = 1.0
        row[k + 1 + s.out_good[b]] = 1.0
        row[k + 4] = s.out_price[b] / MAX_PRICE
        row[k + 5] = (s.row[b] - s.row[a]) / SPAN
        row[k + 6] = (s.col[b] - s.col[a]) / SPAN
        row[k + 7] = 1.0 if s.coins[a] >= s.out_price[b] else 0.0
    k += INBOX
    row[k] = min(1.0, others / 8.0)
    k += 1
    if s.out_to[a] >= 0:
        row[k + s.out_good[a]] = 1.0
        row[k + GOODS] = s.out_price[a] / MAX_PRICE
    return k + GOODS + 1


@helper
def write(s, cfg, obs, mask):
    """Every character's observation row and mask row."""
    t = np.int64(s.tick)
    n = s.alive.shape[0]
    at_tavern = 0
    for a in range(n):
        if s.alive[a] and at_place(s, a, TAVERN):
            at_tavern += 1
    for a in range(n):
        row = obs[a]
        row[:] = 0.0
        write_mask(s, a, t, mask[a])
        if s.alive[a]:
            others = at_tavern - 1 if at_place(s, a, TAVERN) else at_tavern
            k = self_block(s, a, t, cfg.days, others, row)
            k = places_block(s, a, t, row, k)
            k = slots_block(s, a, row, k)
            inbox_block(s, a, others, row, k)

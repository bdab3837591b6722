"""What each action of the town's action table does to the record, once it is its character's turn.

The actions are carried out in :func:`sparring.envs.town.rules.resolve`, each
only while still legal (:mod:`sparring.envs.town.legal`).
"""

import numpy as np

from sparring.envs.town.legal import at_place, place_col, place_row
from sparring.envs.town.world import (
    ACCEPT,
    ARG,
    BAKING,
    BREAD,
    BREAD_FOOD,
    BUILD,
    BUY,
    BUY_PRICE,
    CHOPPING,
    DRINK,
    DRINK_ACT,
    EAT,
    FARM,
    FARMING,
    FOREST,
    GIVE,
    GO_CHAR,
    GO_PLACE,
    GOOD,
    HOUSE_COINS,
    HOUSE_WOOD,
    HUNGER,
    KIND,
    MAX_COINS,
    MAX_GOOD,
    OFFER,
    OFFER_TTL,
    PRICE,
    REJECT,
    REL_GIVE,
    REL_TALK,
    REL_TRADE,
    SELL,
    SELL_PRICE,
    SKILL_GAIN,
    SOCIAL,
    TALK,
    TALK_SOCIAL,
    TAVERN_DRINK_COST,
    THIRST,
    WELL,
    WHEAT,
    WHEAT_FOOD,
    WOOD,
    WORK,
)
from sparring.kit import helper, kernel, rand_float


@kernel
def step_toward(s, a, r, c):
    """One king move of character ``a`` toward tile (r, c)."""
    if s.row[a] < r:
        s.row[a] += 1
    elif s.row[a] > r:
        s.row[a] -= 1
    if s.col[a] < c:
        s.col[a] += 1
    elif s.col[a] > c:
        s.col[a] -= 1


@kernel
def add_good(s, a, g, n):
    """Give character ``a`` ``n`` units of good ``g``, up to MAX_GOOD."""
    s.goods[a, g] = min(MAX_GOOD, s.goods[a, g] + n)


@kernel
def add_coins(s, a, n):
    """Give character ``a`` ``n`` coins, up to MAX_COINS."""
    s.coins[a] = min(MAX_COINS, s.coins[a] + n)


@kernel
def befriend(s, a, b, gain):
    """Raise ``a``'s regard for ``b`` by ``gain`` (at most 1)."""
    s.rel[a, b] = min(np.float32(1.0), s.rel[a, b] + np.float32(gain))


@kernel
def work(s, a):
    """Place-dependent production; the skill used grows with practice and may yield a second unit."""
    if at_place(s, a, FARM):
        skill, good = FARMING, WHEAT
    elif at_place(s, a, FOREST):
        skill, good = CHOPPING, WOOD
    else:
        skill, good = BAKING, BREAD
        s.goods[a, WHEAT] -= 1
    units = 2 if rand_float(s) < s.skill[a, skill] else 1
    add_good(s, a, good, units)
    s.skill[a, skill] = min(np.float32(1.0), s.skill[a, skill] + np.float32(SKILL_GAIN))
    s.worked[a, skill] += 1


@helper
def close_offer(s, b):
    """Withdraw character ``b``'s open offer, if any."""
    to = s.out_to[b]
    if to >= 0:
        s.inbox[to] = -1
        s.out_to[b] = -1
        s.out_price[b] = 0
        s.out_ttl[b] = 0


@kernel
def accept(s, a):
    """Character ``a`` takes the offer in its inbox: one unit for the asked coins."""
    b = np.int64(s.inbox[a])
    good, price = s.out_good[b], s.out_price[b]
    s.goods[b, good] -= 1
    add_good(s, a, good, 1)
    s.coins[a] -= price
    add_coins(s, b, price)
    befriend(s, a, b, REL_TRADE)
    befriend(s, b, a, REL_TRADE)
    close_offer(s, b)
    return price


@helper
def act(s, a, action):
    """Carry out character ``a``'s (already legal) ``action``; returns the coins traded (0 if no trade)."""
    kind, arg, good = KIND[action], ARG[action], GOOD[action]
    if kind == GO_PLACE:
        step_toward(s, a, place_row(a, arg), place_col(a, arg))
    elif kind == GO_CHAR:
        b = s.slots[a, arg]
        step_toward(s, a, s.row[b], s.col[b])
    elif kind == WORK:
        work(s, a)
    elif kind == EAT:
        s.goods[a, good] -= 1
        food = BREAD_FOOD if good == BREAD else WHEAT_FOOD
        s.needs[a, HUNGER] = min(np.float32(1.0), s.needs[a, HUNGER] + np.float32(food))
    elif kind == DRINK_ACT:
        if not at_place(s, a, WELL):
            s.coins[a] -= TAVERN_DRINK_COST
        s.needs[a, THIRST] = min(np.float32(1.0), s.needs[a, THIRST] + np.float32(DRINK))
    elif kind == TALK:
        b = s.slots[a, arg]
        s.needs[a, SOCIAL] = min(np.float32(1.0), s.needs[a, SOCIAL] + np.float32(TALK_SOCIAL))
        s.needs[b, SOCIAL] = min(np.float32(1.0), s.needs[b, SOCIAL] + np.float32(TALK_SOCIAL))
        befriend(s, a, b, REL_TALK)
        befriend(s, b, a, REL_TALK)
    elif kind == GIVE:
        b = s.slots[a, arg]
        s.goods[a, good] -= 1
        add_good(s, b, good, 1)
        befriend(s, b, a, REL_GIVE)
    elif kind == OFFER:
        b = s.slots[a, arg]
        s.out_to[a] = b
        s.out_good[a] = good
        s.out_price[a] = PRICE[action]
        s.out_ttl[a] = OFFER_TTL + 1  # counts down at the end of this tick too: OFFER_TTL ticks to answer
        s.inbox[b] = a
    elif kind == ACCEPT:
        return accept(s, a)
    elif kind == REJECT:
        close_offer(s, np.int64(s.inbox[a]))
    elif kind == SELL:
        s.goods[a, good] -= 1
        add_coins(s, a, SELL_PRICE[good])
    elif kind == BUY:
        s.coins[a] -= BUY_PRICE[good]
        add_good(s, a, good, 1)
    elif kind == BUILD:
        s.goods[a, WOOD] -= HOUSE_WOOD
        s.coins[a] -= HOUSE_COINS
        s.built[a] = 1
    return 0

"""The scripted needs-driven utility planner: background characters and a teacher.

In order of urgency it answers offers (accepting the useful ones at fair
prices), drinks, eats, sleeps and seeks company when a need runs low, sells
its surplus to neighbours who need it, spends evenings at the tavern, and
otherwise works towards its goal: a bread chain (farm, bake, sell) for coins,
the forest then home for a house, the tavern for a gathering. It reads only
what its character observes (its own state, the nearest characters, its inbox).
"""

import numpy as np

from sparring.envs.town.legal import at_place, dist, is_night, legal
from sparring.envs.town.world import (
    ACCEPT,
    BAKERY,
    BREAD,
    BUILD,
    BUY,
    BUY_PRICE,
    DAY,
    DRINK_ACT,
    EAT,
    ENERGY,
    FARM,
    FIRST,
    FOREST,
    GO_CHAR,
    GO_PLACE,
    GOAL_COINS,
    GOODS,
    HOME,
    HOUSE,
    HOUSE_COINS,
    HOUSE_WOOD,
    HUNGER,
    MARKET,
    MAX_PRICE,
    NOOP,
    OFFER,
    REJECT,
    RICH,
    SELL,
    SLEEP,
    SLOTS,
    SOCIAL,
    TALK,
    TAVERN,
    THIRST,
    WELL,
    WHEAT,
    WOOD,
    WORK,
)
from sparring.kit import helper, kernel

EVENING = 30  # hour of the day the planner heads for the tavern
FAIR_PRICE_WOOD, FAIR_PRICE_BREAD = 3, 4  # between what the market pays and what it charges


@kernel
def go(p):
    """Action id: move towards place ``p``."""
    return FIRST[GO_PLACE] + p


@kernel
def at_or_go(s, a, p, action):
    """``action`` if ``a`` stands on place ``p``, else a step towards it."""
    return action if at_place(s, a, p) else go(p)


@kernel
def wants(s, a):
    """Whether the offer in ``a``'s inbox is worth its price to ``a``."""
    b = s.inbox[a]
    good, price = s.out_good[b], s.out_price[b]
    if good == WOOD:
        return s.goal[a] == HOUSE and s.built[a] == 0 and s.goods[a, WOOD] < HOUSE_WOOD and price <= BUY_PRICE[WOOD]
    if good == BREAD:
        return s.goods[a, BREAD] < 2 and price <= FAIR_PRICE_BREAD
    return price <= 1  # wheat: worth baking only when cheap


@kernel
def saving(s, a):
    """Whether character ``a`` is still saving up coins for its goal."""
    return s.goal[a] == RICH and s.goal_done[a] == 0


@kernel
def drink(s, a):
    """Drink at the well, or at the tavern when already there (unless saving up and not desperate)."""
    if at_place(s, a, WELL):
        return FIRST[DRINK_ACT]
    if at_place(s, a, TAVERN) and s.coins[a] >= 1 and (not saving(s, a) or s.needs[a, THIRST] < 0.15):
        return FIRST[DRINK_ACT]
    return go(WELL)


@kernel
def find_food(s, a, night):
    """Eat what one has; else buy bread at the market, or farm wheat to eat."""
    if s.goods[a, BREAD] >= 1:
        return FIRST[EAT]
    if s.goods[a, WHEAT] >= 1:
        return FIRST[EAT] + 1
    if not night and s.coins[a] >= BUY_PRICE[BREAD]:
        return at_or_go(s, a, MARKET, FIRST[BUY] + BREAD)
    return at_or_go(s, a, FARM, FIRST[WORK])


@helper
def talk_near(s, a):
    """Action id: talk to the nearest adjacent character; -1 if nobody is adjacent."""
    for k in range(SLOTS):
        b = s.slots[a, k]
        if b >= 0 and dist(s, a, b) <= 1:
            return FIRST[TALK] + k
    return -1


@kernel
def company(s, a):
    """Talk to an adjacent character, else walk to the nearest, else to the tavern."""
    talk = talk_near(s, a)
    if talk >= 0:
        return talk
    if s.slots[a, 0] >= 0:
        return FIRST[GO_CHAR]
    return go(TAVERN)


@kernel
def offer_surplus(s, a):
    """Offer wood to a neighbour building a house, or bread to one who has none; -1 if no such deal."""
    if s.out_to[a] >= 0:
        return -1
    spare_wood = s.goods[a, WOOD] if (s.goal[a] != HOUSE or s.built[a] == 1) else s.goods[a, WOOD] - HOUSE_WOOD
    for k in range(SLOTS):
        b = s.slots[a, k]
        if b < 0 or dist(s, a, b) > 1 or s.inbox[b] >= 0:
            continue
        if spare_wood >= 1 and s.goal[b] == HOUSE and s.goal_done[b] == 0 and s.goods[b, WOOD] < HOUSE_WOOD:
            return FIRST[OFFER] + (k * GOODS + WOOD) * MAX_PRICE + FAIR_PRICE_WOOD - 1
        if s.goods[a, BREAD] >= 3 and s.goods[b, BREAD] == 0:
            return FIRST[OFFER] + (k * GOODS + BREAD) * MAX_PRICE + FAIR_PRICE_BREAD - 1
    return -1


@kernel
def earn(s, a):
    """The bread chain: sell surplus at the market, bake wheat, farm wheat."""
    keep_wood = HOUSE_WOOD if (s.goal[a] == HOUSE and s.built[a] == 0) else 0
    if at_place(s, a, MARKET):
        if s.goods[a, BREAD] > 1:
            return FIRST[SELL] + BREAD
        if s.goods[a, WOOD] > keep_wood:
            return FIRST[SELL] + WOOD
    if s.goods[a, BREAD] >= 4 or s.goods[a, WOOD] >= keep_wood + 3:
        return go(MARKET)
    if s.goods[a, WHEAT] >= 1 and at_place(s, a, BAKERY):
        return FIRST[WORK]
    if s.goods[a, WHEAT] >= 3:
        return go(BAKERY)
    return at_or_go(s, a, FARM, FIRST[WORK])


@kernel
def pursue(s, a):
    """Daytime work towards the goal (or coins, once it is done)."""
    if s.goal[a] == HOUSE and s.built[a] == 0:
        if s.goods[a, WOOD] < HOUSE_WOOD:
            return at_or_go(s, a, FOREST, FIRST[WORK])
        if s.coins[a] >= HOUSE_COINS:
            return at_or_go(s, a, HOME, FIRST[BUILD])
    return earn(s, a)


@kernel
def evening(s, a):
    """At the tavern: drink when thirsty, talk when lonely, else wait for company."""
    if not at_place(s, a, TAVERN):
        return go(TAVERN)
    if s.needs[a, SOCIAL] < 0.9:
        return max(talk_near(s, a), NOOP)
    return NOOP


@helper
def intend(s, a, t):
    """The planner's choice for character ``a`` at ``t`` ticks (possibly illegal; see :func:`plan`)."""
    if s.inbox[a] >= 0:
        return FIRST[ACCEPT] if wants(s, a) and legal(s, a, FIRST[ACCEPT], t) else FIRST[REJECT]
    night = is_night(t)
    hour = t % DAY
    if s.needs[a, THIRST] < 0.35:
        return drink(s, a)
    if s.needs[a, HUNGER] < 0.35 or (s.needs[a, HUNGER] < 0.5 and s.goods[a, BREAD] >= 1):
        return find_food(s, a, night)
    tired = s.needs[a, ENERGY] < 0.25 or (night and s.needs[a, ENERGY] < 0.6)
    resting = s.last[a] == FIRST[SLEEP] and s.needs[a, ENERGY] < 0.95
    if tired or resting:
        return at_or_go(s, a, HOME, FIRST[SLEEP])
    if s.needs[a, SOCIAL] < 0.3:
        return company(s, a)
    deal = offer_surplus(s, a)
    if deal >= 0:
        return deal
    if night or (hour >= EVENING and not saving(s, a)):
        return evening(s, a)
    if s.goal[a] == RICH and s.goal_done[a] == 0 and s.coins[a] >= GOAL_COINS:
        return NOOP  # the goal completes at the end of this tick
    return pursue(s, a)


@helper
def plan(s, a, t):
    """The planner's legal action for character ``a`` (noop if its intention is not legal now)."""
    action = intend(s, a, t)
    return action if legal(s, a, action, t) else NOOP


@kernel
def planner(s, cfg, agent, act):
    """The scripted policy ``planner`` for the kit: one action id per character."""
    act[0] = plan(s, agent, np.int64(s.tick))

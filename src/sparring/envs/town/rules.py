"""The town's rules over one record: who sees whom, which actions are legal, what they do.

Every function reads the population size from the record (``s.alive.shape[0]``),
so one set of rules serves towns of any size. Legality is judged on the state
the characters saw when they chose; an action legal then may still fail when
its turn comes (the good was sold meanwhile), and then does nothing.
"""

import numpy as np

from sparring.envs.town.world import (
    ACCEPT, ARG, BAKERY, BAKING, BREAD, BREAD_FOOD, BUILD, BUY, BUY_PRICE, CHOPPING, DAY, DECAY, DRINK, DRINK_ACT,
    EAT, ENERGY, FARM, FIRST, FARMING, FOREST, GIVE, GO_CHAR, GO_PLACE, GOOD, GOODS, HOME, HOME_COL, HOME_ROW, HOUSE_COINS,
    HOUSE_WOOD, HUNGER, KIND, MARKET, MAX_COINS, MAX_GOOD, MAX_PRICE, NEEDS, NIGHT, NIGHT_SLEEP_ENERGY, NOOP, NUM_ACTIONS,
    OFFER, OFFER_TTL, PLACE_COL, PLACE_ROW, PLACES, PRICE, REJECT, REL_GIVE, REL_TALK, REL_TRADE, SELL, SELL_PRICE,
    SKILL_GAIN, SLEEP, SLEEP_ENERGY, SLOTS, SOCIAL, TALK, TALK_SOCIAL, TAVERN, TAVERN_DRINK_COST, THIRST, VIEW, WELL,
    WHEAT, WHEAT_FOOD, WOOD, WORK,
)
from sparring.kit import helper, kernel, rand_float


@kernel
def is_night(t):
    """Whether ``t`` ticks into the episode falls in the night."""
    return t % DAY >= NIGHT


@kernel
def place_row(a, p):
    """Row of place ``p`` for character ``a`` (home is a's own)."""
    return HOME_ROW[a] if p == HOME else PLACE_ROW[p]


@kernel
def place_col(a, p):
    """Column of place ``p`` for character ``a``."""
    return HOME_COL[a] if p == HOME else PLACE_COL[p]


@kernel
def at_place(s, a, p):
    """Whether character ``a`` stands on place ``p``."""
    return s.row[a] == place_row(a, p) and s.col[a] == place_col(a, p)


@kernel
def dist(s, a, b):
    """Chebyshev distance between characters ``a`` and ``b`` (moves are king moves)."""
    return max(abs(s.row[a] - s.row[b]), abs(s.col[a] - s.col[b]))


@kernel
def slot_key(s, a, b):
    """Sort key of character ``b`` among ``a``'s neighbours: distance, then id."""
    return dist(s, a, b) * 64 + b


@helper
def find_slots(s):
    """``s.slots[a]``: the SLOTS nearest living others within VIEW, nearest first (ties by id), -1 padded."""
    n = s.alive.shape[0]
    for a in range(n):
        slots = s.slots[a]
        for k in range(SLOTS):
            slots[k] = -1
        if not s.alive[a]:
            continue
        worst = 1 << 30  # key of the last filled slot once all are filled
        for b in range(n):
            if b == a or not s.alive[b] or dist(s, a, b) > VIEW:
                continue
            key = slot_key(s, a, b)
            if key >= worst:
                continue
            k = SLOTS - 1
            while k > 0 and (slots[k - 1] < 0 or key < slot_key(s, a, slots[k - 1])):
                slots[k] = slots[k - 1]
                k -= 1
            slots[k] = b
            if slots[SLOTS - 1] >= 0:
                worst = slot_key(s, a, slots[SLOTS - 1])


@kernel
def others_at(s, a, p):
    """How many living characters other than ``a`` stand on place ``p`` (never home)."""
    count = 0
    for b in range(s.alive.shape[0]):
        if b != a and s.alive[b] and s.row[b] == PLACE_ROW[p] and s.col[b] == PLACE_COL[p]:
            count += 1
    return count


@helper
def legal(s, a, action, t):
    """Whether character ``a`` may take ``action`` at ``t`` ticks, in the current state (the mask's rule)."""
    if action == NOOP:
        return True
    if not s.alive[a]:
        return False
    kind, arg, good = KIND[action], ARG[action], GOOD[action]
    if kind == GO_PLACE:
        return not at_place(s, a, arg)
    if kind == EAT:
        return s.goods[a, good] >= 1
    if kind == DRINK_ACT:
        return at_place(s, a, WELL) or (at_place(s, a, TAVERN) and s.coins[a] >= TAVERN_DRINK_COST)
    if kind == SLEEP:
        return at_place(s, a, HOME)
    if kind == WORK:
        return not is_night(t) and (at_place(s, a, FARM) or at_place(s, a, FOREST)
                                    or (at_place(s, a, BAKERY) and s.goods[a, WHEAT] >= 1))
    if kind == SELL:
        return not is_night(t) and at_place(s, a, MARKET) and s.goods[a, good] >= 1
    if kind == BUY:
        return (not is_night(t) and at_place(s, a, MARKET) and s.coins[a] >= BUY_PRICE[good]
                and s.goods[a, good] < MAX_GOOD)
    if kind == BUILD:
        return (at_place(s, a, HOME) and s.built[a] == 0 and s.goods[a, WOOD] >= HOUSE_WOOD
                and s.coins[a] >= HOUSE_COINS)
    if kind == ACCEPT or kind == REJECT:
        b = s.inbox[a]
        if b < 0:
            return False
        if kind == REJECT:
            return True
        return (s.alive[b] and dist(s, a, b) <= 2 and s.goods[b, s.out_good[b]] >= 1
                and s.coins[a] >= s.out_price[b] and s.goods[a, s.out_good[b]] < MAX_GOOD)
    b = s.slots[a, arg]  # the remaining kinds address the character in slot `arg`
    if b < 0 or not s.alive[b]:
        return False
    d = dist(s, a, b)
    if kind == GO_CHAR:
        return d >= 2
    if d > 1:
        return False
    if kind == TALK:
        return True
    if kind == GIVE:
        return s.goods[a, good] >= 1 and s.goods[b, good] < MAX_GOOD
    # OFFER
    return s.goods[a, good] >= 1 and s.out_to[a] < 0 and s.inbox[b] < 0


@helper
def write_mask(s, a, t, mask):
    """Character ``a``'s legal actions into ``mask``, kind by kind; agrees with :func:`legal` on every id."""
    for action in range(NUM_ACTIONS):
        mask[action] = False
    mask[NOOP] = True
    if not s.alive[a]:
        return
    night = is_night(t)
    home, well, tavern = at_place(s, a, HOME), at_place(s, a, WELL), at_place(s, a, TAVERN)
    market = at_place(s, a, MARKET) and not night
    for p in range(PLACES):
        mask[FIRST[GO_PLACE] + p] = not at_place(s, a, p)
    mask[FIRST[WORK]] = not night and (at_place(s, a, FARM) or at_place(s, a, FOREST)
                                       or (at_place(s, a, BAKERY) and s.goods[a, WHEAT] >= 1))
    mask[FIRST[EAT]] = s.goods[a, BREAD] >= 1
    mask[FIRST[EAT] + 1] = s.goods[a, WHEAT] >= 1
    mask[FIRST[DRINK_ACT]] = well or (tavern and s.coins[a] >= TAVERN_DRINK_COST)
    mask[FIRST[SLEEP]] = home
    free = s.out_to[a] < 0
    for k in range(SLOTS):
        b = s.slots[a, k]
        if b < 0 or not s.alive[b]:
            continue
        d = dist(s, a, b)
        mask[FIRST[GO_CHAR] + k] = d >= 2
        if d > 1:
            continue
        mask[FIRST[TALK] + k] = True
        for g in range(GOODS):
            has = s.goods[a, g] >= 1
            mask[FIRST[GIVE] + k * GOODS + g] = has and s.goods[b, g] < MAX_GOOD
            can_offer = has and free and s.inbox[b] < 0
            base = FIRST[OFFER] + (k * GOODS + g) * MAX_PRICE
            for p in range(MAX_PRICE):
                mask[base + p] = can_offer
    if s.inbox[a] >= 0:
        mask[FIRST[ACCEPT]] = legal(s, a, FIRST[ACCEPT], t)
        mask[FIRST[REJECT]] = True
    for g in range(GOODS):
        mask[FIRST[SELL] + g] = market and s.goods[a, g] >= 1
        mask[FIRST[BUY] + g] = market and s.coins[a] >= BUY_PRICE[g] and s.goods[a, g] < MAX_GOOD
    mask[FIRST[BUILD]] = (home and s.built[a] == 0 and s.goods[a, WOOD] >= HOUSE_WOOD
                          and s.coins[a] >= HOUSE_COINS)


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


@helper
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


@helper
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


@helper
def live_on(s, a, t):
    """Needs decay for tick ``t``; sleeping restores energy. Returns True if ``a`` faints now."""
    sleeping = KIND[s.last[a]] == SLEEP
    for k in range(NEEDS):
        if k == ENERGY and sleeping:
            gain = NIGHT_SLEEP_ENERGY if is_night(t) else SLEEP_ENERGY
            s.needs[a, k] = min(np.float32(1.0), s.needs[a, k] + np.float32(gain))
        else:
            s.needs[a, k] = max(np.float32(0.0), s.needs[a, k] - DECAY[k])
    for k in range(NEEDS):
        if s.needs[a, k] <= 0.0:
            return True
    return False


@kernel
def min_need(s, a):
    """Character ``a``'s lowest need."""
    low = s.needs[a, 0]
    for k in range(1, NEEDS):
        low = min(low, s.needs[a, k])
    return low


@kernel
def mean_need(s, a):
    """Character ``a``'s mean need."""
    total = 0.0
    for k in range(NEEDS):
        total += s.needs[a, k]
    return total / NEEDS

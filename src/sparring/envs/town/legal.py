"""Who sees whom in the town, and which actions are legal: the mask row and its single-action twin.

Every function reads the population size from the record (``s.alive.shape[0]``),
so one set of rules serves towns of any size. Legality is judged on the state
the characters saw when they chose; an action legal then may still fail when
its turn comes (the good was sold meanwhile), and then does nothing.
"""

from sparring.envs.town.world import (
    ACCEPT,
    ARG,
    BAKERY,
    BREAD,
    BUILD,
    BUY,
    BUY_PRICE,
    DAY,
    DRINK_ACT,
    EAT,
    FARM,
    FIRST,
    FOREST,
    GIVE,
    GO_CHAR,
    GO_PLACE,
    GOOD,
    GOODS,
    HOME,
    HOME_COL,
    HOME_ROW,
    HOUSE_COINS,
    HOUSE_WOOD,
    KIND,
    MARKET,
    MAX_GOOD,
    MAX_PRICE,
    NIGHT,
    NOOP,
    NUM_ACTIONS,
    OFFER,
    PLACE_COL,
    PLACE_ROW,
    PLACES,
    REJECT,
    SELL,
    SLEEP,
    SLOTS,
    TALK,
    TAVERN,
    TAVERN_DRINK_COST,
    VIEW,
    WELL,
    WHEAT,
    WOOD,
    WORK,
)
from sparring.kit import helper, kernel


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


@helper
def at_place(s, a, p):
    """Whether character ``a`` stands on place ``p`` (a helper: compiled once, not copied into its ~50 call sites)."""
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
        return not is_night(t) and (
            at_place(s, a, FARM) or at_place(s, a, FOREST) or (at_place(s, a, BAKERY) and s.goods[a, WHEAT] >= 1)
        )
    if kind == SELL:
        return not is_night(t) and at_place(s, a, MARKET) and s.goods[a, good] >= 1
    if kind == BUY:
        return (
            not is_night(t) and at_place(s, a, MARKET) and s.coins[a] >= BUY_PRICE[good] and s.goods[a, good] < MAX_GOOD
        )
    if kind == BUILD:
        return at_place(s, a, HOME) and s.built[a] == 0 and s.goods[a, WOOD] >= HOUSE_WOOD and s.coins[a] >= HOUSE_COINS
    if kind == ACCEPT or kind == REJECT:
        b = s.inbox[a]
        if b < 0:
            return False
        if kind == REJECT:
            return True
        return (
            s.alive[b]
            and dist(s, a, b) <= 2
            and s.goods[b, s.out_good[b]] >= 1
            and s.coins[a] >= s.out_price[b]
            and s.goods[a, s.out_good[b]] < MAX_GOOD
        )
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
    mask[FIRST[WORK]] = not night and (
        at_place(s, a, FARM) or at_place(s, a, FOREST) or (at_place(s, a, BAKERY) and s.goods[a, WHEAT] >= 1)
    )
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
    mask[FIRST[BUILD]] = home and s.built[a] == 0 and s.goods[a, WOOD] >= HOUSE_WOOD and s.coins[a] >= HOUSE_COINS

"""The town's fixed facts: map, places, goods, prices, needs, goals and the action table.

Every number a rule uses lives here, so tuning the town is editing this file.
One tick is half an hour; a day is ``DAY`` ticks, the last ``DAY - NIGHT`` of
them night (workplaces and the market closed).
"""

import numpy as np

SIZE = 16  # the town is SIZE x SIZE tiles
DAY, NIGHT = 48, 36  # ticks per day; night starts at this tick of the day

# places: a tile each; HOME is the character's own home (see HOME_ROW / HOME_COL)
WELL, FARM, BAKERY, FOREST, MARKET, TAVERN, HOME = range(7)
PLACES = 7
PLACE_NAMES = ("the well", "the farm", "the bakery", "the forest", "the market", "the tavern", "home")
PLACE_ROW = np.array([7, 2, 5, 13, 9, 11, -1], np.int64)
PLACE_COL = np.array([7, 12, 10, 3, 7, 11, -1], np.int64)
# homes on a ring around the centre; characters beyond 16 share homes (an apartment each)
_RING = [
    (1, 1),
    (1, 5),
    (1, 9),
    (1, 14),
    (4, 14),
    (8, 14),
    (14, 14),
    (14, 10),
    (14, 7),
    (10, 1),
    (6, 1),
    (3, 3),
    (12, 5),
    (4, 7),
    (12, 8),
    (8, 3),
]
HOME_ROW = np.array([_RING[i % 16][0] for i in range(64)], np.int64)
HOME_COL = np.array([_RING[i % 16][1] for i in range(64)], np.int64)
MAX_CHARACTERS = 64

# goods and the market's prices (it buys low and sells high, so trading between characters pays)
WHEAT, BREAD, WOOD = range(3)
GOODS = 3
GOOD_NAMES = ("wheat", "bread", "wood")
SELL_PRICE = np.array([1, 3, 2], np.int64)  # what the market pays for one unit
BUY_PRICE = np.array([2, 5, 4], np.int64)  # what the market charges for one unit
MAX_PRICE = 6  # offers are 1..MAX_PRICE coins for one unit
MAX_GOOD, MAX_COINS = 99, 999

# needs, in [0, 1]; a character faints when one reaches 0
HUNGER, THIRST, ENERGY, SOCIAL = range(4)
NEEDS = 4
NEED_NAMES = ("fullness", "hydration", "energy", "company")
DECAY = np.array([0.010, 0.016, 0.007, 0.005], np.float32)
BREAD_FOOD, WHEAT_FOOD, DRINK, TALK_SOCIAL = 0.5, 0.15, 0.6, 0.25
SLEEP_ENERGY, NIGHT_SLEEP_ENERGY = 0.06, 0.09
TAVERN_DRINK_COST = 1

# work: farm -> wheat, bakery turns one wheat into bread, forest -> wood; skill adds a second unit
FARMING, BAKING, CHOPPING = range(3)
SKILLS = 3
SKILL_NAMES = ("farming", "baking", "woodcutting")
SKILL_GAIN, SKILL_START = 0.03, 0.3

# goals, one per character per episode
RICH, HOUSE, GATHER = range(3)
GOALS = 3
GOAL_COINS = 30  # RICH: hold this many coins
HOUSE_WOOD, HOUSE_COINS = 6, 8  # HOUSE: build at home with this much wood and coin
GATHER_OTHERS = 3  # GATHER: be at the tavern with this many others at once

SLOTS = 4  # nearest other characters a character sees, within VIEW tiles (Chebyshev)
VIEW = 6
OFFER_TTL = 4  # ticks the addressee has to answer an offer, after the tick it was made
REL_TALK, REL_GIVE, REL_TRADE = 0.1, 0.05, 0.05  # relationship gains
FRIENDS = 0.5  # a relationship at or above this counts as formed

# the flat action table: kind, place or slot, good, price per action id
NOOP, GO_PLACE, GO_CHAR, WORK, EAT, DRINK_ACT, SLEEP, TALK, GIVE, OFFER, ACCEPT, REJECT, SELL, BUY, BUILD = range(15)


def _action_table() -> np.ndarray:
    rows = [(NOOP, 0, 0, 0)]
    rows += [(GO_PLACE, p, 0, 0) for p in range(PLACES)]
    rows += [(GO_CHAR, k, 0, 0) for k in range(SLOTS)]
    rows += [(WORK, 0, 0, 0), (EAT, 0, BREAD, 0), (EAT, 0, WHEAT, 0), (DRINK_ACT, 0, 0, 0), (SLEEP, 0, 0, 0)]
    rows += [(TALK, k, 0, 0) for k in range(SLOTS)]
    rows += [(GIVE, k, g, 0) for k in range(SLOTS) for g in range(GOODS)]
    rows += [(OFFER, k, g, p) for k in range(SLOTS) for g in range(GOODS) for p in range(1, MAX_PRICE + 1)]
    rows += [(ACCEPT, 0, 0, 0), (REJECT, 0, 0, 0)]
    rows += [(SELL, 0, g, 0) for g in range(GOODS)] + [(BUY, 0, g, 0) for g in range(GOODS)]
    rows += [(BUILD, 0, 0, 0)]
    return np.array(rows, np.int64)


ACTIONS = _action_table()
NUM_ACTIONS = len(ACTIONS)
KIND, ARG, GOOD, PRICE = ACTIONS[:, 0].copy(), ACTIONS[:, 1].copy(), ACTIONS[:, 2].copy(), ACTIONS[:, 3].copy()
# first action id of each kind, for building ids in kernels
# a tuple, not an array: FIRST[KIND] in a kernel folds to a constant instead of building an array each time
FIRST = tuple(int(np.argmax(KIND == k)) for k in range(15))


def offer_id(slot: int, good: int, price: int) -> int:
    """Action id of offering one ``good`` for ``price`` coins to the character in ``slot``."""
    return int(FIRST[OFFER] + (slot * GOODS + good) * MAX_PRICE + price - 1)


GOAL_NAMES = ("rich", "house", "gathering")

# phases: night or day, or crisis when a learner's need is below CRISIS_NEED
DAY_PHASE, NIGHT_PHASE, CRISIS = range(3)
CRISIS_NEED = 0.15

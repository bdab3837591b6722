"""The numbers of `duel`: the arena, the action heads, the weapons, supplies and timers.

Every number a rule uses lives here; the tick that uses them is in
:mod:`sparring.envs.duel.rules`.

Weapons (style: ticks between attacks, range in tiles, max hit):
melee 4, 1, 30; ranged 4, 7, 26; magic 5, 10, 28. Magic is a freezing spell:
an accurate one roots the target for 8 ticks, then 6 ticks of immunity. The
special attack (melee, 50 of 100 energy) hits up to 45 with 1.35x accuracy.

Gear triangle (hit chance of an attack style against the defender's gear):
an attack hits its own style's gear 60% of the time, the gear it beats 85%
(melee beats ranged gear, ranged beats magic gear, magic beats melee gear),
and the gear that defends against it 40%. A protection prayer cuts the damage
of its style to 2/5 of the roll (``PRAYED_NUM`` / ``PRAYED_DEN``).

Every projectile lands no later than 4 ticks after launch, and no weapon is
faster than 4 ticks, so each fighter has at most one hit in flight.
"""

ARENA = 12
MAX_HP = 99

# action heads and their values; value 0 of every head is "do nothing" and always allowed
MOVE, STYLE, PRAYER, FOOD, SPEC = 0, 1, 2, 3, 4
HEADS = 5
STAY, NORTH, SOUTH, WEST, EAST = 0, 1, 2, 3, 4
NO_ATTACK = 0  # STYLE head: 1 + style attacks with that style
KEEP, PRAY_OFF = 0, 4  # PRAYER head: 1 + style protects from that style
NO_FOOD, EAT, COMBO, EAT_BOTH, POTION = 0, 1, 2, 3, 4
SIZES = (5, 4, 5, 5, 2)

MELEE, RANGED, MAGIC = 0, 1, 2
SPEED = (4, 4, 5)
MAX_SPEED = 5  # the slowest weapon's ticks between attacks: the attack timer's top
RANGE = (1, 7, 10)
MAX_HIT = (30, 26, 28)
# HIT_CHANCE[3 * attack_style + defender_gear]
HIT_CHANCE = (0.60, 0.85, 0.40, 0.40, 0.60, 0.85, 0.85, 0.40, 0.60)
PRAYED_NUM, PRAYED_DEN = 2, 5
MAX_DELAY = 4

PRAY_MAX = 40
POT_RESTORE = 15
POTS = 3
FOODS, FOOD_HEAL = 4, 20
COMBOS, COMBO_HEAL = 2, 18
EAT_DELAY = 3
EAT_TICKS = 3

SPEC_MAX = 100
SPEC_COST = 50
SPEC_HIT = 45
SPEC_ACCURACY = 1.35
FREEZE_TICKS = 8
IMMUNE_TICKS = 6

# who plays seat 1 (the config's `opponent`), the phases, and the episode metrics (seat 0's view), in order
OPPONENTS = ("random", "reactive", "tribrid", "robot", "learner")
RANDOM, REACTIVE, TRIBRID, ROBOT, LEARNER = range(5)
PHASES = ("opening", "trading", "low_hp", "finish")
OPENING, TRADING, LOW_HP, FINISH = range(4)
METRICS = (
    "win",
    "draw",
    "timed_out",
    "damage_dealt",
    "damage_taken",
    "prayed_hits",
    "food_eaten",
    "specs",
    "freezes",
    "shaping_damage",
    "shaping_taken",
    "shaping_prayer",
)
(WIN, DRAW, TIMED_OUT, DEALT, TAKEN, PRAYED, EATEN, SPECS, FREEZES, SHAPING_DAMAGE, SHAPING_TAKEN, SHAPING_PRAYER) = (
    range(12)
)

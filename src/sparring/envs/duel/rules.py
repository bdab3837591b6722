"""The numbers of `duel` and the small compiled helpers shared by the env and its scripts.

One tick per step; both fighters act at once. Within a tick the rules resolve in
this order (``env.step``):

1. Prayers change. A protection prayer cuts the damage of its style by 60%
   (``PRAYED_DAMAGE`` = 2/5 of the roll), not to zero. It drains 1 point every
   second tick; at 0 points it switches off. A potion dose restores 15 points.
2. Eating. Food heals 20, combo food 18; both can be eaten in one tick for the
   delay of one. Eating blocks further eating for 3 ticks and sets the attack
   timer to at least 3 ticks: eaten right after an attack it costs nothing,
   eaten when the weapon is ready it delays the attack by 3 ticks.
3. Pending hits whose projectile time runs out land (damage, freeze); eating
   this tick comes first, so a fighter can eat against a visible projectile.
4. A fighter at 0 hp loses (+1 / -1); both at once is a draw (0).
5. Attacks launch: attacking with a style equips that style's gear, then the
   accuracy and damage are rolled against the defender's gear and prayer as
   they are now (after this tick's switches). A fighter praying against the
   gear it sees is therefore caught by a style switch on the attacker's ready
   tick. Damage lands later: melee next tick, ranged after 1 + d // 3 ticks,
   magic after 1 + (d + 1) // 3 ticks (d: Chebyshev distance at launch).
6. Movement (one tile north/south/west/east) unless frozen; a fighter cannot
   step onto the other's tile, and two steps onto the same tile both fail.
7. Timers run down; special energy regenerates 1 point every second tick.

Weapons (style: ticks between attacks, range in tiles, max hit):
melee 4, 1, 30; ranged 4, 7, 26; magic 5, 10, 28. Magic is a freezing spell:
an accurate one roots the target for 8 ticks, then 6 ticks of immunity. The
special attack (melee, 50 of 100 energy) hits up to 45 with 1.35x accuracy.

Gear triangle (hit chance of an attack style against the defender's gear):
an attack hits its own style's gear 60% of the time, the gear it beats 85%
(melee beats ranged gear, ranged beats magic gear, magic beats melee gear),
and the gear that defends against it 40%.

Every projectile lands no later than 4 ticks after launch, and no weapon is
faster than 4 ticks, so each fighter has at most one hit in flight.
"""

import numpy as np

from sparring.kit import helper, kernel

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
RANGE = (1, 7, 10)
MAX_HIT = (30, 26, 28)
# HIT_CHANCE[3 * attack_style + defender_gear]
HIT_CHANCE = (0.60, 0.85, 0.40,
              0.40, 0.60, 0.85,
              0.85, 0.40, 0.60)
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


@kernel
def distance(s):
    """Chebyshev distance between the fighters."""
    return max(abs(s.row[0] - s.row[1]), abs(s.col[0] - s.col[1]))


@kernel
def delay(style, d):
    """Ticks from launch to landing for ``style`` at distance ``d``."""
    if style == MELEE:
        return 1
    if style == RANGED:
        return 1 + d // 3
    return 1 + (d + 1) // 3


@kernel
def hit_chance(style, gear):
    """Probability that ``style`` hits a defender wearing ``gear``."""
    return HIT_CHANCE[3 * style + gear]


@kernel
def can_attack(s, a, style):
    """Fighter ``a``'s weapon is ready and the other is within ``style``'s range."""
    return s.atk[a] == 0 and distance(s) <= RANGE[style]


@kernel
def target(s, a, move):
    """The tile ``move`` leads fighter ``a`` to (possibly off the arena)."""
    r, c = np.int64(s.row[a]), np.int64(s.col[a])
    if move == NORTH:
        r -= 1
    elif move == SOUTH:
        r += 1
    elif move == WEST:
        c -= 1
    elif move == EAST:
        c += 1
    return r, c


@helper
def can_move(s, a, move):
    """Staying is always allowed; a step needs no freeze, a tile in the arena, not the other's tile."""
    if move == STAY:
        return True
    if s.frozen[a] > 0:
        return False
    r, c = target(s, a, move)
    o = 1 - a
    return 0 <= r < ARENA and 0 <= c < ARENA and not (r == s.row[o] and c == s.col[o])


@helper
def can_eat(s, a, v):
    """Whether FOOD head value ``v`` (not NO_FOOD) is allowed for fighter ``a``."""
    if v == POTION:
        return s.pots[a] > 0
    if s.eat[a] > 0:
        return False
    if v == EAT:
        return s.food[a] > 0
    if v == COMBO:
        return s.combo[a] > 0
    return s.food[a] > 0 and s.combo[a] > 0


@helper
def legal(s, a, head, v):
    """Whether value ``v`` of ``head`` has an effect-honest meaning for fighter ``a`` now."""
    if v == 0:
        return True
    if head == MOVE:
        return can_move(s, a, v)
    if head == STYLE:
        return can_attack(s, a, v - 1)
    if head == PRAYER:
        return v == PRAY_OFF or s.pp[a] > 0
    if head == FOOD:
        return can_eat(s, a, v)
    return s.spec[a] >= SPEC_COST


@helper
def write_mask(s, a, m):
    """Fighter ``a``'s flat mask row: what :func:`legal` answers, a head at a time (the step path)."""
    for v in range(SIZES[MOVE]):
        m[v] = can_move(s, a, v)
    d = distance(s)
    m[5] = True
    for style in range(3):
        m[6 + style] = s.atk[a] == 0 and d <= RANGE[style]
    m[9] = True
    for p in range(3):
        m[10 + p] = s.pp[a] > 0
    m[13] = True
    can_eat_now = s.eat[a] == 0
    m[14] = True
    m[15] = can_eat_now and s.food[a] > 0
    m[16] = can_eat_now and s.combo[a] > 0
    m[17] = m[15] and m[16]
    m[18] = s.pots[a] > 0
    m[19] = True
    m[20] = s.spec[a] >= SPEC_COST


@helper
def legalize(s, a, src, dst):
    """Copy ``src`` to ``dst`` with every forbidden head value replaced by 0 (that head's no-op)."""
    for h in range(HEADS):
        v = np.int64(src[h])
        dst[h] = v if legal(s, a, h, v) else 0


@helper
def step_toward(s, a):
    """The move that brings fighter ``a`` closest to the other (STAY if none helps)."""
    o = 1 - a
    best, best_d = STAY, distance(s)
    for m in range(1, 5):
        if can_move(s, a, m):
            r, c = target(s, a, m)
            d = max(abs(r - s.row[o]), abs(c - s.col[o]))
            if d < best_d:
                best, best_d = m, d
    return best

"""What a `duel` fighter may do now: distance, hit delay and chance, reach, legality and the mask row.

Shared by the tick (:mod:`sparring.envs.duel.rules`), the observation and the
scripted fighters, so that all of them judge the same way.
"""

import numpy as np

from sparring.envs.duel.world import (
    ARENA,
    COMBO,
    EAT,
    FOOD,
    HEADS,
    HIT_CHANCE,
    MELEE,
    MOVE,
    NORTH,
    POTION,
    PRAY_OFF,
    PRAYER,
    RANGE,
    RANGED,
    SIZES,
    SOUTH,
    SPEC_COST,
    STAY,
    STYLE,
    WEST,
    EAST,
)
from sparring.kit import helper, kernel


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

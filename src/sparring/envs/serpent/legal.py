"""What the `serpent` player may do now: tiles, safespots, reach, the legality of each head value and the mask row.

Shared by the tick (:mod:`sparring.envs.serpent.rules`), the observation and the
scripted players, so that all of them judge the same way.
"""

import numpy as np

from sparring.envs.serpent.world import (
    ADD_RANGE,
    ADD_SLOTS,
    ATTACK,
    ATTACK_BOSS,
    BLOCKED,
    BOSS_COL,
    BOSS_ROW,
    CLOUD_SLOTS,
    DC,
    DOSE_RESTORE,
    DR,
    EAT,
    FOOD_HEAL,
    GEAR,
    GRID,
    MAX_HP,
    MOVE,
    NORTH,
    PRAY_MAX,
    PRAY_OFF,
    PRAYER,
    PRAYER_DOSE,
    RANGE,
    SIZES,
    SOUTH,
    STAY,
    WEST,
)
from sparring.kit import helper, kernel


@kernel
def walkable(r, c):
    """The tile is on the platform and not blocked."""
    return 0 <= r < GRID and 0 <= c < GRID and not BLOCKED[r, c]


@kernel
def boss_distance(pos, r, c):
    """Chebyshev distance from tile (r, c) to boss position ``pos``."""
    return max(abs(r - BOSS_ROW[pos]), abs(c - BOSS_COL[pos]))


@kernel
def shadowed(pos, r, c):
    """Tile (r, c) is a safespot from ranged attacks at position ``pos``: its neighbour towards the boss is blocked."""
    if pos == NORTH:
        r -= 1
    elif pos == SOUTH:
        r += 1
    elif pos == WEST:
        c -= 1
    else:
        c += 1
    return 0 <= r < GRID and 0 <= c < GRID and BLOCKED[r, c]


@kernel
def in_smash(s, r, c):
    """Tile (r, c) is under the melee form's coming smash (the stared tile or a neighbour)."""
    return s.stare > 0 and abs(r - s.stare_r) + abs(c - s.stare_c) <= 1


@helper
def cloud_at(s, r, c):
    """A live venom cloud covers tile (r, c)."""
    for k in range(CLOUD_SLOTS):
        if s.cloud_t[k] > 0 and s.cloud_r[k] == r and s.cloud_c[k] == c:
            return True
    return False


@helper
def nearest_add(s):
    """Slot of the live add closest to the player within ``ADD_RANGE``, or -1."""
    best, best_d = -1, ADD_RANGE + 1
    for k in range(ADD_SLOTS):
        if s.add_hp[k] > 0:
            d = max(abs(s.add_r[k] - s.row), abs(s.add_c[k] - s.col))
            if d < best_d:
                best, best_d = k, d
    return best


@helper
def can_attack_boss(s):
    """The weapon is ready, the boss is up and in range of the player's tile."""
    return s.atk == 0 and s.surfaced == 1 and boss_distance(s.pos, s.row, s.col) <= RANGE


@kernel
def can_eat(s):
    """Food left, not eating, and the whole heal would count (no food wasted at high hp)."""
    return s.food > 0 and s.eat == 0 and s.hp <= MAX_HP - FOOD_HEAL


@kernel
def can_dose(s):
    """A prayer dose left and room for all of its points."""
    return s.doses > 0 and s.pp <= PRAY_MAX - DOSE_RESTORE


@kernel
def can_cure(s):
    """An antivenom dose left, and venom to cure."""
    return s.antivenom > 0 and s.venom > 0


@helper
def write_mask(s, m):
    """The flat mask row: what step treats as legal, head by head."""
    for v in range(SIZES[MOVE]):
        m[v] = v == STAY or walkable(s.row + DR[v], s.col + DC[v])
    k = SIZES[MOVE]
    m[k] = True
    m[k + 1] = s.pp > 0
    m[k + 2] = s.pp > 0
    m[k + 3] = True
    k += SIZES[PRAYER]
    for v in range(SIZES[GEAR]):
        m[k + v] = True
    k += SIZES[GEAR]
    m[k] = True
    m[k + 1] = can_attack_boss(s)
    m[k + 2] = s.atk == 0 and nearest_add(s) >= 0
    k += SIZES[ATTACK]
    m[k] = True
    m[k + 1] = can_eat(s)
    m[k + 2] = can_dose(s)
    m[k + 3] = can_cure(s)


@helper
def legal(s, head, v):
    """Whether value ``v`` of ``head`` is allowed now (the same answers as :func:`write_mask`)."""
    if v == 0:
        return True
    if head == MOVE:
        return walkable(s.row + DR[v], s.col + DC[v])
    if head == PRAYER:
        return v == PRAY_OFF or s.pp > 0
    if head == GEAR:
        return True
    if head == ATTACK:
        return can_attack_boss(s) if v == ATTACK_BOSS else s.atk == 0 and nearest_add(s) >= 0
    if v == EAT:
        return can_eat(s)
    if v == PRAYER_DOSE:
        return can_dose(s)
    return can_cure(s)


@kernel
def allowed(s, act, head):
    """The agent's value for ``head``, or 0 (the head's no-op) where the mask forbids it."""
    v = np.int64(act[0, head])
    return v if legal(s, np.int64(head), v) else 0

"""The numbers of `serpent` and the small compiled helpers shared by the env and its scripts.

The fight: one player on an 11x11 platform whose corners are cut and with four
pillars (``BLOCKED``); a serpent boss surfaces at one of four positions just
off the platform's edges (north, east, south, west) in one of three forms.

Forms (what it does; what hurts it):
- ranged: a ranged attack every ``BOSS_SPEED`` ticks; weak to magic.
- magic: a magic attack every ``BOSS_SPEED`` ticks, but one in ``MAGIC_RANGED``
  of them is ranged instead; weak to ranged.
- melee: stares at the player's tile for ``STARE_TICKS`` ticks, then smashes that
  tile and its four neighbours for ``SMASH_MIN``..``SMASH_MAX``; rests
  ``SMASH_REST`` ticks and stares again. Immune to ranged; weak to magic.

A fight follows one of four fixed rotations (``ROT_FORM``/``ROT_POS``) of
``PHASES`` phases, chosen at random; they share their first ``SHARED`` phases,
so the rotation shows itself only at phase ``SHARED``. After the last phase the
rotation starts over. Each phase: the boss is under water (``DIVE_TICKS``,
untargetable), then surfaces and strikes at once: a ranged or magic form's
ambush is its own style, always hits, for ``AMBUSH_MIN``..``AMBUSH_MAX``, and lands on the
surfacing tick, so only a player who prayed (or stood on the safespot) before
seeing the form escapes it. It stays up ``SURFACE_TICKS`` ticks and dives again.
Each dive spits ``CLOUDS`` venom clouds (one on the player's tile, the others
on random tiles; ``CLOUD_DAMAGE`` a tick to whoever stands in one, for
``CLOUD_TICKS`` ticks) and spawns an add with chance ``ADD_CHANCE``.

Within a tick the rules resolve in this order (``env.step``):

1. Actions that the mask forbids become their head's no-op. Prayer, gear and
   supplies change: food heals ``FOOD_HEAL``, takes the place of this tick's
   attack and delays the weapon to at least ``EAT_DELAY`` ticks; a prayer dose
   restores ``DOSE_RESTORE`` points; an antivenom dose cures venom and
   protects from it for ``ANTIVENOM_TICKS``. Supplies cannot be wasted: food
   only when all of its heal counts, a prayer dose only when all of its points
   fit, antivenom only while venomed.
2. The player attacks from its tile, if the weapon is ready and the target in
   range (Chebyshev distance ``RANGE`` to the boss's position, ``ADD_RANGE`` to
   an add): the boss (only while surfaced) or the nearest add, with the style
   of the gear now worn; the weapon is then busy for ``SPEED`` ticks. Damage
   is immediate; a boss at 0 hp ends the fight (+1).
3. The player moves one tile (north, south, west, east) onto a walkable tile.
4. Clouds burn whoever stands in them (so a cloud spat on the player's tile
   hurts only if the player stays) and may envenom; then they age.
5. The boss acts: surfaces, attacks, stares, smashes or dives (see above).
   A protection prayer blocks all damage of its style. A tile whose neighbour
   towards the boss is blocked is a safespot: ranged attacks from that
   position cannot reach it (magic arcs over pillars; smashes come from above).
   A ranged hit that does damage envenoms with chance ``VENOM_CHANCE``.
6. Adds step towards the player every second tick and bite (0..``ADD_HIT``)
   every ``ADD_SPEED`` ticks when next to it (Chebyshev distance 1).
7. Venom hits every ``VENOM_EVERY`` ticks for ``VENOM_START``, rising by
   ``VENOM_STEP`` a hit up to ``VENOM_MAX``.
8. Timers run down; each tick prayed adds to a drain counter, and every
   ``DRAIN_EVERY`` such ticks cost a prayer point (at 0 the prayer switches off).
9. A player at 0 hp dies (the config's death penalty); the tick limit ends the
   fight with 0 (a truncation).
"""

import numpy as np

from sparring.kit import helper, kernel

GRID = 11
# 1 = blocked: the four cut corners and four pillars
BLOCKED = np.zeros((GRID, GRID), np.bool_)
for _r, _c in ((0, 0), (0, 1), (1, 0), (0, 9), (0, 10), (1, 10), (9, 0), (10, 0), (10, 1), (9, 10), (10, 10),
               (10, 9), (2, 2), (2, 8), (8, 2), (8, 8)):
    BLOCKED[_r, _c] = True
del _r, _c
START_ROW, START_COL = 5, 5

# positions: where the boss surfaces, just off an edge's middle
NORTH, EAST, SOUTH, WEST = range(4)
BOSS_ROW = np.array([-1, 5, GRID, 5], np.int64)
BOSS_COL = np.array([5, GRID, 5, -1], np.int64)
# forms
RANGED_FORM, MAGIC_FORM, MELEE_FORM = range(3)

# the rotations: (form, position) per phase; the first SHARED phases are the same in all four
PHASES, ROTATIONS, SHARED = 10, 4, 3
R, M, X = RANGED_FORM, MAGIC_FORM, MELEE_FORM
N, E, S, W = NORTH, EAST, SOUTH, WEST
ROT_FORM = np.array([[R, X, M, R, X, M, R, M, X, M],
                     [R, X, M, R, M, X, R, M, R, M],
                     [R, X, M, M, R, M, X, R, M, R],
                     [R, X, M, M, X, R, M, X, R, M]], np.int64)
ROT_POS = np.array([[N, N, N, S, S, W, N, N, E, N],
                    [N, N, N, W, S, N, E, S, W, N],
                    [N, N, N, E, S, W, N, E, N, W],
                    [N, N, N, W, E, S, N, W, E, S]], np.int64)
ROT_NAMES = ("A", "B", "C", "D")

# action heads; value 0 of every head is "do nothing" and always allowed
MOVE, PRAYER, GEAR, ATTACK, SUPPLY = range(5)
HEADS = 5
SIZES = (5, 4, 3, 3, 4)
STAY, GO_NORTH, GO_SOUTH, GO_WEST, GO_EAST = range(5)
KEEP, PROTECT_RANGED, PROTECT_MAGIC, PRAY_OFF = range(4)  # prayer p (1, 2) protects from style p - 1
RANGED_GEAR, MAGIC_GEAR = 0, 1  # GEAR head value g + 1 wears gear g
NO_ATTACK, ATTACK_BOSS, ATTACK_ADD = range(3)
NO_SUPPLY, EAT, PRAYER_DOSE, ANTIVENOM = range(4)
RANGED_STYLE, MAGIC_STYLE = 0, 1
DR = np.array([0, -1, 1, 0, 0], np.int64)
DC = np.array([0, 0, 0, -1, 1], np.int64)

# the player
MAX_HP = 99
PRAY_MAX = 60
DRAIN_EVERY = 3
FOOD_HEAL, EAT_DELAY, EAT_TICKS = 20, 2, 2
PRAYER_DOSES, DOSE_RESTORE = 4, 20
ANTIVENOM_DOSES, ANTIVENOM_TICKS = 2, 60
SPEED = 4  # ticks between the player's attacks
RANGE, ADD_RANGE = 5, 7
# max hit and hit chance of the player's attack styles against a form: [form, style]
WEAK_MAX, WEAK_CHANCE = 30, 0.9
PLAIN_MAX, PLAIN_CHANCE = 20, 0.6
WEAKNESS = np.array([MAGIC_STYLE, RANGED_STYLE, MAGIC_STYLE], np.int64)  # per form
IMMUNE = np.array([-1, -1, RANGED_STYLE], np.int64)  # per form: the style it ignores (-1: none)

# the boss
DIVE_TICKS, SURFACE_TICKS = 5, 20
BOSS_SPEED = 4
BOSS_CHANCE = 0.8
RANGED_MAX, MAGIC_MAX = 20, 20
AMBUSH_MIN, AMBUSH_MAX = 20, 50
MAGIC_RANGED = 4
STARE_TICKS, SMASH_REST = 2, 3
SMASH_MIN, SMASH_MAX = 30, 45
VENOM_CHANCE = 0.25

# hazards
CLOUD_SLOTS, CLOUDS, CLOUD_TICKS, CLOUD_DAMAGE, CLOUD_VENOM = 8, 3, 30, 3, 0.2
ADD_SLOTS, ADD_CHANCE, ADD_HP, ADD_HIT, ADD_SPEED = 2, 0.4, 8, 6, 3
ADD_PLAYER_MAX, ADD_PLAYER_CHANCE = 12, 0.9
VENOM_EVERY, VENOM_START, VENOM_STEP, VENOM_MAX = 6, 2, 2, 8

# damage sources (metric order)
SRC_VENOM, SRC_CLOUDS, SRC_SMASH, SRC_RANGED, SRC_MAGIC, SRC_ADDS = range(6)


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

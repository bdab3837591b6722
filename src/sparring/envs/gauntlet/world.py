"""The numbers of `gauntlet`: the arena, the monster types, the waves, the final boss, the player, the heads.

The arena is ``ROWS`` x ``COLS`` tiles with three square pillars (``PILLAR``
tiles a side) that block movement, line of sight and projectiles while they
stand. Monsters live in ``SLOTS`` fixed slots (slot 0 is kept for the final
boss); a slot is empty, alive, dead (a body a mage can raise) or burrowed.

Monster types (``TYPE_NAMES``): each has hp, attack range, ticks between
attacks, max hit, style, tiles moved per tick and the player style it is weak
to (``HP``, ``RANGE``, ``SPEED``, ``MAX_HIT``, ``STYLE``, ``MOVES``, ``WEAK``):

- nibbler: walks to the nearest standing pillar and eats it; bites the player
  only when no pillar stands. A pillar eaten to 0 falls: ``FALL_DAMAGE`` to a player
  next to it, and ``FALL_MONSTER_DAMAGE`` to the monsters next to it, but never
  below 1 hp, so a wave is never cleared by a pillar while the player stands by.
- bat: a fast, short-range ranger.
- blob: one tick before it attacks it reads the player's prayer and then attacks
  with a style the player is not praying (ranged or magic), so the prayer must
  be flicked; on death it splits into three small blobs (melee, ranged, magic).
- meleer: melee; a player out of its reach for ``BURROW_AFTER`` ticks makes it
  burrow (untargetable for ``BURROW_TICKS``) and resurface beside the player.
- ranger, mage: long range; a mage's due attack raises a dead monster at half hp
  instead, with chance ``RAISE_CHANCE`` (each body once).
- boss: telegraphs each attack ``TELEGRAPH`` ticks ahead (ranged or magic, shown
  in its slot); at half hp it summons ``BOSS_HEALERS`` healers.
- healer: stands by the monster it is linked to and heals it ``HEAL`` every
  ``HEAL_EVERY`` ticks until the player attacks it (tags it); a tagged healer
  walks to the player and hits it weakly.
- final boss (slot 0, behind the arena's north wall, always in reach): every
  ``ZUK_SPEED`` ticks (``ZUK_ENRAGED`` when enraged) a big hit of ``ZUK_HIT`` strikes
  everything not covered by the shield; monster sets spawn every
  ``FINAL_SPAWN_EVERY`` ticks; a boss is summoned at ``SUMMON_AT`` of its hp, healers at
  ``HEALERS_AT``, and it enrages at ``ENRAGE_AT``.

The shield is a bar of ``2 * SHIELD_HALF + 1`` tiles on row ``SHIELD_ROW`` that
moves one column every ``SHIELD_EVERY`` ticks, bouncing between ``SHIELD_MIN`` and
``SHIELD_MAX``; a tile south of that row within ``SHIELD_HALF`` columns of the shield's
centre is covered.

Monsters never share the player's tile but may share one another's (a
simplification). They walk greedily (diagonal, then straight); one whose
greedy step runs straight into a pillar walks round it instead: it slides
along the pillar's face towards the nearer corner (a fair coin when both are
as near) until it can step past, and remembers which way (``DETOUR``), so
the greedy pull back to the middle of the face does not undo it. A pillar
still slows a monster and blocks its line of sight (the player may shoot one
that is walking round it), but a player hidden straight behind a pillar is
found: standing still is never safe.

Every number a rule uses lives here; the tick is in :mod:`sparring.envs.gauntlet.rules`,
the monsters' part of it in :mod:`sparring.envs.gauntlet.monsters`.
"""

import numpy as np

ROWS, COLS = 30, 29
PILLARS, PILLAR = 3, 3
PILLAR_R = np.array([7, 11, 19], np.int64)  # top-left tiles
PILLAR_C = np.array([4, 21, 12], np.int64)
PILLAR_HP, FALL_DAMAGE, FALL_MONSTER_DAMAGE = 255, 25, 60
START_R, START_C = 24, 14

# monster types
NIBBLER, BAT, BLOB, SPLIT, MELEER, RANGER, MAGE, BOSS, HEALER, ZUK = range(10)
TYPES = 10
TYPE_NAMES = ("nibbler", "bat", "blob", "small blob", "meleer", "ranger", "mage", "boss", "healer", "final boss")
TYPE_LETTERS = "nbosMRGJhZ"
# styles (of attacks and of prayers): prayer p protects from style p - 1
MELEE, RANGED, MAGIC = range(3)
HP = np.array([10, 25, 40, 10, 75, 60, 90, 220, 30, 700], np.int64)
RANGE = np.array([1, 4, 8, 6, 1, 15, 15, 15, 1, 99], np.int64)
SPEED = np.array([5, 4, 6, 4, 4, 6, 6, 8, 4, 10], np.int64)
MAX_HIT = np.array([6, 10, 28, 6, 30, 24, 30, 70, 4, 150], np.int64)
STYLE = np.array([MELEE, RANGED, -1, -1, MELEE, RANGED, MAGIC, -1, MELEE, -1], np.int64)
MOVES = np.array([1, 2, 1, 1, 1, 1, 1, 1, 1, 0], np.int64)
# the gear (0 ranged, 1 magic) each type is weak to: the player's style minus one
WEAK = np.array([RANGED, MAGIC, RANGED, RANGED, MAGIC, MAGIC, RANGED, RANGED, RANGED, RANGED], np.int64) - 1
NIBBLE = 4  # pillar damage per nibbler bite
MONSTER_ACC = 0.4
BURROW_AFTER, BURROW_TICKS = 8, 3
RAISE_CHANCE = 0.35
TELEGRAPH = 3
BOSS_HEALERS, HEAL, HEAL_EVERY, HEAL_RANGE = 2, 8, 3, 2

# slots: state of a slot, and flag bits
SLOTS = 12
EMPTY, ALIVE, DEAD, BURROWED = range(4)
TAGGED, RAISED, SUMMONED = 1, 2, 4  # m_flag bits: healer tagged, body raised once, boss called its healers
DETOUR, SLIDE_SHIFT = 8, 4  # m_flag: walking round a pillar; bits 4-5 hold its sliding move (north..east) less one
BOSS_CALLED, HEALERS_CALLED = 1, 2  # zuk_flags bits

# waves: 1..REGULAR from WAVE_TABLE, then the multi-boss wave, then the final boss
WAVES = 30
REGULAR = 28
BOSS_WAVE, FINAL_WAVE = REGULAR + 1, REGULAR + 2
WAVE_GAP = 4
NIBBLERS = 2
_ORDER = (BAT, BLOB, MELEER, RANGER, MAGE)


def _wave_table() -> np.ndarray:
    """Wave w (1..REGULAR): the monsters of the binary number w over (bat, blob, meleer, ranger, mage)."""
    table = np.full((REGULAR + 1, len(_ORDER)), -1, np.int64)
    for w in range(1, REGULAR + 1):
        kinds = [t for bit, t in enumerate(_ORDER) if w >> bit & 1]
        table[w, : len(kinds)] = kinds
    return table


WAVE_TABLE = _wave_table()
BOSSES_IN_BOSS_WAVE = 3
BOSS_R = np.array([3, 5, 3], np.int64)
BOSS_C = np.array([5, 14, 23], np.int64)

# the final boss
ZUK_R, ZUK_C = -2, 14
ZUK_HIT, ZUK_SPEED, ZUK_ENRAGED = 150, 10, 7
SUMMON_AT, HEALERS_AT, ENRAGE_AT = 0.6, 0.35, 0.15
FINAL_SPAWN_EVERY, ZUK_HEALERS = 120, 4
SHIELD_ROW, SHIELD_HALF, SHIELD_MIN, SHIELD_MAX, SHIELD_EVERY = 8, 2, 4, 24, 2
BEFORE_SUMMON, SUMMONING, HEALING, POST_HEALERS, ENRAGED = range(5)
STAGE_NAMES = ("before-summon", "summon", "healers", "post-healers", "enrage")

# the player
MAX_HP, PRAY_MAX, DRAIN_EVERY = 99, 99, 3
HEALS, HEAL_HP, HEAL_DELAY = 12, 30, 2
RESTORES, RESTORE_PP = 6, 30
GEAR_RANGE = np.array([10, 10], np.int64)  # ranged, magic
GEAR_SPEED = np.array([3, 5], np.int64)
GEAR_MAX = np.array([26, 45], np.int64)
WEAK_ACC, PLAIN_ACC = 0.85, 0.5

# action heads; value 0 of every head is "do nothing" and always allowed
MOVE, PRAYER, GEAR, TARGET, SUPPLY = range(5)
HEADS = 5
SIZES = (9, 5, 3, SLOTS + 1, 3)
DR = np.array([0, -1, 1, 0, 0, -1, -1, 1, 1], np.int64)
DC = np.array([0, 0, 0, -1, 1, -1, 1, -1, 1], np.int64)
KEEP, PROTECT_MELEE, PROTECT_RANGED, PROTECT_MAGIC, PRAY_OFF = range(5)
NO_SUPPLY, DRINK_HEAL, DRINK_RESTORE = range(3)

# damage sources (metric order)
SRC_MELEE, SRC_RANGED, SRC_MAGIC, SRC_BOSS, SRC_ZUK, SRC_PILLAR = range(6)
SOURCES = ("melee", "ranged", "magic", "boss", "final_boss", "pillar")
FORECAST = 4  # ticks of incoming-hit forecast

METRICS = (
    "win",
    "wave",
    "lowest_hp",
    *(f"taken_{n}" for n in SOURCES),
    *(f"killed_by_{n}" for n in SOURCES),
    "healers_tagged",
    "healers_killed",
    "heals_used",
    "restores_used",
    "pillars_lost",
    "timed_out",
    "shaping_wave",
    "shaping_hp",
    "supplies_wasted",
    "shaping_waste",
)
WIN, WAVE_REACHED, LOWEST_HP = range(3)  # win: the run was cleared (what eval counts)
TAKEN, KILLED_BY = 3, 3 + len(SOURCES)
(
    HEALERS_TAGGED,
    HEALERS_KILLED,
    HEALS_USED,
    RESTORES_USED,
    PILLARS_LOST,
    TIMED_OUT,
    SHAPING_WAVE,
    SHAPING_HP,
    SUPPLIES_WASTED,  # hp and prayer points of doses drunk above the maximum, which they cannot fill
    SHAPING_WASTE,
) = range(3 + 2 * len(SOURCES), len(METRICS))

# the config's death penalties
DEATHS = ("progress", "flat", "zero")
PROGRESS, FLAT, ZERO = range(3)

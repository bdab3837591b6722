"""The numbers of `serpent`: the platform, the boss's forms, positions and rotations, the heads, the hazards.

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

Every number a rule uses lives here; the tick is in :mod:`sparring.envs.serpent.rules`.
"""

import numpy as np

GRID = 11
# 1 = blocked: the four cut corners and four pillars
BLOCKED = np.zeros((GRID, GRID), np.bool_)
for _r, _c in (
    (0, 0),
    (0, 1),
    (1, 0),
    (0, 9),
    (0, 10),
    (1, 10),
    (9, 0),
    (10, 0),
    (10, 1),
    (9, 10),
    (10, 10),
    (10, 9),
    (2, 2),
    (2, 8),
    (8, 2),
    (8, 8),
):
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
ROT_FORM = np.array(
    [
        [R, X, M, R, X, M, R, M, X, M],
        [R, X, M, R, M, X, R, M, R, M],
        [R, X, M, M, R, M, X, R, M, R],
        [R, X, M, M, X, R, M, X, R, M],
    ],
    np.int64,
)
ROT_POS = np.array(
    [
        [N, N, N, S, S, W, N, N, E, N],
        [N, N, N, W, S, N, E, S, W, N],
        [N, N, N, E, S, W, N, E, N, W],
        [N, N, N, W, E, S, N, W, E, S],
    ],
    np.int64,
)
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

# the config's death penalties, and the episode metrics in order
DEATHS = ("minus_one", "zero", "progress")
MINUS_ONE, ZERO, PROGRESS = range(3)
METRICS = (
    "win",
    "timed_out",
    "kill_time",
    "damage_dealt",
    "taken_venom",
    "taken_clouds",
    "taken_smash",
    "taken_ranged",
    "taken_magic",
    "taken_adds",
    "food_eaten",
    "prayer_doses",
    "antivenom_doses",
    "phases_seen",
    "shaping_damage",
)
(
    WIN,
    TIMED_OUT,
    KILL_TIME,
    DEALT,
    TAKEN,
    _,
    _,
    _,
    _,
    _,
    FOOD_EATEN,
    DOSES_USED,
    ANTIVENOM_USED,
    PHASES_SEEN,
    SHAPING_DAMAGE,
) = range(len(METRICS))

"""What the `serpent` boss and its hazards do in a tick: surface, strike, stare and smash, dive, clouds, adds.

Also how the player takes damage (:func:`hurt`) and venom (:func:`envenom`),
which every hazard shares. The tick that calls these is in
:mod:`sparring.envs.serpent.rules`.
"""

import numpy as np

from sparring.envs.serpent.legal import cloud_at, shadowed, walkable
from sparring.envs.serpent.world import (
    ADD_CHANCE,
    ADD_HIT,
    ADD_HP,
    ADD_SLOTS,
    ADD_SPEED,
    AMBUSH_MAX,
    AMBUSH_MIN,
    BOSS_CHANCE,
    BOSS_SPEED,
    CLOUD_DAMAGE,
    CLOUD_SLOTS,
    CLOUD_TICKS,
    CLOUD_VENOM,
    CLOUDS,
    DIVE_TICKS,
    GRID,
    MAGIC_FORM,
    MAGIC_MAX,
    MAGIC_RANGED,
    MAGIC_STYLE,
    MELEE_FORM,
    PHASES,
    PHASES_SEEN,
    RANGED_MAX,
    RANGED_STYLE,
    ROT_FORM,
    ROT_POS,
    SMASH_MAX,
    SMASH_MIN,
    SMASH_REST,
    SRC_ADDS,
    SRC_CLOUDS,
    SRC_MAGIC,
    SRC_RANGED,
    SRC_SMASH,
    STARE_TICKS,
    SURFACE_TICKS,
    TAKEN,
    VENOM_CHANCE,
    VENOM_EVERY,
    VENOM_START,
)
from sparring.kit import helper, rand_float, rand_int


@helper
def hurt(s, dmg, source):
    """The player takes ``dmg`` from ``source`` (capped at the hp left)."""
    dmg = min(dmg, np.int64(s.hp))
    s.hp -= dmg
    s.metrics[TAKEN + source] += dmg


@helper
def envenom(s):
    """Venom starts unless the player is already venomed or protected by antivenom."""
    if s.venom == 0 and s.venom_immune == 0:
        s.venom = VENOM_START
        s.venom_t = VENOM_EVERY


@helper
def boss_attack(s, ambush):
    """A ranged or magic attack: blocked by the matching prayer, ranged also by the position's safespots.

    The ``ambush`` on surfacing is the form's own style, always hits and hits harder.
    """
    style = RANGED_STYLE
    if s.form == MAGIC_FORM and (ambush or rand_int(s, MAGIC_RANGED) != 0):
        style = MAGIC_STYLE
    hit, size, venom_roll = rand_float(s) < BOSS_CHANCE, rand_int(s, 1 << 20), rand_float(s)
    top = RANGED_MAX if style == RANGED_STYLE else MAGIC_MAX
    dmg = size % (top + 1) if hit else 0
    if ambush:
        dmg = AMBUSH_MIN + size % (AMBUSH_MAX - AMBUSH_MIN + 1)
    if s.prayer == style + 1 or (style == RANGED_STYLE and shadowed(s.pos, s.row, s.col)):
        dmg = 0
    hurt(s, dmg, np.int64(SRC_RANGED if style == RANGED_STYLE else SRC_MAGIC))
    if style == RANGED_STYLE and dmg > 0 and venom_roll < VENOM_CHANCE:
        envenom(s)


@helper
def start_stare(s):
    """The melee form fixes the player's tile for a smash in STARE_TICKS ticks."""
    s.stare = STARE_TICKS
    s.stare_r, s.stare_c = s.row, s.col


@helper
def add_cloud(s, r, c):
    """A cloud on (r, c): refresh one already there, else take a free slot (none free: no cloud)."""
    free = -1
    for k in range(CLOUD_SLOTS):
        if s.cloud_t[k] > 0 and s.cloud_r[k] == r and s.cloud_c[k] == c:
            s.cloud_t[k] = CLOUD_TICKS
            return
        if s.cloud_t[k] == 0 and free < 0:
            free = k
    if free >= 0:
        s.cloud_r[free], s.cloud_c[free], s.cloud_t[free] = r, c, CLOUD_TICKS


@helper
def random_tile(s, min_dist):
    """A uniformly drawn walkable tile at least ``min_dist`` (Chebyshev) from the player."""
    while True:
        r, c = rand_int(s, GRID), rand_int(s, GRID)
        if walkable(r, c) and max(abs(r - s.row), abs(c - s.col)) >= min_dist:
            return r, c


@helper
def dive(s):
    """The boss goes under: clouds, maybe an add, and the next phase begins."""
    s.surfaced, s.timer, s.stare, s.boss_atk = 0, DIVE_TICKS, 0, 0
    s.form, s.pos = -1, -1
    add_cloud(s, np.int64(s.row), np.int64(s.col))
    for _ in range(CLOUDS - 1):
        r, c = random_tile(s, np.int64(0))
        add_cloud(s, r, c)
    if rand_float(s) < ADD_CHANCE:
        for k in range(ADD_SLOTS):
            if s.add_hp[k] == 0:
                s.add_r[k], s.add_c[k] = random_tile(s, np.int64(3))
                s.add_hp[k], s.add_atk[k] = ADD_HP, ADD_SPEED
                break
    s.stage = (s.stage + 1) % PHASES
    s.metrics[PHASES_SEEN] += 1
    s.phase = s.rotation * PHASES + s.stage


@helper
def surface(s):
    """The boss comes up in this phase's form and position and strikes at once."""
    s.form = ROT_FORM[s.rotation, s.stage]
    s.pos = ROT_POS[s.rotation, s.stage]
    s.seen_form[s.stage], s.seen_pos[s.stage] = s.form, s.pos
    s.surfaced, s.timer = 1, SURFACE_TICKS
    if s.form == MELEE_FORM:
        start_stare(s)
    else:
        boss_attack(s, np.bool_(True))
        s.boss_atk = BOSS_SPEED


@helper
def boss_turn(s):
    """Rule step 5."""
    if s.surfaced == 0:
        s.timer -= 1
        if s.timer <= 0:
            surface(s)
        return
    if s.form == MELEE_FORM:
        if s.stare > 0:
            s.stare -= 1
            if s.stare == 0:
                smash = SMASH_MIN + rand_int(s, SMASH_MAX - SMASH_MIN + 1)
                if abs(s.row - s.stare_r) + abs(s.col - s.stare_c) <= 1:
                    hurt(s, smash, np.int64(SRC_SMASH))
                s.boss_atk = SMASH_REST
        else:
            s.boss_atk -= 1
            if s.boss_atk <= 0:
                start_stare(s)
    else:
        s.boss_atk -= 1
        if s.boss_atk <= 0:
            boss_attack(s, np.bool_(False))
            s.boss_atk = BOSS_SPEED
    s.timer -= 1
    if s.timer <= 0:
        dive(s)


@helper
def adds_turn(s):
    """Rule step 6: adds close in every second tick and bite when next to the player."""
    for k in range(ADD_SLOTS):
        if s.add_hp[k] == 0:
            continue
        dr, dc = np.int64(s.row - s.add_r[k]), np.int64(s.col - s.add_c[k])
        if max(abs(dr), abs(dc)) > 1:
            s.add_atk[k] = ADD_SPEED
            if s.tick % 2 == 0:
                r, c = s.add_r[k] + np.sign(dr), s.add_c[k]
                if dr == 0 or not walkable(r, c):
                    r, c = s.add_r[k], s.add_c[k] + np.sign(dc)
                if walkable(r, c):
                    s.add_r[k], s.add_c[k] = r, c
        else:
            s.add_atk[k] -= 1
            if s.add_atk[k] <= 0:
                hurt(s, rand_int(s, ADD_HIT + 1), np.int64(SRC_ADDS))
                s.add_atk[k] = ADD_SPEED


@helper
def clouds_turn(s):
    """Rule step 4: a cloud burns whoever stands in it and may envenom; then clouds age."""
    if cloud_at(s, np.int64(s.row), np.int64(s.col)):
        hurt(s, np.int64(CLOUD_DAMAGE), np.int64(SRC_CLOUDS))
        if rand_float(s) < CLOUD_VENOM:
            envenom(s)
    for k in range(CLOUD_SLOTS):
        if s.cloud_t[k] > 0:
            s.cloud_t[k] -= 1

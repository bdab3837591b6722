"""What the monsters of `gauntlet` do in a tick: spawn, walk, attack, heal, raise, burrow, split; the final boss.

One function per concern, each compiled once (:func:`~sparring.kit.helper`);
the numbers and types are in :mod:`sparring.envs.gauntlet.world`.
"""

import numpy as np

from sparring.envs.gauntlet.legal import cheb, clear_line, covered, open_tile, pillar_at
from sparring.envs.gauntlet.world import (
    ALIVE,
    BAT,
    BLOB,
    BOSS,
    BOSSES_IN_BOSS_WAVE,
    BOSS_C,
    BOSS_CALLED,
    BOSS_HEALERS,
    BOSS_R,
    BOSS_WAVE,
    BURROWED,
    BURROW_AFTER,
    BURROW_TICKS,
    COLS,
    DC,
    DEAD,
    DETOUR,
    DR,
    EMPTY,
    ENRAGE_AT,
    FALL_DAMAGE,
    FALL_MONSTER_DAMAGE,
    FINAL_SPAWN_EVERY,
    FINAL_WAVE,
    HEAL,
    HEALER,
    HEALERS_AT,
    HEALERS_CALLED,
    HEALERS_KILLED,
    HEAL_EVERY,
    HEAL_RANGE,
    HP,
    KILLED_BY,
    LOWEST_HP,
    MAGE,
    MAGIC,
    MAX_HIT,
    MELEE,
    MELEER,
    MONSTER_ACC,
    MOVES,
    NIBBLE,
    NIBBLER,
    NIBBLERS,
    PILLAR,
    PILLARS,
    PILLARS_LOST,
    PILLAR_C,
    PILLAR_R,
    RAISED,
    RAISE_CHANCE,
    RANGE,
    RANGED,
    RANGER,
    ROWS,
    SHIELD_EVERY,
    SHIELD_MAX,
    SHIELD_MIN,
    SLIDE_SHIFT,
    SLOTS,
    SPEED,
    SPLIT,
    SRC_BOSS,
    SRC_MAGIC,
    SRC_MELEE,
    SRC_PILLAR,
    SRC_RANGED,
    SRC_ZUK,
    STYLE,
    SUMMONED,
    SUMMON_AT,
    TAGGED,
    TAKEN,
    TELEGRAPH,
    WAVE_TABLE,
    ZUK,
    ZUK_C,
    ZUK_ENRAGED,
    ZUK_HEALERS,
    ZUK_HIT,
    ZUK_R,
    ZUK_SPEED,
)
from sparring.kit import helper, rand_float, rand_int


@helper
def hurt(s, dmg, src):
    """The player takes ``dmg`` from damage source ``src`` (capped at the hp left)."""
    dmg = min(dmg, np.int64(s.hp))
    if dmg <= 0:
        return
    s.hp -= dmg
    s.last_src = src
    s.metrics[TAKEN + src] += dmg
    if s.hp < s.metrics[LOWEST_HP]:
        s.metrics[LOWEST_HP] = s.hp
    if s.hp == 0:
        s.metrics[KILLED_BY + src] = 1.0


@helper
def spawn(s, kind, r, c, hp):
    """Put a ``kind`` monster with ``hp`` on (r, c) in a free slot (an empty one, else a body's); its slot or -1."""
    k = -1
    for j in range(1, SLOTS):
        if s.m_state[j] == EMPTY:
            k = j
            break
    if k < 0:
        for j in range(1, SLOTS):
            if s.m_state[j] == DEAD:
                k = j
                break
    if k < 0:
        return -1
    s.m_type[k], s.m_state[k], s.m_hp[k], s.m_r[k], s.m_c[k] = kind, ALIVE, hp, r, c
    s.m_atk[k], s.m_idle[k], s.m_flag[k], s.m_tele[k], s.m_style[k], s.m_link[k] = SPEED[kind], 0, 0, 0, 0, -1
    return k


@helper
def free_tile_near(s, r, c, radius):
    """A random open tile within ``radius`` of (r, c), not the player's; (r, c) itself clamped if none is drawn."""
    for _ in range(20):
        nr, nc = r + rand_int(s, 2 * radius + 1) - radius, c + rand_int(s, 2 * radius + 1) - radius
        if open_tile(s, nr, nc) and not (nr == s.row and nc == s.col):
            return nr, nc
    return min(max(r, 0), ROWS - 1), min(max(c, 0), COLS - 1)


@helper
def spawn_wave(s):
    """Monsters of the current wave: the table's in the north, nibblers by pillars, or the bosses."""
    if s.wave == BOSS_WAVE:
        for b in range(BOSSES_IN_BOSS_WAVE):
            k = spawn(s, np.int64(BOSS), BOSS_R[b], BOSS_C[b], HP[BOSS])
            if k >= 0:
                s.m_atk[k] = TELEGRAPH + 2 + 2 * b  # staggered, so that a flicking player can answer each
        return
    if s.wave == FINAL_WAVE:
        s.m_type[0], s.m_state[0], s.m_hp[0], s.m_r[0], s.m_c[0] = ZUK, ALIVE, HP[ZUK], ZUK_R, ZUK_C
        s.m_atk[0], s.m_flag[0], s.m_tele[0], s.m_link[0] = ZUK_SPEED + 4, 0, 0, -1
        s.spawn_t = FINAL_SPAWN_EVERY // 2
        s.zuk_flags = 0
        s.shield_c, s.shield_dir = (SHIELD_MIN + SHIELD_MAX) // 2, 1
        return
    for j in range(WAVE_TABLE.shape[1]):
        kind = WAVE_TABLE[s.wave, j]
        if kind < 0:
            break
        while True:
            r, c = rand_int(s, 12), rand_int(s, COLS)
            if open_tile(s, r, c) and cheb(r, c, s.row, s.col) >= 6:
                break
        spawn(s, kind, r, c, HP[kind])
    for _ in range(NIBBLERS):
        p = rand_int(s, PILLARS)
        if s.pil_hp[p] > 0:
            r, c = free_tile_near(s, PILLAR_R[p] + 1, PILLAR_C[p] + 1, np.int64(2))
            spawn(s, np.int64(NIBBLER), r, c, HP[NIBBLER])


@helper
def kill(s, k):
    """Slot ``k`` dies: a body that a mage may raise, a blob's split, a healer's count."""
    kind = s.m_type[k]
    s.m_hp[k] = 0
    s.m_tele[k] = 0
    s.m_state[k] = DEAD if kind == BAT or kind == MELEER or kind == RANGER else EMPTY
    if kind == HEALER:
        s.metrics[HEALERS_KILLED] += 1
    if kind == BLOB:
        r, c = np.int64(s.m_r[k]), np.int64(s.m_c[k])
        for style in range(3):
            j = spawn(s, np.int64(SPLIT), r, c, HP[SPLIT])
            if j >= 0:
                s.m_style[j] = style


@helper
def damage(s, k, dmg):
    """Slot ``k`` loses ``dmg`` hp and dies at 0; True if it died."""
    if s.m_hp[k] <= dmg:
        kill(s, k)
        return True
    s.m_hp[k] -= dmg
    return False


@helper
def collapse(s, p):
    """Pillar ``p`` falls: it hurts the player and wounds the monsters next to it, never below 1 hp (the kill is the
    player's: a wave never clears itself while the player stands by)."""
    s.pil_hp[p] = 0
    s.metrics[PILLARS_LOST] += 1
    top, left = PILLAR_R[p] - 1, PILLAR_C[p] - 1
    bottom, right = PILLAR_R[p] + PILLAR, PILLAR_C[p] + PILLAR
    if top <= s.row <= bottom and left <= s.col <= right:
        hurt(s, np.int64(FALL_DAMAGE), np.int64(SRC_PILLAR))
    for k in range(1, SLOTS):
        if s.m_state[k] == ALIVE and top <= s.m_r[k] <= bottom and left <= s.m_c[k] <= right:
            s.m_hp[k] = max(1, s.m_hp[k] - FALL_MONSTER_DAMAGE)


@helper
def step_to(s, k, nr, nc):
    """Slot ``k`` steps onto (nr, nc) if it is open and not the player's tile; True if it did."""
    if open_tile(s, nr, nc) and not (nr == s.row and nc == s.col):
        s.m_r[k], s.m_c[k] = nr, nc
        return True
    return False


@helper
def start_detour(s, k, r, c, dr, dc):
    """Slot ``k`` at (r, c) is stuck: its only greedy step (dr, dc) runs into a pillar. Slide along the pillar's
    face towards the nearer corner (a coin when both are as near); False if no pillar is in the way."""
    p = pillar_at(s, r + dr, c + dc)
    if p < 0:
        return False
    if dc == 0:  # the face is a row: slide west (3) or east (4)
        low, high, here, slides = PILLAR_C[p], PILLAR_C[p] + PILLAR, c, (3, 4)
    else:  # the face is a column: slide north (1) or south (2)
        low, high, here, slides = PILLAR_R[p], PILLAR_R[p] + PILLAR, r, (1, 2)
    before, after = here - low + 1, high - here
    pick = 0 if before < after else 1 if after < before else rand_int(s, 2)
    s.m_flag[k] = (s.m_flag[k] & ~(DETOUR | 3 << SLIDE_SHIFT)) | DETOUR | (slides[pick] - 1) << SLIDE_SHIFT
    return True


@helper
def detour(s, k, r, c, dr, dc):
    """One step of slot ``k`` walking round a pillar: a greedy step that does not slide back ends the detour when it
    leaves the pillar's face; else it slides on (turning round at a blocked tile)."""
    m = ((s.m_flag[k] >> SLIDE_SHIFT) & 3) + 1
    sr, sc = DR[m], DC[m]
    for j in range(3):
        nr, nc = r + (dr if j != 2 else 0), c + (dc if j != 1 else 0)
        if (nr != r or nc != c) and (nr - r) * sr + (nc - c) * sc >= 0 and step_to(s, k, nr, nc):
            if (sr == 0 and nr != r) or (sc == 0 and nc != c):
                s.m_flag[k] &= ~(DETOUR | 3 << SLIDE_SHIFT)
            return
    if step_to(s, k, r + sr, c + sc):
        return
    back = m + 1 if m % 2 == 1 else m - 1  # north <-> south, west <-> east
    s.m_flag[k] = (s.m_flag[k] & ~(3 << SLIDE_SHIFT)) | (back - 1) << SLIDE_SHIFT
    step_to(s, k, r + DR[back], c + DC[back])


@helper
def walk(s, k, tr, tc):
    """Slot ``k`` takes one step towards (tr, tc): greedy (diagonal, else along a row or a column), or round the
    pillar that stops it (see :mod:`sparring.envs.gauntlet.world`)."""
    r, c = np.int64(s.m_r[k]), np.int64(s.m_c[k])
    dr, dc = np.sign(tr - r), np.sign(tc - c)
    if s.m_flag[k] & DETOUR:
        detour(s, k, r, c, dr, dc)
        return
    for m in range(3):
        nr, nc = r + (dr if m != 2 else 0), c + (dc if m != 1 else 0)
        if (nr != r or nc != c) and step_to(s, k, nr, nc):
            return
    if (dr == 0) != (dc == 0) and start_detour(s, k, r, c, dr, dc):
        detour(s, k, r, c, dr, dc)


@helper
def can_hit(s, k):
    """Slot ``k`` is within its range of the player with a clear line."""
    d = cheb(np.int64(s.m_r[k]), np.int64(s.m_c[k]), np.int64(s.row), np.int64(s.col))
    reach = RANGE[s.m_type[k]]
    return d <= reach and (
        reach == 1 or clear_line(s, np.int64(s.m_r[k]), np.int64(s.m_c[k]), np.int64(s.row), np.int64(s.col))
    )


@helper
def land(s, style, top, src):
    """An attack of ``style`` (max hit ``top``) reaches the player: the matching prayer blocks it."""
    hit, size = rand_float(s) < MONSTER_ACC, rand_int(s, top + 1)
    if hit and s.prayer != style + 1:
        hurt(s, size, src)


@helper
def raise_body(s):
    """A mage raises one unraised body at half hp; True if there was one."""
    for j in range(1, SLOTS):
        if s.m_state[j] == DEAD and not s.m_flag[j] & RAISED:
            s.m_state[j], s.m_hp[j], s.m_flag[j], s.m_atk[j] = ALIVE, HP[s.m_type[j]] // 2, RAISED, SPEED[s.m_type[j]]
            return True
    return False


@helper
def nearest_pillar(s, k):
    """(pillar, Chebyshev distance from slot ``k`` to its tiles) of the closest standing pillar; (-1, 0) if none."""
    best, best_d = -1, 1 << 30
    for p in range(PILLARS):
        if s.pil_hp[p] <= 0:
            continue
        dr = max(PILLAR_R[p] - s.m_r[k], 0, s.m_r[k] - PILLAR_R[p] - PILLAR + 1)
        dc = max(PILLAR_C[p] - s.m_c[k], 0, s.m_c[k] - PILLAR_C[p] - PILLAR + 1)
        d = max(dr, dc)
        if d < best_d:
            best, best_d = p, d
    return best, best_d


@helper
def monster_turn(s, k):
    """Slot ``k`` (alive or burrowed, not the final boss) acts."""
    kind = s.m_type[k]
    if s.m_state[k] == BURROWED:
        s.m_idle[k] -= 1
        if s.m_idle[k] <= 0:
            for _ in range(8):  # resurface on an open tile beside the player
                m = 1 + rand_int(s, 8)
                r, c = s.row + DR[m], s.col + DC[m]
                if open_tile(s, r, c):
                    s.m_r[k], s.m_c[k] = r, c
                    break
            s.m_state[k], s.m_atk[k], s.m_idle[k] = ALIVE, 2, 0
        return
    if s.m_atk[k] > 0:
        s.m_atk[k] -= 1
    if kind == BOSS and s.m_hp[k] * 2 <= HP[BOSS] and not s.m_flag[k] & SUMMONED:
        s.m_flag[k] |= SUMMONED
        for _ in range(BOSS_HEALERS):
            r, c = free_tile_near(s, np.int64(s.m_r[k]), np.int64(s.m_c[k]), np.int64(2))
            j = spawn(s, np.int64(HEALER), r, c, HP[HEALER])
            if j >= 0:
                s.m_link[j] = k
    if kind == NIBBLER:
        p, d = nearest_pillar(s, k)
        if p >= 0:
            if d > 1:
                walk(s, k, PILLAR_R[p] + 1, PILLAR_C[p] + 1)
            elif s.m_atk[k] == 0:
                s.m_atk[k] = SPEED[kind]
                s.pil_hp[p] = max(0, s.pil_hp[p] - NIBBLE)
                if s.pil_hp[p] == 0:
                    collapse(s, p)
            return
    if kind == HEALER and not s.m_flag[k] & TAGGED:
        b = s.m_link[k]
        if b >= 0 and s.m_state[b] == ALIVE:
            if cheb(s.m_r[k], s.m_c[k], s.m_r[b], s.m_c[b]) > HEAL_RANGE:
                walk(s, k, np.int64(s.m_r[b]), np.int64(s.m_c[b]))
            elif s.m_atk[k] == 0:
                s.m_atk[k] = HEAL_EVERY
                s.m_hp[b] = min(HP[s.m_type[b]], s.m_hp[b] + HEAL)
            return
    can = can_hit(s, k)
    if kind == MELEER:
        if cheb(s.m_r[k], s.m_c[k], s.row, s.col) > 1:
            s.m_idle[k] += 1
            if s.m_idle[k] >= BURROW_AFTER:
                s.m_state[k], s.m_idle[k], s.m_tele[k] = BURROWED, BURROW_TICKS, 0
                if s.target == k:
                    s.target = -1
                return
        else:
            s.m_idle[k] = 0
    if kind == BLOB or kind == BOSS:
        if s.m_tele[k] > 0:  # an attack on its way lands whatever happens meanwhile
            if s.m_atk[k] == 0:
                src = SRC_BOSS if kind == BOSS else SRC_RANGED if s.m_tele[k] == RANGED + 1 else SRC_MAGIC
                land(s, np.int64(s.m_tele[k] - 1), MAX_HIT[kind], np.int64(src))
                s.m_tele[k], s.m_atk[k] = 0, SPEED[kind]
            return
        lead = 1 if kind == BLOB else TELEGRAPH
        if can and s.m_atk[k] <= lead:
            if kind == BLOB:  # reads the prayer: attacks with a style the player is not praying
                if s.prayer == RANGED + 1:
                    style = MAGIC
                elif s.prayer == MAGIC + 1:
                    style = RANGED
                else:
                    style = RANGED if rand_int(s, 2) == 0 else MAGIC
            else:
                style = RANGED if rand_int(s, 2) == 0 else MAGIC
            s.m_tele[k], s.m_atk[k] = style + 1, lead
            return
    elif can and s.m_atk[k] == 0:
        s.m_atk[k] = SPEED[kind]
        if kind == MAGE and rand_float(s) < RAISE_CHANCE and raise_body(s):
            return
        style = s.m_style[k] if kind == SPLIT else STYLE[kind] if STYLE[kind] >= 0 else MELEE
        land(s, style, MAX_HIT[kind], np.int64(SRC_MELEE + style))
        return
    if not can:
        for _ in range(MOVES[kind]):
            walk(s, k, np.int64(s.row), np.int64(s.col))
            if can_hit(s, k):
                break
        s.m_atk[k] = max(s.m_atk[k], 1)  # a monster that walked attacks next tick at the earliest


@helper
def final_boss_turn(s):
    """The shield moves; the big hit, timed spawns, the summon, the healers and the enrage."""
    if s.tick % SHIELD_EVERY == 0:
        if s.shield_c + s.shield_dir > SHIELD_MAX or s.shield_c + s.shield_dir < SHIELD_MIN:
            s.shield_dir = -s.shield_dir
        s.shield_c += s.shield_dir
    enraged = s.m_hp[0] <= ENRAGE_AT * HP[ZUK]
    s.m_atk[0] -= 1
    if s.m_atk[0] <= 0:
        s.m_atk[0] = ZUK_ENRAGED if enraged else ZUK_SPEED
        if not covered(s, np.int64(s.row), np.int64(s.col)):
            hurt(s, np.int64(ZUK_HIT), np.int64(SRC_ZUK))
    s.spawn_t -= 1
    if s.spawn_t <= 0:
        s.spawn_t = FINAL_SPAWN_EVERY
        spawn(s, np.int64(RANGER), np.int64(2), np.int64(ZUK_C - 5), HP[RANGER])
        spawn(s, np.int64(MAGE), np.int64(2), np.int64(ZUK_C + 5), HP[MAGE])
    if not s.zuk_flags & BOSS_CALLED and s.m_hp[0] <= SUMMON_AT * HP[ZUK]:
        s.zuk_flags |= BOSS_CALLED
        spawn(s, np.int64(BOSS), np.int64(3), np.int64(ZUK_C), HP[BOSS])
    if not s.zuk_flags & HEALERS_CALLED and s.m_hp[0] <= HEALERS_AT * HP[ZUK]:
        s.zuk_flags |= HEALERS_CALLED
        for h in range(ZUK_HEALERS):
            j = spawn(s, np.int64(HEALER), np.int64(0), np.int64(ZUK_C - 3 + 2 * h), HP[HEALER])
            if j >= 0:
                s.m_link[j] = 0


@helper
def monsters_turn(s):
    """Every monster acts in slot order, then the final boss."""
    for k in range(1, SLOTS):
        if s.m_state[k] == ALIVE or s.m_state[k] == BURROWED:
            monster_turn(s, k)
    if s.wave == FINAL_WAVE and s.m_state[0] == ALIVE:
        final_boss_turn(s)

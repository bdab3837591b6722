"""The observation and mask rows of `serpent`.

Observation (174 floats in [-1, 1]): the player (tile, hp, prayer points,
supplies, venom, prayer, gear, timers); the boss (hp, up or diving, ticks
left, form and position while up, attack timer, stare, range and distance);
for each move (stay, north, south, west, east) the tile it leads to: walkable,
for each of the four positions whether it is a safespot and in attack range,
clouded, under a smash; the adds (alive, offset, hp); the phase index
and the forms and positions seen at each phase index so far (a player's
memory: the rotation must be inferred from it); the tick fraction.
The mask is :func:`sparring.envs.serpent.legal.write_mask`.
"""

import numpy as np

from sparring.envs.serpent.legal import boss_distance, in_smash, shadowed, walkable, write_mask
from sparring.envs.serpent.world import (
    ADD_HP,
    ADD_SLOTS,
    ANTIVENOM_DOSES,
    ANTIVENOM_TICKS,
    BOSS_SPEED,
    CLOUD_SLOTS,
    DC,
    DR,
    EAT_TICKS,
    GO_EAST,
    GO_NORTH,
    GO_SOUTH,
    GO_WEST,
    GRID,
    MAX_HP,
    PHASES,
    PRAY_MAX,
    PRAYER_DOSES,
    RANGE,
    SPEED,
    STARE_TICKS,
    STAY,
    SURFACE_TICKS,
    VENOM_EVERY,
    VENOM_MAX,
)
from sparring.kit import helper

CANDIDATE_OBS = 11
OBS_SIZE = 16 + 14 + 5 * CANDIDATE_OBS + 4 * ADD_SLOTS + PHASES + 7 * PHASES + 1


def _tile_table() -> np.ndarray:
    """Per tile (with a border of water): walkable, then safespot and in range for each position; zeros off it."""
    table = np.zeros((GRID + 2, GRID + 2, 9), np.float32)
    for r in range(GRID):
        for c in range(GRID):
            if walkable.py_func(r, c):
                table[r + 1, c + 1, 0] = 1.0
                for p in range(4):
                    table[r + 1, c + 1, 1 + p] = shadowed.py_func(p, r, c)
                    table[r + 1, c + 1, 5 + p] = boss_distance.py_func(p, r, c) <= RANGE
    return table


TILE_OBS = _tile_table()


@helper
def candidate_obs(s, row, k):
    """For each move, the tile it leads to: walkable, safespot and in range per position, cloud, smash."""
    for m in range(5):
        r, c = s.row + DR[m], s.col + DC[m]
        j = k + m * CANDIDATE_OBS
        for f in range(9):
            row[j + f] = TILE_OBS[r + 1, c + 1, f]
        if row[j] > 0.0 and in_smash(s, r, c):
            row[j + 10] = 1.0
    for q in range(CLOUD_SLOTS):
        if s.cloud_t[q] > 0:
            dr, dc = s.cloud_r[q] - s.row, s.cloud_c[q] - s.col
            if abs(dr) + abs(dc) <= 1:
                m = GO_NORTH if dr < 0 else GO_SOUTH if dr > 0 else GO_WEST if dc < 0 else GO_EAST if dc > 0 else STAY
                row[k + m * CANDIDATE_OBS + 9] = 1.0
    return k + 5 * CANDIDATE_OBS


@helper
def write_obs(s, cfg, obs, mask):
    """The observation row and the mask row."""
    row = obs[0]
    row[:] = 0.0
    span = GRID - 1
    row[0], row[1], row[2], row[3] = s.row / span, s.col / span, s.hp / MAX_HP, s.pp / PRAY_MAX
    row[4], row[5], row[6] = s.food / max(1, cfg.food), s.doses / PRAYER_DOSES, s.antivenom / ANTIVENOM_DOSES
    row[7], row[8], row[9] = s.venom / VENOM_MAX, s.venom_t / VENOM_EVERY, s.venom_immune / ANTIVENOM_TICKS
    if s.prayer > 0:
        row[9 + s.prayer] = 1.0
    row[12 + s.gear] = 1.0
    row[14], row[15] = s.atk / SPEED, s.eat / EAT_TICKS
    row[16], row[17], row[18] = s.boss_hp / cfg.boss_hp, s.surfaced, s.timer / SURFACE_TICKS
    if s.surfaced == 1:
        row[19 + s.form] = 1.0
        row[22 + s.pos] = 1.0
        d = boss_distance(s.pos, s.row, s.col)
        row[28] = 1.0 if d <= RANGE else 0.0
        row[29] = d / (GRID + 1)
    row[26], row[27] = s.boss_atk / BOSS_SPEED, s.stare / STARE_TICKS
    k = candidate_obs(s, row, 30)
    for a in range(ADD_SLOTS):
        if s.add_hp[a] > 0:
            row[k] = 1.0
            row[k + 1] = (s.add_r[a] - s.row) / span
            row[k + 2] = (s.add_c[a] - s.col) / span
            row[k + 3] = s.add_hp[a] / ADD_HP
        k += 4
    row[k + s.stage] = 1.0
    k += PHASES
    for p in range(PHASES):
        if s.seen_form[p] >= 0:
            row[k + 3 * p + s.seen_form[p]] = 1.0
            row[k + 3 * PHASES + 4 * p + s.seen_pos[p]] = 1.0
    row[k + 7 * PHASES] = s.tick / cfg.max_ticks
    write_mask(s, mask[0])

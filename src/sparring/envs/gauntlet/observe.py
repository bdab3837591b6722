"""The observation and mask rows of `gauntlet`.

Observation (370 floats in [-1, 1]): the player (tile, hp, prayer points,
prayer, gear, weapon timer, doses, target set, behind the shield); pillar hp;
wave, gap, the final boss's stage, the boss wave flag; shield column and
direction, the final boss's hit timer, enrage, spawn timer; the forecast of
max hits landing in each of the next ``FORECAST`` ticks per style (melee,
ranged, magic, a blob's or boss's style still undecided); then per monster slot
the type, alive/burrowed/dead, hp, offset and distance from the player, attack
timer, telegraphed style, in sight, in reach, targeted, tagged and a small blob's style.
The mask is :func:`sparring.envs.gauntlet.legal.write_mask`.
"""

import numpy as np

from sparring.envs.gauntlet.legal import covered, in_reach, write_mask
from sparring.envs.gauntlet.monsters import can_hit
from sparring.envs.gauntlet.rules import final_stage
from sparring.envs.gauntlet.world import (
    ALIVE,
    BLOB,
    BOSS,
    BOSS_WAVE,
    COLS,
    DEAD,
    EMPTY,
    ENRAGE_AT,
    FINAL_SPAWN_EVERY,
    FINAL_WAVE,
    FORECAST,
    HEALER,
    HEALS,
    HP,
    MAX_HIT,
    MAX_HP,
    MELEE,
    NIBBLER,
    PILLAR_HP,
    PILLARS,
    PRAY_MAX,
    RESTORES,
    ROWS,
    SLOTS,
    SPLIT,
    STYLE,
    TAGGED,
    TELEGRAPH,
    TYPES,
    WAVE_GAP,
    WAVES,
    ZUK,
    ZUK_SPEED,
)
from sparring.kit import helper

SLOT_OBS = TYPES + 17
HEAD_OBS = 46
OBS_SIZE = HEAD_OBS + SLOTS * SLOT_OBS


@helper
def fill_forecast(s, out, off):
    """``out[off + 4 * t + style]``: max hits (over MAX_HP) landing ``t + 1`` ticks from now, per style.

    Styles: melee, ranged, magic, and 3 for a blob's or boss's attack whose style is not chosen yet.
    """
    for j in range(4 * FORECAST):
        out[off + j] = 0.0
    for k in range(1, SLOTS):
        if s.m_state[k] != ALIVE:
            continue
        kind = s.m_type[k]
        if kind == HEALER and not s.m_flag[k] & TAGGED:
            continue
        if kind == NIBBLER and s.pil_hp[0] + s.pil_hp[1] + s.pil_hp[2] > 0:
            continue
        t = max(np.int64(s.m_atk[k]), 1) - 1
        if t >= FORECAST:
            continue
        if s.m_tele[k] > 0:
            out[off + 4 * t + s.m_tele[k] - 1] += MAX_HIT[kind] / MAX_HP
        elif can_hit(s, k):
            if kind == BOSS:
                t = max(np.int64(s.m_atk[k]) - 1, np.int64(TELEGRAPH))
                if t < FORECAST:
                    out[off + 4 * t + 3] += MAX_HIT[kind] / MAX_HP
            elif kind == BLOB:
                t = max(t, np.int64(1))
                if t < FORECAST:
                    out[off + 4 * t + 3] += MAX_HIT[kind] / MAX_HP
            else:
                style = s.m_style[k] if kind == SPLIT else STYLE[kind] if STYLE[kind] >= 0 else MELEE
                out[off + 4 * t + style] += MAX_HIT[kind] / MAX_HP
    for j in range(4 * FORECAST):
        out[off + j] = min(out[off + j], 1.0)


@helper
def write_obs(s, cfg, obs, mask):
    """The observation row and the mask row."""
    row = obs[0]
    row[:] = 0.0
    row[0], row[1], row[2], row[3] = s.row / (ROWS - 1), s.col / (COLS - 1), s.hp / MAX_HP, s.pp / PRAY_MAX
    if s.prayer > 0:
        row[3 + s.prayer] = 1.0
    row[7 + s.gear] = 1.0
    row[9], row[10], row[11] = s.atk / 6.0, s.heals / HEALS, s.restores / RESTORES
    row[12] = 1.0 if s.target >= 0 else 0.0
    row[13] = 1.0 if covered(s, np.int64(s.row), np.int64(s.col)) else 0.0
    for p in range(PILLARS):
        row[14 + p] = s.pil_hp[p] / PILLAR_HP
    row[17], row[18] = s.wave / WAVES, s.gap / WAVE_GAP
    if s.wave == FINAL_WAVE:
        row[19 + final_stage(s)] = 1.0
        row[25], row[26] = s.shield_c / (COLS - 1), s.shield_dir
        row[27] = min(1.0, s.m_atk[0] / (ZUK_SPEED + 4))
        row[28] = 1.0 if s.m_hp[0] <= ENRAGE_AT * HP[ZUK] else 0.0
        row[29] = s.spawn_t / FINAL_SPAWN_EVERY
    row[24] = 1.0 if s.wave == BOSS_WAVE else 0.0
    fill_forecast(s, row, np.int64(30))
    for k in range(SLOTS):
        j = HEAD_OBS + k * SLOT_OBS
        state = s.m_state[k]
        if state == EMPTY:
            continue
        kind = s.m_type[k]
        row[j + kind] = 1.0
        j += TYPES
        row[j + state - 1] = 1.0  # alive, dead, burrowed
        if state == DEAD:
            continue
        row[j + 3] = s.m_hp[k] / HP[kind]
        dr, dc = s.m_r[k] - s.row, s.m_c[k] - s.col
        row[j + 4], row[j + 5] = dr / (ROWS + 2), dc / (COLS + 2)
        row[j + 6] = min(1.0, max(abs(dr), abs(dc)) / (ROWS + 2))
        row[j + 7] = min(1.0, s.m_atk[k] / 16.0)
        if s.m_tele[k] > 1:
            row[j + 6 + s.m_tele[k]] = 1.0  # ranged at j + 8, magic at j + 9
        row[j + 10] = s.m_vis[k]
        row[j + 11] = 1.0 if in_reach(s, k) else 0.0
        row[j + 12] = 1.0 if s.target == k else 0.0
        row[j + 13] = 1.0 if s.m_flag[k] & TAGGED else 0.0
        if kind == SPLIT:
            row[j + 14 + s.m_style[k]] = 1.0
    write_mask(s, mask[0])

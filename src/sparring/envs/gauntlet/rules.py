"""The tick of `gauntlet`: a fresh run, and one tick of the player's actions, the monsters and the waves.

Within a tick the rules resolve in this order:

1. Actions the mask forbids become their head's no-op. Prayer, gear, target and
   supplies change: a heal dose restores ``HEAL_HP`` and delays the weapon to at
   least ``HEAL_DELAY`` ticks; a restore dose gives ``RESTORE_PP`` prayer points.
   A target must be an alive monster in line of sight.
2. The player attacks the target if the weapon is ready and the worn gear
   reaches it; attacking a healer tags it. A kill of the final boss ends the
   run (+1).
3. The player moves one tile (8 directions) onto an open tile without a monster.
4. Monsters act in slot order, then the final boss (see :mod:`sparring.envs.gauntlet.world`
   and :mod:`sparring.envs.gauntlet.monsters`). Protection prayers block all damage
   of their style, except the final boss's big hit, which only the shield stops.
5. Prayer drains one point every ``DRAIN_EVERY`` ticks prayed; the weapon cools.
6. A wave whose monsters are all dead is cleared (``reward_wave``, 0 by default);
   the next one spawns ``WAVE_GAP`` ticks later.
7. A player at 0 hp dies (the ``death`` penalty). Reaching the tick limit ends
   the run the same way (metric ``timed_out``): a limit that paid more than a
   death would teach stalling. (Monsters walk round pillars, so standing still
   behind one is not safe either.)

The numbers are in :mod:`sparring.envs.gauntlet.world`.
"""

import numpy as np

from sparring.envs.gauntlet.legal import allowed, in_reach, update_visibility
from sparring.envs.gauntlet.monsters import damage, monsters_turn, spawn_wave
from sparring.envs.gauntlet.world import (
    ALIVE,
    BEFORE_SUMMON,
    BOSS_CALLED,
    BURROWED,
    DC,
    DR,
    DRAIN_EVERY,
    DRINK_HEAL,
    DRINK_RESTORE,
    EMPTY,
    ENRAGE_AT,
    ENRAGED,
    FINAL_WAVE,
    FLAT,
    GEAR,
    GEAR_MAX,
    GEAR_SPEED,
    HEAL_DELAY,
    HEAL_HP,
    HEALER,
    HEALERS_CALLED,
    HEALERS_TAGGED,
    HEALING,
    HEALS,
    HEALS_USED,
    HP,
    LOWEST_HP,
    MAX_HP,
    MOVE,
    PILLAR_HP,
    PILLARS,
    PLAIN_ACC,
    POST_HEALERS,
    PRAY_MAX,
    PRAY_OFF,
    PRAYER,
    PROGRESS,
    RESTORE_PP,
    RESTORES,
    RESTORES_USED,
    SHAPING_HP,
    SHAPING_WASTE,
    SHAPING_WAVE,
    SLOTS,
    START_C,
    START_R,
    SUMMONING,
    SUPPLIES_WASTED,
    SUPPLY,
    TAGGED,
    TARGET,
    TIMED_OUT,
    WAVE_GAP,
    WAVE_REACHED,
    WAVES,
    WEAK,
    WEAK_ACC,
    WIN,
    ZUK,
)
from sparring.kit import helper, kernel, rand_float, rand_int


@kernel
def final_stage(s):
    """The final boss's stage (before-summon .. enrage), from its flags and hp."""
    if s.m_hp[0] <= ENRAGE_AT * HP[ZUK]:
        return ENRAGED
    if s.zuk_flags & HEALERS_CALLED:
        for k in range(1, SLOTS):
            if s.m_state[k] == ALIVE and s.m_type[k] == HEALER:
                return HEALING
        return POST_HEALERS
    if s.zuk_flags & BOSS_CALLED:
        return SUMMONING
    return BEFORE_SUMMON


@kernel
def phase_of(s):
    """Phase index: one per regular wave, the multi-boss wave, then the final boss's five stages."""
    if s.wave < FINAL_WAVE:
        return s.wave - 1
    return FINAL_WAVE - 1 + final_stage(s)


@helper
def worn_player(s, wave):
    """A plausible player arriving at ``wave``: hp, prayer, doses and pillars spent in proportion to the waves
    behind (uniformly up to a share that grows with the wave)."""
    f = (wave - 1) / (WAVES - 1)
    s.hp = MAX_HP - rand_int(s, 1 + int(40 * f))
    s.pp = PRAY_MAX - rand_int(s, 1 + int(60 * f))
    s.heals = HEALS - rand_int(s, 1 + int(0.7 * HEALS * f))
    s.restores = RESTORES - rand_int(s, 1 + int(0.7 * RESTORES * f))
    for p in range(PILLARS):
        if rand_float(s) < 0.4 * f:
            s.pil_hp[p] = 0
        else:
            s.pil_hp[p] = PILLAR_HP - rand_int(s, 1 + int(150 * f))


@helper
def new_run(s, cfg):
    """The player at the south, pillars whole, the first wave (or a later one, worn) spawned."""
    s.row, s.col, s.hp, s.pp, s.heals, s.restores = START_R, START_C, MAX_HP, PRAY_MAX, HEALS, RESTORES
    s.target, s.last_src = -1, -1
    for p in range(PILLARS):
        s.pil_hp[p] = PILLAR_HP
    s.wave = min(WAVES, cfg.start_wave + rand_int(s, cfg.start_spread + 1))
    if s.wave > 1:
        worn_player(s, np.int64(s.wave))
    s.metrics[WAVE_REACHED] = s.wave
    s.metrics[LOWEST_HP] = s.hp
    spawn_wave(s)
    update_visibility(s)
    s.phase = phase_of(s)


@helper
def player_turn(s, act):
    """Rule steps 1-3; True if the final boss died."""
    move, prayer, gear = allowed(s, act, MOVE), allowed(s, act, PRAYER), allowed(s, act, GEAR)
    target, supply = allowed(s, act, TARGET), allowed(s, act, SUPPLY)
    if prayer == PRAY_OFF:
        s.prayer = 0
    elif prayer > 0:
        s.prayer = prayer
    if gear > 0:
        s.gear = gear - 1
    if target > 0:
        s.target = target - 1
    if supply == DRINK_HEAL:
        s.metrics[SUPPLIES_WASTED] += max(0, s.hp + HEAL_HP - MAX_HP)
        s.hp, s.heals = min(MAX_HP, s.hp + HEAL_HP), s.heals - 1
        s.atk = max(s.atk, HEAL_DELAY)
        s.metrics[HEALS_USED] += 1
    elif supply == DRINK_RESTORE:
        s.metrics[SUPPLIES_WASTED] += max(0, s.pp + RESTORE_PP - PRAY_MAX)
        s.pp, s.restores = min(PRAY_MAX, s.pp + RESTORE_PP), s.restores - 1
        s.metrics[RESTORES_USED] += 1
    k = s.target
    won = False
    if k >= 0 and s.atk == 0 and s.m_state[k] == ALIVE and s.m_vis[k] == 1 and in_reach(s, k):
        s.atk = GEAR_SPEED[s.gear]
        kind = s.m_type[k]
        if kind == HEALER and not s.m_flag[k] & TAGGED:
            s.m_flag[k] |= TAGGED
            s.metrics[HEALERS_TAGGED] += 1
        roll, size = rand_float(s), rand_int(s, GEAR_MAX[s.gear] + 1)
        if roll < (WEAK_ACC if WEAK[kind] == s.gear else PLAIN_ACC) and size > 0:
            won = damage(s, k, np.int64(size)) and kind == ZUK
    s.row += DR[move]
    s.col += DC[move]
    return won


@helper
def end_of_tick(s, cfg, rew):
    """Rule steps 5 and 6: prayer drain, weapon, wave clears and spawns."""
    if s.prayer > 0:
        s.drain += 1
        if s.drain >= DRAIN_EVERY:
            s.drain = 0
            s.pp -= 1
            if s.pp <= 0:
                s.pp, s.prayer = 0, 0
    if s.atk > 0:
        s.atk -= 1
    if s.gap > 0:
        s.gap -= 1
        if s.gap == 0:
            spawn_wave(s)
        return
    if s.wave == FINAL_WAVE:
        return
    for k in range(SLOTS):
        if s.m_state[k] == ALIVE or s.m_state[k] == BURROWED:
            return
    rew[0] += cfg.reward_wave
    s.metrics[SHAPING_WAVE] += cfg.reward_wave
    for k in range(SLOTS):
        s.m_state[k] = EMPTY
    s.target = -1
    s.wave += 1
    s.metrics[WAVE_REACHED] = s.wave
    s.gap = WAVE_GAP


@kernel
def resolve_tick(s, cfg, act, rew, term):
    """One tick of the rules (see the module docstring).

    A kernel: ``step`` is its only caller and is inlined once into the kit's step loop, so the rules are
    not also compiled and LLVM-optimised as a function of their own (a shorter cold compile).
    """
    hp, wasted = np.int64(s.hp), s.metrics[SUPPLIES_WASTED]
    if player_turn(s, act):
        rew[0] += 1.0
        s.metrics[WIN] = 1.0
        term[0] = True
        s.phase = phase_of(s)
        return
    monsters_turn(s)
    if cfg.reward_hp != 0.0:
        change = cfg.reward_hp * (np.int64(s.hp) - hp) / MAX_HP
        rew[0] += change
        s.metrics[SHAPING_HP] += change
    if cfg.reward_waste != 0.0:
        penalty = cfg.reward_waste * (s.metrics[SUPPLIES_WASTED] - wasted) / MAX_HP
        rew[0] -= penalty
        s.metrics[SHAPING_WASTE] -= penalty
    end_of_tick(s, cfg, rew)
    update_visibility(s)
    s.phase = phase_of(s)
    timed_out = s.hp > 0 and s.tick >= cfg.max_ticks
    if s.hp == 0 or timed_out:
        if cfg.death == FLAT:
            rew[0] -= 1.0
        elif cfg.death == PROGRESS:
            rew[0] -= 1.0 - (s.wave - 1) / WAVES
        s.metrics[TIMED_OUT] = 1.0 if timed_out else 0.0
        term[0] = True

"""The tick of `serpent`: a fresh fight, and one tick of the player's actions and the boss's answer.

Within a tick the rules resolve in this order:

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
5. The boss acts: surfaces, attacks, stares, smashes or dives (the fight is told in
   :mod:`sparring.envs.serpent.world`).
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
9. A player at 0 hp dies (the config's death penalty). Reaching the tick limit
   ends the fight the same way, with the same penalty for the same damage dealt
   (a terminal; metric ``timed_out``): a limit that paid more than a death would
   teach a player to dodge without attacking until the time runs out.

Steps 4 to 6 are in :mod:`sparring.envs.serpent.boss`.
"""

import numpy as np

from sparring.envs.serpent.boss import adds_turn, boss_turn, clouds_turn, hurt
from sparring.envs.serpent.legal import allowed, nearest_add
from sparring.envs.serpent.world import (
    ADD_PLAYER_CHANCE,
    ADD_PLAYER_MAX,
    ANTIVENOM,
    ANTIVENOM_DOSES,
    ANTIVENOM_TICKS,
    ANTIVENOM_USED,
    ATTACK,
    ATTACK_ADD,
    DC,
    DEALT,
    DIVE_TICKS,
    DOSE_RESTORE,
    DOSES_USED,
    DR,
    DRAIN_EVERY,
    EAT,
    EAT_DELAY,
    EAT_TICKS,
    FOOD_EATEN,
    FOOD_HEAL,
    GEAR,
    IMMUNE,
    KILL_TIME,
    MAX_HP,
    MINUS_ONE,
    MOVE,
    PHASES,
    PLAIN_CHANCE,
    PLAIN_MAX,
    PRAY_MAX,
    PRAY_OFF,
    PRAYER,
    PRAYER_DOSE,
    PRAYER_DOSES,
    PROGRESS,
    ROTATIONS,
    SHAPING_DAMAGE,
    SPEED,
    SRC_VENOM,
    START_COL,
    START_ROW,
    SUPPLY,
    TIMED_OUT,
    VENOM_EVERY,
    VENOM_MAX,
    VENOM_STEP,
    WEAK_CHANCE,
    WEAK_MAX,
    WEAKNESS,
    WIN,
)
from sparring.kit import helper, kernel, rand_float, rand_int


@helper
def new_fight(s, cfg):
    """Full player in the middle; the boss under water, about to surface in phase 1 of a random rotation."""
    s.row, s.col = START_ROW, START_COL
    s.hp, s.pp, s.food = MAX_HP, PRAY_MAX, cfg.food
    s.doses, s.antivenom = PRAYER_DOSES, ANTIVENOM_DOSES
    s.rotation = rand_int(s, ROTATIONS)
    s.boss_hp = cfg.boss_hp
    s.timer = DIVE_TICKS
    s.form, s.pos = -1, -1
    for k in range(PHASES):
        s.seen_form[k] = -1
        s.seen_pos[k] = -1
    s.phase = s.rotation * PHASES


@helper
def use_supplies(s, cfg, prayer, gear, supply):
    """Rule step 1 with legal head values."""
    if prayer == PRAY_OFF:
        s.prayer = 0
    elif prayer > 0:
        s.prayer = prayer
    if gear > 0:
        s.gear = gear - 1
    if supply == EAT:
        s.hp = min(MAX_HP, s.hp + FOOD_HEAL)
        s.food -= 1
        s.eat = EAT_TICKS
        s.atk = max(s.atk, EAT_DELAY)
        s.metrics[FOOD_EATEN] += 1
    elif supply == PRAYER_DOSE:
        s.pp = min(PRAY_MAX, s.pp + DOSE_RESTORE)
        s.doses -= 1
        s.metrics[DOSES_USED] += 1
    elif supply == ANTIVENOM:
        s.venom, s.venom_t = 0, 0
        s.venom_immune = ANTIVENOM_TICKS
        s.antivenom -= 1
        s.metrics[ANTIVENOM_USED] += 1


@helper
def player_attack(s, cfg, target, rew):
    """Rule step 2: hit the boss or the nearest add with the worn gear's style; True if the boss died."""
    s.atk = SPEED
    roll, size = rand_float(s), rand_int(s, 1 << 20)
    if target == ATTACK_ADD:
        k = nearest_add(s)
        if roll < ADD_PLAYER_CHANCE:
            s.add_hp[k] = max(0, s.add_hp[k] - (1 + size % ADD_PLAYER_MAX))
        return False
    style = s.gear
    if IMMUNE[s.form] == style:
        return False
    weak = WEAKNESS[s.form] == style
    chance, top = (WEAK_CHANCE, WEAK_MAX) if weak else (PLAIN_CHANCE, PLAIN_MAX)
    if roll >= chance:
        return False
    dmg = min(np.int64(s.boss_hp), size % (top + 1))
    s.boss_hp -= dmg
    s.metrics[DEALT] += dmg
    shaping = cfg.reward_damage * dmg / cfg.boss_hp
    rew[0] += shaping
    s.metrics[SHAPING_DAMAGE] += shaping
    return s.boss_hp == 0


@helper
def venom_and_timers(s):
    """Rule steps 7 and 8: venom, cooldowns and prayer drain."""
    if s.venom > 0:
        s.venom_t -= 1
        if s.venom_t <= 0:
            hurt(s, np.int64(s.venom), np.int64(SRC_VENOM))
            s.venom = min(VENOM_MAX, s.venom + VENOM_STEP)
            s.venom_t = VENOM_EVERY
    if s.venom_immune > 0:
        s.venom_immune -= 1
    if s.atk > 0:
        s.atk -= 1
    if s.eat > 0:
        s.eat -= 1
    if s.prayer > 0:
        s.drain += 1
        if s.drain >= DRAIN_EVERY:
            s.drain = 0
            s.pp -= 1
            if s.pp <= 0:
                s.pp, s.prayer = 0, 0


@kernel
def resolve_tick(s, cfg, act, rew, term):
    """One tick of the rules (see the module docstring).

    A kernel: ``step`` is its only caller and is inlined once into the kit's step loop, so the rules are
    not also compiled and LLVM-optimised as a function of their own (a shorter cold compile).
    """
    move, prayer, gear = allowed(s, act, MOVE), allowed(s, act, PRAYER), allowed(s, act, GEAR)
    attack, supply = allowed(s, act, ATTACK), allowed(s, act, SUPPLY)
    use_supplies(s, cfg, prayer, gear, supply)
    if attack > 0 and supply != EAT and player_attack(s, cfg, attack, rew):
        rew[0] += 1.0
        s.metrics[WIN] = 1.0
        s.metrics[KILL_TIME] = s.tick
        term[0] = True
        return
    s.row += DR[move]
    s.col += DC[move]
    clouds_turn(s)
    boss_turn(s)
    adds_turn(s)
    venom_and_timers(s)
    timed_out = s.hp > 0 and s.tick >= cfg.max_ticks
    if s.hp == 0 or timed_out:
        if cfg.death == MINUS_ONE:
            rew[0] -= 1.0
        elif cfg.death == PROGRESS:
            rew[0] -= 1.0 - s.metrics[DEALT] / cfg.boss_hp
        s.metrics[TIMED_OUT] = 1.0 if timed_out else 0.0
        term[0] = True

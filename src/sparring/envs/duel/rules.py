"""The tick of `duel`: a fresh fight, and one tick of both fighters' actions.

One tick per step; both fighters act at once. Forbidden head values become the
head's no-op first; the scripted seat 1 (when ``opponent`` is not ``learner``)
chooses inside the tick. Then the rules resolve in this order:

1. Prayers change. A protection prayer cuts the damage of its style by 60%
   (to ``PRAYED_NUM`` / ``PRAYED_DEN`` = 2/5 of the roll), not to zero. It drains 1 point every
   second tick; at 0 points it switches off. A potion dose restores 15 points.
2. Eating. Food heals 20, combo food 18; both can be eaten in one tick for the
   delay of one. Eating blocks further eating for 3 ticks and sets the attack
   timer to at least 3 ticks: eaten right after an attack it costs nothing,
   eaten when the weapon is ready it delays the attack by 3 ticks.
3. Pending hits whose projectile time runs out land (damage, freeze); eating
   this tick comes first, so a fighter can eat against a visible projectile.
4. A fighter at 0 hp loses (+1 / -1); both at once is a draw (0).
5. Attacks launch: attacking with a style equips that style's gear, then the
   accuracy and damage are rolled against the defender's gear and prayer as
   they are now (after this tick's switches). A fighter praying against the
   gear it sees is therefore caught by a style switch on the attacker's ready
   tick. Damage lands later: melee next tick, ranged after 1 + d // 3 ticks,
   magic after 1 + (d + 1) // 3 ticks (d: Chebyshev distance at launch).
6. Movement (one tile north/south/west/east) unless frozen; a fighter cannot
   step onto the other's tile, and two steps onto the same tile both fail.
7. Timers run down; special energy regenerates 1 point every second tick.
8. The tick limit ends the fight as a loss for both fighters (-1 each, a terminal;
   metric ``timed_out``, neither ``win`` nor ``draw``): a limit that paid more than
   a loss would teach a fighter that is behind to run out the clock instead of
   fighting, and one that paid a win on remaining hp would teach the one ahead to.

The numbers are in :mod:`sparring.envs.duel.world`.
"""

import numpy as np

from sparring.envs.duel.legal import delay, distance, hit_chance, legalize, target
from sparring.envs.duel.scripted import random_play, reactive_play, robot_play, tribrid_play
from sparring.envs.duel.world import (
    ARENA,
    COMBO,
    COMBO_HEAL,
    COMBOS,
    DEALT,
    DRAW,
    EAT,
    EAT_BOTH,
    EAT_DELAY,
    EAT_TICKS,
    EATEN,
    FINISH,
    FOOD,
    FOOD_HEAL,
    FOODS,
    FREEZE_TICKS,
    FREEZES,
    IMMUNE_TICKS,
    LEARNER,
    LOW_HP,
    MAGIC,
    MAX_HIT,
    MAX_HP,
    MELEE,
    MOVE,
    OPENING,
    POT_RESTORE,
    POTION,
    POTS,
    PRAY_MAX,
    PRAY_OFF,
    PRAYED,
    PRAYED_DEN,
    PRAYED_NUM,
    PRAYER,
    RANDOM,
    REACTIVE,
    SHAPING_DAMAGE,
    SHAPING_PRAYER,
    SHAPING_TAKEN,
    SPEC,
    SPEC_ACCURACY,
    SPEC_COST,
    SPEC_HIT,
    SPEC_MAX,
    SPECS,
    SPEED,
    STAY,
    STYLE,
    TAKEN,
    TIMED_OUT,
    TRADING,
    TRIBRID,
    WIN,
)
from sparring.kit import helper, kernel, rand_float, rand_int


@helper
def new_fight(s, cfg):
    """Full hp, prayer, energy and supplies; random gear; random tiles 3 to 7 apart."""
    for a in range(2):
        s.hp[a] = MAX_HP
        s.pp[a] = PRAY_MAX
        s.spec[a] = SPEC_MAX
        s.gear[a] = rand_int(s, 3)
        s.food[a] = FOODS
        s.combo[a] = COMBOS
        s.pots[a] = POTS
    # inside magic and ranged range, out of melee reach
    while True:
        for a in range(2):
            s.row[a] = rand_int(s, ARENA)
            s.col[a] = rand_int(s, ARENA)
        if 3 <= distance(s) <= 7:
            break


@kernel
def play_opponent(s, cfg, seat, seen):
    """The scripted seat's effective actions into ``s.last[seat]``, from the tier ``cfg.opponent``
    (a kernel: a thin switch with one caller, :func:`resolve_tick`)."""
    plan = s.last[seat]
    if cfg.opponent == RANDOM:
        random_play(s, seat, plan)
    elif cfg.opponent == REACTIVE:
        reactive_play(s, seat, plan)
    elif cfg.opponent == TRIBRID:
        tribrid_play(s, seat, plan)
    else:
        robot_play(s, seat, plan, seen)
    legalize(s, seat, plan, plan)


@helper
def pray_and_eat(s, a):
    """Rule steps 1 and 2 for fighter ``a`` (its actions are already legal)."""
    p = s.last[a, PRAYER]
    if p == PRAY_OFF:
        s.prayer[a] = 0
    elif p > 0:
        s.prayer[a] = p
    f = s.last[a, FOOD]
    if f == POTION:
        s.pp[a] = min(PRAY_MAX, s.pp[a] + POT_RESTORE)
        s.pots[a] -= 1
    elif f > 0:
        heal = 0
        if f == EAT or f == EAT_BOTH:
            heal += FOOD_HEAL
            s.food[a] -= 1
        if f == COMBO or f == EAT_BOTH:
            heal += COMBO_HEAL
            s.combo[a] -= 1
        s.hp[a] = min(MAX_HP, s.hp[a] + heal)
        s.eat[a] = EAT_TICKS
        s.atk[a] = max(s.atk[a], EAT_DELAY)
        if a == 0:
            s.metrics[EATEN] += 1


@helper
def land(s, cfg, a, rew):
    """Fighter ``a``'s projectile lands on the other: damage, then a freeze if it carries one."""
    o = 1 - a
    dmg = min(np.int64(s.p_dmg[a]), np.int64(s.hp[o]))
    s.hp[o] = s.hp[o] - dmg
    rew[a] += cfg.reward_damage * dmg / MAX_HP
    rew[o] -= cfg.reward_taken * dmg / MAX_HP
    if a == 0:
        s.metrics[DEALT] += dmg
        s.metrics[SHAPING_DAMAGE] += cfg.reward_damage * dmg / MAX_HP
    else:
        s.metrics[TAKEN] += dmg
        s.metrics[SHAPING_TAKEN] -= cfg.reward_taken * dmg / MAX_HP
    if s.p_freeze[a] == 1 and s.frozen[o] == 0 and s.immune[o] == 0:
        s.frozen[o] = FREEZE_TICKS
        if a == 0:
            s.metrics[FREEZES] += 1
    s.p_style[a] = 0
    s.p_dmg[a] = 0
    s.p_freeze[a] = 0


@helper
def launch(s, cfg, a, rew):
    """Fighter ``a`` attacks in its (just equipped) gear's style: roll now, land later."""
    o = 1 - a
    style = s.gear[a]
    chance = hit_chance(style, s.gear[o])
    top = MAX_HIT[style]
    if style == MELEE and s.last[a, SPEC] == 1 and s.spec[a] >= SPEC_COST:
        s.spec[a] -= SPEC_COST
        chance = min(0.95, chance * SPEC_ACCURACY)
        top = SPEC_HIT
        if a == 0:
            s.metrics[SPECS] += 1
    dmg = 0
    freeze = 0
    if rand_float(s) < chance:
        dmg = rand_int(s, top + 1)
        freeze = 1 if style == MAGIC else 0
    if s.prayer[o] == style + 1:
        dmg = dmg * PRAYED_NUM // PRAYED_DEN
        rew[o] += cfg.reward_prayer
        if o == 0:
            s.metrics[PRAYED] += 1
            s.metrics[SHAPING_PRAYER] += cfg.reward_prayer
    s.p_left[a] = delay(style, distance(s))
    s.p_style[a] = style
    s.p_dmg[a] = dmg
    s.p_freeze[a] = freeze
    s.atk[a] = SPEED[style]


@helper
def move_both(s):
    """Rule step 6: simultaneous moves; two steps onto one tile both fail."""
    r0, c0, r1, c1 = 0, 0, 0, 0
    for a in range(2):
        r, c = target(s, a, s.last[a, MOVE] if s.frozen[a] == 0 else STAY)
        if a == 0:
            r0, c0 = r, c
        else:
            r1, c1 = r, c
    if r0 == r1 and c0 == c1:
        return
    s.row[0], s.col[0], s.row[1], s.col[1] = r0, c0, r1, c1


@helper
def run_timers(s):
    """Rule step 7: cooldowns, freeze then immunity, special regeneration, prayer drain."""
    even = s.tick % 2 == 0
    for a in range(2):
        if s.atk[a] > 0:
            s.atk[a] -= 1
        if s.eat[a] > 0:
            s.eat[a] -= 1
        if s.frozen[a] > 0:
            s.frozen[a] -= 1
            if s.frozen[a] == 0:
                s.immune[a] = IMMUNE_TICKS
        elif s.immune[a] > 0:
            s.immune[a] -= 1
        if even:
            if s.spec[a] < SPEC_MAX:
                s.spec[a] += 1
            if s.prayer[a] > 0:
                s.pp[a] -= 1
                if s.pp[a] <= 0:
                    s.prayer[a] = 0


@helper
def phase_of(s, cfg):
    """opening until the first damage, then trading; low_hp below the threshold; finish when also out of food."""
    low = cfg.low_hp * MAX_HP
    phase = OPENING if s.metrics[DEALT] + s.metrics[TAKEN] == 0 else TRADING
    for a in range(2):
        if s.hp[a] < low:
            if s.food[a] + s.combo[a] == 0:
                return FINISH
            phase = LOW_HP
    return phase


@kernel
def resolve_tick(s, cfg, act, rew, term):
    """One tick of the rules (see the module docstring).

    A kernel, though large: ``step`` is its only caller and is inlined once, into the kit's step loop, so
    it is compiled once either way, and as a kernel the step's rules are not also compiled (and optimised
    by LLVM) as a function of their own: about 7% off duel's cold compile, stepping no slower (1.12x against
    the helper, benchmarks/env_speed_against.py duel).
    """
    for a in range(2):
        if a == 0 or cfg.opponent == LEARNER:
            legalize(s, a, act[a], s.last[a])
        else:
            # drawn every tick, so the random stream does not depend on what seat 0 did
            play_opponent(s, cfg, a, rand_float(s) < cfg.foresight)
    for a in range(2):
        pray_and_eat(s, a)
    for a in range(2):
        if s.p_left[a] > 0:
            s.p_left[a] -= 1
            if s.p_left[a] == 0:
                land(s, cfg, a, rew)
    s.phase = phase_of(s, cfg)
    if s.hp[0] == 0 or s.hp[1] == 0:
        if s.hp[0] == s.hp[1]:
            s.metrics[DRAW] = 1.0
        else:
            winner = 0 if s.hp[1] == 0 else 1
            rew[winner] += 1.0
            rew[1 - winner] -= 1.0
            s.metrics[WIN] = 1.0 if winner == 0 else 0.0
        term[0] = True
        term[1] = True
        return
    # gear switches of both fighters happen before either attack is rolled
    ready = (s.last[0, STYLE] > 0 and s.atk[0] == 0, s.last[1, STYLE] > 0 and s.atk[1] == 0)
    for a in range(2):
        if ready[a]:
            s.gear[a] = s.last[a, STYLE] - 1
    for a in range(2):
        if ready[a]:
            launch(s, cfg, a, rew)
    move_both(s)
    run_timers(s)
    if s.tick >= cfg.max_ticks:
        rew[0] -= 1.0
        rew[1] -= 1.0
        s.metrics[TIMED_OUT] = 1.0
        term[0] = True
        term[1] = True

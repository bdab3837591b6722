"""The scripted ladder of `duel`: random < reactive < tribrid < robot.

Each tier is a compiled helper ``<tier>_play(s, agent, act, ...)`` that writes one
value per head into ``act`` for fighter ``agent``, reading only what that fighter
can see (the robot with foresight also reads the other's chosen actions for this
tick). The env plays seat 1 with them; the kernels at the end expose them to the
kit as ``scripted`` policies ``(s, cfg, agent, act)`` for either seat.
"""

import numpy as np

from sparring.envs.duel.legal import can_attack, can_eat, can_move, distance, hit_chance, legal, target
from sparring.envs.duel.world import (
    COMBO,
    EAT,
    EAT_BOTH,
    EAT_DELAY,
    FOOD,
    HEADS,
    MAGIC,
    MAX_HIT,
    MELEE,
    MOVE,
    NO_FOOD,
    POTION,
    PRAY_OFF,
    PRAYER,
    RANGE,
    RANGED,
    SIZES,
    SPEC,
    SPEC_COST,
    SPEED,
    STAY,
    STYLE,
)
from sparring.kit import helper, kernel, rand_float, rand_int

TRIBRID_SLIP = 0.2  # chance per tick that the tribrid reacts a tick late (no prayer switch, no weapon switch)
LOW_HP, CRITICAL_HP = 60, 32  # eat below LOW_HP; eat everything at once at or below CRITICAL_HP
LOW_PRAYER = 8
REACTIVE_EAT_HP = 40
FREEZE_VALUE = 1.5  # a freeze is worth half a hit more: it decides who can melee
SPEC_VALUE = 1.5
SEEN_GEAR_PENALTY = 0.7  # attacking in the gear the defender sees invites its prayer


@kernel
def clear(act):
    """Every head at its no-op value."""
    for h in range(HEADS):
        act[h] = 0


@helper
def step_toward(s, a):
    """The move that brings fighter ``a`` closest to the other (STAY if none helps)."""
    o = 1 - a
    best, best_d = STAY, distance(s)
    for m in range(1, 5):
        if can_move(s, a, m):
            r, c = target(s, a, m)
            d = max(abs(r - s.row[o]), abs(c - s.col[o]))
            if d < best_d:
                best, best_d = m, d
    return best


@helper
def random_play(s, agent, act):
    """Tier 0: a uniformly random allowed value on every head."""
    for h in range(HEADS):
        count = 0
        for v in range(SIZES[h]):
            if legal(s, agent, h, v):
                count += 1
        k = rand_int(s, count)
        for v in range(SIZES[h]):
            if legal(s, agent, h, v):
                if k == 0:
                    act[h] = v
                    break
                k -= 1


@kernel
def beats(gear):
    """The attack style that hits ``gear`` most often."""
    return (gear + 2) % 3


@helper
def eat_choice(s, a):
    """The first allowed of EAT_BOTH (only at CRITICAL_HP or below), EAT, COMBO; else NO_FOOD."""
    for v in (EAT_BOTH, EAT, COMBO):
        if (v != EAT_BOTH or s.hp[a] <= CRITICAL_HP) and can_eat(s, a, v):
            return v
    return NO_FOOD


@helper
def reactive_play(s, agent, act):
    """Tier 1: prays against the gear it sees, attacks the other's gear weakness, eats when low.

    It never drinks a prayer potion, so its prayer runs out in long fights.
    """
    o = 1 - agent
    clear(act)
    if s.pp[agent] > 0 and s.prayer[agent] != s.gear[o] + 1:
        act[PRAYER] = s.gear[o] + 1
    if s.hp[agent] < REACTIVE_EAT_HP:
        act[FOOD] = eat_choice(s, agent)
    if s.atk[agent] == 0 and act[FOOD] == NO_FOOD:
        style = beats(s.gear[o])
        if not can_attack(s, agent, style):
            style = -1
            for k in range(3):
                if can_attack(s, agent, k) and (style < 0 or hit_chance(k, s.gear[o]) > hit_chance(style, s.gear[o])):
                    style = k
        act[STYLE] = style + 1
    if distance(s) > RANGE[RANGED]:
        act[MOVE] = step_toward(s, agent)


@helper
def best_attack(s, a, opp_prayer, opp_gear):
    """The in-range style with the best expected damage per tick, or -1.

    A prayed style is worth 2/5; magic on an unfrozen, non-immune target and a
    ready special attack are worth more; the style of one's own visible gear
    a little less, since a reactive defender prays against it.
    """
    o = 1 - a
    best, best_score = -1, -1.0
    for style in range(3):
        if not can_attack(s, a, style):
            continue
        score = hit_chance(style, opp_gear) * MAX_HIT[style] / SPEED[style]
        if opp_prayer == style + 1:
            score *= 0.4
        if style == s.gear[a]:
            score *= SEEN_GEAR_PENALTY
        if style == MAGIC and s.frozen[o] == 0 and s.immune[o] == 0:
            score *= FREEZE_VALUE
        if style == MELEE and s.spec[a] >= SPEC_COST:
            score *= SPEC_VALUE
        if score > best_score:
            best, best_score = style, score
    return best


@helper
def chase(s, a):
    """Freeze then melee: walk up to a frozen target; walk into ranged range otherwise."""
    o = 1 - a
    d = distance(s)
    if (s.frozen[o] > 0 and d > 1) or d > RANGE[RANGED]:
        return step_toward(s, a)
    return STAY


@helper
def tribrid_play(s, agent, act):
    """Tier 2: switches prayer to your gear, attacks into what you do not pray, freezes then melees.

    It slips on TRIBRID_SLIP of its ticks (reacting a tick late), eats by hp
    alone and keeps its prayer up.
    """
    o = 1 - agent
    clear(act)
    slip = rand_float(s) < TRIBRID_SLIP
    if not slip and s.pp[agent] > 0 and s.prayer[agent] != s.gear[o] + 1:
        act[PRAYER] = s.gear[o] + 1
    if s.hp[agent] < LOW_HP:
        act[FOOD] = eat_choice(s, agent)
    elif s.pp[agent] < LOW_PRAYER and s.pots[agent] > 0:
        act[FOOD] = POTION
    if s.atk[agent] == 0 and (act[FOOD] == NO_FOOD or act[FOOD] == POTION):
        style = best_attack(s, agent, np.int64(s.prayer[o]), np.int64(s.gear[o]))
        if slip and can_attack(s, agent, s.gear[agent]):
            style = s.gear[agent]
        act[STYLE] = style + 1
        if style == MELEE and s.spec[agent] >= SPEC_COST:
            act[SPEC] = 1
    act[MOVE] = chase(s, agent)


@helper
def step_away(s, a):
    """A move that takes fighter ``a`` out of melee reach, or STAY."""
    o = 1 - a
    for m in range(1, 5):
        if can_move(s, a, m):
            r, c = target(s, a, m)
            if max(abs(r - s.row[o]), abs(c - s.col[o])) > 1:
                return m
    return STAY


@helper
def robot_play(s, agent, act, seen):
    """The robot's decision; with ``seen``, it knows the other's effective actions of this tick.

    Without foresight it prays against the gear it sees, but only on ticks the
    other's weapon is ready (prayer flicking saves points); it eats while its
    own weapon is cooling down so food costs no attack, specs into an unprayed
    melee, and steps out of a frozen fighter's reach before its weapon is ready.
    """
    o = 1 - agent
    clear(act)
    opp_prayer, opp_gear, guard = s.prayer[o], s.gear[o], -1
    if s.atk[o] == 0:
        guard = s.gear[o]
    if seen:
        e = s.last[o]
        if e[PRAYER] == PRAY_OFF:
            opp_prayer = 0
        elif e[PRAYER] > 0:
            opp_prayer = e[PRAYER]
        guard = -1
        if e[STYLE] > 0 and (e[FOOD] == NO_FOOD or e[FOOD] == POTION):
            guard = e[STYLE] - 1
            opp_gear = guard
    if guard >= 0 and s.pp[agent] > 0:
        if s.prayer[agent] != guard + 1:
            act[PRAYER] = guard + 1
    elif s.prayer[agent] != 0:
        act[PRAYER] = PRAY_OFF
    hp = s.hp[agent]
    if hp <= CRITICAL_HP or (hp < LOW_HP and s.atk[agent] >= EAT_DELAY):
        act[FOOD] = eat_choice(s, agent)
    elif s.pp[agent] < LOW_PRAYER and s.pots[agent] > 0:
        act[FOOD] = POTION
    if s.atk[agent] == 0 and (act[FOOD] == NO_FOOD or act[FOOD] == POTION):
        style = best_attack(s, agent, opp_prayer, opp_gear)
        act[STYLE] = style + 1
        if style == MELEE and s.spec[agent] >= SPEC_COST and opp_prayer != MELEE + 1:
            act[SPEC] = 1
    act[MOVE] = chase(s, agent)
    if distance(s) == 1 and s.frozen[o] > 0 and s.atk[o] <= 1 < s.atk[agent]:
        act[MOVE] = step_away(s, agent)


# The ladder as the kit's scripted kernels: thin, so that each policy is compiled once
# and shared with the env's own seat-1 player.
@kernel
def random(s, cfg, agent, act):
    """Tier 0: a uniformly random allowed value on every head."""
    random_play(s, agent, act)


@kernel
def reactive(s, cfg, agent, act):
    """Tier 1: prays against the gear it sees, attacks, eats when low."""
    reactive_play(s, agent, act)


@kernel
def tribrid(s, cfg, agent, act):
    """Tier 2: switches prayer and attacks into the unprayed style, freezes then melees; slips."""
    tribrid_play(s, agent, act)


@kernel
def robot(s, cfg, agent, act):
    """Tier 3: the frame-perfect tribrid, without foresight (see :func:`robot_play`)."""
    robot_play(s, agent, act, np.bool_(False))

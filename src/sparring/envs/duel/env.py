"""`duel`: a 1v1 arena fight of attack styles, protection prayers, gear, hit delays and food.

The rules and their numbers are in :mod:`sparring.envs.duel.rules`; the scripted
ladder in :mod:`sparring.envs.duel.scripted`. Seat 1 is a scripted fighter
chosen by ``opponent`` (the env plays it inside ``step`` and ignores the
actions given for it), or a learner (``opponent="learner"``, e.g. self-play).

Reward: +1 for the fighter that brings the other to 0 hp, -1 for the other,
0 for both at the tick limit (a truncation) or a double knockout. Shaping is
opt-in (``reward_damage``, ``reward_taken``, ``reward_prayer``, all 0 by default) and each term
has its own episode metric. Metrics are from seat 0's point of view.

Observation (73 floats in [-1, 1], from the observer's side): own fighter
block, the other's block (hp, prayer points, gear, overhead prayer, freeze
and immunity timers, attack timer, eating timer, food, combo food, potion
doses, special energy), own position, offset to the other and distance,
the incoming and the outgoing projectile (ticks to land, style), the other's
last actions (one-hot per head), the tick fraction, and the threats: each
style's damage rate (hit chance x max hit / weapon speed, 0 out of range, 2/5
when prayed against), own against the other, then the other's against
oneself. The threats are functions of the rest; spelled out, they let a
policy learn sooner which style to pray against before the other's weapon is
ready.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.duel import render
from sparring.envs.duel.rules import (
    ARENA, COMBO, COMBO_HEAL, COMBOS, EAT, EAT_BOTH, EAT_DELAY, EAT_TICKS, FOOD, FOOD_HEAL, FOODS, FREEZE_TICKS,
    HEADS, IMMUNE_TICKS, MAGIC, MAX_DELAY, MAX_HIT, MAX_HP, MELEE, MOVE, POT_RESTORE, POTION, POTS, PRAY_MAX,
    PRAY_OFF, PRAYED_DEN, PRAYED_NUM, PRAYER, RANGE, SIZES, SPEC, SPEC_ACCURACY, SPEC_COST, SPEC_HIT, SPEC_MAX,
    SPEED, STAY, STYLE, delay, distance, hit_chance, legalize, target, write_mask,
)
from sparring.envs.duel.scripted import (
    random, random_play, reactive, reactive_play, robot, robot_play, tribrid, tribrid_play,
)
from sparring.kit import Env, Heads, Obs, choice, helper, kernel, knob, rand_float, rand_int

OPPONENTS = ("random", "reactive", "tribrid", "robot", "learner")
RANDOM, REACTIVE, TRIBRID, ROBOT, LEARNER = range(5)
OPENING, TRADING, LOW_HP, FINISH = range(4)
WIN, DRAW, DEALT, TAKEN, PRAYED, EATEN, SPECS, FREEZES, SHAPING_DAMAGE, SHAPING_TAKEN, SHAPING_PRAYER = range(11)
FIGHTER_OBS = 16
OBS_SIZE = 2 * FIGHTER_OBS + 5 + 2 * 4 + sum(SIZES) + 1 + 2 * 3
TOP_THREAT = MAX_HIT[MELEE] / SPEED[MELEE]  # the highest damage rate of a style: threats are fractions of it
MAX_SPEED = 5


@dataclass
class DuelConfig:
    """Knobs of `duel`."""

    opponent: str = choice("robot", OPPONENTS, "Who plays seat 1: a scripted tier, or 'learner' (actions from "
                                               "outside, e.g. self-play).")
    foresight: float = knob(0.5, "Chance per tick that the scripted robot sees seat 0's chosen actions before "
                                 "choosing its own (the other tiers ignore it).")
    max_ticks: int = knob(250, "Tick limit; reaching it is a draw (truncation, reward 0).")
    low_hp: float = knob(0.4, "Hp fraction below which a fighter is low (phase 'low_hp'; 'finish' once it also "
                              "has no food left).")
    reward_damage: float = knob(0.0, "Shaping, opt-in: reward per full hp bar of damage dealt (metric "
                                     "shaping_damage).")
    reward_taken: float = knob(0.0, "Shaping, opt-in: penalty per full hp bar of damage taken (metric shaping_taken); "
                                    "equal to reward_damage it makes the shaping zero-sum.")
    reward_prayer: float = knob(0.0, "Shaping, opt-in: reward each time one's prayer protects from a launched hit "
                                     "(metric shaping_prayer).")


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


@helper
def play_opponent(s, cfg, seat, seen):
    """The scripted seat's effective actions into ``s.last[seat]``, from the tier ``cfg.opponent``."""
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


@helper
def resolve_tick(s, cfg, act, rew, term, trunc):
    """One tick of the rules (see :mod:`sparring.envs.duel.rules`)."""
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
        s.metrics[DRAW] = 1.0
        trunc[0] = True
        trunc[1] = True


@helper
def fighter_obs(s, f, row, k):
    """Fighter ``f``'s visible state into ``row[k:k + FIGHTER_OBS]``."""
    row[k] = s.hp[f] / MAX_HP
    row[k + 1] = s.pp[f] / PRAY_MAX
    for g in range(3):
        row[k + 2 + g] = 1.0 if s.gear[f] == g else 0.0
        row[k + 5 + g] = 1.0 if s.prayer[f] == g + 1 else 0.0
    row[k + 8] = s.frozen[f] / FREEZE_TICKS
    row[k + 9] = s.immune[f] / IMMUNE_TICKS
    row[k + 10] = s.atk[f] / MAX_SPEED
    row[k + 11] = s.eat[f] / EAT_TICKS
    row[k + 12] = s.food[f] / FOODS
    row[k + 13] = s.combo[f] / COMBOS
    row[k + 14] = s.pots[f] / POTS
    row[k + 15] = s.spec[f] / SPEC_MAX


@helper
def projectile_obs(s, f, row, k):
    """Fighter ``f``'s projectile in flight: ticks to land and style (zeros if none)."""
    row[k] = s.p_left[f] / MAX_DELAY
    for g in range(3):
        row[k + 1 + g] = 1.0 if s.p_left[f] > 0 and s.p_style[f] == g else 0.0
    return k + 4


@helper
def threat_obs(s, a, row, k):
    """Fighter ``a``'s damage rate per style against the other as things stand, over melee's (0 out of range):
    hit chance against the other's gear times max hit over weapon speed, cut to 2/5 when the other prays it."""
    o = 1 - a
    d = distance(s)
    for style in range(3):
        value = 0.0
        if d <= RANGE[style]:
            value = hit_chance(style, s.gear[o]) * MAX_HIT[style] / SPEED[style] / TOP_THREAT
            if s.prayer[o] == style + 1:
                value = value * PRAYED_NUM / PRAYED_DEN
        row[k + style] = value
    return k + 3


@helper
def write_obs(s, cfg, obs, mask):
    """Each seat's observation row and mask row."""
    span = ARENA - 1
    for a in range(2):
        o = 1 - a
        row = obs[a]
        for b in range(2):
            fighter_obs(s, a if b == 0 else o, row, b * FIGHTER_OBS)
        k = 2 * FIGHTER_OBS
        row[k] = s.row[a] / span
        row[k + 1] = s.col[a] / span
        row[k + 2] = (s.row[o] - s.row[a]) / span
        row[k + 3] = (s.col[o] - s.col[a]) / span
        row[k + 4] = distance(s) / span
        k = projectile_obs(s, o, row, k + 5)
        k = projectile_obs(s, a, row, k)
        for h in range(HEADS):
            for v in range(SIZES[h]):
                row[k] = 1.0 if s.last[o, h] == v else 0.0
                k += 1
        row[k] = s.tick / cfg.max_ticks
        k = threat_obs(s, a, row, k + 1)
        threat_obs(s, o, row, k)
        write_mask(s, a, mask[a])


# The kit inlines reset, step and observe into its batched loops (observe four
# times); thin kernels over compiled helpers keep the cold compile short.
@kernel
def reset(s, cfg):
    new_fight(s, cfg)


@kernel
def step(s, cfg, act, rew, term, trunc):
    resolve_tick(s, cfg, act, rew, term, trunc)


@kernel
def observe(s, cfg, obs, mask):
    write_obs(s, cfg, obs, mask)


def _obs(cfg) -> Obs:
    if cfg.max_ticks < 1:
        raise ValueError(f"duel: max_ticks must be at least 1, got {cfg.max_ticks}")
    if not 0.0 <= cfg.foresight <= 1.0:
        raise ValueError(f"duel: foresight must be in [0, 1], got {cfg.foresight}")
    return Obs(OBS_SIZE, np.float32, low=-1.0, high=1.0)


def _fighter_fields() -> dict:
    names = ("hp", "pp", "spec", "gear", "prayer", "atk", "eat", "frozen", "immune", "food", "combo", "pots",
             "row", "col", "p_left", "p_style", "p_dmg", "p_freeze")
    return {n: ("i4", (2,)) for n in names}


class Duel(Env):
    """A 1v1 PvP arena against a scripted ladder (random, reactive, tribrid, robot) or a learner."""

    name = "duel"
    num_agents = 2
    obs = staticmethod(_obs)
    actions = Heads(move=SIZES[0], style=SIZES[1], prayer=SIZES[2], food=SIZES[3], spec=SIZES[4])
    state = {**_fighter_fields(), "last": ("i4", (2, HEADS))}
    phases = ("opening", "trading", "low_hp", "finish")
    # ten 4-byte metrics make the record 248 bytes with no trailing padding: compiled record
    # copies leave garbage in padding, and the kit compares records byte for byte
    metrics = ("win", "draw", "damage_dealt", "damage_taken", "prayed_hits", "food_eaten", "specs", "freezes",
               "shaping_damage", "shaping_taken", "shaping_prayer")
    # low-watermarks `sparring eval` reports per outcome: (state field, index); seat 0's lowest hp
    watermarks = {"lowest_hp": ("hp", 0)}
    Config = DuelConfig
    reset, step, observe = reset, step, observe
    scripted = {"random": random, "reactive": reactive, "tribrid": tribrid, "robot": robot}
    best_scripted = "robot"

    @classmethod
    def learner_seats(cls, config) -> tuple[int, ...]:
        """Seat 0 alone against a scripted opponent; both seats with ``opponent="learner"``."""
        return (0, 1) if config.opponent == "learner" else (0,)

    render_ansi = staticmethod(render.render_ansi)
    render_rgb = staticmethod(render.render_rgb)
    describe = staticmethod(render.describe)

    @staticmethod
    def invariants(s, cfg) -> list[str]:
        """Values inside their ranges; fighters on distinct arena tiles; freeze and immunity exclusive."""
        bad = []
        limits = {"hp": MAX_HP, "pp": PRAY_MAX, "spec": SPEC_MAX, "food": FOODS, "combo": COMBOS, "pots": POTS,
                  "atk": MAX_SPEED, "eat": EAT_TICKS, "frozen": FREEZE_TICKS, "immune": IMMUNE_TICKS,
                  "p_left": MAX_DELAY, "gear": 2, "prayer": 3, "row": ARENA - 1, "col": ARENA - 1}
        for field, top in limits.items():
            for a in range(2):
                if not 0 <= s[field][a] <= top:
                    bad.append(f"fighter {a} {field} {s[field][a]} outside [0, {top}]")
        if s["row"][0] == s["row"][1] and s["col"][0] == s["col"][1]:
            bad.append("both fighters on one tile")
        for a in range(2):
            if s["frozen"][a] > 0 and s["immune"][a] > 0:
                bad.append(f"fighter {a} frozen and immune at once")
        return bad

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell: hp in tenths, supplies left and freezes, per fighter."""
        return tuple((int(s["hp"][a]) // 10, int(s["food"][a] + s["combo"][a]), bool(s["frozen"][a] > 0))
                     for a in range(2))

"""`gauntlet`: thirty waves of monsters around three pillars, a multi-boss wave, then a final boss behind a shield.

The numbers and monster types are in :mod:`sparring.envs.gauntlet.rules`, the
monsters' tick in :mod:`sparring.envs.gauntlet.monsters`, the scripted players
in :mod:`sparring.envs.gauntlet.scripted`, the Go-Explore cell in
:mod:`sparring.envs.gauntlet.cells` and state sets in :mod:`sparring.envs.gauntlet.states`.

Within a tick the rules resolve in this order:

1. Actions the mask forbids become their head's no-op. Prayer, gear, target and
   supplies change: a heal dose restores ``HEAL_HP`` and delays the weapon to at
   least ``HEAL_DELAY`` ticks; a restore dose gives ``RESTORE_PP`` prayer points.
   A target must be an alive monster in line of sight.
2. The player attacks the target if the weapon is ready and the worn gear
   reaches it; attacking a healer tags it. A kill of the final boss ends the
   run (+1).
3. The player moves one tile (8 directions) onto an open tile without a monster.
4. Monsters act in slot order, then the final boss (see ``rules``). Protection
   prayers block all damage of their style, except the final boss's big hit,
   which only the shield stops.
5. Prayer drains one point every ``DRAIN_EVERY`` ticks prayed; the weapon cools.
6. A wave whose monsters are all dead is cleared (``reward_wave``, 0 by default);
   the next one spawns ``WAVE_GAP`` ticks later.
7. A player at 0 hp dies (the ``death`` penalty). Reaching the tick limit ends
   the run the same way (metric ``timed_out``): a limit that paid more than a
   death would teach stalling behind a pillar, where a stuck monster never
   reaches the player.

Reward: +1 for killing the final boss; at death or the tick limit ``progress`` (the default,
-(1 - waves cleared / WAVES)), ``flat`` (-1) or ``zero``; shaping per cleared wave
and per hp gained or lost are opt-in (``reward_wave``, metric ``shaping_wave``; ``reward_hp``,
metric ``shaping_hp``).

Phases: ``wave 1`` .. ``wave 28``, ``bosses`` (wave 29), then the final boss's
stages ``final/before-summon``, ``final/summon``, ``final/healers``,
``final/post-healers``, ``final/enrage``. Metrics: ``win`` (the run was cleared),
``wave`` (reached), ``lowest_hp``, damage taken and the killing blow by source
(``taken_<source>``, ``killed_by_<source>``; sources melee, ranged, magic, boss,
final_boss, pillar), ``healers_tagged``, ``healers_killed``, ``heals_used``,
``restores_used``, ``pillars_lost``, ``timed_out``, ``shaping_wave``, ``shaping_hp``.

Observation (370 floats in [-1, 1]): the player (tile, hp, prayer points,
prayer, gear, weapon timer, doses, target set, behind the shield); pillar hp;
wave, gap, the final boss's stage, the boss wave flag; shield column and
direction, the final boss's hit timer, enrage, spawn timer; the forecast of
max hits landing in each of the next ``FORECAST`` ticks per style (melee,
ranged, magic, a blob's or boss's style still undecided); then per monster slot
the type, alive/burrowed/dead, hp, offset and distance from the player, attack
timer, telegraphed style, in sight, in reach, targeted, tagged and a small blob's style.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.gauntlet import cells, render
from sparring.envs.gauntlet.monsters import damage, fill_forecast, monsters_turn, spawn_wave, update_visibility
from sparring.envs.gauntlet.rules import (
    ALIVE, BOSS_WAVE, BURROWED, COLS, DC, DEAD, DR, DRAIN_EVERY, DRINK_HEAL, DRINK_RESTORE, EMPTY, ENRAGE_AT,
    FINAL_SPAWN_EVERY, FINAL_WAVE, GEAR, GEAR_MAX, GEAR_SPEED, HEALER, HEALERS_TAGGED, HEALS, HEALS_USED,
    HEAL_DELAY, HEAL_HP, HP, LOWEST_HP, MAX_HP, METRICS, MOVE, PILLARS, PILLAR_HP, PLAIN_ACC, PRAYER, PRAY_MAX,
    PRAY_OFF, RESTORES, RESTORES_USED, RESTORE_PP, ROWS, SHAPING_HP, SHAPING_WAVE, SIZES, SLOTS, SPLIT,
    STAGE_NAMES, START_C, START_R, SUPPLY, TAGGED, TARGET, TIMED_OUT, TYPES, WAVES, WAVE_GAP, WAVE_REACHED,
    WEAK, WEAK_ACC, WIN, ZUK, ZUK_SPEED, covered, final_stage, in_reach, legal, phase_of, write_mask,
)
from sparring.envs.gauntlet.scripted import competent, steady
from sparring.kit import Env, Heads, Obs, choice, helper, kernel, knob, rand_float, rand_int

DEATHS = ("progress", "flat", "zero")
PROGRESS, FLAT, ZERO = range(3)
SLOT_OBS = TYPES + 17
HEAD_OBS = 46
OBS_SIZE = HEAD_OBS + SLOTS * SLOT_OBS


@dataclass
class GauntletConfig:
    """Knobs of `gauntlet`."""

    death: str = choice("progress", DEATHS, "Reward at the player's death: -(1 - waves cleared / 30), -1, or 0.")
    reward_wave: float = knob(0.0, "Shaping, opt-in: reward per cleared wave (metric shaping_wave).")
    reward_hp: float = knob(0.0, "Shaping, opt-in: reward per full hp bar gained, the same penalty per hp bar lost "
                                 "(metric shaping_hp). It sums to the hp change over the run, so surviving longer "
                                 "earns nothing from it; it pays a heal and charges a hit when they happen.")
    start_wave: int = knob(1, "Wave the run starts at (1..30); above 1 the player arrives worn, as if it had "
                              "fought its way there.")
    start_spread: int = knob(0, "Start at a wave drawn uniformly from start_wave..start_wave + start_spread "
                                "(capped at 30).")
    max_ticks: int = knob(12000, "Tick limit; reaching it ends the run as a death does (same penalty, metric "
                                 "timed_out).")


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


@kernel
def allowed(s, act, head):
    """The agent's value for ``head``, or 0 (the head's no-op) where the mask forbids it."""
    v = np.int64(act[0, head])
    return v if legal(s, np.int64(head), v) else 0


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
        s.hp, s.heals = min(MAX_HP, s.hp + HEAL_HP), s.heals - 1
        s.atk = max(s.atk, HEAL_DELAY)
        s.metrics[HEALS_USED] += 1
    elif supply == DRINK_RESTORE:
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


@helper
def resolve_tick(s, cfg, act, rew, term):
    """One tick of the rules (see the module docstring)."""
    hp = np.int64(s.hp)
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


# thin kernels over compiled helpers keep the kit's inlined batch loops small
@kernel
def reset(s, cfg):
    new_run(s, cfg)


@kernel
def step(s, cfg, act, rew, term, trunc):
    resolve_tick(s, cfg, act, rew, term)  # runs end only by terminals: the tick limit is a loss


@kernel
def observe(s, cfg, obs, mask):
    write_obs(s, cfg, obs, mask)


def _obs(cfg) -> Obs:
    if not 1 <= cfg.start_wave <= WAVES:
        raise ValueError(f"gauntlet: start_wave must be in 1..{WAVES}, got {cfg.start_wave}")
    for name in ("start_spread", "max_ticks"):
        if getattr(cfg, name) < (0 if name == "start_spread" else 1):
            raise ValueError(f"gauntlet: {name} must be at least {0 if name == 'start_spread' else 1}, "
                             f"got {getattr(cfg, name)}")
    return Obs(OBS_SIZE, np.float32, low=-1.0, high=1.0)


def _state() -> dict:
    ints = ("row", "col", "hp", "pp", "drain", "prayer", "gear", "target", "atk", "heals", "restores", "last_src",
            "wave", "gap", "shield_c", "shield_dir", "spawn_t", "zuk_flags")
    state = {n: "i4" for n in ints}
    state["pil_hp"] = ("i4", (PILLARS,))
    state.update({n: ("i1", (SLOTS,)) for n in ("m_type", "m_state", "m_flag", "m_tele", "m_style", "m_link",
                                                 "m_vis")})
    state.update({n: ("i2", (SLOTS,)) for n in ("m_hp", "m_r", "m_c", "m_atk", "m_idle")})
    return state


class Gauntlet(Env):
    """Thirty waves, three pillars, a multi-boss wave and a final boss behind a moving shield; one player."""

    name = "gauntlet"
    num_agents = 1
    obs = staticmethod(_obs)
    actions = Heads(move=SIZES[MOVE], prayer=SIZES[PRAYER], gear=SIZES[GEAR], target=SIZES[TARGET],
                    supply=SIZES[SUPPLY])
    state = _state()
    phases = (*(f"wave {w}" for w in range(1, BOSS_WAVE)), "bosses", *(f"final/{n}" for n in STAGE_NAMES))
    metrics = METRICS
    watermarks = {"lowest_hp": ("hp", None)}
    Config = GauntletConfig
    reset, step, observe = reset, step, observe
    scripted = {"competent": competent, "steady": steady}
    best_scripted = "competent"

    render_ansi = staticmethod(render.render_ansi)
    describe = staticmethod(render.describe)
    draw = staticmethod(render.draw)
    invariants = staticmethod(render.invariants)

    cell_fields = cells.CELL_FIELDS
    cell_keys = staticmethod(cells.cell_keys)

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell of one record: the :data:`cell_fields` values (see :mod:`sparring.envs.gauntlet.cells`)."""
        return cells.cell_tuple(s)

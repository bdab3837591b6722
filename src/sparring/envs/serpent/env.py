"""`serpent`: a single-player boss fight of rotations, forms, venom, clouds, adds and supplies.

The rules and their numbers are in :mod:`sparring.envs.serpent.rules`; the
scripted players (``reference`` knows the rotations, ``reactive`` does not) in
:mod:`sparring.envs.serpent.scripted`.

Reward: +1 when the boss dies; at the player's death the ``death`` penalty
(``progress``, the default: -(1 - fraction of the boss's hp taken); ``minus_one``:
-1; ``zero``: 0); 0 at the tick limit (a truncation). Shaping is opt-in: ``reward_damage`` per
full boss hp bar dealt (metric ``shaping_damage``), 0 by default.

Phases are labelled ``<rotation>/<phase>`` (``A/1`` .. ``D/10``): the phase the
boss is in, or is diving towards. Metrics: ``win`` (boss killed), ``draw``
(tick limit), ``kill_time`` (tick of the kill, 0 without one), ``damage_dealt``,
damage taken by source (``taken_venom``, ``taken_clouds``, ``taken_smash``,
``taken_ranged``, ``taken_magic``, ``taken_adds``), supplies used
(``food_eaten``, ``prayer_doses``, ``antivenom_doses``), ``phases_seen``.

Observation (174 floats in [-1, 1]): the player (tile, hp, prayer points,
supplies, venom, prayer, gear, timers); the boss (hp, up or diving, ticks
left, form and position while up, attack timer, stare, range and distance);
for each move (stay, north, south, west, east) the tile it leads to: walkable,
for each of the four positions whether it is a safespot and in attack range,
clouded, under a smash; the adds (alive, offset, hp); the phase index
and the forms and positions seen at each phase index so far (a player's
memory: the rotation must be inferred from it); the tick fraction.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.serpent import render
from sparring.envs.serpent.rules import (
    ADD_CHANCE, ADD_HIT, ADD_HP, ADD_PLAYER_CHANCE, ADD_PLAYER_MAX, ADD_SLOTS, ADD_SPEED, AMBUSH_MAX, AMBUSH_MIN,
    ANTIVENOM, ANTIVENOM_DOSES, ANTIVENOM_TICKS, ATTACK, ATTACK_ADD, BOSS_CHANCE, BOSS_SPEED, CLOUDS, CLOUD_DAMAGE,
    CLOUD_SLOTS, CLOUD_TICKS, CLOUD_VENOM, DC, DIVE_TICKS, DOSE_RESTORE, DR, DRAIN_EVERY, EAT, EAT_DELAY, EAT_TICKS,
    FOOD_HEAL, GEAR, GO_EAST, GO_NORTH, GO_SOUTH, GO_WEST, GRID, IMMUNE, MAGIC_FORM, MAGIC_MAX, MAGIC_RANGED,
    MAGIC_STYLE, MAX_HP, MELEE_FORM, MOVE, PHASES, PLAIN_CHANCE, PLAIN_MAX, PRAYER, PRAYER_DOSE, PRAYER_DOSES,
    PRAY_MAX, PRAY_OFF, RANGE, RANGED_MAX, RANGED_STYLE, ROTATIONS, ROT_FORM, ROT_NAMES, ROT_POS, SIZES, SMASH_MAX,
    SMASH_MIN, SMASH_REST, SPEED, SRC_ADDS, SRC_CLOUDS, SRC_MAGIC, SRC_RANGED, SRC_SMASH, SRC_VENOM, STARE_TICKS,
    START_COL, START_ROW, STAY, SUPPLY, SURFACE_TICKS, VENOM_CHANCE, VENOM_EVERY, VENOM_MAX, VENOM_START,
    VENOM_STEP, WEAKNESS, WEAK_CHANCE, WEAK_MAX, boss_distance, cloud_at, in_smash, legal, nearest_add, shadowed,
    walkable, write_mask,
)
from sparring.envs.serpent.scripted import reactive, reference
from sparring.kit import Env, Heads, Obs, choice, helper, kernel, knob, rand_float, rand_int

DEATHS = ("minus_one", "zero", "progress")
MINUS_ONE, ZERO, PROGRESS = range(3)
METRICS = ("win", "draw", "kill_time", "damage_dealt", "taken_venom", "taken_clouds", "taken_smash",
           "taken_ranged", "taken_magic", "taken_adds", "food_eaten", "prayer_doses", "antivenom_doses",
           "phases_seen", "shaping_damage")
(WIN, DRAW, KILL_TIME, DEALT, TAKEN, _, _, _, _, _, FOOD_EATEN, DOSES_USED, ANTIVENOM_USED, PHASES_SEEN,
 SHAPING_DAMAGE) = range(len(METRICS))
CANDIDATE_OBS = 11
OBS_SIZE = 16 + 14 + 5 * CANDIDATE_OBS + 4 * ADD_SLOTS + PHASES + 7 * PHASES + 1


@dataclass
class SerpentConfig:
    """Knobs of `serpent`."""

    boss_hp: int = knob(360, "The boss's hit points.")
    food: int = knob(4, "Food the player brings (each heals 20).")
    max_ticks: int = knob(600, "Tick limit; reaching it ends the fight with reward 0 (truncation).")
    death: str = choice("progress", DEATHS, "Reward at the player's death: -1, 0, or -(1 - fraction of the boss's "
                                             "hp taken).")
    reward_damage: float = knob(0.0, "Shaping, opt-in: reward per full boss hp bar of damage dealt (metric "
                                     "shaping_damage).")


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
def allowed(s, act, head):
    """The agent's value for ``head``, or 0 (the head's no-op) where the mask forbids it."""
    v = np.int64(act[0, head])
    return v if legal(s, np.int64(head), v) else 0


@helper
def resolve_tick(s, cfg, act, rew, term, trunc):
    """One tick of the rules (see :mod:`sparring.envs.serpent.rules`)."""
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
    if s.hp == 0:
        if cfg.death == MINUS_ONE:
            rew[0] -= 1.0
        elif cfg.death == PROGRESS:
            rew[0] -= 1.0 - s.metrics[DEALT] / cfg.boss_hp
        term[0] = True
    elif s.tick >= cfg.max_ticks:
        s.metrics[DRAW] = 1.0
        trunc[0] = True


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


# thin kernels over compiled helpers keep the kit's inlined batch loops small
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
    for name, low in (("boss_hp", 1), ("food", 0), ("max_ticks", 1)):
        if getattr(cfg, name) < low:
            raise ValueError(f"serpent: {name} must be at least {low}, got {getattr(cfg, name)}")
    return Obs(OBS_SIZE, np.float32, low=-1.0, high=1.0)


def _state() -> dict:
    ints = ("row", "col", "hp", "pp", "drain", "prayer", "gear", "atk", "eat", "food", "doses", "antivenom", "venom",
            "venom_t", "venom_immune", "rotation", "stage", "boss_hp", "form", "pos", "surfaced", "timer", "boss_atk",
            "stare", "stare_r", "stare_c")
    state = {n: "i4" for n in ints}
    state.update(seen_form=("i1", (PHASES,)), seen_pos=("i1", (PHASES,)), cloud_r=("i1", (CLOUD_SLOTS,)),
                 cloud_c=("i1", (CLOUD_SLOTS,)), cloud_t=("i2", (CLOUD_SLOTS,)))
    state.update({n: ("i4", (ADD_SLOTS,)) for n in ("add_r", "add_c", "add_hp", "add_atk")})
    return state


class Serpent(Env):
    """A boss with four rotations of (form, position) phases, venom, clouds and adds; one player."""

    name = "serpent"
    num_agents = 1
    obs = staticmethod(_obs)
    actions = Heads(move=SIZES[MOVE], prayer=SIZES[PRAYER], gear=SIZES[GEAR], attack=SIZES[ATTACK],
                    supply=SIZES[SUPPLY])
    state = _state()
    phases = tuple(f"{ROT_NAMES[r]}/{k + 1}" for r in range(ROTATIONS) for k in range(PHASES))
    metrics = METRICS
    watermarks = {"lowest_hp": ("hp", None)}
    Config = SerpentConfig
    reset, step, observe = reset, step, observe
    scripted = {"reference": reference, "reactive": reactive}
    best_scripted = "reference"

    render_ansi = staticmethod(render.render_ansi)
    describe = staticmethod(render.describe)
    draw = staticmethod(render.draw)
    invariants = staticmethod(render.invariants)

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell: phase, boss hp in tenths, player hp in quarters, supplies left."""
        return (int(s["phase"]), int(s["boss_hp"]) * 10 // cfg.boss_hp, int(s["hp"]) // 25,
                int(s["food"] + s["doses"] + s["antivenom"]))

    cell_fields = ("dealt", "phase", "hp", "supplies")

    @staticmethod
    def cell_keys(records: np.ndarray) -> np.ndarray:
        """Go-Explore cell key per record, one byte per field of ``cell_fields`` (first most significant).

        dealt: boss damage dealt in 36s (tenths of the default boss), the fight's progress; phase: the
        phase index; hp: the player's hp in quarters; supplies: food, prayer and antivenom doses left, in pairs.
        """
        dealt = np.minimum(records["metrics"][:, DEALT] // 36, 255).astype(np.int64)
        hp = records["hp"].astype(np.int64) * 4 // (MAX_HP + 1)
        supplies = (records["food"] + records["doses"] + records["antivenom"]).astype(np.int64) // 2
        return (dealt << 24) | (records["phase"].astype(np.int64) << 16) | (hp << 8) | np.minimum(supplies, 255)

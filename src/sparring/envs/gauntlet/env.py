"""`gauntlet`: thirty waves of monsters around three pillars, a multi-boss wave, then a final boss behind a shield.

The numbers and monster types are in :mod:`sparring.envs.gauntlet.world`, the
tick in :mod:`sparring.envs.gauntlet.rules` (the monsters' part in
:mod:`sparring.envs.gauntlet.monsters`, what the player may do in
:mod:`sparring.envs.gauntlet.legal`), the observation in
:mod:`sparring.envs.gauntlet.observe`, the scripted players in
:mod:`sparring.envs.gauntlet.scripted`, the Go-Explore cell in
:mod:`sparring.envs.gauntlet.cells` and state sets in :mod:`sparring.envs.gauntlet.states`.

Reward: +1 for killing the final boss; at death or the tick limit ``progress`` (the default,
-(1 - waves cleared / WAVES)), ``flat`` (-1) or ``zero``; shaping per cleared wave
and per hp gained or lost are opt-in (``reward_wave``, metric ``shaping_wave``; ``reward_hp``,
metric ``shaping_hp``), and so is a penalty per dose point drunk above the maximum (``reward_waste``,
metric ``shaping_waste``; the points themselves: ``supplies_wasted``).

Phases: ``wave 1`` .. ``wave 28``, ``bosses`` (wave 29), then the final boss's
stages ``final/before-summon``, ``final/summon``, ``final/healers``,
``final/post-healers``, ``final/enrage``. Metrics: ``win`` (the run was cleared),
``wave`` (reached), ``lowest_hp``, damage taken and the killing blow by source
(``taken_<source>``, ``killed_by_<source>``; sources melee, ranged, magic, boss,
final_boss, pillar), ``healers_tagged``, ``healers_killed``, ``heals_used``,
``restores_used``, ``pillars_lost``, ``timed_out``, ``shaping_wave``, ``shaping_hp``, ``supplies_wasted``,
``shaping_waste``.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.gauntlet import cells, render
from sparring.envs.gauntlet.observe import OBS_SIZE, write_obs
from sparring.envs.gauntlet.rules import new_run, resolve_tick
from sparring.envs.gauntlet.scripted import competent, expert, steady
from sparring.envs.gauntlet.world import (
    BOSS_CALLED,
    BOSS_WAVE,
    BOSSES_IN_BOSS_WAVE,
    BURROW_AFTER,
    BURROW_TICKS,
    BURROWED,
    COLS,
    DEATHS,
    DRAIN_EVERY,
    FINAL_SPAWN_EVERY,
    GEAR,
    GEAR_SPEED,
    HEAL_DELAY,
    HEALERS_CALLED,
    HEALS,
    HP,
    MAGIC,
    MAX_HP,
    METRICS,
    MOVE,
    PILLAR_HP,
    PILLARS,
    PRAY_MAX,
    PRAYER,
    RESTORES,
    ROWS,
    SHIELD_MAX,
    SIZES,
    SLIDE_SHIFT,
    SLOTS,
    SOURCES,
    SPEED,
    STAGE_NAMES,
    SUPPLY,
    TARGET,
    TELEGRAPH,
    TYPES,
    WAVE_GAP,
    WAVES,
    ZUK_R,
    ZUK_SPEED,
)
from sparring.kit import Env, Heads, Obs, choice, kernel, knob


@dataclass
class GauntletConfig:
    """Knobs of `gauntlet`."""

    death: str = choice("progress", DEATHS, "Reward at the player's death: -(1 - waves cleared / 30), -1, or 0.")
    reward_wave: float = knob(0.0, "Shaping, opt-in: reward per cleared wave (metric shaping_wave).")
    reward_hp: float = knob(
        0.0,
        "Shaping, opt-in: reward per full hp bar gained, the same penalty per hp bar lost "
        "(metric shaping_hp). It sums to the hp change over the run, so surviving longer "
        "earns nothing from it; it pays a heal and charges a hit when they happen.",
    )
    reward_waste: float = knob(
        0.0,
        "Shaping, opt-in: penalty per full bar (99 points) of a heal or restore dose drunk above the maximum, "
        "the part it cannot fill (metric shaping_waste; the points: supplies_wasted).",
        low=0,
    )
    start_wave: int = knob(
        1, "Wave the run starts at (1..30); above 1 the player arrives worn, as if it had fought its way there."
    )
    start_spread: int = knob(
        0, "Start at a wave drawn uniformly from start_wave..start_wave + start_spread (capped at 30)."
    )
    max_ticks: int = knob(
        12000, "Tick limit; reaching it ends the run as a death does (same penalty, metric timed_out)."
    )


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
            raise ValueError(
                f"gauntlet: {name} must be at least {0 if name == 'start_spread' else 1}, got {getattr(cfg, name)}"
            )
    return Obs(OBS_SIZE, np.float32, low=-1.0, high=1.0)


def _state() -> dict:
    ints = (
        "row",
        "col",
        "hp",
        "pp",
        "drain",
        "prayer",
        "gear",
        "target",
        "atk",
        "heals",
        "restores",
        "last_src",
        "wave",
        "gap",
        "shield_c",
        "shield_dir",
        "spawn_t",
        "zuk_flags",
    )
    state = {n: "i4" for n in ints}
    state["pil_hp"] = ("i4", (PILLARS,))
    state.update({n: ("i1", (SLOTS,)) for n in ("m_type", "m_state", "m_flag", "m_tele", "m_style", "m_link", "m_vis")})
    state.update({n: ("i2", (SLOTS,)) for n in ("m_hp", "m_r", "m_c", "m_atk", "m_idle")})
    return state


# valid state values (checked before a state from a file reaches a kernel): tiles in the arena (the final boss's
# slot sits north of it), indices of the type and gear tables, slots, styles, timers within what the rules set
BOUNDS = {
    "row": (0, ROWS - 1),
    "col": (0, COLS - 1),
    "hp": (0, MAX_HP),
    "pp": (0, PRAY_MAX),
    "drain": (0, DRAIN_EVERY - 1),
    "prayer": (0, 4 - 1),
    "gear": (0, 1),
    "target": (-1, SLOTS - 1),
    "atk": (0, max(GEAR_SPEED.max(), HEAL_DELAY)),
    "heals": (0, HEALS),
    "restores": (0, RESTORES),
    "last_src": (-1, len(SOURCES) - 1),
    "wave": (1, WAVES),
    "gap": (0, WAVE_GAP),
    "shield_c": (0, SHIELD_MAX),
    "shield_dir": (-1, 1),
    "spawn_t": (0, FINAL_SPAWN_EVERY),
    "zuk_flags": (0, BOSS_CALLED | HEALERS_CALLED),
    "pil_hp": (0, PILLAR_HP),
    "m_type": (0, TYPES - 1),
    "m_state": (0, BURROWED),
    "m_flag": (0, (1 << (SLIDE_SHIFT + 2)) - 1),
    "m_tele": (0, MAGIC + 1),
    "m_style": (0, MAGIC),
    "m_link": (-1, SLOTS - 1),
    "m_vis": (0, 1),
    "m_hp": (0, HP.max()),
    "m_r": (ZUK_R, ROWS - 1),
    "m_c": (0, COLS - 1),
    "m_atk": (0, max(SPEED.max(), ZUK_SPEED + 4, TELEGRAPH + 2 * BOSSES_IN_BOSS_WAVE)),
    "m_idle": (0, max(BURROW_AFTER, BURROW_TICKS)),
}


class Gauntlet(Env):
    """Thirty waves, three pillars, a multi-boss wave and a final boss behind a moving shield; one player."""

    name = "gauntlet"
    num_agents = 1
    obs = staticmethod(_obs)
    actions = Heads(
        move=SIZES[MOVE], prayer=SIZES[PRAYER], gear=SIZES[GEAR], target=SIZES[TARGET], supply=SIZES[SUPPLY]
    )
    state = _state()
    bounds = BOUNDS
    phases = (*(f"wave {w}" for w in range(1, BOSS_WAVE)), "bosses", *(f"final/{n}" for n in STAGE_NAMES))
    metrics = METRICS
    watermarks = {"lowest_hp": ("hp", None)}
    Config = GauntletConfig
    reset, step, observe = reset, step, observe
    scripted = {"competent": competent, "steady": steady, "expert": expert}
    best_scripted = "expert"

    render_ansi = staticmethod(render.render_ansi)
    describe = staticmethod(render.describe)
    draw = staticmethod(render.draw)
    invariants = staticmethod(render.invariants)

    cell_fields = cells.CELL_FIELDS
    cell_keys = staticmethod(cells.cell_keys)

    start_group_key = "wave"

    @staticmethod
    def start_groups(records: np.ndarray) -> np.ndarray:
        """Start group of each record for curricula: the wave it is at (1..30; 30 holds the final boss's stages)."""
        return records["wave"].astype(np.int64)

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell of one record: the :data:`cell_fields` values (see :mod:`sparring.envs.gauntlet.cells`)."""
        return cells.cell_tuple(s)

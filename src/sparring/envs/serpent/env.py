"""`serpent`: a single-player boss fight of rotations, forms, venom, clouds, adds and supplies.

The numbers are in :mod:`sparring.envs.serpent.world`, the tick in
:mod:`sparring.envs.serpent.rules` (the boss in :mod:`sparring.envs.serpent.boss`,
what the player may do in :mod:`sparring.envs.serpent.legal`), the observation
in :mod:`sparring.envs.serpent.observe`; the scripted players (``reference``
knows the rotations, ``reactive`` does not) in :mod:`sparring.envs.serpent.scripted`.

Reward: +1 when the boss dies; at the player's death the ``death`` penalty
(``progress``, the default: -(1 - fraction of the boss's hp taken); ``minus_one``:
-1; ``zero``: 0). Reaching the tick limit ends the fight as a death does, with the same
penalty for the same damage dealt (a terminal, metric ``timed_out``), so dodging without
attacking until the time runs out never pays more than dying with the same progress.
Shaping is opt-in: ``reward_damage`` per full boss hp bar dealt (metric ``shaping_damage``),
0 by default.

Phases are labelled ``<rotation>/<phase>`` (``A/1`` .. ``D/10``): the phase the
boss is in, or is diving towards. Metrics: ``win`` (boss killed), ``timed_out``
(the tick limit ended the fight), ``kill_time`` (tick of the kill, 0 without one), ``damage_dealt``,
damage taken by source (``taken_venom``, ``taken_clouds``, ``taken_smash``,
``taken_ranged``, ``taken_magic``, ``taken_adds``), supplies used
(``food_eaten``, ``prayer_doses``, ``antivenom_doses``), ``phases_seen``.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.serpent import render
from sparring.envs.serpent.text import SerpentText
from sparring.envs.serpent.observe import OBS_SIZE, write_obs
from sparring.envs.serpent.rules import new_fight, resolve_tick
from sparring.envs.serpent.scripted import reactive, reference
from sparring.envs.serpent.world import (
    ADD_HP,
    ADD_SLOTS,
    ADD_SPEED,
    ANTIVENOM_DOSES,
    ANTIVENOM_TICKS,
    ATTACK,
    BOSS_SPEED,
    CLOUD_SLOTS,
    CLOUD_TICKS,
    DEALT,
    DEATHS,
    DIVE_TICKS,
    DRAIN_EVERY,
    EAT_TICKS,
    GEAR,
    GRID,
    MAX_HP,
    METRICS,
    MOVE,
    PHASES,
    PHASES_SEEN,
    PRAY_MAX,
    PRAYER,
    PRAYER_DOSES,
    ROT_NAMES,
    ROTATIONS,
    SIZES,
    SMASH_REST,
    SPEED,
    STARE_TICKS,
    SUPPLY,
    SURFACE_TICKS,
    VENOM_EVERY,
    VENOM_MAX,
)
from sparring.kit import Env, Heads, Obs, choice, kernel, knob


@dataclass
class SerpentConfig:
    """Knobs of `serpent`."""

    boss_hp: int = knob(360, "The boss's hit points.")
    food: int = knob(4, "Food the player brings (each heals 20).")
    max_ticks: int = knob(
        600, "Tick limit; reaching it ends the fight as a death does (same penalty, metric timed_out)."
    )
    death: str = choice(
        "progress", DEATHS, "Reward at the player's death: -1, 0, or -(1 - fraction of the boss's hp taken)."
    )
    reward_damage: float = knob(
        0.0, "Shaping, opt-in: reward per full boss hp bar of damage dealt (metric shaping_damage)."
    )


# thin kernels over compiled helpers keep the kit's inlined batch loops small
@kernel
def reset(s, cfg):
    new_fight(s, cfg)


@kernel
def step(s, cfg, act, rew, term, trunc):
    resolve_tick(s, cfg, act, rew, term)  # fights end only by terminals: the tick limit pays like a death


@kernel
def observe(s, cfg, obs, mask):
    write_obs(s, cfg, obs, mask)


def _obs(cfg) -> Obs:
    for name, low in (("boss_hp", 1), ("food", 0), ("max_ticks", 1)):
        if getattr(cfg, name) < low:
            raise ValueError(f"serpent: {name} must be at least {low}, got {getattr(cfg, name)}")
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
        "atk",
        "eat",
        "food",
        "doses",
        "antivenom",
        "venom",
        "venom_t",
        "venom_immune",
        "rotation",
        "stage",
        "boss_hp",
        "form",
        "pos",
        "surfaced",
        "timer",
        "boss_atk",
        "stare",
        "stare_r",
        "stare_c",
    )
    state = {n: "i4" for n in ints}
    state.update(
        seen_form=("i1", (PHASES,)),
        seen_pos=("i1", (PHASES,)),
        cloud_r=("i1", (CLOUD_SLOTS,)),
        cloud_c=("i1", (CLOUD_SLOTS,)),
        cloud_t=("i2", (CLOUD_SLOTS,)),
    )
    state.update({n: ("i4", (ADD_SLOTS,)) for n in ("add_r", "add_c", "add_hp", "add_atk")})
    return state


def _bounds(cfg) -> dict:
    """Valid state values (checked before a state from a file reaches a kernel): tiles on the platform, indices of
    the rotation tables and the observation's one-hots, timers and supplies within what the rules set."""
    tile = (0, GRID - 1)
    return {
        "row": tile,
        "col": tile,
        "hp": (0, MAX_HP),
        "pp": (0, PRAY_MAX),
        "drain": (0, DRAIN_EVERY - 1),
        "prayer": (0, 2),
        "gear": (0, 1),
        "atk": (0, SPEED),
        "eat": (0, EAT_TICKS),
        "food": (0, cfg.food),
        "doses": (0, PRAYER_DOSES),
        "antivenom": (0, ANTIVENOM_DOSES),
        "venom": (0, VENOM_MAX),
        "venom_t": (0, VENOM_EVERY),
        "venom_immune": (0, ANTIVENOM_TICKS),
        "rotation": (0, ROTATIONS - 1),
        "stage": (0, PHASES - 1),
        "boss_hp": (0, cfg.boss_hp),
        "form": (-1, 2),
        "pos": (-1, 3),
        "surfaced": (0, 1),
        "timer": (0, max(DIVE_TICKS, SURFACE_TICKS)),
        "boss_atk": (0, max(BOSS_SPEED, SMASH_REST)),
        "stare": (0, STARE_TICKS),
        "stare_r": tile,
        "stare_c": tile,
        "seen_form": (-1, 2),
        "seen_pos": (-1, 3),
        "cloud_r": tile,
        "cloud_c": tile,
        "cloud_t": (0, CLOUD_TICKS),
        "add_r": tile,
        "add_c": tile,
        "add_hp": (0, ADD_HP),
        "add_atk": (0, ADD_SPEED),
    }


class Serpent(Env):
    """A boss with four rotations of (form, position) phases, venom, clouds and adds; one player."""

    name = "serpent"
    num_agents = 1
    obs = staticmethod(_obs)
    actions = Heads(
        move=SIZES[MOVE], prayer=SIZES[PRAYER], gear=SIZES[GEAR], attack=SIZES[ATTACK], supply=SIZES[SUPPLY]
    )
    state = _state()
    bounds = staticmethod(_bounds)
    phases = tuple(f"{ROT_NAMES[r]}/{k + 1}" for r in range(ROTATIONS) for k in range(PHASES))
    metrics = METRICS
    watermarks = {"lowest_hp": ("hp", None)}
    Config = SerpentConfig
    reset, step, observe = reset, step, observe
    scripted = {"reference": reference, "reactive": reactive}
    best_scripted = "reference"

    render_ansi = staticmethod(render.render_ansi)
    describe = staticmethod(render.describe)
    text = SerpentText
    draw = staticmethod(render.draw)
    invariants = staticmethod(render.invariants)

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell: phase, boss hp in tenths, player hp in quarters, supplies left."""
        return (
            int(s["phase"]),
            int(s["boss_hp"]) * 10 // cfg.boss_hp,
            int(s["hp"]) // 25,
            int(s["food"] + s["doses"] + s["antivenom"]),
        )

    cell_fields = ("dealt", "phase", "hp", "supplies")
    start_group_key = "phase"

    @staticmethod
    def start_groups(records: np.ndarray) -> np.ndarray:
        """Start group of each record for curricula: the fight's phase so far, counted on through the rotation's
        repeats (phases_seen + 1: 1..10 the first time through, 11.. the second; ``stage`` is this mod 10)."""
        return records["metrics"][:, PHASES_SEEN].astype(np.int64) + 1

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

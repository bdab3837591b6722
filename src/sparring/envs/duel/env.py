"""`duel`: a 1v1 arena fight of attack styles, protection prayers, gear, hit delays and food.

The numbers are in :mod:`sparring.envs.duel.world`, the tick in
:mod:`sparring.envs.duel.rules` (what a fighter may do in
:mod:`sparring.envs.duel.legal`), the observation in
:mod:`sparring.envs.duel.observe`, the scripted ladder in
:mod:`sparring.envs.duel.scripted`. Seat 1 is a scripted fighter chosen by
``opponent`` (the env plays it inside ``step`` and ignores the actions given
for it), or a learner (``opponent="learner"``, e.g. self-play).

Reward: +1 for the fighter that brings the other to 0 hp, -1 for the other,
0 for both at a double knockout (metric ``draw``). Reaching the tick limit is a loss
for both fighters: -1 each (a terminal, metric ``timed_out``; neither ``win`` nor
``draw``). So no fighter can earn more by running out the clock than by losing sooner,
and in self-play each seat's best answer to a stall is to fight. (A limit decided on
remaining hp would pay the fighter ahead for running away instead.) Shaping is
opt-in (``reward_damage``, ``reward_taken``, ``reward_prayer``, all 0 by default) and each term
has its own episode metric; the per-hit terms pay for every tick a fight lasts, which is
why training fades them to 0. Metrics are from seat 0's point of view.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.duel import render
from sparring.envs.duel.text import DuelText
from sparring.envs.duel.observe import OBS_SIZE, write_obs
from sparring.envs.duel.rules import new_fight, resolve_tick
from sparring.envs.duel.scripted import random, reactive, robot, tribrid
from sparring.envs.duel.world import (
    ARENA,
    COMBOS,
    EAT_TICKS,
    FOODS,
    FREEZE_TICKS,
    HEADS,
    IMMUNE_TICKS,
    MAX_DELAY,
    MAX_HP,
    MAX_SPEED,
    METRICS,
    OPPONENTS,
    PHASES,
    POTS,
    PRAY_MAX,
    SIZES,
    SPEC_HIT,
    SPEC_MAX,
)
from sparring.kit import Env, Heads, Obs, choice, kernel, knob


@dataclass
class DuelConfig:
    """Knobs of `duel`."""

    opponent: str = choice(
        "robot", OPPONENTS, "Who plays seat 1: a scripted tier, or 'learner' (actions from outside, e.g. self-play)."
    )
    foresight: float = knob(
        0.5,
        "Chance per tick that the scripted robot sees seat 0's chosen actions before "
        "choosing its own (the other tiers ignore it).",
    )
    max_ticks: int = knob(250, "Tick limit; reaching it is a loss for both fighters (-1 each, metric timed_out).")
    low_hp: float = knob(
        0.4, "Hp fraction below which a fighter is low (phase 'low_hp'; 'finish' once it also has no food left)."
    )
    reward_damage: float = knob(0.0, "Shaping, opt-in: reward per full hp bar of damage dealt (metric shaping_damage).")
    reward_taken: float = knob(
        0.0,
        "Shaping, opt-in: penalty per full hp bar of damage taken (metric shaping_taken); "
        "equal to reward_damage it makes the shaping zero-sum.",
    )
    reward_prayer: float = knob(
        0.0, "Shaping, opt-in: reward each time one's prayer protects from a launched hit (metric shaping_prayer)."
    )


# The kit inlines reset, step and observe into its batched loops (observe four
# times); thin kernels over compiled helpers keep the cold compile short.
@kernel
def reset(s, cfg):
    new_fight(s, cfg)


@kernel
def step(s, cfg, act, rew, term, trunc):
    resolve_tick(s, cfg, act, rew, term)  # fights end only by terminals: the tick limit is a loss for both


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
    names = (
        "hp",
        "pp",
        "spec",
        "gear",
        "prayer",
        "atk",
        "eat",
        "frozen",
        "immune",
        "food",
        "combo",
        "pots",
        "row",
        "col",
        "p_left",
        "p_style",
        "p_dmg",
        "p_freeze",
    )
    return {n: ("i4", (2,)) for n in names}


# valid values per fighter (checked before a state from a file reaches a kernel; gear and p_style index the
# weapon tables, the last actions the observation's one-hots)
BOUNDS = {
    "hp": (0, MAX_HP),
    "pp": (0, PRAY_MAX),
    "spec": (0, SPEC_MAX),
    "gear": (0, 2),
    "prayer": (0, 3),
    "atk": (0, MAX_SPEED),
    "eat": (0, EAT_TICKS),
    "frozen": (0, FREEZE_TICKS),
    "immune": (0, IMMUNE_TICKS),
    "food": (0, FOODS),
    "combo": (0, COMBOS),
    "pots": (0, POTS),
    "row": (0, ARENA - 1),
    "col": (0, ARENA - 1),
    "p_left": (0, MAX_DELAY),
    "p_style": (0, 2),
    "p_dmg": (0, SPEC_HIT),
    "p_freeze": (0, 1),
    "last": (0, np.array(SIZES) - 1),
}


class Duel(Env):
    """A 1v1 PvP arena against a scripted ladder (random, reactive, tribrid, robot) or a learner."""

    name = "duel"
    num_agents = 2
    seats = ("player", "opponent")
    obs = staticmethod(_obs)
    actions = Heads(move=SIZES[0], style=SIZES[1], prayer=SIZES[2], food=SIZES[3], spec=SIZES[4])
    state = {**_fighter_fields(), "last": ("i4", (2, HEADS))}
    bounds = BOUNDS
    phases = PHASES
    metrics = METRICS
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
    text = DuelText
    draw = staticmethod(render.draw)

    @staticmethod
    def invariants(s, cfg) -> list[str]:
        """Values inside their ranges; fighters on distinct arena tiles; freeze and immunity exclusive."""
        bad = []
        limits = {
            "hp": MAX_HP,
            "pp": PRAY_MAX,
            "spec": SPEC_MAX,
            "food": FOODS,
            "combo": COMBOS,
            "pots": POTS,
            "atk": MAX_SPEED,
            "eat": EAT_TICKS,
            "frozen": FREEZE_TICKS,
            "immune": IMMUNE_TICKS,
            "p_left": MAX_DELAY,
            "gear": 2,
            "prayer": 3,
            "row": ARENA - 1,
            "col": ARENA - 1,
        }
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
        return tuple(
            (int(s["hp"][a]) // 10, int(s["food"][a] + s["combo"][a]), bool(s["frozen"][a] > 0)) for a in range(2)
        )

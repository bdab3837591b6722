"""`town`: characters with needs, goods, skills and goals living in a small town.

The world (places, prices, needs, goals) is in :mod:`sparring.envs.town.world`,
the tick in :mod:`sparring.envs.town.rules` (who sees whom and what is legal in
:mod:`sparring.envs.town.legal`, what each action does in
:mod:`sparring.envs.town.actions`), the observation in
:mod:`sparring.envs.town.observe`, the scripted planner in
:mod:`sparring.envs.town.planner`. Every character is an agent row with one
action head (an id into the action table; ``legal_actions_text`` lists them
in words; the text face is :class:`~sparring.envs.town.text.TownText`). The
last ``background`` characters are played by the planner inside the env; the
others are learners.

Rewards, per character: +1 when its goal is completed, ``-faint_penalty``
when a need reaches 0 (the character faints: it is out for the rest of the
episode, a masked row with a zero observation and only noop allowed, and its
row stays terminal), and opt-in shaping ``reward_needs`` x mean need per tick
(default 0, metric ``shaping_needs``), and opt-in ``reward_team`` x the share of the
other characters who completed their goal this tick (default 0, metric ``shaping_team``:
the planner's evening trips to the tavern make others' gatherings, which their own goal
reward does not pay for). The episode ends after ``days`` days
(a termination for everyone: the days are the game) or when everyone has fainted.

Towns of other sizes are :func:`town_class` ``(n)`` (2 to 64 characters); ``town16``
and ``town64`` are registered.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.town import observe as town_observe
from sparring.envs.town import render
from sparring.envs.town import text as words
from sparring.envs.town.emergence import emergence
from sparring.envs.town.emergence_plots import write_emergence_plots
from sparring.envs.town.emergence_tables import format_emergence
from sparring.envs.town.planner import planner
from sparring.envs.town.tally import TownTally
from sparring.envs.town.rules import new_town, tick
from sparring.envs.town.world import (
    DAY,
    GOALS,
    GOODS,
    MAX_CHARACTERS,
    MAX_COINS,
    MAX_GOOD,
    MAX_PRICE,
    NEEDS,
    NUM_ACTIONS,
    OFFER_TTL,
    SIZE,
    SKILLS,
    SLOTS,
)
from sparring.kit import Env, Heads, Obs, kernel, knob


@dataclass
class TownConfig:
    """Knobs of `town`."""

    days: int = knob(3, "Days per episode (48 ticks of half an hour each).")
    background: int = knob(
        0,
        "How many characters (the last seats) the scripted planner plays inside the env; "
        "the rest are learners. 0..characters-1.",
    )
    faint_penalty: float = knob(1.0, "Reward lost by a character when it faints (a need reached 0).")
    reward_needs: float = knob(
        0.0, "Shaping, opt-in: reward per tick times the character's mean need (metric shaping_needs)."
    )
    reward_team: float = knob(
        0.0,
        "Shaping, opt-in: a standing character's reward, times the fraction of the other "
        "characters who complete their goal this tick (metric shaping_team).",
    )


# thin kernels over compiled helpers keep the kit's inlined batch loops small
@kernel
def reset(s, cfg):
    new_town(s, cfg)


@kernel
def step(s, cfg, act, rew, term, trunc):
    tick(s, cfg, act, rew, term, trunc)


@kernel
def observe(s, cfg, obs, mask):
    town_observe.write(s, cfg, obs, mask)


def _obs(cfg) -> Obs:
    if cfg.days < 1:
        raise ValueError(f"town: days must be at least 1, got {cfg.days}")
    if cfg.faint_penalty < 0:
        raise ValueError(f"town: faint_penalty must be >= 0 (it is subtracted), got {cfg.faint_penalty}")
    return Obs(town_observe.OBS_SIZE, np.float32, low=-1.0, high=1.0)


def _state(n: int) -> dict:
    per = {
        "row": "i4",
        "col": "i4",
        "coins": "i4",
        "goal": "i4",
        "goal_done": "i4",
        "alive": "i4",
        "built": "i4",
        "inbox": "i4",
        "out_to": "i4",
        "out_good": "i4",
        "out_price": "i4",
        "out_ttl": "i4",
        "last": "i4",
    }
    state = {k: (v, (n,)) for k, v in per.items()}
    state.update(
        needs=("f4", (n, NEEDS)),
        skill=("f4", (n, SKILLS)),
        goods=("i4", (n, GOODS)),
        worked=("i4", (n, SKILLS)),
        slots=("i4", (n, SLOTS)),
        rel=("f4", (n, n)),
    )
    return state


def _bounds(n: int) -> dict:
    """Valid state values for ``n`` characters (checked before a state from a file reaches a kernel): tiles on
    the map, character ids (-1: none) where a kernel indexes by one, goods, goals and action ids by their tables."""
    who = (-1, n - 1)
    return {
        "row": (0, SIZE - 1),
        "col": (0, SIZE - 1),
        "coins": (0, MAX_COINS),
        "goal": (0, GOALS - 1),
        "goal_done": (0, 1),
        "alive": (0, 1),
        "built": (0, 1),
        "inbox": who,
        "out_to": who,
        "out_good": (0, GOODS - 1),
        "out_price": (0, MAX_PRICE),
        "out_ttl": (0, OFFER_TTL + 1),
        "last": (0, NUM_ACTIONS - 1),
        "needs": (0.0, 1.0),
        "skill": (0.0, 1.0),
        "goods": (0, MAX_GOOD),
        "worked": (0, None),
        "slots": who,
        "rel": (0.0, 1.0),
    }


class Town(Env):
    """Eight characters with needs, goods, skills and goals; any of them a learner or the scripted planner."""

    name = "town"
    num_agents = 8
    obs = staticmethod(_obs)
    actions = Heads(action=NUM_ACTIONS)
    state = _state(8)

    @classmethod
    def bounds(cls, cfg) -> dict:
        """Valid state values of this town size (see :func:`_bounds`)."""
        return _bounds(cls.num_agents)

    phases = ("day", "night", "crisis")
    metrics = (
        "goal_rate",
        "survival",
        "faints",
        "trades",
        "trade_coins",
        "mean_price",
        "spec_entropy",
        "coin_gini",
        "friendships",
        "houses",
        "shaping_needs",
        "shaping_team",
    )
    Config = TownConfig
    reset, step, observe = reset, step, observe
    scripted = {"planner": planner}
    best_scripted = "planner"

    @classmethod
    def learner_seats(cls, config) -> tuple[int, ...]:
        """The first ``characters - background`` seats."""
        if not 0 <= config.background < cls.num_agents:
            raise ValueError(
                f"town: background must be in [0, {cls.num_agents - 1}] for {cls.num_agents} "
                f"characters, got {config.background}"
            )
        return tuple(range(cls.num_agents - config.background))

    render_ansi = staticmethod(render.render_ansi)
    draw = staticmethod(render.draw)
    describe = staticmethod(words.describe)
    legal_actions_text = staticmethod(words.legal_actions_text)
    text = words.TownText
    invariants = staticmethod(render.invariants)
    tally = TownTally
    emergence = staticmethod(emergence)
    format_emergence = staticmethod(format_emergence)
    emergence_plots = staticmethod(write_emergence_plots)

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell: the day, goals completed and characters standing."""
        return int(s["tick"]) // DAY, int(s["goal_done"].sum()), int(s["alive"].sum())

    cell_fields = ("hour", "goals", "standing")

    @staticmethod
    def cell_keys(records: np.ndarray) -> np.ndarray:
        """Archive cell key per record (see sparring.explore.cells): hours since the first morning (the
        progress), goals completed and characters standing, one byte each."""
        hour = np.minimum(records["tick"].astype(np.int64) * 24 // DAY, 255)
        goals = records["goal_done"].sum(axis=1).astype(np.int64)
        standing = records["alive"].sum(axis=1).astype(np.int64)
        return (hour << 16) | (goals << 8) | standing


_CLASSES: dict[int, type] = {8: Town}


def town_class(n: int) -> type:
    """The town env class with ``n`` characters (2..64), registered as ``town<n>`` when built here."""
    if not isinstance(n, (int, np.integer)) or not 2 <= n <= MAX_CHARACTERS:
        raise ValueError(f"town: characters must be an int in [2, {MAX_CHARACTERS}], got {n!r}")
    n = int(n)
    if n not in _CLASSES:
        _CLASSES[n] = type(
            f"Town{n}",
            (Town,),
            {
                "name": f"town{n}",
                "num_agents": n,
                "state": _state(n),
                "__qualname__": f"Town{n}",
                "__module__": __name__,
                "__doc__": f"`town` with {n} characters.",
            },
        )
    return _CLASSES[n]


Town16, Town64 = town_class(16), town_class(64)

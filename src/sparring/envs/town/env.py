"""`town`: characters with needs, goods, skills and goals living in a small town.

The world (places, prices, needs, goals) is in :mod:`sparring.envs.town.world`,
the rules in :mod:`sparring.envs.town.rules`, the scripted planner in
:mod:`sparring.envs.town.planner`. Every character is an agent row with one
action head (an id into the action table; ``legal_actions_text`` lists them
in words). The last ``background`` characters are played by the planner
inside the env; the others are learners.

Rewards, per character: +1 when its goal is completed, ``-faint_penalty``
when a need reaches 0 (the character faints: it is out for the rest of the
episode, a masked row with a zero observation and only noop allowed, and its
row stays terminal), and opt-in shaping ``reward_needs`` x mean need per tick
(default 0, metric ``shaping_needs``), and opt-in ``reward_team`` x the share of the
other characters who completed their goal this tick (default 0, metric ``shaping_team``:
the planner's evening trips to the tavern make others' gatherings, which their own goal
reward does not pay for). The episode ends after ``days`` days
(a truncation for those still standing) or when everyone has fainted.

Towns of other sizes are :func:`town_class` ``(n)`` (2 to 64 characters); ``town16``
and ``town64`` are registered.
"""

from dataclasses import dataclass

import numpy as np

from sparring.envs.town import metrics as town_metrics
from sparring.envs.town import observe as town_observe
from sparring.envs.town import render, text
from sparring.envs.town.metrics import FAINTS, SHAPING_NEEDS, SHAPING_TEAM, TRADE_COINS, TRADES
from sparring.envs.town.planner import plan, planner
from sparring.envs.town.rules import (
    act, at_place, close_offer, find_slots, is_night, legal, live_on, mean_need, min_need, others_at,
)
from sparring.envs.town.world import (
    DAY, GATHER_OTHERS, GOAL_COINS, GOALS, GOODS, HOME_COL, HOME_ROW, HOUSE, MAX_CHARACTERS, NEEDS,
    NUM_ACTIONS, RICH, SKILL_START, SKILLS, SLOTS, TAVERN, BREAD,
)
from sparring.kit import Env, Heads, Obs, helper, kernel, knob, rand_float, rand_int

DAY_PHASE, NIGHT_PHASE, CRISIS = range(3)
CRISIS_NEED = 0.15  # a learner with a need below this puts the town in phase "crisis"


@dataclass
class TownConfig:
    """Knobs of `town`."""

    days: int = knob(3, "Days per episode (48 ticks of half an hour each).")
    background: int = knob(0, "How many characters (the last seats) the scripted planner plays inside the env; "
                              "the rest are learners. 0..characters-1.")
    faint_penalty: float = knob(1.0, "Reward lost by a character when it faints (a need reached 0).")
    reward_needs: float = knob(0.0, "Shaping, opt-in: reward per tick times the character's mean need (metric "
                                    "shaping_needs).")
    reward_team: float = knob(0.0, "Shaping, opt-in: a standing character's reward, times the fraction of the other "
                                   "characters who complete their goal this tick (metric shaping_team).")


@helper
def new_town(s, cfg):
    """Everyone at home with random needs, a few coins and loaves, small skills and a random goal."""
    n = s.alive.shape[0]
    for a in range(n):
        s.row[a] = HOME_ROW[a]
        s.col[a] = HOME_COL[a]
        for k in range(NEEDS):
            s.needs[a, k] = np.float32(0.5 + 0.5 * rand_float(s))
        s.coins[a] = 5 + rand_int(s, 11)
        s.goods[a, BREAD] = rand_int(s, 3)
        for k in range(SKILLS):
            s.skill[a, k] = np.float32(SKILL_START * rand_float(s))
        s.goal[a] = rand_int(s, GOALS)
        s.alive[a] = 1
        s.inbox[a] = -1
        s.out_to[a] = -1
    find_slots(s)


@helper
def goal_reached(s, a):
    """Whether character ``a``'s goal holds now."""
    if s.goal[a] == RICH:
        return s.coins[a] >= GOAL_COINS
    if s.goal[a] == HOUSE:
        return s.built[a] == 1
    return at_place(s, a, TAVERN) and others_at(s, a, TAVERN) >= GATHER_OTHERS


@helper
def choose(s, cfg, act_in, t):
    """Every character's action for this tick into ``s.last``: learners' from ``act_in``, the planner's for the
    background; anything the mask forbids becomes noop. All choices see the same pre-tick state."""
    n = s.alive.shape[0]
    learners = n - cfg.background
    for a in range(n):
        choice = np.int64(act_in[a, 0]) if a < learners else plan(s, a, t)
        s.last[a] = choice if legal(s, a, choice, t) else 0


@helper
def resolve(s, t):
    """Carry out the choices in an order rotating each tick; one that stopped being possible does nothing."""
    n = s.alive.shape[0]
    start = t % n
    for j in range(n):
        a = (start + j) % n
        action = np.int64(s.last[a])
        if action != 0 and legal(s, a, action, t):
            price = act(s, a, action)
            if price > 0:
                s.metrics[TRADES] += 1.0
                s.metrics[TRADE_COINS] += price


@helper
def faint(s, a):
    """Character ``a`` is out: its offers are withdrawn and it stays a masked row."""
    s.alive[a] = 0
    close_offer(s, a)
    if s.inbox[a] >= 0:
        close_offer(s, np.int64(s.inbox[a]))


@helper
def live(s, cfg, t, rew):
    """Needs, fainting, offer expiry, goals and shaping after the actions."""
    n = s.alive.shape[0]
    learners = n - cfg.background
    for a in range(n):
        if s.alive[a] and live_on(s, a, t):
            faint(s, a)
            rew[a] -= cfg.faint_penalty
            if a < learners:
                s.metrics[FAINTS] += 1.0
    for a in range(n):
        if s.out_to[a] >= 0:
            s.out_ttl[a] -= 1
            if s.out_ttl[a] <= 0:
                close_offer(s, a)
    fresh = 0  # goals completed this tick, for the team term
    if cfg.reward_team != 0.0:
        for a in range(n):
            if s.alive[a] and s.goal_done[a] == 0 and goal_reached(s, a):
                fresh += 1
    for a in range(n):
        own = 0
        if s.alive[a] and s.goal_done[a] == 0 and goal_reached(s, a):
            s.goal_done[a] = 1
            rew[a] += 1.0
            own = 1
        if s.alive[a] and fresh > own:
            team = cfg.reward_team * (fresh - own) / (n - 1)
            rew[a] += team
            if a < learners:
                s.metrics[SHAPING_TEAM] += team / learners
        if s.alive[a] and cfg.reward_needs != 0.0:
            bonus = cfg.reward_needs * mean_need(s, a)
            rew[a] += bonus
            if a < learners:
                s.metrics[SHAPING_NEEDS] += bonus / learners


@helper
def phase_of(s, cfg, t):
    """crisis if a standing learner has a need below CRISIS_NEED, else night or day."""
    for a in range(s.alive.shape[0] - cfg.background):
        if s.alive[a] and min_need(s, a) < CRISIS_NEED:
            return CRISIS
    return NIGHT_PHASE if is_night(t) else DAY_PHASE


@helper
def tick(s, cfg, act_in, rew, term, trunc):
    """One half-hour of town life."""
    t = np.int64(s.tick) - 1  # the time the characters saw when they chose (int64 everywhere: one compile)
    n = s.alive.shape[0]
    choose(s, cfg, act_in, t)  # s.slots are those the characters saw: set by the last reset or tick
    resolve(s, t)
    live(s, cfg, t, rew)
    find_slots(s)
    s.phase = phase_of(s, cfg, s.tick)
    standing = 0
    over = s.tick >= cfg.days * DAY
    for a in range(n):
        term[a] = s.alive[a] == 0
        trunc[a] = over and s.alive[a] == 1
        standing += s.alive[a]
    if over or standing == 0:
        town_metrics.finish(s, n - cfg.background)


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
    per = {"row": "i4", "col": "i4", "coins": "i4", "goal": "i4", "goal_done": "i4", "alive": "i4", "built": "i4",
           "inbox": "i4", "out_to": "i4", "out_good": "i4", "out_price": "i4", "out_ttl": "i4", "last": "i4"}
    state = {k: (v, (n,)) for k, v in per.items()}
    state.update(needs=("f4", (n, NEEDS)), skill=("f4", (n, SKILLS)), goods=("i4", (n, GOODS)),
                 worked=("i4", (n, SKILLS)), slots=("i4", (n, SLOTS)), rel=("f4", (n, n)))
    return state


class Town(Env):
    """Eight characters with needs, goods, skills and goals; any of them a learner or the scripted planner."""

    name = "town"
    num_agents = 8
    obs = staticmethod(_obs)
    actions = Heads(action=NUM_ACTIONS)
    state = _state(8)
    phases = ("day", "night", "crisis")
    metrics = ("goal_rate", "survival", "faints", "trades", "trade_coins", "mean_price", "spec_entropy", "coin_gini",
               "friendships", "houses", "shaping_needs", "shaping_team")
    Config = TownConfig
    reset, step, observe = reset, step, observe
    scripted = {"planner": planner}
    best_scripted = "planner"

    @classmethod
    def learner_seats(cls, config) -> tuple[int, ...]:
        """The first ``characters - background`` seats."""
        if not 0 <= config.background < cls.num_agents:
            raise ValueError(f"town: background must be in [0, {cls.num_agents - 1}] for {cls.num_agents} "
                             f"characters, got {config.background}")
        return tuple(range(cls.num_agents - config.background))

    render_ansi = staticmethod(render.render_ansi)
    draw = staticmethod(render.draw)
    describe = staticmethod(text.describe)
    legal_actions_text = staticmethod(text.legal_actions_text)
    parse_action = staticmethod(text.parse_action)
    invariants = staticmethod(render.invariants)

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
        _CLASSES[n] = type(f"Town{n}", (Town,), {"name": f"town{n}", "num_agents": n, "state": _state(n),
                                                  "__qualname__": f"Town{n}", "__module__": __name__,
                                                  "__doc__": f"`town` with {n} characters."})
    return _CLASSES[n]


Town16, Town64 = town_class(16), town_class(64)

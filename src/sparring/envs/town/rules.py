"""The tick of `town`: a fresh town, and one half-hour of everyone's choices, needs, offers and goals.

Within a tick: every character chooses from the state it saw (learners' actions
from outside, the background's from the planner; anything the mask forbids
becomes noop); the choices are carried out in an order rotating each tick,
each only while still legal (:mod:`sparring.envs.town.actions`); then needs
decay and characters may faint, open offers age, goals and shaping pay, and
everyone's nearest neighbours are found again for the next choice.
"""

import numpy as np

from sparring.envs.town.actions import act, close_offer
from sparring.envs.town.legal import at_place, find_slots, is_night, legal, others_at
from sparring.envs.town.metrics import FAINTS, SHAPING_NEEDS, SHAPING_TEAM, TRADE_COINS, TRADES, finish
from sparring.envs.town.planner import plan
from sparring.envs.town.world import (
    BREAD,
    CRISIS,
    CRISIS_NEED,
    DAY,
    DAY_PHASE,
    DECAY,
    ENERGY,
    GATHER_OTHERS,
    GOAL_COINS,
    GOALS,
    HOME_COL,
    HOME_ROW,
    HOUSE,
    KIND,
    NEEDS,
    NIGHT_PHASE,
    NIGHT_SLEEP_ENERGY,
    RICH,
    SKILL_START,
    SKILLS,
    SLEEP,
    SLEEP_ENERGY,
    TAVERN,
)
from sparring.kit import helper, kernel, rand_float, rand_int


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


@kernel
def live_on(s, a, t):
    """Needs decay for tick ``t``; sleeping restores energy. Returns True if ``a`` faints now."""
    sleeping = KIND[s.last[a]] == SLEEP
    for k in range(NEEDS):
        if k == ENERGY and sleeping:
            gain = NIGHT_SLEEP_ENERGY if is_night(t) else SLEEP_ENERGY
            s.needs[a, k] = min(np.float32(1.0), s.needs[a, k] + np.float32(gain))
        else:
            s.needs[a, k] = max(np.float32(0.0), s.needs[a, k] - DECAY[k])
    for k in range(NEEDS):
        if s.needs[a, k] <= 0.0:
            return True
    return False


@kernel
def min_need(s, a):
    """Character ``a``'s lowest need."""
    low = s.needs[a, 0]
    for k in range(1, NEEDS):
        low = min(low, s.needs[a, k])
    return low


@kernel
def mean_need(s, a):
    """Character ``a``'s mean need."""
    total = 0.0
    for k in range(NEEDS):
        total += s.needs[a, k]
    return total / NEEDS


@kernel
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


@kernel
def tick(s, cfg, act_in, rew, term, trunc):
    """One half-hour of town life.

    A kernel: ``step`` is its only caller and is inlined once into the kit's step loop, so the rules are
    not also compiled and LLVM-optimised as a function of their own (a shorter cold compile).
    """
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
        # the days are the game (goals and survival count over them): their end is a termination, not a cut-off
        term[a] = s.alive[a] == 0 or over
        standing += s.alive[a]
    if over or standing == 0:
        finish(s, n - cfg.background)

"""Toy envs for trainer tests: masked multi-head actions, a two-seat matching game, and timed walks that truncate."""

from dataclasses import dataclass

import numpy as np

from sparring.kit import Env, Heads, Obs, choice, kernel, knob, rand_int, register


@kernel
def masked_reset(s, cfg):
    s.allowed = 1 + rand_int(s, 15)  # a non-empty subset of the 4 "pick" actions, as bits


@kernel
def masked_step(s, cfg, act, rew, term, trunc):
    if (s.allowed >> act[0, 0]) & 1 == 0 or act[0, 1] == 2:
        s.metrics[0] = 1.0  # a forbidden action got through
    rew[0] = 1.0 if act[0, 1] == 0 else 0.0
    term[0] = s.tick >= 5


@kernel
def masked_observe(s, cfg, obs, mask):
    for k in range(4):
        obs[0, k] = (s.allowed >> k) & 1
        mask[0, k] = (s.allowed >> k) & 1 == 1
    mask[0, 4 + 2] = False  # the last value of head "side" is never legal


class MaskedPick(Env):
    """Two heads of different sizes; per episode a random subset of "pick" and never side=2 is legal."""

    name = "toy_masked_pick"
    obs = Obs(4, np.uint8, low=0, high=1)
    actions = Heads(pick=4, side=3)
    state = {"allowed": "i4"}
    metrics = ("forbidden",)
    reset, step, observe = masked_reset, masked_step, masked_observe


@dataclass
class MatchConfig:
    """Knobs of the matching game."""

    opponent: str = choice("none", ("none", "zeros"), "none: both seats learn; zeros: seat 1 always plays 0")


@kernel
def match_reset(s, cfg):
    s.cue = rand_int(s, 2)


@kernel
def match_step(s, cfg, act, rew, term, trunc):
    other = 0 if cfg.opponent == 1 else act[1, 0]
    won = act[0, 0] == other
    rew[0] = 1.0 if won else -1.0
    rew[1] = -rew[0]
    s.metrics[0] = 1.0 if won else 0.0
    term[0] = True
    term[1] = True


@kernel
def match_observe(s, cfg, obs, mask):
    obs[0, 0] = s.cue
    obs[1, 0] = s.cue


@kernel
def match_zeros(s, cfg, agent, act):
    act[0] = 0


class Match(Env):
    """Seat 0 wins a one-tick game by matching seat 1's bit; seat 1 wins by differing."""

    name = "toy_match"
    num_agents = 2
    obs = Obs(1, np.uint8, low=0, high=1)
    actions = Heads(bit=2)
    state = {"cue": "i4"}
    metrics = ("win",)
    Config = MatchConfig
    reset, step, observe = match_reset, match_step, match_observe
    scripted = {"always_zero": match_zeros}

    @classmethod
    def learner_seats(cls, config):
        return (0,) if config.opponent == "zeros" else (0, 1)


@dataclass
class TimedConfig:
    """Knobs of the timed walks."""

    limit: int = knob(6, "Ticks after which the time limit cuts the episode off (a truncation).")


@kernel
def timed_reset(s, cfg):
    for a in range(s.pos.shape[0]):
        s.pos[a] = rand_int(s, 5)


@kernel
def timed_step(s, cfg, act, rew, term, trunc):
    fell = False
    for a in range(act.shape[0]):
        s.pos[a] = (s.pos[a] + act[a, 0] + rand_int(s, 2)) % 8
        rew[a] = 0.25 * s.pos[a] - 0.75
        fell = fell or s.pos[a] == 7
    for a in range(act.shape[0]):
        term[a] = fell  # the game ends: a terminal, even in the tick the limit comes
        trunc[a] = s.tick >= cfg.limit


@kernel
def timed_observe(s, cfg, obs, mask):
    for a in range(obs.shape[0]):
        obs[a, 0] = s.pos[a] + 1
        obs[a, 1] = min(s.tick, 15) + 1


class TimedWalk(Env):
    """A walk on a ring of 8 that ends (terminates) on tile 7 and is cut off (truncated) after ``limit`` ticks."""

    name = "toy_timed_walk"
    obs = Obs(2, np.uint8, low=0, high=16)
    actions = Heads(move=3)
    state = {"pos": ("i4", (1,))}
    Config = TimedConfig
    reset, step, observe = timed_reset, timed_step, timed_observe


class TimedPair(TimedWalk):
    """Two walkers on one ring: either reaching tile 7 ends the episode for both; the limit cuts both off."""

    name = "toy_timed_pair"
    num_agents = 2
    state = {"pos": ("i4", (2,))}


register("toy_masked_pick", MaskedPick)
register("toy_match", Match)
register("toy_timed_walk", TimedWalk)
register("toy_timed_pair", TimedPair)


@kernel
def roles_reset(s, cfg):
    s.hits = 0


@kernel
def roles_step(s, cfg, act, rew, term, trunc):
    hits = 0
    for a in range(act.shape[0]):
        rew[a] = 1.0 if act[a, 0] == a else 0.0  # each seat has its own right answer to the same observation
        hits += act[a, 0] == a
        term[a] = s.tick >= 2
    s.metrics[0] = hits / act.shape[0]  # the share of seats right in the last tick


@kernel
def roles_observe(s, cfg, obs, mask):
    for a in range(obs.shape[0]):
        obs[a, 0] = 0


@kernel
def roles_right(s, cfg, agent, act):
    act[0] = agent


class Roles(Env):
    """Four seats see the same observation; seat k earns 1 per tick for playing k: one policy per seat can learn
    what one shared policy (which cannot tell the seats apart) cannot."""

    name = "toy_roles"
    num_agents = 4
    obs = Obs(1, np.uint8, low=0, high=1)
    actions = Heads(pick=4)
    state = {"hits": "i4"}
    metrics = ("hits",)
    reset, step, observe = roles_reset, roles_step, roles_observe
    scripted = {"right": roles_right}


register("toy_roles", Roles)

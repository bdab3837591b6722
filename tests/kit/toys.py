"""Small toy envs for the doctor's tests: one honest walk and one deliberately broken variant per check."""

from dataclasses import dataclass

import numpy as np

from sparring.kit import Env, Heads, Obs, kernel, knob, rand_int

LENGTH = 8
STAY, LEFT, RIGHT = 0, 1, 2


@dataclass
class WalkConfig:
    """Knobs of the toy walk."""

    speed: int = knob(1, "tiles per move")
    visits: int = knob(0, "a counter only the broken HidesState env (ab)uses")


@kernel
def walk_reset(s, cfg):
    s.pos = 0
    s.goal = 2 + rand_int(s, LENGTH - 2)


@kernel
def walk_step(s, cfg, act, rew, term, trunc):
    move = act[0, 0]
    if move == LEFT and s.pos > 0:
        s.pos -= 1
    elif move == RIGHT and s.pos < LENGTH:
        s.pos = min(LENGTH, s.pos + cfg.speed)
    if s.pos == s.goal:
        rew[0] = 1.0
        term[0] = True
        s.metrics[0] = 1.0
    elif s.tick >= 20:
        trunc[0] = True
    s.phase = 1 if s.pos * 2 >= s.goal else 0


@kernel
def walk_observe(s, cfg, obs, mask):
    obs[0, 0] = s.pos / LENGTH
    obs[0, 1] = s.goal / LENGTH
    mask[0, STAY] = True
    mask[0, LEFT] = s.pos > 0
    mask[0, RIGHT] = s.pos < LENGTH


@kernel
def walk_to_goal(s, cfg, agent, act):
    act[0] = RIGHT if s.pos < s.goal else LEFT


class Walk(Env):
    """Walk right to the goal; left is masked at the wall, where it would do nothing."""

    name = "toy_walk"
    obs = Obs(2, np.float32, low=0.0, high=1.0)
    actions = Heads(move=3)
    state = {"pos": "i4", "goal": "i4"}
    phases = ("far", "near")
    metrics = ("reached",)
    Config = WalkConfig
    reset, step, observe = walk_reset, walk_step, walk_observe
    scripted = {"to_goal": walk_to_goal}
    best_scripted = "to_goal"

    @staticmethod
    def invariants(s, cfg):
        return [] if 0 <= s["pos"] <= LENGTH else [f"pos {s['pos']} off the line"]


@kernel
def np_random_step(s, cfg, act, rew, term, trunc):
    walk_step(s, cfg, act, rew, term, trunc)
    if np.random.random() < 0.3 and s.pos > 0:
        s.pos -= 1


class UsesNpRandom(Walk):
    """Broken: draws from np.random inside a kernel."""

    name = "toy_np_random"
    step = np_random_step


@kernel
def hidden_state_step(s, cfg, act, rew, term, trunc):
    walk_step(s, cfg, act, rew, term, trunc)
    cfg.visits += 1
    if cfg.visits % 5 == 0 and s.pos > 0:
        s.pos -= 1


class HidesState(Walk):
    """Broken: keeps a counter in the shared config record."""

    name = "toy_hidden_state"
    step = hidden_state_step


@kernel
def lying_observe(s, cfg, obs, mask):
    walk_observe(s, cfg, obs, mask)
    if s.tick % 2 == 0:
        mask[0, RIGHT] = False


class LiesInMask(Walk):
    """Broken: masks RIGHT on even ticks although RIGHT still moves."""

    name = "toy_lying_mask"
    observe = lying_observe


@kernel
def nan_observe(s, cfg, obs, mask):
    walk_observe(s, cfg, obs, mask)
    if s.tick == 5:
        obs[0, 0] = np.nan


class EmitsNaN(Walk):
    """Broken: a NaN observation at tick 5."""

    name = "toy_nan"
    observe = nan_observe


@kernel
def loud_observe(s, cfg, obs, mask):
    walk_observe(s, cfg, obs, mask)
    obs[0, 1] = s.goal


class ExceedsBounds(Walk):
    """Broken: an observation above its declared high of 1."""

    name = "toy_out_of_bounds"
    observe = loud_observe


@kernel
def empty_mask_observe(s, cfg, obs, mask):
    walk_observe(s, cfg, obs, mask)
    if s.tick == 3:
        mask[0, :] = False


class ForbidsEverything(Walk):
    """Broken: a mask that forbids every move at tick 3."""

    name = "toy_empty_mask"
    observe = empty_mask_observe


class BreaksInvariant(Walk):
    """Broken: declares an invariant that play violates."""

    name = "toy_invariant"

    @staticmethod
    def invariants(s, cfg):
        return [f"pos {s['pos']} beyond 3"] if s["pos"] > 3 else []


@kernel
def lazy_step(s, cfg, act, rew, term, trunc):
    rew[0] = 1.0 if act[0, 0] == STAY else 0.0
    if s.tick >= 10:
        trunc[0] = True


class RewardsIdling(Walk):
    """Dishonest reward: standing still pays as well as any plan."""

    name = "toy_idle_reward"
    step = lazy_step


@kernel
def pair_reset(s, cfg):
    for a in range(2):
        s.pos[a] = 0
        s.arrived[a] = False
    s.goal = 2 + rand_int(s, LENGTH - 2)


@kernel
def pair_step(s, cfg, act, rew, term, trunc):
    for a in range(2):
        if s.arrived[a]:
            term[a] = True  # a finished agent stays terminated until the episode ends
            continue
        if act[a, 0] == RIGHT:
            s.pos[a] += 1
        elif act[a, 0] == LEFT and s.pos[a] > 0:
            s.pos[a] -= 1
        if s.pos[a] == s.goal:
            s.arrived[a] = True
            rew[a] = 1.0
            term[a] = True
        elif s.tick >= 20:
            trunc[a] = True


@kernel
def pair_observe(s, cfg, obs, mask):
    for a in range(2):
        obs[a, 0] = s.pos[a] / LENGTH
        obs[a, 1] = s.goal / LENGTH
        mask[a, STAY] = True
        mask[a, LEFT] = s.pos[a] > 0 and not s.arrived[a]
        mask[a, RIGHT] = not s.arrived[a]


class Pair(Env):
    """Two walkers race to one goal; an arrived walker stays terminated (a masked, idle row)."""

    name = "toy_pair"
    num_agents = 2
    obs = Obs(2, np.float32, low=0.0, high=1.0)
    actions = Heads(move=3)
    state = {"pos": ("i4", (2,)), "arrived": ("u1", (2,)), "goal": "i4"}
    reset, step, observe = pair_reset, pair_step, pair_observe


class PairVsIdle(Pair):
    """Seat 1 belongs to the env (it idles), so only seat 0 learns."""

    name = "toy_pair_vs_idle"

    @classmethod
    def learner_seats(cls, config):
        return (0,)


LINE = 12


@kernel
def chase_reset(s, cfg):
    s.pos[0] = 0
    s.pos[1] = 4


@kernel
def chase_step(s, cfg, act, rew, term, trunc):
    s.pos[0] += 1  # the env plays the chaser: one step towards the runner
    if act[1, 0] == RIGHT and s.pos[1] < LINE - 1:
        s.pos[1] += 1
    elif act[1, 0] == LEFT and s.pos[1] > 0:
        s.pos[1] -= 1
    caught = s.pos[0] >= s.pos[1]
    if caught or s.tick >= 10:
        rew[0] = 1.0 if caught else -1.0
        rew[1] = -rew[0]
        term[0] = True
        term[1] = True


@kernel
def chase_observe(s, cfg, obs, mask):
    for a in range(2):
        obs[a, 0] = s.pos[0] / LINE
        obs[a, 1] = s.pos[1] / LINE
        for k in range(3):
            mask[a, k] = True


@kernel
def chase_run(s, cfg, agent, act):
    act[0] = RIGHT  # away from the chaser (and, for the chaser's seat, towards the runner)


class Chase(Env):
    """An asymmetric tag game: the env's chaser runs at the runner; the runner (the only seat taken from outside)
    wins by not being caught for 10 ticks."""

    name = "toy_chase"
    num_agents = 2
    seats = ("chaser", "runner")
    obs = Obs(2, np.float32, low=0.0, high=1.0)
    actions = Heads(move=3)
    state = {"pos": ("i4", (2,))}
    reset, step, observe = chase_reset, chase_step, chase_observe
    scripted = {"run": chase_run}
    best_scripted = "run"

    @classmethod
    def learner_seats(cls, config):
        return (1,)


PIT_START = 3


@dataclass
class PitConfig:
    """Knobs of the pit walk: what its time limit pays, and how it ends the episode."""

    max_ticks: int = knob(20, "tick limit")
    limit_reward: float = knob(0.0, "reward at the tick limit")
    limit_terminal: int = knob(0, "1: the tick limit ends the episode as a terminal; 0: as a truncation")


@kernel
def pit_reset(s, cfg):
    s.pos = PIT_START
    s.goal = LENGTH


@kernel
def pit_step(s, cfg, act, rew, term, trunc):
    move = act[0, 0]
    if move == LEFT:
        s.pos -= 1
    elif move == RIGHT:
        s.pos += 1
    if s.pos == s.goal:
        rew[0] = 1.0
        term[0] = True
        s.metrics[0] = 1.0
    elif s.pos == 0:
        rew[0] = -1.0  # fell into the pit
        term[0] = True
    elif s.tick >= cfg.max_ticks:
        rew[0] = cfg.limit_reward
        term[0] = cfg.limit_terminal == 1
        trunc[0] = cfg.limit_terminal == 0


@kernel
def pit_observe(s, cfg, obs, mask):
    obs[0, 0] = s.pos / LENGTH
    obs[0, 1] = s.goal / LENGTH


class PaysForStalling(Walk):
    """Dishonest time limit: walk right to the goal (+1), left into the pit (-1); the tick limit pays 0, more
    than falling in, so wandering until the limit beats losing sooner."""

    name = "toy_pays_for_stalling"
    state = {"pos": "i4", "goal": "i4"}
    metrics = ("win",)
    Config = PitConfig
    reset, step, observe = pit_reset, pit_step, pit_observe

    @staticmethod
    def invariants(s, cfg):
        return []


@dataclass
class HonestPitConfig(PitConfig):
    """The pit walk whose tick limit pays like the pit."""

    limit_reward: float = knob(-1.0, "reward at the tick limit")


class LimitPaysLikeALoss(PaysForStalling):
    """Honest time limit: reaching it pays -1, as falling into the pit does."""

    name = "toy_limit_pays_like_a_loss"
    Config = HonestPitConfig

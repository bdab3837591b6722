"""A toy env for eval's failure analysis: a cliff walk with a win, a loss, two phases and a low-watermark."""

import numpy as np

import sparring
from sparring.kit import Env, Heads, Obs, kernel

EDGE = 8
STAY, LEFT, RIGHT = 0, 1, 2


@kernel
def cliff_reset(s, cfg):
    s.pos = EDGE // 2
    s.phase = 0


@kernel
def cliff_step(s, cfg, act, rew, term, trunc):
    if act[0, 0] == LEFT:
        s.pos -= 1
    elif act[0, 0] == RIGHT:
        s.pos += 1
    s.phase = 1 if s.pos <= 1 or s.pos >= EDGE - 1 else 0
    if s.pos == 0:
        rew[0] = -1.0
        term[0] = True
        s.metrics[0] = 1.0
    elif s.pos == EDGE:
        rew[0] = 1.0
        term[0] = True
    elif s.tick >= 30:
        trunc[0] = True


@kernel
def cliff_observe(s, cfg, obs, mask):
    obs[0, 0] = s.pos / EDGE
    for k in range(3):
        mask[0, k] = True


class Cliff(Env):
    """Start mid-way; the left end loses (-1), the right end wins (+1), tick 30 is a draw.

    Phase ``edge`` within one tile of either end, else ``middle``; low-watermark ``lowest_pos``.
    """

    name = "toy_cliff"
    obs = Obs(1, np.float32, low=0.0, high=1.0)
    actions = Heads(move=3)
    state = {"pos": "i4"}
    phases = ("middle", "edge")
    metrics = ("fell",)
    watermarks = {"lowest_pos": ("pos", None)}
    reset, step, observe = cliff_reset, cliff_step, cliff_observe


sparring.register(Cliff.name, Cliff)

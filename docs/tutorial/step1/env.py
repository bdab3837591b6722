"""`catch`: catch falling balls with a paddle (the tutorial's env, step 1: the bare mechanics)."""

from dataclasses import dataclass

import numpy as np

from sparring.kit import Env, Heads, Obs, kernel, knob, rand_int

# -- world: the numbers ----------------------------------------------------------------------------

STAY, LEFT, RIGHT = range(3)  # the values of the action head `move`


# -- rules: reset and the tick ---------------------------------------------------------------------

@kernel
def new_ball(s, cfg):
    s.ball_row = 0
    s.ball_col = rand_int(s, cfg.width)


@kernel
def reset(s, cfg):
    s.paddle = cfg.width // 2
    s.balls_left = cfg.balls
    new_ball(s, cfg)


@kernel
def step(s, cfg, act, rew, term, trunc):
    move = act[0, 0]
    if move == LEFT and s.paddle > 0:
        s.paddle -= 1
    elif move == RIGHT and s.paddle < cfg.width - 1:
        s.paddle += 1
    s.ball_row += 1
    if s.ball_row == cfg.height - 1:  # the paddle's row: caught or missed
        rew[0] = 1.0 if s.ball_col == s.paddle else -1.0
        s.balls_left -= 1
        if s.balls_left == 0:
            term[0] = True
        else:
            new_ball(s, cfg)


# -- observe: the observation and the mask ---------------------------------------------------------

@kernel
def observe(s, cfg, obs, mask):
    obs[0, 0] = s.paddle / (cfg.width - 1)
    obs[0, 1] = s.ball_row / (cfg.height - 1)
    obs[0, 2] = s.ball_col / (cfg.width - 1)
    obs[0, 3] = s.balls_left / cfg.balls
    # moving into a wall is masked; step() treats it like STAY, which the checker verifies
    mask[0, STAY] = True
    mask[0, LEFT] = s.paddle > 0
    mask[0, RIGHT] = s.paddle < cfg.width - 1


# -- env: the declaration --------------------------------------------------------------------------

@dataclass
class CatchConfig:
    """Knobs of `catch`."""

    width: int = knob(7, "Columns of the board (at least 3).")
    height: int = knob(9, "Rows of the board, the paddle's included (at least 3).")
    balls: int = knob(3, "Balls per episode.")


def _obs(cfg) -> Obs:
    for knob_name in ("width", "height"):
        if getattr(cfg, knob_name) < 3:
            raise ValueError(f"catch: {knob_name} must be at least 3, got {getattr(cfg, knob_name)}")
    if cfg.balls < 1:
        raise ValueError(f"catch: balls must be at least 1, got {cfg.balls}")
    return Obs(4, np.float32, low=0.0, high=1.0)


class Catch(Env):
    """Catch the falling balls: +1 for each caught, -1 for each missed."""

    name = "catch"
    num_agents = 1
    obs = staticmethod(_obs)  # a function of the config: bad knobs fail here, with a clear message
    actions = Heads(move=3)
    state = {"paddle": "i4", "ball_row": "i4", "ball_col": "i4", "balls_left": "i4"}

    @staticmethod
    def bounds(cfg) -> dict:
        """Each state field's valid values: states read from files are checked against them."""
        return {"paddle": (0, cfg.width - 1), "ball_row": (0, cfg.height - 1), "ball_col": (0, cfg.width - 1),
                "balls_left": (0, cfg.balls)}

    Config = CatchConfig
    reset, step, observe = reset, step, observe

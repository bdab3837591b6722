"""`catch`: catch falling balls with a paddle (the tutorial's env, step 3: slow paths for people and tools)."""

from dataclasses import dataclass

import numpy as np

from sparring.kit import Env, Heads, Obs, kernel, knob, rand_int
from sparring.kit.text import Line, TextFace

# -- world: the numbers ----------------------------------------------------------------------------

STAY, LEFT, RIGHT = range(3)
STRAIGHT, BOUNCED = range(2)
CAUGHT = 0


# -- rules: reset and the tick ---------------------------------------------------------------------

@kernel
def new_ball(s, cfg):
    s.ball_row = 0
    s.ball_col = rand_int(s, cfg.width)
    s.ball_dir = rand_int(s, 3) - 1  # -1 drifts left, 0 falls straight, +1 drifts right
    s.bounced = False


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
    col = s.ball_col + s.ball_dir
    if col < 0 or col >= cfg.width:  # bounce off a side wall
        s.ball_dir = -s.ball_dir
        col = s.ball_col + s.ball_dir
        s.bounced = True
    s.ball_col = col
    s.ball_row += 1
    if s.ball_row == cfg.height - 1:  # the paddle's row: caught or missed
        if s.ball_col == s.paddle:
            rew[0] = 1.0
            s.metrics[CAUGHT] += 1.0 / cfg.balls
        else:
            rew[0] = -1.0
        s.balls_left -= 1
        if s.balls_left == 0:
            term[0] = True
        else:
            new_ball(s, cfg)
    s.phase = BOUNCED if s.bounced else STRAIGHT


# -- observe: the observation and the mask ---------------------------------------------------------

@kernel
def observe(s, cfg, obs, mask):
    obs[0, 0] = s.paddle / (cfg.width - 1)
    obs[0, 1] = s.ball_row / (cfg.height - 1)
    obs[0, 2] = s.ball_col / (cfg.width - 1)
    obs[0, 3] = (s.ball_dir + 1) / 2
    obs[0, 4] = s.balls_left / cfg.balls
    mask[0, STAY] = True
    mask[0, LEFT] = s.paddle > 0
    mask[0, RIGHT] = s.paddle < cfg.width - 1


# -- scripted: policies the env can play itself ----------------------------------------------------

@kernel
def follow(s, cfg, agent, act):
    """Move under the ball as it is now."""
    act[0] = STAY if s.ball_col == s.paddle else (LEFT if s.ball_col < s.paddle else RIGHT)


@kernel
def predict(s, cfg, agent, act):
    """Move to where the ball will land, bounces included."""
    row, col, drift = s.ball_row, s.ball_col, s.ball_dir
    while row < cfg.height - 1:
        nxt = col + drift
        if nxt < 0 or nxt >= cfg.width:
            drift = -drift
            nxt = col + drift
        col = nxt
        row += 1
    act[0] = STAY if col == s.paddle else (LEFT if col < s.paddle else RIGHT)


# -- text: the env in words, for language-model brains ---------------------------------------------
# region face
class CatchText(TextFace):
    """What the player reads and may answer: the board in words and the three moves."""

    @staticmethod
    def describe(s, cfg, agent: int) -> str:
        """The board in words (the env's own ``describe``)."""
        return Catch.describe(s, cfg, agent)

    @staticmethod
    def lines(s, cfg, agent: int) -> list[Line]:
        """The moves the mask allows: staying always, a step only away from a wall."""
        lines = [Line((STAY,), "stay")]
        if s["paddle"] > 0:
            lines.append(Line((LEFT,), "move the paddle left"))
        if s["paddle"] < cfg.width - 1:
            lines.append(Line((RIGHT,), "move the paddle right"))
        return lines

    @staticmethod
    def progress(s, cfg, agent: int) -> float:
        """Balls caught so far, of all the balls (GRPO's opt-in shaping)."""
        return float(s["metrics"][CAUGHT])
# endregion face


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
    return Obs(5, np.float32, low=0.0, high=1.0)


class Catch(Env):
    """Catch the falling balls: +1 for each caught, -1 for each missed."""

    name = "catch"
    num_agents = 1
    obs = staticmethod(_obs)
    actions = Heads(move=3)
    state = {"paddle": "i4", "ball_row": "i4", "ball_col": "i4", "ball_dir": "i4", "balls_left": "i4",
             "bounced": "u1"}

    @staticmethod
    def bounds(cfg) -> dict:
        """Each state field's valid values: states read from files are checked against them."""
        return {"paddle": (0, cfg.width - 1), "ball_row": (0, cfg.height - 1), "ball_col": (0, cfg.width - 1),
                "ball_dir": (-1, 1), "balls_left": (0, cfg.balls), "bounced": (0, 1)}

    phases = ("straight", "bounced")
    metrics = ("caught",)
    Config = CatchConfig
    reset, step, observe = reset, step, observe
    scripted = {"follow": follow, "predict": predict}
    best_scripted = "predict"
    text = CatchText

    # region slow
    @staticmethod
    def render_ansi(s, cfg) -> str:
        """The board: ``o`` the ball, ``=`` the paddle."""
        rows = [["."] * cfg.width for _ in range(cfg.height)]
        rows[cfg.height - 1][s["paddle"]] = "="
        rows[s["ball_row"]][s["ball_col"]] = "o"
        return "\n".join("".join(r) for r in rows) + f"\nballs left {s['balls_left']}"

    @staticmethod
    def describe(s, cfg, agent: int = 0) -> str:
        """The board in words."""
        drift = {-1: "drifting left", 0: "falling straight", 1: "drifting right"}[int(s["ball_dir"])]
        return (f"Your paddle is in column {s['paddle']} of {cfg.width}. The ball is in row {s['ball_row']} of "
                f"{cfg.height}, column {s['ball_col']}, {drift}. {s['balls_left']} of {cfg.balls} balls left.")

    @staticmethod
    def invariants(s, cfg) -> list[str]:
        """Paddle and ball on the board; the return is caught minus missed balls."""
        bad = []
        if not 0 <= s["paddle"] < cfg.width:
            bad.append(f"paddle in column {s['paddle']}, off the board")
        if not (0 <= s["ball_row"] < cfg.height and 0 <= s["ball_col"] < cfg.width):
            bad.append(f"ball at ({s['ball_row']}, {s['ball_col']}), off the board")
        played = cfg.balls - int(s["balls_left"])
        caught = round(float(s["metrics"][CAUGHT]) * cfg.balls)
        if abs(float(s["ep_return"][0]) - (2 * caught - played)) > 1e-4:
            bad.append(f"return {float(s['ep_return'][0])} but {caught} of {played} balls caught")
        return bad

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell: paddle, ball column, ball row in pairs, balls left."""
        return int(s["paddle"]), int(s["ball_col"]), int(s["ball_row"]) // 2, int(s["balls_left"])

    @staticmethod
    def draw(s, cfg) -> list[dict]:
        """The board for the HTML viewer, one world unit per cell."""
        return [{"type": "rect", "x": 0, "y": 0, "w": cfg.width, "h": cfg.height, "fill": "#1e1e1e", "stroke": "#555"},
                {"type": "circle", "x": int(s["ball_col"]) + 0.5, "y": int(s["ball_row"]) + 0.5, "r": 0.35,
                 "fill": "#e6c23c"},
                {"type": "rect", "x": int(s["paddle"]), "y": cfg.height - 0.4, "w": 1, "h": 0.4, "fill": "#3ca0e6"},
                {"type": "text", "x": 0.2, "y": 0.8, "text": f"balls left {int(s['balls_left'])}", "size": 0.6,
                 "fill": "#aaa"}]
    # endregion slow

"""`squared`: PufferLib's Squared rules, the kit's benchmark env.

The agent starts in the centre of a ``size`` x ``size`` grid; a target sits on
a uniformly random other tile. Reaching it gives +1 and ends the episode;
leaving the grid, or running past ``3 * size`` ticks, gives -1 and ends it.

Small enough for one file: its numbers, rules, observation, scripted policy and
slow paths are all here, where a bigger env has world.py, rules.py, observe.py,
scripted.py and render.py beside env.py.
"""

from dataclasses import dataclass

import numpy as np

from sparring.kit import Env, Heads, Obs, kernel, knob, rand_int

NOOP, DOWN, UP, LEFT, RIGHT = 0, 1, 2, 3, 4
SUCCESS = 0  # index of the "success" episode metric
EMPTY, AGENT, TARGET = 0, 1, 2


@dataclass
class SquaredConfig:
    """Knobs of `squared`."""

    size: int = knob(11, "Side of the square grid, in tiles (at least 2).")


@kernel
def reset(s, cfg):
    n = cfg.size
    s.row = n // 2
    s.col = n // 2
    centre = s.row * n + s.col
    t = rand_int(s, n * n - 1)
    if t >= centre:
        t += 1
    s.target = t


@kernel
def step(s, cfg, act, rew, term, trunc):
    move = act[0, 0]
    if move == DOWN:
        s.row += 1
    elif move == UP:
        s.row -= 1
    elif move == LEFT:
        s.col -= 1
    elif move == RIGHT:
        s.col += 1
    n = cfg.size
    if s.row < 0 or s.row >= n or s.col < 0 or s.col >= n or s.tick > 3 * n:
        rew[0] = -1.0
        term[0] = True
    elif s.row * n + s.col == s.target:
        rew[0] = 1.0
        term[0] = True
        s.metrics[SUCCESS] = 1.0


@kernel
def observe(s, cfg, obs, mask):
    n = cfg.size
    obs[0, :] = EMPTY
    obs[0, s.target] = TARGET
    if 0 <= s.row < n and 0 <= s.col < n:
        obs[0, s.row * n + s.col] = AGENT
    # every move is always legal: the mask keeps the kit's initial all-true


@kernel
def greedy(s, cfg, agent, act):
    """Walk straight to the target: rows first, then columns."""
    n = cfg.size
    tr, tc = s.target // n, s.target % n
    if s.row < tr:
        act[0] = DOWN
    elif s.row > tr:
        act[0] = UP
    elif s.col < tc:
        act[0] = RIGHT
    else:
        act[0] = LEFT


def _obs(cfg) -> Obs:
    if cfg.size < 2:
        raise ValueError(f"squared: size must be at least 2, got {cfg.size}")
    return Obs(cfg.size * cfg.size, np.uint8, low=0, high=2)


class Squared(Env):
    """Reach the target tile before time runs out (PufferLib's Squared)."""

    name = "squared"
    num_agents = 1
    obs = staticmethod(_obs)
    actions = Heads(move=5)
    state = {"row": "i4", "col": "i4", "target": "i4"}
    phases = ("play",)

    @staticmethod
    def bounds(cfg) -> dict:
        """Valid state values (checked before a state from a file reaches a kernel): the agent on the grid or one
        step off it (an ended episode), the target a tile index (observe writes obs[target])."""
        n = cfg.size
        return {"row": (-1, n), "col": (-1, n), "target": (0, n * n - 1)}

    metrics = ("success",)
    Config = SquaredConfig
    reset, step, observe = reset, step, observe
    scripted = {"greedy": greedy}
    best_scripted = "greedy"

    @staticmethod
    def render_ansi(s, cfg) -> str:
        """The grid: ``@`` agent, ``X`` target, ``.`` empty."""
        n = cfg.size
        rows = []
        for r in range(n):
            line = ""
            for c in range(n):
                line += "@" if (r, c) == (s["row"], s["col"]) else "X" if r * n + c == s["target"] else "."
            rows.append(line)
        return "\n".join(rows) + f"\ntick {s['tick']}/{3 * n}"

    @staticmethod
    def render_rgb(s, cfg, tile: int = 8) -> np.ndarray:
        """The grid as an RGB image, ``tile`` pixels per cell."""
        n = cfg.size
        img = np.full((n, n, 3), 30, np.uint8)
        img[s["target"] // n, s["target"] % n] = (220, 60, 60)
        if 0 <= s["row"] < n and 0 <= s["col"] < n:
            img[s["row"], s["col"]] = (60, 160, 230)
        return img.repeat(tile, 0).repeat(tile, 1)

    @staticmethod
    def draw(s, cfg) -> list[dict]:
        """The grid for the HTML viewer, one world unit per tile: target square, agent disc."""
        n = cfg.size
        tr, tc = divmod(int(s["target"]), n)
        shapes = [
            {"type": "rect", "x": 0, "y": 0, "w": n, "h": n, "fill": "#1e1e1e", "stroke": "#555"},
            {"type": "rect", "x": tc, "y": tr, "w": 1, "h": 1, "fill": "#dc3c3c"},
        ]
        if 0 <= s["row"] < n and 0 <= s["col"] < n:
            shapes.append(
                {"type": "circle", "x": int(s["col"]) + 0.5, "y": int(s["row"]) + 0.5, "r": 0.4, "fill": "#3ca0e6"}
            )
        return shapes

    @staticmethod
    def describe(s, cfg, agent: int = 0) -> str:
        """Where the agent and the target are, in words."""
        n = cfg.size
        tr, tc = divmod(int(s["target"]), n)
        return (
            f"You are at row {s['row']}, column {s['col']} of a {n}x{n} grid. "
            f"The target is at row {tr}, column {tc}. Tick {s['tick']} of {3 * n}."
        )

    @staticmethod
    def invariants(s, cfg) -> list[str]:
        """Target on the grid, off the start tile; the agent moved at most one tile a tick."""
        n, bad = cfg.size, []
        centre = n // 2
        if not 0 <= s["target"] < n * n or s["target"] == centre * n + centre:
            bad.append(f"target {s['target']} is off the grid or on the start tile")
        if abs(s["row"] - centre) + abs(s["col"] - centre) > s["tick"]:
            bad.append(f"agent at ({s['row']}, {s['col']}) is farther from the centre than {s['tick']} ticks allow")
        if not 0 <= s["tick"] <= 3 * n + 1:
            bad.append(f"tick {s['tick']} outside [0, {3 * n + 1}]")
        return bad

    @staticmethod
    def cell(s, cfg) -> tuple:
        """Go-Explore cell: the agent's tile."""
        return int(s["row"]), int(s["col"])

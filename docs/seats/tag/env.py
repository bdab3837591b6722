"""`tag`: a chaser and a runner on a 7x7 board with pillars.

Seats: ``chaser`` (seat 0) and ``runner`` (seat 1). Both move at once, one tile per tick
(or stand still); each tick the chaser stumbles and stays put with chance ``stumble``.
The chaser catches the runner by landing on its tile or by swapping tiles with it: +1 to
the chaser, -1 to the runner. If the runner is still free after ``max_ticks`` ticks, it has
won: +1 to the runner, -1 to the chaser. The time limit is the runner's win, the game's real
end, so it is a termination, not a truncation. Zero-sum, no draws, no shaping.

The env plays the chaser itself, inside ``step``, as the ``opponent`` knob says (``bfs`` or
``random``); ``opponent = "learner"`` hands the chaser's seat out too (self-play, or any
player from outside).
"""

from dataclasses import dataclass

import numpy as np

from sparring.kit import Env, Heads, Obs, choice, kernel, knob, rand_float, rand_int

from tag.scripted import bfs, path_move, random_move, target
from tag.world import BFS, BOARD, CAUGHT, CHASER, DIST, H, LEARNER, NOOP, OBS_SIZE, OPEN, OPPONENTS, RUNNER, W


@dataclass
class TagConfig:
    """Knobs of `tag`."""

    opponent: str = choice("bfs", OPPONENTS, "Who plays the chaser: 'bfs' (along shortest paths) or 'random', "
                                             "inside the env; 'learner' takes the chaser's moves from outside.")
    stumble: float = knob(0.25, "Chance per tick that the chaser stumbles and stays put, whoever plays it.")
    max_ticks: int = knob(30, "Ticks the runner must stay free to win.")
    start_gap: int = knob(4, "Least path distance between the two at the start.")


# -- rules: reset and the tick -----------------------------------------------------------------------------------

@kernel
def reset(s, cfg):
    """Both on random open tiles, at least ``start_gap`` moves apart."""
    while True:
        a, b = rand_int(s, H * W), rand_int(s, H * W)
        if OPEN[a] and OPEN[b] and DIST[a, b] >= cfg.start_gap:
            break
    s.row[CHASER], s.col[CHASER] = a // W, a % W
    s.row[RUNNER], s.col[RUNNER] = b // W, b % W


@kernel
def step(s, cfg, act, rew, term, trunc):
    """Both move at once; then caught, or free at the time limit, or play on."""
    stumbles = rand_float(s) < cfg.stumble  # drawn every tick, so the random stream does not depend on the seats
    if stumbles:
        chaser_move = NOOP
    elif cfg.opponent == LEARNER:
        chaser_move = act[CHASER, 0]
    elif cfg.opponent == BFS:
        chaser_move = path_move(s, CHASER)  # the env plays the seat: the action given for it is ignored
    else:
        chaser_move = random_move(s, CHASER)
    was_c, was_r = s.row[CHASER] * W + s.col[CHASER], s.row[RUNNER] * W + s.col[RUNNER]
    now_c, now_r = target(s, CHASER, chaser_move), target(s, RUNNER, act[RUNNER, 0])  # blocked: stand still
    s.row[CHASER], s.col[CHASER] = now_c // W, now_c % W
    s.row[RUNNER], s.col[RUNNER] = now_r // W, now_r % W
    caught = now_c == now_r or (now_c == was_r and now_r == was_c)
    if caught or s.tick >= cfg.max_ticks:
        winner = CHASER if caught else RUNNER
        rew[winner] += 1.0
        rew[1 - winner] -= 1.0
        s.metrics[CAUGHT] = 1.0 if caught else 0.0
        term[CHASER] = True
        term[RUNNER] = True


# -- observe: what each seat sees, and which moves it may make ----------------------------------------------------

@kernel
def observe(s, cfg, obs, mask):
    """Own tile, the other's offset, time, and which seat: all in [-1, 1]. Blocked moves are masked."""
    for a in range(2):
        obs[a, 0] = s.row[a] / (H - 1)
        obs[a, 1] = s.col[a] / (W - 1)
        obs[a, 2] = (s.row[1 - a] - s.row[a]) / (H - 1)
        obs[a, 3] = (s.col[1 - a] - s.col[a]) / (W - 1)
        obs[a, 4] = min(s.tick, cfg.max_ticks) / cfg.max_ticks
        obs[a, 5] = 1.0 if a == CHASER else 0.0
        here = s.row[a] * W + s.col[a]
        for move in range(5):
            mask[a, move] = move == NOOP or target(s, a, move) != here


# -- env: the declaration ---------------------------------------------------------------------------------------

def _obs(cfg) -> Obs:
    if cfg.max_ticks < 1:
        raise ValueError(f"tag: max_ticks must be at least 1, got {cfg.max_ticks}")
    if not 0.0 <= cfg.stumble <= 1.0:
        raise ValueError(f"tag: stumble must be in [0, 1], got {cfg.stumble}")
    farthest = int(DIST[OPEN][:, OPEN].max())  # else reset would never find a start
    if not 1 <= cfg.start_gap <= farthest:
        raise ValueError(f"tag: start_gap must be in [1, {farthest}], got {cfg.start_gap}")
    return Obs(OBS_SIZE, np.float32, low=-1.0, high=1.0)


class Tag(Env):
    """Tag on a board with pillars: the runner (taken from outside) against a chaser the env plays."""

    name = "tag"
    num_agents = 2
    seats = ("chaser", "runner")
    obs = staticmethod(_obs)
    actions = Heads(move=5)  # noop, up, down, left, right
    state = {"row": ("i4", (2,)), "col": ("i4", (2,))}
    bounds = {"row": (0, H - 1), "col": (0, W - 1)}  # states read from files are checked against these
    metrics = ("caught",)
    Config = TagConfig
    reset, step, observe = reset, step, observe
    scripted = {"bfs": bfs}
    best_scripted = "bfs"

    @classmethod
    def learner_seats(cls, config) -> tuple[int, ...]:
        """The runner alone; both seats with ``opponent="learner"``."""
        return (CHASER, RUNNER) if config.opponent == "learner" else (RUNNER,)

    # -- render: plain Python over one record, for people and tools ----------------------------------------------

    @staticmethod
    def render_ansi(s, cfg) -> str:
        """The board: ``C`` the chaser, ``R`` the runner, ``#`` pillars."""
        grid = [list(row) for row in BOARD]
        grid[s["row"][RUNNER]][s["col"][RUNNER]] = "R"
        grid[s["row"][CHASER]][s["col"][CHASER]] = "C"  # drawn last: a caught runner is under the chaser
        return "\n".join("".join(row) for row in grid) + f"\ntick {s['tick']}/{cfg.max_ticks}"

    @staticmethod
    def invariants(s, cfg) -> list[str]:
        """Both on open tiles; the returns add up to zero."""
        bad = [f"{name} on a pillar or off the board at ({s['row'][a]}, {s['col'][a]})"
               for a, name in enumerate(("chaser", "runner"))
               if not (0 <= s["row"][a] < H and 0 <= s["col"][a] < W and OPEN[s["row"][a] * W + s["col"][a]])]
        if abs(float(s["ep_return"].sum())) > 1e-6:
            bad.append(f"returns {s['ep_return'].tolist()} do not add up to zero")
        return bad

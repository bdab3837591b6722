"""`tag`'s numbers: the board, the moves, who sits where, and a table of path distances."""

import numpy as np

# The board: `#` is a pillar, `.` open floor. Runners escape by circling pillars; corridors make that hard.
BOARD = (
    ".......",
    ".#.#.#.",
    ".......",
    ".#.#.#.",
    ".......",
    ".#.#.#.",
    ".......",
)
H, W = len(BOARD), len(BOARD[0])
OPEN = np.array([ch == "." for row in BOARD for ch in row])  # per tile (row * W + col)

NOOP, UP, DOWN, LEFT, RIGHT = range(5)  # values of the single action head `move`
DROW = np.array([0, -1, 1, 0, 0])
DCOL = np.array([0, 0, 0, -1, 1])

CHASER, RUNNER = 0, 1  # the seats, in the order of `Tag.seats`
CAUGHT = 0  # index of the `caught` episode metric
OPPONENTS = ("bfs", "random", "learner")  # who plays the chaser: values of the `opponent` knob
BFS, RANDOM, LEARNER = range(3)
OBS_SIZE = 6  # own row and column, the other's offsets, time, "I am the chaser"


def _distances() -> np.ndarray:
    """DIST[a, b]: moves from tile a to tile b around the pillars (breadth-first search from every tile)."""
    n = H * W
    dist = np.full((n, n), n, np.int32)
    for start in np.flatnonzero(OPEN):
        dist[start, start], frontier = 0, [start]
        while frontier:
            nxt = []
            for t in frontier:
                r, c = divmod(int(t), W)
                for m in (UP, DOWN, LEFT, RIGHT):
                    rr, cc = r + DROW[m], c + DCOL[m]
                    u = rr * W + cc
                    if 0 <= rr < H and 0 <= cc < W and OPEN[u] and dist[start, u] == n:
                        dist[start, u] = dist[start, t] + 1
                        nxt.append(u)
            frontier = nxt
    return dist


DIST = _distances()  # a global array: Numba compiles it into the kernels as a constant

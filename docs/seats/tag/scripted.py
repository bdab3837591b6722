"""`tag`'s scripted players: shortest-path chasing (and fleeing), and random steps.

The env plays the chaser itself with these (the `opponent` knob); `bfs` is also a scripted
policy any seat can be given from outside (`--seat chaser=scripted:bfs`, `--policy scripted:bfs`).
"""

from sparring.kit import helper, kernel, rand_int

from tag.world import CHASER, DCOL, DIST, DROW, H, NOOP, OPEN, W


@helper
def target(s, agent, move):
    """The tile ``agent`` reaches with ``move``; its own tile when the move is blocked (a wall or the edge)."""
    r, c = s.row[agent] + DROW[move], s.col[agent] + DCOL[move]
    if 0 <= r < H and 0 <= c < W and OPEN[r * W + c]:
        return r * W + c
    return s.row[agent] * W + s.col[agent]


@helper
def path_move(s, agent):
    """The chaser steps along a shortest path to the runner, the runner to a tile farthest from the chaser;
    ties are broken at random."""
    other = s.row[1 - agent] * W + s.col[1 - agent]
    sign = -1 if agent == CHASER else 1  # the chaser wants the distance small, the runner large
    best, pick, ties = -(1 << 30), NOOP, 0
    for move in range(5):
        score = sign * DIST[target(s, agent, move), other]
        if score > best:
            best, pick, ties = score, move, 1
        elif score == best:
            ties += 1
            if rand_int(s, ties) == 0:  # each of the tied moves is kept with chance 1/ties
                pick = move
    return pick


@helper
def random_move(s, agent):
    """A uniformly random move that is not blocked, or standing still."""
    pick, n = NOOP, 0
    for move in range(5):
        if move == NOOP or target(s, agent, move) != s.row[agent] * W + s.col[agent]:
            n += 1
            if rand_int(s, n) == 0:  # each allowed move is kept with chance 1/n
                pick = move
    return pick


@kernel
def bfs(s, cfg, agent, act):
    """Scripted policy for either seat: chase (or flee) along shortest paths."""
    act[0] = path_move(s, agent)

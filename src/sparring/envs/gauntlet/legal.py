"""What the `gauntlet` player may do now: tiles, line of sight, reach, the legality of each head value, the mask row.

Shared by the tick (:mod:`sparring.envs.gauntlet.rules`), the monsters, the
observation and the scripted players, so that all of them judge the same way.
"""

import numpy as np

from sparring.envs.gauntlet.world import (
    ALIVE,
    COLS,
    DC,
    DR,
    DRINK_HEAL,
    FINAL_WAVE,
    GEAR,
    GEAR_RANGE,
    HEADS,
    MAX_HP,
    MOVE,
    PILLAR,
    PILLAR_C,
    PILLAR_R,
    PILLARS,
    PRAY_MAX,
    PRAY_OFF,
    PRAYER,
    ROWS,
    SHIELD_HALF,
    SHIELD_ROW,
    SIZES,
    SLOTS,
    TARGET,
    ZUK,
)
from sparring.kit import helper, kernel


@kernel
def cheb(r0, c0, r1, c1):
    """Chebyshev distance between two tiles."""
    return max(abs(r0 - r1), abs(c0 - c1))


@helper
def pillar_at(s, r, c):
    """Index of the standing pillar covering tile (r, c), or -1."""
    for p in range(PILLARS):
        if s.pil_hp[p] > 0 and PILLAR_R[p] <= r < PILLAR_R[p] + PILLAR and PILLAR_C[p] <= c < PILLAR_C[p] + PILLAR:
            return p
    return -1


@helper
def open_tile(s, r, c):
    """Inside the arena and not under a standing pillar."""
    return 0 <= r < ROWS and 0 <= c < COLS and pillar_at(s, r, c) < 0


@helper
def clear_line(s, r0, c0, r1, c1):
    """No standing pillar crosses the segment between the centres of two tiles (grazing a corner is clear)."""
    y0, x0 = r0 + 0.5, c0 + 0.5
    dy, dx = float(r1 - r0), float(c1 - c0)
    for p in range(PILLARS):
        if s.pil_hp[p] <= 0:
            continue
        lo, hi = 0.0, 1.0
        top, left = float(PILLAR_R[p]), float(PILLAR_C[p])
        if dy == 0.0:
            if y0 <= top or y0 >= top + PILLAR:
                continue
        else:
            t1, t2 = (top - y0) / dy, (top + PILLAR - y0) / dy
            lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
        if dx == 0.0:
            if x0 <= left or x0 >= left + PILLAR:
                continue
        else:
            t1, t2 = (left - x0) / dx, (left + PILLAR - x0) / dx
            lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
        if lo < hi - 1e-9:
            return False
    return True


@kernel
def covered(s, r, c):
    """Tile (r, c) is behind the shield (only in the final wave)."""
    return s.wave == FINAL_WAVE and r > SHIELD_ROW and abs(c - s.shield_c) <= SHIELD_HALF


@kernel
def in_reach(s, k):
    """The player's worn gear reaches slot ``k`` from the player's tile."""
    return s.m_type[k] == ZUK or cheb(s.row, s.col, s.m_r[k], s.m_c[k]) <= GEAR_RANGE[s.gear]


@helper
def update_visibility(s):
    """Per slot: alive and in the player's line of sight (the final boss always is)."""
    for k in range(SLOTS):
        vis = 0
        if s.m_state[k] == ALIVE:
            vis = (
                1
                if k == 0 or clear_line(s, np.int64(s.m_r[k]), np.int64(s.m_c[k]), np.int64(s.row), np.int64(s.col))
                else 0
            )
        s.m_vis[k] = vis


@helper
def legal(s, head, v):
    """Whether value ``v`` of ``head`` is allowed now (what :func:`write_mask` shows)."""
    if v == 0:
        return True
    if head == MOVE:
        r, c = s.row + DR[v], s.col + DC[v]
        if not open_tile(s, r, c):
            return False
        for k in range(SLOTS):
            if s.m_state[k] == ALIVE and s.m_r[k] == r and s.m_c[k] == c:
                return False
        return True
    if head == PRAYER:
        return v == PRAY_OFF or s.pp > 0
    if head == GEAR:
        return True
    if head == TARGET:
        return s.m_state[v - 1] == ALIVE and s.m_vis[v - 1] == 1
    if v == DRINK_HEAL:
        return s.heals > 0 and s.hp < MAX_HP
    return s.restores > 0 and s.pp < PRAY_MAX


@helper
def write_mask(s, m):
    """The flat mask row: head by head, what :func:`legal` allows."""
    k = 0
    for h in range(HEADS):
        for v in range(SIZES[h]):
            m[k] = legal(s, np.int64(h), np.int64(v))
            k += 1


@kernel
def allowed(s, act, head):
    """The agent's value for ``head``, or 0 (the head's no-op) where the mask forbids it."""
    v = np.int64(act[0, head])
    return v if legal(s, np.int64(head), v) else 0

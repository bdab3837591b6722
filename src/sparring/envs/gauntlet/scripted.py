"""The scripted players of `gauntlet`: ``competent`` (the baseline) and ``steady`` (a weaker rung for a ladder).

Both share one plan (:func:`play`): pick the best visible target by type
(untagged healers first, then mages, blobs, rangers, bats, small blobs,
meleers, bosses, tagged healers, nibblers, the final boss last), wear the gear it is weak to,
walk into reach of it, drink a heal below ``HEAL_BELOW`` hp and a restore below
``RESTORE_BELOW`` prayer points. In the final wave both walk to the shield's
row and keep under it.

They differ in prayer. The competent player reads the forecast: it prays
against the biggest hit landing this tick (else the next tick's), and turns
prayer off when nothing is coming, so it flicks against blobs and telegraphed
boss attacks. The steady player prays all the time against the style of the
closest monster that attacks the player.
"""

import numpy as np

from sparring.envs.gauntlet.legal import cheb, clear_line, in_reach, legal, open_tile
from sparring.envs.gauntlet.observe import fill_forecast
from sparring.envs.gauntlet.world import (
    ALIVE, BAT, BLOB, BOSS, COLS, DC, DR, DRINK_HEAL, DRINK_RESTORE, FINAL_WAVE, FORECAST, GEAR, GEAR_RANGE, HEADS,
    HEALER, KEEP, MAGE, MAGIC, MELEER, MOVE, NIBBLER, PRAY_OFF, PRAYER, RANGER, ROWS, SHIELD_ROW, SLOTS, SPLIT, STYLE,
    SUPPLY, TAGGED, TARGET, TYPES, WEAK, ZUK,
)
from sparring.kit import helper, kernel

HEAL_BELOW, RESTORE_BELOW = 50, 30
UNTAGGED_HEALER = TYPES  # a priority row of its own


def _priority() -> np.ndarray:
    """Rank per type (lower first); index TYPES ranks an untagged healer."""
    order = (UNTAGGED_HEALER, NIBBLER, MAGE, BLOB, RANGER, BAT, SPLIT, MELEER, BOSS, HEALER, ZUK)
    rank = np.zeros(TYPES + 1, np.int64)
    for k, kind in enumerate(order):
        rank[kind] = k
    return rank


PRIORITY = _priority()


@helper
def best_target(s):
    """The visible alive slot of the best rank (then the closest), or -1."""
    best, best_score = -1, 1 << 30
    for k in range(SLOTS):
        if s.m_state[k] != ALIVE or s.m_vis[k] == 0:
            continue
        kind = s.m_type[k]
        rank = PRIORITY[UNTAGGED_HEALER if kind == HEALER and not s.m_flag[k] & TAGGED else kind]
        score = rank * 100 + cheb(s.row, s.col, s.m_r[k], s.m_c[k])
        if score < best_score:
            best, best_score = k, score
    return best


@helper
def step_towards(s, r, c):
    """The legal move that brings the player closest (Chebyshev) to (r, c); staying wins ties."""
    best, best_d = 0, cheb(s.row, s.col, r, c)
    for m in range(1, 9):
        if legal(s, np.int64(MOVE), np.int64(m)):
            d = cheb(s.row + DR[m], s.col + DC[m], r, c)
            if d < best_d:
                best, best_d = m, d
    return best


@helper
def route(s, k):
    """First move of a shortest walk to a tile from which slot ``k`` is in reach with a clear line (BFS)."""
    blocked = np.zeros(ROWS * COLS, np.bool_)
    for j in range(SLOTS):
        if s.m_state[j] == ALIVE and 0 <= s.m_r[j] < ROWS:
            blocked[s.m_r[j] * COLS + s.m_c[j]] = True
    first = np.full(ROWS * COLS, -1, np.int64)
    queue = np.empty(ROWS * COLS, np.int64)
    start = s.row * COLS + s.col
    first[start], queue[0], head, tail = 0, start, 0, 1
    tr, tc, reach = np.int64(s.m_r[k]), np.int64(s.m_c[k]), GEAR_RANGE[WEAK[s.m_type[k]]]
    while head < tail:
        here = queue[head]
        head += 1
        r, c = here // COLS, here % COLS
        if cheb(r, c, tr, tc) <= reach and clear_line(s, r, c, tr, tc):
            return first[here]
        for m in range(1, 9):
            nr, nc = r + DR[m], c + DC[m]
            there = nr * COLS + nc
            if open_tile(s, nr, nc) and first[there] < 0 and not blocked[there]:
                first[there] = m if here == start else first[here]
                queue[tail] = there
                tail += 1
    return step_towards(s, tr, tc)


@helper
def forecast_prayer(s):
    """Prayer head value against the biggest known hit landing this tick, else the next; off when none."""
    fc = np.zeros(4 * FORECAST)
    fill_forecast(s, fc, np.int64(0))
    for t in range(2):
        best, best_v = -1, 0.0
        for style in range(3):
            if fc[4 * t + style] > best_v:
                best, best_v = style, fc[4 * t + style]
        if best >= 0:
            return best + 1
    return PRAY_OFF if s.prayer > 0 else KEEP


@helper
def steady_prayer(s):
    """Prayer head value against the style of the closest monster that attacks the player."""
    best, best_d = -1, 1 << 30
    for k in range(SLOTS):
        kind = s.m_type[k]
        if s.m_state[k] != ALIVE or kind == NIBBLER or kind == ZUK or (kind == HEALER and not s.m_flag[k] & TAGGED):
            continue
        d = cheb(s.row, s.col, s.m_r[k], s.m_c[k])
        if d < best_d:
            style = s.m_style[k] if kind == SPLIT else STYLE[kind] if STYLE[kind] >= 0 else MAGIC
            best, best_d = style, d
    if best < 0:
        return PRAY_OFF if s.prayer > 0 else KEEP
    return best + 1 if s.pp > 0 else KEEP


@helper
def play(s, smart, act):
    """One tick of the shared plan; ``smart``: the competent player's forecast-driven prayer."""
    for h in range(HEADS):
        act[h] = 0
    act[PRAYER] = forecast_prayer(s) if smart else steady_prayer(s)
    k = best_target(s)
    if k >= 0:
        act[TARGET] = k + 1
        act[GEAR] = WEAK[s.m_type[k]] + 1
    if s.hp < HEAL_BELOW and legal(s, np.int64(SUPPLY), np.int64(DRINK_HEAL)):
        act[SUPPLY] = DRINK_HEAL
    elif s.pp < RESTORE_BELOW and legal(s, np.int64(SUPPLY), np.int64(DRINK_RESTORE)):
        act[SUPPLY] = DRINK_RESTORE
    if s.wave == FINAL_WAVE:
        act[MOVE] = step_towards(s, np.int64(SHIELD_ROW + 2), np.int64(s.shield_c + s.shield_dir))
    elif k >= 0 and not in_reach(s, k):
        act[MOVE] = route(s, k)
    elif k < 0:
        for j in range(SLOTS):  # nothing in sight: walk to where the first monster is
            if s.m_state[j] == ALIVE:
                act[MOVE] = route(s, np.int64(j))
                break


@kernel
def competent(s, cfg, agent, act):
    """Flicks prayer from the forecast, ranks targets, heals and restores in time, keeps under the shield."""
    play(s, np.bool_(True), act)


@kernel
def steady(s, cfg, agent, act):
    """Prays all the time against the closest monster's style instead of flicking; otherwise the same plan."""
    play(s, np.bool_(False), act)

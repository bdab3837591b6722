"""The scripted players of `gauntlet`: ``expert`` (the reference that clears), ``competent`` and ``steady``.

``competent`` and ``steady`` share one plan (:func:`play`): pick the best visible target by type
(untagged healers first, then nibblers, mages, blobs, rangers, bats, small blobs,
meleers, bosses, tagged healers, the final boss last), wear the gear it is weak to,
walk into reach of it, drink a heal below ``HEAL_BELOW`` hp and a restore below
``RESTORE_BELOW`` prayer points. In the final wave both walk to the shield's
row and keep under it.

They differ in prayer. The competent player reads the forecast: it prays
against the biggest hit landing this tick, else the next tick's, and turns
prayer off when nothing is coming, so it flicks against blobs and telegraphed
boss attacks. The steady player prays all the time against the style of the
closest monster that attacks the player.

``expert`` (:func:`expert_play`) fixes what keeps the competent player from clearing:

- Prayer only on the tick a hit lands. Prayer drains by the ticks prayed, and the rules
  resolve the player's prayer before the monsters act, so praying a tick early (as
  competent does for next tick's hits) doubles the cost of every block; competent runs
  out of restores by wave 24 and arrives at the boss wave without prayer.
- A one-tick dodge: for each legal move it counts the hits that would land this tick
  on the tile the move leads to (a monster whose attack is due hits only if it reaches
  that tile with a clear line; a telegraphed attack lands wherever the player stands),
  blocks the biggest style with prayer and takes the move that leaves the least
  through (stepping out of a meleer's reach or behind a pillar), else the plan's move.
- Targets: it walks towards the best monster alive (seen or not, so it no longer
  swings between two that a pillar hides in turn) and meanwhile shoots the best
  one in sight and in reach, instead of standing idle behind an out-of-reach target.
- The final wave: during the gap before it, it walks to where the shield will be
  at the first big hit; then it walks under the shield's coming centre, the column
  first, and a dodge never leaves the shield's cover (for either column the shield
  may be at next tick: the observation does not say on which ticks it moves) nor
  goes more than ``BAND`` rows south of it.

Every script reads the record, but only what the observation also shows.
"""

import numpy as np

from sparring.envs.gauntlet.legal import cheb, clear_line, in_reach, legal, open_tile
from sparring.envs.gauntlet.monsters import can_hit
from sparring.envs.gauntlet.observe import fill_forecast
from sparring.envs.gauntlet.world import (
    ALIVE,
    BAT,
    BLOB,
    BOSS,
    COLS,
    DC,
    DR,
    DRINK_HEAL,
    DRINK_RESTORE,
    FINAL_WAVE,
    FORECAST,
    GEAR,
    GEAR_RANGE,
    HEADS,
    HEALER,
    KEEP,
    MAGE,
    MAGIC,
    MAX_HIT,
    MELEE,
    MELEER,
    MOVE,
    NIBBLER,
    PILLARS,
    PRAY_OFF,
    PRAYER,
    RANGER,
    ROWS,
    SHIELD_HALF,
    SHIELD_MAX,
    SHIELD_MIN,
    SHIELD_ROW,
    SLOTS,
    SPLIT,
    STYLE,
    SUPPLY,
    TAGGED,
    TARGET,
    TYPES,
    WEAK,
    ZUK,
    ZUK_HIT,
)
from sparring.kit import helper, kernel

HEAL_BELOW, RESTORE_BELOW = 50, 30
FINAL_HEAL_BELOW = 60  # expert, final wave: hits of three kinds can land together
DODGE_COST = 0.5  # expert: what leaving the plan's move costs, in max-hit points (ties keep the plan)
BAND = 8  # expert, final wave: rows south of the shield's row a dodge may take the player to
SHIELD_AT_FIRST_HIT = 20  # expert: about the shield's column when the final boss first hits
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


@helper
def rank_of(s, k):
    """Slot ``k``'s place in :data:`PRIORITY` (an untagged healer has a row of its own)."""
    kind = s.m_type[k]
    return PRIORITY[UNTAGGED_HEALER if kind == HEALER and not s.m_flag[k] & TAGGED else kind]


@helper
def weak_reach(s, k):
    """The gear slot ``k`` is weak to reaches it from the player's tile."""
    kind = s.m_type[k]
    return kind == ZUK or cheb(s.row, s.col, s.m_r[k], s.m_c[k]) <= GEAR_RANGE[WEAK[kind]]


@helper
def goal_and_shot(s):
    """(goal, shot): the best alive slot by rank then distance, seen or not (where to walk); the best one in sight
    and in reach of the gear it is weak to (what to shoot meanwhile); -1 where none."""
    goal, shot, goal_score, shot_score = -1, -1, 1 << 30, 1 << 30
    for k in range(SLOTS):
        if s.m_state[k] != ALIVE:
            continue
        score = rank_of(s, k) * 100 + cheb(s.row, s.col, s.m_r[k], s.m_c[k])
        if score < goal_score:
            goal, goal_score = k, score
        if s.m_vis[k] == 1 and weak_reach(s, k) and score < shot_score:
            shot, shot_score = k, score
    return goal, shot


@helper
def path_step(s, tr, tc):
    """First move of a shortest walk to tile (tr, tc) round pillars and monsters (BFS); greedy if there is none."""
    blocked = np.zeros(ROWS * COLS, np.bool_)
    for j in range(SLOTS):
        if s.m_state[j] == ALIVE and 0 <= s.m_r[j] < ROWS:
            blocked[s.m_r[j] * COLS + s.m_c[j]] = True
    first = np.full(ROWS * COLS, -1, np.int64)
    queue = np.empty(ROWS * COLS, np.int64)
    start = s.row * COLS + s.col
    first[start], queue[0], head, tail = 0, start, 0, 1
    while head < tail:
        here = queue[head]
        head += 1
        r, c = here // COLS, here % COLS
        if r == tr and c == tc:
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
def shield_moved(s):
    """The shield's centre after its next move (it moves every ``SHIELD_EVERY`` ticks, turning at either end)."""
    c, d = np.int64(s.shield_c), np.int64(s.shield_dir)
    return c - d if c + d > SHIELD_MAX or c + d < SHIELD_MIN else c + d


@helper
def shielded(s, r, c, margin):
    """Tile (r, c) is within ``margin`` columns of the shield's centre now and after its next move (which of the
    coming ticks it moves in is not observed), south of its row."""
    return r > SHIELD_ROW and abs(c - s.shield_c) <= margin and abs(c - shield_moved(s)) <= margin


@helper
def shield_move(s):
    """The final wave's plan move: towards row ``SHIELD_ROW + 2`` under the shield's coming centre, the column
    first; round what blocks the way when no step brings it closer."""
    tr, tc = np.int64(SHIELD_ROW + 2), np.int64(s.shield_c + s.shield_dir)
    best, best_v = -1, 3 * abs(s.col - tc) + abs(s.row - tr)
    for m in range(1, 9):
        if legal(s, np.int64(MOVE), np.int64(m)):
            v = 3 * abs(s.col + DC[m] - tc) + abs(s.row + DR[m] - tr)
            if v < best_v:
                best, best_v = m, v
    if best >= 0:
        return best
    if abs(s.col - tc) <= 1:
        return 0
    if s.row < tr:  # north of the shield: down first, then along
        tc = s.col + max(s.row - tr, min(tr - s.row, tc - s.col))
    return path_step(s, tr, tc)


@helper
def incoming(s, out):
    """Max hits landing this tick on the player's tile per style (``out[0..2]``) and the final boss's (``out[3]``)."""
    for j in range(4):
        out[j] = 0.0
    standing = 0
    for p in range(PILLARS):
        standing += s.pil_hp[p]
    for k in range(1, SLOTS):
        kind = s.m_type[k]
        if s.m_state[k] != ALIVE or s.m_atk[k] > 1 or (kind == HEALER and not s.m_flag[k] & TAGGED):
            continue
        if kind == NIBBLER and standing > 0:  # bites the player only when no pillar stands
            continue
        if kind == BLOB or kind == BOSS:  # only a telegraphed attack lands, wherever the player stands
            if s.m_tele[k] > 0:
                out[s.m_tele[k] - 1] += MAX_HIT[kind]
        elif can_hit(s, k):
            out[s.m_style[k] if kind == SPLIT else STYLE[kind] if STYLE[kind] >= 0 else MELEE] += MAX_HIT[kind]
    if s.wave == FINAL_WAVE and s.m_state[0] == ALIVE and s.m_atk[0] <= 1:
        if not shielded(s, np.int64(s.row), np.int64(s.col), np.int64(SHIELD_HALF)):
            out[3] += ZUK_HIT


@helper
def dodge(s, base, act):
    """Sets the move and prayer heads: the legal move whose hits this tick, less the biggest style (prayed), are
    smallest (the plan's move ``base`` on a tie); in the final wave only moves that stay by the shield."""
    hits = np.zeros(4)
    r0, c0 = np.int64(s.row), np.int64(s.col)
    final = s.wave == FINAL_WAVE
    best, best_cost, best_style = base, 1e9, -1
    for m in range(9):
        s.row, s.col = r0, c0
        if not legal(s, np.int64(MOVE), np.int64(m)):
            continue
        s.row, s.col = r0 + DR[m], c0 + DC[m]
        if (
            m != base
            and final
            and (s.row > SHIELD_ROW + BAND or not shielded(s, np.int64(s.row), np.int64(s.col), np.int64(SHIELD_HALF)))
        ):
            continue
        incoming(s, hits)
        style, top = -1, 0.0
        if s.pp > 0:
            for j in range(3):
                if hits[j] > top:
                    style, top = j, hits[j]
        cost = hits[0] + hits[1] + hits[2] - top + hits[3] + (0.0 if m == base else DODGE_COST)
        if cost < best_cost:
            best, best_cost, best_style = m, cost, style
    s.row, s.col = r0, c0
    act[MOVE] = best
    act[PRAYER] = best_style + 1 if best_style >= 0 else PRAY_OFF if s.prayer > 0 else KEEP


@helper
def expert_play(s, act):
    """One tick of the expert plan (see the module docstring)."""
    for h in range(HEADS):
        act[h] = 0
    final = s.wave == FINAL_WAVE
    goal, k = goal_and_shot(s)
    if k < 0 and goal >= 0 and s.m_vis[goal] == 1:
        k = goal
    if k >= 0:
        act[TARGET] = k + 1
        act[GEAR] = WEAK[s.m_type[k]] + 1
    if s.hp < (FINAL_HEAL_BELOW if final else HEAL_BELOW) and legal(s, np.int64(SUPPLY), np.int64(DRINK_HEAL)):
        act[SUPPLY] = DRINK_HEAL
    elif s.pp < RESTORE_BELOW and legal(s, np.int64(SUPPLY), np.int64(DRINK_RESTORE)):
        act[SUPPLY] = DRINK_RESTORE
    base = 0
    if final and s.gap > 0:  # the final boss is not there yet: go where the shield will be
        base = path_step(s, np.int64(SHIELD_ROW + 2), np.int64(SHIELD_AT_FIRST_HIT))
    elif final:
        base = shield_move(s)
    elif goal >= 0 and not (s.m_vis[goal] == 1 and weak_reach(s, goal)):
        base = route(s, goal)
    dodge(s, base, act)


@kernel
def expert(s, cfg, agent, act):
    """Prays only as a hit lands, steps out of hits it can dodge, shoots what it can reach on the way to its
    target, and meets the shield where the final boss's first hit will find it: the reference that clears."""
    expert_play(s, act)

"""The scripted players of `serpent`: ``reference`` knows the rotations, ``reactive`` does not.

Both share one plan (:func:`play`): wear the gear the form is weak to, pray
against its style (not on a safespot against the ranged form, never against
the melee form), walk to the best tile (in range, a safespot if there is one,
off clouds and out of a coming smash), kill adds that come close, eat at
``EAT_HP``, cure venom at once and drink a prayer dose below ``DOSE_PP``.

They differ while the boss is under water. The reference player infers the
rotation from the phases seen so far (the first one consistent with them; the
rotations share their first phases, so it guesses until phase 4 shows), walks
to the next phase's tile and turns on the next form's prayer for the surfacing
tick. The reactive player only knows what it saw last: it stays where it is and
prays against the last phase's form for the surfacing tick.
"""

import numpy as np

from sparring.envs.serpent.legal import boss_distance, cloud_at, in_smash, legal, shadowed, walkable
from sparring.envs.serpent.world import (
    ANTIVENOM,
    ATTACK,
    ATTACK_ADD,
    ATTACK_BOSS,
    DC,
    DR,
    EAT,
    GEAR,
    GRID,
    HEADS,
    KEEP,
    MAGIC_FORM,
    MOVE,
    PHASES,
    PRAY_OFF,
    PRAYER,
    PRAYER_DOSE,
    PROTECT_MAGIC,
    PROTECT_RANGED,
    RANGE,
    RANGED_FORM,
    ROT_FORM,
    ROT_POS,
    ROTATIONS,
    SUPPLY,
    WEAKNESS,
)
from sparring.kit import helper, kernel

EAT_HP, DOSE_PP, ADD_CLOSE = 50, 20, 2
# tile preferences, in steps of walking: a tile out of range, not a safespot, clouded, under a smash
OUT_OF_RANGE, EXPOSED_RANGED, EXPOSED_MAGIC, CLOUDED, SMASHED = 20, 6, 2, 10, 50
UNREACHED = 1 << 20


@helper
def predict(s):
    """(form, position) of the coming phase in the first rotation consistent with the phases seen."""
    for r in range(ROTATIONS):
        ok = True
        for p in range(PHASES):
            if s.seen_form[p] >= 0 and (ROT_FORM[r, p] != s.seen_form[p] or ROT_POS[r, p] != s.seen_pos[p]):
                ok = False
                break
        if ok:
            return ROT_FORM[r, s.stage], ROT_POS[r, s.stage]
    return -1, -1


@helper
def tile_cost(s, form, pos, r, c, steps):
    """How much the plan dislikes ending up on (r, c), ``steps`` moves away."""
    cost = steps
    if pos >= 0:
        if boss_distance(pos, r, c) > RANGE:
            cost += OUT_OF_RANGE
        if not shadowed(pos, r, c):
            cost += EXPOSED_RANGED if form == RANGED_FORM else EXPOSED_MAGIC if form == MAGIC_FORM else 0
    if cloud_at(s, r, c):
        cost += CLOUDED
    if in_smash(s, r, c):
        cost += SMASHED
    return cost


@helper
def walk(s, form, pos):
    """The first move towards the cheapest tile (breadth-first over walkable tiles)."""
    dist = np.full(GRID * GRID, UNREACHED, np.int64)
    first = np.zeros(GRID * GRID, np.int64)
    queue = np.empty(GRID * GRID, np.int64)
    start = s.row * GRID + s.col
    dist[start] = 0
    queue[0], head, tail = start, 0, 1
    best, best_cost = start, tile_cost(s, form, pos, np.int64(s.row), np.int64(s.col), np.int64(0))
    while head < tail:
        here = queue[head]
        head += 1
        r, c = here // GRID, here % GRID
        for m in range(1, 5):
            nr, nc = r + DR[m], c + DC[m]
            if walkable(nr, nc) and dist[nr * GRID + nc] == UNREACHED:
                there = nr * GRID + nc
                dist[there] = dist[here] + 1
                first[there] = m if here == start else first[here]
                queue[tail] = there
                tail += 1
                cost = tile_cost(s, form, pos, nr, nc, dist[there])
                if cost < best_cost:
                    best, best_cost = there, cost
    return first[best] if best != start else 0


@helper
def close_add(s):
    """A live add within ADD_CLOSE tiles of the player."""
    for k in range(s.add_hp.shape[0]):
        if s.add_hp[k] > 0 and max(abs(s.add_r[k] - s.row), abs(s.add_c[k] - s.col)) <= ADD_CLOSE:
            return True
    return False


@helper
def play(s, knows, act):
    """One tick of the shared plan; ``knows``: the reference player's rotation knowledge."""
    for h in range(HEADS):
        act[h] = 0
    form, pos, ambush = s.form, s.pos, False
    if s.surfaced == 0:
        ambush = s.timer == 1
        if knows:
            form, pos = predict(s)
        else:
            form, pos = s.seen_form[(s.stage + PHASES - 1) % PHASES], -1
    prayer = PRAY_OFF
    if s.surfaced == 1 or ambush:
        if form == MAGIC_FORM:
            prayer = PROTECT_MAGIC
        elif form == RANGED_FORM and (pos < 0 or not shadowed(pos, s.row, s.col)):
            prayer = PROTECT_RANGED
    if prayer == PRAY_OFF and s.prayer == 0:
        prayer = KEEP
    act[PRAYER] = prayer
    if form >= 0:
        act[GEAR] = WEAKNESS[form] + 1
    if s.hp <= EAT_HP and legal(s, np.int64(SUPPLY), np.int64(EAT)):
        act[SUPPLY] = EAT
    elif legal(s, np.int64(SUPPLY), np.int64(ANTIVENOM)):
        act[SUPPLY] = ANTIVENOM
    elif s.pp < DOSE_PP and legal(s, np.int64(SUPPLY), np.int64(PRAYER_DOSE)):
        act[SUPPLY] = PRAYER_DOSE
    if close_add(s) and legal(s, np.int64(ATTACK), np.int64(ATTACK_ADD)):
        act[ATTACK] = ATTACK_ADD
    elif legal(s, np.int64(ATTACK), np.int64(ATTACK_BOSS)):
        act[ATTACK] = ATTACK_BOSS
    act[MOVE] = walk(s, form, pos)


@kernel
def reference(s, cfg, agent, act):
    """Knows the four rotations: prepares tile, gear and prayer for the next phase while the boss dives."""
    play(s, np.bool_(True), act)


@kernel
def reactive(s, cfg, agent, act):
    """Does not know the rotations: reacts to what it sees, and expects the last phase's form again."""
    play(s, np.bool_(False), act)

"""The observation and mask rows of `duel`, one per seat, from that fighter's side.

Observation (``OBS_SIZE`` = 73 floats in [-1, 1]): own fighter block, the
other's block (hp, prayer points, gear, overhead prayer, freeze and immunity
timers, attack timer, eating timer, food, combo food, potion doses, special
energy), own position, offset to the other and distance, the incoming and the
outgoing projectile (ticks to land, style), the other's last actions (one-hot
per head), the tick fraction, and the threats: each style's damage rate (hit
chance x max hit / weapon speed, 0 out of range, 2/5 when prayed against), own
against the other, then the other's against oneself. The threats are functions
of the rest; spelled out, they let a policy learn sooner which style to pray
against before the other's weapon is ready. The mask is
:func:`sparring.envs.duel.legal.write_mask`.
"""

from sparring.envs.duel.legal import distance, hit_chance, write_mask
from sparring.envs.duel.world import (
    ARENA,
    COMBOS,
    EAT_TICKS,
    FOODS,
    FREEZE_TICKS,
    HEADS,
    IMMUNE_TICKS,
    MAX_DELAY,
    MAX_HIT,
    MAX_HP,
    MAX_SPEED,
    MELEE,
    POTS,
    PRAY_MAX,
    PRAYED_DEN,
    PRAYED_NUM,
    RANGE,
    SIZES,
    SPEC_MAX,
    SPEED,
)
from sparring.kit import helper

FIGHTER_OBS = 16
OBS_SIZE = 2 * FIGHTER_OBS + 5 + 2 * 4 + sum(SIZES) + 1 + 2 * 3
TOP_THREAT = MAX_HIT[MELEE] / SPEED[MELEE]  # the highest damage rate of a style: threats are fractions of it


@helper
def fighter_obs(s, f, row, k):
    """Fighter ``f``'s visible state into ``row[k:k + FIGHTER_OBS]``."""
    row[k] = s.hp[f] / MAX_HP
    row[k + 1] = s.pp[f] / PRAY_MAX
    for g in range(3):
        row[k + 2 + g] = 1.0 if s.gear[f] == g else 0.0
        row[k + 5 + g] = 1.0 if s.prayer[f] == g + 1 else 0.0
    row[k + 8] = s.frozen[f] / FREEZE_TICKS
    row[k + 9] = s.immune[f] / IMMUNE_TICKS
    row[k + 10] = s.atk[f] / MAX_SPEED
    row[k + 11] = s.eat[f] / EAT_TICKS
    row[k + 12] = s.food[f] / FOODS
    row[k + 13] = s.combo[f] / COMBOS
    row[k + 14] = s.pots[f] / POTS
    row[k + 15] = s.spec[f] / SPEC_MAX


@helper
def projectile_obs(s, f, row, k):
    """Fighter ``f``'s projectile in flight: ticks to land and style (zeros if none)."""
    row[k] = s.p_left[f] / MAX_DELAY
    for g in range(3):
        row[k + 1 + g] = 1.0 if s.p_left[f] > 0 and s.p_style[f] == g else 0.0
    return k + 4


@helper
def threat_obs(s, a, row, k):
    """Fighter ``a``'s damage rate per style against the other as things stand, over melee's (0 out of range):
    hit chance against the other's gear times max hit over weapon speed, cut to 2/5 when the other prays it."""
    o = 1 - a
    d = distance(s)
    for style in range(3):
        value = 0.0
        if d <= RANGE[style]:
            value = hit_chance(style, s.gear[o]) * MAX_HIT[style] / SPEED[style] / TOP_THREAT
            if s.prayer[o] == style + 1:
                value = value * PRAYED_NUM / PRAYED_DEN
        row[k + style] = value
    return k + 3


@helper
def write_obs(s, cfg, obs, mask):
    """Each seat's observation row and mask row."""
    span = ARENA - 1
    for a in range(2):
        o = 1 - a
        row = obs[a]
        for b in range(2):
            fighter_obs(s, a if b == 0 else o, row, b * FIGHTER_OBS)
        k = 2 * FIGHTER_OBS
        row[k] = s.row[a] / span
        row[k + 1] = s.col[a] / span
        row[k + 2] = (s.row[o] - s.row[a]) / span
        row[k + 3] = (s.col[o] - s.col[a]) / span
        row[k + 4] = distance(s) / span
        k = projectile_obs(s, o, row, k + 5)
        k = projectile_obs(s, a, row, k)
        for h in range(HEADS):
            for v in range(SIZES[h]):
                row[k] = 1.0 if s.last[o, h] == v else 0.0
                k += 1
        row[k] = s.tick / cfg.max_ticks
        k = threat_obs(s, a, row, k + 1)
        threat_obs(s, o, row, k)
        write_mask(s, a, mask[a])

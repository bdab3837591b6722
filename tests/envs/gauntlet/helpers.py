"""Hand-built `gauntlet` states for the tests: an empty arena, then monsters placed slot by slot."""

import numpy as np

from sparring.envs.gauntlet import world as W
from sparring.envs.gauntlet.env import Gauntlet
from sparring.kit.batch import BatchedEnv

HEAD = {name: k for k, name in enumerate(Gauntlet.actions.names)}
METRIC = {name: k for k, name in enumerate(Gauntlet.metrics)}


def make(**config):
    """One env that waits when its run ends."""
    return BatchedEnv(Gauntlet, num_envs=1, seed=3, autoreset=False, **config)


def arena(env, seed=3, **fields):
    """A fresh run's record with no monsters (wave 1 unless given), ``fields`` overwritten; not yet restored."""
    env.reset(seed)
    rec = env.records[0].copy()
    rec["m_state"][:] = W.EMPTY
    rec["m_vis"][:] = 0
    for name, value in fields.items():
        rec[name] = value
    return rec


def monster(rec, k, kind, r, c, **fields):
    """A ``kind`` monster in slot ``k`` on (r, c): alive, full hp, in sight, unless ``fields`` say otherwise."""
    rec["m_type"][k], rec["m_state"][k], rec["m_hp"][k] = kind, W.ALIVE, W.HP[kind]
    rec["m_r"][k], rec["m_c"][k], rec["m_atk"][k], rec["m_vis"][k] = r, c, W.SPEED[kind], 1
    rec["m_flag"][k], rec["m_tele"][k], rec["m_style"][k], rec["m_link"][k], rec["m_idle"][k] = 0, 0, 0, -1, 0
    for name, value in fields.items():
        rec[name][k] = value


def act(**heads):
    """One action row; unnamed heads do nothing."""
    out = np.zeros((1, W.HEADS), np.int32)
    for name, value in heads.items():
        out[0, HEAD[name]] = value
    return out


def metric(env, name):
    return float(env.records[0]["metrics"][METRIC[name]])

"""Hand-built town states for the rule tests."""

import numpy as np

import sparring
from sparring.envs.town.legal import find_slots
from sparring.envs.town.world import PLACE_COL, PLACE_ROW, RICH


def quiet_town(num_envs: int = 1, seed: int = 0, **config):
    """A town whose characters all stand together on the market tile, well fed, with no goods and 10 coins.

    Without the team shaping term unless ``config`` asks for it (defaults.toml turns it on for training)."""
    config.setdefault("reward_team", 0.0)
    env = sparring.make("town", num_envs=num_envs, seed=seed, autoreset=False, **config)
    for i in range(num_envs):
        rec = env.records[i]
        rec["row"][:], rec["col"][:] = 0, 0
        rec["needs"][:] = 0.9
        rec["goods"][:] = 0
        rec["coins"][:] = 10
        rec["goal"][:] = RICH
        find_slots(rec)
    env.restore(None, env.records.copy())
    return env


def place(env, agent: int, p: int, i: int = 0) -> None:
    """Put character ``agent`` of town ``i`` on place ``p`` and refresh who sees whom."""
    rec = env.records[i]
    rec["row"][agent], rec["col"][agent] = PLACE_ROW[p], PLACE_COL[p]
    refresh(env, i)


def refresh(env, i: int = 0) -> None:
    """Recompute the neighbour slots, observations and masks of town ``i`` after a hand edit."""
    find_slots(env.records[i])
    env.restore([i], env.records[[i]].copy())


def noop(env) -> np.ndarray:
    """Every character waits."""
    return np.zeros((env.rows, 1), np.int32)

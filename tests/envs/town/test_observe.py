"""`town` observations carry what the planner decides on (it must be imitable from them)."""

from sparring.envs.town.observe import SELF
from sparring.envs.town.world import FIRST, HOME_COL, HOME_ROW, SLEEP
from tests.envs.town.towns import noop, quiet_town, refresh


def test_a_character_sees_that_it_slept_last_tick():
    # the planner keeps sleeping until rested once it has slept: that rule reads the last action
    env = quiet_town()
    rec = env.records[0]
    rec["row"][0], rec["col"][0] = HOME_ROW[0], HOME_COL[0]
    refresh(env)
    slept = SELF - 1
    assert env.obs[0, slept] == 0.0
    acts = noop(env)
    acts[0, 0] = FIRST[SLEEP]
    env.step(acts)
    assert env.obs[0, slept] == 1.0 and env.obs[1, slept] == 0.0
    env.step(noop(env))
    assert env.obs[0, slept] == 0.0

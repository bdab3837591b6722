"""PettingZoo adapter: the library's parallel API test, agents leaving when done."""

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from sparring.kit.pz_adapter import PettingZooEnv
from tests.kit import toys


def test_passes_parallel_api_test():
    parallel_api_test(PettingZooEnv(toys.Pair), num_cycles=200)
    parallel_api_test(PettingZooEnv("squared"), num_cycles=200)


def test_agents_leave_when_done_and_the_episode_ends_with_all():
    env = PettingZooEnv(toys.Pair)
    obs, infos = env.reset(seed=2)
    assert env.agents == ["agent_0", "agent_1"] and set(obs) == set(infos)
    goal = round(obs["agent_0"][1] * toys.LENGTH)
    for _ in range(goal):
        obs, rew, term, trunc, infos = env.step({"agent_0": toys.RIGHT, "agent_1": toys.STAY})
    assert term["agent_0"] and rew["agent_0"] == 1.0 and env.agents == ["agent_1"]
    with pytest.raises(ValueError, match="not in play"):
        env.step({"agent_0": toys.STAY})
    while env.agents:
        env.step({"agent_1": toys.RIGHT})
    assert np.isfinite(list(rew.values())).all()

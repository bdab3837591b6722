"""PettingZoo adapter, tried with PettingZoo's own tests (parallel, seeds, AEC through parallel_to_aec); agents are
the learner seats and leave when done; masks are what space.sample takes."""

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import parallel_to_aec

from sparring.kit.pz_adapter import PettingZooEnv
from tests.kit import toys

ENVS = [("town", {}), ("duel", {}), ("duel", {"opponent": "learner"}), (toys.Pair, {})]
IDS = ["town", "duel", "duel-selfplay", "toy-pair"]


@pytest.mark.parametrize("env, config", ENVS, ids=IDS)
def test_passes_pettingzoos_aec_parallel_and_seed_tests(env, config):
    api_test(parallel_to_aec(PettingZooEnv(env, **config)), num_cycles=100)
    parallel_api_test(PettingZooEnv(env, **config), num_cycles=100)
    parallel_seed_test(lambda: PettingZooEnv(env, **config), num_cycles=50)


def test_agents_are_the_learner_seats():
    assert PettingZooEnv("duel").possible_agents == ["agent_0"]  # the env plays its scripted opponent
    assert PettingZooEnv("duel", opponent="learner").possible_agents == ["agent_0", "agent_1"]
    chase = PettingZooEnv(toys.Chase)
    obs, _ = chase.reset(seed=0)
    assert chase.possible_agents == ["agent_1"] and np.array_equal(obs["agent_1"], chase.batch.obs[1])


def test_masks_are_int8_per_head_and_sampling_keeps_to_them():
    env = PettingZooEnv("duel")
    _, infos = env.reset(seed=0)
    mask = infos["agent_0"]["action_mask"]
    sizes = env.batch.heads.sizes.tolist()
    assert isinstance(mask, tuple) and [m.dtype for m in mask] == [np.int8] * len(sizes)
    assert [len(m) for m in mask] == sizes and not all(m.all() for m in mask)
    for _ in range(50):
        action = env.action_space("agent_0").sample(mask=mask)
        assert all(m[a] == 1 for m, a in zip(mask, action))
    walk = PettingZooEnv(toys.Walk)
    _, infos = walk.reset(seed=0)
    assert infos["agent_0"]["action_mask"].dtype == np.int8 and infos["agent_0"]["action_mask"].tolist() == [1, 0, 1]


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

"""Per-character trades and gifts of a town: they add up to the env's own count of trades per town, and a gift
counts only when one was carried out."""

import numpy as np
import pytest

from sparring.envs.town.world import GIVE, KIND
from sparring.evaluate.matchup import play_pair
from sparring.evaluate.town_tally import TownTally, _first_per_env
from sparring.kit import BatchedEnv, registry


class _Chosen(TownTally):
    """Also counts the gifts chosen (legal when chosen), to compare with those carried out."""

    chosen = 0

    def observe(self):
        self.chosen += int(((KIND[self.env.records["last"]] == GIVE) & self.active[:, None]).sum())
        super().observe()


@pytest.fixture(scope="module")
def played():
    env = BatchedEnv(registry.get("town"), num_envs=16, seed=3, autoreset=False, background=0, days=2)
    first = np.zeros((16, 8), bool)
    first[:, :4] = True
    tally = _Chosen(env)
    data, envs = play_pair(env, ("scripted:planner:0.3", "random"), first, 24, tally, 0, False)
    return env, tally, data, envs


def test_every_town_s_trades_are_twice_the_env_count(played):
    env, tally, data, envs = played
    chars = tally.arrays()
    trades = data[:, 3 + list(env.env_cls.metrics).index("trades")]
    assert len(chars["trades"]) == len(data) == len(envs) == 24
    assert trades.sum() > 20  # the noisy planners trade: the check below is not about zeros
    assert np.array_equal(chars["trades"].sum(1), 2 * trades)


def test_gifts_count_those_carried_out_among_those_chosen(played):
    _, tally, _, _ = played
    gifts = int(tally.arrays()["gifts"].sum())
    # random characters choose gives that fail at their turn (the other walked away first), never the reverse
    assert 0.5 * tally.chosen < gifts <= tally.chosen


def test_finished_episodes_keep_each_character_s_goal_and_standing(played):
    env, tally, _, envs = played
    chars = tally.arrays()
    assert set(np.unique(chars["goal"])) <= {0, 1} and set(np.unique(chars["alive"])) <= {0, 1}
    assert chars["alive"][:, 4:].sum() == 0  # random characters faint within two days
    assert np.bincount(envs, minlength=env.num_envs).tolist() == [2] * 8 + [1] * 8  # 24 episodes over 16 envs


def test_each_env_takes_its_count_of_highest_priority_candidates():
    env = np.array([0, 0, 0, 1, 1, 2])
    priority = np.array([1, 3, 2, 0, 2, 1])
    taken = _first_per_env(env, priority, np.array([2, 1, 0]))
    assert taken.tolist() == [False, True, True, False, True, False]

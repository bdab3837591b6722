import numpy as np

from sparring.kit import BatchedEnv
from sparring.kit.scripted_episodes import first_episodes

from tests.kit.toys import Walk


def test_first_episodes_play_each_env_once_to_its_end():
    goals = BatchedEnv(Walk, num_envs=16, seed=3, autoreset=False).records["goal"].copy()
    played = first_episodes(Walk, "to_goal", 16, seed=3)
    assert played["metrics"].shape == (16, 1)
    assert (played["metrics"][:, 0] == 1.0).all()  # the script always reaches its goal
    assert (played["phase"] == 1).all()  # and ends "near"
    np.testing.assert_array_equal(played["ticks"], goals)  # one tick per tile walked from 0

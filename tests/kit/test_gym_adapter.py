"""Gymnasium adapters: the library's checker, seeding, same-step autoreset."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from sparring.kit.gym_adapter import GymEnv, GymVectorEnv
from tests.kit import toys


def test_single_env_passes_gymnasium_checker():
    check_env(GymEnv("squared"), skip_render_check=True)
    check_env(GymEnv(toys.Pair, seat=1), skip_render_check=True)


def test_reset_with_seed_repeats_and_masks_are_in_info():
    env = GymEnv(toys.Walk)
    a, info = env.reset(seed=3)
    b, _ = env.reset(seed=3)
    assert np.array_equal(a, b) and info["action_mask"].tolist() == [True, False, True]


def test_stepping_a_finished_episode_asks_for_reset():
    env = GymEnv(toys.Walk)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(toys.RIGHT)
        done = term or trunc
    with pytest.raises(RuntimeError, match="reset"):
        env.step(toys.RIGHT)


def test_render_modes_and_bad_arguments():
    env = GymEnv("squared", render_mode="ansi")
    env.reset(seed=0)
    assert "@" in env.render()
    frame = GymEnv("squared", render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape[2] == 3
    with pytest.raises(ValueError, match="seat must be in"):
        GymEnv(toys.Pair, seat=2)
    with pytest.raises(ValueError, match="others must be 'noop' or one of"):
        GymEnv(toys.Walk, others="nope")


def test_vector_env_same_step_autoreset_keeps_final_obs():
    env = GymVectorEnv(toys.Walk, num_envs=6, seed=1)
    obs, info = env.reset(seed=1)
    assert obs.shape == (6, 2) and info["action_mask"].shape == (6, 3)
    goals = obs[:, 1].copy()
    for _ in range(toys.LENGTH):
        obs, rew, term, trunc, info = env.step(np.full(6, toys.RIGHT))
        if term.any():
            break
    ended = info["_final_obs"]
    assert ended.tolist() == term.tolist()
    for r in np.flatnonzero(ended):
        assert info["final_obs"][r][0] == goals[r]  # the last obs stands on the goal
        assert obs[r, 0] == 0.0  # the returned obs starts the next episode
    assert info["episode"]["episodes"] == int(term.sum())

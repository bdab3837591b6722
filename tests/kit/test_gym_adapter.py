"""Gymnasium adapters, tried with Gymnasium's own tools: check_env on gymnasium.make, the vector wrappers on
make_vec, masks that space.sample takes; learner seats only, seeds, same-step autoreset, episode statistics."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

import sparring
from sparring.kit import BatchedEnv
from sparring.kit.gym_adapter import GymEnv, GymVectorEnv
from tests.kit import toys

# every registered env seen from one seat (town16 and town64 are town's rules at other sizes); town's other
# characters follow its planner
SINGLE = [("squared", {}), ("duel", {}), ("serpent", {}), ("gauntlet", {}), ("town", {"others": "planner"})]


@pytest.mark.parametrize("name, kwargs", SINGLE, ids=[name for name, _ in SINGLE])
def test_gymnasium_make_passes_gymnasium_checker(name, kwargs):
    env = gymnasium.make(f"sparring/{name}-v0", **kwargs)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped version.*")  # make's wrappers
        check_env(env, skip_render_check=True)
    assert isinstance(env.unwrapped, GymEnv) and env.unwrapped.batch.env_cls.name == name


def test_checker_passes_a_seat_other_than_the_first_and_config_keys_reach_the_env():
    check_env(GymEnv(toys.Pair, seat=1), skip_render_check=True)
    env = gymnasium.make("sparring/squared-v0", size=5)
    assert env.observation_space.shape == (25,) and env.unwrapped.batch.config.size == 5
    with pytest.raises(ValueError, match="size"):
        gymnasium.make("sparring/squared-v0", sise=5)


def test_seats_are_the_learner_seats_by_index_or_name():
    assert GymEnv(toys.Chase).seat == 1  # the first seat taken from outside, not seat 0 (the env's chaser)
    assert GymEnv("duel", seat="opponent", opponent="learner").seat == 1
    with pytest.raises(ValueError, match=r"one of 0 \(player\); got 'opponent'"):
        GymEnv("duel", seat="opponent")  # the env plays its scripted opponent itself
    with pytest.raises(ValueError, match="got 2"):
        GymEnv(toys.Pair, seat=2)


def test_masks_are_what_space_sample_takes_and_action_masks_is_the_flat_bool_mask():
    walk = GymEnv(toys.Walk)
    _, info = walk.reset(seed=3)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].tolist() == [1, 0, 1]
    assert all(walk.action_space.sample(mask=info["action_mask"]) != toys.LEFT for _ in range(50))
    duel = GymEnv("duel")
    _, info = duel.reset(seed=0)
    heads = duel.batch.heads
    assert [m.dtype for m in info["action_mask"]] == [np.int8] * len(heads.sizes)
    assert [len(m) for m in info["action_mask"]] == heads.sizes.tolist()
    flat = duel.action_masks()
    assert flat.dtype == np.bool_ and np.array_equal(flat, np.concatenate(info["action_mask"]).astype(bool))
    assert not flat.all()  # some action is masked, so the sample below tests something
    for _ in range(50):
        action = duel.action_space.sample(mask=info["action_mask"])
        assert flat[heads.offsets + action].all()


def test_reset_with_seed_repeats_and_without_one_continues():
    env = GymEnv(toys.Walk)
    a, _ = env.reset(seed=3)
    b, _ = env.reset(seed=3)
    goals = {float(env.reset()[0][1]) for _ in range(20)}
    assert np.array_equal(a, b) and len(goals) > 1


def test_episode_end_carries_sparring_statistics_and_success():
    env = GymEnv(toys.Walk)
    obs, _ = env.reset(seed=0)
    goal, steps, done = round(obs[1] * toys.LENGTH), 0, False
    while not done:
        _, _, term, trunc, info = env.step(toys.RIGHT)
        steps, done = steps + 1, term or trunc
    assert info["is_success"] is True
    assert info["sparring_episode"] == {"return": 1.0, "length": steps, "phase": "near", "reached": 1.0}
    assert steps == goal
    with pytest.raises(RuntimeError, match="reset"):
        env.step(toys.RIGHT)


def test_render_modes_and_bad_arguments():
    env = GymEnv("squared", render_mode="ansi")
    env.reset(seed=0)
    assert "@" in env.render()
    frame = GymEnv("squared", render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape[2] == 3
    with pytest.raises(ValueError, match="others must be 'noop' or one of"):
        GymEnv(toys.Walk, others="nope")


def test_make_vec_has_one_sub_env_per_learner_seat():
    duel = gymnasium.make_vec("sparring/duel-v0", num_envs=8, vectorization_mode="vector_entry_point")
    assert isinstance(duel, GymVectorEnv) and duel.num_envs == 8  # the scripted opponent's rows are not sub-envs
    assert gymnasium.make_vec("sparring/duel-v0", num_envs=8, opponent="learner").num_envs == 16
    chase = GymVectorEnv(toys.Chase, num_envs=3)
    obs, _ = chase.reset(seed=1)
    assert obs.shape == (3, 2) and np.array_equal(obs, chase.batch.obs[1::2])  # the runner's rows
    obs, *_ = chase.step(np.full(3, toys.RIGHT))
    assert np.allclose(obs[:, 1], 5 / toys.LINE)  # the runner moved: the actions went to its seat


def test_record_episode_statistics_and_dict_info_to_list_on_make_vec():
    base = gymnasium.make_vec("sparring/duel-v0", num_envs=4, vectorization_mode="vector_entry_point")
    stats = RecordEpisodeStatistics(base)
    env = DictInfoToList(stats)
    obs, infos = env.reset(seed=0)
    ended = 0
    for _ in range(600):
        actions = np.stack([base.single_action_space.sample(mask=info["action_mask"]) for info in infos])
        obs, rewards, terms, truncs, infos = env.step(actions)
        for k, info in enumerate(infos):
            assert ("episode" in info) == ("sparring_episode" in info) == bool(terms[k] or truncs[k])
            if "episode" in info:
                ended += 1
                ours = info["sparring_episode"]
                assert info["episode"]["l"] == ours["length"] and info["episode"]["r"] == pytest.approx(ours["return"])
                assert ours["phase"] in base.batch.env_cls.phases and {"win", "draw"} <= set(ours)
    assert ended >= 4 and len(stats.return_queue) == ended


def test_vector_reset_seeds_continue_and_lists_seed_each_game():
    env = GymVectorEnv("squared", num_envs=4)
    a, info = env.reset(seed=5)
    assert np.array_equal(env.reset(seed=5)[0], a) and info["_action_mask"].all()
    assert not np.array_equal(env.reset()[0], a)  # no seed: each game's generator goes on
    listed, _ = env.reset(seed=[7, 8, None, 9])
    for g, seed in [(0, 7), (1, 8), (3, 9)]:
        alone, _ = GymVectorEnv("squared", num_envs=1).reset(seed=[seed])
        assert np.array_equal(listed[g], alone[0])
    with pytest.raises(ValueError, match="one per sub-env"):
        env.reset(seed=[1, 2])
    pair = GymVectorEnv(toys.Pair, num_envs=2)
    pair.reset(seed=[1, 1, 2, 2])
    with pytest.raises(ValueError, match="one seed"):
        pair.reset(seed=[1, 2, 3, 4])


def test_vector_masks_per_sub_env():
    walk = GymVectorEnv(toys.Walk, num_envs=5)
    _, info = walk.reset(seed=0)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (5, 3)
    assert all((walk.action_space.sample(mask=tuple(info["action_mask"])) != toys.LEFT).all() for _ in range(20))
    duel = GymVectorEnv("duel", num_envs=3)
    _, info = duel.reset(seed=0)
    assert info["action_mask"].shape == (3,) and isinstance(info["action_mask"][0], tuple)
    flat = duel.action_masks()
    assert flat.shape == (3, duel.batch.heads.total) and flat.dtype == np.bool_
    assert np.array_equal(np.concatenate(info["action_mask"][2]).astype(bool), flat[2])


def test_vector_same_step_autoreset_keeps_final_obs():
    env = GymVectorEnv(toys.Walk, num_envs=6, seed=1)
    obs, _ = env.reset(seed=1)
    goals = obs[:, 1].copy()
    for _ in range(toys.LENGTH):
        obs, rew, term, trunc, info = env.step(np.full(6, toys.RIGHT))
        if term.any():
            break
    ended = info["_final_obs"]
    assert ended.tolist() == term.tolist() and info["_sparring_episode"].tolist() == term.tolist()
    for r in np.flatnonzero(ended):
        assert info["final_obs"][r][0] == goals[r]  # the last obs stands on the goal
        assert obs[r, 0] == 0.0  # the returned obs starts the next episode
        assert info["sparring_episode"]["reached"][r] == 1.0
    assert info["final_info"]["_action_mask"].tolist() == ended.tolist()


def test_vector_actions_are_checked():
    env = GymVectorEnv(toys.Walk, num_envs=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="sub-env 1 is \\[3\\]"):
        env.step(np.array([0, 3]))
    with pytest.raises(TypeError, match="integers"):
        env.step(np.zeros(2))


def test_vector_steps_match_the_batched_env():
    env, batch = GymVectorEnv("squared", num_envs=4, seed=2), BatchedEnv(sparring.kit.get("squared"), 4, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = rng.integers(0, 5, 4)
        obs, rew, term, _, _ = env.step(actions)
        b_obs, b_rew, b_term, *_ = batch.step(actions)
        assert np.array_equal(obs, b_obs) and np.array_equal(rew, b_rew) and np.array_equal(term, b_term)

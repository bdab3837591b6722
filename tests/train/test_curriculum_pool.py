"""A curriculum's state pool: the sources' states and (own:N) the learner's own arrivals in each group."""

import os

import numpy as np
import pytest

import sparring
from sparring.kit import Env, Heads, Obs, kernel, rand_float, register, registry
from sparring.players.policy import policy_for
from sparring.train.checkpoint import restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.curriculum import Curriculum
from sparring.train.curriculum_pool import StatePool
from sparring.train.curriculum_sources import StartStates, load_start_states
from sparring.train.rollout import Rollout
from sparring.train.trainer import Trainer


@kernel
def climb_reset(s, cfg):
    s.level = 0
    s.steps = 0


@kernel
def climb_step(s, cfg, act, rew, term, trunc):
    # action 1 climbs a level half the time; reaching level 4 wins, 8 ticks end the episode
    if act[0] == 1 and rand_float(s) < 0.5:
        s.level += 1
    s.steps += 1
    rew[0] = 1.0 if s.level == 4 else 0.0
    s.metrics[0] = rew[0]
    term[0] = s.level == 4 or s.steps >= 8


@kernel
def climb_observe(s, cfg, obs, mask):
    obs[0, 0] = s.level


class Climb(Env):
    """Climb four levels within 8 ticks; start groups are levels, so an episode arrives in new groups as it goes."""

    name = "toy_climb"
    obs = Obs(1, np.uint8, low=0, high=4)
    actions = Heads(move=2)
    state = {"level": "i4", "steps": "i4"}
    metrics = ("win",)
    reset, step, observe = climb_reset, climb_step, climb_observe
    start_group_key = "level"

    @staticmethod
    def start_groups(records):
        return records["level"].astype(np.int64)

    @staticmethod
    def bounds(cfg):
        return {"level": (0, 4), "steps": (0, 8)}


register("toy_climb", Climb)


def own_only(capacity: int) -> StartStates:
    return StartStates(
        np.zeros(0, Climb.record_dtype), np.zeros(0, np.int64), np.zeros(0, np.int64), "level", [], capacity
    )


def test_the_pool_keeps_the_newest_arrivals_of_each_group_and_draws_only_what_it_has():
    pool = StatePool(own_only(2), Climb.record_dtype)
    assert pool.sizes().tolist() == []
    records = np.zeros(4, Climb.record_dtype)
    records["steps"] = [1, 2, 3, 4]
    pool.add(records, np.array([3, 3, 1, 3]))
    assert pool.keys.tolist() == [3, 1] and pool.sizes().tolist() == [2, 1] and pool.labels() == ["level_3", "level_1"]
    assert sorted(pool.own[0]["steps"].tolist()) == [2, 4]  # the oldest arrival at level 3 made room
    drawn = pool.draw(np.array([0] * 50 + [1] * 5), np.random.default_rng(0))
    assert set(drawn["steps"][:50].tolist()) == {2, 4} and (drawn["steps"][50:] == 3).all()


def test_a_source_states_and_own_arrivals_share_a_group():
    fixed = np.zeros(2, Climb.record_dtype)
    fixed["steps"] = [7, 8]
    starts = StartStates(fixed, np.array([0, 0]), np.array([2]), "level", [("states:x", 2)], 3)
    pool = StatePool(starts, Climb.record_dtype)
    arrival = np.zeros(1, Climb.record_dtype)
    arrival["steps"] = 5
    pool.add(arrival, np.array([2]))
    assert pool.sizes().tolist() == [3]
    assert set(pool.draw(np.zeros(200, np.int64), np.random.default_rng(1))["steps"].tolist()) == {5, 7, 8}


@pytest.mark.parametrize(
    "spec, message",
    [
        ("own:0", "N must be a positive int"),
        ("own:many", "N must be a positive int"),
        ("own:4,own:8", "names own:N twice"),
    ],
)
def test_a_bad_own_entry_is_one_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        load_start_states(spec, Climb)


def test_own_arrivals_need_an_env_with_start_groups():
    with pytest.raises(ValueError, match="declares no start groups"):
        load_start_states("own:4", registry.get("squared"))


def test_ended_episodes_restart_from_the_learners_own_arrivals():
    env = sparring.make("toy_climb", num_envs=32, seed=3)
    policy = policy_for(env, make_train_config(None, {"hidden": 8}))
    rollout = Rollout(env, policy, 8, np.arange(env.rows))
    curriculum = Curriculum(env, rollout.rows_np, rollout.state, load_start_states("own:16", Climb), true_share=0.0)
    rollout.episode_end = curriculum
    assert curriculum.shares() == {"true": 1.0}  # nothing kept yet: every end keeps its true start
    rollout.collect()
    pool = curriculum.pool
    assert len(pool.keys) and set(pool.keys.tolist()) <= {1, 2, 3, 4} and (pool.sizes() > 0).all()
    for g, key in enumerate(pool.keys):
        kept = pool.own[g, : min(pool.added[g], pool.capacity)]
        assert (kept["level"] == key).all() and (kept["steps"] >= 1).all()  # taken on the tick it arrived
    restored = np.flatnonzero(curriculum.origin >= 0)
    assert restored.size > 0
    levels = env.records["level"][restored]
    assert (levels == pool.keys[curriculum.origin[restored]]).all()
    assert abs(sum(v for k, v in curriculum.shares().items() if k != "true") - 1.0) < 1e-9


def test_resume_keeps_the_own_arrivals_exactly(tmp_path):
    settings = {"num_envs": 32, "horizon": 8, "minibatch_size": 128, "hidden": 16, "threads": 1}
    cfg = make_train_config(
        None, {**settings, "eval_episodes": 0, "tensorboard": False, "curriculum": "own:4", "steps": 32 * 8 * 4}
    )
    straight = Trainer("toy_climb", cfg)
    for _ in range(2):
        straight.iterate()
    folder = save_checkpoint(str(tmp_path / "run"), straight)
    assert os.path.exists(os.path.join(folder, "curriculum.npz"))
    later = [straight.iterate() for _ in range(2)]
    resumed = Trainer("toy_climb", cfg)
    restore_trainer(resumed, folder)
    again = [resumed.iterate() for _ in range(2)]
    for a, b in zip(later, again):
        assert {k: v for k, v in a.items() if k.startswith("curriculum/")} == {
            k: v for k, v in b.items() if k.startswith("curriculum/")
        }
    s, r = straight.curriculum.pool, resumed.curriculum.pool
    assert s.keys.tolist() == r.keys.tolist() and s.added.tolist() == r.added.tolist()
    assert s.own.tobytes() == r.own.tobytes()
